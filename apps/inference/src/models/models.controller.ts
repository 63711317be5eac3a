import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ModelListView, ModelsList, ModelsListRequest, type ResolvedByokCredential } from '@gw/contracts';
import { CatalogService } from '../catalog/catalog.service.js';
import { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { credentialAdmits } from '../routing/byok-selection.js';

@Controller()
export class ModelsController {
  private readonly logger = new Logger(ModelsController.name);

  constructor(
    private readonly catalog: CatalogService,
    private readonly byok: ByokCredentialsService,
  ) {}

  /**
   * The models this key can call: those of providers the gateway holds a key for, and those its
   * workspace brought its own key for (BYOK allow-lists applied as routing applies them).
   */
  @MessagePattern(ModelsList.subject)
  async list(@Payload() request: ModelsListRequest): Promise<ModelListView> {
    const { principal } = request;
    let credentials: ResolvedByokCredential[] = [];
    try {
      credentials = await this.byok.forWorkspace(principal.workspaceId);
    } catch (error) {
      // Listing is not routing: without management, the gateway's own models are still a true answer.
      this.logger.warn(`GET /v1/models lists the gateway's providers only: ${(error as Error).message}`);
    }
    return this.catalog.list((modelId, endpoint) =>
      credentials.some((credential) => credentialAdmits(credential, { modelId, endpoint }, principal)),
    );
  }
}
