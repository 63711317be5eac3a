import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Req, Res, UseGuards } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import {
  AdminCatalogChange,
  AdminCatalogRead,
  type CatalogChangeAction,
  type CatalogChangeView,
  type CatalogDocumentView,
  type CatalogReadView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply } from 'fastify';
import { isIP } from 'node:net';
import { Public } from '../auth/public.decorator.js';
import { Answers, Doc, Fails } from '../openapi/api-docs.js';
import { OperatorKeyGuard, type OperatorRequest } from './operator-key.guard.js';

const DRY_RUN = { name: 'dry_run', required: false, description: 'true: answer the diff, change nothing', schema: { type: 'boolean' } };
const IF_MATCH = 'if-match';

/**
 * The operator's admin API over the model catalog, answered by inference. Every change is
 * validated as the catalog files are (400 naming the field), stored as a new version with its
 * author and diff, and served by every inference replica within a second; `?dry_run=true`
 * answers the same diff and changes nothing; `If-Match: <version>` refuses a change made on a
 * version the operator did not read (409). Model ids hold slashes, raw or as %2F.
 */
@Controller('v1/admin')
@Public()
@UseGuards(OperatorKeyGuard)
export class AdminCatalogController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('catalog')
  @Doc('Export the whole catalog as one file', 'Byte for byte what a later import of it stores; `Catalog-Version` names its version.')
  @ApiQuery({ name: 'version', required: false, description: 'A stored version (default the current one)', schema: { type: 'integer' } })
  @Answers(200, 'CatalogFileAnswer', 'The catalog file')
  @Fails({ 404: 'No such version' })
  async export(@Req() request: OperatorRequest, @Query('version') version: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    const view = (await this.read(request, 'export', { version: versionParam(version, 'version') })) as CatalogDocumentView;
    await reply.header('catalog-version', String(view.version)).type('application/json').send(view.document);
  }

  @Put('catalog')
  @Doc('Import a whole catalog file (a new version), or its dry run')
  @ApiQuery(DRY_RUN)
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 409: 'If-Match names another version than the current one' })
  import(
    @Req() request: OperatorRequest,
    @Body() body: unknown,
    @Query('dry_run') dryRun?: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'import', { body: objectBody(body), dryRun, ifMatch });
  }

  @Get('catalog/state')
  @Doc('The catalog version the answering inference replica serves, a newer one it could not load, a file conflict')
  @Answers(200, 'CatalogStateAnswer', 'The replica catalog state')
  state(@Req() request: OperatorRequest): Promise<unknown> {
    return this.read(request, 'state');
  }

  @Get('catalog/versions')
  @Doc('The stored catalog versions, newest first: who, when, what changed')
  @Answers(200, 'CatalogVersionListAnswer', 'The newest 100 versions')
  versions(@Req() request: OperatorRequest): Promise<unknown> {
    return this.read(request, 'versions');
  }

  @Get('catalog/versions/:version')
  @Doc('One stored catalog version: who, when, what changed')
  @Answers(200, 'CatalogVersionAnswer', 'The version')
  @Fails({ 404: 'No such version' })
  version(@Req() request: OperatorRequest, @Param('version') version: string): Promise<unknown> {
    return this.read(request, 'version', { version: versionParam(version, 'version') });
  }

  @Post('catalog/versions/:version/restore')
  @HttpCode(200)
  @Doc("Roll back: a stored version's catalog becomes the next version")
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 404: 'No such version', 409: 'If-Match names another version than the current one' })
  restore(
    @Req() request: OperatorRequest,
    @Param('version') version: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'rollback', { version: versionParam(version, 'version'), ifMatch });
  }

  @Get('providers')
  @Doc("The catalog's providers")
  @Answers(200, 'CatalogEntriesAnswer', 'The providers as the catalog holds them')
  providers(@Req() request: OperatorRequest): Promise<unknown> {
    return this.read(request, 'providers');
  }

  @Get('providers/:id')
  @Doc('One provider of the catalog')
  @Answers(200, 'CatalogEntryAnswer', 'The provider')
  @Fails({ 404: 'No such provider' })
  provider(@Req() request: OperatorRequest, @Param('id') id: string): Promise<unknown> {
    return this.read(request, 'provider', { id });
  }

  @Put('providers/:id')
  @Doc('Add or replace a provider (kind, base URL, auth, headers, region, ...)')
  @ApiQuery(DRY_RUN)
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 409: 'If-Match names another version than the current one' })
  putProvider(
    @Req() request: OperatorRequest,
    @Param('id') id: string,
    @Body() body: unknown,
    @Query('dry_run') dryRun?: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'put_provider', { id, body: objectBody(body), dryRun, ifMatch });
  }

  @Delete('providers/:id')
  @HttpCode(200)
  @Doc('Remove a provider no model uses')
  @ApiQuery(DRY_RUN)
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 404: 'No such provider', 409: 'If-Match names another version than the current one' })
  deleteProvider(
    @Req() request: OperatorRequest,
    @Param('id') id: string,
    @Query('dry_run') dryRun?: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'delete_provider', { id, dryRun, ifMatch });
  }

  @Get('models')
  @Doc("The catalog's models, with their endpoints, prices, aliases and deprecation")
  @Answers(200, 'CatalogEntriesAnswer', 'The models as the catalog holds them')
  models(@Req() request: OperatorRequest): Promise<unknown> {
    return this.read(request, 'models');
  }

  @Get('models/*')
  @Doc('One model of the catalog', 'The id may hold slashes, raw or as %2F.')
  @ApiParam({ name: 'path', description: 'The model id', schema: { type: 'string' } })
  @Answers(200, 'CatalogEntryAnswer', 'The model')
  @Fails({ 404: 'No such model' })
  model(@Req() request: OperatorRequest, @Param('*') id: string | string[]): Promise<unknown> {
    return this.read(request, 'model', { id: modelId(id) });
  }

  @Put('models/*')
  @Doc('Add or replace a model: its endpoints (provider, upstream model, prices), aliases, deprecation', 'The id may hold slashes.')
  @ApiParam({ name: 'path', description: 'The model id', schema: { type: 'string' } })
  @ApiQuery(DRY_RUN)
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 409: 'If-Match names another version than the current one' })
  putModel(
    @Req() request: OperatorRequest,
    @Param('*') id: string | string[],
    @Body() body: unknown,
    @Query('dry_run') dryRun?: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'put_model', { id: modelId(id), body: objectBody(body), dryRun, ifMatch });
  }

  @Delete('models/*')
  @HttpCode(200)
  @Doc('Remove a model', 'The id may hold slashes.')
  @ApiParam({ name: 'path', description: 'The model id', schema: { type: 'string' } })
  @ApiQuery(DRY_RUN)
  @Answers(200, 'CatalogChangeAnswer', 'The change: its version and diff')
  @Fails({ 404: 'No such model', 409: 'If-Match names another version than the current one' })
  deleteModel(
    @Req() request: OperatorRequest,
    @Param('*') id: string | string[],
    @Query('dry_run') dryRun?: string,
    @Headers(IF_MATCH) ifMatch?: string,
  ): Promise<CatalogChangeView> {
    return this.change(request, 'delete_model', { id: modelId(id), dryRun, ifMatch });
  }

  @Get('endpoints/*')
  @Doc(
    "One endpoint's health: its cooldown (shared by every replica), the answering replica's recent failures, and the models using it",
    'The path is `{provider}/{upstream model}`; the upstream model may hold slashes.',
  )
  @ApiParam({ name: 'path', description: '`{provider}/{upstream model}`', schema: { type: 'string' } })
  @Answers(200, 'CatalogEndpointAnswer', 'The endpoint')
  @Fails({ 404: 'No model of the catalog uses this endpoint' })
  endpoint(@Req() request: OperatorRequest, @Param('*') id: string | string[]): Promise<unknown> {
    return this.read(request, 'endpoint', { id: modelId(id) });
  }

  private read(request: OperatorRequest, view: CatalogReadView, options: { id?: string; version?: number } = {}): Promise<unknown> {
    return this.rpc.send(AdminCatalogRead, { operator: request.operator!, view, ...definedOnly(options) });
  }

  private change(
    request: OperatorRequest,
    action: CatalogChangeAction,
    options: { id?: string; body?: Record<string, unknown>; version?: number; dryRun?: string; ifMatch?: string },
  ): Promise<CatalogChangeView> {
    const { dryRun, ifMatch, ...rest } = options;
    const expectedVersion = ifMatch === undefined ? undefined : versionParam(ifMatch.replaceAll('"', ''), 'if_match');
    return this.rpc.send(AdminCatalogChange, {
      operator: request.operator!,
      action,
      dryRun: booleanParam(dryRun),
      ...definedOnly({ ...rest, expectedVersion, clientIp: isIP(request.ip ?? '') ? request.ip : undefined }),
    });
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

function modelId(id: string | string[]): string {
  return (Array.isArray(id) ? id.join('/') : id).replaceAll('%2F', '/').replaceAll('%2f', '/');
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw GatewayError.badRequest('The body is a JSON object', { param: 'body' });
  return body as Record<string, unknown>;
}

function booleanParam(value: string | undefined): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw GatewayError.badRequest('dry_run is true or false', { param: 'dry_run' });
}

function versionParam(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d{0,9}$/.test(value)) throw GatewayError.badRequest(`${param} is a catalog version number`, { param });
  return Number(value);
}
