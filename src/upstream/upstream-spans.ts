/**
 * One CLIENT span per upstream HTTP call (GraphQL, sign-in, sign-out, the definitions refresh,
 * service accounts' shared sign-in: every call goes through the upstream fetch this wraps), child
 * of the request's innermost span, with its context sent upstream in `traceparent`. Attributes
 * name the host, the method, the status and a bounded operation label: never the URL's query,
 * a header (credentials travel in headers) or a body.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { findGatewayError } from '../errors';
import type { UpstreamFetch } from './fetch';
import type { Tracing } from '../tracing/provider';
import { methodOf } from '../tracing/server-span';

function hostOf(url: string): { address: string; port?: number } {
  try {
    const parsed = new URL(url);
    return { address: parsed.hostname, ...(parsed.port ? { port: Number(parsed.port) } : {}) };
  } catch {
    return { address: 'invalid' };
  }
}

export function tracedUpstreamFetch(tracing: Tracing, upstreamFetch: UpstreamFetch): UpstreamFetch {
  return async (url, init, call) => {
    const parentSpan = tracing.contexts.currentSpan();
    const parent = parentSpan ? trace.setSpan(ROOT_CONTEXT, parentSpan) : ROOT_CONTEXT;
    const method = methodOf(init.method);
    const { address, port } = hostOf(url);
    const span = tracing.tracer.startSpan(`${method} ${call.operation}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'server.address': address,
        ...(port === undefined ? {} : { 'server.port': port }),
        'http.request.method': method,
        'statement_gateway.upstream.environment': call.environment,
        'statement_gateway.upstream.operation': call.operation,
      },
    }, parent);
    const headers = new Headers(init.headers);
    tracing.inject(trace.setSpan(parent, span), headers);
    try {
      const response = await upstreamFetch(url, { ...init, headers }, call);
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 400) {
        span.setAttribute('error.type', String(response.status));
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(response.status) });
      }
      return response;
    } catch (error) {
      const code = findGatewayError(error)?.code ?? 'INTERNAL_SERVER_ERROR';
      span.setAttribute('error.type', code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      throw error;
    } finally {
      span.end();
    }
  };
}
