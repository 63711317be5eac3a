import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ByokTest, ByokTestRequest, type ByokTestView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { CatalogService } from '../catalog/catalog.service.js';
import { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { probeOf, runProbe } from './byok-probe.js';

/** `POST /v1/byok/{id}/test`: one cheap call through a workspace's credential, at the provider the catalog names. */
@Controller()
export class ByokTestController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly byok: ByokCredentialsService,
  ) {}

  @MessagePattern(ByokTest.subject)
  async test(@Payload() request: ByokTestRequest): Promise<ByokTestView> {
    const credentials = await this.byok.forWorkspace(request.principal.workspaceId);
    const credential = credentials.find((candidate) => candidate.id === request.id);
    if (!credential) throw GatewayError.notFound('No usable BYOK credential with that id (a disabled one is not tested)');
    const provider = this.catalog
      .all()
      .flatMap((model) => model.endpoints)
      .find((endpoint) => endpoint.provider.id === credential.provider)?.provider;
    if (!provider) return { ok: false, status: null, message: `No provider ${credential.provider} in this gateway's catalog` };
    const probe = probeOf(provider, credential.apiKey);
    if (!probe) return { ok: false, status: null, message: `A ${provider.format} credential cannot be tested by one call here` };
    return runProbe(probe);
  }
}
