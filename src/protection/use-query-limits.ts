/**
 * Query limits: the query text's length in bytes (MAX_QUERY_BYTES, before parsing: a long text
 * costs parse time and cache memory whatever its tokens), then graphql-armor: tokens (checked
 * while parsing, before any work), depth, aliases, directives and cost (validation rules), field
 * suggestions off ("Did you mean ...?" would map the schema for a caller who may not introspect
 * it), introspection off unless configured, and the PDFs one answer may carry (see
 * pdf-answer-limit.ts), and batches (one operation per request). Each refusal is
 * QUERY_TOO_COMPLEX (or GRAPHQL_VALIDATION_FAILED for introspection), status 400, made so where it
 * is made: graphql-armor's public `onReject` callback throws our GatewayError in place of armor's
 * own error, so nothing downstream tells refusals apart by their messages.
 *
 * The figures admit every document the gateway's clients and tests send, including the full
 * statementDefinitions selection, with room to spare; bulk adds of more than ~100 statements
 * written inline exceed the token limit and should pass their statements as variables (tokens in
 * variables are not counted; the body limit bounds them). The drop-in front passes its own sizes
 * (`tokens`, `selections`, `maxQueryBytes`: src/drop-in/front-limits.ts), the upstream's.
 */
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { Kind, NoSchemaIntrospectionCustomRule, type DocumentNode, type GraphQLError, type SelectionSetNode, type ValidationRule } from 'graphql';
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

/** armor words each refusal as a syntax error; the rest of its message names the limit and the figure found. */
const ARMOR_PREFIX = 'Syntax Error: ';

/**
 * armor's `onReject` callback (public, GraphQLArmorCallbackConfiguration): it runs before armor
 * would throw its own error, and throws QUERY_TOO_COMPLEX instead, which stops the parse or the
 * validation there as armor's own throw did. The message keeps armor's wording of the limit.
 */
function refuse(_context: unknown, error: GraphQLError): never {
  const detail = error.message.startsWith(ARMOR_PREFIX) ? error.message.slice(ARMOR_PREFIX.length) : error.message;
  throw gatewayError('QUERY_TOO_COMPLEX', `Query too complex: ${detail}`, { cause: error });
}
const ARMOR_REFUSAL = { onReject: [refuse] };

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
  /** Tokens a document may have (default QUERY_LIMITS.tokens): the drop-in front's admit bulk statements written inline. */
  readonly tokens?: number;
  /**
   * Selections (fields, fragment spreads, inline fragments) a document may have, counted after
   * parsing and before validation: needed where `tokens` admits more selections than validation
   * can compare pairwise in a bounded time. None unless given (the default token limit bounds them).
   */
  readonly selections?: number;
  /**
   * "Did you mean ...?" in validation messages (default false: they would map the schema for a
   * caller who may not introspect it). The drop-in front keeps them, as the upstream, whose schema
   * is public, words its own.
   */
  readonly fieldSuggestions?: boolean;
  /**
   * Whether the list ends with the PDFs-per-answer limit (usePdfAnswerLimit, default true): false
   * for a list that places it itself (the gateway's, which names each onExecute plugin it has).
   */
  readonly pdfAnswerLimit?: boolean;
}

/** QUERY_TOO_COMPLEX for a query text over `maxBytes` (UTF-8), else undefined. */
export function queryLengthRefusal(query: string, maxBytes: number): GatewayError | undefined {
  // At most 3 bytes per UTF-16 unit: most texts are decided without counting.
  if (query.length * 3 <= maxBytes) return undefined;
  if (query.length <= maxBytes && Buffer.byteLength(query, 'utf8') <= maxBytes) return undefined;
  return gatewayError('QUERY_TOO_COMPLEX', `The query text is longer than ${maxBytes} bytes; pass bulk data in variables.`);
}

/**
 * graphql-armor's depth, alias, directive and cost rules with the figures above: validation rules
 * here, and run alone on the documents the drop-in front passes through without validating them.
 * Each visits a fragment once (it keeps each fragment's figure), and throws its refusal as a
 * QUERY_TOO_COMPLEX GatewayError.
 */
export function queryLimitRules(): ValidationRule[] {
  return [
    maxDepthRule({ n: QUERY_LIMITS.depth, flattenFragments: true, ...ARMOR_REFUSAL }),
    maxAliasesRule({ n: QUERY_LIMITS.aliases, ...ARMOR_REFUSAL }),
    maxDirectivesRule({ n: QUERY_LIMITS.directives, ...ARMOR_REFUSAL }),
    costLimitRule({ maxCost: QUERY_LIMITS.cost, ...ARMOR_REFUSAL }),
  ];
}

/**
 * Batching is off (gateway/server.ts): a batch is refused as over the batch limit (the contract's
 * QUERY_TOO_COMPLEX). Yoga's own refusal, which runs after the gateway's plugins, would say
 * BAD_REQUEST.
 */
function useNoBatches(): Plugin {
  return {
    onRequestParse() {
      return {
        onRequestParseDone({ requestParserResult }) {
          if (Array.isArray(requestParserResult)) throw gatewayError('QUERY_TOO_COMPLEX', 'Batching is not supported.');
        },
      };
    },
  };
}

const SELECTION_KINDS: ReadonlySet<string> = new Set([Kind.FIELD, Kind.FRAGMENT_SPREAD, Kind.INLINE_FRAGMENT]);

/** Whether a document has more than `max` selections, in all its operations and fragments (one walk, no visitor). */
export function selectionsOver(document: DocumentNode, max: number): boolean {
  let count = 0;
  const sets: SelectionSetNode[] = [];
  for (const definition of document.definitions) if ('selectionSet' in definition && definition.selectionSet) sets.push(definition.selectionSet);
  for (let set = sets.pop(); set; set = sets.pop()) {
    for (const selection of set.selections) {
      if (SELECTION_KINDS.has(selection.kind) && ++count > max) return true;
      if ('selectionSet' in selection && selection.selectionSet) sets.push(selection.selectionSet);
    }
  }
  return false;
}

export function selectionsRefusal(max: number): GatewayError {
  return gatewayError('QUERY_TOO_COMPLEX', `Query too complex: more than ${max} selections.`);
}

/** Refuses a parsed document over `max` selections, before validation compares them. */
function useSelectionLimit(max: number): Plugin {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        // envelop types the parse result loosely: a DocumentNode, or the Error the parse threw.
        const parsed = result as DocumentNode | Error | null;
        if (parsed && !(parsed instanceof Error) && selectionsOver(parsed, max)) replaceParseResult(selectionsRefusal(max));
      };
    },
  };
}

/** Refuses a query text over `maxBytes` before Yoga parses (or caches) it. */
function useQueryTextLimit(maxBytes: number): Plugin {
  return {
    onParams({ params, setResult }) {
      const refusal = typeof params.query === 'string' ? queryLengthRefusal(params.query, maxBytes) : undefined;
      if (refusal) setResult({ errors: [refusal] });
    },
  };
}

export function useQueryLimits(options: QueryLimitsOptions): Plugin[] {
  const plugins: Plugin[] = [
    useNoBatches(),
    useQueryTextLimit(options.maxQueryBytes),
    maxTokensPlugin({ n: options.tokens ?? QUERY_LIMITS.tokens, ...ARMOR_REFUSAL }),
    {
      onValidate({ addValidationRule }) {
        for (const rule of queryLimitRules()) addValidationRule(rule);
      },
    },
  ];
  // Before validation runs (onParse), whatever their place in the list.
  if (options.selections !== undefined) plugins.push(useSelectionLimit(options.selections));
  if (!options.fieldSuggestions) plugins.push(blockFieldSuggestionsPlugin());
  if (options.pdfAnswerLimit !== false) plugins.push(usePdfAnswerLimit());
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
