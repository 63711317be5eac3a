import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  type InternListView,
  type InternsCreateRequest,
  type InternsListRequest,
  type InternsUpdateRequest,
  type InternView,
  type Principal,
  KeysDeleteForIntern,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { Prisma, type Intern } from '../generated/prisma/client.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { canSeeIntern, collectionWorkspace, internNotFound, requireWriteAccess } from './intern-access.js';
import { toInternView } from './intern-view.js';
import { decodeCursor, encodeCursor } from './list-cursor.js';
import { SignableInterns } from './signable-interns.js';

const nameTaken = () =>
  new GatewayError(409, 'You already have an intern of that name in this workspace', {
    metadata: { reason: 'conflict', retryable: false },
  });

/**
 * The interns resource in `@openrouter/sdk`'s shape. Nothing is provisioned here: an intern
 * is its settings and the hostname its operator gives it; its status stays `stopped` until
 * deleted.
 */
@Injectable()
export class InternsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly rpc: RpcClient,
    private readonly signable: SignableInterns,
  ) {}

  async list(request: InternsListRequest): Promise<InternListView> {
    const workspaceId = collectionWorkspace(request.principal, request.workspaceId);
    const after = request.startingAfter === undefined ? undefined : decodeCursor(request.startingAfter);
    const where: Prisma.InternWhereInput = {
      workspaceId,
      ...(request.statuses?.length ? { status: { in: request.statuses } } : {}),
      ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}),
    };
    const rows = await this.prisma.intern.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: request.limit + 1 });
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    const hasMore = rows.length > request.limit;
    return { data: page.map(toInternView), has_more: hasMore, ...(hasMore && last ? { next_cursor: encodeCursor(last) } : {}) };
  }

  async get(principal: Principal, internId: string): Promise<InternView> {
    return toInternView(await this.findVisible(principal, internId));
  }

  async create(request: InternsCreateRequest): Promise<InternView> {
    const workspaceId = collectionWorkspace(request.principal, request.workspaceId);
    const intern = await this.prisma.intern
      .create({
        data: {
          id: randomUUID(),
          workspaceId,
          ownerUserId: request.principal.userId,
          name: request.name,
          description: request.description ?? null,
          instructions: request.instructions ?? null,
          model: request.model ?? null,
          hostname: request.hostname ?? null,
        },
      })
      .catch(conflictOnDuplicateName);
    return toInternView(intern);
  }

  /** Omitted fields stay; null clears description, instructions, model or hostname. */
  async update(request: InternsUpdateRequest): Promise<InternView> {
    requireWriteAccess(request.principal);
    const intern = await this.findVisible(request.principal, request.internId);
    const data: Prisma.InternUpdateInput = {};
    if (request.name !== undefined) data.name = request.name;
    if (request.description !== undefined) data.description = request.description;
    if (request.instructions !== undefined) data.instructions = request.instructions;
    if (request.model !== undefined) data.model = request.model;
    if (request.hostname !== undefined) data.hostname = request.hostname;
    const updated = await this.prisma.intern
      .update({ where: { id: intern.id }, data })
      .catch(conflictOnDuplicateName)
      .catch(notFoundIfGone);
    return toInternView(updated);
  }

  /**
   * Revokes the intern's own keys at management first, then removes the intern: if management
   * is unreachable nothing is deleted and the caller retries; a retry after a partial run
   * finds no keys and finishes. Teardown is synchronous, so `destroying` is never observable.
   */
  async delete(principal: Principal, internId: string): Promise<{ deleting: true }> {
    requireWriteAccess(principal);
    const intern = await this.findVisible(principal, internId);
    await this.rpc.send(KeysDeleteForIntern, { workspaceId: intern.workspaceId, internId: intern.id });
    await this.prisma.intern.deleteMany({ where: { id: intern.id } });
    this.signable.announceDeleted([intern.id]);
    return { deleting: true };
  }

  async exists(workspaceId: string, internId: string): Promise<boolean> {
    return (await this.prisma.intern.count({ where: { id: internId, workspaceId } })) > 0;
  }

  /** 404 alike for an unknown intern and one the key may not see (never says which). */
  async findVisible(principal: Principal, internId: string): Promise<Intern> {
    const intern = await this.prisma.intern.findUnique({ where: { id: internId } });
    if (!intern || !canSeeIntern(principal, intern)) throw internNotFound();
    return intern;
  }
}

function conflictOnDuplicateName(error: unknown): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') throw nameTaken();
  throw error;
}

function notFoundIfGone(error: unknown): never {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') throw internNotFound();
  throw error;
}
