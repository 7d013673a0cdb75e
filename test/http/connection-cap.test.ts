/**
 * The cap on open connections per replica (`server.maxConnections`: MAX_CONNECTIONS, 4,096, in
 * src/gateway/server.ts): past it a new connection is closed at once, unanswered, so a flood of
 * idle or slow connections runs into the cap rather than into file descriptors and memory; once
 * some close, new connections are served again. The gateway runs in this process on its embedded
 * emulator with a cap of 64 (startGateway's `maxConnections`): opening a loopback connection takes
 * about 1.8 ms on this machine, so 4,096 would take over 7 s, near the 10 s headers timeout that
 * closes connections which send nothing.
 */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { MAX_CONNECTIONS } from '../../src/gateway/listener';
import { startGateway, type RunningGateway } from '../../src/gateway/server';
import { sendThenRead } from '../support/raw-http';

const CAP = 64;
const idle: net.Socket[] = [];
let gateway: RunningGateway | undefined;
afterAll(async () => {
  for (const socket of idle) socket.destroy();
  await gateway?.close();
});

function open(url: URL): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** One GET /healthcheck on a new connection: the answer's status, 0 when it was closed unanswered. */
async function probe(url: URL): Promise<number> {
  return (await sendThenRead(url.href, `GET /healthcheck HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close`, [], 5_000)).status;
}

describe('the open-connection cap', () => {
  it('is 4,096 per replica', () => {
    expect(MAX_CONNECTIONS).toBe(4_096);
  });

  it('closes a new connection unanswered while the cap is reached, and serves new ones once some close', async () => {
    gateway = await startGateway(loadConfig({ PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'warn' }), { maxConnections: CAP });
    const url = new URL(gateway.url);
    expect(await probe(url)).toBe(200);
    // The probe's connection is closed: CAP idle ones fill the cap.
    await expect.poll(async () => {
      while (idle.length < CAP) idle.push(await open(url));
      return probe(url);
    }).toBe(0);
    // The idle ones were still open (not closed by the headers timeout): the cap refused it.
    expect(idle.every((socket) => !socket.destroyed && socket.readyState === 'open')).toBe(true);
    expect(await probe(url)).toBe(0);

    for (const socket of idle.splice(0, 4)) socket.destroy();
    await expect.poll(() => probe(url)).toBe(200);
  });
});
