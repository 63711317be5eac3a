import { Controller, Get } from '@nestjs/common';
import { type ModelListView, type Principal, ModelsList } from '@gw/contracts';
import { RpcClient } from '@gw/messaging';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { Answers, Doc } from '../openapi/api-docs.js';

/** GET /v1/models: what this gateway can route, from inference's catalog. */
@Controller('v1/models')
export class ModelsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @Doc('List the models this gateway routes')
  @Answers(200, 'ModelListAnswer', 'The model catalog')
  list(@CurrentPrincipal() principal: Principal): Promise<ModelListView> {
    return this.rpc.send(ModelsList, { principal });
  }
}
