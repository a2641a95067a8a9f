/**
 * Gateway configuration: the only place the gateway reads the environment. Every problem is reported at
 * once (a ConfigError listing them all), before anything starts.
 */
import { parseAllowedHosts } from '../domain/outbound-address.js';
import { availableParallelism } from 'node:os';
import { ConfigError } from '../domain/config-error.js';
import { parseEngineTarget } from '../domain/engine-target.js';
import { engineTargetHosts, exposedEngineProblem, readEngineToken } from '../domain/engine-token.js';
import type { LogLevel } from '../domain/logger.js';
import { present, readBoolean, readInteger, readLogLevel, type Env } from '../domain/env.js';
import { readStoreConfig, type StoreConfig } from '../storage/config.js';
import { configuredProviders, readIntegrationSettings } from '../domain/integration-settings.js';
import type { Provider } from '../domain/providers.js';
import { autoPagesBase, autoPagesProblem, cookieScopeShared } from './hosted-pages/pages-origin.js';

export interface GatewayConfig {
  /** PORT: the HTTP port (0 picks a free one; tests do). */
  port: number;
  /** HOST: the address to bind. */
  host: string;
  /** BASE_URL: the public address; the token issuer and every absolute link derive from it. */
  baseUrl: string;
  /** True when BASE_URL is not set: the base URL is then http://localhost:<the port actually bound>. */
  baseUrlAuto: boolean;
  /**
   * ENGINE_ADDRESS: the engines' gRPC target: one host:port, a comma-separated list of them, or
   * dns:///host:port (every address of the name); calls are balanced round-robin (domain/engine-target.ts).
   */
  engineAddress: string;
  /**
   * ENGINE_TOKEN: shared secret sent to the engine as `authorization: Bearer …`, when set. Required (and not
   * the published example) when ENGINE_ADDRESS reaches beyond loopback (domain/engine-token.ts).
   */
  engineToken: string | null;
  /** ENGINE_DEADLINE_MS: default deadline of an engine call. */
  engineDeadlineMs: number;
  /** MAX_UPLOAD_BYTES: the largest file accepted by the upload endpoint (413 beyond). */
  maxUploadBytes: number;
  /** LOG_LEVEL: fatal, error, warn, info, debug, trace or silent. */
  logLevel: LogLevel;
  /**
   * TRUST_PROXY: read the client address from X-Forwarded-For (set it only behind a proxy that writes
   * that header). Rate limits count per client address, so behind a proxy without it every client
   * shares the proxy's address.
   */
  trustProxy: boolean;
  /** SMTP_URL: where sign-in links are sent (`smtp://user:pass@host:587`, `smtps://…`); null writes them to the log. */
  smtpUrl: string | null;
  /** MAIL_FROM: the sender of sign-in emails. */
  mailFrom: string;
  /**
   * SCOPE_RELEASE_AT: the scope release instant (epoch ms). Applications created before it may still send
   * the retired `data:read` / `data:write` bundles (interface §5 "Legacy scope bundles").
   */
  scopeReleaseAt: number;
  /**
   * GATEWAY_PROCESSES: HTTP processes `threshold serve` runs, sharing the port (the engine runs once,
   * beside them); 1 serves HTTP from the engine's process.
   */
  gatewayProcesses: number;
  /**
   * PAGES_PORT: where hosted pages are served (gaps.md "Pages": an origin of their own, never the
   * service's). 0 picks a free port (tests do).
   */
  pagesPort: number;
  /**
   * PAGES_BASE: the public address of the pages, `https://pages.example.net` (a page at `{base}/{slug}/`)
   * or the wildcard form `https://{slug}.pages.example.net`. Unset: the loopback twin of BASE_URL's host on
   * PAGES_PORT (`localhost` ↔ `127.0.0.1`, hosted-pages/pages-origin.ts); with an https BASE_URL, or
   * another host without PAGES_SHARE_COOKIE_SCOPE, it must be set. Never the service's own origin, and
   * never a host that shares its cookies unless PAGES_SHARE_COOKIE_SCOPE says so (start-up refuses both).
   */
  pagesBase: string;
  /** True when PAGES_BASE is not set: it then follows the host of BASE_URL and the pages port actually bound. */
  pagesBaseAuto: boolean;
  /**
   * PAGES_SHARE_COOKIE_SCOPE: accept pages on a host that shares the service's cookies (the same host name
   * on another port, a parent or subdomain, an http sibling): a page's script can then plant the session
   * cookie and sign its visitors in as its author. Only for pages the operator trusts.
   */
  pagesShareCookieScope: boolean;
  /** PAGE_MAX_FILES: files in one page deploy (413 beyond). */
  pageMaxFiles: number;
  /** PAGE_MAX_BYTES: bytes of one page deploy, all files together (413 beyond). */
  pageMaxBytes: number;
  /**
   * WEBHOOK_ALLOWED_HOSTS: host names (comma-separated) a webhook endpoint may use although they are not
   * public https hosts (AUTH.md "Server-side request forgery": a self-hosted network, or a test's loopback
   * receiver); they are neither resolved nor range-checked at registration, and may use http.
   */
  webhookAllowedHosts: string[];
  /**
   * CORS_ALLOWED_ORIGINS: origins (comma-separated, exact: scheme, host and port) that may call the API
   * from a browser besides the registered redirect-URI and page origins; `*` alone admits any origin.
   * Credentials are never allowed, so `*` never exposes the service's cookies.
   */
  corsAllowedOrigins: string[];
  /**
   * METRICS_TOKEN: when set, `/metrics` answers only requests with `Authorization: Bearer <token>`;
   * unset, it is open (it shows latencies and backlogs, never user data).
   */
  metricsToken: string | null;
  store: StoreConfig;
  /** Providers whose <PREFIX>_CLIENT_ID and _CLIENT_SECRET are set (domain/integration-settings.ts); the engine holds the rest. */
  configuredProviders: Provider[];
  /** BACKFILL_STATUS_INTERVAL_MS: how often backfill-status writes a line. */
  backfillStatusIntervalMs: number;
  /** BACKFILL_STATUS_DURATION_MS: when backfill-status closes ("closes after 60 s", interface §8). */
  backfillStatusDurationMs: number;
}

export const GATEWAY_DEFAULTS = {
  port: 8080, // PORT
  host: '0.0.0.0', // HOST: all interfaces; the gateway is the public face
  // BASE_URL: unset means http://localhost:<PORT>
  engineAddress: '127.0.0.1:50051', // ENGINE_ADDRESS: loopback, the engine trusts its callers
  engineDeadlineMs: 30_000, // ENGINE_DEADLINE_MS
  maxUploadBytes: 64 * 1024 * 1024, // MAX_UPLOAD_BYTES: 64 MiB; a 24-hour FIT file is about 5 MiB
  logLevel: 'info' as LogLevel, // LOG_LEVEL
  trustProxy: false, // TRUST_PROXY
  // SMTP_URL: unset, so sign-in links are written to the log (a local install works without mail)
  mailFrom: 'Threshold <no-reply@localhost>', // MAIL_FROM
  scopeReleaseAt: Date.parse('2025-01-01T00:00:00Z'), // SCOPE_RELEASE_AT: apps created earlier keep the legacy bundles
  gatewayProcesses: availableParallelism(), // GATEWAY_PROCESSES: one HTTP process per available core
  // PAGES_PORT: unset means PORT + 1 (0 when PORT is 0)
  // PAGES_BASE: unset means BASE_URL's loopback twin on PAGES_PORT (localhost ↔ 127.0.0.1); required otherwise
  pagesShareCookieScope: false, // PAGES_SHARE_COOKIE_SCOPE: pages never share the service's cookies unless the operator says so
  pageMaxFiles: 1000, // PAGE_MAX_FILES: a built single-page app has tens of files
  pageMaxBytes: 50 * 1024 * 1024, // PAGE_MAX_BYTES: 50 MiB per deploy
  // WEBHOOK_ALLOWED_HOSTS: unset, so only public https hosts are accepted
  // CORS_ALLOWED_ORIGINS: unset, so only the registered redirect-URI origins and the page origins
  // METRICS_TOKEN: unset, so /metrics is open
  backfillStatusIntervalMs: 3_000, // BACKFILL_STATUS_INTERVAL_MS: "every few seconds"
  backfillStatusDurationMs: 60_000, // BACKFILL_STATUS_DURATION_MS: interface §8, the stream closes after 60 s
} as const;

export function loadGatewayConfig(env: Env): GatewayConfig {
  const problems: string[] = [];
  const port = readInteger(env, 'PORT', GATEWAY_DEFAULTS.port, { min: 0, max: 65535 }, problems);
  const baseUrlAuto = !env.BASE_URL?.trim();
  const config: GatewayConfig = {
    port,
    host: env.HOST?.trim() || GATEWAY_DEFAULTS.host,
    baseUrl: baseUrlAuto ? `http://localhost:${port}` : readBaseUrl(env, problems),
    baseUrlAuto,
    engineAddress: readEngineTarget(env, problems),
    engineToken: readEngineToken(env, problems),
    engineDeadlineMs: readInteger(env, 'ENGINE_DEADLINE_MS', GATEWAY_DEFAULTS.engineDeadlineMs, { min: 1, max: 3_600_000 }, problems),
    maxUploadBytes: readInteger(env, 'MAX_UPLOAD_BYTES', GATEWAY_DEFAULTS.maxUploadBytes, { min: 1024, max: 1024 * 1024 * 1024 }, problems),
    logLevel: readLogLevel(env, problems, GATEWAY_DEFAULTS.logLevel),
    trustProxy: readBoolean(env, 'TRUST_PROXY', GATEWAY_DEFAULTS.trustProxy, problems),
    smtpUrl: readSmtpUrl(env, problems),
    mailFrom: present(env, 'MAIL_FROM') ?? GATEWAY_DEFAULTS.mailFrom,
    scopeReleaseAt: readInstant(env, 'SCOPE_RELEASE_AT', GATEWAY_DEFAULTS.scopeReleaseAt, problems),
    gatewayProcesses: readInteger(env, 'GATEWAY_PROCESSES', GATEWAY_DEFAULTS.gatewayProcesses, { min: 1, max: 64 }, problems),
    pagesPort: 0,
    pagesBase: '',
    pagesBaseAuto: !env.PAGES_BASE?.trim(),
    pagesShareCookieScope: readBoolean(env, 'PAGES_SHARE_COOKIE_SCOPE', GATEWAY_DEFAULTS.pagesShareCookieScope, problems),
    pageMaxFiles: readInteger(env, 'PAGE_MAX_FILES', GATEWAY_DEFAULTS.pageMaxFiles, { min: 1, max: 100_000 }, problems),
    pageMaxBytes: readInteger(env, 'PAGE_MAX_BYTES', GATEWAY_DEFAULTS.pageMaxBytes, { min: 1024, max: 1024 * 1024 * 1024 }, problems),
    webhookAllowedHosts: parseAllowedHosts(present(env, 'WEBHOOK_ALLOWED_HOSTS')),
    corsAllowedOrigins: readCorsOrigins(env, problems),
    metricsToken: present(env, 'METRICS_TOKEN') ?? null,
    store: readStoreConfig(env, problems),
    // The key requirement is the engine's (it seals tokens); the gateway only needs to know who is configured.
    configuredProviders: configuredProviders(readIntegrationSettings(env, false, problems)),
    backfillStatusIntervalMs: readInteger(env, 'BACKFILL_STATUS_INTERVAL_MS', GATEWAY_DEFAULTS.backfillStatusIntervalMs, { min: 10, max: 60_000 }, problems),
    backfillStatusDurationMs: readInteger(env, 'BACKFILL_STATUS_DURATION_MS', GATEWAY_DEFAULTS.backfillStatusDurationMs, { min: 10, max: 600_000 }, problems),
  };
  const exposed = exposedEngineProblem(config.engineToken, 'is reached at', config.engineAddress, engineTargetHosts(config.engineAddress));
  if (exposed !== null) problems.push(exposed);
  config.pagesPort = readInteger(env, 'PAGES_PORT', port === 0 ? 0 : Math.min(port + 1, 65535), { min: 0, max: 65535 }, problems);
  if (config.pagesPort !== 0 && config.pagesPort === port) problems.push('PAGES_PORT must differ from PORT: pages never share the service\'s origin');
  if (config.pagesBaseAuto) {
    const problem = autoPagesProblem(config.baseUrl, config.pagesPort, config.host, config.pagesShareCookieScope);
    if (problem) problems.push(problem);
    config.pagesBase = autoPagesBase(config.baseUrl, config.pagesPort, config.host);
  } else {
    const before = problems.length;
    config.pagesBase = readPagesBase(env, config.baseUrl, problems);
    const shared = problems.length === before && !config.pagesShareCookieScope ? cookieScopeShared(config.baseUrl, config.pagesBase) : null;
    if (shared) {
      problems.push(`PAGES_BASE must not share the service's cookies (${shared}): a page's script could sign its visitors in as its author; `
        + 'give the pages a host of their own (README, "Pages origin"), or set PAGES_SHARE_COOKIE_SCOPE=yes to accept that risk');
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function readPagesBase(env: Env, baseUrl: string, problems: string[]): string {
  const raw = env.PAGES_BASE!.trim().replace(/\/+$/, '');
  const probe = raw.replace('{slug}', 'slug');
  if (!URL.canParse(probe) || !['http:', 'https:'].includes(new URL(probe).protocol) || new URL(probe).search || new URL(probe).hash || new URL(probe).username) {
    problems.push(`PAGES_BASE must be an http(s) URL without query, fragment or credentials, optionally with {slug} as the first host label (got '${raw}')`);
    return raw;
  }
  if (raw.includes('{slug}') && !/^https?:\/\/\{slug\}\.[^/{}]+$/.test(raw)) {
    problems.push(`PAGES_BASE with {slug} must have it as the whole first host label and no path, like https://{slug}.pages.example.com (got '${raw}')`);
  }
  if (URL.canParse(baseUrl) && new URL(probe).origin === new URL(baseUrl).origin) {
    problems.push(`PAGES_BASE must not be on the service's own origin ${new URL(baseUrl).origin}: pages run their owners' scripts`);
  }
  return raw;
}

function readBaseUrl(env: Env, problems: string[]): string {
  const raw = env.BASE_URL!.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`BASE_URL must be an absolute http(s) URL (got '${raw}')`);
    return raw;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username) {
    problems.push(`BASE_URL must be an http(s) URL without query, fragment or credentials (got '${raw}')`);
    return raw;
  }
  return url.href.replace(/\/+$/, '');
}

/** Exact origins (`https://app.example.com`, `http://localhost:5173`), or `*` alone. */
function readCorsOrigins(env: Env, problems: string[]): string[] {
  const entries = (present(env, 'CORS_ALLOWED_ORIGINS') ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  if (entries.includes('*')) {
    if (entries.length > 1) problems.push('CORS_ALLOWED_ORIGINS: `*` admits any origin and stands alone');
    return ['*'];
  }
  const origins: string[] = [];
  for (const entry of entries) {
    const bare = entry.replace(/\/$/, '');
    const url = URL.canParse(bare) ? new URL(bare) : null;
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== bare.toLowerCase()) {
      problems.push(`CORS_ALLOWED_ORIGINS must list origins like https://app.example.com (scheme, host, optional port; no path) (got '${entry}')`);
    } else {
      origins.push(url.origin);
    }
  }
  return origins;
}

function readEngineTarget(env: Env, problems: string[]): string {
  const raw = present(env, 'ENGINE_ADDRESS');
  if (raw === undefined) return GATEWAY_DEFAULTS.engineAddress;
  const target = parseEngineTarget(raw, 'ENGINE_ADDRESS');
  if (typeof target === 'string') problems.push(target);
  return raw;
}

function readSmtpUrl(env: Env, problems: string[]): string | null {
  const raw = present(env, 'SMTP_URL');
  if (raw === undefined) return null;
  if (!URL.canParse(raw) || !['smtp:', 'smtps:'].includes(new URL(raw).protocol)) {
    problems.push('SMTP_URL must be an smtp:// or smtps:// URL');
    return null;
  }
  return raw;
}

/** An ISO 8601 instant with a zone (`2025-01-01T00:00:00Z`), as epoch milliseconds. */
function readInstant(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  const value = /(Z|[+-]\d\d:\d\d)$/.test(raw) ? Date.parse(raw) : Number.NaN;
  if (Number.isNaN(value)) {
    problems.push(`${name} must be an ISO 8601 instant with a zone, like 2025-01-01T00:00:00Z (got '${raw}')`);
    return fallback;
  }
  return value;
}
