/**
 * Page deploys for tests: a multipart body built by hand, so a test controls each part's filename byte for
 * byte (backslashes, NUL, absolute paths, raw UTF-8, `filename*=`), and `deploy` that sends it to
 * PUT /api/v1/pages/{slug}/deploy.
 */
import { randomBytes } from 'node:crypto';
import type { TestStack } from './stack.js';

export interface PagePart {
  /** The filename parameter as sent (a `\` is escaped for the quoted string). */
  path: string;
  content: string | Uint8Array;
  type?: string;
  /** The name's parameter exactly as sent instead of `filename="<path>"` (`filename*=UTF-8''a%0D%0Ab`, `filename=""`). */
  disposition?: string;
}

export function multipartBody(parts: readonly PagePart[], field = 'files'): { body: Buffer; contentType: string } {
  const boundary = `----threshold-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.path.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; ${part.disposition ?? `filename="${filename}"`}\r\nContent-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`, 'utf8'));
    chunks.push(typeof part.content === 'string' ? Buffer.from(part.content, 'utf8') : Buffer.from(part.content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function deploy(stack: Pick<TestStack, 'baseUrl'>, slug: string, token: string, parts: readonly PagePart[]): Promise<{ status: number; body: any }> {
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(`${stack.baseUrl}/api/v1/pages/${slug}/deploy`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
