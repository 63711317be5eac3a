import type { UsageDetails } from '@gw/contracts';
import type { NormalizedUsage } from './normalized-usage.js';

/**
 * The detail counts of a generation beyond its columns (cache writes, audio, file, video and
 * image tokens, server tools), as the usage event and the generation record carry them:
 * only what the provider reported, in the spec's field names, and how an estimate was made.
 */
export function usageDetailsOf(usage: NormalizedUsage): UsageDetails | undefined {
  const details: UsageDetails = {};
  const put = (field: keyof UsageDetails, value: number | null | undefined) => {
    if (typeof value === 'number') details[field] = value;
  };
  put('cache_write_tokens', usage.cacheWriteTokens);
  put('prompt_audio_tokens', usage.promptAudioTokens);
  put('prompt_file_tokens', usage.promptFileTokens);
  put('prompt_video_tokens', usage.promptVideoTokens);
  put('completion_audio_tokens', usage.completionAudioTokens);
  put('completion_image_tokens', usage.completionImageTokens);
  put('server_tool_calls_executed', usage.serverToolUse?.toolCallsExecuted);
  put('server_tool_calls_requested', usage.serverToolUse?.toolCallsRequested);
  put('web_search_requests', usage.serverToolUse?.webSearchRequests);
  put('estimated_from_characters', usage.estimatedFromCharacters);
  put('estimate_capped_at', usage.estimateCappedAt);
  return Object.keys(details).length > 0 ? details : undefined;
}
