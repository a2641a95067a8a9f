/**
 * The multi-process scenario, on a shared SQLite file, where its result means something (the bundled
 * MongoDB double loses concurrent commits: test/storage/mongo-double.test.ts). Two engines and two gateways,
 * each its own process (`start:engine`, `start:gateway`; each gateway calls one engine by its single
 * address), one store. Every user uploads real FIT files through both gateways at once (one file through
 * both, at the same moment), an application receives the users' events as webhooks on a loopback
 * receiver, and one engine is SIGKILLed while it holds ingest jobs and other jobs wait. Then:
 *
 * - nothing lost: every upload ends processed, with the activity its file holds;
 * - nothing processed twice: each source has its one activity; the same bytes sent through both gateways
 *   at once are one source; each ingest job ran once (attempts 1, one `jobs: done` in the engines' logs),
 *   except the jobs the killed engine held, which the other engine finished after their lease (attempt 2);
 *   a source's events are written once, except where the killed engine's run may have committed first;
 * - every webhook delivered: each event of the feed reaches the receiver, signed, in the feed's order per
 *   user; at least once is the promise (README, Webhooks), and an event arrives twice only when the kill
 *   cut its attempt off (its first copy came before the killed engine's delivery leases ran out).
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startProcess, type RunningProcess } from '../support/processes.js';
import { tempDir } from '../support/stack.js';
import { FIXTURES } from '../support/paths.js';
import { fitCorpusPath } from '../support/fit-corpus.js';
import { startReceiver, verifySignature, type Receiver } from '../support/webhook-receiver.js';
import type { SourceBody } from '../support/uploads.js';
import { openStore } from '../../storage/open-store.js';
import type { EventRecord, JobRecord, Store } from '../../storage/store.js';
import { createApplication, createUser, unionGrant } from '../../gateway/services/accounts.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';

/** Real rides and runs from the MIT/BSD corpus, each holding one activity (fit-corpus.expected.json). */
const FILES = [
  'sweatpy/4078723797.fit',
  'fit-file-parser/garmin-stamina.fit',
  'fit-file-parser/road-with-power.fit',
  'sweatpy/4801048867.fit',
  'fit-file-parser/running-with-developer-data.fit',
  'fitparse-rs/hrv-activity.fit',
];
const USERS = 4;
/** Jobs engine A finishes before it is killed. */
const KILL_AFTER_JOBS = 3;
/** The whole scenario's deadline: it usually takes 15–30 s. */
const DEADLINE_MS = 90_000;
const ISSUER = 'http://localhost:8080';
const SCOPES = ['activities:read', 'activities:write'];
const SECRET = 'whsec_shared_sqlite';
/**
 * Short leases, so the survivor takes the killed engine's work over within seconds, yet longer than a
 * renewal (a third of the lease) or a delivery attempt (WEBHOOK_TIMEOUT_MS) can take on a busy machine.
 */
const JOB_LEASE_MS = 4000;
const WEBHOOK_LEASE_MS = 5000;

interface Athlete {
  userId: string;
  token: string;
}

/** The corpus's expected decoding of each file. */
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'fit-corpus.expected.json'), 'utf8')) as Record<string, { activities: { start: string }[] }>;

/** The application with the receiver as its endpoint, USERS athletes who granted it, and their tokens. */
async function seed(store: Store, receiver: Receiver): Promise<Athlete[]> {
  const owner = await createUser(store, { email: 'owner@example.com' });
  const app = await createApplication(store, owner.id, { name: 'Fleet receiver' });
  await store.applications.updateOne({ id: app.id }, { set: { webhook_endpoints: [receiver.url], webhook_secret: SECRET } });
  const keys = await SigningKeys.open(store);
  const athletes: Athlete[] = [];
  for (let u = 0; u < USERS; u++) {
    const user = await createUser(store, { email: `athlete${u}@example.com` });
    const grant = await unionGrant(store, user.id, app.id, SCOPES);
    const minted = await mintAccessToken(keys, { issuer: ISSUER, userId: user.id, applicationId: app.id, grantId: grant.id, scopes: SCOPES });
    athletes.push({ userId: user.id, token: minted.access_token });
  }
  return athletes;
}

async function startEngine(env: Record<string, string>): Promise<{ process: RunningProcess; address: string }> {
  const engine = startProcess('dist/engine/main.js', { ...env, ENGINE_ADDRESS: '127.0.0.1:0' });
  const { address } = await engine.waitForLog((line) => line.msg === 'engine listening');
  return { process: engine, address: String(address) };
}

async function startGateway(env: Record<string, string>, engineAddress: string): Promise<{ process: RunningProcess; baseUrl: string }> {
  const gateway = startProcess('dist/gateway/main.js', { ...env, PORT: '0', PAGES_PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: engineAddress });
  const { port } = await gateway.waitForLog((line) => line.msg === 'gateway listening');
  return { process: gateway, baseUrl: `http://127.0.0.1:${port}` };
}

async function uploadOne(baseUrl: string, token: string, file: string): Promise<string> {
  const form = new FormData();
  form.append('files', new Blob([fs.readFileSync(fitCorpusPath(file))]), path.basename(file));
  const response = await fetch(`${baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  assert.is(response.status, 202, `${file} through ${baseUrl}: ${text}`);
  return (JSON.parse(text) as { sources: SourceBody[] }).sources[0]!.id;
}

async function getJson<T>(baseUrl: string, urlPath: string, token: string): Promise<T> {
  const response = await fetch(`${baseUrl}${urlPath}`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(response.status, 200, `${urlPath}: ${response.status}`);
  return (await response.json()) as T;
}

/** Polls `check` until it answers a value, or fails naming `what` at the deadline. */
async function until<T>(what: string, deadline: number, check: () => Promise<T | null | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await delay(25);
  }
}

/** Ingest job ids of each `jobs: done` line in an engine's output. */
function jobsDone(engine: RunningProcess): string[] {
  return engine.output().split('\n').flatMap((text) => {
    try {
      const line = JSON.parse(text) as { msg?: string; job?: string; kind?: string };
      // Ingest jobs only: an engine also runs cluster-wide jobs (the analysis plan it enqueues at start).
      return line.msg === 'jobs: done' && line.kind === 'ingest' && line.job ? [line.job] : [];
    } catch {
      return [];
    }
  });
}

test('two gateways and two engines on one SQLite file, one engine SIGKILLed mid-batch: every upload processed once, every webhook delivered', async () => {
  const deadline = Date.now() + DEADLINE_MS;
  const dataDir = tempDir();
  const receiver = await startReceiver();
  const env = {
    DATA_DIR: dataDir, LOG_LEVEL: 'info', BASE_URL: ISSUER, ENGINE_THREADS: '1',
    JOB_CONCURRENCY: '2', JOB_LEASE_MS: String(JOB_LEASE_MS), JOB_POLL_MS: '50',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_LEASE_MS: String(WEBHOOK_LEASE_MS), WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_POLL_MS: '50',
  };
  const store = await openStore({ mongodbUri: null, sqliteFile: path.join(dataDir, 'threshold.sqlite') });
  const running: RunningProcess[] = [];
  try {
    const athletes = await seed(store, receiver);
    const [engineA, engineB] = await Promise.all([startEngine(env), startEngine(env)]);
    running.push(engineA.process, engineB.process);
    const gateways = await Promise.all([startGateway(env, engineA.address), startGateway(env, engineB.address)]);
    running.push(...gateways.map((gateway) => gateway.process));

    // Every file of every athlete at once, alternating gateways; the first file through both gateways.
    const uploads = athletes.flatMap((athlete) => [
      ...FILES.map((file, i) => ({ athlete, file, baseUrl: gateways[i % 2]!.baseUrl })),
      { athlete, file: FILES[0]!, baseUrl: gateways[1]!.baseUrl },
    ]);
    const sourceIds = await Promise.all(uploads.map(({ athlete, file, baseUrl }) => uploadOne(baseUrl, athlete.token, file)));
    for (let a = 0; a < athletes.length; a++) {
      const mine = sourceIds.slice(a * (FILES.length + 1), (a + 1) * (FILES.length + 1));
      assert.is(mine[FILES.length], mine[0], `athlete ${a}: the same bytes through both gateways at once are one source`);
      assert.is(new Set(mine).size, FILES.length);
    }

    // The kill: once engine A has finished a few jobs and holds others, while more wait in the queue.
    const owner = `:${engineA.process.child.pid}:`;
    const heldBy = async (): Promise<JobRecord[]> => (await store.jobs.find({ kind: 'ingest', status: 'running' })).filter((job) => job.lease_owner?.includes(owner));
    await until('engine A to hold a job after finishing a few', deadline, async () =>
      jobsDone(engineA.process).length >= KILL_AFTER_JOBS && (await heldBy()).length > 0 && (await store.jobs.count({ kind: 'ingest', status: 'queued' })) > 0);
    const killedAt = Date.now();
    await engineA.process.stop('SIGKILL');
    const held = await heldBy();
    const waiting = await store.jobs.count({ kind: 'ingest', status: 'queued' });
    assert.ok(held.length > 0, 'engine A was killed holding jobs');
    assert.ok(waiting > 0, 'with jobs still waiting');
    process.stdout.write(`\n  killed engine A holding ${held.length} job(s), ${waiting} queued, after it finished ${jobsDone(engineA.process).length}\n  `);

    // Nothing lost: every source ends processed, with the activity its file holds.
    const token = (a: number) => athletes[a]!.token;
    for (let a = 0; a < athletes.length; a++) {
      const sources = await until(`athlete ${a}'s sources to settle`, deadline, async () => {
        const listed = await getJson<SourceBody[]>(gateways[1]!.baseUrl, '/api/v1/profile/sources/?limit=100', token(a));
        return listed.every((source) => source.status !== 'processing') && listed;
      });
      assert.is(sources.length, FILES.length);
      for (const source of sources) assert.is(source.status, 'processed', `${source.filename}: ${JSON.stringify(source.error)}`);
      for (const source of sources) assert.is(source.activity_ids.length, 1, `${source.filename}: one activity`);
      const activities = await getJson<{ id: string; source_id: string; start: string }[]>(gateways[a % 2]!.baseUrl, '/api/v1/activities/?limit=100', token(a));
      assert.is(activities.length, FILES.length, `athlete ${a}: one activity per file, none twice`);
      assert.equal(activities.map((activity) => activity.id).sort(), sources.map((source) => source.activity_ids[0]).sort());
      const bySource = new Map(sources.map((source) => [source.id, source]));
      for (const activity of activities) {
        const file = FILES.find((name) => path.basename(name) === bySource.get(activity.source_id)!.filename)!;
        assert.is(Date.parse(activity.start), Date.parse(EXPECTED[file]!.activities[0]!.start), `${file}: its own activity`);
      }
    }

    // Nothing processed twice: each job ran once, but for the held ones, which the survivor finished. A held
    // job whose source the killed engine had already committed settles its source before its lease runs out:
    // wait for the survivor to take it over and finish it.
    await until('every ingest job to finish', deadline, async () => (await store.jobs.count({ kind: 'ingest', status: { $in: ['queued', 'running'] } })) === 0);
    const jobs = await store.jobs.find({ kind: 'ingest' });
    assert.is(jobs.length, USERS * FILES.length);
    const heldIds = new Set(held.map((job) => job.id));
    for (const job of jobs) {
      assert.is(job.status, 'done', `${job.id}: ${job.error}`);
      assert.is(job.attempts, heldIds.has(job.id) ? 2 : 1, `${job.id}: ${heldIds.has(job.id) ? 'the killed engine\'s attempt and the survivor\'s' : 'one attempt'}`);
    }
    const done = [...jobsDone(engineA.process), ...jobsDone(engineB.process)];
    assert.equal([...done].sort(), jobs.map((job) => job.id).sort(), 'each job reported done once, by one engine');
    for (const id of heldIds) assert.ok(jobsDone(engineB.process).includes(id), `${id}: finished by engine B after the lease`);
    const heldSources = new Set(held.map((job) => String(job.payload.source_id)));
    const events = await store.events.find({ user_id: { $in: athletes.map((athlete) => athlete.userId) } });
    for (const job of jobs) {
      const sourceId = String(job.payload.source_id);
      const [activityId] = (await store.sources.findOne({ id: sourceId, user_id: job.user_id! }))!.activity_ids;
      const written = events.filter((event) => event.resource_id === sourceId || event.resource_id === activityId).map((event) => event.event_type);
      const once = ['activity_created', 'activity_analyzed', 'source_processed'];
      // A held job's first run may have committed before the kill: its rerun writes the same activity again.
      if (heldSources.has(sourceId)) assert.ok(written.filter((type) => type === 'source_processed').length <= 2, `${sourceId}: ${written}`);
      else assert.equal(written.sort(), once.sort(), `${sourceId}: its events written once`);
    }

    // Every webhook delivered, signed, in order per user; a second copy only of an attempt the kill cut off.
    await until('every event to be published', deadline, async () => (await store.events.count({ status: 'pending' })) === 0);
    for (const [a, athlete] of athletes.entries()) {
      const feed = (await getJson<{ events: { id: string }[] }>(gateways[0]!.baseUrl, '/api/v1/events?limit=1000', token(a))).events.map((event) => event.id);
      assert.is(feed.length, events.filter((event: EventRecord) => event.user_id === athlete.userId).length, `athlete ${a}: the feed lists every event`);
      const received = await until(`athlete ${a}'s webhooks`, deadline, async () => {
        const bodies = receiver.received.map((request) => JSON.parse(request.body) as { id: string; user_id: string }).filter((body) => body.user_id === athlete.userId);
        return feed.every((id) => bodies.some((body) => body.id === id)) && bodies.map((body) => body.id);
      });
      assert.equal(received.filter((id, index) => received.indexOf(id) === index), feed, `athlete ${a}: every event, in the feed's order, nothing else`);
      for (let i = 1; i < received.length; i++) assert.ok(feed.indexOf(received[i]!) >= feed.indexOf(received[i - 1]!), 'never an earlier event after a later one');
      // The survivor sends an event the killed engine had claimed only after that claim's lease ran out.
      const twice = received.filter((id, index) => received.indexOf(id) !== index);
      const firstAt = (id: string) => receiver.received.find((request) => JSON.parse(request.body).id === id)!.at;
      assert.ok(twice.every((id) => firstAt(id) < killedAt + WEBHOOK_LEASE_MS), `athlete ${a}: duplicates only of attempts the kill cut off: ${JSON.stringify(twice)}`);
    }
    for (const request of receiver.received) {
      assert.ok(await verifySignature(request.headers['x-sweatstack-signature'] as string, request.body, SECRET), 'signed with the application\'s secret');
    }
    const ids = receiver.received.map((request) => JSON.parse(request.body).id as string);
    const beforeKill = receiver.received.filter((request) => request.at < killedAt).length;
    process.stdout.write(`  ${ids.length} webhooks for ${new Set(ids).size} events (${beforeKill} received before the kill)\n  `);
  } finally {
    for (const child of running) await child.stop('SIGKILL');
    await store.close();
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
