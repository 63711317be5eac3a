import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { Injectable } from '@nestjs/common';
import { markCommitted } from '@gw/messaging';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { withoutUnsupported } from '../../routing/parameter-support.js';
import { excludesReasoning } from '../anthropic/anthropic.adapter.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { BedrockCalls } from './bedrock-calls.js';
import { BedrockClients } from './bedrock-clients.js';
import { transportFailure, type UpstreamFailure } from '../../upstream/upstream-failure.js';
import { bedrockFailure } from './bedrock-errors.js';
import { buildConverseInput, converseWireBody } from './bedrock-request.js';
import { normalizeConverseOutput } from './bedrock-response.js';
import { bedrockStreamEvents } from './bedrock-stream.js';

/**
 * AWS Bedrock's Converse and ConverseStream APIs through the AWS SDK's parts (BedrockCalls): its
 * SigV4 signer, credential chain, HTTP handler and event-stream codec. The catalog's
 * `upstreamModel` is a Bedrock model id or an inference profile id (`us.anthropic.claude-…`), sent as it is.
 */
@Injectable()
export class BedrockAdapter implements ProviderAdapter {
  protected readonly calls: Pick<BedrockCalls, 'converse' | 'converseStream'> = new BedrockCalls();

  constructor(private readonly clients: BedrockClients) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const input = buildConverseInput(withoutUnsupported(body, endpoint), endpoint.upstreamModel, provider.guardrail);
    const client = this.clients.for(provider, context.apiKey);
    // From here Bedrock may do (and bill) the work: the gateway must not resend this request.
    markCommitted();
    let output;
    try {
      output = await this.calls.converse(client, input, context.signal);
    } catch (error) {
      throw context.signal?.aborted ? cancelled(provider.id) : bedrockFailure(provider.id, error);
    }
    return normalizeConverseOutput(output, {
      excludeReasoning: excludesReasoning(body),
      promptText: () => JSON.stringify(body.messages ?? ''),
    });
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const input = buildConverseInput(withoutUnsupported(body, endpoint), endpoint.upstreamModel, provider.guardrail);
    if (context.onUpstreamBody) context.onUpstreamBody(converseWireBody(input));
    const client = this.clients.for(provider, context.apiKey);
    // Ending the iteration early aborts the call, as for the other adapters.
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    context.signal?.addEventListener('abort', onAbort, { once: true });
    markCommitted();
    let events: AsyncIterable<ConverseStreamOutput>;
    try {
      events = await this.calls.converseStream(client, input, controller.signal);
    } catch (error) {
      context.signal?.removeEventListener('abort', onAbort);
      throw controller.signal.aborted ? cancelled(provider.id) : bedrockFailure(provider.id, error);
    }
    return relay(
      bedrockStreamEvents(provider.id, events, { excludeReasoning: excludesReasoning(body) }),
      () => (controller.signal.aborted ? cancelled(provider.id) : undefined),
      () => {
        context.signal?.removeEventListener('abort', onAbort);
        controller.abort();
      },
    );
  }
}

/** The SDK reports an aborted read in the socket's words: the caller's abort is what it was. */
function cancelled(provider: string): UpstreamFailure {
  return transportFailure(provider, 'aborted', 'call was cancelled');
}

async function* relay(
  events: AsyncIterable<StreamEvent>,
  abortFailure: () => UpstreamFailure | undefined,
  done: () => void,
): AsyncGenerator<StreamEvent> {
  try {
    yield* events;
  } catch (error) {
    throw abortFailure() ?? error;
  } finally {
    done();
  }
}
