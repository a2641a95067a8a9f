/**
 * A file that cannot be decoded: the source exists but cannot become an activity. Carries a stable
 * snake_case `code` (stored as the source's `error.code`, sent to callers as `threshold-error-code`)
 * and a message naming the subsystem, the place and the value:
 * `csv decode: line 2 column timestamp: '2024-05-01T07:00:00' has no UTC offset`.
 */

export type CsvDecodeErrorCode =
  /** No header: the file is empty or holds only blank lines. */
  | 'csv_empty'
  /** A header but no data rows. */
  | 'csv_no_rows'
  /** `timestamp` or `sport` is not in the header. */
  | 'csv_missing_column'
  /** A recognised column appears twice in the header. */
  | 'csv_duplicate_column'
  /** A timestamp without UTC offset (the interface rejects naive timestamps). */
  | 'csv_naive_timestamp'
  /** A timestamp that is not an ISO 8601 date-time. */
  | 'csv_bad_timestamp'
  /** A sport cell that is not a well-formed (or known) Open Sport Taxonomy string, or no sport at all. */
  | 'csv_bad_sport'
  /** Rows name different sports; a CSV file holds one activity. */
  | 'csv_mixed_sport'
  /** Not parseable as CSV: unclosed quote, a row with more or fewer fields than the header, a line too long. */
  | 'csv_malformed'
  /** More rows than the decoder accepts. */
  | 'csv_too_many_rows';

export type DecodeErrorCode = CsvDecodeErrorCode;

export class DecodeError extends Error {
  constructor(readonly code: DecodeErrorCode, message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}
