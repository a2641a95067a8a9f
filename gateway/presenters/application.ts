/** Application records → the interface's Application creation response (interface §2). */
import type { ApplicationRecord } from '../../storage/store.js';
import type { Brand } from '../pages/layout.js';
import { pageUrl } from '../hosted-pages/page-urls.js';
import { clientsidePrivacyUrl } from '../pages/client-side-privacy.js';

const PUBLIC_FIELDS = ['description', 'url', 'image', 'privacy_statement'] as const;

/** "true when any of description, url, image, privacy_statement is missing" */
export function isPrivate(application: ApplicationRecord): boolean {
  return PUBLIC_FIELDS.some((field) => !application[field]);
}

export function presentApplication(application: ApplicationRecord, clientSecret: string | null, options: { pagesBase: string; baseUrl: string }) {
  return {
    id: application.id,
    name: application.name,
    description: application.description,
    image: application.image,
    url: application.url,
    redirect_uris: [...application.redirect_uris],
    privacy_statement: application.privacy_statement,
    brand_color: application.brand_color,
    published: false,
    webhook_endpoints: [...application.webhook_endpoints],
    webhook_secret: null, // write-only
    client_secret: clientSecret,
    page: application.page_slug ? presentPage(application, options.pagesBase) : null,
    is_private: isPrivate(application),
    // "true when privacy_statement is the standard client-side privacy policy URL"
    is_clientside_app: application.privacy_statement === clientsidePrivacyUrl(options.baseUrl),
  };
}

/** interface §2 "Page": the application's page (its `page_slug` must be set). */
export function presentPage(application: ApplicationRecord, pagesBase: string) {
  return {
    slug: application.page_slug!,
    published: application.page_published,
    application: { id: application.id, name: application.name, is_private: isPrivate(application) },
    url: pageUrl(pagesBase, application.page_slug!),
  };
}

/** "Application list item: id (string), name (string), page_slug (string, nullable)." */
export function presentApplicationListItem(application: ApplicationRecord) {
  return { id: application.id, name: application.name, page_slug: application.page_slug };
}

/** How sign-in and consent screens are branded for an application ("brands the sign-in and consent screens"). */
export function brandOf(application: ApplicationRecord): Brand {
  return { name: application.name, image: application.image, color: application.brand_color };
}
