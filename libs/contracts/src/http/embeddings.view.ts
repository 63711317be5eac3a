/** One vector of the spec §2.1 embeddings body: an array of numbers, or base64 float32 bytes. */
export interface EmbeddingView {
  object: 'embedding';
  embedding: number[] | string;
  index: number;
}

export interface EmbeddingsUsageView {
  prompt_tokens: number;
  total_tokens: number;
  /** Credits charged, a decimal rendered as a JSON number. */
  cost: number;
  is_byok: boolean;
  /** Same spellings as the chat usage; the completion side is always 0. */
  cost_details: {
    upstream_inference_cost: number | null;
    upstream_inference_prompt_cost: number;
    upstream_inference_completions_cost: number;
    upstream_inference_input_cost: number;
    upstream_inference_output_cost: number;
  };
}

/** The embeddings result of spec §2.1, as the gateway returns it. */
export interface EmbeddingsView {
  object: 'list';
  id: string;
  model: string;
  provider: string;
  data: EmbeddingView[];
  usage: EmbeddingsUsageView;
}
