/**
 * `threshold app purposes` (interface §5 "Consent": "the app writes one purpose sentence in its
 * settings"): sets the purposes of an existing application, keeps the ones not named, removes one given
 * empty, refuses a bad sentence or an unknown category naming it (nothing saved), and its help shows it.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import { runCli } from '../support/processes.js';
import { tempDir } from '../support/stack.js';

const ACTIVITIES = 'activities=We chart your rides and show how your fitness develops.';
const WELLNESS = 'wellness=We use your sleep and resting heart rate to plan recovery.';

test('sets, keeps and removes purposes of an existing application, and refuses bad ones naming the category', () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  try {
    const owner = runCli(['user', 'create', '--email', 'purposes-cli@example.com'], env);
    const app = runCli(['app', 'create', '--owner', (owner.json as { id: string }).id, '--name', 'Pacer'], env);
    const appId = (app.json as { id: string }).id;
    const set = runCli(['app', 'purposes', '--app', appId, '--purpose', ACTIVITIES, '--purpose', WELLNESS], env);
    assert.is(set.status, 0, set.stderr);
    assert.equal((set.json as { purposes: unknown }).purposes, {
      activities: 'We chart your rides and show how your fitness develops.', wellness: 'We use your sleep and resting heart rate to plan recovery.',
    });
    assert.is((set.json as { id: string }).id, appId, 'answers the application');
    const removed = runCli(['app', 'purposes', '--app', appId, '--purpose', 'wellness='], env);
    assert.equal((removed.json as { purposes: unknown }).purposes, { activities: 'We chart your rides and show how your fitness develops.' }, 'the others are kept');
    for (const [entry, message] of [['activities=Too short.', '20 to 160'], ['workouts=Read why on https://pacer.example.com/why first.', 'without links'], ['openid=We recognise you when you come back.', 'no purpose is asked for openid']]) {
      const refused = runCli(['app', 'purposes', '--app', appId, '--purpose', entry!], env);
      assert.is(refused.status, 1, entry);
      assert.match(String((refused.json as { error: string }).error), message!);
    }
    const after = runCli(['app', 'purposes', '--app', appId, '--purpose', ACTIVITIES], env);
    assert.equal((after.json as { purposes: unknown }).purposes, { activities: 'We chart your rides and show how your fitness develops.' }, 'nothing refused was saved');
    assert.is(runCli(['app', 'purposes', '--app', 'nope', '--purpose', ACTIVITIES], env).status, 1);
    assert.is(runCli(['app', 'purposes', '--app', appId, '--purpose', 'no sentence'], env).status, 2);
    const help = runCli(['app', 'purposes', '--help'], {});
    assert.match(help.stdout.replace(/\s+/g, ' '), '--purpose CATEGORY=SENTENCE');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
