/**
 * Names a person gives (a managed user's first and last name, a user's own, an application's, a team's):
 * the one check every name field shares, on the API (zod, `displayName`), the account pages and the
 * command line (the services in gateway/services call `nameProblem`). Issue 26 item 8: "Names refuse
 * control and invisible characters" — characters nobody types into a name field, which reorder or hide
 * what a reader sees (`ann\u202Egnp.exe`) or break the logs and terminals names are printed to:
 *
 * | refused | code points |
 * |---|---|
 * | C0 controls, NUL and ESC included; DEL; C1 controls | U+0000–U+001F, U+007F, U+0080–U+009F |
 * | bidi marks, embeddings, overrides and isolates | U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069 |
 * | zero-width space; word joiner and invisible operators | U+200B, U+2060–U+2064 |
 * | zero-width non-joiner and joiner, except between two visible characters | U+200C, U+200D |
 * | line and paragraph separators | U+2028, U+2029 |
 * | byte-order mark (zero-width no-break space) | U+FEFF |
 *
 * The joiners are part of how some names are written (a non-joiner in Persian, a joiner inside an emoji
 * sequence such as 🏃‍♀️), so they pass where they join two visible characters; at an edge or beside another
 * invisible character they hide nothing a reader could see and are refused.
 * The value is checked as sent, before trimming (a trailing BOM or tab is refused, not trimmed away).
 * Kept honest by test/gateway/hostile-input.test.ts.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.js';

// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const JOINER = /[\u200c\u200d]/u;
const VISIBLE = /[^\s\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;

/** The first refused character of `text`: its 1-based position in characters (code points) and its code point. */
export function invisibleCharacter(text: string): { position: number; codePoint: string } | null {
  const characters = Array.from(text);
  for (let index = 0; index < characters.length; index += 1) {
    const character = characters[index];
    if (!INVISIBLE.test(character)) continue;
    const joins = JOINER.test(character) && VISIBLE.test(characters[index - 1] ?? '') && VISIBLE.test(characters[index + 1] ?? '');
    if (!joins) return { position: index + 1, codePoint: `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` };
  }
  return null;
}

/** Why `text` is not accepted as a name, naming the character and where it is; null when it is. */
export function nameProblem(text: string): string | null {
  const found = invisibleCharacter(text);
  return found && `must not contain control or invisible characters: ${found.codePoint} at character ${found.position}`;
}

/**
 * `raw` trimmed, when that is 1 to 100 characters and `raw` holds no control or invisible character;
 * otherwise a 422 at ['body', field]. For the services that the API, the account pages and the command line share.
 */
export function requiredName(raw: string, field = 'name'): string {
  const name = raw.trim();
  if (name.length < 1 || name.length > 100) throw ValidationError.single(['body', field], `${field} must be 1 to 100 characters`);
  const problem = nameProblem(raw);
  if (problem) throw ValidationError.single(['body', field], problem);
  return name;
}

/**
 * A person-given name on the API: a string without control or invisible characters, checked as sent; chain
 * `.trim()`, `.min()` and `.max()` after it (zod runs a string's checks in order).
 */
export function personGivenName() {
  return z.string().superRefine((text, ctx) => {
    const problem = nameProblem(text);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: text });
  }).meta({ description: 'Control and invisible characters (C0/C1, bidi controls, zero-width, BOM) are refused' });
}
