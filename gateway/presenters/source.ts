/** Source records → the interface's Source (gaps.md "Paths the interface leaves out"). */
import type { SourceRecord } from '../../storage/store.js';
import { formatUtc } from '../../domain/time.js';

export function presentSource(record: SourceRecord) {
  return {
    id: record.id,
    type: record.type,
    origin: record.origin,
    filename: record.filename,
    status: record.status,
    activity_ids: [...record.activity_ids],
    created_at: formatUtc(record.created_at),
    error: record.error ? { code: record.error.code, message: record.error.message } : null,
    warnings: [...record.warnings],
  };
}
