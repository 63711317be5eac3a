import { TotalPageQueryDto, validateDto, type CallParams } from '@gw/contracts';

/** The page a total-count list answers when no `limit` is sent (the SDK's own default). */
const DEFAULT_PAGE = 50;

/** Prisma's `skip` and `take` for a total-count list's validated `offset` and `limit`. */
export function skipTake(query: TotalPageQueryDto): { skip: number; take: number } {
  return { skip: query.offset ?? 0, take: query.limit ?? DEFAULT_PAGE };
}

/** The same from a call's `offset` and `limit` alone (its other params are the route's); a 400 names a bad one. */
export async function pageOf(params: CallParams): Promise<{ skip: number; take: number }> {
  return skipTake(await validateDto(TotalPageQueryDto, { offset: params.offset, limit: params.limit }, 'reject'));
}
