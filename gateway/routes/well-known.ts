/**
 * Discovery documents (interface §5 "Endpoints of the flow"; AUTH.md "Discovery, JWKS, userinfo, ID
 * token"). The OpenID configuration is truthful: it lists exactly the endpoints, grants, methods and
 * claims the provider implements, and nothing it does not (no request objects, no claims parameter, no
 * implicit or hybrid flows). The JWKS publishes public key members only, every key that may still verify
 * a live token. Kept honest by test/gateway/oidc.test.ts.
 */
import { z } from 'zod';
import { named } from '../schemas/components.js';
import { SCOPES } from '../auth/scopes.js';
import { CLAIMS } from '../auth/id-tokens.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

const Jwks = named('Jwks', z.object({ keys: z.array(z.object({ kty: z.string(), kid: z.string(), alg: z.string(), use: z.string(), n: z.string(), e: z.string() })) }));

export function wellKnownRoutes(table: RouteTable, deps: GatewayDeps): void {
  table.add(
    {
      method: 'get', path: '/.well-known/jwks.json', operationId: 'jwks', summary: 'Public keys that verify access and ID tokens', tag: 'oauth', auth: 'none',
      responses: { 200: { description: 'JSON Web Key Set', schema: Jwks } },
    },
    async function jwks(ctx) {
      ctx.set('Cache-Control', 'public, max-age=300');
      // Public members only, whatever the key records hold: never d, p, q, dp, dq, qi.
      ctx.body = { keys: deps.keys.publicJwks().map(({ kty, n, e, kid, alg, use }) => ({ kty, kid, alg, use, n, e })) };
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
        // interface §5: "Authorization | {base_url}/oauth/authorize", "Token | {base_url}/api/v1/oauth/token"
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/api/v1/oauth/token`,
        userinfo_endpoint: `${base}/api/v1/oauth/userinfo`,
        jwks_uri: `${base}/.well-known/jwks.json`,
        scopes_supported: [...SCOPES],
        // "response_type | required; code; not validated, code is the only flow"
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        // HTTP Basic, a body secret, or none with PKCE ("never required with PKCE")
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        // "code_challenge, code_challenge_method | PKCE; method S256"
        code_challenge_methods_supported: ['S256'],
        claims_supported: [...CLAIMS],
        // "prompt | optional; none, consent, login, select_account"
        prompt_values_supported: ['none', 'consent', 'login', 'select_account'],
        // AUTH.md: "`iss` on every response" of the authorization endpoint (RFC 9207)
        authorization_response_iss_parameter_supported: true,
        request_parameter_supported: false,
        request_uri_parameter_supported: false,
        claims_parameter_supported: false,
      };
    },
  );
}
