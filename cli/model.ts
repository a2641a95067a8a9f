/**
 * `threshold model`: a user's physiological profile on a date as one JSON document, for batch jobs and
 * operators — the intensity-duration curve, the metabolic maps and the zones of every system, each exactly
 * as the HTTP endpoints publish it (a problem as `{problem: {code, detail}}` where the endpoint would answer
 * application/problem+json). Everything is asked of the engine over its gRPC contract, as the gateway asks
 * it: an engine already running (`--engine`) or one started in this process on a loopback port (no
 * background jobs) and stopped afterwards. Kept honest by test/cli/threshold.test.ts.
 */
import { createLogger } from '../domain/logger.js';
import { loadEngineConfig } from '../engine/config.js';
import { startEngine } from '../engine/server.js';
import { ZONE_SYSTEM_NAMES, type GetZonesResponse } from '../engine/contract.js';
import { EngineClient } from '../gateway/engine-client.js';
import { presentMetabolicMap, type PublishedMap } from '../gateway/presenters/metabolic-map.js';
import type { Store } from '../storage/store.js';

/** The quantities each sport is modelled in: its curve's and every map's (interface §4 "Profile"). */
const QUANTITIES = {
  cycling: { curve: 'power', maps: ['power', 'heart_rate', 'vo2'] },
  running: { curve: 'speed', maps: ['speed', 'power', 'heart_rate', 'vo2'] },
} as const;

export type ModelSport = keyof typeof QUANTITIES;
export const MODEL_SPORTS = Object.keys(QUANTITIES) as ModelSport[];

type Problem = { problem: { code: string; detail: string } };

export interface ModelReport {
  user_id: string;
  date: string;
  sport: ModelSport;
  algorithms: Record<string, string>;
  intensity_duration_model: { quantity: string; curve: { duration: number; intensity: number }[] };
  metabolic_maps: Record<string, PublishedMap | Problem>;
  zones: Record<string, { zones: GetZonesResponse['zones'] } | Problem>;
}

export async function modelReport(
  store: Store, env: Record<string, string | undefined>, request: { userId: string; date: string; sport: ModelSport; engineAddress?: string },
): Promise<ModelReport> {
  const config = loadEngineConfig(env);
  const engine = request.engineAddress
    ? null
    : await startEngine({ config: { ...config, jobs: false }, store, logger: createLogger({ level: 'silent', name: 'threshold' }), address: '127.0.0.1:0' });
  const client = new EngineClient(request.engineAddress ?? engine!.address, { token: config.engineToken, deadlineMs: 120_000 });
  try {
    return await report(client, request);
  } finally {
    client.close();
    await engine?.close();
  }
}

async function report(client: EngineClient, { userId, date, sport }: { userId: string; date: string; sport: ModelSport }): Promise<ModelReport> {
  const { curve: curveQuantity, maps } = QUANTITIES[sport];
  const algorithms: Record<string, string> = {};
  const curve = await client.intensityDurationModel({ user_id: userId, quantity: curveQuantity, sport, date, durations: [], all_durations: false });
  algorithms.intensity_duration_model = curve.algorithm;
  const metabolicMaps: ModelReport['metabolic_maps'] = {};
  for (const quantity of maps) {
    const map = await client.metabolicMap({ user_id: userId, quantity, sport, date });
    algorithms.metabolic_map = map.algorithm;
    metabolicMaps[quantity] = map.problem !== ''
      ? { problem: { code: map.problem, detail: map.problem_detail } }
      : presentMetabolicMap(quantity, map);
  }
  const zones: ModelReport['zones'] = {};
  for (const system of ZONE_SYSTEM_NAMES) {
    for (const quantity of [curveQuantity, 'heart_rate'] as const) {
      const answer = await client.zones({ user_id: userId, sport, quantity, zone_system: system, date });
      algorithms.zones = answer.algorithm;
      if (answer.problem?.code === 'unsupported_quantity') continue;
      zones[`${system}/${quantity}`] = answer.problem ? { problem: { code: answer.problem.code, detail: answer.problem.detail } } : { zones: answer.zones };
    }
  }
  return {
    user_id: userId, date, sport, algorithms,
    intensity_duration_model: { quantity: curveQuantity, curve: curve.curve.map(({ duration, intensity }) => ({ duration, intensity })) },
    metabolic_maps: metabolicMaps, zones,
  };
}
