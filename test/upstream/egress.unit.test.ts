/**
 * The egress proxy's clients (src/upstream/egress.ts) against a real proxy in this process
 * (test/support/egress-proxy.ts): undici's dispatcher for the upstream client and the node:http
 * agents for the OTLP exporter send http:// destinations in absolute form, tunnel https:// ones
 * with CONNECT, reach NO_PROXY hosts directly, and carry the proxy URL's credentials.
 */
import { createServer, request as httpRequest, type Agent, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, type Egress } from '../../src/upstream/egress';
import { startEgressProxy, type EgressProxy } from '../support/egress-proxy';

let proxy: EgressProxy;
let target: Server;
let targetUrl: string;
const egresses: Egress[] = [];
beforeAll(async () => {
  proxy = await startEgressProxy();
  target = createServer((req, res) => res.end(`target saw ${req.method} ${req.url}`));
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(egresses.splice(0).map((egress) => egress.close()));
  proxy.requests.splice(0);
});
afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => target.close(resolve));
});

function egressThrough(proxyUrl: string, noProxy = ''): Egress {
  const egress = createEgress({ httpProxy: proxyUrl, httpsProxy: proxyUrl, noProxy });
  egresses.push(egress);
  return egress;
}

/** A GET with node:http(s) and `agent`: the answer's text, or the error's code. */
function getWith(agent: Agent, url: string): Promise<string> {
  return new Promise((resolve) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest;
    const outgoing = send(url, { agent, rejectUnauthorized: false }, (answer) => {
      let text = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      answer.on('end', () => resolve(text));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    outgoing.end();
  });
}

describe('the egress dispatcher (upstream calls)', () => {
  it('sends an http:// call to the proxy in absolute form, and gets the destination\'s answer', async () => {
    const answer = await request(`${targetUrl}/v2/graphql`, { method: 'POST', body: '{}', dispatcher: egressThrough(proxy.url).dispatcher });
    expect(await answer.body.text()).toBe('target saw POST /v2/graphql');
    expect(proxy.requests).toEqual([{ kind: 'forward', method: 'POST', target: new URL(targetUrl).host, path: '/v2/graphql' }]);
  });

  it('tunnels an https:// call with CONNECT (the proxy never sees its path)', async () => {
    // No TLS server listens there: the call fails inside the tunnel, after the proxy was asked.
    const failed = await request(`https://127.0.0.1:${new URL(targetUrl).port}/v2/graphql`, { dispatcher: egressThrough(proxy.url).dispatcher }).then(() => false, () => true);
    expect(failed).toBe(true);
    expect(proxy.requests).toEqual([{ kind: 'tunnel', method: 'CONNECT', target: `127.0.0.1:${new URL(targetUrl).port}` }]);
  });

  it('reaches a NO_PROXY host directly', async () => {
    const answer = await request(`${targetUrl}/v2/graphql`, { dispatcher: egressThrough(proxy.url, `example.com, ${new URL(targetUrl).host}`).dispatcher });
    expect(await answer.body.text()).toBe('target saw GET /v2/graphql');
    expect(proxy.requests).toEqual([]);
  });

  it('authenticates to the proxy with the user and password of its URL', async () => {
    const withCredentials = proxy.url.replace('http://', 'http://gateway:p%40ss@');
    await (await request(`${targetUrl}/`, { dispatcher: egressThrough(withCredentials).dispatcher })).body.text();
    expect(proxy.requests.map((proxied) => proxied.proxyAuthorization)).toEqual([`Basic ${Buffer.from('gateway:p@ss').toString('base64')}`]);
  });
});

describe('the egress agents (the OTLP export)', () => {
  it('send http:// through the same proxy, in absolute form', async () => {
    const egress = egressThrough(proxy.url);
    expect(await getWith(await egress.agentFor('http:'), `${targetUrl}/v1/traces`)).toBe('target saw GET /v1/traces');
    expect(proxy.requests).toEqual([{ kind: 'forward', method: 'GET', target: new URL(targetUrl).host, path: '/v1/traces' }]);
  });

  it('tunnel https:// with CONNECT', async () => {
    const egress = egressThrough(proxy.url);
    await getWith(await egress.agentFor('https:'), `https://127.0.0.1:${new URL(targetUrl).port}/v1/traces`);
    expect(proxy.requests).toEqual([expect.objectContaining({ kind: 'tunnel', target: `127.0.0.1:${new URL(targetUrl).port}` })]);
  });

  it('reach a NO_PROXY host directly', async () => {
    const egress = egressThrough(proxy.url, '127.0.0.1');
    expect(await getWith(await egress.agentFor('http:'), `${targetUrl}/v1/traces`)).toBe('target saw GET /v1/traces');
    expect(proxy.requests).toEqual([]);
  });
});
