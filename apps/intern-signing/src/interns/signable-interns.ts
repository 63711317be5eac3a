import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { type InternsDeletedEvent, type Principal, InternsDeleted } from '@gw/contracts';
import { EventInvalidatedCache, ResilientNatsConnection } from '@gw/messaging';
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
  private readonly cache: EventInvalidatedCache<string, Intern>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly nats: ResilientNatsConnection,
  ) {
    this.cache = new EventInvalidatedCache<string, Intern>({
      // An unknown intern is not cached (undefined), so one created later is found at once.
      max: MAX_ENTRIES,
      ttlMs: TTL_MS,
      lookup: async (id) => ({ value: (await this.prisma.intern.findUnique({ where: { id } })) ?? undefined }),
      invalidatedBy: InternsDeleted.subject,
      invalidate: (message, entries) => {
        for (const id of message.json<InternsDeletedEvent>().internIds ?? []) entries.delete(id);
      },
      onMalformed: () => this.logger.warn('Ignored a malformed interns.deleted event'),
    });
  }

  onModuleInit(): void {
    this.cache.listen(this.nats.connection);
  }

  onModuleDestroy(): void {
    this.cache.close();
  }

  /** 404 alike for an unknown intern and one the key may not see, as InternsService.findVisible. */
  async findVisible(principal: Principal, internId: string): Promise<Intern> {
    const intern = await this.cache.fetch(internId);
    if (!intern || !canSeeIntern(principal, intern)) throw internNotFound();
    return intern;
  }

  /** This replica forgets them now; `announceDeleted` tells the others. */
  forget(internIds: readonly string[]): void {
    for (const id of internIds) this.cache.delete(id);
  }

  announceDeleted(internIds: readonly string[]): void {
    this.forget(internIds);
    this.nats.connection.publish(InternsDeleted.subject, JSON.stringify({ internIds: [...internIds] } satisfies InternsDeletedEvent));
  }
}
