import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type ModelListView, ModelsList } from '@gw/contracts';
import { CatalogService } from '../catalog/catalog.service.js';

@Controller()
export class ModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @MessagePattern(ModelsList.subject)
  list(): ModelListView {
    return this.catalog.list();
  }
}
