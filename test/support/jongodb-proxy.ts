/**
 * A loopback TCP proxy in front of the bundled jongodb server that mends the two kinds of request of the
 * Node driver that jongodb 0.1.6 refuses, so the store and the driver run unmodified:
 *
 * - `findOneAndDelete` goes out as `findAndModify` with `remove: true, new: false, upsert: false`.
 *   MongoDB accepts that (it refuses only `new: true` or `upsert: true` beside a removal); jongodb
 *   refuses the mere presence of `new` or `upsert` ("new is not allowed when remove=true"). The proxy
 *   drops the two fields when they are false, which means the same on MongoDB.
 * - The driver reaches the proxy with `directConnection=true` (without it, it would follow the replica
 *   set's member list to jongodb's own port and bypass the proxy), and on a direct connection to a
 *   replica-set member it sends every command with `$readPreference: {mode: 'primaryPreferred'}`, as the
 *   server-selection spec requires. jongodb's single-node replica set accepts only mode 'primary'
 *   ("supports readPreference mode 'primary' only"). On a one-member set the two modes pick the same
 *   node, so the proxy drops that field.
 *
 * It deliberately rewrites nothing else: every other message, and every reply, passes byte for byte,
 * and only an OP_MSG body that is a `findAndModify` or holds a `$readPreference` document is decoded.
 *
 * Kept honest by the storage contract on jongodb (test/storage/mongo.test.ts; its blob tests delete
 * through findOneAndDelete) and by test/gateway/mongo-end-to-end.test.ts.
 */import net from 'node:net';
import { once } from 'node:events';
import { BSON } from 'mongodb';

const OP_MSG = 2013;
/** Header (16 bytes) + flagBits (4): the first section's kind byte sits here. */
const FIRST_SECTION = 20;
const CHECKSUM_PRESENT = 1;
/** A document-typed element named `$readPreference` (type 0x03, then the name): only bodies holding it are decoded. */
const READ_PREFERENCE_ELEMENT = Buffer.from('\x03$readPreference\x00', 'latin1');

export interface Proxy {
  port: number;
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port, forwarding to `target`. */
export async function startJongodbProxy(target: { host: string; port: number }): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    const end = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.pipe(client);

    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const length = pending.readInt32LE(0);
        if (!upstream.write(mend(pending.subarray(0, length)))) {
          client.pause();
          upstream.once('drain', () => client.resume());
        }
        pending = pending.subarray(length);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    async close() {
      const closed = once(server, 'close');
      server.close();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/**
 * The message itself, or the same message with its body mended: a removing `findAndModify` loses
 * `new: false` / `upsert: false`, and a `$readPreference: {mode: 'primaryPreferred'}` is dropped.
 */
function mend(message: Buffer): Buffer {
  if (message.length < FIRST_SECTION + 5 || message.readInt32LE(12) !== OP_MSG) return message;
  const flags = message.readUInt32LE(16);
  if ((flags & CHECKSUM_PRESENT) !== 0 || message[FIRST_SECTION] !== 0) return message;
  const bodyStart = FIRST_SECTION + 1;
  const bodyEnd = bodyStart + message.readInt32LE(bodyStart);
  // The first element's name: after the document's length (4 bytes) and the element's type (1 byte).
  const nameStart = bodyStart + 5;
  const command = message.toString('latin1', nameStart, message.indexOf(0, nameStart));
  const mayPrefer = message.subarray(bodyStart, bodyEnd).includes(READ_PREFERENCE_ELEMENT);
  if (command !== 'findAndModify' && !mayPrefer) return message;

  const body = BSON.deserialize(message.subarray(bodyStart, bodyEnd), {
    promoteValues: false, promoteBuffers: false, promoteLongs: false, bsonRegExp: true,
  });
  let changed = false;
  if (command === 'findAndModify' && body['remove'] === true) {
    for (const field of ['new', 'upsert']) {
      if (body[field] === false) {
        delete body[field];
        changed = true;
      }
    }
  }
  const preference = body['$readPreference'] as { mode?: unknown } | undefined;
  if (preference?.mode === 'primaryPreferred' && Object.keys(preference).length === 1) {
    delete body['$readPreference'];
    changed = true;
  }
  if (!changed) return message;

  const mended = Buffer.from(BSON.serialize(body));
  const rest = message.subarray(bodyEnd);
  const header = Buffer.from(message.subarray(0, bodyStart));
  header.writeInt32LE(header.length + mended.length + rest.length, 0);
  return Buffer.concat([header, mended, rest]);
}
