/**
 * The upstream's live schema against the copy the gateway serves: what changed, and how much it
 * matters. The upstream is a third party that deploys without notice; the gateway was built
 * against a copy (sources/, the Mesh build), so a removed field becomes a stream of upstream
 * validation errors and a new one stays invisible until someone rebuilds. This file only compares
 * (no timers, no calls): the background check (ops/upstream-schema-watch.ts) and
 * `npm run check:upstream` run it. Documents: trusted-document-drift.ts.
 *
 * Severity is graphql-js's: `breaking` (findBreakingChanges: something the gateway's schema has is
 * gone or changed incompatibly), `dangerous` (findDangerousChanges: an enum value or an optional
 * argument added, a default changed...), and `safe` for what is only new (a type, a field).
 */
import {
  BreakingChangeType, DangerousChangeType, findBreakingChanges, findDangerousChanges, GraphQLSchema, isInterfaceType,
  isIntrospectionType, isObjectType, isSpecifiedDirective, isSpecifiedScalarType, type BreakingChange, type DangerousChange,
} from 'graphql';

export type ChangeSeverity = 'breaking' | 'dangerous' | 'safe';
export const CHANGE_SEVERITIES: readonly ChangeSeverity[] = ['breaking', 'dangerous', 'safe'];

export interface SchemaChange {
  readonly severity: ChangeSeverity;
  /** What changed: `Type`, `Type.field`, `Type.field(arg)`, `Enum.VALUE` or `@directive`. */
  readonly path: string;
  readonly description: string;
}

/**
 * The directives of the GraphQL library itself (`@include`, `@skip`, `@deprecated`,
 * `@specifiedBy`, `@oneOf`) are left out: graphql-ruby and graphql-js list different ones and
 * different locations for `@deprecated`, which says nothing of the upstream's API. A document
 * that uses one the upstream lacks fails the trusted documents' validation instead.
 */
function withoutLibraryDirectives(schema: GraphQLSchema): GraphQLSchema {
  return new GraphQLSchema({ ...schema.toConfig(), directives: schema.getDirectives().filter((directive) => !isSpecifiedDirective(directive)) });
}

const NAME = '[_A-Za-z]\\w*';
/**
 * graphql-js describes each change in words and gives no path. Its descriptions name the subject
 * in fixed shapes (utilities/findBreakingChanges.js), read here per change type; the specs pin
 * each shape (test/upstream/schema-drift.unit.test.ts), so a graphql-js that words them otherwise
 * fails a test instead of losing paths. A shape not known here keeps its first name as the path.
 */
const SUBJECTS: Readonly<Record<string, { readonly pattern: RegExp; readonly path: (m: readonly string[]) => string }>> = {
  [BreakingChangeType.ARG_REMOVED]: { pattern: new RegExp(`^(${NAME}\\.${NAME}) arg (${NAME})`), path: (m) => `${m[1]}(${m[2]})` },
  [BreakingChangeType.ARG_CHANGED_KIND]: { pattern: new RegExp(`^(${NAME}\\.${NAME}) arg (${NAME})`), path: (m) => `${m[1]}(${m[2]})` },
  [DangerousChangeType.ARG_DEFAULT_VALUE_CHANGE]: { pattern: new RegExp(`^(${NAME}\\.${NAME}) arg (${NAME})`), path: (m) => `${m[1]}(${m[2]})` },
  [BreakingChangeType.REQUIRED_ARG_ADDED]: { pattern: new RegExp(`arg (${NAME}) on (${NAME}\\.${NAME})`), path: (m) => `${m[2]}(${m[1]})` },
  [DangerousChangeType.OPTIONAL_ARG_ADDED]: { pattern: new RegExp(`arg (${NAME}) on (${NAME}\\.${NAME})`), path: (m) => `${m[2]}(${m[1]})` },
  [BreakingChangeType.REQUIRED_INPUT_FIELD_ADDED]: { pattern: new RegExp(`field (${NAME}) on input type (${NAME})`), path: (m) => `${m[2]}.${m[1]}` },
  [DangerousChangeType.OPTIONAL_INPUT_FIELD_ADDED]: { pattern: new RegExp(`field (${NAME}) on input type (${NAME})`), path: (m) => `${m[2]}.${m[1]}` },
  [BreakingChangeType.VALUE_REMOVED_FROM_ENUM]: { pattern: new RegExp(`^(${NAME}) was removed from enum type (${NAME})`), path: (m) => `${m[2]}.${m[1]}` },
  [DangerousChangeType.VALUE_ADDED_TO_ENUM]: { pattern: new RegExp(`^(${NAME}) was added to enum type (${NAME})`), path: (m) => `${m[2]}.${m[1]}` },
  [BreakingChangeType.TYPE_REMOVED_FROM_UNION]: { pattern: new RegExp(`union type (${NAME})`), path: (m) => m[1] ?? '' },
  [DangerousChangeType.TYPE_ADDED_TO_UNION]: { pattern: new RegExp(`union type (${NAME})`), path: (m) => m[1] ?? '' },
  [DangerousChangeType.IMPLEMENTED_INTERFACE_ADDED]: { pattern: new RegExp(`implemented by (${NAME})`), path: (m) => m[1] ?? '' },
  [BreakingChangeType.TYPE_REMOVED]: { pattern: new RegExp(`(${NAME}) was removed`), path: (m) => m[1] ?? '' },
  [BreakingChangeType.DIRECTIVE_REMOVED]: { pattern: new RegExp(`^(${NAME}) was removed`), path: (m) => `@${m[1]}` },
  [BreakingChangeType.REQUIRED_DIRECTIVE_ARG_ADDED]: { pattern: new RegExp(`on directive (${NAME})`), path: (m) => `@${m[1]}` },
  [BreakingChangeType.DIRECTIVE_ARG_REMOVED]: { pattern: new RegExp(`from (${NAME})\\.$`), path: (m) => `@${m[1]}` },
  [BreakingChangeType.DIRECTIVE_REPEATABLE_REMOVED]: { pattern: new RegExp(`from (${NAME})\\.$`), path: (m) => `@${m[1]}` },
  [BreakingChangeType.DIRECTIVE_LOCATION_REMOVED]: { pattern: new RegExp(`from (${NAME})\\.$`), path: (m) => `@${m[1]}` },
};

/** The subject of one graphql-js change, as a path. */
export function pathOf(change: BreakingChange | DangerousChange): string {
  const known = SUBJECTS[change.type];
  const match = known?.pattern.exec(change.description);
  if (known && match) return known.path(match);
  // FIELD_REMOVED, FIELD_CHANGED_KIND, TYPE_CHANGED_KIND, IMPLEMENTED_INTERFACE_REMOVED: the first name (`Type.field` or `Type`).
  return new RegExp(`${NAME}(\\.${NAME})?`).exec(change.description)?.[0] ?? '';
}

/** What is only new in `live`: types, and fields of object and interface types both have. */
function additions(served: GraphQLSchema, live: GraphQLSchema): SchemaChange[] {
  const found: SchemaChange[] = [];
  const servedTypes = served.getTypeMap();
  for (const [name, type] of Object.entries(live.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    const before = servedTypes[name];
    if (!before) {
      found.push({ severity: 'safe', path: name, description: `${name} was added.` });
      continue;
    }
    const bothHaveFields = (isObjectType(type) && isObjectType(before)) || (isInterfaceType(type) && isInterfaceType(before));
    if (!bothHaveFields) continue;
    const had = before.getFields();
    for (const field of Object.keys(type.getFields())) {
      if (!(field in had)) found.push({ severity: 'safe', path: `${name}.${field}`, description: `${name}.${field} was added.` });
    }
  }
  return found;
}

/**
 * Every change from `served` (the gateway's copy) to `live` (the upstream now), breaking first,
 * then dangerous, then safe, each by path. Empty: the same schema, as far as a client can tell.
 */
export function compareSchemas(served: GraphQLSchema, live: GraphQLSchema): SchemaChange[] {
  const before = withoutLibraryDirectives(served);
  const after = withoutLibraryDirectives(live);
  const classed = (severity: ChangeSeverity) => (change: BreakingChange | DangerousChange): SchemaChange => ({ severity, path: pathOf(change), description: change.description });
  const breaking = findBreakingChanges(before, after)
    .map(classed('breaking'))
    // A standard scalar neither side uses any more (`Float`...): graphql-ruby lists only those it uses.
    .filter((change) => {
      const type = served.getType(change.path);
      return !(type && isSpecifiedScalarType(type) && !live.getType(change.path));
    });
  const order = (change: SchemaChange) => CHANGE_SEVERITIES.indexOf(change.severity);
  return [...breaking, ...findDangerousChanges(before, after).map(classed('dangerous')), ...additions(served, live)]
    .sort((a, b) => order(a) - order(b) || a.path.localeCompare(b.path));
}

/** Changes counted by severity (the gauge's values). */
export function countBySeverity(changes: readonly SchemaChange[]): Record<ChangeSeverity, number> {
  const counts: Record<ChangeSeverity, number> = { breaking: 0, dangerous: 0, safe: 0 };
  for (const change of changes) counts[change.severity]++;
  return counts;
}
