/**
 * How the gateway's channel reaches the engines named by ENGINE_ADDRESS (domain/engine-target.ts): the
 * grpc-js target, `round_robin` over every engine, and which calls are retried on another engine.
 *
 * - One `host:port` is one engine, as before several were possible: `pick_first` over its addresses.
 * - `dns:` targets go to grpc-js as they are (its DNS resolver makes one endpoint, one engine, per address;
 *   `ipv4:`/`ipv6:` lists too). A list of `host:port` entries goes through the `threshold-engines:` resolver
 *   below: each entry is one endpoint (one engine) holding every address its name resolves to, so
 *   `localhost:50051` is one engine however many addresses localhost has.
 * - Several engines: `round_robin`, each call to the next engine whose connection is ready; a dead engine
 *   drops out at once and is reconnected in the background (backoff up to `grpc.max_reconnect_backoff_ms`).
 * - Retries: a call that never reached an engine's handler (no connection, a refused stream) is retried
 *   transparently by grpc-js, whatever the method. The reads in RETRIED_METHODS are also retried after an
 *   UNAVAILABLE answer — an engine that died while working on them — up to 3 attempts within the call's
 *   deadline; they change nothing or write only what recomputing writes again (caches). A server-streamed
 *   table is retried only before its first chunk (after it the call is committed). Calls that change state
 *   outside the engine (provider connections, pushes, disconnects) are not: a lost answer is reported (503).
 *
 * test/gateway/engines-balanced.test.ts runs two engines behind one gateway and kills one.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Metadata, experimental, status, type ChannelOptions } from '@grpc/grpc-js';
import { parseEngineTarget } from '../domain/engine-target.js';

const LIST_SCHEME = 'threshold-engines';

/** Engine reads, retried on another engine after UNAVAILABLE (they are idempotent). */
export const RETRIED_METHODS = [
  'DecodeSource', 'GetActivitySeries', 'GetLongitudinalSeries', 'GetMeanMax', 'GetAccumulatedWorkDuration', 'GetLongitudinalMeanMax',
  'GetLongitudinalAccumulatedWorkDuration', 'LactateThresholds', 'GetTemplateWeek', 'GetZones', 'GetIntensityDurationModel', 'GetMetabolicMap',
  'GetTrainingLoad', 'GetActivityNumbers',
] as const;

const METHOD_CONFIG = {
  methodConfig: [{
    name: [
      ...RETRIED_METHODS.map((method) => ({ service: 'threshold.engine.v1.Engine', method })),
      { service: 'grpc.health.v1.Health', method: 'Check' }, // readiness: any engine serving will do
    ],
    retryPolicy: { maxAttempts: 3, initialBackoff: '0.05s', maxBackoff: '0.5s', backoffMultiplier: 2, retryableStatusCodes: ['UNAVAILABLE'] },
  }],
};

/** The grpc-js target and channel options for ENGINE_ADDRESS (already validated by the gateway's config). */
export function engineChannel(engineAddress: string): { target: string; options: ChannelOptions } {
  const target = parseEngineTarget(engineAddress, 'ENGINE_ADDRESS');
  const single = typeof target === 'string' || target.kind === 'single';
  // One host:port is one engine, as it always was: the first of its addresses that connects (pick_first).
  const serviceConfig = { loadBalancingConfig: [single ? { pick_first: {} } : { round_robin: {} }], ...METHOD_CONFIG };
  const options = { 'grpc.service_config': JSON.stringify(serviceConfig), 'grpc.service_config_disable_resolution': 1 }; // never replaced by DNS TXT records
  if (typeof target === 'string' || target.kind !== 'list' || /^ipv[46]:/.test(engineAddress)) return { target: engineAddress, options };
  registerListResolver();
  return { target: `${LIST_SCHEME}:${target.addresses.join(',')}`, options };
}

let registered = false;
function registerListResolver(): void {
  if (registered) return;
  registered = true;
  experimental.registerResolver(LIST_SCHEME, EngineListResolver);
}

/** A name that did not resolve is looked up again after this long, milliseconds. */
const RETRY_LOOKUP_MS = 5000;

/** `threshold-engines:host:port,host:port`: one endpoint per entry, with every address of its name. */
class EngineListResolver implements experimental.Resolver {
  private generation = 0;
  private retry: NodeJS.Timeout | null = null;
  private readonly entries: { host: string; port: number }[];

  constructor(target: experimental.GrpcUri, private readonly listener: experimental.ResolverListener, _options: ChannelOptions) {
    this.entries = target.path.split(',').map((entry) => {
      const split = entry.lastIndexOf(':');
      return { host: entry.slice(0, split).replace(/^\[|\]$/g, ''), port: Number(entry.slice(split + 1)) };
    });
  }

  updateResolution(): void {
    const generation = ++this.generation;
    void Promise.allSettled(this.entries.map(async ({ host, port }) => {
      const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
      return { addresses: addresses.map(({ address }) => ({ host: address, port })) };
    })).then((results) => {
      if (generation !== this.generation) return;
      const endpoints = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      const failed = results.flatMap((result, index) => (result.status === 'rejected' ? [`${this.entries[index]!.host}: ${(result.reason as Error).message}`] : []));
      if (failed.length > 0) {
        this.retry ??= setTimeout(() => {
          this.retry = null;
          this.updateResolution();
        }, RETRY_LOOKUP_MS).unref();
      }
      if (endpoints.length === 0) {
        this.listener(experimental.statusOrFromError({ code: status.UNAVAILABLE, details: `engine addresses did not resolve: ${failed.join('; ')}`, metadata: new Metadata() }), {}, null, '');
      } else {
        this.listener(experimental.statusOrFromValue(endpoints), {}, null, failed.join('; '));
      }
    });
  }

  destroy(): void {
    this.generation++;
    if (this.retry !== null) clearTimeout(this.retry);
    this.retry = null;
  }

  static getDefaultAuthority(target: experimental.GrpcUri): string {
    return target.path.split(',')[0]!;
  }
}
