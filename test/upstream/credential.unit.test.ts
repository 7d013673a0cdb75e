import { describe, expect, it } from 'vitest';
import { credentialFromHeaders } from '../../src/upstream/credential';

const read = (headers: Record<string, string>) => credentialFromHeaders((name) => (name in headers ? headers[name] : null));
const bearer = (value: Record<string, string>) => `Bearer ${Buffer.from(JSON.stringify(value)).toString('base64')}`;

describe('credentialFromHeaders', () => {
  it('reads the three devise headers and the expiry', () => {
    expect(read({ 'access-token': 't1', client: 'c1', uid: 'u@example.com', expiry: '1796598357' })).toEqual({ accessToken: 't1', client: 'c1', uid: 'u@example.com', expiry: 1796598357 });
  });

  it('treats the blank token of devise\'s batch window as "keep the one you have"', () => {
    expect(read({ 'access-token': ' ', client: 'c1', uid: 'u@example.com', authorization: bearer({ 'access-token': 'stale', client: 'c1', uid: 'u@example.com' }) })).toBeUndefined();
  });

  it('falls back to the Authorization bearer of devise 1.2 when the token headers are absent', () => {
    expect(read({ authorization: bearer({ 'access-token': 't2', 'token-type': 'Bearer', client: 'c2', expiry: '1700000000', uid: 'u@example.com' }) }))
      .toEqual({ accessToken: 't2', client: 'c2', uid: 'u@example.com', expiry: 1700000000 });
  });

  it('gives undefined for a missing client or uid, or an unreadable bearer', () => {
    expect(read({ 'access-token': 't1', uid: 'u@example.com' })).toBeUndefined();
    expect(read({ authorization: 'Bearer not-base64-json!' })).toBeUndefined();
    expect(read({})).toBeUndefined();
  });
});
