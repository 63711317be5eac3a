import { GatewayError } from '@gw/errors';
import { Ajv, type ValidateFunction } from 'ajv';
import { jsonrepair } from 'jsonrepair';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { PluginOptions } from './plugin-options.js';

type Json = Record<string, unknown>;

export interface ResponseHealingConfig {
  /** The JSON Schema of `response_format: {type: "json_schema"}`, when there is one. */
  schema?: Json;
}

/**
 * `response-healing`: for a request whose `response_format` (Responses: `text.format`) asks for
 * JSON, the model's text is parsed and, when it is not valid JSON (Markdown fences, trailing
 * commas, a cut-off object, single quotes...), repaired with `jsonrepair`; then, when a schema
 * is given, validated against it (Ajv). A request without a JSON format is a 400: the plugin
 * would have nothing to do. Not on streams (text already sent cannot be repaired): 400.
 */
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<Json, ValidateFunction>();

export function parseResponseHealing(raw: Json, where: string, body: Json, stream: boolean): ResponseHealingConfig {
  new PluginOptions(raw, where, 'response-healing', []);
  if (stream)
    throw GatewayError.badRequest(`${where}: response-healing repairs a whole answer and does not run on streams; set stream to false`, {
      reason: 'unsupported_plugin',
      plugin: 'response-healing',
    });
  const format = body.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (format?.type !== 'json_object' && format?.type !== 'json_schema') {
    throw GatewayError.badRequest(
      `${where}: response-healing needs response_format (text.format on /v1/responses) of type json_object or json_schema`,
      { reason: 'invalid_plugin_option', plugin: 'response-healing' },
    );
  }
  const schema =
    format.type === 'json_schema' && format.json_schema?.schema && typeof format.json_schema.schema === 'object'
      ? (format.json_schema.schema as Json)
      : undefined;
  if (!schema) return {};
  try {
    validators.set(schema, ajv.compile(schema));
  } catch (error) {
    throw GatewayError.badRequest(`response_format.json_schema.schema is not a valid JSON Schema: ${(error as Error).message}`, {
      reason: 'invalid_schema',
      plugin: 'response-healing',
    });
  }
  return { schema };
}

/** Repairs one text into JSON text, or says why it cannot. */
export function healJson(text: string): { json: string; repaired: boolean } {
  try {
    JSON.parse(text);
    return { json: text, repaired: false };
  } catch {
    // jsonrepair throws when nothing JSON-like can be made of the text.
    const json = jsonrepair(text).trim();
    JSON.parse(json);
    return { json, repaired: true };
  }
}

/** Heals every choice's content in place; a text that cannot be repaired, or does not match the schema, is a 502. */
export function healCompletion(completion: NormalizedCompletion, config: ResponseHealingConfig): { repaired: number } {
  let repaired = 0;
  for (const choice of completion.choices) {
    const text = choice.message.content;
    if (typeof text !== 'string' || choice.message.tool_calls?.length) continue;
    let healed: { json: string; repaired: boolean };
    try {
      healed = healJson(text);
    } catch (error) {
      throw new GatewayError(502, `response-healing could not repair the model's JSON: ${(error as Error).message}`, {
        errorType: 'unprocessable',
        metadata: { reason: 'response_not_json', plugin: 'response-healing' },
      });
    }
    if (config.schema) {
      let validate = validators.get(config.schema);
      if (!validate) {
        validate = ajv.compile(config.schema);
        validators.set(config.schema, validate);
      }
      if (!validate(JSON.parse(healed.json))) {
        const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
        throw new GatewayError(502, `the model's JSON does not match the response schema: ${errors.join('; ')}`, {
          errorType: 'unprocessable',
          metadata: { reason: 'response_schema_mismatch', plugin: 'response-healing', errors },
        });
      }
    }
    if (healed.repaired) {
      choice.message.content = healed.json;
      repaired++;
    }
  }
  return { repaired };
}
