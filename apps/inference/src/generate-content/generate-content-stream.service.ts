import { Injectable } from '@nestjs/common';
import type { ChatStreamRequest } from '@gw/contracts';
import { ContentLog } from '../content/content-log.service.js';
import { streamedContent } from '../content/generation-content.js';
import { ChatPreparation } from '../shared-pipeline/chat-preparation.service.js';
import { newGenerationId } from '../shared-pipeline/generation-ids.js';
import { ModelCalls } from '../shared-pipeline/model-calls.service.js';
import { openFirstEvent } from '../shared-pipeline/open-stream.js';
import type { ServedStream } from '@gw/messaging';
import { ALREADY_FRAMED, ServedStreams } from '../shared-pipeline/served-stream.js';
import { StreamTally } from '../shared-pipeline/stream-tally.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import { chatBodyFromGemini } from '../providers/gemini/chat-body-from-gemini.js';
import { ChunksToGeminiFrames } from '../providers/gemini/gemini-from-completion.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { metadataField } from '../routing/metadata-field.js';

/**
 * `:streamGenerateContent?alt=sse`: the chat pipeline's stream on any endpoint, as Gemini's SSE
 * frames (`data: <GenerateContentResponse>`), one frame a packet. The last frame carries the
 * finish reason, the gathered function calls and the usage, sent once the generation is settled.
 */
@Injectable()
export class GenerateContentStreamService {
  constructor(
    private readonly adapters: AdapterRegistry,
    private readonly calls: ModelCalls,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly streams: ServedStreams,
    private readonly contentLog: ContentLog,
  ) {}

  stream(request: ChatStreamRequest): ServedStream {
    return this.streams.serve(request, ALREADY_FRAMED, (signal, emit) => this.run(request, signal, emit));
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emitFrame: (frame: string) => void): Promise<void> {
    const prepared = await this.preparation.prepare({ ...request, body: chatBodyFromGemini(request.body) }, signal);
    const {
      result: opened,
      attempt,
      tracker,
    } = await this.calls.run(prepared, (current, context) =>
      openFirstEvent(
        current.endpoint.provider.id,
        () => this.adapters.for(current.endpoint.provider.format).stream(current.endpoint, prepared.body, context),
        (first) => first.type === 'chunk',
      ),
    );
    const id = newGenerationId();
    const frames = new ChunksToGeminiFrames({ model: attempt.modelId, responseId: id });
    const emit = (frame: Record<string, unknown>) => emitFrame(`data: ${JSON.stringify(frame)}\n\n`);
    const tally = new StreamTally();
    const kept = (tally.kept = await this.contentLog.keeper(request.principal));
    const settle = (status: 'succeeded' | 'failed') =>
      this.accounting.settle({
        generationId: id,
        principal: request.principal,
        attempt,
        tracker,
        usage: tally.usage(prepared.body),
        status,
        sessionId: prepared.sessionId,
        request: prepared.facts,
        streamed: true,
        finish: tally.finish(status === 'failed' && signal.aborted),
        content: kept && streamedContent(prepared.body.messages, kept),
      });
    try {
      for (let next = opened.first; !next.done; next = await opened.events.next()) {
        tally.add(next.value);
        for (const frame of frames.add(next.value)) emit(frame);
      }
    } catch (error) {
      await settle('failed').catch(() => undefined);
      throw error;
    }
    await settle('succeeded');
    const last = frames.finish(tally.usage(prepared.body));
    if (request.serviceMetadata) last[metadataField(request)] = this.accounting.metadata(prepared.plan, tracker);
    emit(last);
  }
}
