/**
 * Thrown by every process's `loadConfig(env)` when the environment is unusable. It carries every
 * problem found, so one start-up attempt reports them all instead of one per restart.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
