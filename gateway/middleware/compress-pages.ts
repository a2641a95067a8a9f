/**
 * Compression (koa-compress: Brotli at quality 4, or gzip, as the browser accepts) for what browsers load:
 * HTML pages, their scripts and style sheets — the athlete's activity page is ~170 KB of SVG and tables,
 * the API reference's script 1.5 MB. API answers (JSON, Parquet, NDJSON streams, metrics) are left as
 * they are: clients did not ask for a changed wire format, the list endpoint's throughput would pay for
 * it, and a stream must not wait for a compressor's buffer. test/gateway/compress-pages.test.ts.
 */
import compress from 'koa-compress';

const PAGE_TYPES = /^(text\/html|text\/css|text\/javascript|application\/javascript)\b/;

export function compressPages() {
  return compress({ filter: (type) => PAGE_TYPES.test(type), threshold: 1024, zstd: false } as Parameters<typeof compress>[0]);
}
