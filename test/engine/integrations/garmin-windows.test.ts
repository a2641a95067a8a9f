/** Garmin's time windows: whole Unix seconds, newest first, never wider than the type allows. */
import assert from 'node:assert/strict';
import { test } from '../../support/uvu.js';
import { ACTIVITY_BACKFILL_WINDOW_SECONDS, DAY_SECONDS, toUnixSeconds, windowsNewestFirst } from '../../../engine/integrations/garmin/windows.js';

test('cuts a span into windows of at most the width, newest first, covering it exactly', () => {
  const end = 1_768_478_400;
  const start = end - 75 * DAY_SECONDS;
  const windows = windowsNewestFirst(start, end, ACTIVITY_BACKFILL_WINDOW_SECONDS);
  assert.deepEqual(windows, [
    { start: end - 30 * DAY_SECONDS, end },
    { start: end - 60 * DAY_SECONDS, end: end - 30 * DAY_SECONDS },
    { start, end: end - 60 * DAY_SECONDS },
  ]);
  assert.deepEqual(windowsNewestFirst(start, start, DAY_SECONDS), []);
});

test('refuses milliseconds-looking fractions and converts milliseconds to whole seconds', () => {
  assert.equal(toUnixSeconds(1_768_478_400_999), 1_768_478_400);
  assert.throws(() => windowsNewestFirst(0.5, 10, 5), RangeError);
});

test.run();
