import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { OPERATOR_NAME } from './catalog-admin.messages.js';

/** The most records one relay message carries (a catalog import may touch hundreds: sent in chunks). */
export const CATALOG_AUDIT_BATCH = 100;

/**
 * One catalog change as an audit row: an entry (provider or model) created, updated or deleted by
 * a stored catalog version. `origin` names it uniquely (`catalog/<version>/<type>/<id>`), so a
 * record relayed twice (a replica that died before marking it sent) is stored once.
 */
export class CatalogAuditRecord {
  @IsString()
  @MinLength(1)
  @MaxLength(400)
  origin!: string;

  @IsIn(['operator', 'system'])
  actorKind!: 'operator' | 'system';

  /** The operator credential's name, or the catalog files that made the version. */
  @IsString()
  @MaxLength(300)
  actorName!: string;

  @IsString()
  @MaxLength(100)
  action!: string;

  @IsString()
  @MaxLength(100)
  resourceType!: string;

  @IsString()
  @MaxLength(300)
  resourceId!: string;

  @IsOptional()
  @IsObject()
  before?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  after?: Record<string, unknown>;

  /** When the version was stored (the change's time, not the relay's). */
  @IsISO8601({ strict: true })
  createdAt!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  requestId?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  ip?: string;
}

/** Inference -> management: the audit rows of stored catalog versions (the outbox's drain). */
export class CatalogAuditAppendRequest {
  @IsArray()
  @ArrayMaxSize(CATALOG_AUDIT_BATCH)
  @ValidateNested({ each: true })
  @Type(() => CatalogAuditRecord)
  records!: CatalogAuditRecord[];
}

/** How many records were new (the rest were relayed before). */
export interface CatalogAuditAppendReply {
  stored: number;
}

/** Gateway -> management, for an operator: every workspace's audit log and the catalog's. */
export class AdminAuditLogListRequest {
  @Matches(OPERATOR_NAME)
  operator!: string;

  /** The query of GET /v1/admin/audit-logs (AuditLogQueryDto), validated again by management. */
  @IsDefined()
  @IsObject()
  query!: Record<string, unknown>;
}
