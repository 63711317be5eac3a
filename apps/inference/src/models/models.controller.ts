import { Controller, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ModelListView, ModelsList, ModelsListRequest, type ResolvedByokCredential } from '@gw/contracts';
import { CatalogService, toModelView } from '../catalog/catalog.service.js';
import { ByokCredentialsService, type WorkspaceRouting } from '../resolution/byok-credentials.service.js';
import { credentialAdmits } from '../routing/byok-selection.js';

@Controller()
export class ModelsController {
  private readonly logger = new Logger(ModelsController.name);

  constructor(
    private readonly catalog: CatalogService,
    private readonly byok: ByokCredentialsService,
  ) {}

  /**
   * The models this key can call: its workspace's own models, those of providers the gateway holds
   * a key for, and those its workspace brought its own key for (BYOK allow-lists applied as routing
   * applies them). A workspace model shadows a catalog model of the same id, as in routing.
   */
  @MessagePattern(ModelsList.subject)
  async list(@Payload() request: ModelsListRequest): Promise<ModelListView> {
    const { principal } = request;
    let routing: WorkspaceRouting = { credentials: [], models: new Map() };
    try {
      routing = await this.byok.routingOf(principal.workspaceId);
    } catch (error) {
      // Listing is not routing: without management, the gateway's own models are still a true answer.
      this.logger.warn(`GET /v1/models lists the gateway's providers only: ${(error as Error).message}`);
    }
    const credentials: ResolvedByokCredential[] = routing.credentials;
    const listed = this.catalog.list((modelId, endpoint) =>
      credentials.some((credential) => credentialAdmits(credential, { modelId, endpoint }, principal)),
    );
    if (routing.models.size === 0) return listed;
    const created = Math.floor(Date.now() / 1000);
    const own = [...routing.models.values()].map((model) => toModelView(model, model.endpoints[0]!, created));
    const data = [...own, ...listed.data.filter((model) => !routing.models.has(model.id))];
    return { ...listed, data, total_count: data.length };
  }
}
