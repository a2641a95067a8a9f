/**
 * Heart rate stored apart from the records: HRM-Swim / HRM-Tri straps and some watches buffer beats
 * while under water and write them later as `hr` messages (FIT profile message 132), usually in FIT
 * files chained after the activity file. This expands those messages into timed samples and merges
 * them onto the records, as the FIT SDK's HrToRecordMesgBroadcastPlugin does.
 *
 * `hr` message layout (FIT profile): an anchor message carries `timestamp` + `fractional_timestamp`
 * (the wall-clock time) and `event_timestamp[0]` (the strap's clock, 1/1024 s); the following messages
 * carry up to 8 `filtered_bpm` values and their strap-clock times either as `event_timestamp[]` or
 * packed as 12-bit deltas in `event_timestamp_12` (low 12 bits of the 1/1024 s clock, rolling over).
 * A beat's wall-clock time = anchor time + (its strap time − the anchor's strap time).
 *
 * Merge rule (the SDK plugin's): a record gets the mean of the beats timed in (previous record, this
 * record], rounded to whole bpm (the first record takes the second before it); a record without beats
 * holds the last mean for up to 5 s after the last beat. Unlike the plugin, records that carry their own
 * heart rate keep it (native wins). fitdecode's garmin-fr935-cr.fit and
 * GoldenCheetah's swims-GarminHRMswim.FIT keep this honest (test/engine/fit-corpus.test.ts).
 */

const STRAP_TICKS_PER_S = 1024;
const TWELVE_BITS = 0x1000;
const TICKS_ROLLOVER = 2 ** 32;

export interface HeartRateSamples {
  /** UTC epoch milliseconds, non-decreasing. */
  times: Float64Array;
  /** bpm. */
  bpm: Float64Array;
}

type Message = Record<string, unknown>;

function numbers(value: unknown): (number | null)[] | null {
  if (typeof value === 'number') return [value];
  return Array.isArray(value) ? (value as (number | null)[]) : null;
}

/** Beats from `hr` messages in file order (messages of several chained files may be concatenated). */
export function heartRateSamples(messages: readonly Message[]): HeartRateSamples {
  const times: number[] = [];
  const bpm: number[] = [];
  let anchorMs = Number.NaN;
  let anchorTicks = Number.NaN;
  let lastTicks = Number.NaN;
  const push = (ticks: number, value: number | null | undefined) => {
    lastTicks = ticks;
    if (typeof value !== 'number' || !(value > 0) || value >= 255) return;
    let delta = ticks - anchorTicks;
    if (delta < -TICKS_ROLLOVER / 2) delta += TICKS_ROLLOVER; // the strap's 32-bit clock wrapped
    times.push(anchorMs + (delta * 1000) / STRAP_TICKS_PER_S);
    bpm.push(value);
  };

  for (const message of messages) {
    const filtered = numbers(message.filtered_bpm) ?? [];
    const events = numbers(message.event_timestamp);
    const timestamp = message.timestamp;
    if (timestamp instanceof Date && events !== null && typeof events[0] === 'number') {
      // Anchor: "timestamp + fractional_timestamp" is the wall-clock time of event_timestamp[0].
      const fraction = typeof message.fractional_timestamp === 'number' ? message.fractional_timestamp : 0;
      anchorMs = timestamp.getTime() + fraction * 1000;
      anchorTicks = Math.round(events[0] * STRAP_TICKS_PER_S);
      events.forEach((seconds, j) => {
        if (typeof seconds === 'number') push(Math.round(seconds * STRAP_TICKS_PER_S), filtered[j]);
      });
      continue;
    }
    if (Number.isNaN(anchorMs)) continue; // beats before any anchor cannot be placed
    if (events !== null) {
      events.forEach((seconds, j) => {
        if (typeof seconds === 'number') push(Math.round(seconds * STRAP_TICKS_PER_S), filtered[j]);
      });
      continue;
    }
    const packed = numbers(message.event_timestamp12);
    if (packed === null) continue;
    // fit-file-parser reports a 0xFF byte as null (its "invalid" value); inside packed bits it is data.
    const byte = (k: number) => packed[k] ?? 0xff;
    const count = Math.min(filtered.length, Math.floor((packed.length * 8) / 12));
    for (let j = 0; j < count; j++) {
      const k = (3 * j) >> 1;
      const low12 = j % 2 === 0 ? byte(k) | ((byte(k + 1) & 0x0f) << 8) : (byte(k) >> 4) | (byte(k + 1) << 4);
      const base = lastTicks - (lastTicks % TWELVE_BITS);
      let ticks = base + low12;
      if (ticks < lastTicks) ticks += TWELVE_BITS;
      push(ticks, filtered[j]);
    }
  }
  return sortedSamples(times, bpm);
}

function sortedSamples(times: number[], bpm: number[]): HeartRateSamples {
  let ordered = true;
  for (let i = 1; i < times.length && ordered; i++) ordered = times[i]! >= times[i - 1]!;
  if (ordered) return { times: Float64Array.from(times), bpm: Float64Array.from(bpm) };
  const order = times.map((_, i) => i).sort((a, b) => times[a]! - times[b]!);
  return { times: Float64Array.from(order, (i) => times[i]!), bpm: Float64Array.from(order, (i) => bpm[i]!) };
}

/** The FIT SDK fills a record without beats in its range with the last mean for up to this long (ms). */
const HOLD_MS = 5000;

/**
 * Fills NaN entries of `heartRate` (one per row of `timestamps`, UTC ms, strictly increasing) with the
 * mean of the beats in (previous row, row], or, when that range has no beat, with the last mean while
 * the previous row is less than 5 s after the last beat (the SDK plugin's hold). Returns the rows filled.
 */
export function mergeHeartRate(timestamps: Float64Array, heartRate: Float64Array, samples: HeartRateSamples): number {
  const { times, bpm } = samples;
  let filled = 0;
  let k = 0;
  let lastMean = Number.NaN;
  let lastBeat = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < timestamps.length; i++) {
    const end = timestamps[i]!;
    const start = i === 0 ? end - 1000 : timestamps[i - 1]!;
    while (k < times.length && times[k]! <= start) k++;
    let sum = 0;
    let count = 0;
    while (k < times.length && times[k]! <= end) {
      sum += bpm[k]!;
      lastBeat = times[k]!;
      count++;
      k++;
    }
    let value = Number.NaN;
    if (count > 0) {
      lastMean = Math.round(sum / count);
      value = lastMean;
    } else if (start > lastBeat && start - lastBeat < HOLD_MS) {
      value = lastMean;
    }
    if (value === value && Number.isNaN(heartRate[i]!)) {
      heartRate[i] = value;
      filled++;
    }
  }
  return filled;
}
