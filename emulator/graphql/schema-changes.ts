/**
 * `schemaChanges` of the control API: the upstream's SDL edited as its operators might edit it
 * (a field, input field or enum value gone; a field added), so that a gateway's check of the live
 * schema can be tested against a real change. The edit is made on the SDL's syntax tree, before the
 * schema is built: introspection, validation and execution then all see the changed schema, as
 * they would on the real upstream after a deploy.
 */
import {
  Kind, parseType, type DefinitionNode, type DocumentNode, type EnumTypeDefinitionNode, type FieldDefinitionNode,
  type InputObjectTypeDefinitionNode, type InputValueDefinitionNode, type InterfaceTypeDefinitionNode, type ObjectTypeDefinitionNode, type TypeNode,
} from 'graphql';

export interface SchemaChanges {
  /** `"Type.field"`: a field of an object or interface type, an input field, or an enum value. */
  readonly remove?: readonly string[];
  /** `"Type.field: TypeRef"`: a nullable field added to an object, interface or input type. */
  readonly add?: readonly string[];
}

/** A change that cannot be made (an unknown type or field, a malformed entry): the control API's 400. */
export class SchemaChangeError extends Error {}

type Editable = ObjectTypeDefinitionNode | InterfaceTypeDefinitionNode | InputObjectTypeDefinitionNode | EnumTypeDefinitionNode;

const REMOVAL = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)$/;
const ADDITION = /^([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*:\s*(\S.*)$/;

function isEditable(definition: DefinitionNode): definition is Editable {
  return definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.INTERFACE_TYPE_DEFINITION
    || definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION || definition.kind === Kind.ENUM_TYPE_DEFINITION;
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

function parseTypeRef(text: string, entry: string): TypeNode {
  let type: TypeNode;
  try {
    type = parseType(text);
  } catch {
    throw new SchemaChangeError(`add: "${entry}": "${text}" is not a GraphQL type reference`);
  }
  // The field resolves to null: a non-null one could never answer.
  if (type.kind === Kind.NON_NULL_TYPE) throw new SchemaChangeError(`add: "${entry}": an added field resolves to null, so its type must be nullable`);
  return type;
}

/** The SDL with the changes made, and the fields added per type (their resolvers answer null). */
export function applySchemaChanges(sdl: DocumentNode, changes: SchemaChanges): { readonly document: DocumentNode; readonly added: ReadonlyMap<string, readonly string[]> } {
  const types = new Map<string, Editable>();
  const names = new Set<string>(['String', 'Int', 'Float', 'Boolean', 'ID']);
  for (const definition of sdl.definitions) {
    if ('name' in definition && definition.name) names.add(definition.name.value);
    if (isEditable(definition)) types.set(definition.name.value, definition);
  }
  const edited = new Map(types);
  const typeOf = (name: string, entry: string, verb: string): Editable => {
    const type = edited.get(name);
    if (!type) throw new SchemaChangeError(`${verb}: "${entry}": no object, interface, input or enum type ${name}`);
    return type;
  };

  for (const entry of changes.remove ?? []) {
    const match = REMOVAL.exec(entry.trim());
    if (!match) throw new SchemaChangeError(`remove: "${entry}" is not "Type.field"`);
    const [, typeName = '', member = ''] = match;
    const type = typeOf(typeName, entry, 'remove');
    if (type.kind === Kind.ENUM_TYPE_DEFINITION) {
      const values = (type.values ?? []).filter((value) => value.name.value !== member);
      if (values.length === (type.values ?? []).length) throw new SchemaChangeError(`remove: "${entry}": ${typeName} has no value ${member}`);
      edited.set(typeName, { ...type, values });
    } else {
      const fields = (type.fields ?? []) as readonly (FieldDefinitionNode | InputValueDefinitionNode)[];
      const kept = fields.filter((field) => field.name.value !== member);
      if (kept.length === fields.length) throw new SchemaChangeError(`remove: "${entry}": ${typeName} has no field ${member}`);
      edited.set(typeName, { ...type, fields: kept } as Editable);
    }
  }

  const added = new Map<string, string[]>();
  for (const entry of changes.add ?? []) {
    const match = ADDITION.exec(entry.trim());
    if (!match) throw new SchemaChangeError(`add: "${entry}" is not "Type.field: TypeRef"`);
    const [, typeName = '', fieldName = '', typeText = ''] = match;
    const type = typeOf(typeName, entry, 'add');
    const fieldType = parseTypeRef(typeText, entry);
    if (!names.has(namedTypeOf(fieldType))) throw new SchemaChangeError(`add: "${entry}": no type ${namedTypeOf(fieldType)}`);
    if (type.kind === Kind.ENUM_TYPE_DEFINITION) throw new SchemaChangeError(`add: "${entry}": ${typeName} is an enum; only fields can be added`);
    if ((type.fields ?? []).some((field) => field.name.value === fieldName)) throw new SchemaChangeError(`add: "${entry}": ${typeName} already has a field ${fieldName}`);
    const name = { kind: Kind.NAME, value: fieldName } as const;
    if (type.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION) {
      edited.set(typeName, { ...type, fields: [...(type.fields ?? []), { kind: Kind.INPUT_VALUE_DEFINITION, name, type: fieldType }] });
    } else {
      edited.set(typeName, { ...type, fields: [...(type.fields ?? []), { kind: Kind.FIELD_DEFINITION, name, type: fieldType }] });
      added.set(typeName, [...(added.get(typeName) ?? []), fieldName]);
    }
  }

  const definitions = sdl.definitions.map((definition) => (isEditable(definition) ? (edited.get(definition.name.value) ?? definition) : definition));
  return { document: { ...sdl, definitions }, added };
}

/** A stable key of a set of changes, so that the same changes reuse one built schema. */
export function changesKey(changes: SchemaChanges): string {
  return JSON.stringify({ remove: [...(changes.remove ?? [])].sort(), add: [...(changes.add ?? [])].sort() });
}

