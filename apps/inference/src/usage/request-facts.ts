import type { ClientHeaders } from '@gw/contracts';

/** What a request tells about itself that each of its generations records (fields of `GET /v1/generation`). */
export interface RequestFacts {
  /** The preset the request named. */
  presetId?: string;
  /** The router that chose the model (`openrouter/auto`). */
  router?: string;
  /** Images, files and videos in the messages as the client sent them. */
  numMediaPrompt: number;
  numInputAudioPrompt: number;
  /** The moderation plugin's time on the input. */
  moderationLatencyMs?: number;
  /** Results the web plugin's search put in the prompt, and its engine (absent: no search ran). */
  numSearchResults?: number;
  webSearchEngine?: string;
  /** Pages the web-fetch plugin read (absent: the plugin did not run). */
  numFetches?: number;
  /** The client's identifying headers as the edge received them. */
  client?: ClientHeaders;
  /** The body's `user`, as the caller sent it (providers get it hashed). */
  externalUser?: string;
}

const MEDIA_PARTS = new Set(['image_url', 'file', 'video_url']);

/** The media and audio parts of chat messages (the internal form every front door translates to). */
export function promptMediaOf(messages: unknown): Pick<RequestFacts, 'numMediaPrompt' | 'numInputAudioPrompt'> {
  let media = 0;
  let audio = 0;
  for (const message of Array.isArray(messages) ? (messages as Array<{ content?: unknown }>) : []) {
    if (!Array.isArray(message?.content)) continue;
    for (const part of message.content as Array<{ type?: unknown } | null>) {
      if (typeof part?.type !== 'string') continue;
      if (MEDIA_PARTS.has(part.type)) media++;
      else if (part.type === 'input_audio') audio++;
    }
  }
  return { numMediaPrompt: media, numInputAudioPrompt: audio };
}

/** What the server tools a model call asked for found: search results and engine, pages fetched. */
export type ToolFacts = Pick<RequestFacts, 'numSearchResults' | 'webSearchEngine' | 'numFetches'>;

/** The request's facts with a step's server-tool finds added to what its plugins found. */
export function withToolFacts(facts: RequestFacts, found: ToolFacts): RequestFacts {
  if (found.numSearchResults === undefined && found.numFetches === undefined) return facts;
  const merged = { ...facts };
  if (found.numSearchResults !== undefined) {
    merged.numSearchResults = (facts.numSearchResults ?? 0) + found.numSearchResults;
    merged.webSearchEngine = found.webSearchEngine;
  }
  if (found.numFetches !== undefined) merged.numFetches = (facts.numFetches ?? 0) + found.numFetches;
  return merged;
}
