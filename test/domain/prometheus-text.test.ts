/**
 * domain/prometheus-text.ts: joining expositions family by family, on texts prom-client writes itself
 * (two registries with the default collectors, one labelled process="engine", as the gateway and a
 * separate engine produce them).
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { mergeExpositions } from '../../domain/prometheus-text.js';

const declared = (text: string): string[] => text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' ')[2]!);

test('a family present in two texts is declared once and keeps the samples of both', async () => {
  const gateway = new Registry();
  const engine = new Registry();
  collectDefaultMetrics({ register: gateway });
  collectDefaultMetrics({ register: engine, labels: { process: 'engine' } });
  const merged = mergeExpositions([await gateway.metrics(), await engine.metrics()]);

  const names = declared(merged);
  assert.equal(names.length, new Set(names).size, 'no family declared twice');
  assert.equal(new Set(names), new Set(declared(await gateway.metrics())), 'the same families as either text');
  assert.is(merged.split('\n').filter((line) => line.startsWith('# HELP process_resident_memory_bytes ')).length, 1);
  const resident = merged.split('\n').filter((line) => line.startsWith('process_resident_memory_bytes'));
  assert.is(resident.length, 2);
  assert.match(resident[0]!, /^process_resident_memory_bytes \d+$/);
  assert.match(resident[1]!, /^process_resident_memory_bytes\{process="engine"\} \d+$/);
});

test('keeps the order of first appearance, histogram lines under their family, one blank line between families', async () => {
  const one = new Registry();
  const two = new Registry();
  new Counter({ name: 'a_total', help: 'A.', labelNames: ['side'], registers: [one] }).inc({ side: 'one' });
  new Histogram({ name: 'b_seconds', help: 'B.', buckets: [1], registers: [one] }).observe(0.5);
  new Counter({ name: 'c_total', help: 'C.', registers: [two] }).inc(2);
  new Counter({ name: 'a_total', help: 'A.', labelNames: ['side'], registers: [two] }).inc({ side: 'two' }, 3);
  assert.is(mergeExpositions([await one.metrics(), await two.metrics()]), [
    '# HELP a_total A.', '# TYPE a_total counter', 'a_total{side="one"} 1', 'a_total{side="two"} 3', '',
    '# HELP b_seconds B.', '# TYPE b_seconds histogram', 'b_seconds_bucket{le="1"} 1', 'b_seconds_bucket{le="+Inf"} 1', 'b_seconds_sum 0.5', 'b_seconds_count 1', '',
    '# HELP c_total C.', '# TYPE c_total counter', 'c_total 2', '',
  ].join('\n'));
});

test('an empty text adds nothing', async () => {
  const text = '# HELP up Up.\n# TYPE up gauge\nup 1\n';
  assert.is(mergeExpositions(['', text, '']), text);
});

test.run();
