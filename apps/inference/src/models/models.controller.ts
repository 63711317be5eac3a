import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { SUBJECTS, type ModelListView } from '@gw/contracts';
import { CatalogService } from '../catalog/catalog.service.js';

@Controller()
export class ModelsController {
  constructor(private readonly catalog: CatalogService) {}

  @MessagePattern(SUBJECTS.inference.modelsList)
  list(): ModelListView {
    return this.catalog.list();
  }
}
