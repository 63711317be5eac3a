import { SUBJECTS, type ByokResolveReply, type PresetResolveReply, type ResolvedByokCredential } from '@gw/contracts';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/**
 * Stands in for the management service on a real NATS server: answers the subjects inference
 * asks (`management.byok.resolve`, `management.presets.resolve`, and `management.spend.reserve`,
 * always granting what is wanted) in Nest's wire format, from in-memory tables, and counts the questions (to see
 * caching at work).
 */
export class FakeManagement {
  readonly credentials = new Map<string, ResolvedByokCredential[]>();
  readonly presets = new Map<string, PresetResolveReply>();
  readonly calls = { byok: 0, presets: 0, reserves: 0 };
  private readonly subscriptions: Subscription[];

  constructor(connection: NatsConnection) {
    this.subscriptions = [
      connection.subscribe(SUBJECTS.management.spendReserve, {
        callback: (_error, message) => {
          const { id, data } = message.json<{ id: string; data: { wanted: string } }>();
          this.calls.reserves++;
          message.respond(JSON.stringify({ id, response: { granted: data.wanted }, isDisposed: true }));
        },
      }),
      connection.subscribe(SUBJECTS.management.byokResolve, {
        callback: (_error, message) => {
          const { id, data } = message.json<{ id: string; data: { workspaceId: string } }>();
          this.calls.byok++;
          const reply: ByokResolveReply = { credentials: this.credentials.get(data.workspaceId) ?? [] };
          message.respond(JSON.stringify({ id, response: reply, isDisposed: true }));
        },
      }),
      connection.subscribe(SUBJECTS.management.presetsResolve, {
        callback: (_error, message) => {
          const { id, data } = message.json<{ id: string; data: { workspaceId: string; slug: string } }>();
          this.calls.presets++;
          const preset = this.presets.get(`${data.workspaceId}/${data.slug}`);
          const packet = preset
            ? { id, response: preset, isDisposed: true }
            : { id, err: { status: 404, message: `Preset "${data.slug}" not found`, error_type: 'not_found' }, isDisposed: true };
          message.respond(JSON.stringify(packet));
        },
      }),
    ];
  }

  close(): void {
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }
}
