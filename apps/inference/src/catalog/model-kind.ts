import { GatewayError } from '@gw/errors';
import type { RoutableModel } from './catalog.service.js';

/** What a catalog model is for: `outputModalities: ["embeddings"]` marks an embeddings model. */
export function servesEmbeddings(model: RoutableModel): boolean {
  return model.config.outputModalities?.includes('embeddings') ?? false;
}

/** 400 when a chat model is asked for embeddings; embeddings go to OpenAI-compatible endpoints only. */
export function assertEmbeddingsModel(modelId: string, model: RoutableModel): void {
  if (!servesEmbeddings(model)) {
    throw GatewayError.badRequest(
      `Model "${modelId}" is a chat model and does not create embeddings; use an embeddings model (GET /v1/models lists them with output_modalities ["embeddings"])`,
    );
  }
}

/** 400 when an embeddings model is asked for a chat completion (for the chat paths). */
export function assertChatModel(modelId: string, model: RoutableModel): void {
  if (servesEmbeddings(model)) {
    throw GatewayError.badRequest(`Model "${modelId}" is an embeddings model; send it to POST /v1/embeddings, not to chat completions`);
  }
}
