#!/usr/bin/env node
/**
 * The `threshold` command-line tool. It reads the same configuration as the service (DATA_DIR,
 * MONGODB_URI, BASE_URL, …) and works on the same store, so it is safe to run beside a running
 * service. Every command prints one JSON document on stdout; failures print `{"error": …}` on stderr
 * (then a hint, or the listing, in plain text) and exit with 1 (2 for a usage error). `--help`,
 * `help [command]` and `--version` print plain text on stdout and exit 0.
 *
 * The commands are declared in commands/ (words, summary, options with descriptions, handler);
 * parsing and help are generated from those declarations (command.ts, help.ts).
 * Kept honest by test/cli/threshold.test.ts and test/gateway/processes.test.ts.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../domain/config-error.js';
import { openStore } from '../storage/open-store.js';
import { storeOptionsFor } from '../storage/config.js';
import type { Store } from '../storage/store.js';
import { loadGatewayConfig, type GatewayConfig } from '../gateway/config.js';
import { HttpError, ValidationError } from '../gateway/errors.js';
import { CommandFailure, UsageError, asksForHelp, parseCommand, type CommandContext } from './command.js';
import { commandHelp, listing, usage } from './help.js';
import { COMMANDS, commandsUnder, findCommand } from './commands/index.js';

const HINT = 'Run `threshold --help` for the commands.';

/** Runs the command line; the exit code, or -1 when a long-running command keeps the process alive. */
async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h') return print(usage(COMMANDS));
  if (first === '--version' || first === '-v') return print(`${packageVersion()}\n`);
  if (first === 'help') return help(rest);
  if (first === undefined) return usageFailure('no command given', usage(COMMANDS));

  const found = findCommand(argv);
  if (!found) return unknownCommand(argv);
  const { command, args } = found;
  if (asksForHelp(args)) return print(commandHelp(command));

  const context = lazyContext(process.env);
  try {
    const input = parseCommand(command, args);
    const result = await command.run(input, context);
    if (command.output === 'logs') return -1;
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      return usageFailure(error.message, `Run \`threshold ${command.words} --help\` for its options, \`threshold --help\` for the commands.\n`);
    }
    process.stderr.write(`${JSON.stringify({ error: describe(error) })}\n`);
    return 1;
  } finally {
    await context.close();
  }
}

/** `threshold help`, `threshold help <command>`, `threshold help <first words>`. */
function help(words: string[]): number {
  if (words.length === 0) return print(usage(COMMANDS));
  const found = findCommand(words);
  if (found && found.args.length === 0) return print(commandHelp(found.command));
  const under = commandsUnder(words);
  if (under.length > 0) return print(`${listing(under)}\n`);
  return usageFailure(`no command '${words.join(' ')}'`, `${HINT}\n`);
}

function unknownCommand(argv: string[]): number {
  const firstOption = argv.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption < 0 ? argv : argv.slice(0, firstOption);
  const under = commandsUnder(words);
  if (under.length > 0 && asksForHelp(argv)) return print(`${listing(under)}\n`);
  if (under.length > 0) {
    return usageFailure(`'${words.join(' ')}' needs one more word: ${under.map((command) => command.words).join(', ')}`, `${listing(under)}\n`);
  }
  return usageFailure(`unknown command '${argv.join(' ')}'`, `${HINT}\n`);
}

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

/** A usage error: the JSON error line, then plain-text guidance, on stderr; exit 2. */
function usageFailure(message: string, guidance: string): number {
  process.stderr.write(`${JSON.stringify({ error: message })}\n${guidance}`);
  return 2;
}

function lazyContext(env: Record<string, string | undefined>): CommandContext & { close(): Promise<void> } {
  let config: GatewayConfig | undefined;
  let store: Store | undefined;
  const context = {
    env,
    config: () => (config ??= loadGatewayConfig(env)),
    store: async () => (store ??= await openStore(storeOptionsFor(context.config().store))),
    close: async () => {
      await store?.close();
    },
  };
  return context;
}

/** The version in the package.json beside dist/ (or beside cli/ when run from the sources). */
function packageVersion(): string {
  for (let at = new URL('..', import.meta.url); ; at = new URL('..', at)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', at), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'threshold' && manifest.version) return manifest.version;
    } catch {
      // no package.json here: look further up
    }
    if (at.pathname === '/') throw new Error('threshold: package.json not found above the command');
  }
}

function describe(error: unknown): string {
  if (error instanceof ValidationError) return error.issues.map((issue) => `${String(issue.loc.at(-1))}: ${issue.msg}`).join('; ');
  if (error instanceof HttpError || error instanceof CommandFailure || error instanceof ConfigError) return error.message;
  return `unexpected failure: ${(error as Error).message}`;
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
