import {
  ChatCompletionRequestDto,
  EmbeddingsRequestDto,
  MessagesRequestDto,
  ResponsesRequestDto,
  validateDto,
  type BatchEndpoint,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/** Each line's body is validated with the DTO of the live endpoint it names (issue 13). */
const DTO_OF: Record<BatchEndpoint, new () => object> = {
  '/v1/chat/completions': ChatCompletionRequestDto,
  '/v1/responses': ResponsesRequestDto,
  '/v1/messages': MessagesRequestDto,
  '/v1/embeddings': EmbeddingsRequestDto,
};

/**
 * A line's body, already walked by `checkJsonBody` (depth, NUL, lone surrogates: lines are
 * stored in PostgreSQL's jsonb): an object, `model` absent or the batch's, not streamed, and
 * valid for its endpoint. Every refusal is a 400 naming the line's index and the field
 * (`requests[3].body.messages: ...`).
 */
export async function validateLineBody(
  endpoint: BatchEndpoint,
  model: string,
  index: number,
  body: unknown,
  at = `requests[${index}].body`,
): Promise<Record<string, unknown>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw GatewayError.badRequest(`${at}: must be a JSON object`, { param: at, index });
  const record = body as Record<string, unknown>;
  if (record.model !== undefined && record.model !== model) {
    throw GatewayError.badRequest(
      `${at}.model: must be absent or equal to the batch model "${model}" (got ${JSON.stringify(record.model)})`,
      { param: `${at}.model`, index },
    );
  }
  if (record.stream !== undefined && record.stream !== false) {
    throw GatewayError.badRequest(`${at}.stream: batch requests are not streamed`, { param: `${at}.stream`, index });
  }
  try {
    await validateDto(DTO_OF[endpoint], { ...record, model }, 'keep');
  } catch (error) {
    if (error instanceof GatewayError) throw prefixed(error, at, index);
    throw error;
  }
  return record;
}

function prefixed(error: GatewayError, at: string, index: number): GatewayError {
  const param = typeof error.metadata?.param === 'string' ? `${at}.${error.metadata.param}` : firstField(error.message, at);
  const message = error.message
    .split('; ')
    .map((part) => (part.startsWith(at) ? part : `${at}.${part}`))
    .join('; ');
  return new GatewayError(error.status, message, { errorType: error.errorType, metadata: { ...error.metadata, param, index } });
}

/** `messages.0.content: ...` -> `requests[i].body.messages.0.content`. */
function firstField(message: string, at: string): string {
  const field = /^([^:\s]+):/.exec(message)?.[1];
  return field ? `${at}.${field}` : at;
}
