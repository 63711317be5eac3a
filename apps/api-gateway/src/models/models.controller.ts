import { Controller, Get, Param, Query, Req } from '@nestjs/common';
import {
  type AnthropicModelInfoView,
  type AnthropicModelListView,
  type ModelListView,
  type ModelView,
  type Principal,
  ModelsList,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { ApiHeader, ApiParam, ApiQuery } from '@nestjs/swagger';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { Answers, Doc, Fails } from '../openapi/api-docs.js';
import { anthropicModelInfo, anthropicModelPage, wantsAnthropicShape } from './anthropic-model-info.js';

/** GET /v1/models and GET /v1/models/{id}: what this gateway can route, from inference's catalog. */
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly rpc: RpcClient) {}

  /** The catalog; a page of Anthropic's `ModelInfo` to a caller that speaks Anthropic (`@anthropic-ai/sdk` `models.list`). */
  @Get()
  @Doc(
    'List the models this gateway routes',
    "A caller sending `anthropic-version` or `x-api-key` gets Anthropic's list: `{data: [ModelInfo], has_more, first_id, last_id}`, paged by `limit`, `after_id` and `before_id`.",
  )
  @ApiHeader({ name: 'anthropic-version', required: false, schema: { type: 'string' } })
  @ApiQuery({
    name: 'limit',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 },
    description: "Anthropic's page size",
  })
  @ApiQuery({ name: 'after_id', required: false, schema: { type: 'string' }, description: "Anthropic's list: the page after this model" })
  @ApiQuery({ name: 'before_id', required: false, schema: { type: 'string' }, description: "Anthropic's list: the page before this model" })
  @Answers(200, 'ModelListAnswer', "The model catalog (OpenAI's list, or Anthropic's page)")
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: Record<string, unknown>,
    @Req() request: { headers: Record<string, string | string[] | undefined> },
  ): Promise<ModelListView | AnthropicModelListView> {
    const listed = await this.rpc.send(ModelsList, { principal });
    return wantsAnthropicShape(request.headers) ? anthropicModelPage(listed.data, query) : listed;
  }

  /**
   * One model by its id, slash and all (`/v1/models/sim/gpt-4o-mini` or `sim%2Fgpt-4o-mini`, as
   * the `openai` client sends it); Anthropic's `ModelInfo` to a caller that speaks Anthropic.
   */
  @Get('*')
  @Doc(
    'Retrieve one model the gateway routes',
    "The id may hold slashes, raw or as %2F. A caller sending `anthropic-version` or `x-api-key` gets Anthropic's ModelInfo shape.",
  )
  @ApiParam({ name: 'path', description: 'The model id, e.g. sim/gpt-4o-mini (or sim%2Fgpt-4o-mini)', schema: { type: 'string' } })
  @ApiHeader({ name: 'anthropic-version', required: false, schema: { type: 'string' } })
  @Answers(200, 'ModelAnswer', "The model (OpenAI's list entry, or Anthropic's ModelInfo)")
  @Fails({ 404: 'No model of that id is available' })
  async retrieve(
    @CurrentPrincipal() principal: Principal,
    @Param('*') id: string | string[],
    @Req() request: { headers: Record<string, string | string[] | undefined> },
  ): Promise<ModelView | AnthropicModelInfoView> {
    const wanted = (Array.isArray(id) ? id.join('/') : id).replaceAll('%2F', '/').replaceAll('%2f', '/');
    const listed = await this.rpc.send(ModelsList, { principal });
    const model = listed.data.find((candidate) => candidate.id === wanted);
    if (!model) throw new GatewayError(404, `Model "${wanted}" is not available; GET /v1/models lists the models you can call`);
    return wantsAnthropicShape(request.headers) ? anthropicModelInfo(model) : model;
  }
}
