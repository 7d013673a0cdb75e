/**
 * `?tls=true` on the Sentinel and Cluster forms of REDIS_URL (the production guard accepts it as
 * TLS) must really make the client speak TLS. A listener that records the first bytes each
 * connection sends tells a TLS ClientHello (a handshake record, 0x16 0x03) from plain RESP.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createRedisClient, type RedisClient } from '../../src/redis';

const KEY = Buffer.alloc(32, 7).toString('base64');
const TLS_HANDSHAKE = 0x16;

const listeners: net.Server[] = [];
const clients: RedisClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(listeners.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A port whose first connection's first byte is resolved, then dropped. */
async function firstByteListener(): Promise<{ port: number; firstByte: Promise<number> }> {
  let received: (byte: number) => void = () => undefined;
  const firstByte = new Promise<number>((resolve) => (received = resolve));
  const server = net.createServer((socket) => {
    socket.once('data', (chunk: Buffer) => {
      received(chunk[0] ?? -1);
      socket.destroy();
    });
  });
  listeners.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, firstByte };
}

async function firstByteFor(url: (port: number) => string): Promise<number> {
  const { port, firstByte } = await firstByteListener();
  const target = loadConfig({ REDIS_URL: url(port), CREDENTIAL_KEY: KEY }).redis;
  if (!target) throw new Error('no REDIS_URL');
  clients.push(createRedisClient({ target }));
  return firstByte;
}

describe('createRedisClient with ?tls=true', () => {
  it('opens its connection to a sentinel with a TLS handshake, and in plain RESP without it', async () => {
    expect(await firstByteFor((port) => `redis+sentinel://127.0.0.1:${port}/sessions?tls=true`)).toBe(TLS_HANDSHAKE);
    expect(await firstByteFor((port) => `redis+sentinel://127.0.0.1:${port}/sessions`)).not.toBe(TLS_HANDSHAKE);
  });

  it('opens its connection to a cluster seed with a TLS handshake, and in plain RESP without it', async () => {
    expect(await firstByteFor((port) => `redis+cluster://127.0.0.1:${port}?tls=true`)).toBe(TLS_HANDSHAKE);
    expect(await firstByteFor((port) => `redis+cluster://127.0.0.1:${port}`)).not.toBe(TLS_HANDSHAKE);
  });

  it('asks the data nodes a sentinel names over TLS too', () => {
    const target = loadConfig({ REDIS_URL: 'redis+sentinel://127.0.0.1:1/sessions?tls=true', CREDENTIAL_KEY: KEY }).redis;
    if (!target) throw new Error('no REDIS_URL');
    const client = createRedisClient({ target });
    clients.push(client);
    expect(client.options).toMatchObject({ tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} });
  });
});
