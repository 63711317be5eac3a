import { BUILT_PLUGIN_IDS, EMBEDDINGS_MAX_INPUTS, LOGIT_BIAS_RANGE, METADATA_LIMITS, STOP_CONDITION_FIELDS } from '@gw/contracts';
import { ValidationTypes } from 'class-validator';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { MetadataStorage as TypeStorage } from 'class-transformer/types/MetadataStorage.js';
import { createRequire } from 'node:module';

/**
 * class-transformer's `@Type(() => Item)` registry, where the item class of a nested array is
 * kept. The package has no `exports` map: its main entry (the one the DTOs' decorators load,
 * under Node and Vitest alike) is the CommonJS build, so its storage is that build's.
 */
const typeStorage = (createRequire(import.meta.url)('class-transformer/cjs/storage.js') as { defaultMetadataStorage: TypeStorage })
  .defaultMetadataStorage;

export type JsonSchema = Record<string, unknown>;

const typed = (type: string, extra: JsonSchema = {}): JsonSchema => ({ type, ...extra });
const objectWith = (key: string): JsonSchema => ({ type: 'object', required: [key], properties: { [key]: { type: 'string' } } });
const toolChoice: JsonSchema = { anyOf: [{ type: 'string', enum: ['none', 'auto', 'required'] }, objectWith('type')] };
const textOrParts: JsonSchema = { anyOf: [{ type: 'string' }, { type: 'array', items: objectWith('type') }] };

/**
 * The JSON Schema of each custom class-validator constraint of `@gw/contracts` (by its
 * `registerDecorator` name): the library sees only a function there. A constraint missing
 * here fails the document's test, so a new one is described when it is written.
 */
const CUSTOM_CONSTRAINTS: Record<string, (meta: ValidationMetadata) => JsonSchema> = {
  isStopSequences: () => ({ anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] }),
  isRequestMetadata: () => ({
    type: 'object',
    maxProperties: METADATA_LIMITS.pairs,
    propertyNames: { maxLength: METADATA_LIMITS.keyLength, pattern: '^[^\\[\\]]*$' },
    additionalProperties: { type: 'string', maxLength: METADATA_LIMITS.valueLength },
  }),
  isMessageContent: () => ({ anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: objectWith('type') }] }),
  agreesWithReasoningEffort: () => ({}),
  isLogitBias: () => ({
    type: 'object',
    propertyNames: { pattern: '^\\d+$' },
    additionalProperties: { type: 'number', minimum: LOGIT_BIAS_RANGE.min, maximum: LOGIT_BIAS_RANGE.max },
  }),
  isToolChoice: () => toolChoice,
  isArrayOfObjectsWith: (meta) => ({
    type: 'array',
    items: objectWith(/each with a string (\w+)/.exec(String(meta.message))?.[1] ?? 'type'),
  }),
  isAbsent: () => ({ type: 'null' }),
  // Options are per plugin and checked by inference; the ids served are listed.
  isPluginList: () => ({
    type: 'array',
    items: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', enum: [...BUILT_PLUGIN_IDS] }, enabled: { type: 'boolean' } },
    },
  }),
  isResponsesInput: () => ({
    anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', anyOf: [objectWith('type'), objectWith('role')] } }],
  }),
  isTextOrBlocks: () => textOrParts,
  isStopConditions: () => ({
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: Object.keys(STOP_CONDITION_FIELDS) } },
    },
  }),
  isCreditAmount: () => typed('number', { description: 'At most 6 decimals' }),
  isEmbeddingsInput: () => ({
    anyOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', minItems: 1, maxItems: EMBEDDINGS_MAX_INPUTS, items: { type: 'string', minLength: 1 } },
      { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } },
      {
        type: 'array',
        minItems: 1,
        maxItems: EMBEDDINGS_MAX_INPUTS,
        items: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 0 } },
      },
    ],
  }),
};

/** A design type's schema, where class-validator-jsonschema would `$ref` a built-in class (`Object`, `Array`). */
function designTypeSchema(meta: ValidationMetadata): JsonSchema {
  const type = Reflect.getMetadata('design:type', (meta.target as { prototype: object }).prototype, meta.propertyName) as unknown;
  if (type === String) return typed('string');
  if (type === Number) return typed('number');
  if (type === Boolean) return typed('boolean');
  if (type === Array) return typed('array');
  return {};
}

/** Class name -> constraints the converters met without a schema of their own (the document's test fails on those it uses). */
export const undescribedConstraints = new Map<string, string[]>();

/**
 * JSON Schemas of every class-validator class, with their bounds (min/max, lengths, patterns,
 * enums, required fields), under `#/components/schemas/<ClassName>`: the request bodies and
 * queries the gateway validates are described by the very rules that validate them.
 */
export function requestSchemas(): Record<string, JsonSchema> {
  return withDeprecations(withNullables(validationMetadatasToSchemas(OPTIONS)) as Record<string, JsonSchema>);
}

/** Body fields still accepted but deprecated (spec §9), per request class, with what replaces them. */
const ROUTE_ALIAS = "Deprecated alias of `provider.sort`'s partition: `fallback` is `model`, `sort` is `none`";
const MAX_TOKENS = 'Deprecated: use `max_completion_tokens` (some providers enforce a minimum of 16)';
const DEPRECATED_FIELDS: Record<string, Record<string, string>> = {
  ChatCompletionRequestDto: { route: ROUTE_ALIAS, max_tokens: MAX_TOKENS },
  PresetChatRequestDto: { route: ROUTE_ALIAS, max_tokens: MAX_TOKENS },
  ResponsesRequestDto: { route: ROUTE_ALIAS },
};

function withDeprecations(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  for (const [owner, fields] of Object.entries(DEPRECATED_FIELDS)) {
    const properties = schemas[owner]?.properties as Record<string, JsonSchema> | undefined;
    for (const [field, description] of Object.entries(fields))
      if (properties?.[field]) properties[field] = { ...properties[field], deprecated: true, description };
  }
  return schemas;
}

/** One class's schema, inherited rules included (a query class may only extend a shared one). */
export function schemaOfClass(type: new () => unknown): JsonSchema {
  return withNullables(targetConstructorToSchema(type, OPTIONS)) as JsonSchema;
}

/** Marks a property `@IsOptional()` (class-validator then skips null as well as absent): made nullable by `withNullables`. */
const NULLABLE_MARK = 'x-gw-nullable';

/**
 * `@IsOptional()` accepts null (for key writes null clears a field), so those properties allow
 * `null` in the document too: `type: [t, 'null']`, or `anyOf [schema, null]` around a `$ref` or a union.
 */
function withNullables<T>(schemas: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const schema = node as JsonSchema;
    Object.values(schema).forEach(walk);
    // class-validator's alternatives (IsDateString: date | date-time) are "any of": with formats as
    // annotations (JSON Schema 2020-12's default) both match, and `oneOf` would refuse every value.
    if (schema.oneOf) {
      schema.anyOf = schema.oneOf;
      delete schema.oneOf;
    }
    if (schema[NULLABLE_MARK] !== true) return;
    delete schema[NULLABLE_MARK];
    if (schema.$ref || schema.anyOf || schema.allOf) {
      const { description, ...inner } = schema;
      for (const key of Object.keys(schema)) delete schema[key];
      Object.assign(schema, { anyOf: [inner, { type: 'null' }] }, description ? { description } : {});
    } else if (typeof schema.type === 'string' && schema.type !== 'null') {
      schema.type = [schema.type, 'null'];
      if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
    }
  };
  walk(schemas);
  return schemas;
}

const OPTIONS = {
  refPointerPrefix: '#/components/schemas/',
  additionalConverters: {
    [ValidationTypes.CUSTOM_VALIDATION]: (meta: ValidationMetadata) => {
      const convert = meta.name ? CUSTOM_CONSTRAINTS[meta.name] : undefined;
      if (!convert) {
        const owner = String((meta.target as { name?: string }).name);
        undescribedConstraints.set(owner, [
          ...(undescribedConstraints.get(owner) ?? []),
          `${meta.propertyName}: ${meta.name ?? 'unnamed'}`,
        ]);
        return designTypeSchema(meta);
      }
      const schema = convert(meta);
      return meta.message && typeof meta.message === 'string' ? { ...schema, description: meta.message } : schema;
    },
    [ValidationTypes.CONDITIONAL_VALIDATION]: (meta: ValidationMetadata) => (meta.name === 'isOptional' ? { [NULLABLE_MARK]: true } : {}),
    // `@ValidateNested()` on a property typed `object` or `unknown[]` (free-form provider fields).
    [ValidationTypes.NESTED_VALIDATION]: (meta: ValidationMetadata) => nestedSchema(meta),
  },
};

function nestedSchema(meta: ValidationMetadata): JsonSchema {
  const declared = typeStorage.findTypeMetadata(meta.target as new () => unknown, meta.propertyName)?.typeFunction() as
    { name?: string } | undefined;
  if (declared?.name && declared !== Object) return { $ref: `#/components/schemas/${declared.name}` };
  const type = Reflect.getMetadata('design:type', (meta.target as { prototype: object }).prototype, meta.propertyName) as
    { name?: string } | undefined;
  if (!type || type === Object || type === Array) return designTypeSchema(meta);
  return { $ref: `#/components/schemas/${type.name}` };
}
