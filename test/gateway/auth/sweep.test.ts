/** auth/sweep.ts: expired short-lived records go, live ones stay. */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { openStore } from '../../../storage/open-store.js';
import { sometimesSweep } from '../../../gateway/auth/sweep.js';
import { authorizationCode } from '../../storage/records.js';

test('deletes only the records expired longer ago than the grace period', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  try {
    const now = Date.now();
    await store.authorization_codes.insert(authorizationCode('old', 'u', 'a', { code_hash: 'h-old', expires_at: now - 10_000 }));
    await store.authorization_codes.insert(authorizationCode('recent', 'u', 'a', { code_hash: 'h-recent', expires_at: now - 1_000 }));
    await store.authorization_codes.insert(authorizationCode('live', 'u', 'a', { code_hash: 'h-live', expires_at: now + 60_000 }));
    await sometimesSweep(store.authorization_codes, now, 5_000, 0);
    assert.is(await store.authorization_codes.count({}), 3, 'a call that does not sweep deletes nothing');
    await sometimesSweep(store.authorization_codes, now, 5_000, 1);
    assert.equal((await store.authorization_codes.find({}, { sort: { id: 1 } })).map((code) => code.id), ['live', 'recent']);
    await sometimesSweep(store.authorization_codes, now, 0, 1);
    assert.equal((await store.authorization_codes.find({})).map((code) => code.id), ['live']);
  } finally {
    await store.close();
  }
});

test.run();
