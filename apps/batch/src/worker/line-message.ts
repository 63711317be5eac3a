import { ChatCreateRequest, SUBJECTS, validateDto, type Principal } from '@gw/contracts';

/**
 * Contract classes of the inference subjects that take their payload unvalidated
 * (trusted in the catalog): their callers validate instead, so batch checks each line's
 * message with the subject's own class before sending it, as the gateway does at the edge.
 * Inference validates the other subjects itself.
 */
const VALIDATED_BY_CALLER: Readonly<Record<string, new () => object>> = {
  [SUBJECTS.inference.chatCreate]: ChatCreateRequest,
  [SUBJECTS.inference.responsesCreate]: ChatCreateRequest,
  [SUBJECTS.inference.messagesCreate]: ChatCreateRequest,
};

/** What every batch endpoint's inference message holds: the principal and the line's body (checked at upload by its DTO). */
export type LineMessage = { principal: Principal; body: object };

/**
 * The message of one line for `subject`: `{principal, body}`, checked against the subject's
 * contract where inference trusts its callers (unknown top-level fields stripped, as inference's
 * own pipe did). A message that fails is a 400 GatewayError: the line fails, it is not retried.
 */
export async function lineMessage(subject: string, principal: Principal, body: Record<string, unknown>): Promise<LineMessage> {
  const message: LineMessage = { principal, body };
  const contract = VALIDATED_BY_CALLER[subject];
  return contract ? ((await validateDto(contract, message, 'strip')) as LineMessage) : message;
}
