import { GatewayError } from '@gw/errors';
import { textOf } from './conversation-text.js';
import { PluginOptions } from './plugin-options.js';
import type { PluginModelCall } from './plugin-model-call.js';

type Json = Record<string, unknown>;

/** `moderation` (SDK ModerationPlugin: no options). */
export function parseModeration(raw: Json, where: string): true {
  new PluginOptions(raw, where, 'moderation', []);
  return true;
}

/** Llama Guard 3's hazard categories, as its answers name them (`unsafe\nS1,S10`). */
const CATEGORIES: Record<string, string> = {
  S1: 'violent crimes',
  S2: 'non-violent crimes',
  S3: 'sex-related crimes',
  S4: 'child sexual exploitation',
  S5: 'defamation',
  S6: 'specialized advice',
  S7: 'privacy',
  S8: 'intellectual property',
  S9: 'indiscriminate weapons',
  S10: 'hate',
  S11: 'suicide and self-harm',
  S12: 'sexual content',
  S13: 'elections',
  S14: 'code interpreter abuse',
};

export interface ModerationVerdict {
  flagged: boolean;
  categories: string[];
}

/** A Llama Guard answer: `safe`, or `unsafe` then a line of category codes. Anything else is the moderation model failing (502). */
export function readVerdict(answer: string, model: string): ModerationVerdict {
  const [first = '', second = ''] = answer.trim().split(/\r?\n/);
  const word = first.trim().toLowerCase();
  if (word === 'safe') return { flagged: false, categories: [] };
  if (word === 'unsafe') {
    const codes = second
      .split(',')
      .map((code) => code.trim().toUpperCase())
      .filter(Boolean);
    return { flagged: true, categories: codes.map((code) => CATEGORIES[code] ?? code) };
  }
  throw new GatewayError(502, `the moderation model ${model} answered neither "safe" nor "unsafe"`, { metadata: { plugin: 'moderation' } });
}

/**
 * Moderation with a Llama Guard-style model from the catalog (MODERATION_MODEL): the
 * conversation's user and assistant turns (text only) go to it, and `unsafe` is a 403
 * `content_policy_violation` naming the categories. `subject` says what was checked: the
 * input before the model call, or the answer (MODERATION_CHECK_OUTPUT) after it.
 */
export async function moderate(
  call: PluginModelCall,
  model: string,
  messages: readonly Json[],
  subject: 'input' | 'output',
): Promise<void> {
  const turns = messages
    .filter((message) => message.role === 'user' || message.role === 'assistant')
    .map((message) => ({ role: message.role, content: textOf(message.content) }))
    .filter((message) => message.content.length > 0);
  if (turns.length === 0 || turns.at(-1)!.role !== (subject === 'input' ? 'user' : 'assistant')) return;
  const verdict = readVerdict(await call(model, turns, { maxTokens: 20 }), model);
  if (!verdict.flagged) return;
  const flagged = turns.at(-1)!.content;
  throw new GatewayError(
    403,
    `${subject === 'input' ? 'Your input' : "The model's answer"} was flagged by moderation${verdict.categories.length ? `: ${verdict.categories.join(', ')}` : ''}`,
    {
      errorType: 'content_policy_violation',
      metadata: {
        reasons: verdict.categories,
        flagged_input: flagged.length > 100 ? `${flagged.slice(0, 100)}...` : flagged,
        model_slug: model,
        subject,
      },
    },
  );
}
