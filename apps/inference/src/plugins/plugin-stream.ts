import type { StreamEvent } from '../providers/provider-adapter.js';
import type { PluginPipeline, PluginSession, StreamTextTransform } from './plugin-pipeline.service.js';

type ChunkEvent = Extract<StreamEvent, { type: 'chunk' }>;

/** One stream transform per choice index, made when the choice first shows up (none when no plugin rewrites streamed text). */
export function streamTransforms(pipeline: PluginPipeline, session: PluginSession | undefined): (index: number) => StreamTextTransform | undefined {
  const transforms = new Map<number, StreamTextTransform | undefined>();
  return (index) => {
    if (!transforms.has(index)) transforms.set(index, pipeline.streamTransform(session));
    return transforms.get(index);
  };
}

/**
 * A chunk's text through the plugins' stream transform (strip-citation-markers holds a possible
 * marker back until the next piece decides it); the chunk with the finish reason gets what was
 * held back and the answer's citations (web, web-fetch) as `delta.annotations`.
 */
export function rewriteChunk(event: ChunkEvent, transformOf: (index: number) => StreamTextTransform | undefined): ChunkEvent {
  if (!event.choices.some((choice) => transformOf(choice.index))) return event;
  return {
    ...event,
    choices: event.choices.map((choice) => {
      const transform = transformOf(choice.index);
      if (!transform) return choice;
      const delta = { ...choice.delta };
      if (typeof delta.content === 'string') delta.content = transform.text(delta.content);
      if (choice.finish_reason !== null) {
        const end = transform.end();
        if (end.text) delta.content = `${typeof delta.content === 'string' ? delta.content : ''}${end.text}`;
        if (end.annotations) delta.annotations = end.annotations;
      }
      return { ...choice, delta };
    }),
  };
}

