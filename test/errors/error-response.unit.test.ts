/**
 * errorResponse and errorAnswer: the one shape of the errors the gateway answers itself, outside
 * GraphQL execution (docs/reference.md, "Errors"), for fetch handlers and Node listeners alike.
 */
import { describe, expect, it } from 'vitest';
import { clientError, errorAnswer, errorResponse, gatewayError } from '../../src/errors';

describe('errorResponse', () => {
  it('answers the contract\'s JSON error with the status given, uncached', async () => {
    const response = errorResponse(404, 'BAD_REQUEST', 'Not found.');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('{"errors":[{"message":"Not found.","extensions":{"code":"BAD_REQUEST"}}]}');
  });

  it('adds the headers given, and a numeric Retry-After also as extensions.retryAfterSeconds, as clientError does', async () => {
    const response = errorResponse(429, 'RATE_LIMITED', 'Too many requests.', { headers: { 'retry-after': '7' } });
    expect(response.headers.get('retry-after')).toBe('7');
    const body = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: 7 });
    expect(body.errors[0]?.extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: clientError('RATE_LIMITED', '', undefined, { 'retry-after': '7' }).extensions.retryAfterSeconds });
  });

  it('adds the extensions given beside the code, and lets headers override the defaults', async () => {
    const response = errorResponse(401, 'UNAUTHENTICATED', 'Sign in.', { headers: { 'cache-control': 'private, no-store' }, extensions: { realm: 'ops' } });
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.text()).toBe('{"errors":[{"message":"Sign in.","extensions":{"code":"UNAUTHENTICATED","realm":"ops"}}]}');
  });
});

describe('errorAnswer', () => {
  it('gives a Node listener the same status, headers and body text as errorResponse', async () => {
    const init = { headers: { connection: 'close' } };
    const answer = errorAnswer(413, 'PAYLOAD_TOO_LARGE', 'Too large.', init);
    const response = errorResponse(413, 'PAYLOAD_TOO_LARGE', 'Too large.', init);
    expect(answer.status).toBe(response.status);
    expect(answer.body).toBe(await response.text());
    expect(answer.headers).toEqual({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  });
});

describe('UPSTREAM_UNAVAILABLE', () => {
  it('always carries a Retry-After and extensions.retryAfterSeconds, from every builder', async () => {
    expect(gatewayError('UPSTREAM_UNAVAILABLE').extensions.http).toEqual({ status: 503, headers: { 'retry-after': '5' } });
    expect(clientError('UPSTREAM_UNAVAILABLE', 'down').extensions).toMatchObject({ retryAfterSeconds: 5, http: { headers: { 'retry-after': '5' } } });
    const response = errorResponse(503, 'UPSTREAM_UNAVAILABLE', 'down');
    expect(response.headers.get('retry-after')).toBe('5');
    expect(((await response.json()) as { errors: { extensions: Record<string, unknown> }[] }).errors[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', retryAfterSeconds: 5 });
  });

  it('keeps the Retry-After its thrower names (an open circuit\'s seconds), whatever its spelling', () => {
    expect(gatewayError('UPSTREAM_UNAVAILABLE', undefined, { headers: { 'Retry-After': '9' } }).extensions.http).toEqual({ status: 503, headers: { 'retry-after': '9' } });
    expect(clientError('UPSTREAM_UNAVAILABLE', 'down', undefined, { 'retry-after': '2' }).extensions).toMatchObject({ retryAfterSeconds: 2 });
    expect(errorAnswer(503, 'UPSTREAM_UNAVAILABLE', 'down', { headers: { 'retry-after': '1' } }).headers['retry-after']).toBe('1');
  });

  it('adds no Retry-After to other codes', () => {
    expect(gatewayError('UPSTREAM_ERROR').extensions.http).toEqual({ status: 502 });
  });
});
