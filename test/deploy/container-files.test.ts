/**
 * The Dockerfile and compose.yaml, checked without a container runtime (none runs on the test machines):
 * every path the image copies exists, every command a container runs is a built entry point, and every
 * variable compose sets is one the service's configuration reads.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../support/paths.js';

const files = suite('container files');
const read = (file: string) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
/** The config modules: the only places that read the environment (DESIGN.md §7). */
const CONFIG_SOURCES = ['gateway/config.ts', 'engine/config.ts', 'storage/config.ts', 'domain/env.ts', 'domain/engine-token.ts'].map(read).join('\n');

interface ComposeService { command?: string[]; environment?: Record<string, string>; image?: string; profiles?: string[] }

files('every path the Dockerfile copies from the build context exists', () => {
  const copies = [...read('Dockerfile').matchAll(/^COPY (?!--from)(.+)$/gm)].map((match) => match[1]!.trim().split(/\s+/).slice(0, -1));
  assert.ok(copies.length >= 5);
  for (const sources of copies) for (const source of sources) assert.ok(fs.existsSync(path.join(REPO_ROOT, source)), `COPY ${source}`);
});

files('the image keeps CHANGELOG.md beside dist/, where the gateway reads the release notes it serves', () => {
  const runtime = read('Dockerfile').split(/^FROM /m).at(-1)!;
  assert.match(runtime, /^COPY --from=build \/app\/dist dist$/m);
  assert.match(runtime, /^COPY CHANGELOG\.md \.\/$/m);
  assert.match(read('gateway/routes/changelog.ts'), "'../../../CHANGELOG.md'");
});

files('the image and every compose service run a built entry point', () => {
  const cmd = /^CMD (\[.+\])$/m.exec(read('Dockerfile'));
  const commands: string[][] = [JSON.parse(cmd![1]!) as string[]];
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  for (const service of Object.values(compose.services)) if (service.image === 'threshold') commands.push(service.command!);
  assert.ok(commands.length >= 3);
  for (const [program, script] of commands) {
    assert.is(program, 'node');
    assert.ok(fs.existsSync(path.join(REPO_ROOT, script!)), `${script} is built`);
  }
});

files('compose sets only variables the configuration reads, and the engine and gateway agree on the store and the token', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, ComposeService> };
  const { engine, gateway } = compose.services;
  for (const service of [engine!, gateway!]) {
    for (const name of Object.keys(service.environment!)) assert.ok(new RegExp(`('${name}'|env\\.${name}\\b)`).test(CONFIG_SOURCES), `${name} is read by a config module`);
  }
  for (const shared of ['DATA_DIR', 'ENGINE_TOKEN']) assert.is(engine!.environment![shared], gateway!.environment![shared], shared);
  assert.match(gateway!.environment!['ENGINE_ADDRESS']!, /^\$\{ENGINE_ADDRESS:-engine:/);
});

files('the image, CI and `engines` agree on a maintained Node.js line: 22 or newer, never an end-of-life one', () => {
  const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
  assert.is(engines.node, '>=22', 'Node 20 and older are past their end of life');
  const images = [...read('Dockerfile').matchAll(/^FROM node:(\d+)-/gm)].map((match) => Number(match[1]));
  assert.equal(images, [22, 22], 'the build and runtime stages');
  assert.match(read('.ci/run'), /^NODE_LINE="\$\{CI_NODE_LINE:-22\}"$/m, 'CI tests the line the image ships');
});

files.run();
