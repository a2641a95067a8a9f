/**
 * RS256 signing keys, persisted in the store. The first start generates generation 1 (a unique index
 * makes concurrent first starts agree on one key); later generations come from rotation. The newest
 * unretired key signs; every key not yet past `retired_at + ACCESS_TOKEN_TTL` verifies and is
 * published in the JWKS. A token naming an unknown `kid` triggers a reload (another replica may
 * have rotated), at most once per RELOAD_INTERVAL_MS, and a running gateway reloads every
 * RELOAD_INTERVAL_MS anyway (`keepFresh`), so a rotation from the command line or another replica
 * starts signing everywhere within that interval.
 */
import { exportJWK, generateKeyPair, importJWK, calculateJwkThumbprint, type JWK, type CryptoKey } from 'jose';
import type { JsonObject, SigningKeyRecord, Store } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';

export const ACCESS_TOKEN_TTL_S = 900;
const RELOAD_INTERVAL_MS = 30_000;
/** How long a retired key stays published: its last tokens' lifetime, plus one reload interval. */
export const RETIRED_KEY_PUBLISHED_MS = ACCESS_TOKEN_TTL_S * 1000 + RELOAD_INTERVAL_MS;

interface LoadedKey {
  record: SigningKeyRecord;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** `publicJwk` imported once per reload: importing it for every verification cost a tenth of a small request. */
  publicKey: CryptoKey;
}

export class SigningKeys {
  private keys: LoadedKey[] = [];
  private lastReload = 0;

  private constructor(private readonly store: Store) {}

  /** Loads the keys, generating the first one when the store has none. */
  static async open(store: Store): Promise<SigningKeys> {
    const ring = new SigningKeys(store);
    if ((await store.signing_keys.count({})) === 0) {
      await store.signing_keys.insertIfAbsent(await generateRecord(1), ['generation']);
    }
    await ring.reload();
    return ring;
  }

  /** The key that signs new tokens. */
  current(): { kid: string; privateKey: CryptoKey } {
    const active = this.keys.find((key) => key.record.retired_at === null) ?? this.keys[0];
    if (!active) throw new Error('signing keys: none loaded');
    return { kid: active.record.kid, privateKey: active.privateKey };
  }

  /** Public JWKs of every key that may still verify a live token, newest first. */
  publicJwks(now = Date.now()): JWK[] {
    return this.keys.filter((key) => isPublished(key.record, now)).map((key) => key.publicJwk);
  }

  /** The public key that verifies `kid`'s signatures, reloading from the store once when it is unknown. */
  async verificationKey(kid: string, now = Date.now()): Promise<CryptoKey | null> {
    let found = this.keys.find((key) => key.record.kid === kid);
    if (!found && now - this.lastReload > RELOAD_INTERVAL_MS) {
      await this.reload();
      found = this.keys.find((key) => key.record.kid === kid);
    }
    return found && isPublished(found.record, now) ? found.publicKey : null;
  }

  /** Adds a new generation that signs from now on; the previous one is retired but still published. */
  async rotate(now = Date.now()): Promise<string> {
    const newest = await this.store.signing_keys.findOne({}, { sort: { generation: -1 } });
    const record = await generateRecord((newest?.generation ?? 0) + 1, now);
    await this.store.signing_keys.insert(record);
    await this.store.signing_keys.updateMany({ retired_at: null, generation: { $lt: record.generation } }, { set: { retired_at: now } });
    await this.reload();
    return record.kid;
  }

  /** Reloads every RELOAD_INTERVAL_MS until the returned function is called. */
  keepFresh(onError: (error: unknown) => void): () => void {
    const timer = setInterval(() => this.reload().catch(onError), RELOAD_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async reload(): Promise<void> {
    const records = await this.store.signing_keys.find({}, { sort: { generation: -1 } });
    this.keys = await Promise.all(
      records.map(async (record) => ({
        record,
        privateKey: (await importJWK(record.private_jwk as JWK, 'RS256')) as CryptoKey,
        publicJwk: record.public_jwk as JWK,
        publicKey: (await importJWK(record.public_jwk as JWK, 'RS256')) as CryptoKey,
      })),
    );
    this.lastReload = Date.now();
  }
}

function isPublished(record: SigningKeyRecord, now: number): boolean {
  // A replica may sign with a key for up to one reload interval after another retired it.
  return record.retired_at === null || record.retired_at + RETIRED_KEY_PUBLISHED_MS > now;
}

async function generateRecord(generation: number, now = Date.now()): Promise<SigningKeyRecord> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const privateJwk = await exportJWK(privateKey);
  return {
    id: newId(),
    generation,
    kid,
    private_jwk: { ...privateJwk, kid, alg: 'RS256' } as JsonObject,
    // Public members only: kty, n, e, plus kid/alg/use.
    public_jwk: { kty: 'RSA', n: publicJwk.n!, e: publicJwk.e!, kid, alg: 'RS256', use: 'sig' },
    created_at: now,
    retired_at: null,
  };
}
