import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import type { RoutableModel } from './catalog.service.js';
import { assertChatModel, assertEmbeddingsModel } from './model-kind.js';

const model = (outputModalities?: string[]): RoutableModel => ({
  config: { id: 'x', name: 'x', contextLength: 1, supportedParameters: [], outputModalities, endpoints: [] },
  endpoints: [],
});

describe('model kinds', () => {
  it('refuses a chat model for embeddings and an embeddings model for chat with a 400 that says why', () => {
    expect(() => assertEmbeddingsModel('sim/gpt-4o-mini', model())).toThrowError(/is a chat model and does not create embeddings/);
    expect(() => assertEmbeddingsModel('sim/gpt-4o-mini', model(['text']))).toThrowError(GatewayError);
    expect(() => assertChatModel('sim/text-embedding-3-small', model(['embeddings']))).toThrowError(/send it to POST \/v1\/embeddings/);
    try {
      assertChatModel('e', model(['embeddings']));
    } catch (error) {
      expect((error as GatewayError).status).toBe(400);
    }
  });

  it('lets each kind through to its own endpoint', () => {
    expect(() => assertEmbeddingsModel('e', model(['embeddings']))).not.toThrow();
    expect(() => assertChatModel('c', model())).not.toThrow();
    expect(() => assertChatModel('c', model(['text', 'image']))).not.toThrow();
  });
});
