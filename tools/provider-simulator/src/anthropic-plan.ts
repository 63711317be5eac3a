import { citingReply, SERVER_TOOL_NAMES, serverToolCall } from './search-agent.ts';
import { promptCacheUsage } from './anthropic-cache.ts';
import type { Directives } from './faults.ts';
import { isRecord, type Json } from './json.ts';
import { contextCitingReply } from './plugin-models.ts';
import { steeredToolCall } from './tool-steering.ts';
import { buildReasoning, buildReply, buildToolResultReply, shapeReply, stableId, toolInput, valueFromSchema } from './reply.ts';
import { steeredTool, steeredToolInput, workingDirectoryOf, type SteeredTool } from './steered-tool.ts';
import { countTokens, splitPieces, TOKENS_PER_IMAGE, TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST } from './tokens.ts';

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** Text of a tool_result block's content (string or blocks). */
function toolResultText(block: Json): string {
  const c = block.content;
  if (typeof c === 'string') return c;
  return blocksOf(c)
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join(' ');
}

/** Tokens of one content block (text, image, document, tool_use, tool_result, thinking). */
function blockTokens(block: Json): number {
  switch (block.type) {
    case 'text':
      return countTokens(String(block.text ?? ''));
    case 'image':
    case 'document':
      return TOKENS_PER_IMAGE;
    case 'tool_use':
      return countTokens(`${String(block.name ?? '')} ${JSON.stringify(block.input ?? {})}`);
    case 'tool_result':
      return countTokens(toolResultText(block));
    case 'thinking':
      return countTokens(String(block.thinking ?? ''));
    default:
      return countTokens(JSON.stringify(block));
  }
}

/** system + messages (+3 each) + 3 + tools JSON, with the same tokenizer as OpenAI. */
export function countInputTokens(body: Json): number {
  let total = TOKENS_PER_REQUEST;
  for (const block of blocksOf(body.system)) total += blockTokens(block);
  for (const m of body.messages as Json[]) {
    total += TOKENS_PER_MESSAGE;
    for (const block of blocksOf(m.content)) total += blockTokens(block);
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) total += countTokens(JSON.stringify(body.tools));
  return total;
}

export type ContentBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessagePlan {
  content: ContentBlock[];
  /** the streamed pieces of each block (thinking text, text, tool input JSON) */
  pieces: string[][];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
  stopSequence: string | null;
  /** Why a refusal stopped the answer (`stop_details`), null otherwise. */
  stopDetails: { type: 'refusal'; category: string | null; explanation: string | null } | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  webSearchRequests: number;
  /** usage.service_tier: `priority` when `auto` was asked for (the simulated account has priority capacity), else `standard`. */
  serviceTier: 'standard' | 'priority';
  /** usage.speed and usage.inference_geo: what the request asked for, reported only then. */
  speed?: string;
  inferenceGeo?: string;
}

function pickTool(tools: unknown, choice: unknown, userText: string): { tool: Json; steered?: SteeredTool } | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  if (isRecord(choice) && choice.type === 'none') return undefined;
  // A gateway's server tools are called only when the user asks for them (search-agent.ts).
  const custom = tools.filter((t): t is Json => isRecord(t) && typeof t.name === 'string' && !SERVER_TOOL_NAMES.has(t.name));
  if (isRecord(choice) && choice.type === 'tool') {
    const named = custom.find((t) => t.name === choice.name);
    if (named) return { tool: named };
  }
  const steered = steeredTool(
    userText,
    custom.map((t) => String(t.name)),
  );
  const tool = custom.find((t) => t.name === steered?.name);
  if (tool) return { tool, steered };
  return custom[0] ? { tool: custom[0] } : undefined;
}

/** The instructions' text: the system prompt and any system message inside the conversation. */
function instructionsOf(body: Json): string {
  const inside = (body.messages as Json[]).filter((m) => m.role === 'system').flatMap((m) => blocksOf(m.content));
  return [...blocksOf(body.system), ...inside].map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
}

export function thinkingEnabled(body: Json, d: Directives): boolean {
  return d.reasoning !== undefined || (isRecord(body.thinking) && body.thinking.type === 'enabled');
}

/** Decides the assistant message for a (validated) Messages API request. */
export function planMessage(body: Json, d: Directives, promptTokens: number): MessagePlan {
  // System messages inside the conversation are instructions, not turns: the model answers the last turn.
  const turns = (body.messages as Json[]).filter((m) => m.role !== 'system');
  const messages = turns.length > 0 ? turns : (body.messages as Json[]);
  const last = messages[messages.length - 1]!;
  // The user's last words: tool results come back in user messages too, without text.
  const lastUser =
    [...messages].reverse().find((m) => m.role === 'user' && blocksOf(m.content).some((b) => b.type === 'text')) ??
    [...messages].reverse().find((m) => m.role === 'user');
  const userBlocks = lastUser ? blocksOf(lastUser.content) : [];
  const userText = userBlocks
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text ?? ''))
    .join(' ');
  const lastBlocks = blocksOf(last.content);
  const results = last.role === 'user' ? lastBlocks.filter((b) => b.type === 'tool_result') : [];
  const sinceUser = messages.slice(lastUser ? messages.lastIndexOf(lastUser) + 1 : 0).flatMap((m) =>
    m.role === 'user'
      ? blocksOf(m.content)
          .filter((b) => b.type === 'tool_result')
          .map(toolResultText)
      : [],
  );
  const offered =
    Array.isArray(body.tools) && !(isRecord(body.tool_choice) && body.tool_choice.type === 'none')
      ? body.tools.filter(isRecord).map((t) => String(t.name))
      : [];
  const decision = serverToolCall(offered, userText, sinceUser);
  const forced = isRecord(body.tool_choice) && body.tool_choice.type === 'tool' ? String(body.tool_choice.name) : undefined;
  const steered =
    !decision && last.role === 'user' && results.length === 0
      ? steeredToolCall(
          offered.filter((name) => forced === undefined || name === forced),
          userText,
        )
      : undefined;
  const picked =
    !decision && !steered && last.role === 'user' && results.length === 0 ? pickTool(body.tools, body.tool_choice, userText) : undefined;
  const tool = decision
    ? { name: decision.name, input: decision.input }
    : steered
      ? { name: steered.name, input: JSON.parse(steered.arguments) as Json }
      : picked?.tool;

  const content: ContentBlock[] = [];
  const pieces: string[][] = [];
  let outputTokens = 0;
  let budget = body.max_tokens as number;
  if (thinkingEnabled(body, d)) {
    const thinking = buildReasoning(userText);
    const signature = Buffer.from(`sim-signature:${stableId(thinking, 32)}`).toString('base64');
    const thinkingTokens = d.reasoning ?? countTokens(thinking);
    content.push({ type: 'thinking', thinking, signature });
    pieces.push(splitPieces(thinking));
    outputTokens += thinkingTokens;
    budget = Math.max(0, budget - thinkingTokens);
  }

  let stopReason: MessagePlan['stopReason'];
  let stopSequence: string | null = null;
  if (tool) {
    const input = decision
      ? decision.input
      : steered
        ? (tool.input as Json)
        : picked?.steered
          ? steeredToolInput(tool.input_schema, userText, picked.steered, workingDirectoryOf(instructionsOf(body)))
          : toolInput(tool.input_schema, userText);
    const json = JSON.stringify(input);
    content.push({
      type: 'tool_use',
      id: `toolu_${stableId(`${String(tool.name)}:${userText}${decision ? `:${decision.turn}` : ''}`)}`,
      name: String(tool.name),
      input,
    });
    const jsonPieces = splitPieces(json);
    pieces.push(jsonPieces);
    outputTokens += jsonPieces.length;
    // `parallel-tools=1`: every other offered tool in the same turn, as Claude's parallel tool use,
    // unless the request forbids it (`disable_parallel_tool_use`) or names one tool.
    const single = isRecord(body.tool_choice) && (body.tool_choice.disable_parallel_tool_use === true || forced !== undefined);
    if (d.parallelTools && picked && !picked.steered && !single)
      for (const other of (body.tools as Json[]).filter(
        (t) => isRecord(t) && typeof t.name === 'string' && t.name !== tool.name && !SERVER_TOOL_NAMES.has(t.name),
      )) {
        const otherInput = toolInput(other.input_schema, userText);
        const otherPieces = splitPieces(JSON.stringify(otherInput));
        content.push({
          type: 'tool_use',
          id: `toolu_${stableId(`${String(other.name)}:${userText}`)}`,
          name: String(other.name),
          input: otherInput,
        });
        pieces.push(otherPieces);
        outputTokens += otherPieces.length;
      }
    stopReason = 'tool_use';
  } else {
    // A system prompt that hands over web results to cite (the gateway's web plugin) is answered citing them.
    const systemText =
      typeof body.system === 'string'
        ? body.system
        : Array.isArray(body.system)
          ? body.system
              .filter(isRecord)
              .map((block) => String(block.text ?? ''))
              .join('\n')
          : '';
    const fromContext = contextCitingReply([{ role: 'system', content: systemText }]);
    let full =
      results.length > 0
        ? (citingReply(sinceUser) ?? buildToolResultReply(results.map(toolResultText)))
        : (fromContext ?? buildReply(userText, 0, d.replyTokens));
    // Structured outputs: the answer is JSON matching output_config.format.schema.
    const format = isRecord(body.output_config) && isRecord(body.output_config.format) ? body.output_config.format : undefined;
    if (format && isRecord(format.schema)) full = JSON.stringify(valueFromSchema(format.schema, full));
    const stops = Array.isArray(body.stop_sequences) ? body.stop_sequences.filter((s): s is string => typeof s === 'string') : [];
    const shaped = shapeReply(full, budget, stops);
    content.push({ type: 'text', text: shaped.text });
    pieces.push(shaped.pieces);
    outputTokens += shaped.tokens;
    stopReason = shaped.reason === 'length' ? 'max_tokens' : shaped.reason === 'stop_sequence' ? 'stop_sequence' : 'end_turn';
    stopSequence = shaped.stopSequence;
  }
  // Directives force the counts; otherwise the cache_control markers decide (anthropic-cache.ts).
  const cached =
    d.cached === undefined && d.cacheWrite === undefined
      ? promptCacheUsage(body, blockTokens)
      : { read: d.cached ?? 0, write: d.cacheWrite ?? 0 };
  const cacheReadTokens = Math.min(cached.read, promptTokens);
  const cacheWriteTokens = Math.min(cached.write, promptTokens - cacheReadTokens);
  return {
    content,
    pieces,
    stopReason,
    stopSequence,
    stopDetails: null,
    inputTokens: promptTokens - cacheReadTokens - cacheWriteTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    webSearchRequests: d.webSearch ?? 0,
    serviceTier: body.service_tier === 'auto' ? 'priority' : 'standard',
    ...(typeof body.speed === 'string' ? { speed: body.speed } : {}),
    ...(typeof body.inference_geo === 'string' ? { inferenceGeo: body.inference_geo } : {}),
  };
}

/**
 * Claude's streaming classifiers (`safety-block=1` on the prompt, `=2` two pieces into the
 * answer): the answer ends with stop_reason `refusal` and its `stop_details`; what was written
 * before stays, and its output tokens are billed.
 */
export function refused(plan: MessagePlan, d: Directives): MessagePlan {
  if (d.safetyBlock !== 1 && d.safetyBlock !== 2) return plan;
  const keep = d.safetyBlock === 2 ? 2 : 0;
  const last = plan.content.length - 1;
  const block = plan.content[last];
  const pieces = keep > 0 && block?.type === 'text' ? plan.pieces[last]!.slice(0, keep) : [];
  const content: ContentBlock[] = pieces.length > 0 ? [{ type: 'text', text: pieces.join('') }] : [];
  return {
    ...plan,
    content,
    pieces: pieces.length > 0 ? [pieces] : [],
    outputTokens: pieces.length,
    stopReason: 'refusal',
    stopSequence: null,
    stopDetails: {
      type: 'refusal',
      category: 'general_harms',
      explanation: 'This request was declined by the safety classifiers because it could be related to harm (simulated).',
    },
  };
}
