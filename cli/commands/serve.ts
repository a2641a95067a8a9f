/** `threshold serve` (what `npm start` runs): the whole service in one process, until SIGINT or SIGTERM. */
import { exitOnSignals, reportStartupFailure } from '../../domain/process.js';
import { command } from '../command.js';

export const serve = command({
  words: 'serve',
  summary: 'Runs the whole service in one process (what npm start runs): JSON log lines on stdout, the first ones naming where the data lives and the URL.',
  options: {},
  details: ['It is configured by the environment (PORT, HOST, BASE_URL, DATA_DIR, MONGODB_URI, …: README, Configuration) and stops cleanly on SIGINT or SIGTERM.'],
  output: 'logs',
  async run(_input, context) {
    try {
      // Loaded here, not at the top: the other commands (and help) never load the servers.
      const { startStack } = await import('../stack.js');
      const stack = await startStack({ env: context.env });
      stack.logger.info({ url: stack.baseUrl, engine: stack.engineAddress }, 'threshold is running');
      exitOnSignals(stack.logger, () => stack.close());
    } catch (error) {
      reportStartupFailure(error);
    }
  },
});
