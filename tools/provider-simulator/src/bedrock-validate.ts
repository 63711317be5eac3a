import { isRecord, type Json } from './json.ts';

/** Converse's top-level members (the model id travels in the path). */
const CONVERSE_FIELDS = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'promptVariables',
  'additionalModelResponseFieldPaths',
  'requestMetadata',
  'performanceConfig',
  'serviceTier',
  'outputConfig',
]);
const INFERENCE_FIELDS = new Set(['maxTokens', 'temperature', 'topP', 'stopSequences']);
const BLOCK_MEMBERS = new Set([
  'text',
  'image',
  'document',
  'toolUse',
  'toolResult',
  'reasoningContent',
  'cachePoint',
  'guardContent',
  'video',
  'citationsContent',
]);
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);
/** What Claude on Bedrock takes in `additionalModelRequestFields`. */
const CLAUDE_EXTRA_FIELDS = new Set(['thinking', 'top_k', 'anthropic_beta']);

/** Bedrock's wording for a request its schema refuses. */
const validation = (message: string) => message;
const unknownKey = (key: string) =>
  `Malformed input request: extraneous key [${key}] is not permitted, please reformat your input and try again.`;

function oneMember(block: unknown, where: string, allowed: Set<string>): string | undefined {
  if (!isRecord(block))
    return validation(`1 validation error detected: Value at '${where}' failed to satisfy constraint: Member must not be null`);
  const keys = Object.keys(block);
  const unknown = keys.find((key) => !allowed.has(key));
  if (unknown) return unknownKey(unknown);
  if (keys.length !== 1)
    return validation(
      `1 validation error detected: Value at '${where}' failed to satisfy constraint: Member must have exactly one member set`,
    );
  return undefined;
}

function validateBlock(block: Json, where: string, toolUseIds: Set<string>): string | undefined {
  const error = oneMember(block, where, BLOCK_MEMBERS);
  if (error) return error;
  if ('text' in block && (typeof block.text !== 'string' || block.text.trim() === ''))
    return validation('The text field in the ContentBlock object is blank. Add text to the text field, and try again.');
  if (isRecord(block.image)) {
    const source = block.image.source;
    if (!IMAGE_FORMATS.has(String(block.image.format)))
      return validation(
        `1 validation error detected: Value '${String(block.image.format)}' at '${where}.member.image.format' failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]`,
      );
    if (!isRecord(source) || typeof source.bytes !== 'string' || source.bytes === '')
      return validation(`${where}.image.source: bytes required`);
  }
  if (isRecord(block.toolUse)) {
    const { toolUseId, name, input } = block.toolUse;
    if (typeof toolUseId !== 'string' || typeof name !== 'string' || !isRecord(input))
      return validation(`${where}.toolUse needs toolUseId, name and an input object`);
    toolUseIds.add(toolUseId);
  }
  if (isRecord(block.toolResult)) {
    const id = block.toolResult.toolUseId;
    if (typeof id !== 'string' || !toolUseIds.has(id))
      return validation(
        `The toolResult blocks at ${where} contain a toolUseId that is not in the toolUse blocks of the previous turn: ${String(id)}`,
      );
    if (!Array.isArray(block.toolResult.content)) return validation(`${where}.toolResult.content is required`);
  }
  return undefined;
}

function validateMessages(messages: unknown, hasTools: boolean): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0)
    return validation('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  const toolUseIds = new Set<string>();
  let usesTools = false;
  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isRecord(message)) return validation(`messages.${i} must be an object`);
    const unknown = Object.keys(message).find((key) => key !== 'role' && key !== 'content');
    if (unknown) return unknownKey(unknown);
    if (message.role !== 'user' && message.role !== 'assistant')
      return validation(
        `1 validation error detected: Value '${String(message.role)}' at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`,
      );
    if (i === 0 && message.role !== 'user')
      return validation('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
    if (i > 0 && (messages[i - 1] as Json).role === message.role)
      return validation(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    if (!Array.isArray(message.content) || message.content.length === 0)
      return validation(
        `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    for (let j = 0; j < message.content.length; j++) {
      const block = message.content[j] as Json;
      const error = validateBlock(block, `messages.${i}.content.${j}`, toolUseIds);
      if (error) return error;
      if (isRecord(block) && (block.toolUse || block.toolResult)) usesTools = true;
    }
  }
  if (usesTools && !hasTools) return validation('The toolConfig field must be defined when using toolUse and toolResult content blocks.');
  return undefined;
}

function validateToolConfig(config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isRecord(config)) return validation('toolConfig must be an object');
  const unknown = Object.keys(config).find((key) => key !== 'tools' && key !== 'toolChoice');
  if (unknown) return unknownKey(unknown);
  if (!Array.isArray(config.tools) || config.tools.length === 0)
    return validation(
      "1 validation error detected: Value '[]' at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  for (const [i, tool] of config.tools.entries()) {
    const error = oneMember(tool, `toolConfig.tools.${i + 1}.member`, new Set(['toolSpec', 'cachePoint', 'systemTool']));
    if (error) return error;
    const spec = (tool as Json).toolSpec;
    if (spec !== undefined) {
      if (!isRecord(spec) || typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name))
        return validation(`toolConfig.tools.${i}.toolSpec.name must match [a-zA-Z0-9_-]{1,64}`);
      const extra = Object.keys(spec).find((key) => !['name', 'description', 'inputSchema', 'strict'].includes(key));
      if (extra) return unknownKey(extra);
      if (!isRecord(spec.inputSchema) || !isRecord(spec.inputSchema.json))
        return validation(`toolConfig.tools.${i}.toolSpec.inputSchema.json is required`);
    }
  }
  if (config.toolChoice !== undefined) {
    const error = oneMember(config.toolChoice, 'toolConfig.toolChoice', new Set(['auto', 'any', 'tool']));
    if (error) return error;
  }
  return undefined;
}

function validateOutputConfig(config: unknown): string | undefined {
  if (config === undefined) return undefined;
  if (!isRecord(config)) return validation('outputConfig must be an object');
  const unknown = Object.keys(config).find((key) => key !== 'textFormat' && key !== 'effort');
  if (unknown) return unknownKey(unknown);
  const format = config.textFormat;
  if (format === undefined) return undefined;
  if (!isRecord(format) || format.type !== 'json_schema')
    return validation(
      "1 validation error detected: Value at 'outputConfig.textFormat.type' failed to satisfy constraint: Member must satisfy enum value set: [json_schema]",
    );
  const schema = isRecord(format.structure) && isRecord(format.structure.jsonSchema) ? format.structure.jsonSchema.schema : undefined;
  if (typeof schema !== 'string') return validation('outputConfig.textFormat.structure.jsonSchema.schema is required');
  try {
    if (!isRecord(JSON.parse(schema))) throw new Error('not an object');
  } catch {
    return validation('The JSON schema in outputConfig.textFormat.structure.jsonSchema.schema is not valid JSON.');
  }
  return undefined;
}

/** Refuses what Converse refuses, in Bedrock's words; undefined when the request is well formed. */
export function validateConverse(body: Json, modelId: string): string | undefined {
  const unknown = Object.keys(body).find((key) => !CONVERSE_FIELDS.has(key));
  if (unknown) return unknownKey(unknown);
  const inference = body.inferenceConfig;
  if (inference !== undefined) {
    if (!isRecord(inference)) return validation('inferenceConfig must be an object');
    const extra = Object.keys(inference).find((key) => !INFERENCE_FIELDS.has(key));
    if (extra) return unknownKey(extra);
    const max = inference.maxTokens;
    if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1))
      return validation(
        `1 validation error detected: Value '${String(max)}' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1`,
      );
    for (const name of ['temperature', 'topP'] as const) {
      const value = inference[name];
      if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1))
        return validation(
          `1 validation error detected: Value '${String(value)}' at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value less than or equal to 1`,
        );
    }
  }
  if (body.system !== undefined) {
    if (!Array.isArray(body.system)) return validation('system must be a list');
    for (const [i, block] of body.system.entries()) {
      const error = oneMember(block, `system.${i + 1}.member`, new Set(['text', 'cachePoint', 'guardContent']));
      if (error) return error;
    }
  }
  const toolError = validateToolConfig(body.toolConfig);
  if (toolError) return toolError;
  const outputError = validateOutputConfig(body.outputConfig);
  if (outputError) return outputError;
  const extra = body.additionalModelRequestFields;
  if (extra !== undefined) {
    if (!isRecord(extra)) return validation('additionalModelRequestFields must be an object');
    const allowed = modelId.includes('anthropic.') ? CLAUDE_EXTRA_FIELDS : new Set<string>();
    const bad = Object.keys(extra).find((key) => !allowed.has(key));
    if (bad) return unknownKey(bad);
  }
  if (body.guardrailConfig !== undefined) {
    const g = body.guardrailConfig;
    if (!isRecord(g) || typeof g.guardrailIdentifier !== 'string' || typeof g.guardrailVersion !== 'string')
      return validation('guardrailConfig needs guardrailIdentifier and guardrailVersion');
    const bad = Object.keys(g).find((key) => !['guardrailIdentifier', 'guardrailVersion', 'trace', 'streamProcessingMode'].includes(key));
    if (bad) return unknownKey(bad);
  }
  return validateMessages(body.messages, isRecord(body.toolConfig));
}
