import { toRpcError } from '@gw/errors';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagementEnv } from '../env.js';
import { PrismaService } from './prisma.service.js';

/*
 * Management while its PostgreSQL is unreachable (issue 36): a request fails fast with the
 * retryable 503 `database_unavailable`, not a 500, and never waits longer than the pool's
 * connect timeout. No database needed: a closed port and a server that never answers.
 */

let silent: Server;
const sockets: Socket[] = [];
let silentPort = 0;

beforeAll(async () => {
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

function prismaAt(url: string, connectTimeoutMs = 5_000): PrismaService {
  return new PrismaService({ DATABASE_URL: url, DATABASE_POOL_SIZE: 2, DATABASE_CONNECT_TIMEOUT_MS: connectTimeoutMs } as ManagementEnv);
}

async function failureOf(prisma: PrismaService): Promise<unknown> {
  try {
    await prisma.$queryRaw`SELECT 1`;
  } catch (error) {
    return error;
  } finally {
    await prisma.$disconnect().catch(() => undefined);
  }
  throw new Error('the query succeeded');
}

describe('management with its database unreachable', () => {
  it('a refused connection is a retryable 503 database_unavailable', async () => {
    const error = await failureOf(prismaAt('postgresql://postgres@127.0.0.1:1/none'));
    expect(toRpcError(error)).toMatchObject({
      status: 503,
      error_type: 'server',
      metadata: { reason: 'database_unavailable', retryable: true },
    });
  });

  it('a server that never answers fails after DATABASE_CONNECT_TIMEOUT_MS, as the same 503', async () => {
    const startedAt = Date.now();
    const error = await failureOf(prismaAt(`postgresql://postgres@127.0.0.1:${silentPort}/none`, 300));
    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(toRpcError(error)).toMatchObject({ status: 503, metadata: { reason: 'database_unavailable' } });
  });

  it('any other error stays a bare 500', () => {
    expect(toRpcError(new Error('a bug'))).toEqual({ status: 500, message: 'Internal server error', error_type: 'server' });
    expect(toRpcError(Object.assign(new Error('duplicate key'), { code: '23505' }))).toMatchObject({ status: 500 });
  });
});
