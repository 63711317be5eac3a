import { Injectable } from '@nestjs/common';
import type { CatalogAuditAppendReply, CatalogAuditRecord } from '@gw/contracts';
import type { Prisma } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';

/**
 * The audit rows of the catalog's versions, relayed by inference from its outbox (the versions
 * themselves). Each record's `origin` is unique, so a record relayed again after a
 * replica died before marking it sent is skipped: the log holds each change exactly once.
 */
@Injectable()
export class CatalogAuditIngest {
  constructor(private readonly prisma: PrismaService) {}

  async append(records: CatalogAuditRecord[]): Promise<CatalogAuditAppendReply> {
    if (records.length === 0) return { stored: 0 };
    const { count } = await this.prisma.auditLogEntry.createMany({
      data: records.map((record) => ({
        workspaceId: null,
        actorKind: record.actorKind,
        actorName: record.actorName,
        action: record.action,
        resourceType: record.resourceType,
        resourceId: record.resourceId,
        before: record.before as Prisma.InputJsonValue | undefined,
        after: record.after as Prisma.InputJsonValue | undefined,
        ip: record.ip ?? null,
        requestId: record.requestId ?? null,
        origin: record.origin,
        createdAt: new Date(record.createdAt),
      })),
      skipDuplicates: true,
    });
    return { stored: count };
  }
}
