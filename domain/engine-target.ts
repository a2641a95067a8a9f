/**
 * ENGINE_ADDRESS as a gRPC target: where gateways find their engines. Three forms:
 *
 * - one `host:port` (the default `127.0.0.1:50051`): one engine, the engine's own listen address too;
 * - a comma-separated list `host:port,host:port` (or grpc-js's own `ipv4:1.2.3.4:50051,5.6.7.8:50051` /
 *   `ipv6:[::1]:50051,…`): each entry one engine, its name resolved on its own;
 * - `dns:///engines.internal:50051` (or `dns://resolver/host:port`, `dns:host:port`): every address the
 *   name resolves to is one engine (a headless service, a compose service with replicas), looked up again
 *   when an engine goes away.
 *
 * Parsing only: the gateway's engine client turns a target into a channel (gateway/engine-client.ts), the
 * engine reads its listen address from ENGINE_LISTEN_ADDRESS, defaulting to ENGINE_ADDRESS when that is one
 * `host:port` (engine/config.ts). test/gateway/config.test.ts and test/engine/config.test.ts keep it honest.
 */
import { isIP } from 'node:net';
import { isHostPort } from './env.js';

export type EngineTarget =
  /** One engine at `address`. */
  | { kind: 'single'; address: string }
  /** Each entry one engine (`host:port`, IPv6 in brackets). */
  | { kind: 'list'; addresses: string[] }
  /** Every address `host` resolves to is an engine on `port`; `authority` is the DNS server to ask, if named. */
  | { kind: 'dns'; host: string; port: number; authority: string };

/** The target, or the problem with it (naming the variable). */
export function parseEngineTarget(raw: string, name: string): EngineTarget | string {
  const forms = `one host:port, a comma-separated list of host:port, or dns:///host:port (got '${raw}')`;
  const ip = /^(ipv4|ipv6):(.+)$/.exec(raw);
  if (ip !== null) {
    const entries = ip[2]!.split(',').map((entry) => entry.trim());
    const family = ip[1] === 'ipv4' ? 4 : 6;
    const bad = entries.find((entry) => !isHostPort(entry) || isIP(entry.slice(0, entry.lastIndexOf(':')).replace(/^\[|\]$/g, '')) !== family);
    if (bad !== undefined) return `${name}: ${ip[1]}: takes ${ip[1]} addresses with ports, like ${family === 4 ? '10.0.0.5:50051' : '[fd00::5]:50051'} (got '${bad}')`;
    return { kind: 'list', addresses: entries };
  }
  const dns = /^dns:(?:\/\/([^/]*)\/)?(.+)$/.exec(raw);
  if (dns !== null) {
    const hostPort = dns[2]!;
    if (!isHostPort(hostPort) || Number(hostPort.slice(hostPort.lastIndexOf(':') + 1)) === 0) {
      return `${name}: a dns: target names one host and its port, like dns:///engines.internal:50051 (got '${raw}')`;
    }
    return { kind: 'dns', host: hostPort.slice(0, hostPort.lastIndexOf(':')).replace(/^\[|\]$/g, ''), port: Number(hostPort.slice(hostPort.lastIndexOf(':') + 1)), authority: dns[1] ?? '' };
  }
  if (/^(unix|unix-abstract|vsock|xds|[a-z][a-z0-9+.-]*(?=:\/)):/i.test(raw)) return `${name} must be ${forms}: unsupported scheme`;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length === 1) return isHostPort(raw) ? { kind: 'single', address: raw } : `${name} must be ${forms}`;
  const bad = entries.find((entry) => !isHostPort(entry) || entry.endsWith(':0'));
  if (bad !== undefined) return `${name}: every entry of a list is host:port with a port from 1 to 65535 (got '${bad}')`;
  if (new Set(entries).size !== entries.length) return `${name} lists an engine twice (got '${raw}')`;
  return { kind: 'list', addresses: entries };
}

/** True when the target names one engine by its `host:port` (today's form: the engine can listen there too). */
export function isSingleEngine(raw: string): boolean {
  const target = parseEngineTarget(raw, 'ENGINE_ADDRESS');
  return typeof target !== 'string' && target.kind === 'single';
}
