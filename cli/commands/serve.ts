/** `threshold serve` (what `npm start` runs): the whole service, until SIGINT or SIGTERM; on several cores with one HTTP process per core (serve-processes.ts). */
import { exitOnSignals, reportStartupFailure } from '../../domain/process.js';
import { command } from '../command.js';

export const serve = command({
  words: 'serve',
  summary: 'Runs the whole service (what npm start runs): the engine once and GATEWAY_PROCESSES HTTP processes sharing the port; JSON log lines on stdout, the first ones naming where the data lives and the URL.',
  options: {},
  details: ['It is configured by the environment (PORT, HOST, BASE_URL, DATA_DIR, MONGODB_URI, …: README, Configuration) and stops cleanly on SIGINT or SIGTERM.'],
  output: 'logs',
  async run(_input, context) {
    try {
      // Loaded here, not at the top: the other commands (and help) never load the servers.
      const processes = await import('../serve-processes.js');
      if (processes.isGatewayProcess()) return await processes.serveGateway(context.env);
      const { loadBoth, startStack } = await import('../stack.js');
      // Both roles' settings, every problem of either reported at once, before anything starts.
      const { gatewayProcesses } = loadBoth(context.env)[1];
      if (gatewayProcesses > 1) return await processes.servePrimary(context.env, gatewayProcesses);
      const stack = await startStack({ env: context.env });
      stack.logger.info({ url: stack.baseUrl, engine: stack.engineAddress }, 'threshold is running');
      exitOnSignals(stack.logger, () => stack.close());
    } catch (error) {
      reportStartupFailure(error);
    }
  },
});
