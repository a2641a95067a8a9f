/**
 * The one-click page path (interface §2 "Application": is_clientside_app is "set when the app went live
 * through the one-click page path"): from its settings, one action gives an application its hosted page
 * and takes it live as a client-side app.
 *
 * - the page is created (services/pages.ts, 'ensure': an application that already has one keeps it) and
 *   its URL joins the redirect URIs;
 * - the privacy statement becomes the instance's standard client-side privacy policy
 *   (pages/client-side-privacy.ts), which is what makes `is_clientside_app` true;
 * - the website becomes the page URL when none is set; a missing description or image is asked for
 *   (nothing else can stand in for them), and nothing changes until every field is right.
 *
 * It does not deploy the page's files (PUT /api/v1/pages/{slug}/deploy does) and does not write purposes.
 * Kept honest by test/gateway/clientside-apps.test.ts and test/browser/app-go-live.test.ts.
 */
import type { ApplicationRecord, Store } from '../../storage/store.js';
import { HttpError, ValidationError, type ValidationIssue } from '../errors.js';
import { pageUrl } from '../hosted-pages/page-urls.js';
import { clientsidePrivacyUrl } from '../pages/client-side-privacy.js';
import { attachPage, parseSlug } from './pages.js';

export interface GoLiveInput {
  /** The page's slug; only read when the application has no page yet. */
  slug: string;
  /** Only read when the application has no description yet. */
  description: string;
  /** Only read when the application has no image yet. */
  image: string;
}

/** Takes `application` live as a client-side app; every problem at once as a ValidationError (loc ['body', field]). */
export async function goLiveAsClientside(
  store: Store, application: ApplicationRecord, input: GoLiveInput, rules: { pagesBase: string; baseUrl: string },
): Promise<ApplicationRecord> {
  const issues: ValidationIssue[] = [];
  const issue = (field: string, msg: string) => issues.push({ loc: ['body', field], msg, type: 'value_error' });
  let slug = application.page_slug;
  if (slug === null) {
    const parsed = parseSlug(input.slug);
    if ('problem' in parsed) issue('slug', `Choose the page's address: ${parsed.problem}.`);
    else slug = parsed.slug;
  }
  const description = application.description ?? input.description.trim();
  if (!description) issue('description', 'Describe the app in a sentence or two: people read it before they connect.');
  else if (description.length > 500) issue('description', 'A description has at most 500 characters.');
  const image = application.image ?? input.image.trim();
  if (!image) issue('image', 'Give the https address of a square logo: people see it on the consent screen.');
  else if (!(URL.canParse(image) && new URL(image).protocol === 'https:' && image.length <= 2048)) issue('image', 'Use an https:// address for the logo.');
  if (issues.length > 0) throw new ValidationError(issues);

  let withPage: ApplicationRecord;
  try {
    withPage = (await attachPage(store, application, slug!, 'ensure', rules.pagesBase)).application;
  } catch (error) {
    if (error instanceof HttpError && error.status === 409) throw ValidationError.single(['body', 'slug'], `The address ${slug} is taken: choose another.`);
    throw error;
  }
  const url = pageUrl(rules.pagesBase, slug!);
  const live = await store.applications.updateOne({ id: application.id }, {
    set: {
      description,
      image,
      url: withPage.url ?? url,
      privacy_statement: clientsidePrivacyUrl(rules.baseUrl),
      // "the page URL is added to the redirect URIs" (attachPage does so for a new page; kept for an old one).
      redirect_uris: withPage.redirect_uris.includes(url) ? withPage.redirect_uris : [...withPage.redirect_uris, url],
    },
  });
  return live ?? withPage;
}
