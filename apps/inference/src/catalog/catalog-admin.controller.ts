import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AdminCatalogChange,
  AdminCatalogChangeRequest,
  AdminCatalogRead,
  AdminCatalogReadRequest,
  type CatalogChangeView,
} from '@gw/contracts';
import { CatalogAdmin } from './catalog-admin.service.js';

/** The operator's admin API (`/v1/admin/...`): the gateway sends only requests it authenticated with an operator credential. */
@Controller()
export class CatalogAdminController {
  constructor(private readonly admin: CatalogAdmin) {}

  @MessagePattern(AdminCatalogRead.subject)
  read(@Payload() request: AdminCatalogReadRequest): Promise<unknown> {
    return this.admin.read(request);
  }

  @MessagePattern(AdminCatalogChange.subject)
  change(@Payload() request: AdminCatalogChangeRequest): Promise<CatalogChangeView> {
    return this.admin.change(request);
  }
}
