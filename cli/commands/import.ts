/** `threshold import`: FIT and CSV files through the ingest path, with an engine pool in this process (../import.ts). */
import { ConfigError } from '../../domain/config-error.js';
import { CommandFailure, command } from '../command.js';
import { openStore } from '../../storage/open-store.js';
import { storeOptionsFor } from '../../storage/config.js';

export const importCommand = command({
  words: 'import',
  summary: 'Imports FIT and CSV files (folders are walked) through the same ingest path as uploads → a summary of processed and failed files.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user the activities belong to.' },
  },
  operands: { name: 'PATH', description: 'A FIT or CSV file, or a folder searched recursively for .fit and .csv files.' },
  details: ['Progress goes to stderr (a bar on a terminal, a line per 10 % otherwise). A file imported twice is recognised, not duplicated.'],
  async run({ values, operands }, context) {
    // Loaded here, not at the top: only this command runs an engine pool.
    const { importFiles, IMPORT_GROUP_COMMIT } = await import('../import.js');
    // A store of its own that commits in groups (a bulk writer), not the context's.
    const store = await openStore({ ...storeOptionsFor(context.config().store), groupCommit: IMPORT_GROUP_COMMIT });
    try {
      return await importFiles(store, context.env, values.user, operands, context.config().maxUploadBytes);
    } catch (error) {
      throw new CommandFailure(error instanceof ConfigError ? error.message : (error as Error).message);
    } finally {
      await store.close();
    }
  },
});
