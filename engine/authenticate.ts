/**
 * Engine token check (ENGINE_TOKEN): a server interceptor that answers UNAUTHENTICATED unless the
 * call carries `authorization: Bearer <token>`. Compared in constant time over SHA-256 digests (equal
 * lengths whatever was sent). Health checks are exempt so orchestrators can probe without the secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  Metadata, ResponderBuilder, ServerInterceptingCall, ServerListenerBuilder, status, type ServerInterceptor,
} from '@grpc/grpc-js';

const EXEMPT_PREFIX = '/grpc.health.v1.Health/';

export function authenticate(token: string): ServerInterceptor {
  const expected = digest(`Bearer ${token}`);
  return function authenticateCall(method, call) {
    const listener = new ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        if (method.path.startsWith(EXEMPT_PREFIX) || matches(metadata, expected)) {
          next(metadata);
          return;
        }
        call.sendStatus({ code: status.UNAUTHENTICATED, details: 'engine: missing or wrong engine token', metadata: new Metadata() });
      })
      .build();
    return new ServerInterceptingCall(call, new ResponderBuilder().withStart((next) => next(listener)).build());
  };
}

/** Call metadata for a configured token (empty without one). */
export function authorizationMetadata(token: string | null): Metadata {
  const metadata = new Metadata();
  if (token !== null) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

function matches(metadata: Metadata, expected: Buffer): boolean {
  const values = metadata.get('authorization');
  if (values.length !== 1 || typeof values[0] !== 'string') return false;
  return timingSafeEqual(digest(values[0]), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
