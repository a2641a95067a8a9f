/** Uploading files through the API and waiting for their sources to settle (polling with a deadline). */
import type { TestStack } from './stack.js';

export interface SourceBody {
  id: string;
  type: string | null;
  status: string;
  activity_ids: string[];
  filename: string | null;
  error: { code: string; message: string | null } | null;
  warnings: string[];
}

export async function upload(stack: Pick<TestStack, 'baseUrl'>, token: string, files: { name: string; bytes: Uint8Array | string }[]): Promise<Response> {
  const form = new FormData();
  for (const file of files) form.append('files', new Blob([file.bytes]), file.name);
  return fetch(`${stack.baseUrl}/api/v1/activities/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
}

/** Uploads one file and waits until its source is processed (throws naming the source's error otherwise). */
export async function uploadProcessed(stack: Pick<TestStack, 'baseUrl' | 'get'>, token: string, name: string, bytes: Uint8Array | string, timeoutMs = 60_000): Promise<SourceBody> {
  const response = await upload(stack, token, [{ name, bytes }]);
  if (response.status !== 202) throw new Error(`upload of ${name}: status ${response.status}`);
  const { sources } = (await response.json()) as { sources: { id: string }[] };
  const source = await settled(stack, token, sources[0]!.id, timeoutMs);
  if (source.status !== 'processed') throw new Error(`upload of ${name}: ${source.status} ${JSON.stringify(source.error)}`);
  return source;
}

/** Polls the source until it leaves `processing`, or fails after `timeoutMs`. */
export async function settled(stack: Pick<TestStack, 'get'>, token: string, sourceId: string, timeoutMs = 20_000): Promise<SourceBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const source = (await (await stack.get(`/api/v1/profile/sources/${sourceId}`, token)).json()) as SourceBody;
    if (source.status !== 'processing') return source;
    if (Date.now() > deadline) throw new Error(`source ${sourceId} still processing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A CSV activity: `rows` samples at 1 Hz from `start`, power ramping 100 W + i, heart rate 120 + i mod 30. */
export function csvActivity(options: { start?: string; rows?: number; sport?: string; offset?: string } = {}): string {
  const rows = options.rows ?? 120;
  const start = Date.parse(options.start ?? '2024-05-01T05:00:00Z');
  const offset = options.offset ?? '+02:00';
  const offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const lines = ['timestamp,sport,power,heart_rate,distance'];
  for (let i = 0; i < rows; i++) {
    const local = new Date(start + i * 1000 + offsetMinutes * 60_000).toISOString().slice(0, 19);
    lines.push(`${local}${offset},${options.sport ?? 'cycling.road'},${100 + i},${120 + (i % 30)},${i * 8}`);
  }
  return `${lines.join('\n')}\n`;
}
