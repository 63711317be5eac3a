import { Body, Controller, Delete, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { WORKSPACE_MODEL_ID_PATTERN, WorkspaceModelDto, WorkspaceModelsCall, type Principal, type WorkspaceModelOp } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { managementOnly } from '../auth/management-key-required.js';
import { StrictBody } from '../input/dto-pipes.js';
import { Answers, Doc, Fails, KeyKinds } from '../openapi/api-docs.js';

const MODEL_PATH = { name: 'path', description: 'The model id (may hold slashes, raw or as %2F)', schema: { type: 'string' } };

/**
 * A workspace's own models, answered by management: endpoints on the workspace's own
 * servers (vLLM, Ollama, its Azure deployment), called with its BYOK credentials and listed, routed
 * and visible for that workspace only; another workspace's is a 404. The admin API's model shape.
 */
@Controller('v1/workspace/models')
@KeyKinds('management')
@UseGuards(managementOnly())
export class WorkspaceModelsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc("List the key's workspace's own models")
  @Answers(200, 'WorkspaceModelListAnswer', 'The models, by id')
  list(@CurrentPrincipal() principal: Principal): Promise<unknown> {
    return this.send(principal, 'list');
  }

  @Get('*')
  @Doc("One of the workspace's own models")
  @ApiParam(MODEL_PATH)
  @Answers(200, 'WorkspaceModelAnswer', 'The model')
  @Fails({ 404: "No such model among the workspace's own" })
  get(@CurrentPrincipal() principal: Principal, @Param('*') id: string | string[]): Promise<unknown> {
    return this.send(principal, 'get', modelId(id));
  }

  @Put('*')
  @Doc(
    'Add or replace one of the workspace’s own models',
    'Endpoints name their URL (private addresses refused at call time, as BYOK endpoints), format and BYOK credentials.',
  )
  @ApiParam(MODEL_PATH)
  @Answers(200, 'WorkspaceModelAnswer', 'The model as stored')
  @Fails({ 400: 'A field is invalid, or a credential is not one of the workspace’s' })
  put(
    @CurrentPrincipal() principal: Principal,
    @Param('*') id: string | string[],
    @Body(StrictBody) body: WorkspaceModelDto,
  ): Promise<unknown> {
    return this.send(principal, 'put', modelId(id, 'write'), { ...body });
  }

  @Delete('*')
  @HttpCode(200)
  @Doc('Remove one of the workspace’s own models')
  @ApiParam(MODEL_PATH)
  @Answers(200, 'DeletedAnswer', 'Deleted')
  @Fails({ 404: "No such model among the workspace's own" })
  delete(@CurrentPrincipal() principal: Principal, @Param('*') id: string | string[]): Promise<unknown> {
    return this.send(principal, 'delete', modelId(id));
  }

  private send(principal: Principal, op: WorkspaceModelOp, id?: string, body?: Record<string, unknown>): Promise<unknown> {
    return this.rpc.send(WorkspaceModelsCall, { principal, op, ...(id ? { id } : {}), ...(body ? { body } : {}) });
  }
}

/** The path's id; one that cannot be a model id names none (404), and cannot be written (400). */
function modelId(id: string | string[], use: 'read' | 'write' = 'read'): string {
  const joined = (Array.isArray(id) ? id.join('/') : id).replaceAll('%2F', '/').replaceAll('%2f', '/');
  if (WORKSPACE_MODEL_ID_PATTERN.test(joined)) return joined;
  if (use === 'write')
    throw GatewayError.badRequest('A model id is letters, digits and . _ : / - (at most 128), starting with a letter or digit', {
      param: 'id',
    });
  throw GatewayError.notFound(`No model ${joined} among this workspace's own models`);
}
