/*
 * Span attribute names. GenAI semantic conventions (gen_ai.*) where they fit; `gw.*` for what
 * they do not name (the gateway's attempt number, its charge). Never a key, a key hash or a
 * prompt: spans leave the process.
 */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  /** The provider (catalog id), as the current conventions name it... */
  providerName: 'gen_ai.provider.name',
  /** ...and as older tracing backends still read it. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  /** The gateway's public model id the client asked for (gen_ai.request.model is the upstream one). */
  model: 'gw.model',
  /** 1-based number of the provider call within the request's routing. */
  attempt: 'gw.attempt',
  byok: 'gw.byok',
  /** Credits charged to the workspace, as a decimal string. */
  cost: 'gw.cost',
  /** What the provider charges at catalog prices, as a decimal string. */
  upstreamCost: 'gw.upstream_cost',
  generationId: 'gw.generation_id',
  requestId: 'gw.request_id',
  errorType: 'error.type',
  messagingSystem: 'messaging.system',
  messagingDestination: 'messaging.destination.name',
  messagingOperation: 'messaging.operation.type',
} as const;
