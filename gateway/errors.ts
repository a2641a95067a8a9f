/**
 * Typed HTTP errors. Every error the gateway raises on purpose extends HttpError; one middleware
 * (middleware/handle-errors.ts) writes every body, in the shape of the protocol the error belongs to:
 * `{detail}` for the API, 422 `{detail: [{loc, msg, type}]}` for validation, problem+json, and
 * RFC 6749's `{error, error_description}` for the token endpoint. `expose` is true below 500: the
 * message is safe to show. Anything else is a bug, answered with a generic 500 and logged.
 */

/** One entry of a 422 body, in FastAPI's exact shape. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface HttpErrorOptions {
  code?: string;
  headers?: Record<string, string>;
  cause?: unknown;
  /** Whether the message may be shown to the client; default: status below 500. */
  expose?: boolean;
}

export class HttpError extends Error {
  readonly expose: boolean;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(readonly status: number, message: string, options: HttpErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.expose = options.expose ?? status < 500;
    this.code = options.code ?? `http_${status}`;
    this.headers = options.headers ?? {};
  }
}

/** 422 `{detail: [{loc, msg, type}]}`. */
export class ValidationError extends HttpError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '), { code: 'validation_error' });
  }

  static single(loc: (string | number)[], msg: string, type = 'value_error'): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** `application/problem+json` `{type, title, status, detail, code}` (e.g. missing_body_mass). */
export class ProblemError extends HttpError {
  constructor(status: number, code: string, readonly title: string, detail: string) {
    super(status, detail, { code });
  }
}

/** 401 with `WWW-Authenticate: Bearer` (and `error="invalid_token"` when a token was presented). */
export class UnauthorizedError extends HttpError {
  constructor(detail: string, options: { invalidToken?: boolean } = {}) {
    const challenge = options.invalidToken
      ? `Bearer error="invalid_token", error_description="${detail.replace(/["\\]/g, '')}"`
      : 'Bearer';
    super(401, detail, { code: 'unauthorized', headers: { 'WWW-Authenticate': challenge } });
  }
}

/** 403; for a missing scope the detail and the challenge both name it. */
export class ForbiddenError extends HttpError {
  constructor(detail: string, options: { scope?: string } = {}) {
    super(403, detail, {
      code: options.scope ? 'insufficient_scope' : 'forbidden',
      headers: options.scope ? { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${options.scope}"` } : {},
    });
  }

  static missingScope(scope: string): ForbiddenError {
    return new ForbiddenError(`Missing required scope: ${scope}`, { scope });
  }
}

export class NotFoundError extends HttpError {
  constructor(detail = 'Not Found') {
    super(404, detail, { code: 'not_found' });
  }
}

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/**
 * An RFC 6749 §5.2 error: `{error, error_description}` with `Cache-Control: no-store`, 400 (invalid_client:
 * 401; 413 for a body too large, 429 when limited). The description never carries a secret.
 */
export class OAuthError extends HttpError {
  constructor(readonly error: OAuthErrorCode, readonly description: string, headers: Record<string, string> = {}, status?: number) {
    super(status ?? (error === 'invalid_client' ? 401 : 400), `${error}: ${description}`, { code: error, headers });
  }
}

/** 503 when a dependency (store, engine) does not answer. */
export class UnavailableError extends HttpError {
  constructor(detail: string, options: HttpErrorOptions = {}) {
    // A dependency being down is worth telling the client, unlike a bug.
    super(503, detail, { code: 'unavailable', expose: true, ...options });
  }
}
