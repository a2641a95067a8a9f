#!/usr/bin/env node
/**
 * The `threshold` command-line tool. It reads the same configuration as the service (DATA_DIR,
 * MONGODB_URI, BASE_URL, …) and works on the same store, so it is safe to run beside a running
 * service. Every command prints one JSON document on stdout; failures print `{"error": …}` on stderr
 * and exit with 1 (2 for a usage error).
 *
 *   threshold serve                                    the whole service in one process (npm start)
 *   threshold user create --email E [--password P] [--first-name F] [--last-name L]
 *   threshold app create --owner USER_ID --name N [--description D] [--redirect-uri U]… [--secret]
 *                        [--id ID] [--created-at ISO] [--url U] [--image U] [--privacy-statement U] [--brand-color C] [--purpose CATEGORY=SENTENCE]…
 *   threshold app secret add --app APP_ID [--label L]   a new client secret, shown once
 *   threshold app secret delete --app APP_ID --id SECRET_ID   ends every token issued under it
 *   threshold token mint --user USER_ID [--app APP_ID] --scopes "activities:read …"
 *   threshold keys rotate                              adds a signing key, retires the current one; prints the new kid
 *   threshold import --user USER_ID PATH…              FIT and CSV files or folders, through the ingest path
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { exitOnSignals, reportStartupFailure } from '../domain/process.js';
import { openStore } from '../storage/open-store.js';
import { sqliteFileFor } from '../storage/config.js';
import type { Store } from '../storage/store.js';
import { loadGatewayConfig, type GatewayConfig } from '../gateway/config.js';
import { startStack } from './stack.js';
import { HttpError, ValidationError } from '../gateway/errors.js';
import { SigningKeys } from '../gateway/auth/signing-keys.js';
import { mintAccessToken } from '../gateway/auth/access-tokens.js';
import { isScope, splitScopes } from '../gateway/auth/scopes.js';
import { addClientSecret, createApplication, createUser, unionGrant } from '../gateway/services/accounts.js';
import { deleteClientSecret } from '../gateway/services/grants.js';
import { presentApplication } from '../gateway/presenters/application.js';
import { importFiles } from './import.js';
import { ConfigError } from '../domain/config-error.js';

/** Wrong words on the command line: exit 2. */
class UsageError extends Error {}
/** A refused operation (a missing file, an unknown user): exit 1. */
class CommandFailure extends Error {}

const USAGE = `usage:
  threshold serve
  threshold user create --email E [--password P] [--first-name F] [--last-name L]
  threshold app create --owner USER_ID --name N [--description D] [--redirect-uri U]... [--secret]
                       [--id ID] [--created-at ISO] [--url U] [--image U] [--privacy-statement U] [--brand-color C] [--purpose CATEGORY=SENTENCE]...
  threshold app secret add --app APP_ID [--label L]
  threshold app secret delete --app APP_ID --id SECRET_ID
  threshold token mint --user USER_ID [--app APP_ID] --scopes "activities:read ..."
  threshold keys rotate
  threshold import --user USER_ID PATH...`;

type Command = (store: Store, config: GatewayConfig, args: string[]) => Promise<unknown>;

const COMMANDS: Record<string, Command> = {
  'user create': async (store, _config, args) => {
    const { values } = parse(args, { email: { type: 'string' }, password: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } });
    const user = await createUser(store, {
      email: required(values.email, '--email'),
      password: values.password ?? null,
      first_name: values['first-name'] ?? null,
      last_name: values['last-name'] ?? null,
    });
    return { id: user.id };
  },

  'app create': async (store, config, args) => {
    const { values } = parse(args, {
      owner: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true }, secret: { type: 'boolean' },
      // Importing an existing application: its id, creation instant, public fields and purposes.
      id: { type: 'string' }, 'created-at': { type: 'string' }, url: { type: 'string' }, image: { type: 'string' },
      'privacy-statement': { type: 'string' }, 'brand-color': { type: 'string' }, purpose: { type: 'string', multiple: true },
    });
    const createdAt = values['created-at'] === undefined ? undefined : Date.parse(values['created-at']);
    if (createdAt !== undefined && (Number.isNaN(createdAt) || !/(Z|[+-]\d\d:\d\d)$/.test(values['created-at']!))) {
      throw new UsageError('--created-at must be an ISO 8601 instant with a zone, like 2024-05-01T00:00:00Z');
    }
    const purposes: Record<string, string> = {};
    for (const entry of values.purpose ?? []) {
      const at = entry.indexOf('=');
      if (at <= 0) throw new UsageError('--purpose takes category=sentence, e.g. --purpose "activities=We chart your rides."');
      purposes[entry.slice(0, at).trim()] = entry.slice(at + 1);
    }
    const application = await createApplication(store, required(values.owner, '--owner'), {
      name: required(values.name, '--name'),
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
    return presentApplication(application, secret, { pagesBase: `${config.baseUrl}/pages` });
  },

  'token mint': async (store, config, args) => {
    const { values } = parse(args, { user: { type: 'string' }, app: { type: 'string' }, scopes: { type: 'string' } });
    const userId = required(values.user, '--user');
    const scopes = [...new Set(splitScopes(required(values.scopes, '--scopes')))];
    const unknown = scopes.filter((scope) => !isScope(scope));
    if (unknown.length > 0) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
    if (!(await store.users.get(userId))) throw new UsageError(`user ${userId} does not exist`);
    if (values.app) {
      if (!(await store.applications.get(values.app))) throw new UsageError(`application ${values.app} does not exist`);
      // An app token stands on a grant; minting one here records the consent it implies.
      await unionGrant(store, userId, values.app, scopes);
    }
    const keys = await SigningKeys.open(store);
    return mintAccessToken(keys, { issuer: config.baseUrl, userId, applicationId: values.app ?? null, scopes });
  },

  // gaps.md: "Applications may have several client secrets, each with a label, shown once".
  'app secret add': async (store, _config, args) => {
    const { values } = parse(args, { app: { type: 'string' }, label: { type: 'string' } });
    const appId = required(values.app, '--app');
    const application = await store.applications.get(appId);
    if (!application) throw new CommandFailure(`application ${appId} does not exist`);
    const { record, secret } = await addClientSecret(store, application, values.label ?? null);
    return { id: record.id, application_id: record.application_id, label: record.label, client_secret: secret, hint: record.hint, created_at: new Date(record.created_at).toISOString() };
  },

  // "deleting one ends every token issued under it"
  'app secret delete': async (store, _config, args) => {
    const { values } = parse(args, { app: { type: 'string' }, id: { type: 'string' } });
    const appId = required(values.app, '--app');
    const secretId = required(values.id, '--id');
    if (!(await deleteClientSecret(store, appId, secretId))) throw new CommandFailure(`application ${appId} has no client secret ${secretId}`);
    return { deleted: true, id: secretId, application_id: appId };
  },

  // AUTH.md: "keys persisted, rotatable, old keys published until their tokens expire".
  'keys rotate': async (store) => {
    const keys = await SigningKeys.open(store);
    return { kid: await keys.rotate() };
  },
};

COMMANDS['import'] = async (store, config, args) => {
  const { values, positionals } = parse(args, { user: { type: 'string' } }, true);
  if (positionals.length === 0) throw new UsageError('import needs at least one file or folder');
  try {
    return await importFiles(store, process.env, required(values.user, '--user'), positionals, config.maxUploadBytes);
  } catch (error) {
    throw new CommandFailure(error instanceof ConfigError ? error.message : (error as Error).message);
  }
};

function parse<const T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args, options, strict: true as const, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required`);
  return value;
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'serve') {
    try {
      const stack = await startStack({ env: process.env });
      stack.logger.info({ url: stack.baseUrl, engine: stack.engineAddress }, 'threshold is running');
      exitOnSignals(stack.logger, () => stack.close());
    } catch (error) {
      reportStartupFailure(error);
    }
    return -1; // keep running
  }
  // Commands are one to three words (`import`, `user create`, `app secret add`).
  const name = [3, 2, 1].map((words) => argv.slice(0, words).join(' ')).find((candidate) => Object.hasOwn(COMMANDS, candidate)) ?? argv.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`${JSON.stringify({ error: `unknown command '${argv.join(' ')}'` })}\n${USAGE}\n`);
    return 2;
  }
  let config: GatewayConfig;
  try {
    config = loadGatewayConfig(process.env);
  } catch (error) {
    process.stderr.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
    return 1;
  }
  const store = await openStore({ mongodbUri: config.store.mongodbUri, mongodbDatabase: config.store.mongodbDatabase, sqliteFile: sqliteFileFor(config.store) });
  try {
    const result = await command(store, config, argv.slice(name.split(' ').length));
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${JSON.stringify({ error: describe(error) })}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await store.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof ValidationError) return error.issues.map((issue) => `${String(issue.loc.at(-1))}: ${issue.msg}`).join('; ');
  if (error instanceof HttpError || error instanceof UsageError || error instanceof CommandFailure) return error.message;
  return `unexpected failure: ${(error as Error).message}`;
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
