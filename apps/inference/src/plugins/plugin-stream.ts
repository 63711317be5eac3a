import type { AnnotationView } from '@gw/contracts';
import type { StreamEvent } from '../providers/provider-adapter.js';
import { urlCitations, type CitableSource } from '../server-tools/citations.js';
import type { PluginPipeline, PluginSession, StreamTextTransform } from './plugin-pipeline.service.js';
import { CitationMarkerStripper } from './strip-citation-markers.plugin.js';

type ChunkEvent = Extract<StreamEvent, { type: 'chunk' }>;

/** One stream transform per choice index, made when the choice first shows up (none when no plugin rewrites streamed text). */
export function streamTransforms(
  pipeline: PluginPipeline,
  session: PluginSession | undefined,
): (index: number) => StreamTextTransform | undefined {
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

/**
 * The plugins on a server-tool stream, where the loop's last chunk is built by
 * the front door: streamed text goes through `strip-citation-markers` as it comes, and the last
 * chunk gets what was held back and the citations of the whole text the client received, over
 * the loop's sources (search results, fetched pages) and the plugins' (web, web-fetch). Without
 * either plugin the loop's own annotations stand.
 */
export class LoopStreamText {
  private readonly stripper?: CitationMarkerStripper;
  private sent = '';

  constructor(private readonly session: PluginSession | undefined) {
    if (session?.plan.stripCitationMarkers) this.stripper = new CitationMarkerStripper();
  }

  /** A text piece as the client gets it. */
  piece(text: string): string {
    const out = this.stripper ? this.stripper.push(text) : text;
    this.sent += out;
    return out;
  }

  /** The rest of the text, and the annotations for the last chunk (`loopAnnotations` when no plugin changes them). */
  finish(
    loopSources: readonly CitableSource[],
    loopAnnotations: AnnotationView[] | undefined,
  ): { text: string; annotations?: AnnotationView[] } {
    const text = this.stripper ? this.stripper.flush() : '';
    this.sent += text;
    const pluginSources = this.session?.sources ?? [];
    if (!this.stripper && pluginSources.length === 0) return { text, ...(loopAnnotations ? { annotations: loopAnnotations } : {}) };
    const annotations = urlCitations(this.sent, [...loopSources, ...pluginSources]);
    return { text, ...(annotations.length > 0 ? { annotations } : {}) };
  }
}

/** A loop step's forwarded chunk with its text through the plugins (strip-citation-markers). */
export function withLoopText(event: ChunkEvent, text: LoopStreamText): ChunkEvent {
  return {
    ...event,
    choices: event.choices.map((choice) =>
      typeof choice.delta.content === 'string'
        ? { ...choice, delta: { ...choice.delta, content: text.piece(choice.delta.content) } }
        : choice,
    ),
  };
}
