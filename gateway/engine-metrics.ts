/**
 * Every engine's metrics in the gateway's `/metrics`, each engine reached on its own (not through the
 * balancer, which would answer for whichever engine it picked), so a dead engine shows as
 * `threshold_engine_up{engine="10.0.0.6:50051"} 0` while the others answer.
 *
 * Which engines: each entry of a list; for a `dns:` target, every address the name resolves to at scrape
 * time (an engine that leaves DNS leaves the scrape: watch `count(threshold_engine_up)` too). When
 * ENGINE_ADDRESS is one `host:port`, nothing is labelled (the series are what they were before several
 * engines were possible); when it names several, every engine's sample carries `engine="host:port"`. The
 * rule follows the configured form, not the number of engines at the moment, so series do not change
 * names when a replica count goes from 1 to 2. test/gateway/engines-balanced.test.ts keeps it honest.
 */
import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import { parseEngineTarget } from '../domain/engine-target.js';

/** One engine's answer to GetMetrics: `engine` null for the single-engine form (no label). */
export interface EngineScrape {
  engine: string | null;
  up: boolean;
  text: string;
}

/** The engines ENGINE_ADDRESS names now, each as a `host:port` reaching it alone; null for the single form. */
export async function engineInstances(engineAddress: string): Promise<string[] | null> {
  const target = parseEngineTarget(engineAddress, 'ENGINE_ADDRESS');
  if (typeof target === 'string' || target.kind === 'single') return null;
  if (target.kind === 'list') return target.addresses;
  const hostPort = (host: string): string => `${isIPv6(host) ? `[${host}]` : host}:${target.port}`;
  try {
    return (await lookup(target.host, { all: true })).map(({ address }) => hostPort(address));
  } catch {
    return [hostPort(target.host)]; // the name does not resolve: shown as one engine that is down
  }
}

/** `text` with `engine="…"` as the first label of every sample. */
export function labelSamples(text: string, engine: string): string {
  const label = engineLabel(engine);
  return text.split('\n').map((line) => {
    if (line === '' || line.startsWith('#')) return line;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{\}|\{)?(.*)$/.exec(line);
    if (match === null) return line;
    const [, name, brace, rest] = match;
    if (brace === '{') return `${name}{${label},${rest}`;
    return `${name}{${label}}${rest}`;
  }).join('\n');
}

/** The `threshold_engine_up` family: one sample per engine, labelled as its metrics are. */
export function engineUpExposition(scrapes: readonly EngineScrape[]): string {
  const samples = scrapes.map(({ engine, up }) => `threshold_engine_up${engine === null ? '' : `{${engineLabel(engine)}}`} ${up ? 1 : 0}`);
  return `# HELP threshold_engine_up Whether the engine answered the metrics call.\n# TYPE threshold_engine_up gauge\n${samples.join('\n')}\n`;
}

function engineLabel(engine: string): string {
  return `engine="${engine.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
