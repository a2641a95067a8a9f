/**
 * A loopback HTTP receiver standing for our push route in provider tests: it hands each POST's headers
 * and parsed JSON body to `handle` and answers the status it returns. The framework's real route
 * (another branch) does the same with the same parsing functions.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PushReceiver {
  url: string;
  close(): Promise<void>;
}

export async function startPushReceiver(handle: (headers: IncomingHttpHeaders, body: unknown) => number | Promise<number>): Promise<PushReceiver> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let body: unknown = null;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = null;
    }
    response.writeHead(await handle(request.headers, body)).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
