/**
 * The test harness: the real stack (engine + gateway over gRPC, a real store) on ephemeral ports and a
 * temporary data directory, plus small HTTP and CLI helpers.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack as startRealStack, type RunningStack } from '../../cli/stack.js';
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../../gateway/auth/access-tokens.js';
import { createUser, unionGrant } from '../../gateway/services/accounts.js';
import type { Store } from '../../storage/store.js';
import type { RateLimits } from '../../gateway/auth/rate-limit.js';
import type { StartEngineOptions } from '../../engine/server.js';

export interface TestStack extends RunningStack {
  dataDir: string;
  /** A new user and an access token carrying `scopes` (for `appId`'s grant when given). */
  userWithToken(scopes: string[], options?: { appId?: string; userId?: string }): Promise<{ userId: string; token: string }>;
  get(urlPath: string, token?: string, headers?: Record<string, string>): Promise<Response>;
}

export function tempDir(prefix = 'threshold-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Engine and gateway on port 0 over a SQLite store in a fresh temporary directory, or over `options.store`
 * when given (the caller closes that store; `close` leaves it open). `options.limits`: builds the gateway's rate
 * limiters over its store, for a test that observes them (createRateLimits with its own pause, say).
 */
export async function startStack(env: Record<string, string> = {}, options: { store?: Store; limits?: (store: Store) => RateLimits; workouts?: StartEngineOptions['workouts'] } = {}): Promise<TestStack> {
  const dataDir = env.DATA_DIR ?? tempDir();
  const stack = await startRealStack({
    env: { PORT: '0', HOST: '127.0.0.1', ENGINE_ADDRESS: '127.0.0.1:0', ENGINE_THREADS: '2', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ...env },
    ...(options.store && { store: options.store }),
    ...(options.limits && { limits: options.limits }),
    ...(options.workouts && { workouts: options.workouts }),
  });
  let keys: SigningKeys | undefined;
  return {
    ...stack,
    dataDir,
    async userWithToken(scopes, options = {}) {
      const userId = options.userId ?? (await createUser(stack.store, { email: `${Math.random().toString(36).slice(2)}@example.com` })).id;
      const grant = options.appId ? await unionGrant(stack.store, userId, options.appId, scopes) : null;
      keys ??= await SigningKeys.open(stack.store);
      const minted = await mintAccessToken(keys, { issuer: stack.baseUrl, userId, applicationId: options.appId ?? null, grantId: grant?.id ?? null, scopes });
      return { userId, token: minted.access_token };
    },
    get(urlPath, token, headers = {}) {
      return fetch(`${stack.baseUrl}${urlPath}`, { headers: { ...(token && { authorization: `Bearer ${token}` }), ...headers } });
    },
    async close() {
      await stack.close();
      if (!env.DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
