/** A TCP port on loopback that was free a moment ago, for a setting that must name its port before the server starts. */
import net from 'node:net';
import { once } from 'node:events';

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
