import { countInputTokens, planMessage, type ContentBlock, type MessagePlan } from './anthropic-plan.ts';
import type { Directives } from './faults.ts';
import { isRecord, type Json } from './json.ts';
import { stableId, toolInput } from './reply.ts';
import { countTokens } from './tokens.ts';

/**
 * A Gemini request in the Messages API's terms, so the simulator's one planner answers it:
 * contents -> messages (functionCall -> tool_use, functionResponse -> tool_result, media ->
 * image), systemInstruction -> system, function declarations -> tools, thinking and JSON
 * output -> thinking and output_config.
 */
export function asMessagesBody(body: Json): Json {
  const contents = (body.contents as Json[]).map((content) => ({
    role: content.role === 'model' ? 'assistant' : 'user',
    content: (content.parts as Json[]).flatMap((part) => block(part)),
  }));
  const declarations = (Array.isArray(body.tools) ? body.tools : [])
    .filter(isRecord)
    .flatMap((tool) => (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations.filter(isRecord) : []))
    .map((d) => ({ name: d.name, description: d.description, input_schema: d.parametersJsonSchema ?? d.parameters ?? { type: 'object' } }));
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const calling = isRecord(body.toolConfig) && isRecord(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const messagesBody: Json = {
    messages: contents,
    max_tokens: typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : 65_536,
  };
  const system = isRecord(body.systemInstruction) && Array.isArray(body.systemInstruction.parts) ? body.systemInstruction.parts : [];
  if (system.length > 0) messagesBody.system = system.filter(isRecord).map((p) => ({ type: 'text', text: String(p.text ?? '') }));
  if (declarations.length > 0) messagesBody.tools = declarations;
  if (calling.mode === 'NONE') messagesBody.tool_choice = { type: 'none' };
  else if (Array.isArray(calling.allowedFunctionNames) && calling.allowedFunctionNames.length > 0)
    messagesBody.tool_choice = { type: 'tool', name: calling.allowedFunctionNames[0] };
  if (Array.isArray(config.stopSequences)) messagesBody.stop_sequences = config.stopSequences;
  const thinking = isRecord(config.thinkingConfig) ? config.thinkingConfig : undefined;
  if (thinking && typeof thinking.thinkingBudget === 'number' && thinking.thinkingBudget !== 0)
    messagesBody.thinking = { type: 'enabled', budget_tokens: Math.max(thinking.thinkingBudget, 1024) };
  const schema = config.responseJsonSchema ?? config.responseSchema;
  if (isRecord(schema)) messagesBody.output_config = { format: { type: 'json_schema', schema } };
  return messagesBody;
}

function block(part: Json): Json[] {
  if (typeof part.text === 'string')
    return part.thought === true ? [{ type: 'thinking', thinking: part.text }] : [{ type: 'text', text: part.text }];
  if (isRecord(part.inlineData) || isRecord(part.fileData)) return [{ type: 'image' }];
  if (isRecord(part.functionCall)) {
    const call = part.functionCall;
    return [{ type: 'tool_use', id: String(call.name), name: call.name, input: call.args ?? {} }];
  }
  if (isRecord(part.functionResponse)) {
    const response = part.functionResponse;
    const value = isRecord(response.response) && 'result' in response.response ? response.response.result : response.response;
    return [
      { type: 'tool_result', tool_use_id: String(response.name), content: typeof value === 'string' ? value : JSON.stringify(value) },
    ];
  }
  return [];
}

export interface GeminiPlan {
  plan: MessagePlan;
  promptTokens: number;
  thoughtsTokens: number;
  /** Every offered function called at once (`parallel-tools=1`). */
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  includeThoughts: boolean;
  jsonWithoutSchema: boolean;
}

/** The answer to a (validated) generateContent request. */
export function planGemini(body: Json, d: Directives): GeminiPlan {
  const messagesBody = asMessagesBody(body);
  const promptTokens = countInputTokens(messagesBody);
  const plan = planMessage(messagesBody, d, promptTokens);
  const thinkingBlock = plan.content.find((b): b is Extract<ContentBlock, { type: 'thinking' }> => b.type === 'thinking');
  const thoughtsTokens = thinkingBlock ? (d.reasoning ?? countTokens(thinkingBlock.thinking)) : 0;
  const toolUse = plan.content.find((b): b is Extract<ContentBlock, { type: 'tool_use' }> => b.type === 'tool_use');
  let calls = toolUse ? [{ name: toolUse.name, args: toolUse.input }] : [];
  if (toolUse && d.parallelTools) {
    const userText = lastUserText(messagesBody);
    calls = (messagesBody.tools as Json[]).map((tool) => ({ name: String(tool.name), args: toolInput(tool.input_schema, userText) }));
  }
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const thinking = isRecord(config.thinkingConfig) ? config.thinkingConfig : {};
  return {
    plan,
    promptTokens,
    thoughtsTokens,
    calls,
    includeThoughts: thinking.includeThoughts === true,
    jsonWithoutSchema: config.responseMimeType === 'application/json' && messagesBody.output_config === undefined,
  };
}

function lastUserText(body: Json): string {
  const user = [...(body.messages as Json[])].reverse().find((m) => m.role === 'user');
  return ((user?.content as Json[]) ?? []).map((b) => (typeof b.text === 'string' ? b.text : '')).join(' ');
}

/** The parts of the answer in order, each with the pieces it streams in (thought, text, calls). */
export function answerParts(g: GeminiPlan): Array<{ part: Json; pieces: string[] }> {
  const out: Array<{ part: Json; pieces: string[] }> = [];
  g.plan.content.forEach((b, i) => {
    const pieces = g.plan.pieces[i] ?? [];
    if (b.type === 'thinking' && g.includeThoughts) out.push({ part: { text: b.thinking, thought: true }, pieces });
    if (b.type === 'text') {
      const text = g.jsonWithoutSchema ? JSON.stringify({ answer: b.text }) : b.text;
      out.push({ part: { text }, pieces: g.jsonWithoutSchema ? [text] : pieces });
    }
  });
  g.calls.forEach((call, i) => {
    // Gemini 2.5 signs the first function call of a thinking turn; the signature must come back.
    const part: Json = { functionCall: { name: call.name, args: call.args } };
    if (i === 0 && g.thoughtsTokens > 0) part.thoughtSignature = Buffer.from(`sim-thought:${stableId(call.name, 16)}`).toString('base64');
    out.push({ part, pieces: [JSON.stringify(call.args)] });
  });
  return out;
}

export function finishReasonOf(g: GeminiPlan): string {
  return g.plan.stopReason === 'max_tokens' ? 'MAX_TOKENS' : 'STOP';
}

export function usageOf(g: GeminiPlan, cached: number | undefined): Json {
  const candidates =
    g.plan.outputTokens -
    g.thoughtsTokens +
    (g.calls.length > 1 ? g.calls.slice(1).reduce((n, c) => n + countTokens(JSON.stringify(c.args)), 0) : 0);
  const usage: Json = {
    promptTokenCount: g.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: g.promptTokens + candidates + g.thoughtsTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: g.promptTokens }],
  };
  if (cached !== undefined && cached > 0) usage.cachedContentTokenCount = Math.min(cached, g.promptTokens);
  if (g.thoughtsTokens > 0) usage.thoughtsTokenCount = g.thoughtsTokens;
  return usage;
}
