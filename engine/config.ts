/**
 * The engine's configuration: the only place the engine reads the environment. Every problem is
 * collected and reported at once in one `ConfigError`. Libraries inside the engine take options
 * objects built from this and never look at `process.env`.
 */
import { availableParallelism } from 'node:os';
import { ConfigError } from '../domain/config-error.js';
import type { LogLevel } from '../domain/logger.js';
import { isHostPort, present, readAddress, readBoolean, readInteger, readLogLevel, type Env } from '../domain/env.js';
import { parseEngineTarget } from '../domain/engine-target.js';
import { exposedEngineProblem, readEngineToken } from '../domain/engine-token.js';
import { readStoreConfig, type StoreConfig } from '../storage/config.js';
import { parseAllowedHosts } from '../domain/outbound-address.js';
import { readIntegrationSettings, type IntegrationSettings } from '../domain/integration-settings.js';
import { PROVIDERS, type Provider } from '../domain/providers.js';
import type { BudgetWindow } from './integrations/provider-budget.js';

export interface EngineConfig {
  /**
   * ENGINE_LISTEN_ADDRESS: host:port the gRPC server binds (loopback by default: the engine trusts its callers).
   * Unset, ENGINE_ADDRESS when that is one host:port (one variable for both roles, as before); required when
   * ENGINE_ADDRESS names several engines (a list or a dns: target, domain/engine-target.ts).
   */
  engineAddress: string;
  /** ENGINE_THREADS: worker threads in the compute pool. */
  engineThreads: number;
  /**
   * ENGINE_TOKEN: when set, every call must carry `authorization: Bearer <token>`. Required (and not the
   * published example) when the engine listens beyond loopback (domain/engine-token.ts).
   */
  engineToken: string | null;
  /** LOG_LEVEL */
  logLevel: LogLevel;
  /** ENGINE_JOBS: run background jobs (ingest) in this engine process. */
  jobs: boolean;
  /** JOB_CONCURRENCY: jobs run at the same time by this process. */
  jobConcurrency: number;
  /** JOB_LEASE_MS: how long a claimed job stays claimed without renewal (a dead process's jobs run again after it). */
  jobLeaseMs: number;
  /** JOB_POLL_MS: how often an idle runner looks for work. */
  jobPollMs: number;
  /** Webhook delivery (engine/events/); runs where jobs run (ENGINE_JOBS). */
  webhooks: WebhookConfig;
  /** MONGODB_URI, DATA_DIR, … as read by storage/config.ts. */
  store: StoreConfig;
  /** Provider clients and INTEGRATION_KEY, as read by domain/integration-settings.ts. */
  integrations: IntegrationSettings;
  /** INTEGRATION_POLL_MS: how often each connection is polled for new activities (the fallback to pushes; one schedule per connection in the shared queue, whatever the number of engines). */
  integrationPollMs: number;
  /** INTEGRATION_PAGE_SIZE: activities per history page asked of a provider (intervals.icu `limit`, Wahoo `per_page`). */
  integrationPageSize: number;
  /**
   * GARMIN_REQUEST_BUDGET, INTERVALS_ICU_REQUEST_BUDGET, WAHOO_REQUEST_BUDGET: the app's request budget at that
   * provider, shared by every engine through the store, as `<calls>/<window>` pairs (`200/5m,1000/1h,5000/1d`;
   * windows in s, m, h or d). Unset: the provider's documented budget (integrations/provider-budget.ts).
   */
  providerBudgets: Partial<Record<Provider, BudgetWindow[]>>;
}

export interface WebhookConfig {
  /** WEBHOOK_ALLOWED_HOSTS: hosts a delivery may reach although not public (the gateway reads the same list for registration). */
  allowedHosts: string[];
  /** WEBHOOK_CONCURRENCY: delivery attempts in flight at once in this process. */
  concurrency: number;
  /** WEBHOOK_POLL_MS: how often an idle dispatcher looks for work written by another process. */
  pollMs: number;
  /** WEBHOOK_LEASE_MS: how long a claimed delivery stays claimed (a dead process's attempts start again after it). */
  leaseMs: number;
  /** WEBHOOK_RETRY_BASE_MS: first retry delay before jitter; each further retry doubles it, at most 1 h. */
  retryBaseMs: number;
  /** WEBHOOK_TIMEOUT_MS: how long a receiver has to answer. */
  timeoutMs: number;
  /** WEBHOOK_ATTEMPT_RETENTION_DAYS: how long the attempt log and finished deliveries are kept. */
  retentionDays: number;
}

export const WEBHOOK_DEFAULTS = {
  allowedHosts: [] as string[], // only public https hosts
  concurrency: 64, // attempts are network waits; sockets are kept alive per receiver
  pollMs: 500, // writes in this process wake the dispatcher at once
  leaseMs: 30_000, // an attempt takes at most WEBHOOK_TIMEOUT_MS plus two store writes
  retryBaseMs: 10_000, // 10 s, 20 s, 40 s … (±50 % jitter), capped at 1 h, until 24 h after the event
  timeoutMs: 2_000, // gaps.md: "Receivers must answer 2xx within 2 s"
  retentionDays: 14,
};

export const ENGINE_DEFAULTS = {
  engineAddress: '127.0.0.1:50051', // ENGINE_LISTEN_ADDRESS (else ENGINE_ADDRESS): loopback; expose it deliberately, with ENGINE_TOKEN
  engineThreads: availableParallelism(), // one worker per available core
  engineToken: null, // no token: callers on loopback are trusted (beyond loopback start-up requires one)
  logLevel: 'info',
  jobs: true, // every engine works the shared queue
  jobConcurrency: 2, // sources decoded at once per process (each decode uses one pool thread)
  jobLeaseMs: 30_000, // renewed every 10 s while a job runs
  jobPollMs: 500,
  integrationPollMs: 15 * 60_000, // pushes bring new activities at once; polling only catches what they missed
  integrationPageSize: 200, // one listing request per 200 activities: downloads, not listings, spend the rate limit
} as const satisfies Omit<EngineConfig, 'store' | 'webhooks' | 'integrations' | 'providerBudgets'>;

export function loadEngineConfig(env: Env): EngineConfig {
  const problems: string[] = [];
  const engineAddress = readListenAddress(env, problems);
  const engineThreads = readThreads(env, problems);
  const engineToken = readEngineToken(env, problems);
  const exposed = isHostPort(engineAddress) ? exposedEngineProblem(engineToken, 'listens on', engineAddress, [engineAddress.slice(0, engineAddress.lastIndexOf(':'))]) : null;
  if (exposed !== null) problems.push(exposed);
  const logLevel = readLogLevel(env, problems, ENGINE_DEFAULTS.logLevel);
  const jobs = readBoolean(env, 'ENGINE_JOBS', ENGINE_DEFAULTS.jobs, problems);
  const jobConcurrency = readInteger(env, 'JOB_CONCURRENCY', ENGINE_DEFAULTS.jobConcurrency, { min: 1, max: 256 }, problems);
  const jobLeaseMs = readInteger(env, 'JOB_LEASE_MS', ENGINE_DEFAULTS.jobLeaseMs, { min: 100, max: 3_600_000 }, problems);
  const jobPollMs = readInteger(env, 'JOB_POLL_MS', ENGINE_DEFAULTS.jobPollMs, { min: 10, max: 600_000 }, problems);
  const webhooks: WebhookConfig = {
    allowedHosts: parseAllowedHosts(present(env, 'WEBHOOK_ALLOWED_HOSTS')),
    concurrency: readInteger(env, 'WEBHOOK_CONCURRENCY', WEBHOOK_DEFAULTS.concurrency, { min: 1, max: 4096 }, problems),
    pollMs: readInteger(env, 'WEBHOOK_POLL_MS', WEBHOOK_DEFAULTS.pollMs, { min: 10, max: 600_000 }, problems),
    leaseMs: readInteger(env, 'WEBHOOK_LEASE_MS', WEBHOOK_DEFAULTS.leaseMs, { min: 1000, max: 3_600_000 }, problems),
    retryBaseMs: readInteger(env, 'WEBHOOK_RETRY_BASE_MS', WEBHOOK_DEFAULTS.retryBaseMs, { min: 1, max: 3_600_000 }, problems),
    timeoutMs: readInteger(env, 'WEBHOOK_TIMEOUT_MS', WEBHOOK_DEFAULTS.timeoutMs, { min: 100, max: 60_000 }, problems),
    retentionDays: readInteger(env, 'WEBHOOK_ATTEMPT_RETENTION_DAYS', WEBHOOK_DEFAULTS.retentionDays, { min: 1, max: 3650 }, problems),
  };
  const store = readStoreConfig(env, problems);
  const integrations = readIntegrationSettings(env, store.mongodbUri !== null, problems);
  const integrationPollMs = readInteger(env, 'INTEGRATION_POLL_MS', ENGINE_DEFAULTS.integrationPollMs, { min: 100, max: 86_400_000 }, problems);
  const integrationPageSize = readInteger(env, 'INTEGRATION_PAGE_SIZE', ENGINE_DEFAULTS.integrationPageSize, { min: 1, max: 1000 }, problems);
  const providerBudgets = readBudgets(env, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return { engineAddress, engineThreads, engineToken, logLevel, jobs, jobConcurrency, jobLeaseMs, jobPollMs, webhooks, store, integrations, integrationPollMs, integrationPageSize, providerBudgets };
}

const BUDGET_VARIABLES: Record<Provider, string> = { garmin_connect: 'GARMIN_REQUEST_BUDGET', intervals_icu: 'INTERVALS_ICU_REQUEST_BUDGET', wahoo: 'WAHOO_REQUEST_BUDGET' };
const WINDOW_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function readBudgets(env: Env, problems: string[]): Partial<Record<Provider, BudgetWindow[]>> {
  const budgets: Partial<Record<Provider, BudgetWindow[]>> = {};
  for (const provider of PROVIDERS) {
    const name = BUDGET_VARIABLES[provider];
    const value = present(env, name);
    if (value === undefined) continue;
    const windows = value.split(',').map((part) => /^\s*(\d{1,9})\s*\/\s*(\d{1,6})([smhd])\s*$/.exec(part));
    if (windows.some((match) => match === null || Number(match[1]) < 1 || Number(match[2]) < 1)) {
      problems.push(`${name} must be <calls>/<window> pairs such as 200/5m,1000/1h,5000/1d (windows in s, m, h or d; got '${value}')`);
      continue;
    }
    budgets[provider] = windows.map((match) => ({ limit: Number(match![1]), windowMs: Number(match![2]) * WINDOW_UNITS_MS[match![3]!]! }));
  }
  return budgets;
}

/** ENGINE_LISTEN_ADDRESS, else ENGINE_ADDRESS when it is one host:port (a list or a dns: target names other engines too). */
function readListenAddress(env: Env, problems: string[]): string {
  if (present(env, 'ENGINE_LISTEN_ADDRESS') !== undefined) return readAddress(env, 'ENGINE_LISTEN_ADDRESS', ENGINE_DEFAULTS.engineAddress, problems);
  const target = present(env, 'ENGINE_ADDRESS');
  if (target !== undefined && !isHostPort(target) && typeof parseEngineTarget(target, 'ENGINE_ADDRESS') !== 'string') {
    problems.push(`ENGINE_LISTEN_ADDRESS must be set (host:port) when ENGINE_ADDRESS names several engines (got '${target}')`);
    return ENGINE_DEFAULTS.engineAddress;
  }
  return readAddress(env, 'ENGINE_ADDRESS', ENGINE_DEFAULTS.engineAddress, problems);
}

function readThreads(env: Env, problems: string[]): number {
  const value = present(env, 'ENGINE_THREADS');
  if (value === undefined) return ENGINE_DEFAULTS.engineThreads;
  const threads = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(threads) || threads < 1) {
    problems.push(`ENGINE_THREADS must be a positive integer (got '${value}')`);
    return ENGINE_DEFAULTS.engineThreads;
  }
  return threads;
}
