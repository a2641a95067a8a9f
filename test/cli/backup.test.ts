/**
 * `threshold backup` and `threshold restore`: a backup taken while the service ingests and serves
 * restores to a service whose analyses equal the original's, and both commands refuse what would lose data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { FIXTURES } from '../support/paths.js';
import { runCliAsync } from '../support/processes.js';
import { startStack, tempDir, type TestStack } from '../support/stack.js';
import { csvActivity, settled, upload, type SourceBody } from '../support/uploads.js';

const backup = suite('threshold backup and restore');
const SCOPES = ['activities:read', 'activities:write'];

async function uploadOne(stack: TestStack, token: string, name: string, bytes: Uint8Array | string): Promise<SourceBody> {
  const response = await upload(stack, token, [{ name, bytes }]);
  assert.is(response.status, 202);
  const [source] = ((await response.json()) as { sources: SourceBody[] }).sources;
  return source!;
}

async function activityIds(stack: TestStack, token: string): Promise<string[]> {
  const list = (await (await stack.get('/api/v1/activities/?limit=500', token)).json()) as { id: string }[];
  return list.map((activity) => activity.id).sort();
}

async function analyses(stack: TestStack, token: string, id: string): Promise<string[]> {
  const bodies: string[] = [];
  for (const analysis of ['mean-max?metric=power', 'accumulated-work-duration?metric=power', 'data?metrics=power&metrics=heart_rate']) {
    const response = await stack.get(`/api/v1/activities/${id}/${analysis}`, token);
    assert.is(response.status, 200, `${analysis} of ${id}`);
    bodies.push(Buffer.from(await response.arrayBuffer()).toString('base64'));
  }
  bodies.push(JSON.stringify(await (await stack.get(`/api/v1/activities/${id}`, token)).json()));
  return bodies;
}

backup('a backup taken under load restores to a service whose analyses equal the original', async () => {
  const original = await startStack({ DATA_DIR: tempDir() });
  const restoredDir = tempDir();
  const backupFile = path.join(tempDir(), 'threshold.backup');
  let restored: TestStack | null = null;
  try {
    const { userId, token } = await original.userWithToken(SCOPES);
    const fit = fs.readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit'));
    const first = [await uploadOne(original, token, 'ride.fit', fit)];
    for (let day = 1; day <= 3; day++) first.push(await uploadOne(original, token, `day${day}.csv`, csvActivity({ start: `2024-05-0${day}T05:00:00Z`, rows: 600 })));
    for (const source of first) assert.is((await settled(original, token, source.id)).status, 'processed');

    // Load while the backup runs: uploads being ingested and analyses being read.
    let loading = true;
    let uploaded = 0;
    const load = (async () => {
      while (loading) {
        uploaded += 1;
        await uploadOne(original, token, `load${uploaded}.csv`, csvActivity({ start: new Date(Date.UTC(2024, 6, 1) + uploaded * 86_400_000).toISOString(), rows: 300 }));
        await original.get('/api/v1/activities/?limit=50', token);
      }
    })();
    const result = await runCliAsync(['backup', backupFile], { DATA_DIR: original.dataDir, LOG_LEVEL: 'silent' });
    loading = false;
    await load;
    assert.is(result.status, 0, result.stderr);
    assert.is((result.json as { path: string }).path, backupFile);
    assert.ok((result.json as { counts: Record<string, number> }).counts['activities']! >= 4);

    const restore = await runCliAsync(['restore', backupFile], { DATA_DIR: restoredDir, LOG_LEVEL: 'silent' });
    assert.is(restore.status, 0, restore.stderr);
    restored = await startStack({ DATA_DIR: restoredDir });
    const restoredToken = (await restored.userWithToken(SCOPES, { userId })).token;
    // Sources the backup caught mid-ingest are finished by the restored service's job runner.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const sources = (await (await restored.get('/api/v1/profile/sources/?limit=500', restoredToken)).json()) as SourceBody[];
      if (sources.every((source) => source.status !== 'processing')) break;
      assert.ok(Date.now() < deadline, 'restored sources still processing after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const originalIds = await activityIds(original, token);
    const restoredIds = await activityIds(restored, restoredToken);
    assert.ok(restoredIds.length >= 4, `restored ${restoredIds.length} activities`);
    assert.ok(restoredIds.every((id) => originalIds.includes(id)), 'the restored service has no activity the original lacks');
    for (const source of first) for (const id of (await settled(original, token, source.id)).activity_ids) assert.ok(restoredIds.includes(id), `activity ${id} from before the backup`);
    for (const id of restoredIds) assert.equal(await analyses(restored, restoredToken, id), await analyses(original, token, id), `analyses of ${id}`);
  } finally {
    await restored?.close();
    await original.close();
    fs.rmSync(restoredDir, { recursive: true, force: true });
    fs.rmSync(path.dirname(backupFile), { recursive: true, force: true });
  }
});

backup('backup never overwrites a file and restore refuses a non-database or an existing database without --replace', async () => {
  const stack = await startStack({ DATA_DIR: tempDir() });
  const dir = tempDir();
  try {
    const file = path.join(dir, 'copy.sqlite');
    assert.is((await runCliAsync(['backup', file], { DATA_DIR: stack.dataDir })).status, 0);
    const again = await runCliAsync(['backup', file], { DATA_DIR: stack.dataDir });
    assert.is(again.status, 1);
    assert.match((again.json as { error: string }).error, 'never overwrites');

    const target = tempDir();
    assert.is((await runCliAsync(['restore', file], { DATA_DIR: target })).status, 0);
    const existing = await runCliAsync(['restore', file], { DATA_DIR: target });
    assert.is(existing.status, 1);
    assert.match((existing.json as { error: string }).error, '--replace');
    assert.is((await runCliAsync(['restore', file, '--replace'], { DATA_DIR: target })).status, 0);

    const junk = path.join(dir, 'junk.sqlite');
    fs.writeFileSync(junk, 'not a database at all, just text');
    const refused = await runCliAsync(['restore', junk, '--replace'], { DATA_DIR: target });
    assert.is(refused.status, 1);
    assert.match((refused.json as { error: string }).error, 'junk.sqlite');
    fs.rmSync(target, { recursive: true, force: true });

    const mongo = await runCliAsync(['backup', file], { MONGODB_URI: 'mongodb://127.0.0.1:1/x' });
    assert.is(mongo.status, 1);
    assert.match((mongo.json as { error: string }).error, 'mongodump');
  } finally {
    await stack.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

backup.run();
