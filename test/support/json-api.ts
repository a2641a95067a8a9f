/**
 * JSON requests to a running stack for the record endpoints' tests: one call sends a method, a path, a
 * bearer token and an optional JSON body, and returns the status, the parsed body (null when empty) and
 * the headers.
 */
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
