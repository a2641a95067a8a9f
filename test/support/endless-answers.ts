/**
 * Answer bodies that never end, for the bounded-read tests of every outbound call (webhook receivers,
 * provider stand-ins, workout APIs): `endless` writes 64 KiB chunks as fast as the client takes them,
 * `trickle` writes one byte every 50 ms. Both stop only when the client hangs up; the returned tally says
 * how much was written and whether the client closed, so a test can show that the client stopped reading.
 */
import type { ServerResponse } from 'node:http';

export type EndlessBody = 'endless' | 'trickle';

export interface BodyTally {
  /** Bytes the server wrote before the client hung up. */
  written: number;
  /** True once the connection closed. */
  closed: boolean;
}

/** All tallies of a server, newest last (a test finds its own by index or by `closed`). */
export type Tallies = BodyTally[];

const CHUNK = Buffer.alloc(64 * 1024, 0x7b); // '{' forever: never valid JSON, never an end
const TRICKLE_MS = 50;

/** Writes `kind` after the headers already written on `response` until the client hangs up. */
export function writeEndless(response: ServerResponse, kind: EndlessBody, tallies?: Tallies): BodyTally {
  const tally: BodyTally = { written: 0, closed: false };
  tallies?.push(tally);
  let timer: NodeJS.Timeout | undefined;
  response.on('close', () => {
    tally.closed = true;
    clearInterval(timer);
  });
  response.on('error', () => {}); // EPIPE/ECONNRESET once the client hangs up: expected
  if (kind === 'trickle') {
    timer = setInterval(() => {
      if (response.destroyed) return;
      response.write('{');
      tally.written += 1;
    }, TRICKLE_MS);
    return tally;
  }
  const pump = () => {
    while (!response.destroyed) {
      tally.written += CHUNK.length;
      if (!response.write(CHUNK)) {
        response.once('drain', pump);
        return;
      }
    }
  };
  pump();
  return tally;
}

/** Polls until `tally` is closed; fails after `timeoutMs` with what was written. */
export async function closedWithin(tally: BodyTally, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!tally.closed) {
    if (Date.now() > deadline) throw new Error(`the client still reads after ${timeoutMs} ms (${tally.written} bytes written)`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
