/**
 * The `threshold` help texts, generated from the command declarations (command.ts): the listing of
 * every command for `threshold --help`, and one command's synopsis, options and notes for
 * `threshold help <command>` / `threshold <command> --help`. Plain text, wrapped to 100 columns; it
 * goes to stdout when asked for and to stderr after a usage error.
 * Kept honest by test/cli/threshold.test.ts.
 */
import type { AnyCommand, OptionSpec, OptionSpecs } from './command.js';

const WIDTH = 100;

/** `threshold help <command>` or `threshold <command> --help`. */
export function commandHelp(command: AnyCommand): string {
  const rows: [string, string][] = Object.entries(command.options as OptionSpecs).map(([name, option]) => [
    optionLabel(name, option),
    `${option.required ? 'Required. ' : ''}${option.description}${option.multiple ? ' Repeatable.' : ''}`,
  ]);
  if (command.operands) rows.unshift([command.operands.name, command.operands.description]);
  rows.push(['-h, --help', 'Shows this help.']);
  return [
    wrap(`threshold ${command.words}: ${command.summary}`, ''),
    '',
    synopsis(command),
    '',
    'options:',
    table(rows),
    ...(command.details ?? []).flatMap((paragraph) => ['', wrap(paragraph, '')]),
    '',
  ].join('\n');
}

/** `threshold --help`: every command with its summary, and how the tool behaves. */
export function usage(commands: readonly AnyCommand[]): string {
  return [
    'threshold: the training-data service, and its administration from the command line.',
    '',
    'usage: threshold <command> [options]',
    '',
    'commands:',
    listing(commands),
    '',
    table([
      ['threshold help <command>', 'A command\'s options (or: threshold <command> --help).'],
      ['threshold --version', 'The version.'],
    ]),
    '',
    wrap('Commands read the same environment as the service (DATA_DIR, MONGODB_URI, BASE_URL, …) and work on the same store, also beside a running service. '
      + 'Each prints one JSON document on stdout; a failure prints {"error": …} on stderr and exits with 1 when the operation is refused, '
      + '2 for a usage error. Help and the version are plain text.', ''),
    '',
  ].join('\n');
}

/** The commands with their summaries, two columns. */
export function listing(commands: readonly AnyCommand[]): string {
  return table(commands.map((command) => [command.words, command.summary]));
}

/** `usage: threshold app create --owner USER_ID --name NAME [--secret] …`, wrapped under the command. */
export function synopsis(command: AnyCommand): string {
  const parts = Object.entries(command.options as OptionSpecs).map(([name, option]) => {
    const label = `${optionLabel(name, option)}${option.multiple ? '…' : ''}`;
    return option.required ? label : `[${label}]`;
  });
  if (command.operands) parts.push(`${command.operands.name}…`);
  const head = `usage: threshold ${command.words}`;
  const lines: string[] = [];
  let line = head;
  for (const part of parts) {
    if (line.length + 1 + part.length > WIDTH && line.trim() !== '') {
      lines.push(line);
      line = ' '.repeat(head.length);
    }
    line += ` ${part}`;
  }
  lines.push(line);
  return lines.join('\n');
}

function optionLabel(name: string, option: OptionSpec): string {
  return option.type === 'boolean' ? `--${name}` : `--${name} ${option.value ?? 'VALUE'}`;
}

/** Two columns: labels padded to the widest (at most 28), descriptions wrapped beside them. */
function table(rows: readonly (readonly [string, string])[]): string {
  const column = Math.min(28, Math.max(...rows.map(([label]) => label.length)) + 2);
  const indent = ' '.repeat(2 + column);
  return rows.map(([label, text]) => {
    const first = `  ${label}`;
    const wrapped = wrap(text, indent);
    if (first.length + 2 > indent.length) return `${first}\n${wrapped}`;
    return `${first.padEnd(indent.length)}${wrapped.slice(indent.length)}`;
  }).join('\n');
}

/** Words wrapped to WIDTH, every line starting with `indent`. */
function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(indent + line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(indent + line);
  return lines.join('\n');
}
