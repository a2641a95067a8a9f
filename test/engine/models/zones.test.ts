/**
 * Training zones (ANALYTICS.md §8) against tables computed by hand, one per system and quantity; the
 * problems (unsupported quantity, missing markers, markers that contradict or collapse under rounding);
 * and, on seeded random markers, that the bounds are always contiguous, rounded and strictly increasing.
 */
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { random } from '../../support/kernels.js';
import { roundMarker } from '../../../engine/kernels/model-rounding.js';
import { ZONE_TABLES, type ZoneTable } from '../../support/zone-tables.js';
import {
  trainingZones, zoneMarkers, zoneQuantities, ZONE_SYSTEMS, type Zone, type ZoneMarker, type ZoneQuantity, type ZoneSystem,
} from '../../../engine/models/zones.js';

/** The model gives exactly the hand-computed table (test/support/zone-tables.ts, shared with the endpoint's test). */
function assertTable({ system, quantity, markers, rows }: ZoneTable): void {
  const result = trainingZones({ system, quantity, markers });
  if (!result.ok) throw new Error(`expected zones, got ${result.code}: ${result.detail}`);
  assert.equal(result.zones.map((z: Zone) => [z.name, z.label, z.lower, z.upper]), rows);
}

test('seven_zone power: Coggan levels at 0.55 … 1.50 of second_threshold 250 W, halves rounded up, top open', () => {
  assertTable(ZONE_TABLES.sevenZonePower);
});

test('seven_zone speed: second_threshold 4.15 m/s, bounds to 2 decimals with halves rounded up', () => {
  assertTable(ZONE_TABLES.sevenZoneSpeed);
});

test('three_zone power: Seiler, below first_threshold, between the thresholds, up to max_aerobic_power', () => {
  assertTable(ZONE_TABLES.threeZonePower);
});

test('three_zone speed: thresholds 3.456 and 4.104 m/s round to 3.46 and 4.1, capped at max_aerobic_speed', () => {
  assertTable(ZONE_TABLES.threeZoneSpeed);
});

test('three_zone heart rate: thresholds 142.4 and 167.5 bpm round to 142 and 168, capped at heart_rate_max', () => {
  assertTable(ZONE_TABLES.threeZoneHeartRate);
});

test('five_zone power: ±2 % bands around 200 and 280 W, capped at max_aerobic_power 350 W', () => {
  assertTable(ZONE_TABLES.fiveZonePower);
});

test('five_zone speed: ±2 % bands around 3.2 and 4.0 m/s, capped at max_aerobic_speed 4.8 m/s', () => {
  assertTable(ZONE_TABLES.fiveZoneSpeed);
});

test('five_zone heart rate: ±2 % bands around 150 and 172 bpm, capped at heart_rate_max 192', () => {
  assertTable(ZONE_TABLES.fiveZoneHeartRate);
});

test('olt_i_scale: I-1 … I-5 at 55, 72, 82, 87, 92, 100 % of heart_rate_max 190 bpm', () => {
  assertTable(ZONE_TABLES.oltIScale);
});

test('each system names the markers it reads, per quantity, and null where it is not offered', () => {
  assert.equal(zoneMarkers('seven_zone', 'power'), ['second_threshold']);
  assert.equal(zoneMarkers('seven_zone', 'speed'), ['second_threshold']);
  assert.is(zoneMarkers('seven_zone', 'heart_rate'), null);
  assert.equal(zoneMarkers('three_zone', 'power'), ['first_threshold', 'second_threshold', 'max_aerobic_power']);
  assert.equal(zoneMarkers('three_zone', 'speed'), ['first_threshold', 'second_threshold', 'max_aerobic_speed']);
  assert.equal(zoneMarkers('five_zone', 'heart_rate'), ['first_threshold', 'second_threshold', 'heart_rate_max']);
  assert.equal(zoneMarkers('olt_i_scale', 'heart_rate'), ['heart_rate_max']);
  assert.is(zoneMarkers('olt_i_scale', 'power'), null);
  assert.is(zoneMarkers('olt_i_scale', 'speed'), null);
});

test('a quantity the system does not offer is unsupported_quantity, naming the ones it does', () => {
  assert.equal(trainingZones({ system: 'seven_zone', quantity: 'heart_rate', markers: { second_threshold: 170 } }), {
    ok: false, code: 'unsupported_quantity', detail: 'zones: seven_zone is defined for power, speed, not heart_rate',
  });
  assert.equal(trainingZones({ system: 'olt_i_scale', quantity: 'power', markers: { heart_rate_max: 190 } }), {
    ok: false, code: 'unsupported_quantity', detail: 'zones: olt_i_scale is defined for heart_rate, not power',
  });
});

test('a marker without a value is missing_marker, every missing one named, null counted as missing', () => {
  assert.equal(trainingZones({ system: 'seven_zone', quantity: 'power', markers: {} }), {
    ok: false, code: 'missing_marker', markers: ['second_threshold'],
    detail: 'zones: seven_zone power zones need second_threshold, which has no value',
  });
  assert.equal(trainingZones({ system: 'five_zone', quantity: 'heart_rate', markers: { first_threshold: null, second_threshold: 172 } }), {
    ok: false, code: 'missing_marker', markers: ['first_threshold', 'heart_rate_max'],
    detail: 'zones: five_zone heart_rate zones need first_threshold and heart_rate_max, which have no value',
  });
  // A marker of another quantity's maximum does not stand in: speed needs max_aerobic_speed.
  const speed = trainingZones({ system: 'three_zone', quantity: 'speed', markers: { first_threshold: 3, second_threshold: 4, max_aerobic_power: 350 } });
  assert.equal(speed.ok ? null : speed.code, 'missing_marker');
});

test('markers that contradict each other are inconsistent_markers, not a table', () => {
  const code = (system: ZoneSystem, quantity: ZoneQuantity, markers: Partial<Record<ZoneMarker, number>>) => {
    const result = trainingZones({ system, quantity, markers });
    return result.ok ? 'ok' : result.code;
  };
  // first_threshold above second_threshold; equal thresholds (Z2 empty); max_aerobic_power below second_threshold.
  assert.is(code('three_zone', 'power', { first_threshold: 300, second_threshold: 280, max_aerobic_power: 350 }), 'inconsistent_markers');
  assert.is(code('three_zone', 'power', { first_threshold: 280, second_threshold: 280, max_aerobic_power: 350 }), 'inconsistent_markers');
  assert.is(code('three_zone', 'power', { first_threshold: 200, second_threshold: 280, max_aerobic_power: 270 }), 'inconsistent_markers');
  // Thresholds 3 % apart: 1.02 × 200 = 204 is above 0.98 × 206 = 201.88 → 202.
  assert.is(code('five_zone', 'power', { first_threshold: 200, second_threshold: 206, max_aerobic_power: 350 }), 'inconsistent_markers');
  // A zero or negative marker.
  assert.is(code('seven_zone', 'power', { second_threshold: 0 }), 'inconsistent_markers');
  assert.is(code('olt_i_scale', 'heart_rate', { heart_rate_max: -190 }), 'inconsistent_markers');
  assert.equal(trainingZones({ system: 'three_zone', quantity: 'power', markers: { first_threshold: 300, second_threshold: 280, max_aerobic_power: 350 } }), {
    ok: false, code: 'inconsistent_markers',
    detail: 'zones: three_zone power bounds must increase, got 0, 300, 280, 350 W from first_threshold 300, second_threshold 280, max_aerobic_power 350',
  });
});

test('rounding that would empty a zone is inconsistent_markers: 0.98 and 1.02 × 0.2 m/s both round to 0.20', () => {
  // Before rounding the bounds increase (0.196 < 0.204); after it Z2 would be [0.2, 0.2).
  const result = trainingZones({ system: 'five_zone', quantity: 'speed', markers: { first_threshold: 0.2, second_threshold: 4, max_aerobic_speed: 5 } });
  assert.equal(result.ok ? null : result.code, 'inconsistent_markers');
  // A whole-watt case: 0.55 and 0.75 × 1 W round to 1 W both.
  const power = trainingZones({ system: 'seven_zone', quantity: 'power', markers: { second_threshold: 1 } });
  assert.equal(power.ok ? null : power.code, 'inconsistent_markers');
});

test('on random markers, zones are contiguous, rounded, strictly increasing and start and end as defined', () => {
  const next = random(13);
  const ranges: Record<ZoneQuantity, [number, number]> = { power: [1, 600], speed: [0.05, 8], heart_rate: [30, 220] };
  let tables = 0;
  let refused = 0;
  for (let round = 0; round < 2000; round++) {
    for (const system of ZONE_SYSTEMS) {
      for (const quantity of zoneQuantities(system)) {
        const [low, high] = ranges[quantity];
        const markers: Partial<Record<ZoneMarker, number>> = {};
        for (const marker of zoneMarkers(system, quantity)!) markers[marker] = low + next() * (high - low);
        const result = trainingZones({ system, quantity, markers });
        if (!result.ok) {
          assert.is(result.code, 'inconsistent_markers', `${system} ${quantity} ${JSON.stringify(markers)}`);
          refused++;
          continue;
        }
        tables++;
        const zones = result.zones;
        const where = `${system} ${quantity} ${JSON.stringify(markers)}`;
        // From the published (rounded) maximum, as a client recomputes it from the map.
        assert.is(zones[0]!.lower, system === 'olt_i_scale' ? roundMarker(quantity, 0.55 * roundMarker(quantity, markers.heart_rate_max!)) : 0, where);
        for (let i = 0; i < zones.length; i++) {
          const zone = zones[i]!;
          assert.is(roundMarker(quantity, zone.lower), zone.lower, where);
          if (i < zones.length - 1) assert.is(zone.upper, zones[i + 1]!.lower, where);
          if (zone.upper === null) {
            assert.ok(system === 'seven_zone' && i === zones.length - 1, where);
          } else {
            assert.ok(zone.upper > zone.lower, where);
          }
        }
      }
    }
  }
  assert.ok(tables > 1000 && refused > 100, `tables ${tables}, refused ${refused}: both paths are exercised`);
});

test('bounds come from the markers as the map publishes them: a client recomputes each from the whole watts', () => {
  // From the unrounded values the bounds were 0.98 × 180.4 = 176.8 → 177 and 1.02 × 225.6 = 230.1 → 230, while
  // the map shows 180 and 226 W: a client computes 176.4 → 176 and 230.52 → 231.
  const result = trainingZones({ system: 'five_zone', quantity: 'power', markers: { first_threshold: 180.4, second_threshold: 225.6, max_aerobic_power: 300.3 } });
  if (!result.ok) throw new Error(result.detail);
  const published = { first_threshold: 180, second_threshold: 226, max_aerobic_power: 300 };
  const client = [0, 0.98 * published.first_threshold, 1.02 * published.first_threshold, 0.98 * published.second_threshold, 1.02 * published.second_threshold, published.max_aerobic_power]
    .map((bound) => roundMarker('power', bound));
  assert.equal(client, [0, 176, 184, 221, 231, 300]);
  assert.equal([result.zones[0]!.lower, ...result.zones.map((zone) => zone.upper)], client);
});

test('intensities round half up at the published resolution, despite binary noise', () => {
  assert.is(roundMarker('power', 137.5), 138);
  assert.is(roundMarker('power', 137.49), 137);
  assert.is(roundMarker('speed', 2.2055), 2.21); // 2.2055 × 100 is 220.54999… in binary
  assert.is(roundMarker('speed', 1.005), 1.01); // 1.005 × 100 is 100.49999… in binary
  assert.is(roundMarker('heart_rate', 167.5), 168);
});

test.run();
