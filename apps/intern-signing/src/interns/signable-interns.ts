import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENTS, type InternsDeletedEvent, type Principal } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import type { Subscription } from '@nats-io/transport-node';
import { LRUCache } from 'lru-cache';
import type { Intern } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { canSeeIntern, internNotFound } from './intern-access.js';

/** How long a replica trusts a looked-up intern without a deletion event (the bound if one is lost). */
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/**
 * The interns the sign path looks up, cached per replica: the database lookup was about half of
 * a signature's CPU (issue 14's bench). What signing reads of an intern (its id and workspace)
 * never changes while it exists, so the only staleness is a deletion: the deleting replica
 * forgets the intern at once and publishes `events.interns.deleted`, on which every replica
 * forgets it; a lost event is bounded by the TTL. Visibility is still decided per request
 * against the caller's principal.
 */
@Injectable()
export class SignableInterns implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SignableInterns.name);
  private readonly cache = new LRUCache<string, Intern>({ max: MAX_ENTRIES, ttl: TTL_MS });
  private subscription?: Subscription;

  constructor(
    private readonly prisma: PrismaService,
    private readonly nats: ResilientNatsConnection,
  ) {}

  onModuleInit(): void {
    this.subscription = this.nats.connection.subscribe(EVENTS.internsDeleted, {
      callback: (error, message) => {
        if (error) return;
        try {
          this.forget(message.json<InternsDeletedEvent>().internIds ?? []);
        } catch {
          this.logger.warn('Ignored a malformed interns.deleted event');
        }
      },
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** 404 alike for an unknown intern and one the key may not see, as InternsService.findVisible. */
  async findVisible(principal: Principal, internId: string): Promise<Intern> {
    let intern = this.cache.get(internId);
    if (!intern) {
      intern = (await this.prisma.intern.findUnique({ where: { id: internId } })) ?? undefined;
      if (intern) this.cache.set(internId, intern);
    }
    if (!intern || !canSeeIntern(principal, intern)) throw internNotFound();
    return intern;
  }

  /** This replica forgets them now; `announceDeleted` tells the others. */
  forget(internIds: readonly string[]): void {
    for (const id of internIds) this.cache.delete(id);
  }

  announceDeleted(internIds: readonly string[]): void {
    this.forget(internIds);
    this.nats.connection.publish(EVENTS.internsDeleted, JSON.stringify({ internIds: [...internIds] } satisfies InternsDeletedEvent));
  }
}
