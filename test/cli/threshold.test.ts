/**
 * The `threshold` command line as a person meets it, run as a real process: help and version, its
 * usage errors, `user list`, and `token mint --expires-in` against a started stack. The service
 * itself (`threshold serve`) and the other commands are covered in test/gateway/processes.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { runCli, runCliAsync } from '../support/processes.js';
import { startStack, tempDir } from '../support/stack.js';
import { REPO_ROOT } from '../support/paths.js';
import { COMMANDS } from '../../cli/commands/index.js';
import type { OptionSpecs } from '../../cli/command.js';
import { MAX_LIFETIME_S } from '../../cli/commands/tokens.js';
import { FIXTURES } from '../support/paths.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';
import { okJson } from '../support/json-api.js';

const cli = suite('threshold command line');

/** Help text with its wrapping undone, to look for a whole sentence. */
const flat = (text: string) => text.replace(/\s+/g, ' ');

cli('prints the usage, naming every command with its summary, for --help, -h and help', () => {
  const outputs = [['--help'], ['-h'], ['help']].map((args) => runCli(args, {}));
  for (const output of outputs) {
    assert.is(output.status, 0, output.stderr);
    assert.is(output.stderr, '');
  }
  assert.is(outputs[1]!.stdout, outputs[0]!.stdout);
  assert.is(outputs[2]!.stdout, outputs[0]!.stdout);
  for (const command of COMMANDS) assert.match(flat(outputs[0]!.stdout), `${command.words} ${command.summary}`);
  assert.match(outputs[0]!.stdout, 'threshold help <command>');
});

cli('prints the version of the package for --version and -v', () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const output = runCli([flag], {});
    assert.is(output.status, 0, output.stderr);
    assert.is(output.stdout, `${version}\n`);
  }
});

cli('prints each command\'s own help, every option described, for <command> --help and help <command>', () => {
  for (const command of COMMANDS) {
    const words = command.words.split(' ');
    const own = runCli([...words, '--help'], {});
    assert.is(own.status, 0, own.stderr);
    assert.match(own.stdout, `usage: threshold ${command.words}`);
    for (const [name, option] of Object.entries(command.options as OptionSpecs)) {
      assert.match(flat(own.stdout), `--${name}`);
      assert.match(flat(own.stdout), option.description);
    }
    if (command.words === 'token mint' || command.words === 'import') {
      const viaHelp = runCli(['help', ...words], {});
      assert.is(viaHelp.status, 0, viaHelp.stderr);
      assert.is(viaHelp.stdout, own.stdout, 'help <command> prints the same text');
      assert.is(runCli([...words, '-h'], {}).stdout, own.stdout, '-h too');
    }
  }
});

cli('refuses an unknown command, a missing word and an unknown option with exit 2, a JSON error and a hint', () => {
  const unknown = runCli(['frobnicate'], {});
  assert.is(unknown.status, 2);
  assert.equal(unknown.json, { error: "unknown command 'frobnicate'" });
  assert.match(unknown.stderr, 'threshold --help');
  assert.is(unknown.stdout, '');

  const partial = runCli(['app', 'secret'], {});
  assert.is(partial.status, 2);
  assert.match(String((partial.json as { error: string }).error), 'app secret add, app secret delete');
  const group = runCli(['app', 'secret', '--help'], {});
  assert.is(group.status, 0, 'asked for help, the group lists its commands');
  assert.match(group.stdout, 'app secret delete');

  const badOption = runCli(['user', 'create', '--emial', 'a@example.com'], {});
  assert.is(badOption.status, 2);
  assert.match(String((badOption.json as { error: string }).error), '--emial');
  assert.match(badOption.stderr, 'threshold user create --help');

  const nothing = runCli([], {});
  assert.is(nothing.status, 2);
  assert.equal(nothing.json, { error: 'no command given' });
  assert.is(runCli(['help', 'frobnicate'], {}).status, 2);
});

cli('lists users oldest first, each field named and no password hash, and deletes one', () => {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  try {
    const first = runCli(['user', 'create', '--email', 'First@example.com', '--password', 'correct horse battery', '--first-name', 'Ada'], env);
    const second = runCli(['user', 'create', '--email', 'second@example.com'], env);
    const listed = runCli(['user', 'list'], env);
    assert.is(listed.status, 0, listed.stderr);
    const users = listed.json as Record<string, unknown>[];
    assert.equal(users.map((user) => user.id), [(first.json as { id: string }).id, (second.json as { id: string }).id]);
    assert.equal(Object.keys(users[0]!).sort(), ['admin', 'email', 'first_name', 'id', 'last_name', 'managed_by', 'registered_at']);
    assert.equal(users[0], { ...users[0], email: 'first@example.com', first_name: 'Ada', last_name: null, admin: false, managed_by: null });
    assert.match(String(users[0]!.registered_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.not.match(listed.stdout, 'scrypt');

    const filtered = runCli(['user', 'list', '--email', 'SECOND@example.com'], env);
    assert.equal((filtered.json as { id: string }[]).map((user) => user.id), [(second.json as { id: string }).id]);

    const secondId = (second.json as { id: string }).id;
    const deleted = runCli(['user', 'delete', '--user', secondId], env);
    assert.is(deleted.status, 0, deleted.stderr);
    assert.equal(deleted.json, { deleted: secondId, removed: 1, batches: 1, largest_batch: 1 });
    assert.equal((runCli(['user', 'list'], env).json as { id: string }[]).map((user) => user.id), [(first.json as { id: string }).id]);
    const again = runCli(['user', 'delete', '--user', secondId], env);
    assert.is(again.status, 1, 'an unknown user is a refused operation');
    assert.match(again.stdout + again.stderr, `no user with id ${secondId}`);

    const third = (runCli(['user', 'create', '--email', 'third@example.com'], env).json as { id: string }).id;
    const queued = runCli(['user', 'delete', '--user', third, '--queue'], env);
    assert.is(queued.status, 0, queued.stderr);
    assert.equal(Object.keys(queued.json as object).sort(), ['deleted', 'queued'], '--queue answers at once with the job');
    assert.equal((runCli(['user', 'list'], env).json as { id: string }[]).map((user) => user.id), [(first.json as { id: string }).id], 'the user is gone at once');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

cli('mints a token with the asked lifetime that a running gateway accepts, and refuses one beyond the cap', async () => {
  const stack = await startStack();
  try {
    const env = { DATA_DIR: stack.dataDir, BASE_URL: stack.baseUrl };
    const userId = ((runCli(['user', 'create', '--email', 'local@example.com'], env)).json as { id: string }).id;
    const day = 24 * 3600;
    const minted = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read', '--expires-in', String(day)], env);
    assert.is(minted.status, 0, minted.stderr);
    const token = minted.json as { access_token: string; expires_in: number };
    assert.is(token.expires_in, day);
    const claims = JSON.parse(Buffer.from(token.access_token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number; iat: number };
    assert.is(claims.exp - claims.iat, day);
    assert.is((await stack.get('/api/v1/activities/', token.access_token)).status, 200);

    const longest = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read', '--expires-in', String(MAX_LIFETIME_S)], env);
    assert.is((longest.json as { expires_in: number }).expires_in, MAX_LIFETIME_S);
    assert.is((await stack.get('/api/v1/activities/', (longest.json as { access_token: string }).access_token)).status, 200);
    const usual = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read'], env);
    assert.is((usual.json as { expires_in: number }).expires_in, 900, 'the default stays 15 minutes');

    for (const refused of [String(MAX_LIFETIME_S + 1), '59', '3600.5', '1e4', '-900']) {
      const result = runCli(['token', 'mint', '--user', userId, '--scopes', 'activities:read', `--expires-in=${refused}`], env);
      assert.is(result.status, 2, refused);
      assert.match(String((result.json as { error: string }).error), '--expires-in must be a whole number of seconds from 60 to 2592000');
    }
  } finally {
    await stack.close();
  }
});

cli('a long app token from token mint --app stays dead after its grant is revoked, even once token mint --app grants the app again', async () => {
  const stack = await startStack();
  try {
    const env = { DATA_DIR: stack.dataDir, BASE_URL: stack.baseUrl };
    const userId = ((runCli(['user', 'create', '--email', 'notebook@example.com'], env)).json as { id: string }).id;
    const appId = ((runCli(['app', 'create', '--owner', userId, '--name', 'Notebook'], env)).json as { id: string }).id;
    const mint = (...app: string[]) => {
      const result = runCli(['token', 'mint', '--user', userId, ...app, '--scopes', 'activities:read', '--expires-in', String(MAX_LIFETIME_S)], env);
      assert.is(result.status, 0, result.stderr);
      return (result.json as { access_token: string }).access_token;
    };
    const old = mint('--app', appId);
    assert.is((await stack.get('/api/v1/activities/', old)).status, 200);
    const revoked = await fetch(`${stack.baseUrl}/api/v1/oauth/grants/${appId}`, { method: 'DELETE', headers: { authorization: `Bearer ${mint()}` } });
    assert.is(revoked.status, 200);
    const renewed = mint('--app', appId);
    assert.is((await stack.get('/api/v1/activities/', renewed)).status, 200, 'the token of the new grant');
    assert.is((await stack.get('/api/v1/activities/', old)).status, 401, 'the 30-day token of the revoked grant');
  } finally {
    await stack.close();
  }
});

cli('threshold model prints the curve, the maps and the zones exactly as the API publishes them, from its own engine or a running one', async () => {
  const stack = await startStack({ JOB_POLL_MS: '20' });
  try {
    const { userId, token } = await stack.userWithToken(['activities:read', 'activities:write', 'wellness:write']);
    const response = await upload(stack, token, [{ name: 'ride.fit', bytes: fs.readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit')) }]);
    const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
    const source = await settled(stack, token, accepted!.id);
    assert.is(source.status, 'processed', JSON.stringify(source.error));
    const activity = await okJson(stack, 'GET', `/api/v1/activities/${source.activity_ids[0]}`, token);
    const date = (activity.start_local as string).slice(0, 10);
    await okJson(stack, 'POST', '/api/v1/dailies/body_mass', token, { date, value: 74 });

    const env = { DATA_DIR: stack.dataDir };
    const own = await runCliAsync(['model', '--user', userId, '--date', date], env);
    assert.is(own.status, 0, own.stderr);
    const report = own.json as Record<string, any>;
    assert.equal(Object.keys(report), ['user_id', 'date', 'sport', 'algorithms', 'intensity_duration_model', 'metabolic_maps', 'zones']);
    assert.equal(report.algorithms, { intensity_duration_model: 'ompd/2', metabolic_map: 'ompd/2', zones: 'zones/1' });
    const curve = await okJson(stack, 'GET', `/api/v1/profile/intensity-duration-model/power?date=${date}`, token);
    assert.ok(curve.curve.length > 0, 'a ride of 2 h 19 min is enough for a curve');
    assert.equal(report.intensity_duration_model, { quantity: 'power', ...curve });
    for (const [quantity, segment] of [['power', 'power'], ['heart_rate', 'heart-rate'], ['vo2', 'vo2']]) {
      assert.equal(report.metabolic_maps[quantity], await okJson(stack, 'GET', `/api/v1/profile/metabolic-map/${segment}?date=${date}`, token), quantity);
    }
    const coggan = await okJson(stack, 'GET', `/api/v1/profile/zones?sport=cycling&quantity=power&zone_system=seven_zone&date=${date}`, token);
    assert.equal(report.zones['seven_zone/power'].zones, coggan.zones);
    assert.is(report.zones['seven_zone/heart_rate'], undefined, 'a quantity the system does not offer is left out');
    assert.is(report.zones['olt_i_scale/heart_rate'].problem.code, 'missing_marker');

    const viaRunning = await runCliAsync(['model', '--user', userId, '--date', date, '--engine', stack.engineAddress], env);
    assert.is(viaRunning.status, 0, viaRunning.stderr);
    assert.equal(viaRunning.json, report, 'the same answer from the running engine');

    assert.is(runCli(['model', '--user', userId, '--date', '2024-02-30'], env).status, 2);
    assert.is(runCli(['model', '--user', userId, '--sport', 'rowing'], env).status, 2);
    assert.is(runCli(['model', '--user', 'ffffffffffffffff'], env).status, 1);
  } finally {
    await stack.close();
  }
});

cli.run();
