import { Controller } from '@nestjs/common';
import {
  AdminCatalogChange,
  AdminCatalogChangeRequest,
  AdminCatalogRead,
  AdminCatalogReadRequest,
  type CatalogChangeView,
} from '@gw/contracts';
import { ServedSubject } from '@gw/messaging';
import { CatalogAdmin } from './catalog-admin.service.js';

/** The operator's admin API (`/v1/admin/...`): the gateway sends only requests it authenticated with an operator credential. */
@Controller()
export class CatalogAdminController {
  constructor(private readonly admin: CatalogAdmin) {}

  @ServedSubject(AdminCatalogRead)
  read(request: AdminCatalogReadRequest): Promise<unknown> {
    return this.admin.read(request);
  }

  @ServedSubject(AdminCatalogChange)
  change(request: AdminCatalogChangeRequest): Promise<CatalogChangeView> {
    return this.admin.change(request);
  }
}
