/**
 * JSON calls to the API for record tests: a client bound to one token, answering status and parsed body,
 * and a user with a personal token plus tokens of two applications (for app metadata, where each app sees
 * only its own).
 */
import { createApplication } from '../../gateway/services/accounts.js';
import type { TestStack } from './stack.js';

export interface JsonResponse {
  status: number;
  body: any;
}

export interface JsonClient {
  get(path: string): Promise<JsonResponse>;
  post(path: string, body: unknown): Promise<JsonResponse>;
  put(path: string, body: unknown): Promise<JsonResponse>;
  del(path: string): Promise<JsonResponse>;
}

export function jsonClient(stack: Pick<TestStack, 'baseUrl'>, token: string): JsonClient {
  const call = async (method: string, path: string, body?: unknown): Promise<JsonResponse> => {
    const response = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    del: (path) => call('DELETE', path),
  };
}

export interface RecordUser {
  userId: string;
  /** Personal token with `scopes`. */
  personal: JsonClient;
  /** Tokens of two different applications for the same user, with `scopes`. */
  appA: JsonClient;
  appB: JsonClient;
  appAId: string;
}

export async function recordUser(stack: TestStack, scopes: string[]): Promise<RecordUser> {
  const owner = await stack.userWithToken([]);
  const [a, b] = await Promise.all([createApplication(stack.store, owner.userId, { name: 'App A' }), createApplication(stack.store, owner.userId, { name: 'App B' })]);
  const personal = await stack.userWithToken(scopes);
  const appA = await stack.userWithToken(scopes, { appId: a.id, userId: personal.userId });
  const appB = await stack.userWithToken(scopes, { appId: b.id, userId: personal.userId });
  return {
    userId: personal.userId,
    personal: jsonClient(stack, personal.token),
    appA: jsonClient(stack, appA.token),
    appB: jsonClient(stack, appB.token),
    appAId: a.id,
  };
}
