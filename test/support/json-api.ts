/**
 * JSON requests to a running stack for the record endpoints' tests: `sendJson` sends a method, a path, a
 * bearer token and an optional JSON body and answers the status, the parsed body (null when empty) and the
 * headers; `jsonClient` binds it to one token; `recordUser` is a user with a personal token plus tokens of
 * two applications (for app metadata, where each app sees only its own).
 */
import { createApplication } from '../../gateway/services/accounts.js';
import type { TestStack } from './stack.js';

export interface JsonResponse {
  status: number;
  body: any;
  headers: Headers;
}

export async function sendJson(stack: Pick<TestStack, 'baseUrl'>, method: string, urlPath: string, token: string, body?: unknown): Promise<JsonResponse> {
  const response = await fetch(`${stack.baseUrl}${urlPath}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

/** The parsed body of a 2xx answer; any other status throws with the body. */
export async function okJson(stack: Pick<TestStack, 'baseUrl'>, method: string, urlPath: string, token: string, body?: unknown): Promise<any> {
  const response = await sendJson(stack, method, urlPath, token, body);
  if (response.status < 200 || response.status > 299) throw new Error(`${method} ${urlPath}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A 422 in the interface's shape (§7: `{detail: [{loc, msg, type}]}`) with an issue at `loc`; returns that issue's msg. */
export function validationIssueAt(response: JsonResponse, loc: (string | number)[]): string {
  if (response.status !== 422) throw new Error(`expected 422 at ${loc.join('.')}, got ${response.status} ${JSON.stringify(response.body)}`);
  const detail = response.body?.detail;
  const wellFormed = Array.isArray(detail) && detail.length > 0 && detail.every((issue: any) =>
    Array.isArray(issue.loc) && typeof issue.msg === 'string' && typeof issue.type === 'string' && Object.keys(issue).length === 3);
  if (!wellFormed) throw new Error(`422 body is not {detail: [{loc, msg, type}]}: ${JSON.stringify(response.body)}`);
  const issue = detail.find((candidate: any) => JSON.stringify(candidate.loc) === JSON.stringify(loc));
  if (!issue) throw new Error(`no issue at ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`);
  return issue.msg;
}

export interface JsonClient {
  get(path: string): Promise<JsonResponse>;
  post(path: string, body: unknown): Promise<JsonResponse>;
  put(path: string, body: unknown): Promise<JsonResponse>;
  del(path: string): Promise<JsonResponse>;
}

export function jsonClient(stack: Pick<TestStack, 'baseUrl'>, token: string): JsonClient {
  const call = (method: string, path: string, body?: unknown): Promise<JsonResponse> => sendJson(stack, method, path, token, body);
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
