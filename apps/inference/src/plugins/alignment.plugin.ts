import { GatewayError } from '@gw/errors';
import { jsonrepair } from 'jsonrepair';
import { PluginOptions } from './plugin-options.js';
import type { PluginModelCall } from './plugin-model-call.js';

type Json = Record<string, unknown>;

export interface AlignmentConfig {
  rules: string[];
  mode: 'enforce' | 'audit';
  /** Also tell the model the rules (a system message) before it answers. */
  instruct: boolean;
  maxRetries: number;
  /** A rule counts as broken when the judge says so with at least this probability. */
  threshold: number;
}

/** Spec §2.6 `alignment`: one entry per judged answer. */
export interface AlignmentRecord {
  calls: Array<{ call: number; outcome: 'allowed' | 'blocked' | 'flagged'; rules: Array<{ broken: boolean; probability: number }> }>;
}

/**
 * `alignment` (beta, spec §2.6): `rules` (1-20 strings), `mode` `enforce` (default) or `audit`,
 * `instruct` (default false), `maxRetries` (0-3, default 1; `max_retries` too), `threshold`
 * (0-1, default 0.5). A judge model (ALIGNMENT_JUDGE_MODEL) checks each answer against every
 * rule. Not on streams (an answer already sent cannot be retried): 400.
 */
export function parseAlignment(raw: Json, where: string, stream: boolean): AlignmentConfig {
  const options = new PluginOptions(raw, where, 'alignment', ['rules', 'mode', 'instruct', 'maxRetries', 'max_retries', 'threshold']);
  if (stream)
    throw GatewayError.badRequest(`${where}: alignment judges and retries whole answers and does not run on streams; set stream to false`, {
      reason: 'unsupported_plugin',
      plugin: 'alignment',
    });
  const rules = options.strings('rules', { minItems: 1, maxItems: 20 });
  if (!rules)
    throw GatewayError.badRequest(`${where}.rules is required: the rules each answer is checked against`, {
      reason: 'invalid_plugin_option',
      plugin: 'alignment',
      param: `${where}.rules`,
    });
  return {
    rules,
    mode: (options.string('mode', { oneOf: ['enforce', 'audit'] }) as AlignmentConfig['mode'] | undefined) ?? 'enforce',
    instruct: options.boolean('instruct') ?? false,
    maxRetries: options.integer('maxRetries', 0, 3) ?? options.integer('max_retries', 0, 3) ?? 1,
    threshold: options.number('threshold', 0, 1) ?? 0.5,
  };
}

/** The system message `instruct` adds. */
export function rulesInstruction(rules: readonly string[]): string {
  return `Follow these rules in your answer:\n${rules.map((rule, index) => `${index + 1}. ${rule}`).join('\n')}`;
}

const JUDGE_SYSTEM =
  'You are an alignment judge. You are given numbered rules and an answer. For every rule, in order, decide whether the answer breaks it and how sure you are. ' +
  'Reply with JSON only: {"rules":[{"broken":true|false,"probability":0..1}, ...]} with one entry per rule.';

/** One judgement of one answer: for each rule, broken (at or above the threshold) and the judge's probability. */
export async function judge(
  call: PluginModelCall,
  model: string,
  config: AlignmentConfig,
  answer: string,
): Promise<Array<{ broken: boolean; probability: number }>> {
  const prompt = `Rules:\n${config.rules.map((rule, index) => `${index + 1}. ${rule}`).join('\n')}\n\nAnswer:\n${answer}`;
  const text = await call(
    model,
    [
      { role: 'system', content: JUDGE_SYSTEM },
      { role: 'user', content: prompt },
    ],
    { responseFormat: { type: 'json_object' }, maxTokens: 400 },
  );
  let verdicts: unknown;
  try {
    verdicts = (JSON.parse(jsonrepair(text)) as { rules?: unknown }).rules;
  } catch {
    verdicts = undefined;
  }
  if (!Array.isArray(verdicts) || verdicts.length !== config.rules.length) {
    throw new GatewayError(502, `the alignment judge ${model} did not answer one verdict per rule`, { metadata: { plugin: 'alignment' } });
  }
  return verdicts.map((verdict: { broken?: unknown; probability?: unknown }) => {
    const probability =
      typeof verdict.probability === 'number' ? Math.min(1, Math.max(0, verdict.probability)) : verdict.broken === true ? 1 : 0;
    return { broken: verdict.broken === true && probability >= config.threshold, probability };
  });
}

/** The enforce-mode failure: 403 content_policy_violation with the record in error.metadata. */
export function alignmentFailure(record: AlignmentRecord): GatewayError {
  return new GatewayError(403, `The answer broke an alignment rule on each of ${record.calls.length} attempts`, {
    errorType: 'content_policy_violation',
    metadata: { reason: 'alignment_failed', alignment: record },
  });
}
