/**
 * Speed without GPS spikes (ANALYTICS.md §1.3, issue 25 item 6) on every activity of the FIT corpus
 * (test/fixtures/fit, plus the GPL folder of ../shared/data/fit when present; test/support/speed-bests.ts):
 * no run's 1 s best above the foot cap, an activity with a speed channel never faster than its channel, and
 * the spike filter alone (channel dropped) within the cap too. Before §1.3 the corpus had runs at 13.41 and
 * 41.75 m/s. The endpoints: test/gateway/speed-spikes.test.ts.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { isFootSport } from '../../domain/sport.js';
import { SPEED_CAPS_MPS } from '../../engine/kernels/canonical.js';
import { BEST_DURATIONS, corpusSpeedBests, type SpeedBests } from '../support/speed-bests.js';

let all: SpeedBests[] = [];

test.before(async () => {
  all = await corpusSpeedBests();
});

test('no run of the corpus has a 1 s speed best above 11 m/s, the foot cap of §1.3, from its channel or from its distance alone', () => {
  const runs = all.filter((row) => isFootSport(row.sport));
  assert.ok(runs.length >= 20, `${runs.length} runs in the corpus`);
  for (const run of runs) {
    assert.ok(run.after[0]! <= SPEED_CAPS_MPS.foot, `${run.name}: 1 s best ${run.after[0]} m/s`);
    if (run.distanceOnly !== null) assert.ok(run.distanceOnly[0]! <= SPEED_CAPS_MPS.foot, `${run.name} from distance alone: 1 s best ${run.distanceOnly[0]} m/s`);
  }
  // What the distance gave before: the fēnix 2 run at 41.75 m/s, the 8:23 /km run at 13.41 m/s.
  assert.ok(runs.some((run) => run.before[0]! > SPEED_CAPS_MPS.foot), 'the re-enacted old rule still shows the spikes');
});

test('an activity with a speed channel takes its speed from it: no best faster than the channel\'s largest value', () => {
  const channelled = all.filter((row) => row.source === 'channel');
  assert.ok(channelled.length >= 50, `${channelled.length} activities with a speed channel`);
  for (const row of channelled) {
    BEST_DURATIONS.forEach((duration, j) => {
      const best = row.after[j]!;
      if (!Number.isNaN(best)) assert.ok(best <= row.channelMax + 1e-9, `${row.name} (${row.sport}): ${duration} s best ${best} m/s above the channel's ${row.channelMax}`);
    });
  }
});

test('the 8:23 /km run of the issue reads its watch: 1 s best 5.22 m/s (was 13.41), 5 s best at most that (was 7.10)', () => {
  const run = all.find((row) => row.name === 'python-fitparse/2013-02-06-12-11-14.fit#0')!;
  assert.is(run.source, 'channel');
  assert.ok(Math.abs(run.before[0]! - 13.41) < 0.005, `before: ${run.before[0]}`);
  assert.ok(Math.abs(run.after[0]! - run.channelMax) < 1e-9, `${run.after[0]} vs the channel's ${run.channelMax}`);
  assert.ok(Math.abs(run.after[0]! - 5.22) < 0.005, `${run.after[0]}`);
  assert.ok(run.after[2]! <= run.after[0]!, `5 s ${run.after[2]} vs 1 s ${run.after[0]}`);
});

test('a channel that never leaves 0 is no channel: the snorkeling file\'s speed comes from its distance, its 15 m/s jump removed', () => {
  // Snorkeling (sport generic, cap 60 m/s): the 15 m in one second is an out-and-back of the filter, not a cap.
  const snorkel = all.find((row) => row.name === 'fit-file-parser/snorkeling-unknown-sport.fit#0')!;
  assert.is(snorkel.source, 'distance');
  assert.is(snorkel.channelMax, 0);
  assert.ok(snorkel.before[0]! >= 15, `before: ${snorkel.before[0]}`);
  assert.ok(snorkel.after[0]! <= 3, `after: 1 s best ${snorkel.after[0]}`);
  assert.ok(snorkel.after[2]! <= 1 + 1e-9 && snorkel.before[2]! >= 3, `5 s best ${snorkel.before[2]} → ${snorkel.after[2]}`);
});

test.run();
