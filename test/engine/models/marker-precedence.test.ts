/**
 * Marker precedence (ANALYTICS.md §7), one row per rule of engine/models/marker-precedence.ts. The query
 * date is 2024-06-30: 2024-04-02 is 89 days before it (the oldest fresh day), 2024-04-01 is 90 days before
 * it (the newest stale day).
 */
import * as assert from 'uvu/assert';
import { test } from '../../support/uvu.js';
import { daysBetween } from '../../../domain/time.js';
import { resolveMarker, type MarkerCandidate, type ResolvedMarker } from '../../../engine/models/marker-precedence.js';

const DATE = '2024-06-30';
const OLDEST_FRESH = '2024-04-02';
const NEWEST_STALE = '2024-04-01';

function value(provenance: MarkerCandidate['provenance'], date: string, v: number, extra: Partial<MarkerCandidate> = {}): MarkerCandidate {
  return { value: v, provenance, date, pinned: false, ...extra };
}

interface Row {
  rule: string;
  candidates: MarkerCandidate[];
  modeled?: number | null;
  expected: ResolvedMarker | null;
}

const ROWS: Row[] = [
  { rule: 'nothing stored and no model → null', candidates: [], expected: null },
  { rule: 'only a model → the model', candidates: [], modeled: 250, expected: { value: 250, provenance: 'modeled' } },
  { rule: 'a modeled value of null counts as no model', candidates: [], modeled: null, expected: null },
  {
    rule: 'a fresh measured value beats the model',
    candidates: [value('measured', '2024-06-01', 260)], modeled: 250, expected: { value: 260, provenance: 'measured' },
  },
  {
    rule: 'a fresh declared value beats the model',
    candidates: [value('declared', '2024-06-01', 270)], modeled: 250, expected: { value: 270, provenance: 'declared' },
  },
  {
    rule: 'a value dated on the query date itself is fresh',
    candidates: [value('declared', DATE, 271)], modeled: 250, expected: { value: 271, provenance: 'declared' },
  },
  {
    rule: 'a value 89 days old is fresh (the window\'s first day) and beats the model',
    candidates: [value('measured', OLDEST_FRESH, 261)], modeled: 250, expected: { value: 261, provenance: 'measured' },
  },
  {
    rule: 'a value 90 days old is stale and yields to the model',
    candidates: [value('measured', NEWEST_STALE, 262)], modeled: 250, expected: { value: 250, provenance: 'modeled' },
  },
  {
    rule: 'a pinned declared value never goes stale: a year old, it still beats the model',
    candidates: [value('declared', '2023-06-30', 280, { pinned: true })], modeled: 250, expected: { value: 280, provenance: 'declared' },
  },
  {
    rule: 'no model: the most recent stale value wins over an older stale one',
    candidates: [value('measured', '2023-01-10', 240), value('declared', '2024-02-01', 245), value('measured', '2023-12-01', 241)],
    expected: { value: 245, provenance: 'declared' },
  },
  {
    rule: 'no model: a stale measured value beats a fresh external one',
    candidates: [value('external', '2024-06-29', 300), value('measured', '2023-01-10', 240)],
    expected: { value: 240, provenance: 'measured' },
  },
  {
    rule: 'an external value loses to the model, however fresh',
    candidates: [value('external', DATE, 300)], modeled: 250, expected: { value: 250, provenance: 'modeled' },
  },
  {
    rule: 'an external value counts when nothing else does: the most recent one, stale or not',
    candidates: [value('external', '2024-06-20', 300), value('external', '2022-01-01', 310), value('external', '2024-06-25', 305)],
    expected: { value: 305, provenance: 'external' },
  },
  {
    rule: 'a pin does not lift an external value above the model',
    candidates: [value('external', '2024-06-25', 305, { pinned: true })], modeled: 250, expected: { value: 250, provenance: 'modeled' },
  },
  {
    rule: 'a value dated after the query date is ignored (the model wins)',
    candidates: [value('measured', '2024-07-01', 290)], modeled: 250, expected: { value: 250, provenance: 'modeled' },
  },
  {
    rule: 'a pinned value dated after the query date is ignored too',
    candidates: [value('declared', '2024-07-01', 290, { pinned: true }), value('measured', '2023-01-01', 230)],
    expected: { value: 230, provenance: 'measured' },
  },
  {
    rule: 'an external value dated after the query date is ignored, leaving nothing',
    candidates: [value('external', '2024-07-01', 290)], expected: null,
  },
  {
    rule: 'among fresh values the most recent date wins, declared over an older measured',
    candidates: [value('measured', '2024-05-01', 260), value('declared', '2024-06-01', 270)], modeled: 250,
    expected: { value: 270, provenance: 'declared' },
  },
  {
    rule: 'a newer fresh value beats an older pinned one (the pin keeps it fresh, not first)',
    candidates: [value('declared', '2023-06-30', 280, { pinned: true }), value('measured', '2024-06-10', 265)], modeled: 250,
    expected: { value: 265, provenance: 'measured' },
  },
  {
    rule: 'a pinned value wins over a newer stale one when there is no model (it is the only fresh one)',
    candidates: [value('declared', '2022-01-01', 280, { pinned: true }), value('measured', '2024-01-01', 255)],
    expected: { value: 280, provenance: 'declared' },
  },
  {
    rule: 'same date, measured and declared: measured wins, in either input order',
    candidates: [value('measured', '2024-06-01', 260), value('declared', '2024-06-01', 270)], modeled: 250,
    expected: { value: 260, provenance: 'measured' },
  },
  {
    rule: 'same date, declared then measured in the input: measured still wins',
    candidates: [value('declared', '2024-06-01', 270), value('measured', '2024-06-01', 260)], modeled: 250,
    expected: { value: 260, provenance: 'measured' },
  },
  {
    rule: 'same date and provenance: the later created_at wins',
    candidates: [value('declared', '2024-06-01', 275, { created_at: 2000 }), value('declared', '2024-06-01', 270, { created_at: 1000 })],
    expected: { value: 275, provenance: 'declared' },
  },
  {
    rule: 'same date and provenance without created_at: the later in the input wins',
    candidates: [value('declared', '2024-06-01', 270), value('declared', '2024-06-01', 275)],
    expected: { value: 275, provenance: 'declared' },
  },
  {
    rule: 'same tie among stale values (no model): measured over declared on the same date',
    candidates: [value('measured', '2024-01-01', 255), value('declared', '2024-01-01', 258)],
    expected: { value: 255, provenance: 'measured' },
  },
  {
    rule: 'a never-modeled marker (lt2, no model input) with only a stale value takes it',
    candidates: [value('measured', '2023-03-01', 4.1)], expected: { value: 4.1, provenance: 'measured' },
  },
];

test('the freshness edges of the table are the 89th and 90th days before the query date', () => {
  assert.is(daysBetween(OLDEST_FRESH, DATE), 89);
  assert.is(daysBetween(NEWEST_STALE, DATE), 90);
});

for (const row of ROWS) {
  test(`precedence: ${row.rule}`, () => {
    assert.equal(resolveMarker({ candidates: row.candidates, modeled: row.modeled, date: DATE }), row.expected);
  });
}

test('precedence does not depend on the order of the candidates when dates or provenances differ', () => {
  for (const row of ROWS) {
    const distinct = new Set(row.candidates.map((c) => `${c.date} ${c.provenance} ${c.created_at ?? ''}`)).size === row.candidates.length;
    if (!distinct) continue;
    const reversed = [...row.candidates].reverse();
    assert.equal(resolveMarker({ candidates: reversed, modeled: row.modeled, date: DATE }), row.expected, row.rule);
  }
});

test.run();
