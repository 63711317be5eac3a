import type { GenerationContentDraft } from './generation-content.js';

/**
 * A streamed answer's text and reasoning as they arrive, kept only for a workspace that logs
 * content, each up to `limit` characters (the content's size cap cuts the rest when it is stored).
 */
export class KeptText {
  private text = '';
  private reasoning = '';

  constructor(private readonly limit: number) {}

  add(text: unknown, reasoning?: unknown): void {
    if (typeof text === 'string' && this.text.length < this.limit) this.text += text;
    if (typeof reasoning === 'string' && this.reasoning.length < this.limit) this.reasoning += reasoning;
  }

  output(): GenerationContentDraft['output'] {
    return { completion: this.text, reasoning: this.reasoning || null };
  }
}
