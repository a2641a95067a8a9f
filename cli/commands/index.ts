/** Every `threshold` command, in the order `threshold --help` lists them. */
import type { AnyCommand } from '../command.js';
import { serve } from './serve.js';
import { userCreate, userDelete, userList } from './users.js';
import { modelCommand } from './model.js';
import { appCreate, appPurposes, appSecretAdd, appSecretDelete } from './applications.js';
import { tokenMint } from './tokens.js';
import { keysRotate } from './keys.js';
import { importCommand } from './import.js';
import { teamCreate, teamInvite, teamList } from './teams.js';
import { backupCommand, restoreCommand } from './backup.js';
import { storePrepare } from './store.js';

export const COMMANDS: readonly AnyCommand[] = [
  serve, userCreate, userList, userDelete, appCreate, appPurposes, appSecretAdd, appSecretDelete, teamCreate, teamInvite, teamList, tokenMint, keysRotate, importCommand,
  modelCommand, backupCommand, restoreCommand, storePrepare,
];

/** The command named by the first words of `argv`, and the arguments after them. */
export function findCommand(argv: readonly string[]): { command: AnyCommand; args: string[] } | null {
  for (const command of COMMANDS) {
    const words = command.words.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, args: argv.slice(words.length) };
  }
  return null;
}

/** The commands whose words start with `words` (`app secret` → add, delete); empty when none do. */
export function commandsUnder(words: readonly string[]): AnyCommand[] {
  if (words.length === 0) return [];
  return COMMANDS.filter((command) => {
    const own = command.words.split(' ');
    return own.length > words.length && words.every((word, index) => own[index] === word);
  });
}
