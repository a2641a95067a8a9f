/**
 * How a `threshold` command is declared and parsed. A command states its words, a one-line summary,
 * its options (each with a description) and its handler once; parsing (node:util `parseArgs`) is
 * generated from that declaration here, the usage listing and the command's own help in help.ts, so
 * the three cannot drift apart. Kept honest by test/cli/threshold.test.ts.
 */
import { parseArgs } from 'node:util';
import type { Store } from '../storage/store.js';
import type { GatewayConfig } from '../gateway/config.js';

/** Wrong words on the command line: exit 2. */
export class UsageError extends Error {}
/** A refused operation (a missing file, an unknown user): exit 1. */
export class CommandFailure extends Error {}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** Repeatable (string options): the values come as an array, in order. */
  multiple?: boolean;
  /** Must be given, and not empty: a usage error otherwise. */
  required?: boolean;
  /** The value's placeholder in help (string options), e.g. USER_ID. */
  value?: string;
  /** One or two sentences for the command's help. */
  description: string;
}

export type OptionSpecs = Record<string, OptionSpec>;

type ValueOf<O extends OptionSpec> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;

/** What the handler receives: required options are always present. */
export type Values<O extends OptionSpecs> = {
  [K in keyof O]: O[K]['required'] extends true ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

/** What a handler may use; each is made on first use, so a command that fails its usage checks first never opens the store. */
export interface CommandContext {
  env: Record<string, string | undefined>;
  /** The service's configuration (a ConfigError when it is invalid: exit 1). */
  config(): GatewayConfig;
  /** The configured store, opened once and closed after the command. */
  store(): Promise<Store>;
}

export interface Command<O extends OptionSpecs = OptionSpecs> {
  /** One to three words: `import`, `user create`, `app secret add`. */
  words: string;
  /** One line for the command listing. */
  summary: string;
  /** Paragraphs added to the command's own help, after its options. */
  details?: string[];
  options: O;
  /** Words after the options (`import`'s paths): the placeholder and what they are; at least one is required. */
  operands?: { name: string; description: string };
  /**
   * 'json' (the default): the handler's result is printed as one JSON document on stdout.
   * 'logs': the handler starts something that runs until it is signalled and logs as it goes.
   */
  output?: 'json' | 'logs';
  run(input: { values: Values<O>; operands: string[] }, context: CommandContext): Promise<unknown>;
}

/** Declares a command; `const` keeps the option literals, so `values` is typed from them. */
export function command<const O extends OptionSpecs>(spec: Command<O>): Command<O> {
  return spec;
}

/** Any declared command, as the table holds them. */
export type AnyCommand = Command<any>;

function parseConfig(command: AnyCommand) {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, option] of Object.entries(command.options as OptionSpecs)) {
    options[name] = { type: option.type, ...(option.multiple && { multiple: true }) };
  }
  return options;
}

/**
 * Whether the arguments ask for the command's help: `--help` or `-h` anywhere before a `--`, whatever
 * else is wrong with them. (Strict parsing refuses an option value that starts with a dash anyway;
 * `--name=--help` is still a value.)
 */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

export function parseCommand<O extends OptionSpecs>(command: Command<O>, args: string[]): { values: Values<O>; operands: string[] } {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options: parseConfig(command), strict: true, allowPositionals: command.operands !== undefined });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  for (const [name, option] of Object.entries(command.options as OptionSpecs)) {
    const value = parsed.values[name];
    if (option.required && (value === undefined || value === '')) throw new UsageError(`--${name} is required`);
  }
  if (command.operands && parsed.positionals.length === 0) {
    throw new UsageError(`${command.words} needs at least one ${command.operands.name}`);
  }
  return { values: parsed.values as Values<O>, operands: parsed.positionals };
}
