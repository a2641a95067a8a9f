import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { suite } from '../../support/uvu.js';
import { CredentialsError, openCredentials, sealCredentials, type ProviderTokens } from '../../../engine/integrations/credentials.js';

const credentials = suite('provider credentials at rest');
const tokens: ProviderTokens = { access_token: 'garmin-access-token', refresh_token: 'garmin-refresh', expires_at: 1_800_000_000_000, refresh_expires_at: null, scope: 'ACTIVITY_EXPORT' };

credentials('a sealed envelope opens to the same tokens and holds no token in clear', () => {
  const key = randomBytes(32);
  const sealed = sealCredentials(key, tokens);
  assert.deepEqual(openCredentials(key, sealed), tokens);
  assert.ok(!JSON.stringify(sealed).includes('garmin'));
});

credentials('the same tokens sealed twice give different envelopes', () => {
  const key = randomBytes(32);
  assert.notDeepEqual(sealCredentials(key, tokens), sealCredentials(key, tokens));
});

credentials('a wrong key, a changed byte or a foreign object is refused', () => {
  const key = randomBytes(32);
  const sealed = sealCredentials(key, tokens);
  assert.throws(() => openCredentials(randomBytes(32), sealed), CredentialsError);
  const data = Buffer.from(sealed['data'] as string, 'base64');
  data[0] = data[0]! ^ 1;
  assert.throws(() => openCredentials(key, { ...sealed, data: data.toString('base64') }), CredentialsError);
  assert.throws(() => openCredentials(key, { access_token: 'x' }), CredentialsError);
  assert.throws(() => sealCredentials(randomBytes(16), tokens), CredentialsError);
});

credentials.run();
