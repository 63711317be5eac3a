import type { Directives } from './faults.ts';
import { isRecord, type Json } from './json.ts';
import { contextCitingReply, guardReply, judgeReply, sloppyJson } from './plugin-models.ts';
import { citingReply, SERVER_TOOL_NAMES, serverToolCall } from './search-agent.ts';
import { steeredTool, steeredToolInput, workingDirectoryOf, type SteeredTool } from './steered-tool.ts';
import { customToolNamed, grammarInput } from './custom-tools.ts';
import { steeredToolCall, type SteeredCall } from './tool-steering.ts';
import { buildReasoning, buildReply, buildToolResultReply, shapeReply, stableId, toolInput, valueFromSchema } from './reply.ts';
import { countTokens, splitPieces, TOKENS_PER_IMAGE, TOKENS_PER_MESSAGE, TOKENS_PER_REQUEST } from './tokens.ts';

/** The text of an OpenAI message content (string or parts) and its image count. */
function contentText(content: unknown): { text: string; images: number } {
  if (typeof content === 'string') return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: '', images: 0 };
  const texts: string[] = [];
  let images = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (typeof part.text === 'string') texts.push(part.text);
    else if (typeof part.refusal === 'string') texts.push(part.refusal);
    else if (part.type === 'image_url') images++;
  }
  return { text: texts.join(' '), images };
}

export function messageText(message: Json): string {
  return contentText(message.content).text;
}

/** prompt tokens = tokens of every message text (+ tool calls) + 3 per message + 3 + tokens of the tools JSON. */
export function countPromptTokens(messages: readonly Json[], tools: unknown): number {
  let total = TOKENS_PER_REQUEST;
  for (const m of messages) {
    const { text, images } = contentText(m.content);
    total += TOKENS_PER_MESSAGE + countTokens(text) + images * TOKENS_PER_IMAGE;
    if (Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls) {
        const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
        if (fn) total += countTokens(`${String(fn.name ?? '')} ${String(fn.arguments ?? '')}`);
      }
    }
  }
  if (Array.isArray(tools) && tools.length > 0) total += countTokens(JSON.stringify(tools));
  return total;
}

export interface ToolCallPlan {
  id: string;
  name: string;
  /** A custom tool's raw input, else the function's JSON arguments. */
  arguments: string;
  /** A call of a custom tool (OpenAI's `type: "custom"`). */
  custom?: boolean;
}

export interface ChoicePlan {
  index: number;
  content: string | null;
  pieces: string[];
  toolCall?: ToolCallPlan;
  /** Further calls made in the same turn (`parallel-tools=1`: every offered function, as OpenAI's parallel tool calls). */
  moreToolCalls?: ToolCallPlan[];
  reasoning?: string;
  finishReason: 'stop' | 'length' | 'tool_calls';
  tokens: number;
}

export interface ChatPlan {
  choices: ChoicePlan[];
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  audioInTokens: number;
  audioOutTokens: number;
}

/** The tools the model may call now (none with tool_choice "none"; only the named one when one is forced). */
function callableTools(tools: unknown, toolChoice: unknown): string[] {
  if (!Array.isArray(tools) || toolChoice === 'none') return [];
  const names = tools
    .filter((t): t is Json => isRecord(t) && (isRecord(t.function) || isRecord(t.custom)))
    .map((t) => String(((t.function ?? t.custom) as Json).name));
  const named = isRecord(toolChoice) ? (toolChoice.function ?? toolChoice.custom) : undefined;
  const forced = isRecord(named) ? named.name : undefined;
  if (forced !== undefined) return names.filter((name) => name === forced);
  return names;
}

function pickTool(tools: unknown, toolChoice: unknown, userText: string): { tool: Json; steered?: SteeredTool } | undefined {
  if (!Array.isArray(tools) || tools.length === 0 || toolChoice === 'none') return undefined;
  // A gateway's server tools are called only when the user asks for them (search-agent.ts).
  const fns = tools.filter(
    (t): t is Json => isRecord(t) && isRecord(t.function) && !SERVER_TOOL_NAMES.has(String((t.function as Json).name)),
  );
  if (isRecord(toolChoice) && isRecord(toolChoice.function)) {
    const wanted = toolChoice.function.name;
    const named = fns.find((t) => (t.function as Json).name === wanted);
    if (named) return { tool: named.function as Json };
  }
  const steered = steeredTool(
    userText,
    fns.map((t) => String((t.function as Json).name)),
  );
  const chosen = fns.find((t) => (t.function as Json).name === steered?.name);
  if (chosen) return { tool: chosen.function as Json, steered };
  return fns[0] ? { tool: fns[0].function as Json } : undefined;
}

function jsonContent(format: unknown, text: string): string | undefined {
  if (!isRecord(format)) return undefined;
  if (format.type === 'json_object') return JSON.stringify({ reply: text });
  if (format.type === 'json_schema') {
    const schema = isRecord(format.json_schema) ? format.json_schema.schema : undefined;
    const value = valueFromSchema(schema ?? { type: 'object', properties: { reply: { type: 'string' } } }, text);
    return JSON.stringify(isRecord(value) ? value : { value });
  }
  return undefined;
}

function stopList(stop: unknown): string[] {
  if (typeof stop === 'string') return [stop];
  return Array.isArray(stop) ? stop.filter((s): s is string => typeof s === 'string') : [];
}

/**
 * A steered call of a custom tool takes the `input` of the steering JSON as its raw input, when
 * the tool's grammar allows it; null when it does not (a constrained model cannot write it).
 */
function customOrSteered(tools: unknown, steered: SteeredCall | undefined): (SteeredCall & { custom?: boolean }) | null | undefined {
  if (!steered) return steered;
  const custom = customToolNamed(tools, steered.name);
  if (!custom) return steered;
  const input = grammarInput(custom, steered.arguments);
  return input === undefined ? null : { name: steered.name, arguments: input, custom: true };
}

/** Decides every choice of a chat completion from the (validated) request body. */
export function planChat(body: Json, d: Directives, promptTokens: number, model = ''): ChatPlan {
  const messages = body.messages as Json[];
  // A system message after the last turn is an instruction, not a turn: the model answers the turn.
  // So is a user message right after tool results: it carries what they attached (chat's tool
  // messages take text only), and the turn is still the results'.
  const turns = messages.filter(
    (m, i) => m.role !== 'system' && m.role !== 'developer' && !(m.role === 'user' && messages[i - 1]?.role === 'tool'),
  );
  const last = turns.at(-1) ?? messages[messages.length - 1]!;
  const lastUser = [...turns].reverse().find((m) => m.role === 'user');
  const userText = lastUser ? messageText(lastUser) : '';
  const n = typeof body.n === 'number' ? body.n : 1;
  const maxRaw = body.max_completion_tokens ?? body.max_tokens;
  const maxTokens = typeof maxRaw === 'number' ? maxRaw : undefined;
  const stops = stopList(body.stop);
  let toolResults: string[] | undefined;
  if (last.role === 'tool') {
    toolResults = [];
    for (let i = messages.lastIndexOf(last); i >= 0 && messages[i]!.role === 'tool'; i--) toolResults.unshift(messageText(messages[i]!));
  }
  const lastUserAt = lastUser ? messages.lastIndexOf(lastUser) : -1;
  const resultsSinceUser = messages
    .slice(lastUserAt + 1)
    .filter((m) => m.role === 'tool')
    .map(messageText);
  const callable = callableTools(body.tools, body.tool_choice);
  const decision = serverToolCall(callable, userText, resultsSinceUser);
  const steered = !decision && last.role === 'user' ? customOrSteered(body.tools, steeredToolCall(callable, userText)) : undefined;
  const picked = !decision && steered === undefined && last.role === 'user' ? pickTool(body.tools, body.tool_choice, userText) : undefined;
  const tool = picked?.tool;
  const instructions = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map(messageText)
    .join('\n');

  const choices: ChoicePlan[] = [];
  for (let index = 0; index < n; index++) {
    const reasoning = d.reasoning !== undefined ? buildReasoning(userText) : undefined;
    if (decision) {
      const args = JSON.stringify(decision.input);
      const id = `call_${stableId(`${decision.name}:${userText}:${decision.turn}:${index}`)}`;
      const pieces = splitPieces(args);
      choices.push({
        index,
        content: null,
        pieces,
        toolCall: { id, name: decision.name, arguments: args },
        reasoning,
        finishReason: 'tool_calls',
        tokens: pieces.length,
      });
      continue;
    }
    if (tool || steered) {
      const name = steered ? steered.name : String(tool!.name ?? 'tool');
      const args = steered
        ? steered.arguments
        : JSON.stringify(
            picked?.steered
              ? steeredToolInput(tool!.parameters, userText, picked.steered, workingDirectoryOf(instructions))
              : toolInput(tool!.parameters, userText),
          );
      const id = `call_${stableId(`${name}:${userText}:${index}`)}`;
      const pieces = splitPieces(args);
      const others =
        d.parallelTools && tool && !picked?.steered && Array.isArray(body.tools)
          ? (body.tools as Json[])
              .map((entry) => (isRecord(entry.function) ? entry.function : undefined))
              .filter((fn): fn is Json => fn !== undefined && fn.name !== name)
          : [];
      const moreToolCalls = others.map((fn) => ({
        id: `call_${stableId(`${String(fn.name)}:${userText}:${index}`)}`,
        name: String(fn.name),
        arguments: JSON.stringify(toolInput(fn.parameters, userText)),
      }));
      choices.push({
        index,
        content: null,
        pieces,
        toolCall: { id, name, arguments: args, ...(steered?.custom ? { custom: true } : {}) },
        ...(moreToolCalls.length > 0 ? { moreToolCalls } : {}),
        reasoning,
        finishReason: 'tool_calls',
        tokens: pieces.length + moreToolCalls.reduce((sum, call) => sum + splitPieces(call.arguments).length, 0),
      });
      continue;
    }
    const special = guardReply(model, messages) ?? judgeReply(model, messages);
    let full =
      special ??
      (toolResults
        ? (citingReply(resultsSinceUser) ?? buildToolResultReply(toolResults))
        : (contextCitingReply(messages) ?? buildReply(userText, index, d.replyTokens)));
    if (special === undefined) {
      const json = jsonContent(body.response_format, full);
      full = json === undefined ? full : d.sloppyJson ? sloppyJson(json) : json;
    }
    const shaped = shapeReply(full, maxTokens, stops);
    choices.push({
      index,
      content: shaped.text,
      pieces: shaped.pieces,
      reasoning,
      finishReason: shaped.reason === 'length' ? 'length' : 'stop',
      tokens: shaped.tokens,
    });
  }
  const reasoningTokens = d.reasoning ?? 0;
  // Audio tokens are reported on top of the text (prompt: as if an audio part was sent).
  const audioInTokens = d.audioIn ?? 0;
  const audioOutTokens = d.audioOut ?? 0;
  const completionTokens = choices.reduce((s, c) => s + c.tokens, 0) + reasoningTokens + audioOutTokens;
  const allPrompt = promptTokens + audioInTokens;
  const cachedTokens = Math.min(d.cached ?? 0, allPrompt);
  const cacheWriteTokens = Math.min(d.cacheWrite ?? 0, allPrompt - cachedTokens);
  return {
    choices,
    promptTokens: allPrompt,
    completionTokens,
    reasoningTokens,
    cachedTokens,
    cacheWriteTokens,
    audioInTokens,
    audioOutTokens,
  };
}

export function usageOf(plan: ChatPlan): Json {
  return {
    prompt_tokens: plan.promptTokens,
    completion_tokens: plan.completionTokens,
    total_tokens: plan.promptTokens + plan.completionTokens,
    prompt_tokens_details: {
      cached_tokens: plan.cachedTokens,
      audio_tokens: plan.audioInTokens,
      // OpenAI reports no cache writes; OpenAI-compatible hosts that do (OpenRouter) use this name.
      ...(plan.cacheWriteTokens > 0 ? { cache_write_tokens: plan.cacheWriteTokens } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: plan.reasoningTokens,
      audio_tokens: plan.audioOutTokens,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
