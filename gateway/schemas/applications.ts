/**
 * Request and response shapes of the applications and pages endpoints (interface §2 "Application",
 * "Page"; §4 "Applications", "Pages"), for validation and the OpenAPI document.
 */
import { z } from 'zod';
import { named } from './components.js';
import { personGivenName } from './names.js';

const uri = z.string().meta({ format: 'uri' });
/** The longest redirect URI a request may register (characters), as for every URL field (2048). */
const MAX_URI_LENGTH = 2048;

export const Page = named('Page', z.object({
  slug: z.string(),
  published: z.boolean(),
  application: z.object({ id: z.string(), name: z.string(), is_private: z.boolean() }),
  url: z.string().meta({ format: 'uri', description: 'The public URL where the page is served (read-only)' }),
}));

export const Application = named('Application', z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  image: uri.nullable(),
  url: uri.nullable(),
  redirect_uris: z.array(z.string()).nullable(),
  privacy_statement: uri.nullable(),
  brand_color: z.string().nullable(),
  published: z.boolean().meta({ deprecated: true, description: 'A retired directory listing flag, always false; removed on 2026-10-12' }),
  webhook_endpoints: z.array(uri).nullable(),
  webhook_secret: z.string().nullable().meta({ format: 'password', description: 'Write-only: always null in responses' }),
  client_secret: z.string().nullable().describe('Only when generate_secret was true; shown this once'),
  page: Page.nullable(),
  is_private: z.boolean().describe('true when any of description, url, image, privacy_statement is missing'),
  is_clientside_app: z.boolean(),
}));

export const ApplicationListItem = named('ApplicationListItem', z.object({ id: z.string(), name: z.string(), page_slug: z.string().nullable() }));

const capability = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a capability key is lower-case letters, digits and _');

/** POST /api/v1/applications; null means absent (gaps.md: clients send every key). */
export const CreateApplicationBody = z.object({
  name: personGivenName().trim().min(1, 'name must be 1 to 100 characters').max(100, 'name must be 1 to 100 characters'),
  description: z.string().max(500, 'at most 500 characters').nullish(),
  redirect_uris: z.array(z.string().max(MAX_URI_LENGTH)).max(50).nullish(),
  page: z.string().max(100).nullish().describe('Page slug; the page URL is added to the redirect URIs'),
  generate_secret: z.boolean().nullish().default(false),
  webhook_endpoints: z.array(z.string()).max(10).nullish().describe('https URLs on public hosts'),
  webhook_secret: z.string().min(16, 'a webhook secret is 16 to 256 characters').max(256, 'a webhook secret is 16 to 256 characters').nullish().meta({ format: 'password', description: 'Write-only; signs webhook deliveries' }),
  capabilities: z.array(capability).max(20).nullish().describe('Capabilities the app declares for account status; default activities, activity_history'),
});

export const EnsurePageBody = z.object({ slug: z.string().describe('Lower-cased; 3 to 63 letters, digits and single hyphens') });
export const CreatePageBody = z.object({ application_id: z.string(), slug: z.string() });
export const PageSlugParams = z.object({ slug: z.string().max(100).describe("The page's slug: the first label of its address") });
export const ApplicationIdParams = z.object({ application_id: z.string().max(64).describe("The application's id (its OAuth client_id)") });
export const DeployBody = z.object({
  files: z.array(z.string().meta({ format: 'binary' })).describe('Repeated field; each part\'s filename is its relative path inside the page'),
});
