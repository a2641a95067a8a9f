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

/**
 * Why a FIT file cannot become an activity (engine/ingest/fit.ts). A file CRC mismatch is not among
 * them: the file is salvaged with a warning (see fit.ts, "CRC").
 */
export type FitDecodeErrorCode =
  /** Zero bytes. */
  | 'fit_empty'
  /** Larger than the decoder accepts (bytes, or messages found by the framing walk). */
  | 'fit_too_large'
  /** Does not start with a FIT file header (12 or 14 bytes saying ".FIT"). */
  | 'fit_not_fit'
  /** Cut short, and the whole messages before the cut hold no activity (often: no record at all). */
  | 'fit_truncated'
  /** Malformed (impossible definition or message header) before enough records for an activity, or unreadable. */
  | 'fit_corrupt'
  /** A FIT file of another kind (course, workout, settings…): no file in it has type activity. */
  | 'fit_not_activity'
  /** No record message at all (e.g. a session summary without samples). */
  | 'fit_no_records'
  /** Record messages exist but none carries a timestamp. */
  | 'fit_no_timestamps'
  /** Timestamps are device-relative (before 0x10000000, "seconds since power-on"): the activity cannot be placed in time. */
  | 'fit_relative_time'
  /** Records exist but form no activity: fewer than two timed samples, or only transition sessions. */
  | 'fit_no_activity';

export type DecodeErrorCode = CsvDecodeErrorCode | FitDecodeErrorCode;

export class DecodeError extends Error {
  constructor(readonly code: DecodeErrorCode, message: string) {
    super(message);
    this.name = 'DecodeError';
  }
}
