/**
 * The provider integration RPCs (engine.proto "Provider integrations"): thin handlers that check fields,
 * call engine/integrations/connections.ts and push-job.ts, and turn their errors into gRPC statuses with
 * stable codes. test/gateway/integrations.test.ts runs them on the real stack against the stand-in.
 */
import { status } from '@grpc/grpc-js';
import { EngineError } from '../errors.js';
import {
  beginConnection, completeConnection, ConnectionError, disconnect, type ConnectionDeps,
} from '../integrations/connections.js';
import { acceptPush } from '../integrations/push-job.js';
import { PushRejected } from '../integrations/provider.js';
import type { BeginProviderConnectionRequest, CompleteProviderConnectionRequest, ReceiveProviderPushRequest } from '../contract.js';
import { requireField } from './request-fields.js';

const SUBSYSTEM = 'integrations';

export function providerConnectionHandlers(deps: ConnectionDeps) {
  return {
    async begin(request: Partial<BeginProviderConnectionRequest>) {
      const signIn = request.sign_in === true;
      if (signIn && request.user_id) throw new EngineError(status.INVALID_ARGUMENT, `${SUBSYSTEM}: a sign-in has no user_id`);
      const input = {
        userId: signIn ? null : requireField(request.user_id, 'user_id', SUBSYSTEM),
        provider: requireField(request.provider, 'provider', SUBSYSTEM),
        redirectUri: requireField(request.redirect_uri, 'redirect_uri', SUBSYSTEM),
        binding: requireField(request.binding, 'binding', SUBSYSTEM),
        returnTo: requireField(request.return_to, 'return_to', SUBSYSTEM),
      };
      return mapped(() => beginConnection(deps, input));
    },
    async complete(request: Partial<CompleteProviderConnectionRequest>) {
      const input = {
        provider: requireField(request.provider, 'provider', SUBSYSTEM),
        state: requireField(request.state, 'state', SUBSYSTEM),
        binding: requireField(request.binding, 'binding', SUBSYSTEM),
        redirectUri: requireField(request.redirect_uri, 'redirect_uri', SUBSYSTEM),
        code: request.code || null,
        error: request.error || null,
      };
      const done = await mapped(() => completeConnection(deps, input));
      return { user_id: done.userId, return_to: done.returnTo, connected: done.connected, sign_in: done.signIn ?? '' };
    },
    async disconnect(request: { user_id?: string; provider?: string }) {
      const userId = requireField(request.user_id, 'user_id', SUBSYSTEM);
      const provider = requireField(request.provider, 'provider', SUBSYSTEM);
      return { disconnected: await mapped(() => disconnect(deps, userId, provider)) };
    },
    async push(request: Partial<ReceiveProviderPushRequest>) {
      const provider = requireField(request.provider, 'provider', SUBSYSTEM);
      const body = request.body ?? new Uint8Array();
      return { items: await mapped(() => acceptPush(deps, provider, { headers: request.headers ?? {}, body })) };
    },
  };
}

async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PushRejected) throw new EngineError(status.PERMISSION_DENIED, error.message, 'push_rejected');
    if (!(error instanceof ConnectionError)) throw error;
    if (error.code === 'not_configured') throw new EngineError(status.NOT_FOUND, error.message, 'provider_not_configured');
    throw new EngineError(status.FAILED_PRECONDITION, error.message, error.code);
  }
}
