/**
 * Reading GET /oauth/authorize (interface §5 "Authorization request parameters"; AUTH.md "authorize").
 * The order is the security property: the client and its redirect URI are settled first, and any
 * failure there is an error page, never a redirect (an unverified redirect URI would make us an open
 * redirector). Only then are the other parameters read: a misspelled `integration` or a bad
 * `email_auth_mode` is a 422, everything else an error redirect carrying `state` and `iss`.
 * "Any other parameter on the URL is ignored." `response_type` is "not validated, code is the only flow".
 * Kept honest by test/gateway/authorize.test.ts.
 */
import type { ApplicationRecord } from '../../storage/store.js';
import type { ValidationIssue } from '../errors.js';
import { matchRedirectUri } from './redirect-uris.js';
import { parseScopeRequest, type Scope } from './scopes.js';
import { challengeProblem } from './pkce.js';

export const INTEGRATIONS = ['garmin_connect', 'intervals_icu', 'wahoo'] as const;
export type Integration = (typeof INTEGRATIONS)[number];
export const PROMPTS = ['none', 'consent', 'login', 'select_account'] as const;
export type Prompt = (typeof PROMPTS)[number];
export const EMAIL_AUTH_MODES = ['enabled', 'existing_only'] as const;
export type EmailAuthMode = (typeof EMAIL_AUTH_MODES)[number];

/** Longest `state` and `nonce` accepted, characters. */
const MAX_OPAQUE_LENGTH = 2048;

/** A validated authorization request, as stored on its interaction. */
export interface AuthorizationRequest {
  client_id: string;
  redirect_uri: string;
  scopes: Scope[];
  state: string | null;
  nonce: string | null;
  code_challenge: string | null;
  prompt: Prompt | null;
  email_auth_mode: EmailAuthMode;
  integration: Integration | null;
  /** The team variant (ours): the user also authorizes this team to see the requested data. */
  team_id: string | null;
}

export type Query = Record<string, string | string[] | undefined>;

/** Step 1: which client, and where may we send the browser. Null client means "no such application". */
export function clientProblem(query: Query, application: ApplicationRecord | null, exactOnly?: (uri: string) => boolean): { title: string; message: string } | null {
  const clientId = single(query, 'client_id');
  if (clientId === undefined) return { title: 'Missing application', message: 'The link that brought you here does not name an application (client_id).' };
  if (clientId === null) return { title: 'Invalid request', message: 'The link that brought you here names more than one application.' };
  if (!application) return { title: 'Unknown application', message: 'The application that sent you here is not registered with this Threshold server.' };
  const redirectUri = single(query, 'redirect_uri');
  if (redirectUri === undefined) return { title: 'Missing redirect address', message: `${application.name} did not say where to send you back (redirect_uri).` };
  if (redirectUri === null) return { title: 'Invalid request', message: `${application.name} sent more than one redirect address.` };
  if (!matchRedirectUri(application.redirect_uris, redirectUri, exactOnly)) {
    return { title: 'Unregistered redirect address', message: `${application.name} asked to send you to an address it has not registered. Nothing was shared.` };
  }
  return null;
}

/** Step 2: the 422s (checked before any redirect error). */
export function validationIssues(query: Query): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const integration = query.integration;
  if (Array.isArray(integration)) {
    issues.push({ loc: ['query', 'integration'], msg: 'one integration value per request', type: 'value_error' });
  } else if (integration !== undefined && !(INTEGRATIONS as readonly string[]).includes(integration)) {
    issues.push({ loc: ['query', 'integration'], msg: `Input should be ${INTEGRATIONS.map((name) => `'${name}'`).join(', ')}`, type: 'enum' });
  }
  const mode = query.email_auth_mode;
  if (mode !== undefined && (Array.isArray(mode) || !(EMAIL_AUTH_MODES as readonly string[]).includes(mode))) {
    issues.push({ loc: ['query', 'email_auth_mode'], msg: "Input should be 'enabled' or 'existing_only'", type: 'enum' });
  }
  return issues;
}

export type ParseOutcome =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; error: 'invalid_request' | 'invalid_scope'; description: string; state: string | null };

/** Step 3: the remaining parameters; failures are error redirects. The client and redirect URI are settled. */
export function parseAuthorizationRequest(
  query: Query,
  application: ApplicationRecord,
  options: { hasClientSecret: boolean; scopeReleaseAt: number },
): ParseOutcome {
  // The state goes back even on errors, so read it first (a repeated one is unusable: none goes back).
  const state = single(query, 'state');
  const fail = (error: 'invalid_request' | 'invalid_scope', description: string): ParseOutcome => ({
    ok: false, error, description, state: typeof state === 'string' && state.length <= MAX_OPAQUE_LENGTH ? state : null,
  });
  if (state === null) return fail('invalid_request', 'state was given more than once');
  if (state !== undefined && state.length > MAX_OPAQUE_LENGTH) return fail('invalid_request', `state is longer than ${MAX_OPAQUE_LENGTH} characters`);

  const repeated = ['scope', 'nonce', 'code_challenge', 'code_challenge_method', 'prompt', 'team_id'].find((name) => Array.isArray(query[name]));
  if (repeated) return fail('invalid_request', `${repeated} was given more than once`);
  const text = (name: string) => query[name] as string | undefined;

  const scopeText = text('scope');
  if (scopeText === undefined || scopeText.trim() === '') return fail('invalid_request', 'scope is required');
  // "Apps registered before the scope release may keep sending retired bundles … An app registered after
  // the release gets invalid_scope for a bundle."
  const scopes = parseScopeRequest(scopeText, { legacyAllowed: application.created_at < options.scopeReleaseAt });
  if ('error' in scopes) return fail('invalid_scope', scopes.description);

  const nonce = text('nonce') ?? null;
  if (nonce !== null && nonce.length > MAX_OPAQUE_LENGTH) return fail('invalid_request', `nonce is longer than ${MAX_OPAQUE_LENGTH} characters`);

  const challenge = text('code_challenge');
  const method = text('code_challenge_method');
  if (challenge !== undefined || method !== undefined) {
    const problem = challengeProblem(challenge, method);
    if (problem) return fail('invalid_request', problem);
  } else if (!options.hasClientSecret) {
    // A client without a secret can only prove itself with PKCE.
    return fail('invalid_request', 'code_challenge (PKCE, S256) is required: this application has no client secret');
  }

  const teamId = text('team_id');
  if (teamId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(teamId)) return fail('invalid_request', 'team_id is not a team id');

  let prompt: Prompt | null = null;
  const promptText = text('prompt');
  if (promptText !== undefined && promptText.trim() !== '') {
    const values = [...new Set(promptText.trim().split(/\s+/))];
    const unknown = values.find((value) => !(PROMPTS as readonly string[]).includes(value));
    if (unknown) return fail('invalid_request', `unsupported prompt value: ${unknown}`);
    if (values.includes('none') && values.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values');
    // "login and select_account behave as consent"
    prompt = values.includes('none') ? 'none' : 'consent';
  }

  return {
    ok: true,
    request: {
      client_id: application.id,
      redirect_uri: query.redirect_uri as string,
      scopes: scopes.scopes,
      state: state ?? null,
      nonce,
      code_challenge: challenge ?? null,
      prompt,
      email_auth_mode: (text('email_auth_mode') as EmailAuthMode | undefined) ?? 'enabled',
      integration: (text('integration') as Integration | undefined) ?? null,
      team_id: teamId ?? null,
    },
  };
}

/** The value of a parameter given once; undefined when absent, null when repeated. */
function single(query: Query, name: string): string | undefined | null {
  const value = query[name];
  return Array.isArray(value) ? null : value;
}

/** The callback URL: the registered redirect URI with `params` added, and `iss` on every response (RFC 9207). */
export function callbackUrl(redirectUri: string, issuer: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.href;
}
