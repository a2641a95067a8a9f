/**
 * `threshold app create`, `threshold app purposes`, `threshold app secret add` and `threshold app secret
 * delete`: applications, their purpose sentences and their client secrets, each secret shown only once.
 */
import { addClientSecret, createApplication } from '../../gateway/services/accounts.js';
import { deleteClientSecret } from '../../gateway/services/grants.js';
import { setPurposes } from '../../gateway/services/applications.js';
import { presentApplication } from '../../gateway/presenters/application.js';
import { CommandFailure, UsageError, command } from '../command.js';

export const appCreate = command({
  words: 'app create',
  summary: 'Creates a private application → the application, with its client_secret (shown once) when --secret is given.',
  options: {
    owner: { type: 'string', required: true, value: 'USER_ID', description: 'The user who owns the application.' },
    name: { type: 'string', required: true, value: 'NAME', description: 'Shown on the consent screen.' },
    description: { type: 'string', value: 'TEXT', description: 'What the application does.' },
    'redirect-uri': { type: 'string', multiple: true, value: 'URI', description: 'Where authorization codes may be sent (https, or plain http on a loopback host); default http://localhost.' },
    secret: { type: 'boolean', description: 'Also adds a client secret (label "cli") and prints it.' },
    // Importing an existing application: its id, creation instant, public fields and purposes.
    id: { type: 'string', value: 'ID', description: 'Keeps the id of an application being imported.' },
    'created-at': { type: 'string', value: 'ISO', description: 'Its creation instant, an ISO 8601 instant with a zone; before SCOPE_RELEASE_AT it keeps the legacy scope bundles.' },
    url: { type: 'string', value: 'URL', description: 'Its home page (public field).' },
    image: { type: 'string', value: 'URL', description: 'Its logo (public field).' },
    'privacy-statement': { type: 'string', value: 'URL', description: 'Its privacy statement (public field); with --description, --url and --image the application is public.' },
    'brand-color': { type: 'string', value: '#RRGGBB', description: 'Its colour on the consent screen.' },
    purpose: { type: 'string', multiple: true, value: 'CATEGORY=SENTENCE', description: 'Why it asks for a scope category, shown on the consent screen, e.g. "activities=We chart your rides."' },
  },
  details: ['To import an existing application, give its --id, --created-at, public fields and one --purpose per category it asks for (README: Sign-in and OAuth).'],
  async run({ values }, context) {
    const createdAt = values['created-at'] === undefined ? undefined : Date.parse(values['created-at']);
    if (createdAt !== undefined && (Number.isNaN(createdAt) || !/(Z|[+-]\d\d:\d\d)$/.test(values['created-at']!))) {
      throw new UsageError('--created-at must be an ISO 8601 instant with a zone, like 2024-05-01T00:00:00Z');
    }
    const purposes = parsePurposes(values.purpose);
    const store = await context.store();
    const application = await createApplication(store, values.owner, {
      name: values.name,
      description: values.description ?? null,
      redirect_uris: values['redirect-uri'] ?? null,
      id: values.id ?? null,
      url: values.url ?? null,
      image: values.image ?? null,
      privacy_statement: values['privacy-statement'] ?? null,
      brand_color: values['brand-color'] ?? null,
      purposes,
    }, createdAt);
    const secret = values.secret ? (await addClientSecret(store, application, 'cli')).secret : null;
    return presentApplication(application, secret, { pagesBase: context.config().pagesBase, baseUrl: context.config().baseUrl });
  },
});

// interface §5 "Consent": "the app writes one purpose sentence in its settings" (also on /account/applications/{id}).
export const appPurposes = command({
  words: 'app purposes',
  summary: 'Sets the purpose sentences of an existing application, shown on the consent screen → the application.',
  options: {
    app: { type: 'string', required: true, value: 'APP_ID', description: 'The application.' },
    purpose: {
      type: 'string', multiple: true, required: true, value: 'CATEGORY=SENTENCE',
      description: 'Why it asks for a category (activities, wellness, reproductive_health, workouts, sharing, email): 20 to 160 characters, plain text, no links, e.g. "activities=We chart your rides." An empty sentence ("email=") removes that purpose.',
    },
  },
  details: ['Purposes not named keep their sentence. Once an application is public, a request for a category without a purpose shows people a "not ready" page. The owner can also write them on the application\'s settings page (/account/applications/APP_ID).'],
  async run({ values }, context) {
    const purposes = parsePurposes(values.purpose);
    const store = await context.store();
    const application = await store.applications.get(values.app);
    if (!application) throw new CommandFailure(`application ${values.app} does not exist`);
    const updated = await setPurposes(store, application, purposes);
    return { ...presentApplication(updated, null, { pagesBase: context.config().pagesBase, baseUrl: context.config().baseUrl }), purposes: updated.purposes };
  },
});

/** `--purpose category=sentence`, repeated → category → sentence. */
function parsePurposes(entries: readonly string[] | undefined): Record<string, string> {
  const purposes: Record<string, string> = {};
  for (const entry of entries ?? []) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError('--purpose takes category=sentence, e.g. --purpose "activities=We chart your rides."');
    purposes[entry.slice(0, at).trim()] = entry.slice(at + 1);
  }
  return purposes;
}

// gaps.md: "Applications may have several client secrets, each with a label, shown once".
export const appSecretAdd = command({
  words: 'app secret add',
  summary: 'Adds a client secret to an application → {id, label, client_secret, hint, …}; the secret is shown only this once.',
  options: {
    app: { type: 'string', required: true, value: 'APP_ID', description: 'The application.' },
    label: { type: 'string', value: 'LABEL', description: 'A name to tell its secrets apart.' },
  },
  async run({ values }, context) {
    const store = await context.store();
    const application = await store.applications.get(values.app);
    if (!application) throw new CommandFailure(`application ${values.app} does not exist`);
    const { record, secret } = await addClientSecret(store, application, values.label ?? null);
    return { id: record.id, application_id: record.application_id, label: record.label, client_secret: secret, hint: record.hint, created_at: new Date(record.created_at).toISOString() };
  },
});

// "deleting one ends every token issued under it"
export const appSecretDelete = command({
  words: 'app secret delete',
  summary: 'Deletes a client secret; every refresh and access token issued under it stops working at once.',
  options: {
    app: { type: 'string', required: true, value: 'APP_ID', description: 'The application.' },
    id: { type: 'string', required: true, value: 'SECRET_ID', description: 'The secret\'s id (from app secret add, or the account pages).' },
  },
  async run({ values }, context) {
    if (!(await deleteClientSecret(await context.store(), values.app, values.id))) {
      throw new CommandFailure(`application ${values.app} has no client secret ${values.id}`);
    }
    return { deleted: true, id: values.id, application_id: values.app };
  },
});
