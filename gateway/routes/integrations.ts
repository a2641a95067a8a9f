/**
 * Provider integrations, the browser and push sides (the engine does every provider call):
 *
 *   GET  /integrations/:provider/connect?interaction=<id>   authorize's `integration` hand-off: a signed-in
 *                                                          user without that connection is sent to the
 *                                                          provider, then back into the authorize flow
 *   GET  /integrations/:provider/signin?interaction=<id>    sign-in through the provider for a signed-out
 *                                                          person in an authorize flow (`integration`, or a
 *                                                          "Sign in with" button on the sign-in screen)
 *   GET  /integrations/:provider/callback                  the provider's redirect: completes the connection
 *                                                          (or sign-in) in the browser that started it
 *                                                          (binding cookie)
 *   POST /api/v1/integrations/{provider}/push              provider webhooks (intervals.icu `secret`
 *                                                          envelope; Wahoo `webhook_token`; Garmin client id
 *                                                          header): verified and stored durably by the engine,
 *                                                          then 200 at once; processed by a job
 *
 * A signed-out person reaching authorize with `integration` ("skips the sign-in chooser and sends the user
 * straight to that provider") signs in through the provider: the provider's user id picks the account
 * linked to it, or a new account is created and linked with the connection stored as a connect stores it
 * (engine/integrations/connections.ts); then the authorize flow goes on (consent, or a code). An email
 * of another account is never merged: the person is asked to sign in to that account first and connect
 * there. A refusal at the provider, for a sign-in, ends on a page that leads back to the sign-in screen.
 * A signed-in user without that connection connects first; refusing there ends an authorize flow with
 * `error=access_denied` to the app, and a portal visit with a notice. Kept honest by
 * test/gateway/integrations.test.ts and test/gateway/provider-sign-in.test.ts.
 */
import type { Context } from 'koa';
import { z } from 'zod';
import { PROVIDER_NAMES, PROVIDERS, type Provider } from '../../domain/providers.js';
import type { CompleteProviderConnectionResponse } from '../../engine/contract.js';
import { HttpError } from '../errors.js';
import { callbackUrl, type AuthorizationRequest } from '../auth/authorization-request.js';
import { interactionPath, liveInteraction } from '../services/interactions.js';
import { browserBinding, providerCallbackUrl, startProviderAuthorization } from '../services/provider-authorization.js';
import { authorizationErrorPage } from '../pages/oauth.js';
import { providerSignInStoppedPage } from '../pages/sign-in.js';
import { sendPage } from '../pages/layout.js';
import { seeOther, SIGNED_IN_HOME } from '../pages/forms.js';
import type { RouteTable } from '../route-table.js';
import type { GatewayDeps } from '../deps.js';

/** "Accept ≥ 10 MB bodies" (Garmin); intervals.icu and Wahoo pushes are far smaller. Bytes. */
const MAX_PUSH_BYTES = 16 * 1024 * 1024;

const PushParams = z.object({ provider: z.enum(PROVIDERS).describe('The provider sending the push') });
const PushReceived = z.object({ received: z.number().int().describe('Items the push carried that will be processed') });

export function integrationRoutes(table: RouteTable, deps: GatewayDeps): void {
  const configured = (name: unknown): Provider | null => deps.config.configuredProviders.find((provider) => provider === name) ?? null;

  table.page({ method: 'get', path: '/integrations/:provider/connect', name: 'connectIntegration' }, async function connectFromAuthorize(ctx) {
    const provider = configured(ctx.params.provider);
    const interaction = await liveInteraction(deps.store, ctx.query.interaction);
    const session = await deps.sessions.current(ctx);
    if (!provider || !interaction || !session || interaction.session_id !== session.id || !session.user_id) {
      return sendPage(ctx, 400, authorizationErrorPage({ title: 'This request has expired', message: 'Return to the app you came from and start again.' }));
    }
    await startProviderAuthorization(ctx, deps, { userId: session.user_id, provider, returnTo: `interaction:${interaction.id}` });
  });

  table.page({ method: 'get', path: '/integrations/:provider/signin', name: 'signInWithIntegration' }, async function signInThroughProvider(ctx) {
    const provider = configured(ctx.params.provider);
    const interaction = await liveInteraction(deps.store, ctx.query.interaction);
    const session = await deps.sessions.current(ctx);
    if (!provider || !interaction || !session || interaction.session_id !== session.id) {
      return sendPage(ctx, 400, authorizationErrorPage({ title: 'This request has expired', message: 'Return to the app you came from and start again.' }));
    }
    if (session.user_id) return seeOther(ctx, interactionPath(interaction.id));
    await startProviderAuthorization(ctx, deps, { userId: null, provider, returnTo: `interaction:${interaction.id}` });
  });

  table.page({ method: 'get', path: '/integrations/:provider/callback', name: 'integrationCallback' }, async function providerCallback(ctx) {
    const provider = configured(ctx.params.provider);
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    const binding = browserBinding(ctx, deps.config.baseUrl);
    if (!provider || !state || !binding) return expired(ctx);
    let done;
    try {
      done = await deps.engine.completeProviderConnection({
        provider, state, binding,
        code: typeof ctx.query.code === 'string' ? ctx.query.code : '',
        error: typeof ctx.query.error === 'string' ? ctx.query.error : '',
        redirect_uri: providerCallbackUrl(deps.config.baseUrl, provider),
      });
    } catch (error) {
      if (error instanceof HttpError && error.status < 500) return expired(ctx, error.code === 'provider_refused' ? 'The platform did not accept the connection. Try again in a moment.' : undefined);
      throw error;
    }
    if (done.sign_in) return signedInThrough(ctx, provider, done);
    if (done.return_to === 'portal') return seeOther(ctx, `/portal/manage-integrations?notice=${done.connected ? 'connected' : 'refused'}`);
    const interactionId = done.return_to.startsWith('interaction:') ? done.return_to.slice('interaction:'.length) : '';
    if (done.connected) return seeOther(ctx, `/oauth/interaction/${encodeURIComponent(interactionId)}`);
    // Refused at the provider: the app asked for this platform, so its flow ends as a refusal.
    const interaction = await liveInteraction(deps.store, interactionId);
    if (!interaction) return expired(ctx);
    await deps.store.interactions.updateOne({ id: interaction.id, consumed_at: null }, { set: { consumed_at: Date.now() } });
    const request = interaction.request as unknown as AuthorizationRequest;
    seeOther(ctx, callbackUrl(request.redirect_uri, deps.config.baseUrl, { error: 'access_denied', error_description: `The user did not connect ${provider}`, state: request.state }));
  });

  /**
   * The end of a sign-in through a provider: signed in (the session rotated, the authorize flow carried
   * across) and back into that flow, or a page saying why not that leads back to the sign-in screen.
   */
  async function signedInThrough(ctx: Context, provider: Provider, done: CompleteProviderConnectionResponse): Promise<void> {
    const interactionId = done.return_to.startsWith('interaction:') ? done.return_to.slice('interaction:'.length) : null;
    const name = PROVIDER_NAMES[provider];
    const stopped = (status: number, title: string, message: string) => sendPage(ctx, status, providerSignInStoppedPage({ title, message, interactionId }));
    if (done.sign_in === 'refused') {
      return stopped(200, `Sign-in with ${name} was cancelled`, `${name} did not confirm who you are, so you are not signed in. Sign in another way, or try ${name} again.`);
    }
    if (done.sign_in === 'email_taken') {
      return stopped(409, 'You already have an account', `The email address of your ${name} account belongs to a Threshold account. Sign in to that account first; ${name} can then be connected to it.`);
    }
    const user = done.user_id ? await deps.store.users.get(done.user_id) : null;
    if (done.sign_in === 'ambiguous' || !user || user.managed_by !== null) {
      return stopped(409, `${name} cannot sign you in`, `This ${name} account is connected to more than one Threshold account, or to one that cannot sign in. Sign in with your email instead.`);
    }
    await deps.sessions.signIn(ctx, user.id);
    seeOther(ctx, interactionId ? interactionPath(interactionId) : SIGNED_IN_HOME);
  }

  table.add(
    {
      method: 'post', path: '/api/v1/integrations/{provider}/push', operationId: 'receiveProviderPush', tag: 'integrations',
      summary: 'Provider webhooks (intervals.icu, Wahoo, Garmin Connect): verified, stored, answered at once, processed in the background',
      auth: 'none', params: PushParams,
      responses: {
        200: { description: 'Stored; duplicates are harmless', schema: PushReceived },
        403: { description: 'The push does not carry our secret (or Garmin client id)' },
        404: { description: 'The provider is not configured on this server' },
        413: { description: 'Body too large' },
      },
    },
    async function receivePush(ctx) {
      const provider = configured(ctx.params.provider);
      if (!provider) throw new HttpError(404, `${ctx.params.provider} is not configured on this server`, { code: 'provider_not_configured' });
      const body = await rawBody(ctx);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(ctx.headers)) if (typeof value === 'string') headers[name.toLowerCase()] = value;
      ctx.body = { received: await deps.engine.receiveProviderPush({ provider, headers, body }) };
    },
  );
}

function expired(ctx: Context, message = 'This connection request has expired or was started in another browser. Start again from the app.'): void {
  sendPage(ctx, 400, authorizationErrorPage({ title: 'Connection not completed', message }));
}

async function rawBody(ctx: Context): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_PUSH_BYTES) throw new HttpError(413, `a push may carry at most ${MAX_PUSH_BYTES} bytes`, { code: 'payload_too_large' });
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
