/**
 * What a call costs the store does not grow with the account (issue 24 item 7): the handlers run in this
 * process on a store that counts its port calls (test/support/counting-store.ts), for a user with 10
 * activities and one with 40, on SQLite and on MongoDB (the bundled server, or MONGODB_URI).
 *
 * - A cold longitudinal mean-max (caches in the store, none in the engine's memory) reads the matching
 *   activities' few fields once and their caches in batches (`Blobs.getMany`): the same number of calls at
 *   10 and at 40 activities (it was 1 + one blob read per activity), and never a whole activity record.
 * - A cached model call reads its watermark: the same calls at 10 and 40, and each sorted read of it
 *   follows an index (SQLite's plan sorts nothing; it sorted every one of the user's documents before).
 * - A training load whose thresholds are all modeled (no declared marker: one model per local date) reads
 *   the season's inputs once: the same calls at 10 and 40 dates (it was a watermark and a read of the
 *   window's inputs per date).
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { skipUnless, suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import type { CallContext } from '../../engine/errors.js';
import { createPool, type EnginePool } from '../../engine/pool/pool.js';
import { getLongitudinalMeanMax } from '../../engine/service/analyses.js';
import { ANALYSIS_MEMO_BYTES, AnalysisMemo } from '../../engine/service/analysis-cache.js';
import { getIntensityDurationModel, modeledMarkersFrom, modeledSeasonFrom, type ModelState } from '../../engine/service/physiological-models.js';
import { getTrainingLoad } from '../../engine/service/training-load.js';
import { tableFromIPC } from 'apache-arrow';
import { newId } from '../../storage/ids.js';
import { daily } from '../storage/records.js';
import { ModelCache } from '../../engine/service/model-cache.js';
import { WATERMARKED } from '../../engine/service/model-inputs.js';
import { openStore } from '../../storage/open-store.js';
import { openMongoStore } from '../../storage/mongo/mongo-store.js';
import { dropTestDatabase, mongoServerMissing, startMongoServer, type MongoServer } from '../support/mongo-server.js';
import { fieldExpression, orderBy } from '../../storage/sqlite/sql-filter.js';
import { parseSort } from '../../storage/query.js';
import type { Store } from '../../storage/store.js';
import { insertActivity } from '../support/activities.js';
import { countingStore, type CountingStore } from '../support/counting-store.js';
import { tempDir } from '../support/stack.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 4, 1, 6);
const SIZES = [10, 40] as const;
const REQUEST = { sports: ['cycling'], metric: 'power', durations: [5, 60, 300], all_durations: false, after: [], format: 'ARROW_IPC' };

function call(): CallContext {
  return { signal: new AbortController().signal, deadline: Date.now() + 60_000 };
}

interface Context {
  inner: Store;
  counting: CountingStore;
  pool: EnginePool;
  file: string | null;
  close(): Promise<void>;
}

/** The two count tests on the store `open` gives (seeded with 10 and 40 rides). */
function costSuite(name: string, open: () => Promise<{ store: Store; file: string | null; close(): Promise<void> }>, missing: string | null) {
  const cost = suite<Context>(`store cost: ${name}`);
  skipUnless(missing, cost);

  cost.before(async (context) => {
    const opened = await open();
    context.inner = opened.store;
    context.file = opened.file;
    context.close = opened.close;
    context.counting = countingStore(opened.store);
    context.pool = createPool({ threads: 1 });
    for (const size of SIZES) {
      for (let day = 0; day < size; day++) {
        await insertActivity(opened.store, `user-${size}`, {
          sport: 'cycling.road', start: T0 + day * DAY,
          series: { rows: 1200, metrics: { power: (i) => 150 + ((i * 7 + day) % 90) } },
        });
      }
      await opened.store.dailies.insert(daily(newId(), `user-${size}`, { measure: 'body_mass', date: '2024-05-01', value: 70 }));
    }
  });

  cost.after(async (context) => {
    await context.pool?.destroy();
    await context.close?.();
  });

  cost('a cold longitudinal mean-max makes as many store calls at 40 activities as at 10, reading fields and caches in batches', async ({ inner, counting, pool }) => {
    const cold: number[] = [];
    for (const size of SIZES) {
      const userId = `user-${size}`;
      // The caches exist in the store (a first call computes them); the engine's memory starts empty.
      await getLongitudinalMeanMax({ store: inner, pool })({ ...REQUEST, user_id: userId } as never, call());
      counting.reset();
      const memo = new AnalysisMemo(ANALYSIS_MEMO_BYTES);
      const answer = await getLongitudinalMeanMax({ store: counting.store, pool, memo })({ ...REQUEST, user_id: userId } as never, call());
      assert.is(answer.rows, 3);
      cold.push(counting.total());
      assert.is(counting.counts.get('activities.find') ?? 0, 0, 'no whole activity record is read');
      assert.is(counting.counts.get('blobs.get') ?? 0, 0, 'no cache is read alone');
      assert.ok((counting.counts.get('blobs.getMany') ?? 0) >= 1);
      counting.reset();
      await getLongitudinalMeanMax({ store: counting.store, pool, memo })({ ...REQUEST, user_id: userId } as never, call());
      assert.is(counting.total(), 1, 'warm: one query for the activities, the caches from memory');
    }
    assert.is(cold[1], cold[0], `store calls at ${SIZES.join(' and ')} activities: ${cold.join(', ')}`);
    assert.ok(cold[0]! <= 3, `a handful of calls, not one per activity: ${cold[0]}`);
  });

  cost('a cached model call makes as many store calls at 40 activities as at 10', async ({ counting, pool }) => {
    const cached: number[] = [];
    for (const size of SIZES) {
      const deps = { store: counting.store, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES), cache: new ModelCache<never>() };
      const request = { user_id: `user-${size}`, quantity: 'power', sport: 'cycling', date: '2024-06-30', durations: [60], all_durations: false };
      const model = getIntensityDurationModel(deps as never);
      assert.is((await model(request as never, call())).from_cache, false);
      counting.reset();
      assert.is((await model(request as never, call())).from_cache, true);
      cached.push(counting.total());
    }
    assert.is(cached[1], cached[0], `store calls when cached: ${cached.join(', ')}`);
  });

  cost('a training load of modeled thresholds makes as many store calls at 40 dates as at 10, each date modeled', async ({ inner, counting, pool }) => {
    const cold: number[] = [];
    for (const size of SIZES) {
      const request = { user_id: `user-${size}`, sports: ['cycling'], start_date: '', end_date: '2024-06-30', format: 'ARROW_IPC' as const };
      const load = (store: Store) => {
        const models = { store, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES), cache: new ModelCache<Promise<ModelState>>() };
        return getTrainingLoad({ store, pool, memo: models.memo, modeledMarkers: modeledMarkersFrom(models), modeledSeason: modeledSeasonFrom(models) })(request, call());
      };
      await load(inner);
      counting.reset();
      const rows = tableFromIPC((await load(counting.store)).data).toArray().map((row) => row.toJSON());
      cold.push(counting.total());
      const days = rows.filter((row) => Number(row.activities) > 0);
      assert.is(days.length, size);
      assert.ok(days.every((row) => Number(row.activities_without_load) === 0 && row.load > 0), 'every ride has a modeled load');
    }
    assert.is(cold[1], cold[0], `store calls at ${SIZES.join(' and ')} modeled dates: ${cold.join(', ')}`);
  });

  cost('the one-pass modeled season answers the very bytes of one model per date (the Parquet the endpoint sends)', async ({ inner, pool }) => {
    const request = { user_id: 'user-10', sports: ['cycling'], start_date: '', end_date: '2024-06-30', format: 'PARQUET' as const };
    const load = (perDate: boolean) => {
      const models = { store: inner, pool, memo: new AnalysisMemo(ANALYSIS_MEMO_BYTES), cache: new ModelCache<Promise<ModelState>>() };
      const season = perDate ? {} : { modeledSeason: modeledSeasonFrom(models) };
      return getTrainingLoad({ store: inner, pool, memo: models.memo, modeledMarkers: modeledMarkersFrom(models), ...season })(request, call());
    };
    const [onePass, perDate] = [await load(false), await load(true)];
    assert.ok(Buffer.from(onePass.data).equals(Buffer.from(perDate.data)), 'the same Parquet bytes');
  });

  return cost;
}

const sqlite = costSuite('sqlite', async () => {
  const file = path.join(tempDir(), 'threshold.sqlite');
  const store = await openStore({ mongodbUri: null, sqliteFile: file });
  return { store, file, close: () => store.close() };
}, null);

sqlite("the model watermark's sorted reads follow an index (SQLite's plan sorts nothing)", ({ file }) => {
  const db = new Database(file!, { readonly: true });
  try {
    for (const [collection, stamp] of WATERMARKED) {
      const sql = `SELECT ${fieldExpression(stamp, collection)} FROM "${collection}" WHERE ${fieldExpression('user_id', collection)} = ? ${orderBy(parseSort({ [stamp]: -1, id: -1 }), collection)} LIMIT 1`;
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('user-10') as { detail: string }[]).map((row) => row.detail).join('; ');
      assert.not.match(plan, /TEMP B-TREE/, `${collection} by ${stamp}: ${plan}`);
      assert.match(plan, /USING (COVERING )?INDEX/, `${collection} by ${stamp}: ${plan}`);
    }
  } finally {
    db.close();
  }
});

sqlite.run();

let server: MongoServer | undefined;
costSuite('mongodb', async () => {
  server = await startMongoServer();
  const database = `threshold_test_${randomBytes(6).toString('hex')}`;
  const store = await openMongoStore({ uri: server.uri, database });
  return {
    store,
    file: null,
    async close() {
      await store.close();
      await dropTestDatabase(server!.uri, database);
      await server!.stop();
    },
  };
}, mongoServerMissing()).run();
