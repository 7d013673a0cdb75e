/**
 * Query limits: the query text's length in bytes (MAX_QUERY_BYTES, before parsing: a long text
 * costs parse time and cache memory whatever its tokens), then graphql-armor: tokens (checked
 * while parsing, before any work), depth, aliases, directives and cost (validation rules), field
 * suggestions off ("Did you mean ...?" would map the schema for a caller who may not introspect
 * it), introspection off unless configured, and the PDFs one answer may carry (see
 * pdf-answer-limit.ts). Each refusal is QUERY_TOO_COMPLEX (or GRAPHQL_VALIDATION_FAILED for
 * introspection), status 400.
 *
 * The figures admit every document the gateway's clients and tests send, including the full
 * statementDefinitions selection, with room to spare; bulk adds of more than ~100 statements
 * written inline exceed the token limit and should pass their statements as variables (tokens in
 * variables are not counted; the body limit bounds them).
 */
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { NoSchemaIntrospectionCustomRule, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError, type GatewayError } from '../errors';
import { usePdfAnswerLimit } from './pdf-answer-limit';

export const QUERY_LIMITS = {
  tokens: 10_000,
  depth: 12,
  aliases: 30,
  directives: 20,
  cost: 20_000,
} as const;

/**
 * The messages of graphql-armor's refusals ("Syntax Error: Token limit of 10000 exceeded.") and of
 * Yoga's batch refusal (batching is off: one operation per request).
 */
export const QUERY_LIMIT_MESSAGE = /^(Syntax Error: (Token|Query depth|Aliases|Directives|Query Cost) limit of \d+ exceeded|Batching is (not supported|limited))/;

export interface QueryLimitsOptions {
  /** Schema introspection (GRAPHQL_INTROSPECTION); off hides the schema from whoever may not know it. */
  readonly introspection: boolean;
  /**
   * Requests that may introspect even when it is off: the drop-in front, whose schema is the
   * upstream's own, which the upstream shows anyone.
   */
  readonly introspectionAllowed?: (request: Request) => boolean;
  /** MAX_QUERY_BYTES: longer query texts (in UTF-8 bytes) are refused unparsed. */
  readonly maxQueryBytes: number;
}

/** QUERY_TOO_COMPLEX for a query text over `maxBytes` (UTF-8), else undefined. */
export function queryTextRefusal(query: string, maxBytes: number): GatewayError | undefined {
  // At most 3 bytes per UTF-16 unit: most texts are decided without counting.
  if (query.length * 3 <= maxBytes) return undefined;
  if (query.length <= maxBytes && Buffer.byteLength(query, 'utf8') <= maxBytes) return undefined;
  return gatewayError('QUERY_TOO_COMPLEX', `The query text is longer than ${maxBytes} bytes; pass bulk data in variables.`);
}

/**
 * graphql-armor's depth, alias, directive and cost rules with the figures above: validation rules
 * here, and run alone on the documents the drop-in front passes through without validating them.
 * Each visits a fragment once (it keeps each fragment's figure), and throws its refusal.
 */
export function queryLimitRules(): ValidationRule[] {
  return [
    maxDepthRule({ n: QUERY_LIMITS.depth, flattenFragments: true }),
    maxAliasesRule({ n: QUERY_LIMITS.aliases }),
    maxDirectivesRule({ n: QUERY_LIMITS.directives }),
    costLimitRule({ maxCost: QUERY_LIMITS.cost }),
  ];
}

/** Refuses a query text over `maxBytes` before Yoga parses (or caches) it. */
function useQueryTextLimit(maxBytes: number): Plugin {
  return {
    onParams({ params, setResult }) {
      const refusal = typeof params.query === 'string' ? queryTextRefusal(params.query, maxBytes) : undefined;
      if (refusal) setResult({ errors: [refusal] });
    },
  };
}

export function useQueryLimits(options: QueryLimitsOptions): Plugin[] {
  const plugins: Plugin[] = [
    useQueryTextLimit(options.maxQueryBytes),
    maxTokensPlugin({ n: QUERY_LIMITS.tokens }),
    {
      onValidate({ addValidationRule }) {
        for (const rule of queryLimitRules()) addValidationRule(rule);
      },
    },
    blockFieldSuggestionsPlugin(),
    usePdfAnswerLimit(),
  ];
  if (!options.introspection) {
    plugins.push({
      onValidate({ addValidationRule, context }) {
        const request = (context as { request?: Request }).request;
        if (request && options.introspectionAllowed?.(request)) return;
        addValidationRule(NoSchemaIntrospectionCustomRule);
      },
    });
  }
  return plugins;
}
