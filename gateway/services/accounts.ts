/**
 * Account, application and grant operations shared by the API routes and the command-line tool.
 * Each validates its input and throws a ValidationError naming the field, so both callers report
 * problems the same way.
 */
import type { ApplicationRecord, ClientSecretRecord, GrantRecord, Store, UserRecord } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { HttpError, ValidationError, type ValidationIssue } from '../errors.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.js';
import { hashSecret, newSecret } from '../auth/secrets.js';
import { redirectUriProblem } from '../auth/redirect-uris.js';
import { PURPOSE_CATEGORIES } from '../auth/scopes.js';
import { nameProblem, requiredName } from '../schemas/names.js';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,63}$/;

export interface NewUser {
  email: string | null;
  password?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  managed_by?: string | null;
}

export async function createUser(store: Store, input: NewUser, now = Date.now()): Promise<UserRecord> {
  const email = input.email === null ? null : input.email.trim().toLowerCase();
  if (email !== null && !EMAIL.test(email)) throw ValidationError.single(['body', 'email'], 'value is not a valid email address');
  if (input.password != null && (input.password.length < PASSWORD_MIN_LENGTH || input.password.length > PASSWORD_MAX_LENGTH)) {
    throw ValidationError.single(['body', 'password'], `password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
  const user: UserRecord = {
    id: newId(),
    email,
    first_name: cleanName(input.first_name, 'first_name'),
    last_name: cleanName(input.last_name, 'last_name'),
    password_hash: input.password != null ? await hashPassword(input.password) : null,
    admin: false,
    managed_by: input.managed_by ?? null,
    registered_at: now,
    app_metadata: {},
  };
  try {
    await store.users.insert(user);
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw new HttpError(409, 'a user with this email already exists', { code: 'email_taken' });
    throw error;
  }
  return user;
}

/** A trimmed name of at most 100 characters without control or invisible characters; blank means none. */
export function cleanName(value: string | null | undefined, field: string): string | null {
  if (value == null) return null;
  const problem = nameProblem(value);
  if (problem) throw ValidationError.single(['body', field], problem);
  const trimmed = value.trim();
  if (trimmed.length > 100) throw ValidationError.single(['body', field], 'at most 100 characters');
  return trimmed.length > 0 ? trimmed : null;
}

export interface NewApplication {
  name: string;
  description?: string | null;
  redirect_uris?: string[] | null;
}

/**
 * What an operator may also set when importing an existing application (gaps.md: "operators can import
 * such an application", e.g. the official client's public application with its own id and an earlier
 * creation date): the four public fields, a brand colour and the purpose sentences.
 */
export interface ImportedApplication extends NewApplication {
  id?: string | null;
  url?: string | null;
  image?: string | null;
  privacy_statement?: string | null;
  brand_color?: string | null;
  purposes?: Record<string, string> | null;
}

const APPLICATION_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * "20 to 160 characters, plain text, no links", one per category except openid, profile and
 * offline_access: every problem of `purposes` (category → sentence), each at ['body', 'purposes', category].
 * Shared by the operator's `app create`, `app purposes` and the settings form.
 */
export function purposeProblems(purposes: Record<string, string>): ValidationIssue[] {
  return Object.entries(purposes).flatMap(([category, sentence]) => {
    const problem = purposeProblem(category, sentence);
    return problem ? [{ loc: ['body', 'purposes', category], msg: problem, type: 'value_error' }] : [];
  });
}

function purposeProblem(category: string, sentence: string): string | null {
  if (!(PURPOSE_CATEGORIES as readonly string[]).includes(category)) return `no purpose is asked for ${category}; categories: ${PURPOSE_CATEGORIES.join(', ')}`;
  const text = sentence.trim();
  if (text.length < 20 || text.length > 160) return `a purpose sentence is 20 to 160 characters (this one has ${text.length})`;
  if (/[<>]|https?:\/\/|www\.|\b[a-z0-9-]+\.(?:com|org|net|io|app|dev)\b/i.test(text)) return 'a purpose sentence is plain text without links';
  return null;
}

function httpsUrlProblem(value: string): string | null {
  return URL.canParse(value) && new URL(value).protocol === 'https:' && value.length <= 2048 ? null : 'must be an https URL';
}

/** A private application for development (interface §4 "Applications"), or an imported one. */
export async function createApplication(store: Store, ownerId: string, input: ImportedApplication, now = Date.now()): Promise<ApplicationRecord> {
  if (!(await store.users.get(ownerId))) throw ValidationError.single(['body', 'owner'], `user ${ownerId} does not exist`);
  const name = requiredName(input.name);
  if (input.description != null && input.description.length > 500) throw ValidationError.single(['body', 'description'], 'at most 500 characters');
  const redirectUris = [...new Set(input.redirect_uris ?? [])];
  redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw ValidationError.single(['body', 'redirect_uris', index], problem);
  });
  // "When no redirect URIs are given, localhost is also added."
  if (redirectUris.length === 0) redirectUris.push('http://localhost');
  if (input.id != null && !APPLICATION_ID.test(input.id)) throw ValidationError.single(['body', 'id'], 'an application id is 1 to 64 letters, digits, - or _');
  for (const field of ['url', 'image', 'privacy_statement'] as const) {
    const problem = input[field] != null ? httpsUrlProblem(input[field]) : null;
    if (problem) throw ValidationError.single(['body', field], problem);
  }
  if (input.brand_color != null && !/^#[0-9a-fA-F]{6}$/.test(input.brand_color)) throw ValidationError.single(['body', 'brand_color'], 'a colour is #rrggbb');
  const purposes = Object.fromEntries(Object.entries(input.purposes ?? {}).map(([category, text]) => [category, text.trim()]));
  const purposeIssues = purposeProblems(purposes);
  if (purposeIssues.length > 0) throw new ValidationError(purposeIssues);
  const application: ApplicationRecord = {
    id: input.id ?? newId(),
    user_id: ownerId,
    name,
    description: input.description ?? null,
    image: input.image ?? null,
    url: input.url ?? null,
    redirect_uris: redirectUris,
    privacy_statement: input.privacy_statement ?? null,
    brand_color: input.brand_color ?? null,
    webhook_endpoints: [],
    webhook_secret: null,
    purposes,
    capabilities: ['activities', 'activity_history'],
    page_slug: null,
    page_published: false,
    created_at: now,
  };
  try {
    await store.applications.insert(application);
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw new HttpError(409, `an application with id ${application.id} already exists`, { code: 'application_exists' });
    throw error;
  }
  return application;
}

/** Creates a client secret; the clear secret is returned once and only its hash is stored. */
export async function addClientSecret(store: Store, application: ApplicationRecord, label: string | null, now = Date.now()): Promise<{ record: ClientSecretRecord; secret: string }> {
  const secret = newSecret('tsk');
  const record: ClientSecretRecord = {
    id: newId(),
    application_id: application.id,
    user_id: application.user_id,
    label,
    secret_hash: hashSecret(secret),
    hint: secret.slice(0, 8),
    created_at: now,
  };
  await store.client_secrets.insert(record);
  return { record, secret };
}

/**
 * Adds scopes to the user's grant for an application, creating it when absent. The grant is the
 * union of everything consented and never shrinks. Optimistic concurrency on `updated_at`, so two
 * concurrent consents both land.
 */
export async function unionGrant(store: Store, userId: string, applicationId: string, scopes: readonly string[], now = Date.now()): Promise<GrantRecord> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const outcome = await store.grants.insertIfAbsent(
      { id: newId(), user_id: userId, application_id: applicationId, scopes: [...new Set(scopes)].sort(), created_at: now, updated_at: now },
      ['user_id', 'application_id'],
    );
    if (outcome.inserted) return outcome.doc;
    const existing = outcome.existing;
    const union = [...new Set([...existing.scopes, ...scopes])].sort();
    if (union.length === existing.scopes.length) return existing;
    const updated = await store.grants.updateOne(
      { id: existing.id, updated_at: existing.updated_at },
      { set: { scopes: union, updated_at: Math.max(now, existing.updated_at + 1) } },
    );
    if (updated) return updated;
  }
  throw new Error('grants: could not update the grant under contention');
}
