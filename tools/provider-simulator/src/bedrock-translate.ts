import { isRecord, type Json } from './json.ts';

/**
 * A (validated) Converse request in the Messages API's shape, so the one planner answers both:
 * blocks map one to one, a cachePoint marks the block before it, toolSpec is a tool.
 */
export function toAnthropicBody(body: Json): Json {
  const inference = (body.inferenceConfig ?? {}) as Json;
  const extra = (body.additionalModelRequestFields ?? {}) as Json;
  const out: Json = {
    max_tokens: typeof inference.maxTokens === 'number' ? inference.maxTokens : 4096,
    messages: (body.messages as Json[]).map((message) => ({ role: message.role, content: blocks(message.content as Json[]) })),
  };
  if (Array.isArray(body.system)) out.system = blocks(body.system as Json[]);
  if (Array.isArray(inference.stopSequences)) out.stop_sequences = inference.stopSequences;
  if (isRecord(extra.thinking)) out.thinking = extra.thinking;
  const tools = isRecord(body.toolConfig) ? (body.toolConfig.tools as Json[]) : undefined;
  if (tools) {
    out.tools = tools.flatMap((tool) => {
      const spec = tool.toolSpec as Json | undefined;
      if (!spec) return [];
      return [
        { name: spec.name, ...(spec.description ? { description: spec.description } : {}), input_schema: (spec.inputSchema as Json).json },
      ];
    });
    const choice = (body.toolConfig as Json).toolChoice as Json | undefined;
    if (choice?.any) out.tool_choice = { type: 'any' };
    else if (isRecord(choice?.tool)) out.tool_choice = { type: 'tool', name: choice.tool.name };
  }
  const format = isRecord(body.outputConfig) && isRecord(body.outputConfig.textFormat) ? body.outputConfig.textFormat : undefined;
  if (format) {
    const schema = ((format.structure as Json).jsonSchema as Json).schema as string;
    out.output_config = { format: { type: 'json_schema', schema: JSON.parse(schema) } };
  }
  return out;
}

function blocks(content: Json[]): Json[] {
  const out: Json[] = [];
  for (const block of content) {
    if (block.cachePoint) {
      const last = out[out.length - 1];
      if (last) last.cache_control = { type: 'ephemeral' };
    } else if (typeof block.text === 'string') out.push({ type: 'text', text: block.text });
    else if (isRecord(block.image))
      out.push({
        type: 'image',
        source: { type: 'base64', media_type: `image/${String(block.image.format)}`, data: (block.image.source as Json).bytes },
      });
    else if (isRecord(block.document)) out.push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: '' } });
    else if (isRecord(block.toolUse))
      out.push({ type: 'tool_use', id: block.toolUse.toolUseId, name: block.toolUse.name, input: block.toolUse.input });
    else if (isRecord(block.toolResult)) {
      const text = (block.toolResult.content as Json[])
        .map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part.json ?? '')))
        .join(' ');
      out.push({ type: 'tool_result', tool_use_id: block.toolResult.toolUseId, content: text });
    } else if (isRecord(block.reasoningContent) && isRecord(block.reasoningContent.reasoningText))
      out.push({
        type: 'thinking',
        thinking: block.reasoningContent.reasoningText.text,
        signature: block.reasoningContent.reasoningText.signature,
      });
  }
  return out;
}
