/**
 * The app-metadata rules every record kind shares (interface §2 "App metadata", §7, §8), checked on one
 * record through its `…/app-metadata` path and read back through `readPath`: app tokens only (403 for a
 * personal token), at most 1 KB (413) and 32 levels (422), each app sees only its own, DELETE removes it.
 */
import * as assert from 'uvu/assert';
import type { RecordUser } from './json-api.js';

export async function checkAppMetadata(user: RecordUser, recordPath: string, readPath = recordPath): Promise<void> {
  const path = `${recordPath}/app-metadata`;
  const personal = await user.personal.put(path, { a: 1 });
  assert.is(personal.status, 403, 'a personal token may not write app metadata');
  assert.is((await user.personal.del(path)).status, 403);

  const tooLarge = await user.appA.put(path, { blob: 'x'.repeat(1100) });
  assert.is(tooLarge.status, 413);
  let deep: unknown = 1;
  for (let i = 0; i < 33; i++) deep = { d: deep };
  const tooDeep = await user.appA.put(path, deep);
  assert.is(tooDeep.status, 422);
  assert.equal(tooDeep.body.detail[0].loc, ['body']);

  const written = await user.appA.put(path, { plan: 'z2', n: [1, null] });
  assert.is(written.status, 200);
  assert.equal(written.body, { plan: 'z2', n: [1, null] });
  assert.equal((await user.appA.get(readPath)).body.app_metadata, { plan: 'z2', n: [1, null] }, 'the app reads its own');
  assert.is((await user.appB.get(readPath)).body.app_metadata, null, 'another app sees none');
  assert.is((await user.personal.get(readPath)).body.app_metadata, null, 'a personal token sees none');

  assert.is((await user.appA.del(path)).status, 204);
  assert.is((await user.appA.get(readPath)).body.app_metadata, null, 'deleted');
}
