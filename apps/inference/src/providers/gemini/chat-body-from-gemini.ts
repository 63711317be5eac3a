import { GatewayError } from '@gw/errors';
import { GEMINI_REASONING_FORMAT, type GeminiContent, type GeminiPart } from './gemini-contents.js';

/**
 * The reverse of the adapter's request codec: a Gemini generateContent body (Google's SDK at
 * the gateway's front door) as the chat-completions body every endpoint is called with. What
 * has no chat form (safety settings, cached contents, Google's own tools) is refused with a 400
 * naming it, never dropped.
 */
const FIELDS = new Set(['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
const GENERATION_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

function refuse(message: string, param?: string): never {
  throw GatewayError.badRequest(message, param ? { param } : undefined);
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

export function chatBodyFromGemini(body: Record<string, unknown>): Record<string, unknown> {
  const unknown = Object.keys(body).find((field) => !FIELDS.has(field));
  if (unknown) refuse(`${unknown} is not supported by this gateway's generateContent`, unknown);
  const chat: Record<string, unknown> = { model: body.model, messages: messagesOf(body) };
  const tools = toolsOf(body.tools);
  if (tools) chat.tools = tools;
  const choice = toolChoiceOf(body.toolConfig);
  if (choice !== undefined) chat.tool_choice = choice;
  Object.assign(chat, generationOf(body.generationConfig));
  return chat;
}

function messagesOf(body: Record<string, unknown>): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [];
  const system = record(body.systemInstruction);
  if (system) {
    const text = partsOf(system, 'systemInstruction')
      .map((part, i) => (typeof part.text === 'string' ? part.text : refuse(`systemInstruction.parts[${i}] must be text`)))
      .join('\n');
    if (text) messages.push({ role: 'system', content: text });
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) refuse('contents must be a non-empty list', 'contents');
  const pending: Array<{ id: string; name: string }> = [];
  (body.contents as unknown[]).forEach((raw, i) => {
    const content = record(raw) as GeminiContent | undefined;
    if (!content) refuse(`contents[${i}] must be an object`, 'contents');
    const parts = partsOf(content as unknown as Record<string, unknown>, `contents[${i}]`);
    if (content.role === 'model') messages.push(assistantOf(parts, i, pending));
    else if (content.role === 'user' || content.role === undefined) messages.push(...userOf(parts, i, pending));
    else refuse(`contents[${i}].role must be "user" or "model"`, 'contents');
  });
  return messages;
}

function partsOf(content: Record<string, unknown>, where: string): GeminiPart[] {
  if (!Array.isArray(content.parts) || content.parts.length === 0) refuse(`${where}.parts must be a non-empty list`);
  return (content.parts as unknown[]).map((part, j) => record(part) ?? refuse(`${where}.parts[${j}] must be an object`));
}

function assistantOf(parts: GeminiPart[], i: number, pending: Array<{ id: string; name: string }>): Record<string, unknown> {
  const text: string[] = [];
  const toolCalls: Array<Record<string, unknown>> = [];
  const details: Array<Record<string, unknown>> = [];
  parts.forEach((part, j) => {
    const call = record(part.functionCall);
    if (call) {
      if (typeof call.name !== 'string') refuse(`contents[${i}].parts[${j}].functionCall.name is required`);
      const id = typeof call.id === 'string' ? call.id : `call_${i}_${j}`;
      toolCalls.push({ id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } });
      pending.push({ id, name: call.name });
      if (typeof part.thoughtSignature === 'string')
        details.push({ type: 'reasoning.encrypted', data: part.thoughtSignature, id, format: GEMINI_REASONING_FORMAT, index: 0 });
    } else if (typeof part.text === 'string') {
      // Earlier thoughts are the model's own notes: Gemini does not take them back either.
      if (part.thought !== true) text.push(part.text);
    } else refuse(`contents[${i}].parts[${j}]: a model turn may hold text and functionCall parts only`);
  });
  const message: Record<string, unknown> = { role: 'assistant', content: text.length > 0 ? text.join('') : null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (details.length > 0) message.reasoning_details = details;
  return message;
}

/** A user turn: its function responses become tool messages (answering the calls by name, in order), the rest one user message. */
function userOf(parts: GeminiPart[], i: number, pending: Array<{ id: string; name: string }>): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const content: Array<Record<string, unknown>> = [];
  parts.forEach((part, j) => {
    const where = `contents[${i}].parts[${j}]`;
    const response = record(part.functionResponse);
    if (response) {
      const at = pending.findIndex((call) => call.name === response.name);
      if (at < 0) refuse(`${where}.functionResponse answers no earlier functionCall named ${String(response.name)}`);
      const [call] = pending.splice(at, 1);
      const value = record(response.response) ?? {};
      const keys = Object.keys(value);
      const text = keys.length === 1 && typeof value[keys[0]!] === 'string' ? (value[keys[0]!] as string) : JSON.stringify(value);
      out.push({ role: 'tool', tool_call_id: call!.id, content: text });
    } else if (typeof part.text === 'string') content.push({ type: 'text', text: part.text });
    else if (record(part.inlineData)) content.push(mediaOf(record(part.inlineData)!, where, true));
    else if (record(part.fileData)) content.push(mediaOf(record(part.fileData)!, where, false));
    else refuse(`${where}: only text, inlineData, fileData and functionResponse parts are supported`);
  });
  if (content.length > 0) out.push({ role: 'user', content });
  return out;
}

function mediaOf(media: Record<string, unknown>, where: string, inline: boolean): Record<string, unknown> {
  const mimeType = typeof media.mimeType === 'string' ? media.mimeType : refuse(`${where}: mimeType is required`);
  const url = inline ? `data:${mimeType};base64,${String(media.data ?? '')}` : String(media.fileUri ?? '');
  if (mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url } };
  if (inline && mimeType === 'application/pdf') return { type: 'file', file: { filename: 'document.pdf', file_data: url } };
  return refuse(`${where}: ${mimeType} is not supported (images, and PDF inline)`);
}

function toolsOf(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) refuse('tools must be a list', 'tools');
  const functions = tools.flatMap((raw, i) => {
    const tool = record(raw) ?? refuse(`tools[${i}] must be an object`, 'tools');
    const other = Object.keys(tool).find((key) => key !== 'functionDeclarations');
    if (other) refuse(`tools[${i}].${other} is not supported by this gateway (function declarations only)`, 'tools');
    return Array.isArray(tool.functionDeclarations) ? (tool.functionDeclarations as unknown[]) : [];
  });
  return functions.map((raw, i) => {
    const declaration = record(raw) ?? refuse(`functionDeclarations[${i}] must be an object`, 'tools');
    if (typeof declaration.name !== 'string') refuse(`functionDeclarations[${i}].name is required`, 'tools');
    const fn: Record<string, unknown> = { name: declaration.name };
    if (typeof declaration.description === 'string') fn.description = declaration.description;
    const parameters =
      declaration.parametersJsonSchema ?? (declaration.parameters === undefined ? undefined : jsonSchemaOf(declaration.parameters));
    if (parameters !== undefined) fn.parameters = parameters;
    return { type: 'function', function: fn };
  });
}

/** Google's OpenAPI-style Schema (`type: "OBJECT"`, `nullable`) as JSON Schema. */
export function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  const object = record(schema);
  if (!object) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'nullable' || key === 'propertyOrdering') continue;
    else out[key] = key === 'enum' || key === 'required' ? value : jsonSchemaOf(value);
  }
  if (object.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

function toolChoiceOf(toolConfig: unknown): unknown {
  const config = record(record(toolConfig)?.functionCallingConfig);
  if (!config) return undefined;
  const names = Array.isArray(config.allowedFunctionNames) ? config.allowedFunctionNames : [];
  switch (config.mode) {
    case undefined:
    case 'AUTO':
      return config.mode === undefined ? undefined : 'auto';
    case 'NONE':
      return 'none';
    case 'ANY':
      if (names.length === 0) return 'required';
      if (names.length === 1) return { type: 'function', function: { name: names[0] } };
      return refuse('toolConfig.functionCallingConfig.allowedFunctionNames may name one function here', 'toolConfig');
    default:
      return refuse(`toolConfig.functionCallingConfig.mode ${String(config.mode)} is not supported`, 'toolConfig');
  }
}

function generationOf(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  const config = record(value) ?? refuse('generationConfig must be an object', 'generationConfig');
  const unknown = Object.keys(config).find((field) => !GENERATION_FIELDS.has(field));
  if (unknown) refuse(`generationConfig.${unknown} is not supported by this gateway`, 'generationConfig');
  const chat: Record<string, unknown> = {};
  const copy = (from: string, to: string) => {
    if (config[from] !== undefined) chat[to] = config[from];
  };
  copy('temperature', 'temperature');
  copy('topP', 'top_p');
  copy('topK', 'top_k');
  copy('maxOutputTokens', 'max_tokens');
  copy('stopSequences', 'stop');
  copy('candidateCount', 'n');
  copy('presencePenalty', 'presence_penalty');
  copy('frequencyPenalty', 'frequency_penalty');
  copy('seed', 'seed');
  const schema = config.responseJsonSchema ?? (config.responseSchema === undefined ? undefined : jsonSchemaOf(config.responseSchema));
  if (config.responseMimeType === 'application/json')
    chat.response_format =
      schema === undefined ? { type: 'json_object' } : { type: 'json_schema', json_schema: { name: 'response', schema } };
  else if (schema !== undefined) refuse('responseSchema needs responseMimeType "application/json"', 'generationConfig');
  else if (config.responseMimeType !== undefined && config.responseMimeType !== 'text/plain')
    refuse(`responseMimeType ${String(config.responseMimeType)} is not supported`, 'generationConfig');
  const thinking = record(config.thinkingConfig);
  if (thinking) chat.reasoning = reasoningOf(thinking);
  return chat;
}

/** thinkingConfig as `reasoning`: a budget is max_tokens (0 turns thinking off, -1 lets the model decide), a level an effort. */
function reasoningOf(thinking: Record<string, unknown>): Record<string, unknown> {
  const reasoning: Record<string, unknown> = { exclude: thinking.includeThoughts !== true };
  const budget = thinking.thinkingBudget;
  if (budget === 0) return { enabled: false };
  if (typeof budget === 'number' && budget > 0) reasoning.max_tokens = budget;
  else if (typeof thinking.thinkingLevel === 'string') reasoning.effort = thinking.thinkingLevel.toLowerCase();
  else reasoning.enabled = true;
  return reasoning;
}
