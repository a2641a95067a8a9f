/**
 * Hosted pages (interface §4 "Pages", gaps.md "Pages"): slugs, the page of an application, deploys.
 *
 * - A slug is lowercased and must be a DNS label of 3 to 63 letters, digits and single hyphens (so the
 *   wildcard form `https://{slug}.<domain>` always works), not a reserved word: the hand list below, and
 *   the first segment of every path the service answers (`reserveServicePaths`, fed by createApp from
 *   the route table, so a new top-level route is reserved without anyone remembering to).
 * - A deployed file's path is relative, at most MAX_PATH_LENGTH characters and MAX_PATH_DEPTH segments,
 *   and carries no percent-encoding (`%2e%2e` is `..` to the next server that decodes it), control
 *   characters (CR LF, NUL), backslash, blank, `.` or `..` segments (issue 26 item 8).
 * - A page is keyed by its slug. Deleting a page keeps a tombstone: the slug is retired and only its own
 *   application may take it again.
 * - A deploy stores every file under a fresh blob prefix, then swaps the page's manifest in one
 *   conditional write, then removes the previous prefix: readers see the old deploy or the new one, and
 *   a refused deploy (bad path, too large, too many files) changes nothing.
 *
 * Kept honest by test/gateway/pages-api.test.ts and test/gateway/pages-serving.test.ts.
 */
import { createHash } from 'node:crypto';
import type { ApplicationRecord, PageFileRecord, PageRecord, Store } from '../../storage/store.js';
import { DuplicateKeyError } from '../../storage/store.js';
import { newId } from '../../storage/ids.js';
import { HttpError, ValidationError } from '../errors.js';
import { pageUrl } from '../hosted-pages/page-urls.js';

const SLUG = /^[a-z0-9](?:[a-z0-9]|-(?!-)){1,61}[a-z0-9]$/;
/** Words that are no one's page; the service's own top-level paths are added by reserveServicePaths. */
const RESERVED_SLUGS = new Set([
  'account', 'admin', 'api', 'app', 'apps', 'assets', 'auth', 'docs', 'health', 'healthz', 'login', 'mail', 'metrics', 'oauth',
  'page', 'pages', 'portal', 'readyz', 'signin', 'signup', 'static', 'status', 'support', 'threshold', 'www',
]);
/** Longest deployed file path, characters. */
export const MAX_PATH_LENGTH = 512;
/** Most segments (folders and the file) in a deployed file path: deeper than any site needs. */
export const MAX_PATH_DEPTH = 32;
/** Longest segment of a deployed file path, characters (the common file-system limit). */
const MAX_SEGMENT_LENGTH = 255;

/**
 * Reserves the first segment of each path the service answers (`/healthz` → `healthz`,
 * `/oauth/authorize` → `oauth`); parameters and segments that cannot be slugs are skipped.
 */
export function reserveServicePaths(paths: Iterable<string>): void {
  for (const path of paths) {
    const first = path.split('/')[1]?.toLowerCase() ?? '';
    if (SLUG.test(first)) RESERVED_SLUGS.add(first);
  }
}

/** The normalised slug, or the reason it cannot be one. */
export function parseSlug(raw: unknown): { slug: string } | { problem: string } {
  if (typeof raw !== 'string') return { problem: 'slug is required' };
  const slug = raw.trim().toLowerCase();
  if (!SLUG.test(slug)) return { problem: 'a slug is 3 to 63 letters, digits and single hyphens, starting and ending with a letter or digit' };
  if (RESERVED_SLUGS.has(slug)) return { problem: `'${slug}' is a reserved word` };
  return { slug };
}

/** 400 naming the slug problem (interface §4: ensure-page validation → 400; gaps.md: invalid on create → 400). */
export function slugOrThrow(raw: unknown): string {
  const parsed = parseSlug(raw);
  if ('problem' in parsed) throw new HttpError(400, parsed.problem, { code: 'invalid_slug' });
  return parsed.slug;
}

/** The live page of an application, or null. */
export async function livePage(store: Store, slug: string): Promise<PageRecord | null> {
  const page = await store.pages.get(slug);
  return page && page.deleted_at === null ? page : null;
}

/**
 * Gives `application` the page `slug` and adds the page's URL to its redirect URIs. `mode` 'create'
 * (POST /pages): any existing page of that slug, even this application's, is taken → 400. 'ensure'
 * (PUT /applications/{id}/page): the same slug is a no-op; a different slug, or a slug of another
 * application (a retired one included), → 409.
 */
export async function attachPage(
  store: Store, application: ApplicationRecord, slug: string, mode: 'create' | 'ensure', pagesBase: string, now = Date.now(),
): Promise<{ page: PageRecord; application: ApplicationRecord }> {
  if (application.page_slug === slug && mode === 'ensure') {
    const page = await livePage(store, slug);
    if (page) return { page, application };
  }
  if (application.page_slug !== null) {
    throw new HttpError(mode === 'ensure' ? 409 : 400, `application ${application.id} already has the page '${application.page_slug}'`, { code: 'page_exists' });
  }
  const fresh: PageRecord = {
    id: slug, application_id: application.id, user_id: application.user_id, published: false, blob_prefix: null, files: {},
    created_at: now, updated_at: now, deleted_at: null,
  };
  const outcome = await store.pages.insertIfAbsent(fresh, ['id']);
  let page = fresh;
  if (!outcome.inserted) {
    const existing = outcome.existing;
    // A retired slug returns only to its own application, and only through ensure.
    if (mode === 'create' || existing.application_id !== application.id) {
      throw new HttpError(mode === 'ensure' ? 409 : 400, `the slug '${slug}' is taken`, { code: 'slug_taken' });
    }
    const revived = await store.pages.updateOne({ id: slug, application_id: application.id }, { set: { deleted_at: null, updated_at: now } });
    if (!revived) throw new HttpError(409, `the slug '${slug}' is taken`, { code: 'slug_taken' });
    page = revived;
  }
  const url = pageUrl(pagesBase, slug);
  const redirectUris = application.redirect_uris.includes(url) ? application.redirect_uris : [...application.redirect_uris, url];
  let linked: ApplicationRecord | null;
  try {
    linked = await store.applications.updateOne(
      { id: application.id, page_slug: null },
      { set: { page_slug: slug, page_published: page.published, redirect_uris: redirectUris } },
    );
  } catch (error) {
    if (!(error instanceof DuplicateKeyError)) throw error;
    linked = null;
  }
  if (!linked) {
    // Another request gave the application a page first: release this slug again (only if freshly made).
    if (outcome.inserted) await store.pages.deleteMany({ id: slug, blob_prefix: null });
    throw new HttpError(409, `application ${application.id} already has a page`, { code: 'page_exists' });
  }
  return { page, application: linked };
}

/** Deletes the page's files and retires its slug; the application keeps the URL among its redirect URIs. */
export async function deletePage(store: Store, page: PageRecord, now = Date.now()): Promise<void> {
  await store.pages.updateOne({ id: page.id }, { set: { deleted_at: now, updated_at: now, published: false, blob_prefix: null, files: {} } });
  await store.applications.updateOne({ id: page.application_id, page_slug: page.id }, { set: { page_slug: null, page_published: false } });
  await store.blobs.deletePrefix(`pages/${page.id}/`);
}

/** The normalised relative path of a deployed file, or why it is refused (AUTH.md: "relative, normalised and confined to its page"). */
export function parseDeployPath(raw: string | null): { path: string } | { problem: string } {
  if (raw === null || raw.trim().length === 0) return { problem: 'every file needs a filename: its path inside the page' };
  if (raw.length > MAX_PATH_LENGTH) return { problem: `a path is at most ${MAX_PATH_LENGTH} characters` };
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { problem: 'a path must not contain control characters (CR, LF, NUL …)' };
  if (raw.includes('\\')) return { problem: 'a path uses / between folders, never a backslash' };
  if (/%[0-9A-Fa-f]{2}/.test(raw)) return { problem: 'a path must not be percent-encoded (%2e, %2F …): send the name itself' };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) return { problem: 'a path must be relative, not absolute' };
  const segments = raw.split('/');
  if (segments.length > MAX_PATH_DEPTH) return { problem: `a path is at most ${MAX_PATH_DEPTH} folders and file deep, this one ${segments.length}` };
  if (segments.some((segment) => segment === '')) return { problem: 'a path must not have empty segments (// or a trailing /)' };
  if (segments.some((segment) => segment.trim() === '')) return { problem: 'a path must not have blank segments' };
  if (segments.some((segment) => segment === '.' || segment === '..')) return { problem: 'a path must not contain . or .. segments' };
  if (segments.some((segment) => segment.length > MAX_SEGMENT_LENGTH)) return { problem: `a path segment is at most ${MAX_SEGMENT_LENGTH} characters` };
  return { path: raw };
}

export interface DeployFile {
  rawFilename: string | null;
  bytes: Uint8Array;
}

/** Replaces every file of the page at once and publishes it; validates every path before writing anything. */
export async function deployPage(store: Store, page: PageRecord, files: readonly DeployFile[], now = Date.now()): Promise<PageRecord> {
  const paths = new Set<string>();
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  files.forEach((file, index) => {
    const parsed = parseDeployPath(file.rawFilename);
    if ('problem' in parsed) issues.push({ loc: ['body', 'files', index], msg: parsed.problem, type: 'value_error' });
    else if (paths.has(parsed.path)) issues.push({ loc: ['body', 'files', index], msg: `the path ${parsed.path} appears twice`, type: 'value_error' });
    else paths.add(parsed.path);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  const prefix = `pages/${page.id}/${newId()}/`;
  const manifest: Record<string, PageFileRecord> = {};
  for (const file of files) {
    const path = file.rawFilename!;
    await store.blobs.put(prefix + path, file.bytes, { userId: page.user_id });
    manifest[path] = { size: file.bytes.byteLength, etag: `"sha256:${createHash('sha256').update(file.bytes).digest('base64url')}"` };
  }
  const swapped = await store.pages.updateOne(
    { id: page.id, deleted_at: null, blob_prefix: page.blob_prefix },
    { set: { blob_prefix: prefix, files: manifest, published: true, updated_at: now } },
  );
  if (!swapped) {
    await store.blobs.deletePrefix(prefix);
    throw new HttpError(409, `page '${page.id}' changed during the deploy (deleted or deployed again); nothing was replaced`, { code: 'deploy_conflict' });
  }
  await store.applications.updateOne({ id: page.application_id, page_slug: page.id }, { set: { page_published: true } });
  if (page.blob_prefix) await store.blobs.deletePrefix(page.blob_prefix);
  return swapped;
}
