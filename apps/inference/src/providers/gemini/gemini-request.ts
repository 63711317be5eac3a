import { GatewayError } from '@gw/errors';
import { translateContents } from './gemini-contents.js';
import { grammarToolRefused } from '../custom-tool-calls.js';
import { toolMediaAsUserTurns } from '../tool-result-media.js';

/**
 * Thinking budgets per reasoning effort when the caller set no max tokens: Gemini 2.5's own
 * levels (Flash thinks up to 24,576 tokens; "minimal" is the smallest budget Pro accepts).
 */
const EFFORT_BUDGETS: Record<string, number> = {
  minimal: 128,
  low: 1024,
  medium: 8192,
  high: 24_576,
  xhigh: 24_576,
  max: 32_768,
};

/** Share of the caller's max tokens given to thinking per effort, as for Anthropic. */
const EFFORT_RATIOS: Record<string, number> = { max: 0.95, xhigh: 0.95, high: 0.8, medium: 0.5, low: 0.2, minimal: 0.1 };

/**
 * The generateContent body (without the model, which is in the URL) for an OpenAI chat-completions
 * body. `streamFunctionCallArguments` (Vertex AI's, streamed calls only) asks for each function
 * call's arguments in pieces, so they reach the caller as argument deltas.
 */
export function buildGeminiBody(
  body: Record<string, unknown>,
  options: { streamFunctionCallArguments?: boolean } = {},
): Record<string, unknown> {
  // Gemini's function responses carry text here: a tool result's media go in a user turn after it.
  const { systemInstruction, contents } = translateContents(toolMediaAsUserTurns(body.messages));
  const upstream: Record<string, unknown> = { contents };
  if (systemInstruction) upstream.systemInstruction = systemInstruction;
  const tools = translateTools(body.tools);
  if (tools) {
    upstream.tools = [{ functionDeclarations: tools }];
    const toolConfig = translateToolChoice(body.tool_choice);
    if (options.streamFunctionCallArguments && body.tool_choice !== 'none') {
      const calling = (toolConfig?.functionCallingConfig ?? {}) as Record<string, unknown>;
      upstream.toolConfig = { functionCallingConfig: { ...calling, streamFunctionCallArguments: true } };
    } else if (toolConfig) upstream.toolConfig = toolConfig;
  } else if (body.tool_choice !== undefined && body.tool_choice !== null && body.tool_choice !== 'none') {
    throw GatewayError.badRequest('tool_choice needs tools');
  }
  const generationConfig = generationConfigFor(body);
  if (Object.keys(generationConfig).length > 0) upstream.generationConfig = generationConfig;
  return upstream;
}

function generationConfigFor(body: Record<string, unknown>): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const maxTokens = positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (typeof body.temperature === 'number') config.temperature = body.temperature;
  if (typeof body.top_p === 'number') config.topP = body.top_p;
  if (typeof body.top_k === 'number') config.topK = body.top_k;
  if (typeof body.presence_penalty === 'number') config.presencePenalty = body.presence_penalty;
  if (typeof body.frequency_penalty === 'number') config.frequencyPenalty = body.frequency_penalty;
  if (typeof body.seed === 'number') config.seed = body.seed;
  if (typeof body.n === 'number' && body.n > 1) config.candidateCount = body.n;
  const stops =
    typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop.filter((s) => typeof s === 'string' && s) : [];
  if (stops.length > 0) config.stopSequences = stops;
  Object.assign(config, responseFormat(body.response_format));
  const thinking = thinkingConfigFor(body, maxTokens);
  if (thinking) config.thinkingConfig = thinking;
  return config;
}

/** `json_schema` -> a JSON answer constrained by `responseJsonSchema` (full JSON Schema); `json_object` -> JSON without a schema. */
function responseFormat(format: unknown): Record<string, unknown> {
  if (format === undefined || format === null) return {};
  const type = (format as { type?: unknown }).type;
  if (type === 'text') return {};
  if (type === 'json_object') return { responseMimeType: 'application/json' };
  if (type === 'json_schema') {
    const schema = ((format as { json_schema?: { schema?: unknown } }).json_schema ?? {}).schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw GatewayError.badRequest('response_format.json_schema.schema must be a JSON schema object');
    }
    return { responseMimeType: 'application/json', responseJsonSchema: schema };
  }
  throw GatewayError.badRequest(`response_format.type "${String(type)}" is not supported by this model's provider (Gemini)`);
}

/**
 * `reasoning` as Gemini's thinkingConfig: `max_tokens` is the budget, an effort a share of the
 * caller's max tokens (or Gemini's level for it), `enabled: false` / effort `none` budget 0.
 * Thoughts are asked for (`includeThoughts`) unless `exclude` is set. No reasoning field: the
 * model's default (dynamic thinking), and no thoughts in the answer.
 */
function thinkingConfigFor(body: Record<string, unknown>, maxTokens: number | undefined): Record<string, unknown> | undefined {
  const reasoning = (body.reasoning !== null && typeof body.reasoning === 'object' ? body.reasoning : undefined) as
    Record<string, unknown> | undefined;
  const effort =
    typeof reasoning?.effort === 'string'
      ? reasoning.effort
      : typeof body.reasoning_effort === 'string'
        ? body.reasoning_effort
        : undefined;
  if (!reasoning && effort === undefined) return undefined;
  if (reasoning?.enabled === false || effort === 'none') return { thinkingBudget: 0 };
  const explicit = positiveInt(reasoning?.max_tokens);
  let budget: number | undefined;
  if (explicit !== undefined) budget = explicit;
  else if (effort !== undefined) {
    if (!(effort in EFFORT_BUDGETS))
      throw GatewayError.badRequest(`reasoning.effort "${effort}" is not supported by this model's provider (Gemini)`);
    budget = maxTokens !== undefined ? Math.max(Math.floor(maxTokens * EFFORT_RATIOS[effort]!), 128) : EFFORT_BUDGETS[effort];
  }
  const config: Record<string, unknown> = { includeThoughts: reasoning?.exclude !== true };
  config.thinkingBudget = budget ?? -1;
  return config;
}

/** Function tools as Gemini function declarations (the parameters as full JSON Schema). */
function translateTools(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool: Record<string, unknown>, index) => {
    const fn = tool?.function as Record<string, unknown> | undefined;
    if (tool?.type === 'custom') throw grammarToolRefused("this model's provider (Gemini)", tools);
    if (tool?.type !== 'function' || !fn || typeof fn.name !== 'string') {
      throw GatewayError.badRequest(
        `tools[${index}] must be a function tool ({type: "function", function: {name, ...}}) for this model's provider`,
      );
    }
    const declaration: Record<string, unknown> = { name: fn.name };
    if (typeof fn.description === 'string') declaration.description = fn.description;
    if (fn.parameters !== undefined) declaration.parametersJsonSchema = fn.parameters;
    return declaration;
  });
}

/** auto -> AUTO, none -> NONE, required -> ANY, {function: {name}} -> ANY limited to that function. */
function translateToolChoice(choice: unknown): Record<string, unknown> | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: 'AUTO' } };
  if (choice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (choice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  const name = ((choice as Record<string, unknown>).function as Record<string, unknown> | undefined)?.name;
  if (typeof name === 'string') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [name] } };
  throw GatewayError.badRequest('tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}
