/** `threshold keys rotate` (AUTH.md: "keys persisted, rotatable, old keys published until their tokens expire"). */
import { SigningKeys } from '../../gateway/auth/signing-keys.js';
import { command } from '../command.js';

export const keysRotate = command({
  words: 'keys rotate',
  summary: 'Adds a signing key and retires the current one → {"kid": …}, the new key\'s id.',
  options: {},
  details: ['The retired key stays in the JWKS for 15 minutes (plus 30 s), so the tokens it signed keep verifying until then and no longer. '
    + 'Running gateways sign with the new key within 30 s.'],
  async run(_input, context) {
    const keys = await SigningKeys.open(await context.store());
    return { kid: await keys.rotate() };
  },
});
