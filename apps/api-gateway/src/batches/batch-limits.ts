/** Batch upload limits, from the gateway's environment; each refusal is a 413. */
export interface BatchLimits {
  maxLines: number;
  maxBytes: number;
  maxLineBytes: number;
}
