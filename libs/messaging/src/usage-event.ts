import { USAGE_BATCH_MAX_EVENTS, UsageRecordedEvent, validateDto } from '@gw/contracts';

/** Amounts are stored with 18 decimals (numeric(38,18)); a finer cost could not be counted exactly. */
const MAX_COST_DECIMALS = 18;
const decoder = new TextDecoder();

/**
 * One message of the USAGE stream as validated events: a `UsageRecordedBatch` (`{events}`),
 * the bare event, or an event wrapped in Nest's `{pattern, data}`. An invalid event inside a
 * batch is left out (and reported through `onInvalid`) so it cannot take valid ones down with
 * it. Null when nothing in the message is a valid event (a poison message, which consumers
 * terminate instead of retrying forever).
 */
export async function parseUsageEvents(payload: Uint8Array, onInvalid?: (index: number) => void): Promise<UsageRecordedEvent[] | null> {
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
      const event = await validEvent(candidate);
      if (event) events.push(event);
      else onInvalid?.(index);
    }
    return events.length > 0 ? events : null;
  }
  const candidate =
    parsed && typeof parsed === 'object' && 'data' in parsed && 'pattern' in parsed ? (parsed as { data: unknown }).data : parsed;
  const event = await validEvent(candidate);
  return event ? [event] : null;
}

async function validEvent(candidate: unknown): Promise<UsageRecordedEvent | null> {
  if (!candidate || typeof candidate !== 'object') return null;
  let event: UsageRecordedEvent;
  try {
    event = await validateDto(UsageRecordedEvent, candidate, 'strip');
  } catch {
    return null;
  }
  for (const value of [event.cost, event.upstreamCost]) {
    if ((value.split('.')[1]?.length ?? 0) > MAX_COST_DECIMALS) return null;
  }
  return event;
}
