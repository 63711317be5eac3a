import { isRecord, type Json } from './json.ts';

/**
 * What the gateway's plugins need from a model, deterministic:
 * a Llama Guard-style moderation model, an alignment judge, a model that cites the web
 * results a system message hands it, and JSON answers that need repairing.
 */

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is Json => isRecord(part) && typeof part.text === 'string')
    .map((part) => String(part.text))
    .join('\n');
}

/** Words the moderation model flags, with Llama Guard 3's category codes. */
const FLAGGED: Array<[RegExp, string]> = [
  [/\b(kill|murder)\b/i, 'S1'],
  [/\b(bomb|explosives?|nerve agent)\b/i, 'S9'],
  [/\bhate speech\b/i, 'S10'],
];

/**
 * A model named `*llama-guard*` classifies the last turn of the conversation as Llama Guard
 * does: `safe`, or `unsafe` and a line of category codes.
 */
export function guardReply(model: string, messages: readonly Json[]): string | undefined {
  if (!model.includes('llama-guard')) return undefined;
  const last = [...messages].reverse().find((message) => message.role === 'user' || message.role === 'assistant');
  const text = last ? textOf(last.content) : '';
  const codes = FLAGGED.filter(([pattern]) => pattern.test(text)).map(([, code]) => code);
  return codes.length === 0 ? 'safe' : `unsafe\n${codes.join(',')}`;
}

/**
 * A model named `*alignment-judge*` reads `Rules:` (numbered lines) and `Answer:` from the last
 * user message and answers `{"rules":[{"broken","probability"}]}`: a rule is broken when it
 * quotes a phrase ("...") that the answer contains (case-insensitive), probability 0.9, else 0.05.
 */
export function judgeReply(model: string, messages: readonly Json[]): string | undefined {
  if (!model.includes('alignment-judge')) return undefined;
  const last = [...messages].reverse().find((message) => message.role === 'user');
  const text = last ? textOf(last.content) : '';
  const at = text.indexOf('\nAnswer:\n');
  const rulesPart = text.slice(0, at < 0 ? text.length : at);
  const answer = at < 0 ? '' : text.slice(at + '\nAnswer:\n'.length).toLowerCase();
  const rules = rulesPart.split('\n').filter((line) => /^\d+\.\s/.test(line));
  return JSON.stringify({
    rules: rules.map((rule) => {
      const quoted = [...rule.matchAll(/"([^"]+)"/g)].map((match) => match[1]!.toLowerCase());
      const broken = quoted.some((phrase) => answer.includes(phrase));
      return { broken, probability: broken ? 0.9 : 0.05 };
    }),
  });
}

/**
 * When a system message asks to cite Markdown links (the gateway's web and web-fetch plugins
 * put their results in one), the answer cites the first two links it lists, each followed by a
 * `[n]` marker as models often write: `According to [title](url) [1]: snippet.`
 */
export function contextCitingReply(messages: readonly Json[]): string | undefined {
  const context = messages
    .filter((message) => message.role === 'system')
    .map((message) => textOf(message.content))
    .find((text) => /cite them using markdown links/i.test(text));
  if (!context) return undefined;
  const links = [...context.matchAll(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)\n([^\n]*)/g)].filter(
    (match) => !/nytimes\.com\/some-page/.test(match[2]!),
  );
  if (links.length === 0) return 'The search found nothing to cite.';
  return links
    .slice(0, 2)
    .map((match, index) => `According to [${match[1]}](${match[2]}) [${index + 1}]: ${match[3]!.trim().slice(0, 160)}`)
    .join(' ');
}

/** `sloppy-json=1`: a JSON answer as models sometimes write it, in a Markdown fence with a trailing comma. */
export function sloppyJson(json: string): string {
  return '```json\n' + json.replace(/}\s*$/, ',}') + '\n```';
}
