/**
 * Issue 3's end-to-end check: `sweatpy/4078723797.fit` uploaded through the API yields an activity whose
 * `/data` Parquet has one row per recorded sample, correct UTC and local timestamps and the device's
 * power values — compared with fit-file-parser's own reading of the file.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import FitParser from 'fit-file-parser';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { FIXTURES } from '../support/paths.js';
import { startStack } from '../support/stack.js';
import { settled, upload, type SourceBody } from '../support/uploads.js';

interface FitRecord {
  timestamp: Date;
  power?: number;
}

function parseFit(bytes: Buffer): Promise<{ records: FitRecord[]; activity: { timestamp: Date; local_timestamp: Date } }> {
  const parser = new (FitParser as unknown as new (options: object) => { parse(bytes: Buffer, done: (error: unknown, data: never) => void): void })({ mode: 'list', force: true });
  return new Promise((resolve, reject) => parser.parse(bytes, (error, data) => (error ? reject(error) : resolve(data))));
}

test('a FIT ride uploaded through the API reads back sample for sample from /data', async () => {
  const stack = await startStack({ JOB_POLL_MS: '20' });
  try {
    const { token } = await stack.userWithToken(['activities:read', 'activities:write']);
    const bytes = fs.readFileSync(path.join(FIXTURES, 'fit', 'sweatpy', '4078723797.fit'));
    const response = await upload(stack, token, [{ name: '4078723797.fit', bytes }]);
    assert.is(response.status, 202);
    const [accepted] = ((await response.json()) as { sources: SourceBody[] }).sources;
    assert.is(accepted!.type, 'fit');
    const source = await settled(stack, token, accepted!.id);
    assert.is(source.status, 'processed', JSON.stringify(source.error));
    assert.is(source.activity_ids.length, 1);
    const id = source.activity_ids[0]!;

    const expected = await parseFit(bytes);
    const offsetMs = expected.activity.local_timestamp.getTime() - expected.activity.timestamp.getTime();
    assert.is(offsetMs, 2 * 3_600_000, 'the file says its local time is UTC+2');
    // One sample per distinct timestamp: the first record at a second carries its values.
    const bySecond = new Map<number, FitRecord>();
    for (const record of expected.records) if (!bySecond.has(record.timestamp.getTime())) bySecond.set(record.timestamp.getTime(), record);

    const details = (await (await stack.get(`/api/v1/activities/${id}`, token)).json()) as { sport: string; start: string; start_local: string };
    assert.is(details.sport, 'cycling.road', 'FIT cycling/generic decodes to cycling.road per mappings/garmin_fit.yaml');
    assert.is(details.start, expected.records[0]!.timestamp.toISOString().replace('.000Z', 'Z'));

    const data = await stack.get(`/api/v1/activities/${id}/data?metrics=power`, token);
    assert.is(data.status, 200);
    assert.is(data.headers.get('content-type'), 'application/vnd.apache.parquet');
    const file = await data.arrayBuffer();
    const rows = (await parquetReadObjects({ file, metadata: parquetMetadata(file), parsers: { timestampFromMilliseconds: (ms: bigint) => Number(ms) } })) as { timestamp: number; timestamp_local: number; power: number | null }[];
    assert.is(rows.length, bySecond.size, 'one row per recorded sample');
    for (const row of rows) {
      const record = bySecond.get(row.timestamp);
      assert.ok(record, `row at ${new Date(row.timestamp).toISOString()} is a recorded sample`);
      assert.is(row.timestamp_local, row.timestamp + offsetMs);
      assert.is(row.power, record!.power ?? null);
    }
  } finally {
    await stack.close();
  }
});

test.run();
