/** Google's Gemini API shapes, as the `/v1beta` front door answers them (@google/genai reads them). */

/** One part of a Gemini content: text (a thought when `thought` is true) or a function call. */
export interface GeminiPartView {
  text?: string;
  thought?: boolean;
  functionCall?: { id?: string; name: string; args: unknown };
  thoughtSignature?: string;
}

export interface GeminiCandidateView {
  content: { role: 'model'; parts: GeminiPartView[] };
  index: number;
  /** STOP, MAX_TOKENS, SAFETY or OTHER; absent until the candidate is finished. */
  finishReason?: string;
}

export interface GeminiUsageView {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

/** `:generateContent`'s answer (also each SSE frame of `:streamGenerateContent`, the last with the usage). */
export interface GenerateContentView {
  candidates: GeminiCandidateView[];
  usageMetadata?: GeminiUsageView;
  /** The gateway's model id. */
  modelVersion: string;
  /** The generation id. */
  responseId: string;
}

export interface EmbedContentView {
  embedding: { values: number[] };
}

export interface BatchEmbedContentsView {
  embeddings: Array<{ values: number[] }>;
}

export interface GeminiModelView {
  /** `models/{id}` */
  name: string;
  baseModelId: string;
  version: string;
  displayName: string;
  inputTokenLimit: number;
  outputTokenLimit: number;
  supportedGenerationMethods: string[];
}

export interface GeminiModelListView {
  models: GeminiModelView[];
}

/** `:countTokens`: the provider's count on Gemini and Vertex endpoints, the gateway's estimate on others. */
export interface CountTokensView {
  totalTokens: number;
}
