/**
 * storage/dailies.ts `upsertDaily`, called as the API and as a provider import call it: a provider value
 * never replaces a manual one, a manual value replaces anything, a provider value replaces a provider's.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { upsertDaily, type DailySource } from '../../storage/dailies.js';
import type { Store } from '../../storage/store.js';

const day = { userId: 'u1', measure: 'body_mass', date: '2024-03-01' };
const write = (store: Store, value: number, source: DailySource) => upsertDaily(store, { ...day, value, source });
const storedValue = async (store: Store) => (await store.dailies.find({ user_id: 'u1' })).map((record) => [record.value, record.source]);

test('keeps a manual value when a provider import writes the same date later', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  await write(store, 70, 'manual');
  const imported = await write(store, 99, 'garmin_connect');
  assert.is(imported.written, false);
  assert.is(imported.record.value, 70);
  assert.equal(await storedValue(store), [[70, 'manual']]);
  await store.close();
});

test('lets a provider value replace another provider value, and a manual value replace a provider value', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  assert.is((await write(store, 71, 'garmin_connect')).written, true);
  assert.is((await write(store, 72, 'wahoo')).written, true);
  assert.equal(await storedValue(store), [[72, 'wahoo']]);
  assert.is((await write(store, 73, 'manual')).written, true);
  assert.is((await write(store, 74, 'manual')).written, true);
  assert.is((await write(store, 75, 'intervals_icu')).written, false);
  assert.equal(await storedValue(store), [[74, 'manual']]);
  await store.close();
});

test('keeps the manual value when a provider import and a manual write race for a date', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  for (let round = 0; round < 20; round++) {
    const date = `2024-04-${String(round + 1).padStart(2, '0')}`;
    await upsertDaily(store, { ...day, date, value: 1, source: 'garmin_connect' });
    await Promise.all([
      upsertDaily(store, { ...day, date, value: 2, source: 'manual' }),
      upsertDaily(store, { ...day, date, value: 3, source: 'garmin_connect' }),
    ]);
    const [record] = await store.dailies.find({ user_id: 'u1', date });
    assert.equal([record!.value, record!.source], [2, 'manual'], date);
  }
  await store.close();
});

test.run();
