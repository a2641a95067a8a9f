/**
 * Discovery documents. The OpenID configuration lists only what exists: endpoints are added here as
 * the provider grows (the authorization and token endpoints arrive with the identity-provider issue).
 */
import { z } from 'zod';
import { SCOPES } from '../auth/scopes.js';
import type { RouteTable } from './route-table.js';
import type { GatewayDeps } from '../app.js';

const Jwks = z.object({ keys: z.array(z.object({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string(), n: z.string(), e: z.string() })) });

export function wellKnownRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/.well-known/jwks.json', operationId: 'jwks', summary: 'Public keys that verify access and ID tokens', tag: 'oauth', auth: 'none',
      responses: { 200: { description: 'JSON Web Key Set', schema: Jwks } },
    },
    async function jwks(ctx) {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = { keys: deps.keys.publicJwks() };
    },
  );

  table.add(
    {
      method: 'get', path: '/.well-known/openid-configuration', operationId: 'openidConfiguration', summary: 'OpenID Connect discovery', tag: 'oauth', auth: 'none',
      responses: { 200: { description: 'Provider metadata', schema: z.object({ issuer: z.string(), jwks_uri: z.string() }).passthrough() } },
    },
    async function openidConfiguration(ctx) {
      const base = deps.config.baseUrl;
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.body = {
        issuer: base,
        jwks_uri: `${base}/.well-known/jwks.json`,
        scopes_supported: [...SCOPES],
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat'],
      };
    },
  );
}
