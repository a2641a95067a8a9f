/**
 * The storage contract: every backend runs this suite (test/storage/sqlite.test.ts on ':memory:'
 * and on a file, test/storage/mongo.test.ts on the bundled jongodb server or MONGODB_URI). One fresh
 * store per test.
 */
import { randomBytes } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import {
  BatchConditionError, DuplicateKeyError, StoreUsageError, type ActivityRecord, type Collection, type Filter, type FindOptions, type Store,
} from '../../storage/store.js';
import { COLLECTION_NAMES, SCHEMA, shardKeyOf } from '../../storage/schema.js';
import { beginUserDeletion, continueUserDeletion, deletionPayload } from '../../storage/user-deletion.js';
import { correctActivity, deleteActivity } from '../../storage/activity-corrections.js';
import { listingStamp, stampsListings, withListingStamps } from '../../storage/listing-stamps.js';
import { countEvent, liveWindow, uncountEvent, type CountedWindow } from '../../storage/window-counters.js';
import {
  T0, activity, application, authorizationCode, clientSecret, daily, grant, job, refreshToken, team, teamMember, user,
} from './records.js';

/** A free-form document for the filter tests (stored in `event_attempts`, unsharded, with no unique index). */
interface Probe {
  id: string;
  s?: string | null;
  n?: number | null;
  b?: boolean;
  tags?: string[];
  d?: string;
  mixed?: string | number | boolean | string[];
}

const PROBES: Probe[] = [
  { id: 'p1', s: 'alpha', n: 1, b: true, tags: ['a', 'b'], d: '2024-01-05T10:00:00Z', mixed: 5 },
  { id: 'p2', s: 'beta', n: 2, b: false, tags: ['b', 'c'], d: '2024-02-01T00:00:00Z', mixed: '5' },
  { id: 'p3', s: null, n: 10, b: true, tags: [], d: '2023-12-31T23:59:59Z', mixed: true },
  { id: 'p4', n: null, tags: ['a'], mixed: 1 },
  { id: 'p5', s: 'gamma', n: -3.5, b: false, tags: ['c'], mixed: [] },
];

/** A counted window's count and end, without its id. */
function pick(window: CountedWindow | null): CountedWindow | null {
  return window && { count: window.count, expires_at: window.expires_at };
}

async function rejects(work: () => Promise<unknown>, type: abstract new (...args: never[]) => Error): Promise<void> {
  let thrown: unknown = null;
  try {
    await work();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof type, `expected ${type.name}, got ${String(thrown)}`);
}

/** Bytes that differ from chunk to chunk and are cheap to make and compare (they compress well). */
function pattern(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >>> 12) + seed) & 0xff;
  return bytes;
}

/** Random bytes of which only the low `bits` vary: 8 bits do not compress at all, 4 bits about 2×. */
function noise(size: number, bits: number): Uint8Array {
  const bytes = new Uint8Array(randomBytes(size));
  const mask = (1 << bits) - 1;
  for (let i = 0; i < size; i++) bytes[i]! &= mask;
  return bytes;
}

function sameBytes(actual: Uint8Array | null, expected: Uint8Array): boolean {
  return actual !== null && Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength)
    .equals(Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength));
}

/** What a backend's suite needs around the contract (all optional). */
export interface ContractSetup {
  /** Why the backend cannot run here (`skipUnless`: every test is counted as skipped), or null. */
  missing?: string | null;
  /**
   * Tests the server is known to get wrong, by name, each with how it differs from MongoDB: they are
   * counted as skipped and the run prints each reason. Only for a stand-in server (the bundled jongodb),
   * never for a backend's own bugs; a name that matches no test fails the suite.
   */
  deviations?: Record<string, string>;
  /** Runs once before the first test, e.g. to start a server. */
  before?: () => Promise<void>;
  /** Runs once after the last test, e.g. to stop that server. */
  after?: () => Promise<void>;
}

export function storeContract(label: string, open: () => Promise<Store>, setup: ContractSetup = {}): void {
  const title = `storage contract: ${label}`;
  const contract = suite(title);
  const deviations = new Map(Object.entries(setup.deviations ?? {}));
  const deviating = new Set<string>();
  let store: Store;
  let probes: Collection<Probe>;

  /** Registers a contract test, or counts it as skipped when the server is known to deviate from MongoDB there. */
  function test(name: string, handler: () => Promise<void>): void {
    if (!deviations.has(name)) return contract(name, handler);
    deviating.add(name);
    contract.skip(name, handler);
  }

  skipUnless(setup.missing ?? null, contract);
  if (setup.before) contract.before(setup.before);
  if (deviations.size > 0) {
    contract.before(async () => {
      const lines = [...deviations].map(([name, why]) => `  skipped "${title}" › "${name}": ${why}\n`);
      process.stdout.write(`\n${lines.join('')}  `);
    });
  }
  if (setup.after) contract.after(setup.after);
  contract.before.each(async () => {
    store = await open();
    probes = store.event_attempts as unknown as Collection<Probe>;
  });
  contract.after.each(async () => {
    await store?.close();
  });

  /** An activity or daily of `userId` by id (collections sharded by user have no get by id alone). */
  const activityOf = (id: string, userId = 'u1') => store.activities.findOne({ id, user_id: userId });
  const dailyOf = (id: string, userId = 'u1') => store.dailies.findOne({ id, user_id: userId });

  async function ids(filter: Filter<Probe>, options?: FindOptions<Probe>): Promise<string[]> {
    if (await probes.count({}) === 0) for (const probe of PROBES) await probes.insert(probe);
    const found = await probes.find(filter, options);
    return options?.sort ? found.map((p) => p.id) : found.map((p) => p.id).sort();
  }

  // --- documents ---------------------------------------------------------------------------

  test('round-trips records with nested objects, arrays and null fields', async () => {
    const ada = user('u1', { app_metadata: { app1: { theme: 'dark', flags: [true, false], deep: { n: 1.25 } } } });
    const app = application('a1', 'u1', { redirect_uris: ['https://x.example/cb', 'http://127.0.0.1:8000/cb'] });
    const ride = activity('act1', 'u1');
    await store.users.insert(ada);
    await store.applications.insert(app);
    await store.activities.insert(ride);
    assert.equal(await store.users.get('u1'), ada);
    assert.equal(await store.applications.get('a1'), app);
    assert.equal(await activityOf('act1'), ride);
    assert.is(await activityOf('nope'), null);
    const read = await activityOf('act1');
    assert.not.ok(read && '_id' in read, 'no backend field leaks into a record');
  });

  test('stores text with quotes, unicode and JSON-looking content verbatim', async () => {
    const name = `O'Brien "quoted" \\ 🚴 {"x":1} ['y'] %_ \n end`;
    await store.users.insert(user('u1', { first_name: name }));
    assert.is((await store.users.get('u1'))?.first_name, name);
    assert.is((await store.users.find({ first_name: name })).length, 1);
  });

  test('put replaces a whole document and inserts it when absent', async () => {
    const ride = activity('act1', 'u1');
    await store.activities.put(ride);
    assert.equal(await activityOf('act1'), ride);
    const edited = { ...ride, tags: [], laps: null, summary: null, sport: 'running' };
    await store.activities.put(edited);
    assert.equal(await activityOf('act1'), edited);
    assert.is(await store.activities.count({ user_id: 'u1' }), 1);
  });

  test('keeps derived fields only through a change that names them; every other write drops them', async () => {
    const derived = { listing: '{"id":"act1","app_metadata":', listing_version: 1 };
    const listed = async () => {
      const read = await activityOf('act1');
      return read && { listing: read.listing, listing_version: read.listing_version };
    };
    const gone = { listing: undefined, listing_version: undefined };
    const derive = () => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: derived });

    await store.activities.insert(activity('act1', 'u1', derived));
    assert.equal(await listed(), gone, 'insert');
    assert.is((await derive())?.listing, derived.listing);
    assert.equal(await listed(), derived, 'a change that sets them');
    await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, {});
    assert.equal(await listed(), derived, 'an empty change writes nothing');
    assert.equal((await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { tags: ['edited'] } }))?.listing, undefined);
    assert.equal(await listed(), gone, 'updateOne');
    await derive();
    await store.activities.updateMany({ user_id: 'u1' }, { inc: { samples: 1 } });
    assert.equal(await listed(), gone, 'updateMany');
    await derive();
    await store.batch([{ collection: 'activities', update: { id: 'act1', user_id: 'u1' }, change: { unset: ['analysis_key'] } }]);
    assert.equal(await listed(), gone, 'an update in a batch');
    await derive();
    await store.activities.put({ ...(await activityOf('act1'))!, sport: 'running' });
    assert.equal(await listed(), gone, 'put');
    await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { tags: ['both'], listing: 'new' } });
    assert.equal(await listed(), { listing: 'new', listing_version: undefined }, 'a change that names one keeps what it sets and drops the other');
  });

  test('reads derived fields like any field but never filters or sorts on them [StoreUsageError]', async () => {
    await store.activities.insert(activity('act1', 'u1'));
    await store.activities.insert(activity('act2', 'u1', { start: T0 + 1 }));
    await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { listing: '{"x":"\\u00e9 é"}', listing_version: 2 } });
    assert.equal(await store.activities.findFields({ user_id: 'u1' }, ['id', 'listing', 'listing_version'], { sort: { start: -1 } }), [
      { id: 'act2' }, { id: 'act1', listing: '{"x":"\\u00e9 é"}', listing_version: 2 },
    ]);
    assert.is((await store.activities.find({ user_id: 'u1' }, { sort: { start: 1 } }))[0]?.listing_version, 2);
    await rejects(() => store.activities.find({ user_id: 'u1', listing: 'x' }), StoreUsageError);
    await rejects(() => store.activities.find({ user_id: 'u1', $or: [{ listing_version: 1 }] }), StoreUsageError);
    await rejects(() => store.activities.find({ user_id: 'u1' }, { sort: { listing_version: 1 } }), StoreUsageError);
    await rejects(() => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { listing: { x: 1 } as never } }), StoreUsageError);
    await rejects(() => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { inc: { listing_version: 1 } }), StoreUsageError);
    assert.is((await activityOf('act1'))?.listing_version, 2);
  });

  test('answers projected fields as stored after every kind of write; filters and sorts see them; only scalars or null [StoreUsageError]', async () => {
    // schema.ts `projected`: SQLite keeps them in columns of their own, which must follow every write.
    const fold = ['id', 'sport', 'start', 'local_date', 'analysis_key', 'analysis_version'] as const;
    const folded = (filter: Filter<ActivityRecord> = {}) =>
      store.activities.findFields({ user_id: 'u1', ...filter }, fold, { sort: { start: 1 } });
    await store.activities.insert(activity('act1', 'u1', { analysis_key: null as never }));
    await store.activities.insert(activity('act2', 'u1', { start: T0 + 1, local_date: '2024-01-02', analysis_key: 'a2', analysis_version: 3 }));
    assert.equal(await folded(), [
      { id: 'act1', sport: 'cycling.road', start: T0, local_date: '2024-01-01', analysis_key: null as never },
      { id: 'act2', sport: 'cycling.road', start: T0 + 1, local_date: '2024-01-02', analysis_key: 'a2', analysis_version: 3 },
    ], 'insert: null is null, missing is missing');
    await store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { sport: 'running', analysis_key: 'a1' }, inc: { analysis_version: 2 } });
    await store.activities.updateMany({ user_id: 'u1', local_date: { $gte: '2024-01-02' } }, { unset: ['analysis_key'], set: { local_date: '2024-02-01' } });
    assert.equal(await folded(), [
      { id: 'act1', sport: 'running', start: T0, local_date: '2024-01-01', analysis_key: 'a1', analysis_version: 2 },
      { id: 'act2', sport: 'cycling.road', start: T0 + 1, local_date: '2024-02-01', analysis_version: 3 },
    ], 'updateOne and updateMany');
    await store.activities.put({ ...(await activityOf('act2'))!, sport: 'cycling.gravel', analysis_key: 'p2' });
    await store.batch([
      { collection: 'activities', update: { id: 'act1', user_id: 'u1' }, change: { set: { local_date: '2024-03-01' }, unset: ['analysis_version'] } },
      { collection: 'activities', insert: activity('act3', 'u1', { start: T0 - 1, sport: 'cycling', local_date: '2023-12-31' }) },
    ]);
    assert.equal(await folded({ sport: { $prefix: 'cycling' }, local_date: { $gte: '2023-12-31' } }), [
      { id: 'act3', sport: 'cycling', start: T0 - 1, local_date: '2023-12-31' },
      { id: 'act2', sport: 'cycling.gravel', start: T0 + 1, local_date: '2024-02-01', analysis_key: 'p2', analysis_version: 3 },
    ], 'put and batch; a filter and a sort on projected fields');
    assert.equal((await folded({ analysis_key: null as never })).map((row) => row.id), ['act3']);
    assert.equal((await folded({ analysis_version: { $gt: 2 } })).map((row) => row.id), ['act2']);
    assert.equal((await store.activities.find({ user_id: 'u1' }, { sort: { local_date: -1 } })).map((row) => row.id), ['act1', 'act2', 'act3']);
    assert.is((await activityOf('act1'))?.local_date, '2024-03-01', 'the document says what the column says');

    await rejects(() => store.activities.insert(activity('act4', 'u1', { sport: true as never })), StoreUsageError);
    await rejects(() => store.activities.put(activity('act1', 'u1', { analysis_key: { key: 'x' } as never })), StoreUsageError);
    await rejects(() => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { series_key: ['x'] as never } }), StoreUsageError);
    await rejects(() => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { duration_s: Number.NaN } }), StoreUsageError);
    await rejects(() => store.batch([{ collection: 'activities', insert: activity('act5', 'u1', { offset: false as never }) }]), StoreUsageError);
    assert.is(await store.activities.count({ user_id: 'u1' }), 3);
  });

  test('renews a listing stamp after every write to activities, traces and tests (withListingStamps), never creates one, and a deletion removes it', async () => {
    const stamped = withListingStamps(store);
    assert.ok(stampsListings(stamped) && !stampsListings(store));
    assert.is(withListingStamps(stamped), stamped, 'wrapping twice changes nothing');
    await stamped.activities.insert(activity('before', 'u1'));
    assert.is(await store.listing_stamps.count({ user_id: 'u1' }), 0, 'a write creates no stamp: the first reader does');
    let seen = await listingStamp(stamped, 'u1');
    assert.is(await listingStamp(stamped, 'u1'), seen, 'a read keeps it');
    const other = await listingStamp(stamped, 'u2');
    const renews = async (what: string, write: () => Promise<unknown>, renewed = true) => {
      await write();
      const now = await listingStamp(stamped, 'u1');
      assert.is(now !== seen, renewed, `${what}: ${renewed ? 'a new stamp' : 'the same stamp'}`);
      seen = now;
    };
    const probe = { id: 'tr1', user_id: 'u1', timestamp: T0, offset: 0, local_date: '2024-01-01', test_id: null, lactate: 2, rpe: null, notes: null, power: null, speed: null, heart_rate: null, vo2: null, tags: [], sport: null, app_metadata: {}, created_at: T0, updated_at: T0 };
    await renews('insert', () => stamped.activities.insert(activity('a1', 'u1')));
    await renews('put', () => stamped.activities.put(activity('a1', 'u1', { tags: ['put'] })));
    await renews('insertIfAbsent that inserts', () => stamped.activities.insertIfAbsent(activity('a2', 'u1', { start: T0 + 1 }), ['user_id', 'start', 'source_id', 'source_index']));
    await renews('insertIfAbsent that finds', () => stamped.activities.insertIfAbsent(activity('a3', 'u1', { start: T0 + 1, source_id: 'src-a2' }), ['user_id', 'start', 'source_id', 'source_index']), false);
    await renews('updateOne (laps)', () => stamped.activities.updateOne({ id: 'a1', user_id: 'u1' }, { set: { laps: null } }));
    await renews('updateOne matching nothing', () => stamped.activities.updateOne({ id: 'nope', user_id: 'u1' }, { set: { laps: null } }), false);
    await renews('updateMany', () => stamped.activities.updateMany({ user_id: 'u1' }, { set: { tags: [] } }));
    await renews('deleteMany', () => stamped.activities.deleteMany({ id: 'a2', user_id: 'u1' }));
    await renews('a trace', () => stamped.traces.insert(probe));
    await renews('a batch', () => stamped.batch([{ collection: 'traces', update: { id: 'tr1', user_id: 'u1' }, change: { set: { lactate: 3 } } }]));
    await renews('a write to an unstamped collection', () => stamped.dailies.insert(daily('d1', 'u1')), false);
    await renews("another user's write", () => stamped.activities.insert(activity('b1', 'u2')), false);
    assert.ok((await listingStamp(stamped, 'u2')) !== other, "the other user's stamp is renewed");
    await store.deleteUser('u1');
    assert.is(await store.listing_stamps.count({ user_id: 'u1' }), 0, "the user's deletion removes their stamp");
    await stamped.activities.insert(activity('after', 'u1'));
    assert.is(await store.listing_stamps.count({ user_id: 'u1' }), 0, 'a write racing the deletion leaves no stamp behind');
  });

  test('rejects a second document with the same id [DuplicateKeyError]', async () => {
    await store.users.insert(user('u1'));
    await rejects(() => store.users.insert(user('u1', { email: 'other@example.com' })), DuplicateKeyError);
    assert.is((await store.users.get('u1'))?.email, 'u1@example.com');
  });

  test('enforces every unique index declared in the schema', async () => {
    for (const name of COLLECTION_NAMES) {
      const unique = SCHEMA[name].indexes.filter((index) => index.unique);
      const fields = [...new Set(unique.flatMap((index) => index.fields))];
      // A collection sharded by user takes only documents with their whole shard key.
      const key = Object.fromEntries((shardKeyOf(name) ?? []).map((f) => [f, f === 'user_id' ? 'u1' : 0]));
      const make = (n: number): Record<string, unknown> => ({ id: `${name}-${n}`, ...key, ...Object.fromEntries(fields.map((f) => [f, `${f}-${n}`])) });
      const collection = store[name] as unknown as Collection<{ id: string }>;
      for (const [i, index] of unique.entries()) {
        const first = make(i * 10 + 1);
        await collection.insert(first as { id: string });
        const collider = { ...make(i * 10 + 2), ...Object.fromEntries(index.fields.map((f) => [f, first[f]])) };
        await rejects(() => collection.insert(collider as { id: string }), DuplicateKeyError);
        if (index.fields.length > 1) {
          // Sharing only some of the fields is fine.
          const partial = { ...make(i * 10 + 3), [index.fields[0]!]: first[index.fields[0]!] };
          await collection.insert(partial as { id: string });
        }
      }
    }
  });

  test('lets sparse unique fields be null in many documents but never share a value', async () => {
    await store.users.insert(user('m1', { email: null, managed_by: 'coach' }));
    await store.users.insert(user('m2', { email: null, managed_by: 'coach' }));
    await store.users.insert(user('u1', { email: 'same@example.com' }));
    await rejects(() => store.users.insert(user('u2', { email: 'same@example.com' })), DuplicateKeyError);
    await store.jobs.insert(job('j1'));
    await store.jobs.insert(job('j2'));
    await store.jobs.insert(job('j3', { key: 'ingest:s1' }));
    await rejects(() => store.jobs.insert(job('j4', { key: 'ingest:s1' })), DuplicateKeyError);
    assert.equal((await store.users.find({ email: 'same@example.com' })).map((u) => u.id), ['u1']);
  });

  test('reports a unique collision from put, updateOne, updateMany as DuplicateKeyError', async () => {
    await store.users.insert(user('u1'));
    await store.users.insert(user('u2'));
    await rejects(() => store.users.put(user('u3', { email: 'u1@example.com' })), DuplicateKeyError);
    await rejects(() => store.users.updateOne({ id: 'u2' }, { set: { email: 'u1@example.com' } }), DuplicateKeyError);
    await rejects(() => store.users.updateMany({ id: 'u2' }, { set: { email: 'u1@example.com' } }), DuplicateKeyError);
    assert.is((await store.users.get('u2'))?.email, 'u2@example.com');
    assert.is(await store.users.get('u3'), null);
  });

  // --- filters -----------------------------------------------------------------------------

  test('matches equality on strings, numbers and booleans without mixing types', async () => {
    assert.equal(await ids({ mixed: 5 }), ['p1']);
    assert.equal(await ids({ mixed: '5' }), ['p2']);
    assert.equal(await ids({ mixed: true }), ['p3']);
    assert.equal(await ids({ mixed: 1 }), ['p4']);
    assert.equal(await ids({ mixed: '[]' }), [], 'an array is not its JSON text');
    assert.equal(await ids({ mixed: { $in: ['[]', '5'] } }), ['p2'], 'nor in a list');
    assert.equal(await ids({ mixed: { $ne: '[]' } }), ['p1', 'p2', 'p3', 'p4', 'p5']);
    assert.equal(await ids({ b: true }), ['p1', 'p3']);
    assert.equal(await ids({ b: false }), ['p2', 'p5']);
    assert.equal(await ids({ n: { $eq: 10 } }), ['p3']);
    assert.equal(await ids({ id: 'p2' }), ['p2']);
  });

  test('treats null as missing or null in equality and $exists', async () => {
    assert.equal(await ids({ s: null }), ['p3', 'p4']);
    assert.equal(await ids({ s: { $eq: null } }), ['p3', 'p4']);
    assert.equal(await ids({ s: { $exists: false } }), ['p3', 'p4']);
    assert.equal(await ids({ s: { $exists: true } }), ['p1', 'p2', 'p5']);
    assert.equal(await ids({ s: { $ne: null } }), ['p1', 'p2', 'p5']);
    assert.equal(await ids({ b: null }), ['p4']);
    assert.equal(await ids({ tags: null }), []);
  });

  test('matches missing and null fields with $ne and $nin', async () => {
    assert.equal(await ids({ s: { $ne: 'alpha' } }), ['p2', 'p3', 'p4', 'p5']);
    assert.equal(await ids({ b: { $ne: true } }), ['p2', 'p4', 'p5']);
    assert.equal(await ids({ mixed: { $ne: 5 } }), ['p2', 'p3', 'p4', 'p5']);
    assert.equal(await ids({ s: { $nin: ['alpha', 'beta'] } }), ['p3', 'p4', 'p5']);
  });

  test('treats null in a $nin list as missing or null, so both are excluded', async () => {
    assert.equal(await ids({ s: { $nin: ['alpha', null] } }), ['p2', 'p5']);
  });

  test('matches $in against any listed value, with null meaning missing or null', async () => {
    assert.equal(await ids({ s: { $in: ['alpha', null] } }), ['p1', 'p3', 'p4']);
    assert.equal(await ids({ n: { $in: [1, 10] } }), ['p1', 'p3']);
    assert.equal(await ids({ mixed: { $in: [1, '5'] } }), ['p2', 'p4']);
    assert.equal(await ids({ mixed: { $in: [true] } }), ['p3']);
    assert.equal(await ids({ n: { $in: [] } }), []);
    assert.equal(await ids({ id: { $in: ['p1', 'p5', 'zz'] } }), ['p1', 'p5']);
  });

  test('compares numbers numerically, ISO dates lexically and never across types', async () => {
    assert.equal(await ids({ n: { $gt: 1, $lte: 10 } }), ['p2', 'p3']);
    assert.equal(await ids({ n: { $lt: 0 } }), ['p5']);
    assert.equal(await ids({ n: { $gte: 2 } }), ['p2', 'p3']);
    assert.equal(await ids({ d: { $gte: '2024-01-01', $lt: '2024-02-01T00:00:00Z' } }), ['p1']);
    assert.equal(await ids({ d: { $lte: '2024-01-05T10:00:00Z' } }), ['p1', 'p3']);
    assert.equal(await ids({ mixed: { $gte: 0 } }), ['p1', 'p4']);
    assert.equal(await ids({ mixed: { $gte: '' } }), ['p2']);
    assert.equal(await ids({ b: { $gt: false } }), ['p1', 'p3']);
  });

  test('matches $prefix literally, with no wildcard or regex meaning', async () => {
    const names = ['a.b%_x', 'aXb%_x', 'a.b%_', 'a.bc', 'A.B%_x', 'a.b%Zx', 'x(y[z\\*^$|+?{1}', 'x(y[z\\*^$|+?{1}tail', 'xy'];
    for (const [i, first_name] of names.entries()) await store.users.insert(user(`u${i}`, { first_name }));
    await store.users.insert(user('n1', { first_name: null }));
    const matching = async (prefix: string) => (await store.users.find({ first_name: { $prefix: prefix } }, { sort: { first_name: 1 } }))
      .map((u) => u.first_name);
    assert.equal(await matching('a.b%_'), ['a.b%_', 'a.b%_x']);
    assert.equal(await matching('a.b'), ['a.b%Zx', 'a.b%_', 'a.b%_x', 'a.bc']);
    assert.equal(await matching('x(y[z\\*^$|+?{1}'), ['x(y[z\\*^$|+?{1}', 'x(y[z\\*^$|+?{1}tail']);
    assert.equal(await matching('%'), []);
    assert.equal((await matching('')).length, names.length, 'the empty prefix matches every string, not null');
    assert.equal((await store.users.find({ id: { $prefix: 'u1' } })).map((u) => u.id), ['u1']);
  });

  test('matches array elements with $all and $any', async () => {
    assert.equal(await ids({ tags: { $all: ['a', 'b'] } }), ['p1']);
    assert.equal(await ids({ tags: { $all: ['a'] } }), ['p1', 'p4']);
    assert.equal(await ids({ tags: { $any: ['c', 'z'] } }), ['p2', 'p5']);
    assert.equal(await ids({ tags: { $any: ['a', 'b'] } }), ['p1', 'p2', 'p4']);
    assert.equal(await ids({ tags: { $all: [] } }), []);
    assert.equal(await ids({ tags: { $any: [] } }), []);
    assert.equal(await ids({ tags: { $exists: true } }), ['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  test('combines alternatives with $or and several operators on one field', async () => {
    assert.equal(await ids({ b: true, $or: [{ n: 1 }, { n: { $gt: 5 } }] }), ['p1', 'p3']);
    assert.equal(await ids({ $or: [{ s: 'beta' }, { tags: { $all: ['a'] }, n: null }] }), ['p2', 'p4']);
    assert.equal(await ids({ n: { $gt: 0, $ne: 2 } }), ['p1', 'p3']);
    assert.equal(await ids({ $or: [] }), []);
    assert.equal(await ids({}), ['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  test('refuses hostile field names, unknown operators and non-scalar values [StoreUsageError]', async () => {
    await store.users.insert(user('u1'));
    const users = store.users as unknown as Collection<{ id: string; [field: string]: unknown }>;
    const bad: unknown[] = [
      { "email') IS NULL OR 1=1 --": 'x' }, { "x'": 1 }, { 'a.b': 1 }, { $where: 'true' }, { Email: 'x' }, { ['__proto__']: 1 },
      { email: { $regex: '.*' } }, { email: { $like: '%' } }, { email: { a: 1 } }, { email: {} }, { email: undefined },
      { email: ['x'] }, { email: { $in: 'x' } }, { email: { $gt: null } }, { email: { $prefix: 1 } }, { n: Number.NaN },
      { $or: { email: 'x' } },
    ];
    for (const filter of bad) await rejects(() => users.find(filter as Filter<{ id: string }>), StoreUsageError);
    await rejects(() => users.find({}, { sort: { 'email; DROP TABLE users': 1 } as never }), StoreUsageError);
    await rejects(() => users.find({}, { limit: -1 }), StoreUsageError);
    await rejects(() => users.updateOne({ id: 'u1' }, { set: { "x') --": 1 } }), StoreUsageError);
    await rejects(() => users.updateOne({ id: 'u1' }, { set: { id: 'u2' } }), StoreUsageError);
    await rejects(() => users.updateOne({ id: 'u1' }, { set: { email: 'a' }, unset: ['email'] }), StoreUsageError);
    await rejects(() => users.updateMany({}, { inc: { admin: 1 } }), StoreUsageError);
    await rejects(() => users.insertIfAbsent({ id: 'u9', email: null }, ['email']), StoreUsageError);
    assert.is(await store.users.count({}), 1, 'the table is intact');
    assert.equal(await store.users.get('u1'), user('u1'));
  });

  // --- order and pages ---------------------------------------------------------------------

  test('sorts by several fields, breaks ties by id and pages with limit and offset', async () => {
    assert.equal(await ids({}, { sort: { b: -1, n: 1 } }), ['p1', 'p3', 'p5', 'p2', 'p4']);
    assert.equal(await ids({}, { sort: { b: -1 } }), ['p1', 'p3', 'p2', 'p5', 'p4']);
    assert.equal(await ids({}, { sort: { b: -1 }, limit: 2 }), ['p1', 'p3']);
    assert.equal(await ids({}, { sort: { b: -1 }, limit: 2, offset: 2 }), ['p2', 'p5']);
    assert.equal(await ids({}, { sort: { b: -1 }, offset: 3 }), ['p5', 'p4']);
    assert.equal(await ids({}, { sort: { id: -1 } }), ['p5', 'p4', 'p3', 'p2', 'p1']);
    assert.equal(await ids({}, { sort: { b: -1 }, limit: 0 }), []);
    assert.equal((await probes.findOne({ b: { $exists: true } }, { sort: { n: -1 } }))?.id, 'p3');
  });

  test('sorts null and missing first ascending and last descending', async () => {
    assert.equal(await ids({}, { sort: { s: -1 } }), ['p5', 'p2', 'p1', 'p3', 'p4']);
    assert.equal(await ids({}, { sort: { n: 1 } }), ['p4', 'p5', 'p1', 'p2', 'p3']);
    assert.equal(await ids({}, { sort: { d: 1 } }), ['p4', 'p5', 'p3', 'p1', 'p2']);
  });

  test('sorts null and missing as equal, breaking the tie by id', async () => {
    assert.equal(await ids({}, { sort: { s: 1 } }), ['p3', 'p4', 'p1', 'p2', 'p5']);
  });

  test('findFields answers the named fields of the documents find answers, in its order and page', async () => {
    await ids({});
    const pick = (probe: Probe, names: (keyof Probe)[]) => Object.fromEntries(names.filter((name) => name in probe).map((name) => [name, probe[name]]));
    const names: (keyof Probe)[] = ['id', 's', 'n', 'b', 'tags', 'mixed'];
    for (const options of [{ sort: { n: 1 } }, { sort: { b: -1, n: 1 }, limit: 2, offset: 1 }, { sort: { s: -1 }, offset: 3 }] as FindOptions<Probe>[]) {
      const expected = (await probes.find({}, options)).map((probe) => pick(probe, names));
      assert.equal(await probes.findFields({}, names, options), expected, JSON.stringify(options));
    }
    assert.equal(await probes.findFields({ b: true }, ['s'], { sort: { id: 1 } }), [{ s: 'alpha' }, { s: null }], 'no id unless named');
    assert.equal(await probes.findFields({ id: 'p4' }, ['s', 'b', 'tags']), [{ tags: ['a'] }], 'a missing field is missing, not null');
    assert.equal(await probes.findFields({}, ['id'], { sort: { id: 1 }, limit: 0 }), []);
  });

  test('findFields answers strings verbatim and objects and arrays as stored', async () => {
    const json = '{"id":"a","n":1.5,"list":[1,2]}';
    const ride = activity('act1', 'u1', { sport: json });
    await store.activities.insert(ride);
    const [row] = await store.activities.findFields({ user_id: 'u1' }, ['sport', 'summary', 'laps', 'app_metadata', 'distance', 'tags']);
    assert.equal(row, { sport: json, summary: ride.summary, laps: ride.laps, app_metadata: ride.app_metadata, distance: 40_000.5, tags: ['race'] });
  });

  test('findFields refuses an empty, repeated or hostile field list [StoreUsageError]', async () => {
    await ids({});
    for (const fields of [[], ['s', 's'], ['a.b'], ["s') --"], [1]] as unknown as (keyof Probe)[][]) {
      await rejects(() => probes.findFields({}, fields), StoreUsageError);
    }
  });

  test('counts matching documents', async () => {
    await ids({});
    assert.is(await probes.count({}), 5);
    assert.is(await probes.count({ b: true }), 2);
    assert.is(await probes.count({ s: 'nobody' }), 0);
  });

  // --- updates and deletes -----------------------------------------------------------------

  test('updateOne sets, unsets and increments and returns the document after the change', async () => {
    await store.jobs.insert(job('j1', { progress: 0.25, lease_owner: 'w0' }));
    const changed = await store.jobs.updateOne(
      { id: 'j1', status: 'queued' },
      { set: { status: 'running', payload: { nested: { a: [1, 2] } } }, unset: ['lease_owner'], inc: { attempts: 2, progress: 0.5 } },
    );
    const stored = await store.jobs.get('j1');
    assert.equal(changed, stored);
    assert.is(stored?.status, 'running');
    assert.equal(stored?.payload, { nested: { a: [1, 2] } });
    assert.is(stored?.attempts, 2);
    assert.is(stored?.progress, 0.75);
    assert.not.ok(stored && 'lease_owner' in stored, 'unset removes the field');
    const counter = store.jobs as unknown as Collection<{ id: string; counter?: number }>;
    assert.is((await counter.updateOne({ id: 'j1' }, { inc: { counter: 3 } }))?.counter, 3, 'a missing field counts as 0');
    assert.is(await store.jobs.updateOne({ id: 'j1', status: 'queued' }, { set: { status: 'done' } }), null);
    await rejects(() => store.jobs.updateOne({ id: 'j1' }, { inc: { error: 1 } }), StoreUsageError);
  });

  test('updateOne changes only the first match by sort', async () => {
    await store.jobs.insert(job('j1', { run_after: T0 + 2 }));
    await store.jobs.insert(job('j2', { run_after: T0 + 1 }));
    await store.jobs.insert(job('j3', { run_after: T0 + 1 }));
    const first = await store.jobs.updateOne({ status: 'queued' }, { set: { status: 'done' } }, { sort: { run_after: 1 } });
    assert.is(first?.id, 'j2');
    const last = await store.jobs.updateOne({ status: 'queued' }, { set: { status: 'done' } }, { sort: { run_after: -1 } });
    assert.is(last?.id, 'j1');
    assert.equal((await store.jobs.find({ status: 'queued' })).map((j) => j.id), ['j3']);
    assert.is((await store.jobs.updateOne({ id: 'j3' }, {}))?.id, 'j3', 'an empty change returns the match unchanged');
  });

  test('updateMany changes every match and returns how many matched', async () => {
    for (const id of ['j1', 'j2', 'j3']) await store.jobs.insert(job(id, { kind: id === 'j3' ? 'other' : 'ingest' }));
    assert.is(await store.jobs.updateMany({ kind: 'ingest' }, { set: { status: 'failed', error: 'boom' }, inc: { attempts: 1 } }), 2);
    assert.equal((await store.jobs.find({ status: 'failed' }, { sort: { id: 1 } })).map((j) => [j.id, j.error, j.attempts]), [
      ['j1', 'boom', 1], ['j2', 'boom', 1],
    ]);
    assert.is(await store.jobs.updateMany({ kind: 'nothing' }, { set: { status: 'done' } }), 0);
  });

  test('deleteMany deletes every match and returns the count', async () => {
    for (const id of ['a', 'b', 'c']) await store.dailies.insert(daily(id, id === 'c' ? 'u2' : 'u1', { date: `2024-01-0${id.charCodeAt(0) - 96}` }));
    assert.is(await store.dailies.deleteMany({ user_id: 'u1' }), 2);
    assert.is(await store.dailies.deleteMany({ user_id: 'u1' }), 0);
    assert.equal((await store.dailies.find({ user_id: 'u2' })).map((d) => d.id), ['c']);
  });

  // --- blobs -------------------------------------------------------------------------------

  test('stores, replaces, sizes and deletes blobs', async () => {
    const first = new Uint8Array([1, 2, 3, 4, 5]);
    await store.blobs.put('series/a1', first, { userId: 'u1' });
    first[0] = 99; // the store kept its own copy
    const read = await store.blobs.get('series/a1');
    assert.equal(Array.from(read ?? []), [1, 2, 3, 4, 5]);
    assert.is(read?.constructor, Uint8Array);
    assert.is(await store.blobs.size('series/a1'), 5);
    await store.blobs.put('series/a1', new Uint8Array([7, 8]), { userId: 'u1' });
    assert.equal(Array.from((await store.blobs.get('series/a1')) ?? []), [7, 8]);
    assert.is(await store.blobs.size('series/a1'), 2);
    assert.is(await store.blobs.delete('series/a1'), true);
    assert.is(await store.blobs.delete('series/a1'), false);
    assert.is(await store.blobs.get('series/a1'), null);
    assert.is(await store.blobs.size('series/a1'), null);
  });

  test('getMany answers many blobs in key order, null where absent, repeats included', async () => {
    await store.blobs.put('cache/a', new Uint8Array([1]), { userId: 'u1' });
    await store.blobs.put('cache/b', new Uint8Array(0), { userId: 'u1' });
    const big = pattern(2 * 1024 * 1024 + 3, 7);
    await store.blobs.put('cache/c', big, { userId: 'u2' });
    const read = await store.blobs.getMany(['cache/c', 'missing', 'cache/a', 'cache/b', 'cache/a']);
    assert.is(read.length, 5);
    assert.ok(sameBytes(read[0]!, big), 'a blob of several chunks is whole');
    assert.is(read[1], null);
    assert.equal(Array.from(read[2]!), [1]);
    assert.ok(read[3] instanceof Uint8Array && read[3].byteLength === 0, 'an empty blob is present and empty');
    assert.equal(Array.from(read[4]!), [1]);
    assert.equal(await store.blobs.getMany([]), []);
  });

  test('stores an empty blob as present and empty', async () => {
    await store.blobs.put('empty', new Uint8Array(0), { userId: null });
    const read = await store.blobs.get('empty');
    assert.ok(read instanceof Uint8Array);
    assert.is(read?.byteLength, 0);
    assert.is(await store.blobs.size('empty'), 0);
  });

  test('round-trips a 20 MB blob byte for byte and replaces it with a small one', async () => {
    const big = noise(20 * 1024 * 1024 + 7, 8); // incompressible: stored as given, in many pieces
    await store.blobs.put('files/big', big, { userId: 'u1' });
    assert.is(await store.blobs.size('files/big'), big.byteLength);
    assert.ok(sameBytes(await store.blobs.get('files/big'), big));
    const small = pattern(1000, 5);
    await store.blobs.put('files/big', small, { userId: 'u1' });
    assert.ok(sameBytes(await store.blobs.get('files/big'), small));
    assert.is(await store.blobs.delete('files/big'), true);
  });

  test('round-trips a compressible blob bigger than a chunk compressed, and sizes it by its own length', async () => {
    const big = noise(4 * 1024 * 1024 + 3, 4); // about 2 MB once compressed: more than one 1 MB chunk in MongoDB
    await store.blobs.put('series/big', big, { userId: 'u1' });
    assert.is(await store.blobs.size('series/big'), big.byteLength);
    assert.ok(sameBytes(await store.blobs.get('series/big'), big));
    const periodic = pattern(3 * 1024 * 1024, 9);
    await store.blobs.put('series/big', periodic, { userId: 'u1' });
    assert.is(await store.blobs.size('series/big'), periodic.byteLength);
    assert.ok(sameBytes(await store.blobs.get('series/big'), periodic));
  });

  test('returns stored bytes that look compressed exactly as they were put', async () => {
    const brotli = new Uint8Array(brotliCompressSync(pattern(100_000, 1)));
    await store.blobs.put('files/looks-compressed', brotli, { userId: 'u1' });
    assert.ok(sameBytes(await store.blobs.get('files/looks-compressed'), brotli));
    assert.is(await store.blobs.size('files/looks-compressed'), brotli.byteLength);
  });

  test('hands out blobs that own their memory, so transferring one detaches nothing else', async () => {
    const cases = [['tiny', pattern(100, 2)], ['compressible', pattern(5_000, 4)], ['large compressible', pattern(50_000, 3)], ['random', noise(50_000, 8)]] as const;
    for (const [key, bytes] of cases) {
      await store.blobs.put(key, bytes, { userId: 'u1' });
      const first = (await store.blobs.get(key))!;
      assert.is(first.byteOffset, 0, key);
      assert.is(first.buffer.byteLength, bytes.byteLength, key);
      structuredClone(first.buffer, { transfer: [first.buffer as ArrayBuffer] });
      assert.ok(sameBytes(await store.blobs.get(key), bytes), key);
    }
  });

  test('deletes blobs by key prefix, taking the prefix literally', async () => {
    const keys = ['act/1/series', 'act/1/mmp', 'act/10/series', 'act%1/x', 'act_1/x', 'act.1/x', 'other'];
    for (const key of keys) await store.blobs.put(key, new Uint8Array([1]), { userId: 'u1' });
    assert.is(await store.blobs.deletePrefix('act/1/'), 2);
    assert.is(await store.blobs.deletePrefix('act%'), 1);
    assert.is(await store.blobs.deletePrefix('act_'), 1);
    assert.is(await store.blobs.deletePrefix('act.'), 1);
    assert.is(await store.blobs.deletePrefix('zzz'), 0);
    assert.is(await store.blobs.size('act/10/series'), 1);
    assert.is(await store.blobs.size('other'), 1);
  });

  // --- the shard key ---------------------------------------------------------------------------

  test('refuses, on a collection sharded by user, a filter, a document or a get that does not name the user [StoreUsageError]', async () => {
    await store.activities.insert(activity('act1', 'u1'));
    const { start: _start, ...startless } = activity('act2', 'u1');
    const { user_id: _user, ...ownerless } = daily('d2', 'u1');
    const refused: [string, () => Promise<unknown>][] = [
      ['get by id', () => store.activities.get('act1')],
      ['find by id alone', () => store.activities.find({ id: 'act1' })],
      ['findOne by source', () => store.activities.findOne({ source_id: 'src-act1' } as never)],
      ['a user only inside $or', () => store.activities.find({ $or: [{ user_id: 'u1' }] })],
      ['a list of users', () => store.activities.find({ user_id: { $in: ['u1'] } })],
      ['a user by $ne', () => store.activities.count({ user_id: { $ne: 'u2' } })],
      ['an empty user id', () => store.activities.count({ user_id: '' })],
      ['findFields', () => store.activities.findFields({}, ['id'])],
      ['updateOne', () => store.activities.updateOne({ id: 'act1' }, { set: { sport: 'running' } })],
      ['updateMany', () => store.activities.updateMany({}, { set: { sport: 'running' } })],
      ['deleteMany', () => store.activities.deleteMany({ id: 'act1' })],
      ['insert without start', () => store.activities.insert(startless as never)],
      ['put without user', () => store.dailies.put(ownerless as never)],
      ['insertIfAbsent without user', () => store.dailies.insertIfAbsent(ownerless as never, ['measure', 'date'] as never)],
      ['a change of owner', () => store.activities.updateOne({ id: 'act1', user_id: 'u1' }, { set: { user_id: 'u2' } })],
      ['a batch update', () => store.batch([{ collection: 'activities', update: { id: 'act1' }, change: { set: { sport: 'running' } } }])],
      ['a batch delete', () => store.batch([{ collection: 'dailies', delete: { id: 'd1' } }])],
      ['a batch put', () => store.batch([{ collection: 'dailies', put: ownerless as never }])],
    ];
    for (const name of COLLECTION_NAMES) {
      if (shardKeyOf(name)) refused.push([`find({}) on ${name}`, () => (store[name] as unknown as Collection<{ id: string }>).find({})]);
    }
    for (const [what, work] of refused) await rejects(work, StoreUsageError).catch((error: Error) => { throw new Error(`${what}: ${error.message}`); });
    assert.equal((await activityOf('act1'))?.sport, 'cycling.road', 'nothing was written');
    assert.is(await dailyOf('d2'), null);
    // Named by equality, the user may be written either way; unsharded collections take any filter.
    assert.is((await store.activities.find({ user_id: { $eq: 'u1' } })).length, 1);
    assert.is((await store.users.find({})).length, 0);
  });

  test('keeps one activity per source, index and start within a user, not across users', async () => {
    await store.activities.insert(activity('act1', 'u1', { source_id: 's' }));
    await rejects(() => store.activities.insert(activity('act2', 'u1', { source_id: 's' })), DuplicateKeyError);
    await store.activities.insert(activity('act3', 'u2', { source_id: 's' }));
    assert.is((await store.activities.find({ user_id: 'u2', source_id: 's' })).length, 1);
  });

  // --- batches -----------------------------------------------------------------------------

  test('applies a batch of insert, put, update and delete together', async () => {
    await store.activities.insert(activity('act1', 'u1'));
    await store.activities.insert(activity('act2', 'u1', { source_id: 's2' }));
    await store.batch([
      { collection: 'activities', update: { id: 'act1', user_id: 'u1' }, change: { set: { sport: 'running' } } },
      { collection: 'activities', delete: { id: 'act2', user_id: 'u1' } },
      { collection: 'events', insert: { id: 'e1', user_id: 'u1', event_type: 'activity_updated', resource_id: 'act1', timestamp: T0, deliveries: {}, status: 'pending', created_at: T0 } },
      { collection: 'dailies', put: daily('d1', 'u1') },
    ]);
    assert.is((await activityOf('act1'))?.sport, 'running');
    assert.is(await activityOf('act2'), null);
    assert.is((await store.events.get('e1'))?.resource_id, 'act1');
    assert.ok(await dailyOf('d1'));
  });

  test('rolls back the whole batch when its last op collides', async () => {
    await store.activities.insert(activity('act1', 'u1'));
    await store.events.insert({ id: 'e1', user_id: 'u1', event_type: 'x', resource_id: 'r', timestamp: T0, deliveries: {}, status: 'pending', created_at: T0 });
    await rejects(() => store.batch([
      { collection: 'activities', update: { id: 'act1', user_id: 'u1' }, change: { set: { sport: 'running' } } },
      { collection: 'dailies', insert: daily('d1', 'u1') },
      { collection: 'events', insert: { id: 'e1', user_id: 'u1', event_type: 'y', resource_id: 'r', timestamp: T0, deliveries: {}, status: 'pending', created_at: T0 } },
    ]), DuplicateKeyError);
    assert.is((await activityOf('act1'))?.sport, 'cycling.road');
    assert.is(await dailyOf('d1'), null);
    assert.is((await store.events.get('e1'))?.event_type, 'x');
  });

  test('fails the whole batch when an update matches another number of records than it expects', async () => {
    await store.activities.insert(activity('act1', 'u1'));
    await rejects(() => store.batch([
      { collection: 'dailies', insert: daily('d1', 'u1') },
      { collection: 'activities', update: { id: 'act1', user_id: 'u1', sport: 'running' }, change: { set: { sport: 'rowing' } }, expect: 1 },
    ]), BatchConditionError);
    assert.is(await dailyOf('d1'), null, 'nothing of the batch is written');
    await store.batch([
      { collection: 'activities', update: { id: 'act1', user_id: 'u1', sport: 'cycling.road' }, change: { set: { sport: 'rowing' } }, expect: 1 },
      { collection: 'dailies', insert: daily('d1', 'u1') },
    ]);
    assert.is((await activityOf('act1'))?.sport, 'rowing');
    assert.ok(await dailyOf('d1'));
  });

  // --- writes that must happen once --------------------------------------------------------

  test('lets exactly one of ten concurrent consumers redeem an authorization code', async () => {
    await store.authorization_codes.insert(authorizationCode('c1', 'u1', 'a1'));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      store.authorization_codes.updateOne({ id: 'c1', consumed_at: null }, { set: { consumed_at: T0 + i + 1 } })));
    const winners = results.filter((r) => r !== null);
    assert.is(winners.length, 1);
    assert.is((await store.authorization_codes.get('c1'))?.consumed_at, winners[0]?.consumed_at);
  });

  test('insertIfAbsent under ten concurrent callers inserts once and hands every caller the winner', async () => {
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      store.jobs.insertIfAbsent(job(`j${i}`, { key: 'ingest:s1', payload: { caller: i } }), ['key'])));
    const inserted = outcomes.filter((o) => o.inserted);
    assert.is(inserted.length, 1);
    const winner = inserted[0]!.inserted ? inserted[0]!.doc : null;
    for (const outcome of outcomes) assert.equal(outcome.inserted ? outcome.doc : outcome.existing, winner);
    assert.is(await store.jobs.count({ key: 'ingest:s1' }), 1);
  });

  test('insertIfAbsent returns the existing document, and still refuses a collision outside the key', async () => {
    await store.grants.insert(grant('g1', 'u1', 'a1'));
    const again = await store.grants.insertIfAbsent(grant('g2', 'u1', 'a1'), ['user_id', 'application_id']);
    assert.equal(again, { inserted: false, existing: grant('g1', 'u1', 'a1') });
    const fresh = await store.grants.insertIfAbsent(grant('g3', 'u2', 'a1'), ['user_id', 'application_id']);
    assert.is(fresh.inserted, true);
    await rejects(() => store.grants.insertIfAbsent(grant('g1', 'u3', 'a1'), ['user_id', 'application_id']), DuplicateKeyError);
  });

  test('claims only due queued jobs of the requested kinds, oldest first', async () => {
    await store.jobs.insert(job('late', { run_after: T0 + 10, created_at: T0 }));
    await store.jobs.insert(job('early', { run_after: T0 + 5, created_at: T0 + 1 }));
    await store.jobs.insert(job('tie', { run_after: T0 + 10, created_at: T0 + 2 }));
    await store.jobs.insert(job('future', { run_after: T0 + 1000 }));
    await store.jobs.insert(job('done', { status: 'done' }));
    await store.jobs.insert(job('failed', { status: 'failed' }));
    await store.jobs.insert(job('other-kind', { kind: 'cache' }));
    await store.jobs.insert(job('leased', { status: 'running', lease_owner: 'w0', lease_until: T0 + 200, attempts: 1 }));
    const now = T0 + 100;
    const claimed = await store.claimJob(['ingest'], 'w1', 30_000, now);
    assert.equal(claimed, { ...job('early', { run_after: T0 + 5, created_at: T0 + 1 }), status: 'running', lease_owner: 'w1', lease_until: now + 30_000, attempts: 1, updated_at: now });
    assert.equal(await store.jobs.get('early'), claimed);
    assert.is((await store.claimJob(['ingest'], 'w1', 30_000, now))?.id, 'late');
    assert.is((await store.claimJob(['ingest'], 'w1', 30_000, now))?.id, 'tie');
    assert.is(await store.claimJob(['ingest'], 'w1', 30_000, now), null);
    assert.is((await store.claimJob(['cache', 'ingest'], 'w1', 30_000, now))?.id, 'other-kind');
    assert.is(await store.claimJob([], 'w1', 30_000, now), null);
  });

  test('reclaims a running job whose lease expired and counts the attempt', async () => {
    await store.jobs.insert(job('j1', { status: 'running', lease_owner: 'dead', lease_until: T0 + 50, attempts: 1 }));
    assert.is(await store.claimJob(['ingest'], 'w2', 1000, T0 + 50), null, 'a lease is valid until lease_until');
    const claimed = await store.claimJob(['ingest'], 'w2', 1000, T0 + 51);
    assert.is(claimed?.lease_owner, 'w2');
    assert.is(claimed?.attempts, 2);
    assert.is(claimed?.lease_until, T0 + 1051);
  });

  test('lets exactly one of ten concurrent claimers win a job', async () => {
    await store.jobs.insert(job('j1'));
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.claimJob(['ingest'], `w${i}`, 60_000, T0 + 1)));
    const winners = results.filter((r) => r !== null);
    assert.is(winners.length, 1);
    assert.is((await store.jobs.get('j1'))?.lease_owner, winners[0]?.lease_owner);
    assert.is(winners[0]?.attempts, 1);
  });

  // --- deleting a user ---------------------------------------------------------------------

  async function seedTwoUsers(): Promise<void> {
    await store.users.insert(user('A'));
    await store.users.insert(user('M', { email: null, managed_by: 'A' }));
    await store.users.insert(user('MM', { email: null, managed_by: 'M' }));
    await store.users.insert(user('B'));
    await store.applications.insert(application('appA', 'A'));
    await store.applications.insert(application('appB', 'B'));
    await store.client_secrets.insert(clientSecret('csA', 'appA', 'A'));
    await store.client_secrets.insert(clientSecret('csB', 'appB', 'B'));
    await store.grants.insert(grant('gBA', 'B', 'appA'));
    await store.grants.insert(grant('gBB', 'B', 'appB'));
    await store.grants.insert(grant('gAB', 'A', 'appB'));
    await store.authorization_codes.insert(authorizationCode('codeBA', 'B', 'appA'));
    await store.authorization_codes.insert(authorizationCode('codeBB', 'B', 'appB'));
    await store.refresh_tokens.insert(refreshToken('rtBA', 'B', 'appA', 'gBA'));
    await store.refresh_tokens.insert(refreshToken('rtBB', 'B', 'appB', 'gBB'));
    await store.teams.insert(team('teamA', 'A'));
    await store.teams.insert(team('teamB', 'B'));
    await store.team_members.insert(teamMember('tmB', 'teamA', 'B'));
    await store.team_members.insert(teamMember('tmA', 'teamB', 'A'));
    await store.activities.insert(activity('actA', 'A', { source_id: 'sA' }));
    await store.activities.insert(activity('actM', 'M', { source_id: 'sM' }));
    await store.activities.insert(activity('actB', 'B', { source_id: 'sB' }));
    await store.dailies.insert(daily('dMM', 'MM'));
    await store.dailies.insert(daily('dB', 'B'));
    await store.jobs.insert(job('jobA', { user_id: 'A' }));
    await store.jobs.insert(job('jobNull'));
    await store.blobs.put('series/actA', new Uint8Array([1]), { userId: 'A' });
    await store.blobs.put('series/actM', new Uint8Array([2]), { userId: 'M' });
    await store.blobs.put('files/dMM', new Uint8Array([3]), { userId: 'MM' });
    await store.blobs.put('series/actB', new Uint8Array([4]), { userId: 'B' });
    await store.blobs.put('shared', new Uint8Array([5]), { userId: null });
  }

  async function everything(): Promise<string[]> {
    const all: string[] = [];
    for (const name of COLLECTION_NAMES) {
      const collection = store[name] as unknown as Collection<{ id: string; user_id?: string }>;
      // A collection sharded by user is read user by user.
      const owners = shardKeyOf(name) ? ['A', 'M', 'MM', 'B', 'nobody'].map((user_id) => ({ user_id })) : [{}];
      for (const owner of owners) for (const doc of await collection.find(owner)) all.push(`${name}/${doc.id}`);
    }
    for (const key of ['series/actA', 'series/actM', 'files/dMM', 'series/actB', 'shared']) {
      if (await store.blobs.size(key) !== null) all.push(`blob:${key}`);
    }
    return all.sort();
  }

  test('deleteUser removes the user, their managed users, apps with secrets, grants and tokens, teams and blobs — nothing else', async () => {
    await seedTwoUsers();
    const removed = await store.deleteUser('A');
    assert.equal(await everything(), [
      'activities/actB', 'applications/appB', 'authorization_codes/codeBB', 'blob:series/actB', 'blob:shared', 'client_secrets/csB',
      'dailies/dB', 'grants/gBB', 'jobs/jobNull', 'refresh_tokens/rtBB', 'teams/teamB', 'users/B',
    ].sort());
    // 3 users, appA, csA, gBA + gAB, codeBA, rtBA, teamA, tmB + tmA, actA + actM, dMM, jobA, 3 blobs.
    assert.is(removed, 19);
  });

  test('a deletion in batches makes the user gone in one write, then its job removes what deleteUser removes', async () => {
    await seedTwoUsers();
    const job = await beginUserDeletion(store, 'A');
    assert.ok(job !== null);
    for (const id of ['A', 'M', 'MM']) assert.is(await store.users.get(id), null, `user ${id} is gone at once`);
    assert.is(await store.applications.findOne({ user_id: 'A' }), null, 'their applications too');
    assert.ok(await store.activities.findOne({ user_id: 'A', id: 'actA' }), 'the rest waits for the job');
    assert.is(await beginUserDeletion(store, 'A'), null, 'a second deletion finds no user');
    const done = await continueUserDeletion(store, deletionPayload(job));
    assert.equal(await everything(), [
      'activities/actB', 'applications/appB', 'authorization_codes/codeBB', 'blob:series/actB', 'blob:shared', 'client_secrets/csB',
      'dailies/dB', 'grants/gBB', 'jobs/jobNull', `jobs/${job.id}`, 'refresh_tokens/rtBB', 'teams/teamB', 'users/B',
    ].sort());
    assert.is(done.removed, 19, 'as many as deleteUser removes');
    assert.equal((await continueUserDeletion(store, done)).removed, 19, 'a second run finds nothing left');
  });

  test('deleteUser of an unknown user removes nothing', async () => {
    await seedTwoUsers();
    const before = await everything();
    assert.is(await store.deleteUser('nobody'), 0);
    assert.equal(await everything(), before);
  });

  // --- correcting and deleting one activity (storage/activity-corrections.ts) ---------------

  test('corrects an activity in one conditional write with its event, dropping what was derived from the sport', async () => {
    await store.activities.insert(activity('act1', 'A', { analysis_key: 'analysis:act1:k1', analysis_version: 3, listing: '{}', listing_version: 3 }));
    await store.activities.insert(activity('act2', 'B'));
    await store.blobs.put('analysis:act1:k1', new Uint8Array([1]), { userId: 'A' });
    const corrected = await correctActivity(store, 'A', 'act1', { sport: 'running.trail', tags: ['long'], notes: 'windy' }, T0 + 5);
    assert.ok(corrected);
    assert.equal([corrected.sport, corrected.tags, corrected.notes, corrected.sport_corrected_at, corrected.updated_at], ['running.trail', ['long'], 'windy', T0 + 5, T0 + 5]);
    for (const field of ['analysis_key', 'analysis_version', 'listing', 'listing_version'] as const) assert.is(corrected[field], undefined, field);
    assert.is(await store.blobs.size('analysis:act1:k1'), null);
    assert.equal((await store.activities.find({ user_id: 'A', sport: 'running.trail' })).map((found) => found.id), ['act1'], 'filters read the new sport');
    assert.equal((await store.events.find({ user_id: 'A' })).map((event) => [event.event_type, event.resource_id]), [['activity_updated', 'act1']]);
    assert.is((await correctActivity(store, 'A', 'act1', { notes: null }, T0 + 6))!.notes, undefined, 'null clears the notes');
    assert.is(await correctActivity(store, 'A', 'act2', { tags: [] }), null, "another user's activity is not found");
    assert.equal((await activityOf('act2', 'B'))!.tags, ['race']);
    const same = await correctActivity(store, 'A', 'act1', { sport: 'running.trail' }, T0 + 7);
    assert.is(same!.updated_at, T0 + 6, 'no change, no write');
    assert.is(await store.events.count({ user_id: 'A' }), 2);
  });

  test('deletes an activity with its blobs, and its source only when no other activity comes from it', async () => {
    const source = (id: string, activityIds: string[]) => ({
      id, user_id: 'A', type: 'fit' as const, origin: 'manual_upload' as const, filename: 'two.fit', content_hash: `hash-${id}`, size: 3, status: 'processed' as const,
      activity_ids: activityIds, error: null, warnings: [], bytes_key: `source:${id}`, application_id: null, created_at: T0, updated_at: T0,
    });
    await store.sources.insert(source('s1', ['act1', 'act2']));
    await store.jobs.insert(job('ingest-s1', { user_id: 'A', key: 'ingest:s1', status: 'done' }));
    await store.blobs.put('source:s1', new Uint8Array([9]), { userId: 'A' });
    for (const [id, start] of [['act1', T0], ['act2', T0 + 3_600_000]] as const) {
      await store.activities.insert(activity(id, 'A', { source_id: 's1', source_index: id === 'act1' ? 0 : 1, start, analysis_key: `analysis:${id}:k` }));
      await store.blobs.put(`series/${id}`, new Uint8Array([1]), { userId: 'A' });
      await store.blobs.put(`analysis:${id}:k`, new Uint8Array([2]), { userId: 'A' });
    }
    await store.activities.insert(activity('act3', 'B', { source_id: 's1' }));
    assert.is(await deleteActivity(store, 'B', 'act1'), null, "another user's id deletes nothing");

    assert.equal(await deleteActivity(store, 'A', 'act1', T0 + 1), { sourceDeleted: false, blobs: 2 });
    assert.is(await activityOf('act1', 'A'), null);
    assert.equal((await store.sources.findOne({ id: 's1', user_id: 'A' }))!.activity_ids, ['act2'], 'the shared source stays');
    assert.ok(await store.blobs.size('source:s1') !== null);
    assert.equal(await deleteActivity(store, 'A', 'act2', T0 + 2), { sourceDeleted: true, blobs: 3 });
    assert.is(await store.sources.findOne({ id: 's1', user_id: 'A' }), null);
    assert.is(await store.jobs.findOne({ key: 'ingest:s1' }), null);
    for (const key of ['source:s1', 'series/act1', 'series/act2', 'analysis:act1:k', 'analysis:act2:k']) assert.is(await store.blobs.size(key), null, key);
    assert.equal((await store.events.find({ user_id: 'A' }, { sort: { ord: 1 } })).map((event) => [event.event_type, event.resource_id]), [['activity_deleted', 'act1'], ['activity_deleted', 'act2']]);
    assert.ok(await activityOf('act3', 'B'), "another user's activity naming the same source id stays");
    assert.is(await deleteActivity(store, 'A', 'act2'), null, 'a second deletion finds nothing');
  });

  test('two activities of one source deleted at once take the source along, never leaving it to each other', async () => {
    await store.sources.insert({
      id: 's1', user_id: 'A', type: 'fit', origin: 'manual_upload', filename: 'two.fit', content_hash: 'hash-s1', size: 3, status: 'processed',
      activity_ids: ['act1', 'act2'], error: null, warnings: [], bytes_key: 'source:s1', application_id: null, created_at: T0, updated_at: T0,
    });
    await store.activities.insert(activity('act1', 'A', { source_id: 's1' }));
    await store.activities.insert(activity('act2', 'A', { source_id: 's1', source_index: 1, start: T0 + 3_600_000 }));
    // Both read their sibling before either writes (a barrier on the sibling lookup), so each first leaves the
    // source to the other; the source's version condition fails one of them, which reads again and takes it.
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => { release = resolve; });
    const activities = Object.create(store.activities, {
      findFields: {
        value: async (...args: Parameters<typeof store.activities.findFields>) => {
          const rows = await store.activities.findFields(...args);
          if (++arrived === 2) release();
          if (arrived <= 2) await barrier;
          return rows;
        },
      },
    }) as typeof store.activities;
    const racing = Object.create(store, { activities: { value: activities } }) as Store;
    const outcomes = await Promise.all([deleteActivity(racing, 'A', 'act1'), deleteActivity(racing, 'A', 'act2')]);
    assert.is(arrived, 3, 'one of them read again');
    assert.equal(outcomes.map((outcome) => outcome?.sourceDeleted).sort(), [false, true], 'exactly one of them took the source');
    assert.is(await store.sources.findOne({ id: 's1', user_id: 'A' }), null);
    assert.is(await store.activities.count({ user_id: 'A' }), 0);
  });

  // --- window counters (storage/window-counters.ts, the gateway's rate limits) ----------------

  test('window counters count in a window that opens with the first event and restart once it ends', async () => {
    const counters = store.rate_limits;
    assert.equal(pick(await countEvent(counters, 'limit:k', 60_000, 1000)), { count: 1, expires_at: 61_000 });
    assert.equal(pick(await countEvent(counters, 'limit:k', 60_000, 30_000)), { count: 2, expires_at: 61_000 });
    assert.equal(pick(await liveWindow(counters, 'limit:k', 60_999)), { count: 2, expires_at: 61_000 });
    assert.is(await liveWindow(counters, 'limit:k', 61_000), null, 'over at its end');
    assert.is(await uncountEvent(counters, 'limit:k', 61_000), null, 'nothing to take back from an ended window');
    assert.equal(pick(await countEvent(counters, 'limit:k', 60_000, 61_000)), { count: 1, expires_at: 121_000 });
    assert.is(await counters.count({}), 1, 'the ended window was restarted in place');
  });

  test('window counters take back one event at a time, never below zero', async () => {
    const counters = store.rate_limits;
    await countEvent(counters, 'limit:k', 60_000, 0);
    assert.equal(pick(await uncountEvent(counters, 'limit:k', 0)), { count: 0, expires_at: 60_000 });
    assert.is(await uncountEvent(counters, 'limit:k', 0), null);
    assert.is((await liveWindow(counters, 'limit:k', 0))?.count, 0);
  });

  // Single-document writes only; on the bundled jongodb this says little about concurrency (issue 24): the
  // cross-process proof runs on a shared SQLite file (test/gateway/rate-limit-processes.test.ts).
  test('window counters count each of concurrent events once, in one window', async () => {
    const counters = store.rate_limits;
    const windows = await Promise.all(Array.from({ length: 10 }, () => countEvent(counters, 'limit:k', 60_000, 0)));
    assert.equal(windows.map((window) => window.count).sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(pick(await liveWindow(counters, 'limit:k', 0)), { count: 10, expires_at: 60_000 });
  });

  test('answers ping', async () => {
    await store.ping();
  });

  for (const name of deviations.keys()) {
    if (!deviating.has(name)) {
      contract(`lists only existing tests as deviations [${name}]`, async () => {
        assert.unreachable(`deviations name "${name}", which is no test of the storage contract`);
      });
    }
  }
  contract.run();
}
