/**
 * compose.yaml, compose.mongodb.yaml and threshold.env.example (the `.env` they pass to every container), as
 * Compose v2 and Debian's docker-compose 1.29 read them. The structure is checked by parsing, always; the
 * files are also run through `docker-compose config` and `docker compose config` (no daemon needed) when
 * those are installed, and those suites skip naming the missing command otherwise. The engine's and the
 * gateway's refusal to run beyond loopback without ENGINE_TOKEN is checked on the built entry points.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import * as assert from 'uvu/assert';
import { skipUnless, suite } from '../support/uvu.js';
import { REPO_ROOT } from '../support/paths.js';
import { tempDir } from '../support/stack.js';
import { loadEngineConfig } from '../../engine/config.js';
import { loadGatewayConfig } from '../../gateway/config.js';
import { EXAMPLE_ENGINE_TOKENS } from '../../domain/engine-token.js';

const read = (file: string): string => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
const COMPOSE_FILES = ['compose.yaml', 'compose.mongodb.yaml'];
const ENV_EXAMPLE = 'threshold.env.example';
/** The modules that read the environment (HOUSE_STYLE "Config"), scanned for the names they read literally. */
const CONFIG_MODULES = ['gateway/config.ts', 'engine/config.ts', 'storage/config.ts', 'domain/env.ts', 'domain/integration-settings.ts', 'domain/engine-token.ts'];
const TOKEN = 'b1946ac92492d2347c6235b4d2611184';

interface Service {
  image?: string;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition?: string }>;
}
interface ComposeFile { services: Record<string, Service>; volumes?: Record<string, unknown> }

const composeFile = (file: string): ComposeFile => parse(read(file), { merge: true }) as ComposeFile;
/** The example's variables: `KEY=value` lines, set or commented out. */
const exampleVariables = (): string[] => [...read(ENV_EXAMPLE).matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]!);

/** Every key anywhere in a parsed YAML document, with its path. */
function keyPaths(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [`${at}${key}`, ...keyPaths(inner, `${at}${key}.`)]);
}

/** What the configuration modules read: every name asked of the environment while loading both configs, and every name they spell out. */
function variablesTheConfigurationReads(): Set<string> {
  const names = new Set<string>();
  const recording = (env: Record<string, string>): Record<string, string | undefined> => new Proxy(env, {
    get: (target, key) => (typeof key === 'string' && names.add(key), target[key as string]),
    has: (target, key) => (typeof key === 'string' && names.add(key), key in target),
  });
  // Each provider configured, so that its URL and push-secret variables are asked for too.
  const providers = Object.fromEntries(['GARMIN', 'INTERVALS_ICU', 'WAHOO'].flatMap((prefix) => [[`${prefix}_CLIENT_ID`, 'id'], [`${prefix}_CLIENT_SECRET`, 'secret']]));
  const envs = [{}, providers, { BASE_URL: 'https://threshold.example.com', PAGES_BASE: 'https://pages.example.com', ENGINE_ADDRESS: 'engine:50051', ENGINE_TOKEN: TOKEN }, { MONGODB_URI: 'mongodb://db/threshold', ...providers }];
  for (const env of envs) {
    for (const load of [loadEngineConfig, loadGatewayConfig]) {
      try {
        load(recording(env));
      } catch {
        // a refused combination still asked for what it read
      }
    }
  }
  const sources = CONFIG_MODULES.map(read).join('\n');
  for (const match of sources.matchAll(/\benv(?:\.|\[')([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)) names.add((match[1] ?? match[2])!);
  return names;
}

const files = suite('compose files');

files('no top-level `name` and no `depends_on.required`, which docker-compose 1.29 rejects', () => {
  for (const file of COMPOSE_FILES) {
    const document = parse(read(file), { merge: true }) as Record<string, unknown>;
    assert.not.ok('name' in document, `${file}: top-level name`);
    assert.not.ok('version' in document, `${file}: version is obsolete in Compose v2 and optional in 1.29`);
    const required = keyPaths(document).filter((key) => /\.depends_on\.[^.]+\.required$/.test(key));
    assert.equal(required, [], `${file}: depends_on.required`);
  }
});

files('the engine and the gateway take every setting from .env and need ENGINE_TOKEN, with no default secret', () => {
  const { services } = composeFile('compose.yaml');
  const threshold = Object.entries(services).filter(([, service]) => service.image === 'threshold');
  assert.equal(threshold.map(([name]) => name).sort(), ['engine', 'gateway']);
  for (const [name, service] of threshold) {
    assert.equal([service.env_file].flat(), ['.env'], `${name}: env_file`);
    assert.match(service.environment!['ENGINE_TOKEN']!, /^\$\{ENGINE_TOKEN:\?[^}]*openssl rand[^}]*\}$/, `${name}: ENGINE_TOKEN is required, with a hint`);
    assert.is(service.environment!['DATA_DIR'], '/data', name);
  }
  for (const file of [...COMPOSE_FILES, ENV_EXAMPLE]) {
    assert.not.match(read(file), /ENGINE_TOKEN:-/, `${file}: a default ENGINE_TOKEN`);
    for (const example of EXAMPLE_ENGINE_TOKENS) assert.not.ok(read(file).includes(example), `${file}: ${example}`);
  }
  assert.match(read(ENV_EXAMPLE), /^ENGINE_TOKEN=$/m, 'the example leaves the token to the operator');
});

files('the gateway publishes its API and pages ports and the engine none; both keep their data in the declared volume', () => {
  const { services, volumes } = composeFile('compose.yaml');
  const { engine, gateway } = services;
  assert.equal(gateway!.ports!.map((port) => port.split(' ')[0]), [`${gateway!.environment!['PORT']}:${gateway!.environment!['PORT']}`, `${gateway!.environment!['PAGES_PORT']}:${gateway!.environment!['PAGES_PORT']}`]);
  assert.is(engine!.ports, undefined, 'the engine is reached by the gateway on the compose network only');
  assert.is(engine!.environment!['ENGINE_LISTEN_ADDRESS'], '0.0.0.0:50051');
  assert.is(gateway!.environment!['ENGINE_ADDRESS'], '${ENGINE_ADDRESS:-engine:50051}');
  assert.equal(gateway!.depends_on, { engine: { condition: 'service_started' } });
  for (const service of [engine!, gateway!]) {
    assert.equal(service.volumes, ['threshold-data:/data']);
    assert.ok(volumes && 'threshold-data' in volumes);
  }
});

files('compose.mongodb.yaml points both at a healthy one-member replica set', () => {
  const { services, volumes } = composeFile('compose.mongodb.yaml');
  for (const name of ['engine', 'gateway']) {
    assert.match(services[name]!.environment!['MONGODB_URI']!, /^mongodb:\/\/mongodb:27017\/threshold\?replicaSet=rs0$/, name);
    assert.equal(services[name]!.depends_on, { mongodb: { condition: 'service_healthy' } }, name);
  }
  assert.equal(services['mongodb']!.volumes, ['mongodb-data:/data/db']);
  assert.ok(volumes && 'mongodb-data' in volumes);
  assert.ok(read('compose.mongodb.yaml').includes("rs.initiate({_id: 'rs0', members: [{_id: 0, host: 'mongodb:27017'}]})"));
});

files('threshold.env.example lists every variable the configuration reads, and nothing else [drift]', () => {
  const listed = exampleVariables();
  const reads = variablesTheConfigurationReads();
  assert.ok(reads.size >= 50, `${reads.size} variables found`);
  assert.equal([...reads].filter((name) => !listed.includes(name)).sort(), [], 'read by the configuration, missing from the example');
  assert.equal(listed.filter((name) => !reads.has(name)), [], 'in the example, read by nothing');
  assert.equal(listed.filter((name, index) => listed.indexOf(name) !== index), [], 'listed twice');
});

files('.env and the compose files stay out of images and commits where they hold secrets', () => {
  assert.match(read('.dockerignore'), /^\.env$/m);
  assert.match(read('.gitignore'), /^\/\.env$/m);
});

files.run();

/** Whether `command args…` runs and exits 0 (a compose implementation is installed). */
function runs(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0;
}

/** A project folder with the compose files and the example as `.env`, edited by `edit`. */
function project(edit: (example: string) => string): string {
  const dir = tempDir('threshold-compose-');
  for (const file of COMPOSE_FILES) fs.copyFileSync(path.join(REPO_ROOT, file), path.join(dir, file));
  fs.writeFileSync(path.join(dir, '.env'), edit(read(ENV_EXAMPLE)));
  return dir;
}

/** The same checks for each implementation: the command and the arguments before `-f`. */
const IMPLEMENTATIONS = [
  { label: 'docker-compose 1.29', command: 'docker-compose', prefix: [], install: 'Debian: apt-get install docker-compose' },
  { label: 'Compose v2', command: 'docker', prefix: ['compose'], install: "Docker's docker-compose-plugin package" },
] as const;

for (const { label, command, prefix, install } of IMPLEMENTATIONS) {
  const cli = suite(`${label} config`);
  skipUnless(runs(command, [...prefix, 'version']) ? null : `needs \`${[command, ...prefix].join(' ')}\` (not installed; ${install})`, cli);
  const config = (dir: string, files: string[], env: Record<string, string> = {}) => spawnSync(command, [...prefix, ...files.flatMap((file) => ['-f', file]), 'config'], {
    cwd: dir, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env },
  });

  cli('refuses to run without ENGINE_TOKEN, saying how to make one', () => {
    const dir = project((example) => example);
    try {
      const result = config(dir, ['compose.yaml']);
      assert.is.not(result.status, 0, result.stdout);
      assert.match(result.stderr, 'set ENGINE_TOKEN in .env (openssl rand -hex 32)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  cli('accepts both files and passes every setting of .env to the engine and the gateway', () => {
    const dir = project((example) => example
      .replace(/^ENGINE_TOKEN=$/m, `ENGINE_TOKEN=${TOKEN}`)
      .replace(/^# (SMTP_URL|TRUST_PROXY|METRICS_TOKEN|WAHOO_CLIENT_ID|WAHOO_CLIENT_SECRET)=.*$/gm, (_, name: string) => `${name}=${name.toLowerCase()}-value`));
    try {
      for (const files of [['compose.yaml'], COMPOSE_FILES]) {
        const result = config(dir, files);
        assert.is(result.status, 0, `${files.join(' + ')}: ${result.stderr}`);
        const { services } = parse(result.stdout) as { services: Record<string, { environment: Record<string, string> }> };
        for (const name of ['engine', 'gateway']) {
          const environment = services[name]!.environment;
          assert.is(environment['ENGINE_TOKEN'], TOKEN, name);
          for (const passed of ['SMTP_URL', 'TRUST_PROXY', 'METRICS_TOKEN', 'WAHOO_CLIENT_ID', 'WAHOO_CLIENT_SECRET']) assert.is(environment[passed], `${passed.toLowerCase()}-value`, `${name}: ${passed}`);
          assert.is(environment['DATA_DIR'], '/data', name);
          if (files.length === 2) assert.match(environment['MONGODB_URI']!, 'replicaSet=rs0', name);
        }
        assert.is(services['gateway']!.environment['ENGINE_ADDRESS'], 'engine:50051');
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  cli.run();
}

const refusal = suite('the containers\' entry points beyond loopback');

refusal('the engine and the gateway exit at start-up, naming ENGINE_TOKEN, when compose would run them without one [exposed engine]', () => {
  const dataDir = tempDir();
  try {
    const cases = [
      { script: 'dist/engine/main.js', env: { ENGINE_LISTEN_ADDRESS: '0.0.0.0:0' }, where: 'listens on 0.0.0.0:0' },
      { script: 'dist/gateway/main.js', env: { ENGINE_ADDRESS: 'engine:50051', HOST: '127.0.0.1', PORT: '0', PAGES_PORT: '0' }, where: 'is reached at engine:50051' },
    ];
    for (const { script, env, where } of cases) {
      for (const token of ['', 'change-me-to-a-long-random-secret']) {
        const result = spawnSync(process.execPath, [path.join(REPO_ROOT, script)], {
          cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'info', ENGINE_TOKEN: token, ...env },
        });
        assert.is(result.status, 1, `${script} with ENGINE_TOKEN='${token}': ${result.stdout}${result.stderr}`);
        assert.match(result.stderr, `ENGINE_TOKEN must ${token === '' ? 'be set' : `not be the published example '${token}'`} when the engine ${where} (beyond loopback)`);
        assert.not.match(result.stdout, /listening/, 'nothing was served');
      }
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

refusal.run();
