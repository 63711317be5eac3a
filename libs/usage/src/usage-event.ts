import { USAGE_BATCH_MAX_EVENTS, type UsageRecordedEvent } from '@gw/contracts';
import { validUsageRecordedEvent } from './usage-event-validator.js';

const decoder = new TextDecoder();

/**
 * One message of the USAGE stream as validated events: a `UsageRecordedBatch` (`{events}`),
 * the bare event, or an event wrapped in Nest's `{pattern, data}`. An invalid event inside a
 * batch is left out (and reported through `onInvalid`) so it cannot take valid ones down with
 * it. Null when nothing in the message is a valid event (a poison message, which consumers
 * terminate instead of retrying forever). Each event is checked by the compiled validator of
 * `UsageRecordedEvent`'s rules.
 */
export function parseUsageEvents(payload: Uint8Array, onInvalid?: (index: number) => void): UsageRecordedEvent[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(payload));
  } catch {
    return null;
  }
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { events?: unknown }).events)) {
    const candidates = (parsed as { events: unknown[] }).events;
    if (candidates.length === 0 || candidates.length > USAGE_BATCH_MAX_EVENTS) return null;
    const events: UsageRecordedEvent[] = [];
    for (const [index, candidate] of candidates.entries()) {
      const event = validUsageRecordedEvent(candidate);
      if (event) events.push(event);
      else onInvalid?.(index);
    }
    return events.length > 0 ? events : null;
  }
  const candidate =
    parsed && typeof parsed === 'object' && 'data' in parsed && 'pattern' in parsed ? (parsed as { data: unknown }).data : parsed;
  const event = validUsageRecordedEvent(candidate);
  return event ? [event] : null;
}
