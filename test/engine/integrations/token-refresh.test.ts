/**
 * tokensFor (engine/integrations/connections.ts): jobs that need a connection's tokens at the same time
 * refresh them once, store the new pair before using it, and a refresh that loses to another process
 * uses the pair that process stored. The adapter here stands in for a provider's token endpoint only
 * (the Garmin and Wahoo stand-ins test the protocols); it counts refreshes and spends refresh tokens once.
 */
import { randomBytes } from 'node:crypto';
import { suite } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store.js';
import { openCredentials, sealCredentials, type ProviderTokens } from '../../../engine/integrations/credentials.js';
import { tokensFor, type ConnectionDeps } from '../../../engine/integrations/connections.js';
import type { ProviderAdapter } from '../../../engine/integrations/provider.js';
import type { ConnectionRecord, Store } from '../../../storage/store.js';

const refresh = suite('connection token refresh');
const key = randomBytes(32);

function expiring(serial: number): ProviderTokens {
  return { access_token: `access-${serial}`, refresh_token: `refresh-${serial}`, expires_at: Date.now() + 30_000, refresh_expires_at: null, scope: null };
}

/** A token endpoint with single-use refresh tokens (Garmin's assumption, Wahoo's revocation). */
function provider(delayMs: number, during: () => Promise<void> = async () => undefined) {
  let serial = 1;
  const spent = new Set<string>();
  const adapter = {
    provider: 'wahoo',
    async refresh(tokens: ProviderTokens): Promise<ProviderTokens> {
      if (spent.has(tokens.refresh_token!)) throw new Error('invalid_grant: refresh token already used');
      spent.add(tokens.refresh_token!);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await during();
      serial += 1;
      return { ...expiring(serial), expires_at: Date.now() + 7_200_000 };
    },
  } as unknown as ProviderAdapter;
  return { adapter, refreshes: () => serial - 1 };
}

async function connected(store: Store): Promise<ConnectionRecord> {
  const now = Date.now();
  const record: ConnectionRecord = {
    id: `c${now}${Math.random()}`, user_id: 'u1', provider: 'wahoo', external_user_id: 'w1', credentials: sealCredentials(key, expiring(1)),
    status: 'connected', backfill_loaded_until: null, backfill_done: false, created_at: now, updated_at: now,
  };
  await store.connections.insert(record);
  return record;
}

refresh('five jobs at once refresh once, and all use the stored new pair', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    const { adapter, refreshes } = provider(30);
    const deps: ConnectionDeps = { store, adapters: { wahoo: adapter }, key };
    const connection = await connected(store);
    const tokens = await Promise.all(Array.from({ length: 5 }, () => tokensFor(deps, connection)));
    assert.is(refreshes(), 1);
    assert.equal(new Set(tokens.map((t) => t.access_token)), new Set(['access-2']));
    assert.is(openCredentials(key, (await store.connections.get(connection.id))!.credentials).access_token, 'access-2', 'stored before use');
  } finally {
    await store.close();
  }
});

refresh('a refresh that loses to another process uses the pair that process stored', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    const { adapter } = provider(0);
    const deps: ConnectionDeps = { store, adapters: { wahoo: adapter }, key };
    const connection = await connected(store);
    // Another process refreshes first: it spends refresh-1 and stores its pair.
    const other = await adapter.refresh!(expiring(1));
    await store.connections.updateOne({ id: connection.id }, { set: { credentials: sealCredentials(key, { ...other!, access_token: 'from-the-other-process' }), updated_at: connection.updated_at + 5 } });
    // This process still holds the old record: its refresh is refused, and it reads the stored pair.
    assert.is((await tokensFor(deps, connection)).access_token, 'from-the-other-process');
  } finally {
    await store.close();
  }
});

refresh('a write of other fields during the refresh does not lose the new pair (its refresh token replaced a spent one)', async () => {
  const store = await openSqliteStore({ file: ':memory:' });
  try {
    let connection: ConnectionRecord | null = null;
    // The backfill records its progress while the token endpoint answers.
    const { adapter } = provider(0, async () => {
      await store.connections.updateOne({ id: connection!.id }, { set: { backfill_loaded_until: Date.now(), updated_at: connection!.updated_at + 7 } });
    });
    const deps: ConnectionDeps = { store, adapters: { wahoo: adapter }, key };
    connection = await connected(store);
    assert.is((await tokensFor(deps, connection)).access_token, 'access-2');
    const stored = (await store.connections.get(connection.id))!;
    assert.is(openCredentials(key, stored.credentials).refresh_token, 'refresh-2', 'the new pair is stored');
    assert.ok(stored.backfill_loaded_until !== null, 'the other write stays');
    assert.is((await tokensFor(deps, stored)).access_token, 'access-2', 'and used from then on, with no second refresh');
  } finally {
    await store.close();
  }
});

refresh.run();
