import { readFileSync } from 'node:fs';
import path from 'node:path';
import { missingPath, skipUnless, suite, test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import {
  canonicalSport, formatSport, isKnownSport, parseSport, rootSport, sportFromFit, sportLabel, sportMatches,
  sportMatchesAny, sportSchema, sportStorePrefix, taxonomyVersion,
} from '../../domain/sport.js';
import { REPO_ROOT, SHARED } from '../support/paths.js';

test('parses a code with modifiers, sorting and de-duplicating the modifiers', () => {
  assert.equal(parseSport('cycling'), { code: 'cycling', modifiers: [] });
  assert.equal(parseSport('xc_skiing.skate+roller'), { code: 'xc_skiing.skate', modifiers: ['roller'] });
  assert.equal(parseSport('cycling+virtual+stationary+virtual'), { code: 'cycling', modifiers: ['stationary', 'virtual'] });
  assert.is(formatSport({ code: 'running', modifiers: ['virtual', 'stationary'] }), 'running+stationary+virtual');
});

test('rejects malformed sport strings', () => {
  for (const text of [
    '', 'Cycling', 'CYCLING', 'cycling.Road', ' cycling', 'cycling ', 'cycling road', 'cycling.', '.cycling',
    'cycling..road', 'cycling++stationary', 'cycling+', '+stationary', 'cycling+Stationary', 'cycling_',
    '_cycling', 'cycling__road', 'cycling-road', 'cycling2', 'cycling+stationary.road', 'cyclingé', 'cycling/road',
  ]) {
    assert.is(parseSport(text), null, JSON.stringify(text));
    assert.is(canonicalSport(text), null, JSON.stringify(text));
  }
});

test('maps every legacy value of gaps "Sports" before canonicalising', () => {
  const cases: [string, string][] = [
    ['cycling.trainer', 'cycling+stationary'],
    ['running.treadmill', 'running+stationary'],
    ['rowing.ergometer', 'rowing+stationary'],
    ['cycling.tt', 'cycling.time_trial'],
    ['cycling.mountainbike', 'cycling.mountain'],
    ['cross_country_skiing', 'xc_skiing'],
    ['cross_country_skiing.classic', 'xc_skiing.classic'],
    ['cross_country_skiing.skate', 'xc_skiing.skate'],
    ['cross_country_skiing.double_poling', 'xc_skiing.double_poling'],
    ['unknown', 'generic'],
  ];
  for (const [legacy, canonical] of cases) assert.is(canonicalSport(legacy), canonical, legacy);
});

test('merges a legacy value\'s own modifiers with the ones its rename adds', () => {
  assert.is(canonicalSport('cycling.trainer+virtual'), 'cycling+stationary+virtual');
  assert.is(canonicalSport('running.treadmill+virtual+race'), 'running+race+stationary+virtual');
  assert.is(canonicalSport('cycling.trainer+stationary'), 'cycling+stationary');
  assert.is(canonicalSport('cross_country_skiing.skate+roller'), 'xc_skiing.skate+roller');
  assert.is(canonicalSport('cycling.tt+race'), 'cycling.time_trial+race');
  assert.is(canonicalSport('unknown+test'), 'generic+test');
});

test('renames only the legacy codes themselves, not look-alikes', () => {
  assert.is(canonicalSport('cross_country_skiing_extreme'), 'cross_country_skiing_extreme');
  assert.is(canonicalSport('cycling.trainers'), 'cycling.trainers');
  assert.is(canonicalSport('unknowns'), 'unknowns');
  assert.is(canonicalSport('running+treadmill'), 'running+treadmill');
});

test('preserves unknown but well-formed sports and canonicalises their modifiers', () => {
  assert.is(canonicalSport('paragliding'), 'paragliding');
  assert.is(canonicalSport('cycling.road.crit+race'), 'cycling.road.crit+race');
  assert.is(canonicalSport('climbing.mountain+solo+group'), 'climbing.mountain+group+solo');
  assert.is(canonicalSport('cycling+commute+race'), 'cycling+commute+race'); // group clash is not a rejection
  assert.is(canonicalSport('running+zzz+aaa+zzz'), 'running+aaa+zzz');
});

test('matches sub-sports by code descent and modifier superset (SOURCE.md examples)', () => {
  assert.ok(sportMatches('xc_skiing.skate+roller', 'xc_skiing'));
  assert.not.ok(sportMatches('cycling.road', 'cycling+stationary'));
  assert.not.ok(sportMatches('hand_cycling', 'cycling'));
});

test('matches containment in the other documented cases', () => {
  assert.ok(sportMatches('cycling', 'cycling'));
  assert.ok(sportMatches('cycling.road+race', 'cycling'));
  assert.ok(sportMatches('cycling.road+race', 'cycling+race'));
  assert.ok(sportMatches('cycling.road+race', 'cycling.road'));
  assert.ok(sportMatches('cycling.road.crit', 'cycling.road'));
  assert.ok(sportMatches('cycling+stationary+virtual', 'cycling+stationary'));
  assert.ok(sportMatches('xc_skiing+roller', 'xc_skiing'), 'roller skiing is a sub-sport of XC skiing');
  assert.not.ok(sportMatches('cycling', 'cycling.road'));
  assert.not.ok(sportMatches('cycling_x', 'cycling'));
  assert.not.ok(sportMatches('cycling+stationary', 'cycling+stationary+virtual'));
  assert.not.ok(sportMatches('running', 'cycling'));
});

test('canonicalises both sides of a match, legacy values included', () => {
  assert.ok(sportMatches('cycling+stationary', 'cycling.trainer'));
  assert.ok(sportMatches('cycling.trainer', 'cycling+stationary'));
  assert.ok(sportMatches('xc_skiing.classic', 'cross_country_skiing'));
  assert.ok(sportMatches('running+virtual+stationary', 'running+stationary+virtual'));
  assert.not.ok(sportMatches('Cycling', 'cycling'));
  assert.not.ok(sportMatches('cycling', 'cycling.'));
});

test('matches any of several filters', () => {
  assert.ok(sportMatchesAny('running.trail', ['cycling', 'running']));
  assert.not.ok(sportMatchesAny('swimming', ['cycling', 'running']));
  assert.not.ok(sportMatchesAny('swimming', []));
});

test('gives the store prefix that every matching canonical sport starts with', () => {
  assert.is(sportStorePrefix('cycling'), 'cycling');
  assert.is(sportStorePrefix('cycling+stationary'), 'cycling');
  assert.is(sportStorePrefix('cycling.trainer'), 'cycling');
  assert.is(sportStorePrefix('cross_country_skiing.skate'), 'xc_skiing.skate');
  assert.is(sportStorePrefix('CYCLING'), null);
  const stored = ['cycling', 'cycling.road+race', 'cycling+stationary', 'cycling_x', 'hand_cycling', 'running'];
  for (const filter of ['cycling', 'cycling+stationary', 'cycling.road']) {
    const prefix = sportStorePrefix(filter) as string;
    for (const sport of stored) {
      if (sportMatches(sport, filter)) assert.ok(sport.startsWith(prefix), `${sport} under ${filter}`);
    }
  }
});

test('gives the root sport without modifiers', () => {
  assert.is(rootSport('cycling.road+race'), 'cycling');
  assert.is(rootSport('cycling+stationary'), 'cycling');
  assert.is(rootSport('running'), 'running');
  assert.is(rootSport('cross_country_skiing.skate'), 'xc_skiing');
  assert.is(rootSport('Running'), null);
});

test('labels catalogue entries verbatim and composes the rest', () => {
  const cases: [string, string][] = [
    ['cycling+stationary', 'indoor cycling'],
    ['xc_skiing.skate+roller', 'skate roller skiing'],
    ['xc_skiing', 'XC skiing'],
    ['cycling.road+race', 'road cycling (race)'],
    ['cycling.road+race+stationary', 'road cycling (race, stationary)'],
    ['climbing.mountain+solo', 'climbing mountain (solo)'],
    ['paragliding+zzz_top', 'paragliding (zzz_top)'],
    ['running.fell_race', 'running fell race'],
    ['cycling.trainer', 'indoor cycling'],
    ['unknown', 'generic'],
  ];
  for (const [sport, label] of cases) assert.is(sportLabel(sport), label, sport);
  assert.is(sportLabel('Cycling'), null);
});

test('tells known sports from unknown ones without rejecting the unknown', () => {
  assert.ok(isKnownSport('cycling'));
  assert.ok(isKnownSport('cycling.road+race'));
  assert.ok(isKnownSport('xc_skiing+roller'));
  assert.ok(isKnownSport('cycling.trainer'));
  assert.not.ok(isKnownSport('paragliding'));
  assert.not.ok(isKnownSport('cycling.road.crit'));
  assert.not.ok(isKnownSport('Cycling'));
  assert.is(taxonomyVersion(), '0.10.0');
});

test('decodes FIT sport/sub_sport pairs through garmin_fit.yaml', () => {
  const cases: [number, number, string, string][] = [
    [0, 0, 'generic', 'generic row'],
    [1, 0, 'running.road', 'opinionated generic running'],
    [1, 1, 'running+stationary', 'treadmill'],
    [1, 2, 'running.road', 'legacy street synonym'],
    [1, 3, 'running.trail', 'trail'],
    [1, 45, 'running', 'indoor running'],
    [1, 58, 'running+stationary+virtual', 'virtual run'],
    [2, 0, 'cycling.road', 'opinionated generic cycling'],
    [2, 5, 'cycling+stationary', 'spin, non-preferred synonym'],
    [2, 6, 'cycling+stationary', 'indoor cycling'],
    [2, 12, 'hand_cycling', 'hand cycling is its own modality'],
    [2, 47, 'cycling.mountain+assisted', 'e-MTB'],
    [4, 6, 'cycling+stationary', 'fitness equipment / indoor cycling'],
    [4, 14, 'rowing+stationary', 'indoor rowing'],
    [4, 15, 'generic', 'elliptical: sport null → fallback.decode'],
    [5, 17, 'swimming.pool', 'lap swimming'],
    [10, 20, 'generic', 'strength training: null row'],
    [12, 0, 'xc_skiing.classic', 'generic XC defaults to classic'],
    [12, 42, 'xc_skiing.skate', 'skate skiing'],
    [15, 14, 'rowing+stationary', 'rowing / indoor rowing'],
    [17, 0, 'walking.hiking', 'hiking'],
    [21, 28, 'cycling+assisted', 'e-bike fitness'],
    [2, 99, 'cycling.road', 'unknown sub_sport: reset sub_sport → (2, 0)'],
    [5, 200, 'swimming', 'unknown sub_sport: reset sub_sport → (5, 0)'],
    [53, 99, 'generic', 'unknown sub_sport of a null sport: (53, 0) is null → fallback'],
    [99, 99, 'generic', 'unmapped: (99, 0) misses, (0, 0) is generic'],
    [99, 0, 'generic', 'unmapped sport with sub_sport 0: first rule is a no-op'],
    [254, 254, 'generic', 'invalid values'],
    [Number.NaN, 1, 'generic', 'not a number'],
  ];
  for (const [sport, subSport, expected, why] of cases) {
    assert.is(sportFromFit(sport, subSport), expected, `(${sport}, ${subSport}) ${why}`);
  }
});

test('decodes every row of the mapping to a canonical sport or generic', () => {
  const yaml = readFileSync(path.join(REPO_ROOT, 'domain/data/open-sport-taxonomy/mappings/garmin_fit.yaml'), 'utf8');
  const rows = [...yaml.matchAll(/target: \{ sport: +(\d+), sub_sport: +(\d+) \}.*\n +sport: (\S+)/g)];
  assert.is(rows.length, 146);
  for (const [, sport, subSport, ost] of rows) {
    const expected = ost === 'null' ? 'generic' : ost;
    assert.is(sportFromFit(Number(sport), Number(subSport)), expected, `(${sport}, ${subSport})`);
  }
});

test('sportSchema canonicalises valid input and rejects malformed input with the OST message', () => {
  assert.is(sportSchema.parse('cycling.trainer'), 'cycling+stationary');
  assert.is(sportSchema.parse('running+virtual+stationary'), 'running+stationary+virtual');
  assert.is(sportSchema.parse('paragliding'), 'paragliding');
  for (const text of ['Cycling', 'cycling.', 'cycling++stationary', ' running']) {
    const result = sportSchema.safeParse(text);
    assert.not.ok(result.success, text);
    assert.equal(result.error?.issues.map((issue) => issue.message), ['not a valid Open Sport Taxonomy sport'], text);
  }
  const query = z.object({ sport: z.array(sportSchema) }).parse({ sport: ['cycling.tt', 'xc_skiing'] });
  assert.equal(query.sport, ['cycling.time_trial', 'xc_skiing']);
});

test('sportSchema shows as a string with the grammar as pattern in JSON Schema', () => {
  const schema = z.toJSONSchema(sportSchema, { io: 'input' });
  assert.is(schema.type, 'string');
  const pattern = new RegExp(schema.pattern as string);
  assert.ok(pattern.test('xc_skiing.skate+roller'));
  assert.not.ok(pattern.test('Cycling'));
});

test.run();

const SHARED_TAXONOMY = path.join(SHARED, 'data/open-sport-taxonomy');
const sharedTaxonomy = suite('shared taxonomy data');
skipUnless(missingPath('the shared Open Sport Taxonomy data to compare the bundled copy with', SHARED_TAXONOMY), sharedTaxonomy);

sharedTaxonomy('bundles byte-identical copies of the shared taxonomy data', () => {
  for (const file of ['schema.yaml', 'mappings/garmin_fit.yaml', 'LICENSE']) {
    const bundled = readFileSync(path.join(REPO_ROOT, 'domain/data/open-sport-taxonomy', file), 'utf8');
    const shared = readFileSync(path.join(SHARED_TAXONOMY, file), 'utf8');
    assert.ok(bundled === shared, file);
  }
});

sharedTaxonomy.run();
