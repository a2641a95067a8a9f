/** `threshold backup PATH` and `threshold restore PATH` for the embedded store (storage/sqlite/sqlite-backup.ts). */
import { BackupError, backupSqlite, restoreSqlite } from '../../storage/sqlite/sqlite-backup.js';
import { StoreInUseError } from '../../storage/sqlite/service-lock.js';
import { sqliteFileFor, type StoreConfig } from '../../storage/config.js';
import { CommandFailure, UsageError, command } from '../command.js';

const MONGODB_ADVICE = 'MONGODB_URI is set: back up MongoDB with `mongodump --uri "$MONGODB_URI" --archive=PATH --gzip` '
  + 'and restore with `mongorestore --uri "$MONGODB_URI" --archive=PATH --gzip --drop` (README, Backups)';

function embeddedFile(store: StoreConfig): string {
  if (store.mongodbUri !== null) throw new CommandFailure(MONGODB_ADVICE);
  const file = sqliteFileFor(store);
  if (file === ':memory:') throw new CommandFailure('DATA_DIR is :memory:; there is no file to back up or restore');
  return file;
}

function onePath(operands: string[]): string {
  if (operands.length !== 1) throw new UsageError(`expected exactly one PATH, got ${operands.length}`);
  return operands[0]!;
}

async function refused<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof BackupError || error instanceof StoreInUseError ? new CommandFailure(error.message) : error;
  }
}

export const backupCommand = command({
  words: 'backup',
  summary: 'Copies the embedded database to PATH, consistently, while the service runs → {"path", "bytes", "counts"}.',
  options: {},
  operands: { name: 'PATH', description: 'The backup file to create; it must not exist.' },
  details: [
    'The copy is one instant of the database (SQLite VACUUM INTO), written beside PATH and renamed when checked, so PATH never holds half a backup. '
      + 'It is readable by its owner only (mode 0600), as the database is.',
    'Keep INTEGRATION_KEY (or DATA_DIR/integration.key) apart from backups: provider tokens in the copy are sealed with it.',
    'With MONGODB_URI set, use mongodump (the command says how).',
  ],
  async run({ operands }, context) {
    const destination = onePath(operands);
    const file = embeddedFile(context.config().store);
    return refused(() => backupSqlite(file, destination));
  },
});

export const restoreCommand = command({
  words: 'restore',
  summary: 'Replaces the embedded database with a backup made by `threshold backup` → {"path", "bytes", "counts"}.',
  options: {
    replace: { type: 'boolean', description: 'Overwrite an existing database. Stop the service first: restore refuses while it runs.' },
  },
  operands: { name: 'PATH', description: 'A backup file made by `threshold backup`.' },
  details: [
    'The backup is checked (SQLite integrity check, Threshold tables) before anything is replaced. Start the service afterwards.',
    'It refuses while a service runs on DATA_DIR, naming its processes: every process of a running service holds a lock on the store, '
      + 'which the operating system drops when the process ends (a killed service blocks nothing).',
  ],
  async run({ values, operands }, context) {
    const source = onePath(operands);
    const file = embeddedFile(context.config().store);
    return refused(() => restoreSqlite(source, file, { replace: values.replace === true }));
  },
});
