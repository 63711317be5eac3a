import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  batchFileId,
  batchOfFile,
  type BatchFileKind,
  type FileAppendRequest,
  type FileCompleteRequest,
  type FileContentPart,
  type FileDeletedView,
  type FileListRequest,
  type FileListView,
  type FileView,
  type Principal,
  TERMINAL_BATCH_STATUSES,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { Prisma, type Batch, type File } from '../generated/prisma/client.js';
import { RESULT_RETENTION_MS, visibleTo } from '../batches/batches.service.js';
import { resultItem } from '../batches/batch-view.js';
import { Clock } from '../clock/clock.js';
import { PrismaService } from '../prisma/prisma.service.js';

const seconds = (at: Date): number => Math.floor(at.getTime() / 1000);
const LINES_PAGE = 1_000;

/**
 * Files of OpenAI's batch flow: uploads stored in parts in this database, hidden
 * until whole, scoped like batches (the workspace; an intern key sees only its intern's), and
 * deleted 30 days after creation by the sweep. A batch's output and error files are its
 * results, read through the batch; here only their file objects.
 */
@Injectable()
export class FilesService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, filename: string): Promise<{ id: string }> {
    const now = this.clock.now();
    const id = `file-${randomBytes(16).toString('hex')}`;
    await this.prisma.file.create({
      data: {
        id,
        workspaceId: principal.workspaceId,
        keyHash: principal.keyHash,
        internId: principal.keyKind === 'intern' ? (principal.internId ?? null) : null,
        filename,
        createdAt: now,
        expiresAt: new Date(now.getTime() + RESULT_RETENTION_MS),
      },
    });
    return { id };
  }

  async append(request: FileAppendRequest): Promise<{ stored: number }> {
    const file = await this.upload(request.principal, request.fileId);
    const data = Buffer.from(request.data, 'base64');
    try {
      await this.prisma.filePart.create({ data: { fileId: file.id, part: request.part, data: new Uint8Array(data) } });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
        throw new GatewayError(409, `File ${file.id}: part ${request.part} was already stored`);
      throw error;
    }
    return { stored: data.length };
  }

  /** The upload is whole when every part sent is stored and the sizes add up. */
  async complete(request: FileCompleteRequest): Promise<FileView> {
    const file = await this.upload(request.principal, request.fileId);
    const [stored] = await this.prisma.$queryRaw<Array<{ parts: bigint; bytes: bigint | null }>>`
      SELECT count(*) AS parts, sum(octet_length(data)) AS bytes FROM file_parts WHERE file_id = ${file.id}`;
    if (Number(stored!.parts) !== request.parts || Number(stored!.bytes ?? 0) !== request.bytes)
      throw new GatewayError(500, `File upload incomplete: ${stored!.parts} of ${request.parts} parts stored`);
    const done = await this.prisma.file.update({
      where: { id: file.id },
      data: { completedAt: this.clock.now(), purpose: request.purpose, bytes: request.bytes },
    });
    return fileView(done);
  }

  async abort(principal: Principal, fileId: string): Promise<{ aborted: boolean }> {
    const { count } = await this.prisma.file.deleteMany({ where: { id: fileId, ...scope(principal), completedAt: null } });
    return { aborted: count === 1 };
  }

  /**
   * OpenAI's list: newest first by default, `after` the last id of the previous page. Uploads
   * and ended batches' output and error files (purpose `batch_output`, as OpenAI lists them),
   * merged by creation time (a batch file's is its batch's end).
   */
  async list(request: FileListRequest): Promise<FileListView> {
    const { principal, order, limit } = request;
    const cursor = request.after ? await this.cursorOf(principal, request.after) : undefined;
    const [uploads, batchFiles] = await Promise.all([
      request.purpose === 'batch_output' ? [] : this.uploadsAfter(principal, order, limit, cursor),
      request.purpose === 'batch' ? [] : this.batchFilesAfter(principal, order, limit, cursor),
    ]);
    const listed = [...uploads, ...batchFiles].sort((a, b) => compareListed(a, b, order)).slice(0, limit + 1);
    const data = await Promise.all(listed.slice(0, limit).map((entry) => entry.view()));
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: listed.length > limit };
  }

  private async uploadsAfter(principal: Principal, order: 'asc' | 'desc', limit: number, cursor?: ListCursor): Promise<Listed[]> {
    const where: Prisma.FileWhereInput = { ...scope(principal), completedAt: { not: null } };
    if (cursor) {
      const beyond = order === 'desc' ? 'lt' : 'gt';
      where.OR = [{ createdAt: { [beyond]: cursor.at } }, { createdAt: cursor.at, id: { [beyond]: cursor.id } }];
    }
    const rows = await this.prisma.file.findMany({ where, orderBy: [{ createdAt: order }, { id: order }], take: limit + 1 });
    return rows.map((row) => ({ id: row.id, at: row.createdAt, view: async () => fileView(row) }));
  }

  /** The output and error files of ended batches beyond the cursor: those ended at its very time, and the next `limit + 1`. */
  private async batchFilesAfter(principal: Principal, order: 'asc' | 'desc', limit: number, cursor?: ListCursor): Promise<Listed[]> {
    const where: Prisma.BatchWhereInput = {
      ...visibleTo(principal),
      submittedAt: { not: null },
      status: { in: [...TERMINAL_BATCH_STATUSES] },
      resultsDeletedAt: null,
      OR: [{ completedCount: { gt: 0 } }, { failedCount: { gt: 0 } }],
    };
    const orderBy = [{ finalizedAt: order }, { id: order }];
    const batches = cursor
      ? [
          ...(await this.prisma.batch.findMany({ where: { ...where, finalizedAt: cursor.at } })),
          ...(await this.prisma.batch.findMany({
            where: { ...where, finalizedAt: { [order === 'desc' ? 'lt' : 'gt']: cursor.at } },
            orderBy,
            take: limit + 1,
          })),
        ]
      : await this.prisma.batch.findMany({ where: { ...where, finalizedAt: { not: null } }, orderBy, take: limit + 1 });
    return batches.flatMap((batch) =>
      (['output', 'error'] as const)
        .filter((kind) => (kind === 'output' ? batch.completedCount : batch.failedCount) > 0)
        .map((kind) => ({ id: batchFileId(batch.id, kind), at: batch.finalizedAt!, view: () => this.batchFileView(batch, kind) }))
        .filter((entry) => !cursor || compareListed(entry, cursor, order) > 0),
    );
  }

  /** Where a page starts: the time and id of the file named `after`, an upload or a batch's file. */
  private async cursorOf(principal: Principal, after: string): Promise<ListCursor> {
    const ofBatch = batchOfFile(after);
    const at = ofBatch
      ? (await this.prisma.batch.findFirst({ where: { id: ofBatch.batchId, ...visibleTo(principal) }, select: { finalizedAt: true } }))
          ?.finalizedAt
      : (await this.prisma.file.findFirst({ where: { id: after, ...scope(principal) }, select: { createdAt: true } }))?.createdAt;
    if (!at) throw GatewayError.badRequest(`after: no file ${after}`, { param: 'after' });
    return { at, id: after };
  }

  async get(principal: Principal, fileId: string): Promise<FileView> {
    const ofBatch = batchOfFile(fileId);
    if (ofBatch) return this.batchFile(principal, ofBatch.batchId, ofBatch.kind);
    return fileView(await this.owned(principal, fileId));
  }

  /** One stored part, in order; 404 for a file not whole or not the caller's. */
  async content(principal: Principal, fileId: string, part: number): Promise<FileContentPart> {
    await this.owned(principal, fileId);
    const [here, next] = await Promise.all([
      this.prisma.filePart.findUnique({ where: { fileId_part: { fileId, part } }, select: { data: true } }),
      this.prisma.filePart.findFirst({ where: { fileId, part: { gt: part } }, orderBy: { part: 'asc' }, select: { part: true } }),
    ]);
    if (!here && part > 0) throw GatewayError.notFound(`File ${fileId} has no part ${part}`);
    return { data: here ? Buffer.from(here.data).toString('base64') : '', nextPart: here && next ? next.part : null };
  }

  async delete(principal: Principal, fileId: string): Promise<FileDeletedView> {
    const { count } = await this.prisma.file.deleteMany({ where: { id: fileId, ...scope(principal), completedAt: { not: null } } });
    if (count === 0) throw GatewayError.notFound(`No file ${fileId}`);
    return { id: fileId, object: 'file', deleted: true };
  }

  /** The sweep's part: files past their 30 days, and uploads unfinished since `abandonedBefore`. */
  async dropExpired(abandonedBefore: Date): Promise<number> {
    const { count } = await this.prisma.file.deleteMany({
      where: { OR: [{ completedAt: null, createdAt: { lt: abandonedBefore } }, { expiresAt: { lte: this.clock.now() } }] },
    });
    return count;
  }

  /** A whole file the caller may see, or 404. */
  private async owned(principal: Principal, fileId: string): Promise<File> {
    const file = await this.prisma.file.findFirst({ where: { id: fileId, ...scope(principal), completedAt: { not: null } } });
    if (!file) throw GatewayError.notFound(`No file ${fileId}`);
    return file;
  }

  private async upload(principal: Principal, fileId: string): Promise<File> {
    const file = await this.prisma.file.findFirst({ where: { id: fileId, ...scope(principal), completedAt: null } });
    if (!file) throw GatewayError.notFound(`No file upload ${fileId}`);
    return file;
  }

  /** The file object of an ended batch's output or error file, when the batch has lines of that kind; else 404. */
  private async batchFile(principal: Principal, batchId: string, kind: BatchFileKind): Promise<FileView> {
    const fileId = batchFileId(batchId, kind);
    const batch = await this.prisma.batch.findFirst({
      where: { id: batchId, ...visibleTo(principal), submittedAt: { not: null }, resultsDeletedAt: null },
    });
    if (!batch || !batch.finalizedAt || (kind === 'output' ? batch.completedCount : batch.failedCount) === 0)
      throw GatewayError.notFound(`No file ${fileId}`);
    return this.batchFileView(batch, kind);
  }

  /** A batch file's object; its bytes are the JSONL the content route streams, counted line by line. */
  private async batchFileView(batch: Batch, kind: BatchFileKind): Promise<FileView> {
    const batchId = batch.id;
    const status = kind === 'output' ? 'completed' : 'failed';
    let bytes = 0;
    for (let after = -1; ;) {
      const page = await this.prisma.batchRequest.findMany({
        where: { batchId, status, lineNumber: { gt: after } },
        orderBy: { lineNumber: 'asc' },
        take: LINES_PAGE,
        select: { id: true, customId: true, response: true, error: true, lineNumber: true },
      });
      for (const line of page) bytes += Buffer.byteLength(`${JSON.stringify(resultItem(line))}\n`);
      if (page.length < LINES_PAGE) break;
      after = page.at(-1)!.lineNumber;
    }
    return {
      id: batchFileId(batchId, kind),
      object: 'file',
      bytes,
      created_at: seconds(batch.finalizedAt!),
      expires_at: seconds(batch.resultsExpireAt),
      filename: `${batchId}_${kind}.jsonl`,
      purpose: 'batch_output',
      status: 'processed',
      status_details: null,
    };
  }
}

interface ListCursor {
  at: Date;
  id: string;
}

interface Listed extends ListCursor {
  view: () => Promise<FileView>;
}

/** The list's order: by creation time, then id; negative when `a` comes first. */
function compareListed(a: ListCursor, b: ListCursor, order: 'asc' | 'desc'): number {
  const ascending = a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return order === 'asc' ? ascending : -ascending;
}

/** As batches (`visibleTo`): the workspace's files; an intern key only its intern's. */
function scope(principal: Principal): Prisma.FileWhereInput {
  if (principal.keyKind !== 'intern') return { workspaceId: principal.workspaceId };
  return { workspaceId: principal.workspaceId, internId: principal.internId ?? { in: [] } };
}

function fileView(file: File): FileView {
  return {
    id: file.id,
    object: 'file',
    bytes: file.bytes,
    created_at: seconds(file.createdAt),
    expires_at: seconds(file.expiresAt),
    filename: file.filename,
    purpose: file.purpose as FileView['purpose'],
    status: 'processed',
    status_details: null,
  };
}
