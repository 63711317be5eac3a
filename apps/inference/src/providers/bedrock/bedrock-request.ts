import type {
  ContentBlock,
  ConverseCommandInput,
  Message,
  SystemContentBlock,
  Tool,
  ToolChoice,
  ToolResultContentBlock,
} from '@aws-sdk/client-bedrock-runtime';
import { GatewayError } from '@gw/errors';
import type { AnthropicBlock } from '../anthropic/anthropic-messages.js';
import { buildAnthropicBody } from '../anthropic/anthropic-request.js';

/** What the catalog may add to every call of a Bedrock provider (a guardrail the operator enforces). */
export interface BedrockGuardrail {
  identifier: string;
  version: string;
  trace?: 'enabled' | 'disabled' | 'enabled_full';
}

const IMAGE_FORMATS: Record<string, 'png' | 'jpeg' | 'gif' | 'webp'> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * The Converse request for an OpenAI chat-completions body. The conversation is first put in
 * Anthropic's block shape (system apart, strict turns, tool results in user turns, cache
 * markers), which Converse shares block for block; each block is then written in Converse's words.
 */
export function buildConverseInput(body: Record<string, unknown>, modelId: string, guardrail?: BedrockGuardrail): ConverseCommandInput {
  const jsonObject = (body.response_format as { type?: unknown } | undefined)?.type === 'json_object';
  // Converse constrains output by a schema only: "any JSON object" is the schema that says exactly that.
  const source = jsonObject
    ? { ...body, response_format: { type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } } }
    : body;
  const anthropic = buildAnthropicBody(source, modelId, { stream: false });
  const input: ConverseCommandInput = {
    modelId,
    messages: (anthropic.messages as Array<{ role: 'user' | 'assistant'; content: AnthropicBlock[] }>).map((message): Message => ({
      role: message.role,
      content: message.content.flatMap(contentBlock),
    })),
  };
  const system = anthropic.system as AnthropicBlock[] | undefined;
  if (system) input.system = system.flatMap(systemBlock);
  const inference: NonNullable<ConverseCommandInput['inferenceConfig']> = { maxTokens: anthropic.max_tokens as number };
  if (typeof anthropic.temperature === 'number') inference.temperature = anthropic.temperature;
  if (typeof anthropic.top_p === 'number') inference.topP = anthropic.top_p;
  if (Array.isArray(anthropic.stop_sequences)) inference.stopSequences = anthropic.stop_sequences as string[];
  input.inferenceConfig = inference;
  const extra: Record<string, unknown> = {};
  if (anthropic.thinking) extra.thinking = anthropic.thinking;
  if (typeof anthropic.top_k === 'number') extra.top_k = anthropic.top_k;
  if (Object.keys(extra).length > 0) input.additionalModelRequestFields = extra as never;
  const toolConfig = toolConfigFor(anthropic, input.messages!);
  if (toolConfig) input.toolConfig = toolConfig;
  const format = (anthropic.output_config as { format?: { schema?: unknown } } | undefined)?.format;
  if (format) {
    const name = (body.response_format as { json_schema?: { name?: unknown } }).json_schema?.name;
    input.outputConfig = {
      textFormat: {
        type: 'json_schema',
        structure: { jsonSchema: { schema: JSON.stringify(format.schema), name: typeof name === 'string' ? name : 'response' } },
      },
    };
  }
  if (guardrail) {
    input.guardrailConfig = { guardrailIdentifier: guardrail.identifier, guardrailVersion: guardrail.version };
    if (guardrail.trace) input.guardrailConfig.trace = guardrail.trace;
  }
  return input;
}

/**
 * Converse takes no "none" choice: without tool blocks in the conversation the tools are left
 * out; with them Converse needs its toolConfig, and a model that must not call tools cannot be
 * told so, which is refused rather than ignored.
 */
function toolConfigFor(anthropic: Record<string, unknown>, messages: Message[]): ConverseCommandInput['toolConfig'] {
  const tools = anthropic.tools as Array<Record<string, unknown>> | undefined;
  if (!tools) return undefined;
  const choice = anthropic.tool_choice as { type?: string; name?: string; disable_parallel_tool_use?: boolean } | undefined;
  const usesTools = messages.some((message) => message.content?.some((block) => block.toolUse || block.toolResult));
  if (choice?.type === 'none') {
    if (!usesTools) return undefined;
    throw GatewayError.badRequest('tool_choice "none" is not supported by Bedrock Converse once the conversation holds tool calls');
  }
  const converseTools: Tool[] = tools.flatMap((tool): Tool[] => {
    const spec: Tool = {
      toolSpec: {
        name: String(tool.name),
        inputSchema: { json: tool.input_schema as never },
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      },
    };
    return tool.cache_control ? [spec, { cachePoint: { type: 'default' } }] : [spec];
  });
  let toolChoice: ToolChoice | undefined;
  if (choice?.type === 'any') toolChoice = { any: {} };
  else if (choice?.type === 'tool' && choice.name) toolChoice = { tool: { name: choice.name } };
  else if (choice?.type === 'auto') toolChoice = { auto: {} };
  return toolChoice ? { tools: converseTools, toolChoice } : { tools: converseTools };
}

function systemBlock(block: AnthropicBlock): SystemContentBlock[] {
  const text: SystemContentBlock = { text: String(block.text) };
  return block.cache_control ? [text, { cachePoint: { type: 'default' } }] : [text];
}

/** One Anthropic-shaped block in Converse's words; a cache marker becomes a cachePoint after it. */
function contentBlock(block: AnthropicBlock): ContentBlock[] {
  const converted = convert(block);
  return block.cache_control ? [converted, { cachePoint: { type: 'default' } }] : [converted];
}

function convert(block: AnthropicBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { text: String(block.text) };
    case 'image': {
      const { media_type, data } = base64Source(block, 'image');
      const format = IMAGE_FORMATS[media_type.toLowerCase()];
      if (!format)
        throw new GatewayError(400, `Bedrock takes png, jpeg, gif or webp images, not ${media_type}`, {
          errorType: 'unsupported_image_format',
        });
      return { image: { format, source: { bytes: Buffer.from(data, 'base64') } } };
    }
    case 'document': {
      const { media_type, data } = base64Source(block, 'file');
      if (media_type !== 'application/pdf') throw GatewayError.badRequest(`Bedrock documents are read as PDF here, not ${media_type}`);
      const name = typeof block.title === 'string' ? block.title.replace(/[^A-Za-z0-9 ()[\]-]/g, ' ').trim() || 'document' : 'document';
      return { document: { format: 'pdf', name, source: { bytes: Buffer.from(data, 'base64') } } };
    }
    case 'tool_use':
      return { toolUse: { toolUseId: String(block.id), name: String(block.name), input: block.input as never } };
    case 'tool_result': {
      const content =
        typeof block.content === 'string'
          ? [{ text: block.content }]
          : (block.content as AnthropicBlock[]).map((b) =>
              b.type === 'text' ? { text: String(b.text) } : (convert(b) as ToolResultContentBlock),
            );
      return { toolResult: { toolUseId: String(block.tool_use_id), content: content.length > 0 ? content : [{ text: '' }] } };
    }
    case 'thinking':
      return { reasoningContent: { reasoningText: { text: String(block.thinking), signature: String(block.signature) } } };
    case 'redacted_thinking':
      return { reasoningContent: { redactedContent: Buffer.from(String(block.data), 'base64') } };
    default:
      throw GatewayError.badRequest(`a "${block.type}" block cannot be sent to Bedrock`);
  }
}

/** Bedrock reads media as bytes (or from S3), never from a URL it would fetch. */
function base64Source(block: AnthropicBlock, what: string): { media_type: string; data: string } {
  const source = block.source as { type?: string; media_type?: string; data?: string };
  if (source.type !== 'base64' || !source.media_type || source.data === undefined) {
    throw new GatewayError(400, `Bedrock takes an ${what} as a base64 data: URL only, not by URL`, {
      errorType: what === 'image' ? 'invalid_image' : 'invalid_request',
    });
  }
  return { media_type: source.media_type, data: source.data };
}

/** The request as it travels (bytes as base64, as the SDK writes them), for `debug.echo_upstream_body`. */
export function converseWireBody(input: ConverseCommandInput): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(input, function (this: Record<string, unknown>, key: string, value: unknown) {
      const original = this[key];
      return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
    }),
  ) as Record<string, unknown>;
}
