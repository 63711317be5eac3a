import { UsageRecordedEvent } from '@gw/contracts';
import { validateDto } from './validate-dto.js';

/** Amounts are stored with 18 decimals (numeric(38,18)); a finer cost could not be counted exactly. */
const MAX_COST_DECIMALS = 18;
const decoder = new TextDecoder();

/**
 * One message of the USAGE stream as a validated event: the bare event as inference publishes
 * it, or wrapped in Nest's `{pattern, data}`. Null for anything else (a poison message, which
 * consumers terminate instead of retrying forever).
 */
export async function parseUsageEvent(payload: Uint8Array): Promise<UsageRecordedEvent | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(payload));
  } catch {
    return null;
  }
  const candidate = parsed && typeof parsed === 'object' && 'data' in parsed && 'pattern' in parsed ? (parsed as { data: unknown }).data : parsed;
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
