/**
 * A minimal FIT activity encoder for tests and benches that need many distinct real FIT files (provider
 * stand-ins serve them): file_id (activity), one record per second (timestamp, heart rate, power), a
 * session (sport, start, elapsed time) and the file CRC, in the FIT protocol's little-endian layout. The
 * engine's own decoder (engine/ingest/fit.ts) reads them; test/engine/integrations/intervals-icu.test.ts
 * and the crash test ingest them end to end.
 */
import { fitCrc } from '../../engine/ingest/fit-frame.js';

/** Seconds between the Unix epoch and the FIT epoch (1989-12-31T00:00:00Z). */
const FIT_EPOCH_S = 631_065_600;

export interface FitActivityOptions {
  /** Start, Unix ms. */
  start: number;
  /** Samples, one per second. */
  seconds: number;
  /** FIT sport enum: 2 cycling (default), 1 running. */
  sport?: number;
  /** Base power, W: makes files of different activities differ even at the same start. */
  power?: number;
}

export function fitActivity(options: FitActivityOptions): Uint8Array {
  const t0 = Math.floor(options.start / 1000) - FIT_EPOCH_S;
  const power = options.power ?? 200;
  const chunks: number[] = [];
  const u8 = (v: number) => chunks.push(v & 0xff);
  const u16 = (v: number) => chunks.push(v & 0xff, (v >> 8) & 0xff);
  const u32 = (v: number) => chunks.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  const define = (local: number, global: number, fields: [number, number, number][]) => {
    u8(0x40 | local); u8(0); u8(0); u16(global); u8(fields.length);
    for (const [num, size, type] of fields) { u8(num); u8(size); u8(type); }
  };
  // file_id: type (0) = 4 activity, manufacturer (1) = 255 development, time_created (4).
  define(0, 0, [[0, 1, 0x00], [1, 2, 0x84], [4, 4, 0x86]]);
  u8(0); u8(4); u16(255); u32(t0);
  // record: timestamp (253), heart_rate (3), power (7).
  define(1, 20, [[253, 4, 0x86], [3, 1, 0x02], [7, 2, 0x84]]);
  for (let i = 0; i < options.seconds; i++) {
    u8(1); u32(t0 + i); u8(120 + (i % 30)); u16(power + (i % 50));
  }
  // session: timestamp (253), start_time (2), total_elapsed_time (7, s×1000), total_timer_time (8), sport (5).
  define(2, 18, [[253, 4, 0x86], [2, 4, 0x86], [7, 4, 0x86], [8, 4, 0x86], [5, 1, 0x00]]);
  u8(2); u32(t0 + options.seconds - 1); u32(t0); u32(options.seconds * 1000); u32(options.seconds * 1000); u8(options.sport ?? 2);

  const data = Uint8Array.from(chunks);
  const file = new Uint8Array(14 + data.length + 2);
  const view = new DataView(file.buffer);
  file[0] = 14; file[1] = 0x20; view.setUint16(2, 2132, true); view.setUint32(4, data.length, true);
  file.set([0x2e, 0x46, 0x49, 0x54], 8); // ".FIT"
  view.setUint16(12, fitCrc(file, 0, 12), true);
  file.set(data, 14);
  view.setUint16(14 + data.length, fitCrc(file, 0, 14 + data.length), true);
  return file;
}
