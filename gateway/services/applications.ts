/**
 * Applications as their owner manages them (interface §4 "Applications"; §2 "Application"; §6 webhook
 * fields): creation through the API (name 1–100, description ≤ 500, a page slug adds the page URL to the
 * redirect URIs, no redirect URIs adds localhost, a client secret on request) and the settings form of the
 * account page. Rules every path shares:
 *
 * - redirect URIs follow the registration matcher (auth/redirect-uris.ts); one on the pages origin is
 *   accepted only as the application's own page URL, which the page adds itself;
 * - webhook endpoints pass services/webhook-endpoints.ts;
 * - `webhook_secret` is write-only and stored in clear, as records.ts says: it must sign deliveries
 *   (HMAC-SHA256, gaps.md "Events"), so a hash would not do, and the configuration has no key to encrypt
 *   it with yet (AUTH.md asks that only of provider tokens). It never appears in a response, log or page.
 * - `capabilities` defaults to activities, activity_history (gaps.md "Account status").
 *
 * Kept honest by test/gateway/applications-api.test.ts and test/gateway/application-settings.test.ts.
 */
import type { ApplicationRecord, Store } from '../../storage/store.js';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { redirectUriProblem } from '../auth/redirect-uris.js';
import { nameProblem } from '../schemas/names.js';
import { isOnPagesOrigin, pageUrl } from '../hosted-pages/page-urls.js';
import { addClientSecret, createApplication, purposeProblems } from './accounts.js';
import { attachPage, slugOrThrow } from './pages.js';
import { MAX_WEBHOOK_ENDPOINTS, normalWebhookEndpoint, webhookEndpointProblem } from './webhook-endpoints.js';

export const DEFAULT_CAPABILITIES = ['activities', 'activity_history'];

export interface ApplicationRules {
  pagesBase: string;
  webhookAllowedHosts: readonly string[];
}

export interface NewDevApplication {
  name: string;
  description?: string | null;
  redirect_uris?: string[] | null;
  page?: string | null;
  generate_secret?: boolean | null;
  webhook_endpoints?: string[] | null;
  webhook_secret?: string | null;
  capabilities?: string[] | null;
}

/** POST /api/v1/applications: the private application, and its client secret when asked for (shown once). */
export async function createDevApplication(
  store: Store, ownerId: string, input: NewDevApplication, rules: ApplicationRules,
): Promise<{ application: ApplicationRecord; clientSecret: string | null }> {
  const slug = input.page != null ? slugOrThrow(input.page) : null;
  const endpoints = (input.webhook_endpoints ?? []).map(normalWebhookEndpoint); // same positions as given, for the issues' loc
  const issues = [
    ...pagesOriginIssues(input.redirect_uris ?? [], null, rules.pagesBase),
    ...(await webhookIssues(endpoints, rules)),
  ];
  if (issues.length > 0) throw new ValidationError(issues);
  let application = await createApplication(store, ownerId, {
    name: input.name, description: input.description ?? null, redirect_uris: input.redirect_uris ?? null,
  });
  application = (await store.applications.updateOne({ id: application.id }, {
    set: {
      webhook_endpoints: [...new Set(endpoints)],
      webhook_secret: input.webhook_secret ?? null,
      capabilities: input.capabilities ? [...new Set(input.capabilities)] : DEFAULT_CAPABILITIES,
    },
  }))!;
  if (slug !== null) {
    try {
      application = (await attachPage(store, application, slug, 'create', rules.pagesBase)).application;
    } catch (error) {
      await store.applications.deleteMany({ id: application.id });
      throw error;
    }
  }
  const clientSecret = input.generate_secret ? (await addClientSecret(store, application, 'generated at creation')).secret : null;
  return { application, clientSecret };
}

/** What the settings form sends; every field present (the form always posts them all). */
export interface ApplicationSettings {
  name: string;
  description: string;
  url: string;
  image: string;
  privacy_statement: string;
  redirect_uris: string[];
  webhook_endpoints: string[];
  /** A new secret; empty keeps the current one. */
  webhook_secret: string;
  clear_webhook_secret: boolean;
  capabilities: string[];
  /**
   * Category → purpose sentence, one field per category; an empty sentence removes the purpose. Omitted:
   * the purposes stay as they are.
   */
  purposes?: Record<string, string>;
}

/** The account page's one settings form: validates everything, reports every problem at once, then saves. */
export async function updateApplicationSettings(
  store: Store, application: ApplicationRecord, input: ApplicationSettings, rules: ApplicationRules,
): Promise<ApplicationRecord> {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string) => issues.push({ loc: ['body', field], msg, type: 'value_error' });
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) issue('name', 'A name has 1 to 100 characters.');
  const nameIssue = nameProblem(input.name);
  if (nameIssue) issue('name', `The name ${nameIssue}.`);
  const description = input.description.trim();
  if (description.length > 500) issue('description', 'A description has at most 500 characters.');
  for (const field of ['url', 'image', 'privacy_statement'] as const) {
    const value = input[field].trim();
    // A stored value saved again is kept: the one-click page path sets the page URL and this instance's
    // client-side privacy policy, which are plain http on a local install.
    if (value && value !== application[field] && !(URL.canParse(value) && new URL(value).protocol === 'https:' && value.length <= 2048)) issue(field, 'Use an https:// address.');
  }
  const redirectUris = [...new Set(input.redirect_uris.map((uri) => uri.trim()).filter(Boolean))];
  if (redirectUris.length > 50) issue('redirect_uris', 'At most 50 redirect URIs.');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) issue('redirect_uris', `${uri}: ${problem}`);
  }
  for (const found of pagesOriginIssues(redirectUris, application.page_slug, rules.pagesBase)) issue('redirect_uris', found.msg);
  const endpoints = [...new Set(input.webhook_endpoints.map(normalWebhookEndpoint).filter(Boolean))];
  for (const found of await webhookIssues(endpoints, rules)) issue('webhook_endpoints', found.msg);
  const secret = input.webhook_secret.trim();
  if (secret && (secret.length < 16 || secret.length > 256)) issue('webhook_secret', 'A webhook secret has 16 to 256 characters.');
  const capabilities = [...new Set(input.capabilities.map((key) => key.trim()).filter(Boolean))];
  if (capabilities.some((key) => !/^[a-z][a-z0-9_]{0,39}$/.test(key)) || capabilities.length > 20) issue('capabilities', 'Capability keys are lower-case words like activities or dailies.');
  const purposes = input.purposes === undefined ? application.purposes : writtenPurposes(input.purposes);
  issues.push(...purposeProblems(purposes));
  if (issues.length > 0) throw new ValidationError(issues);
  const updated = await store.applications.updateOne({ id: application.id }, {
    set: {
      purposes,
      name,
      description: description || null,
      url: input.url.trim() || null,
      image: input.image.trim() || null,
      privacy_statement: input.privacy_statement.trim() || null,
      // "When no redirect URIs are given, localhost is also added."
      redirect_uris: redirectUris.length > 0 ? redirectUris : ['http://localhost'],
      webhook_endpoints: endpoints,
      webhook_secret: input.clear_webhook_secret ? null : secret || application.webhook_secret,
      capabilities,
    },
  });
  return updated ?? application;
}

/**
 * `threshold app purposes`: sets the given purposes of an existing application, keeping the others; an
 * empty sentence removes that category's purpose. Every problem is reported at once, nothing saved then.
 */
export async function setPurposes(store: Store, application: ApplicationRecord, given: Record<string, string>): Promise<ApplicationRecord> {
  const purposes = writtenPurposes({ ...application.purposes, ...given });
  const issues = purposeProblems(purposes);
  if (issues.length > 0) throw new ValidationError(issues);
  return (await store.applications.updateOne({ id: application.id }, { set: { purposes } })) ?? application;
}

/** The trimmed, non-empty sentences (an empty field means no purpose for that category). */
function writtenPurposes(purposes: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(purposes).map(([category, text]) => [category, text.trim()] as const).filter(([, text]) => text.length > 0));
}

/** A redirect URI on the pages origin is only ever the application's own page URL (gaps.md "Pages", safety rules). */
function pagesOriginIssues(redirectUris: readonly string[], ownSlug: string | null, pagesBase: string): ValidationIssue[] {
  const own = ownSlug ? pageUrl(pagesBase, ownSlug) : null;
  return redirectUris.flatMap((uri, index) => (isOnPagesOrigin(pagesBase, uri) && uri !== own
    ? [{ loc: ['body', 'redirect_uris', index], msg: `${uri} is on the pages origin: give the application a page instead, which registers its own URL`, type: 'value_error' }]
    : []));
}

async function webhookIssues(endpoints: readonly string[], rules: ApplicationRules): Promise<ValidationIssue[]> {
  if (endpoints.length > MAX_WEBHOOK_ENDPOINTS) return [{ loc: ['body', 'webhook_endpoints'], msg: `at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`, type: 'value_error' }];
  const problems = await Promise.all(endpoints.map((endpoint) => webhookEndpointProblem(endpoint, rules.webhookAllowedHosts)));
  return problems.flatMap((problem, index) => (problem ? [{ loc: ['body', 'webhook_endpoints', index], msg: `${endpoints[index]}: ${problem}`, type: 'value_error' }] : []));
}
