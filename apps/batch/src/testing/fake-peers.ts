import { SUBJECTS, type CreditsView } from '@gw/contracts';
import { type GatewayError, toRpcError } from '@gw/errors';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { randomUUID } from 'node:crypto';

interface Held {
  message: Msg;
  id: string;
  body: Record<string, unknown>;
}

/**
 * Stands in for inference and management on a real NATS server, in Nest's wire format: answers
 * `inference.*.create` with a completion of the endpoint's shape (usage and cost included) and
 * `management.credits.get` from a settable balance, `management.spend.reserve` with a grant or a
 * set refusal. Counts every line it was asked, by the text of its first message (tests put the
 * custom_id there), and can hold answers back (a replica "dies" while its lines are at the provider).
 */
export class FakePeers {
  /** How many times each line (by its text) reached "inference". */
  readonly asked = new Map<string, number>();
  readonly held: Held[] = [];
  holding = false;
  delayMs = 0;
  /** Texts answered with this status instead (a provider error). */
  readonly failWith = new Map<string, number>();
  credits: CreditsView = { total_credits: 100, total_usage: 0 };
  /** Native batches (inference.batches.native.*): what submit answers, and each status poll in turn. */
  nativeSubmit: unknown = { native: false, reason: 'no provider batch API' };
  nativeStatuses: unknown[] = [];
  readonly nativeCalls: Array<{ subject: string; data: Record<string, unknown> }> = [];
  creditsAsked = 0;
  /** What management's spend reservation answers a batch's creation: a grant, or this refusal. */
  spendRefusal: GatewayError | undefined;
  private readonly subscriptions: Subscription[] = [];

  constructor(connection: NatsConnection) {
    for (const subject of [
      SUBJECTS.inference.chatCreate,
      SUBJECTS.inference.responsesCreate,
      SUBJECTS.inference.messagesCreate,
      SUBJECTS.inference.embeddingsCreate,
    ]) {
      this.subscriptions.push(
        connection.subscribe(subject, { queue: 'inference', callback: (_error, message) => void this.onLine(subject, message) }),
      );
    }
    for (const subject of [
      SUBJECTS.inference.batchesNativeSubmit,
      SUBJECTS.inference.batchesNativeStatus,
      SUBJECTS.inference.batchesNativeCancel,
      SUBJECTS.inference.batchesNativeDelete,
    ]) {
      this.subscriptions.push(
        connection.subscribe(subject, {
          callback: (_error, message) => {
            const { id, data } = message.json<{ id: string; data: Record<string, unknown> }>();
            this.nativeCalls.push({ subject, data });
            const response =
              subject === SUBJECTS.inference.batchesNativeSubmit
                ? this.nativeSubmit
                : subject === SUBJECTS.inference.batchesNativeStatus
                  ? this.nativeStatuses.length > 1
                    ? this.nativeStatuses.shift()
                    : this.nativeStatuses[0]
                  : subject === SUBJECTS.inference.batchesNativeCancel
                    ? { state: 'cancelling' }
                    : { status: 'deleted', provider: 'simulator-openai' };
            message.respond(JSON.stringify({ id, response, isDisposed: true }));
          },
        }),
      );
    }
    this.subscriptions.push(
      connection.subscribe(SUBJECTS.management.creditsGet, {
        callback: (_error, message) => {
          const { id } = message.json<{ id: string }>();
          this.creditsAsked++;
          message.respond(JSON.stringify({ id, response: this.credits, isDisposed: true }));
        },
      }),
    );
    this.subscriptions.push(
      connection.subscribe(SUBJECTS.management.spendReserve, {
        callback: (_error, message) => {
          const { id, data } = message.json<{ id: string; data: { minimum: string } }>();
          const refusal = this.spendRefusal;
          const answer = refusal
            ? { id, err: toRpcError(refusal), isDisposed: true }
            : { id, response: { granted: data.minimum }, isDisposed: true };
          message.respond(JSON.stringify(answer));
        },
      }),
    );
  }

  /** Answers what was held (a dead replica's calls coming back late). */
  release(): void {
    for (const held of this.held.splice(0))
      held.message.respond(JSON.stringify({ id: held.id, response: chatAnswer(held.body), isDisposed: true }));
  }

  close(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  private async onLine(subject: string, message: Msg): Promise<void> {
    const { id, data } = message.json<{ id: string; data: { body: Record<string, unknown>; principal: { batchId?: string } } }>();
    const text = lineText(data.body);
    this.asked.set(text, (this.asked.get(text) ?? 0) + 1);
    if (!data.principal.batchId) throw new Error('a batch line must carry principal.batchId');
    if (this.holding) {
      this.held.push({ message, id, body: data.body });
      return;
    }
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const status = this.failWith.get(text);
    if (status) {
      message.respond(
        JSON.stringify({
          id,
          err: { status, message: `simulated ${status}`, error_type: status === 400 ? 'invalid_request' : 'provider_unavailable' },
          isDisposed: true,
        }),
      );
      return;
    }
    const answer = subject === SUBJECTS.inference.chatCreate ? chatAnswer(data.body) : otherAnswer(subject, data.body);
    message.respond(JSON.stringify({ id, response: answer, isDisposed: true }));
  }
}

function lineText(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ content: string }> | undefined;
  if (messages?.[0]) return messages[0].content;
  return String(body.input ?? '');
}

/** Each line costs 0.0001 + 0.000001 x its number: sums are checked to the last digit. */
export function costOf(text: string): number {
  const n = Number(/(\d+)$/.exec(text)?.[1] ?? 0);
  return Number((0.0001 + n * 0.000001).toFixed(9));
}

function chatAnswer(body: Record<string, unknown>) {
  const text = lineText(body);
  return {
    id: `gen-${randomUUID()}`,
    object: 'chat.completion',
    created: 1,
    model: body.model,
    provider: 'sim',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: `echo ${text}`, refusal: null },
        finish_reason: 'stop',
        native_finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 1 },
      cost: costOf(text),
      is_byok: false,
      cost_details: { upstream_inference_cost: costOf(text) },
    },
  };
}

function otherAnswer(subject: string, body: Record<string, unknown>) {
  const text = lineText(body);
  if (subject === SUBJECTS.inference.embeddingsCreate) {
    return {
      object: 'list',
      id: `gen-${randomUUID()}`,
      model: body.model,
      data: [{ object: 'embedding', embedding: [0.1], index: 0 }],
      usage: { prompt_tokens: 3, total_tokens: 3, cost: costOf(text), is_byok: false },
    };
  }
  return { id: `gen-${randomUUID()}`, usage: { input_tokens: 7, output_tokens: 4, total_tokens: 11, cost: costOf(text), is_byok: false } };
}
