/**
 * Where a provider client keeps one connection's tokens: the framework implements `load`/`save` over the
 * connection record (sealed with credentials.ts), tests over a variable. `save` must be durable before it
 * resolves: a client saves a refreshed pair before it uses it, so a crash between the provider's answer
 * and our write loses at most a pair nobody used (Wahoo keeps the old pair alive until the new one is used).
 *
 * `serialized` runs work for one key one at a time in this process: a connection's refresh never runs
 * twice at once (Wahoo allows 10 unrevoked tokens per user; Garmin's refresh token is assumed single-use).
 * Across processes the job runner's lease on the connection's job does the same. Kept honest by
 * test/engine/integrations/wahoo-tokens.test.ts.
 */
import type { ProviderTokens } from './credentials.js';

export interface TokenKeeper {
  load(): Promise<ProviderTokens>;
  save(tokens: ProviderTokens): Promise<void>;
}

/** A keeper over a variable, for tests and one-shot scripts. */
export function memoryKeeper(initial: ProviderTokens): TokenKeeper & { current: ProviderTokens; saves: number } {
  const keeper = {
    current: initial,
    saves: 0,
    load: async () => keeper.current,
    save: async (tokens: ProviderTokens) => {
      keeper.current = tokens;
      keeper.saves += 1;
    },
  };
  return keeper;
}

/** Runs `work` after every earlier call with the same key has settled (an in-process mutex per key). */
export class Serializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
