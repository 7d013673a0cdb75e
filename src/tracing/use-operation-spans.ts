/**
 * One span per GraphQL operation, child of the request's SERVER span: `graphql.operation.type`
 * and `graphql.operation.name`, never the document's text or its variables (which carry e-mails,
 * passwords and TINs). Two plugins: `start` right after the executed operation is known (before
 * the CSRF check and the identity, whose refusals are then inside the span), `finish` after the
 * error mapping, so the span's status carries the contract code the client gets.
 */
import { SpanStatusCode, trace, ROOT_CONTEXT } from '@opentelemetry/api';
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { DocumentFacts } from '../request/executed';
import type { Tracing } from './provider';

const MAX_NAME = 128;

/** The first error code of a result, as the client sees it. */
function firstCode(result: unknown): string | undefined {
  const errors = (result as { errors?: readonly { extensions?: { code?: unknown } }[] } | undefined)?.errors;
  if (!errors?.length) return undefined;
  const code = errors[0]?.extensions?.code;
  return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
}

export function useOperationSpans({ tracing, documents }: { readonly tracing: Tracing; readonly documents: DocumentFacts }): { readonly start: Plugin; readonly finish: Plugin } {
  return {
    start: {
      onExecute({ args }) {
        const state = tracing.contexts.current();
        if (!state || state.operation) return;
        const executed = documents.executedOperation(args.document as DocumentNode, args.operationName as string | null | undefined);
        const type = executed?.operation.operation ?? 'query';
        const name = executed?.operation.name?.value.slice(0, MAX_NAME);
        state.operation = tracing.tracer.startSpan(
          name ? `${type} ${name}` : type,
          { attributes: { 'graphql.operation.type': type, ...(name ? { 'graphql.operation.name': name } : {}) } },
          trace.setSpan(ROOT_CONTEXT, state.server),
        );
      },
    },
    finish: {
      onResultProcess({ result }) {
        const state = tracing.contexts.current();
        if (!state) return;
        const code = Array.isArray(result) || Symbol.asyncIterator in result ? undefined : firstCode(result);
        state.errorCode ??= code;
        const span = state.operation;
        if (!span) return;
        if (code !== undefined) {
          span.setAttribute('error.type', code);
          span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        }
        span.end();
        state.operation = undefined;
      },
    },
  };
}
