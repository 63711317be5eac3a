import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiProduces, ApiResponse } from '@nestjs/swagger';
import {
  type DataEnvelope,
  type GenerationListView,
  type GenerationView,
  type Principal,
  GenerationQueryDto,
  type GenerationContentView,
  GenerationsContent,
  GenerationsGet,
  GenerationsList,
  ExportGenerationsQueryDto,
  ListGenerationsQueryDto,
} from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { StrictQuery } from '../input/dto-pipes.js';
import { Answers, Doc, Fails } from '../openapi/api-docs.js';
import type { FastifyReply } from 'fastify';
import { streamGenerationsExport } from './generations-export.js';

/**
 * GET /v1/generation?id= (`@openrouter/sdk` `generations.getGeneration`), answered by inference
 * from its generation records, GET /v1/generation/content (the stored prompt and completion of a
 * workspace that logs content), and GET /v1/generations with its export, the workspace's
 * generations newest first (the SDK has no list; named after its resource).
 */
@Controller('v1')
export class GenerationsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('generation')
  @Doc("One generation of the key's workspace: cost, tokens, provider calls")
  @Answers(200, 'GenerationAnswer', 'The generation')
  @Fails({ 404: 'No generation with that id in the workspace of the key (an intern key: one it made)' })
  async get(
    @CurrentPrincipal() principal: Principal,
    @Query(StrictQuery) query: GenerationQueryDto,
  ): Promise<DataEnvelope<GenerationView>> {
    return { data: await this.rpc.send(GenerationsGet, { principal, id: query.id }) };
  }

  /** Inference reads the generation first, so an id the key cannot see is the same 404 as on GET /v1/generation. */
  @Get('generation/content')
  @Doc('The stored prompt and completion of a generation, for a workspace that logs content (PUT /v1/content-logging)')
  @Answers(200, 'GenerationContentAnswer', 'The prompt and completion as stored (secrets of known shapes redacted, long texts cut)')
  @Fails({
    404: 'reason `not_found` (no such generation visible to the key) or `content_not_stored` (content logging was off, or it expired)',
  })
  async content(
    @CurrentPrincipal() principal: Principal,
    @Query(StrictQuery) query: GenerationQueryDto,
  ): Promise<DataEnvelope<GenerationContentView>> {
    return { data: await this.rpc.send(GenerationsContent, { principal, id: query.id }) };
  }

  @Get('generations')
  @Doc(
    "The key's workspace's generations, newest first, by key, user, model, provider, status, finish reason, API type, cost and time (cursor pages)",
  )
  @Answers(200, 'GenerationListAnswer', 'A page of generations and the cursor of the next')
  @Fails({ 400: 'A bad filter or a cursor that is not a next_cursor' })
  list(@CurrentPrincipal() principal: Principal, @Query(StrictQuery) query: ListGenerationsQueryDto): Promise<GenerationListView> {
    return this.rpc.send(GenerationsList, { principal, query: { ...query } });
  }

  @Get('generations/export')
  @Doc(
    "The key's workspace's generations the filters select, newest first, streamed as CSV (a header line) or JSONL (one generation a line)",
  )
  @ApiProduces('text/csv', 'application/jsonl')
  @ApiResponse({
    status: 200,
    description: 'Every generation the filters select',
    content: { 'text/csv': { schema: { type: 'string' } }, 'application/jsonl': { schema: { type: 'string' } } },
  })
  @Fails({ 400: 'A bad filter, or a format other than csv and jsonl' })
  export(
    @CurrentPrincipal() principal: Principal,
    @Query(StrictQuery) query: ExportGenerationsQueryDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return streamGenerationsExport(this.rpc, principal, { ...query }, reply);
  }
}
