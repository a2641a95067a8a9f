/**
 * Reads the files of a multipart/form-data request (busboy) into memory with hard limits: at most
 * `maxFiles` files in the named field, each at most `maxFileBytes`. Limits are enforced while
 * streaming, so an oversized upload is refused without buffering it whole. File names are read as UTF-8
 * (`filename="é-run.csv"` as browsers and curl send it; busboy's default for header parameters is latin1),
 * and `filename*=UTF-8''…` (RFC 5987) by its own charset. Kept honest by test/gateway/uploads.test.ts.
 */
import busboy from 'busboy';
import type { Context } from 'koa';
import { HttpError, ValidationError } from './errors.js';

export interface UploadedFile {
  filename: string | null;
  /** The filename exactly as the client sent it (with its path when `preservePath`); for callers that validate it themselves. */
  rawFilename: string | null;
  mimeType: string;
  bytes: Buffer;
}

export interface MultipartLimits {
  field: string;
  maxFiles: number;
  maxFileBytes: number;
  /** Keep the client's path in `rawFilename` (page deploys); default false strips it. */
  preservePath?: boolean;
  /** All files together at most this many bytes (413 beyond); default no total limit. */
  maxTotalBytes?: number;
  /** Too many files answers 413 instead of the default 422. */
  tooManyFilesIs413?: boolean;
  /**
   * A part of `field` without a filename (`filename=""`, which busboy reads as a text field) is kept as a
   * file named null, in its place among the files, for a caller that refuses it, and a part busboy skips
   * (a Content-Disposition it cannot parse, `filename*=UTF-8''` with nothing after it) fails the request
   * with 422; default false ignores both.
   */
  keepUnnamed?: boolean;
}

export function readMultipartFiles(ctx: Context, limits: MultipartLimits): Promise<UploadedFile[]> {
  return readMultipartForm(ctx, limits).then((form) => form.files);
}

/**
 * The files and the text fields of a form post (a page's upload form carries its CSRF token as a field). A
 * field sent more than once is null, as pages/forms.ts reads urlencoded forms.
 */
export function readMultipartForm(ctx: Context, limits: MultipartLimits): Promise<{ files: UploadedFile[]; fields: Record<string, string | null> }> {
  if (!ctx.is('multipart/form-data')) {
    return Promise.reject(ValidationError.single(['body', limits.field], 'Field required: send the files as multipart/form-data', 'missing'));
  }
  return new Promise((resolve, reject) => {
    const files: UploadedFile[] = [];
    const fields: Record<string, string | null> = Object.create(null) as Record<string, string | null>;
    let failure: Error | null = null;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: { files: limits.maxFiles, fileSize: limits.maxFileBytes, fields: 20, fieldSize: 64 * 1024, parts: limits.maxFiles + 20 },
        preservePath: limits.preservePath ?? false,
        defParamCharset: 'utf8',
      });
    } catch (error) {
      reject(ValidationError.single(['body'], `malformed multipart request: ${(error as Error).message}`));
      return;
    }
    const fail = (error: Error) => {
      if (failure) return;
      failure = error;
      ctx.req.unpipe(parser);
      ctx.req.resume(); // discard what the client still sends until the response closes the connection (middleware/close-unread-requests.ts)
      reject(error);
    };
    let totalBytes = 0;
    let partsRead = 0;
    const delimiters = limits.keepUnnamed ? countDelimiters(ctx.get('content-type')) : null;
    parser.on('field', (name: string, value: string) => {
      partsRead += 1;
      if (name === limits.field && limits.keepUnnamed) files.push({ filename: null, rawFilename: null, mimeType: 'text/plain', bytes: Buffer.from(value, 'utf8') });
      else fields[name] = name in fields ? null : value;
    });
    parser.on('file', (field, stream, info) => {
      partsRead += 1;
      if (field !== limits.field) {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        totalBytes += chunk.length;
        if (limits.maxTotalBytes !== undefined && totalBytes > limits.maxTotalBytes) {
          fail(new HttpError(413, `the files together are larger than the ${Math.round((limits.maxTotalBytes / 1048576) * 10) / 10} MiB limit`, { code: 'upload_too_large' }));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('limit', () => {
        const mib = Math.round((limits.maxFileBytes / 1048576) * 10) / 10;
        fail(new HttpError(413, `file '${cleanFilename(info.filename) ?? '(unnamed)'}' is larger than the ${mib} MiB limit per file`, { code: 'file_too_large' }));
      });
      stream.on('end', () => {
        if (!failure) files.push({ filename: cleanFilename(info.filename), rawFilename: info.filename ?? null, mimeType: info.mimeType, bytes: Buffer.concat(chunks) });
      });
    });
    parser.on('filesLimit', () => fail(limits.tooManyFilesIs413
      ? new HttpError(413, `at most ${limits.maxFiles} files per request`, { code: 'too_many_files' })
      : ValidationError.single(['body', limits.field], `at most ${limits.maxFiles} files per request`, 'too_long')));
    parser.on('partsLimit', () => limits.tooManyFilesIs413 ? fail(new HttpError(413, `at most ${limits.maxFiles} files per request`, { code: 'too_many_files' })) : fail(ValidationError.single(['body'], 'too many parts in the multipart request', 'too_long')));
    parser.on('error', (error: Error) => fail(ValidationError.single(['body'], `malformed multipart request: ${error.message}`)));
    parser.on('close', () => {
      if (failure) return;
      if (delimiters && delimiters.parts() > partsRead) {
        reject(ValidationError.single(['body', limits.field], 'a part has a Content-Disposition that cannot be read (an empty or malformed filename*=): every file needs a filename', 'value_error'));
      } else if (files.length === 0) reject(ValidationError.single(['body', limits.field], 'Field required: at least one file', 'missing'));
      else resolve({ files, fields });
    });
    ctx.req.pipe(parser);
    if (delimiters) ctx.req.on('data', delimiters.feed);
  });
}

/**
 * Counts the parts of a multipart body by its delimiter lines (`--boundary`, the closing one not counted), as
 * the bytes stream past; the boundary never occurs inside a part (RFC 2046 §5.1.1).
 */
export function countDelimiters(contentType: string): { feed: (chunk: Buffer) => void; parts: () => number } | null {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType);
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`, 'latin1');
  const keep = delimiter.length - 1;
  let count = 0;
  let tail: Buffer = Buffer.alloc(0);
  const occurrences = (bytes: Buffer, startsBefore = bytes.length) => {
    let found = 0;
    for (let at = bytes.indexOf(delimiter); at !== -1 && at < startsBefore; at = bytes.indexOf(delimiter, at + delimiter.length)) found += 1;
    return found;
  };
  return {
    feed(chunk) {
      // A delimiter split between chunks starts in the kept tail; one inside the chunk is counted there, once.
      count += occurrences(Buffer.concat([tail, chunk.subarray(0, keep)]), tail.length) + occurrences(chunk);
      tail = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([tail, chunk]).subarray(-keep);
    },
    parts: () => Math.max(0, count - 1),
  };
}

/** The last path segment of a client-supplied name, without control characters, at most 255 characters. */
export function cleanFilename(name: string | undefined): string | null {
  if (!name) return null;
  // eslint-disable-next-line no-control-regex
  const base = name.split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.length > 0 ? base.slice(0, 255) : null;
}
