/**
 * What the front reads in a body, and what it then sends upstream (body-params.ts): the media type
 * as Rack splits it, a form when there is none, and only the fields read.
 */
import { describe, expect, it } from 'vitest';
import { bodyParams, forwardedBody, mediaTypeOf } from '../../src/drop-in/body-params';

const bytes = (text: string) => new TextEncoder().encode(text).buffer;
const text = (body: ArrayBuffer | undefined) => (body ? Buffer.from(body).toString('utf8') : undefined);

describe('the front\'s reading of a body', () => {
  it('splits the media type as Rack does, at the first ";" or ","', () => {
    expect(mediaTypeOf('Application/X-WWW-Form-URLencoded, text/plain')).toBe('application/x-www-form-urlencoded');
    expect(mediaTypeOf('application/json; charset=utf-8')).toBe('application/json');
    expect(mediaTypeOf(null)).toBe('');
  });

  it('reads a body without a media type as a form, as Rack does for a POST', () => {
    expect(bodyParams(bytes('query=%7B+a+%7D'), null)).toEqual({ query: '{ a }' });
  });

  it('sends upstream a form rebuilt from the fields it read, JSON as it came, and no body of another type', () => {
    const form = bytes('x=1& query=hidden&%5Bquery%5D=hidden&query=%7B+a+%7D&uid=u%40example.com&operationName=A');
    const params = bodyParams(form, 'application/x-www-form-urlencoded, text/plain');
    expect(params === 'malformed' || params === 'unsupported' ? undefined : params?.query).toBe('{ a }');
    const sent = forwardedBody(form, 'application/x-www-form-urlencoded, text/plain', params === 'malformed' || params === 'unsupported' ? undefined : params);
    expect(sent.contentType).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(text(sent.body)))).toEqual({ query: '{ a }', operationName: 'A', uid: 'u@example.com' });

    const json = bytes('{"query":"{ a }","query":"{ b }"}');
    expect(text(forwardedBody(json, 'application/json', { query: '{ b }' }).body)).toBe('{"query":"{ a }","query":"{ b }"}');
    expect(forwardedBody(bytes('query={ a }'), 'text/plain', undefined)).toEqual({});
  });
});
