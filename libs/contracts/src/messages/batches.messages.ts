import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { BATCH_COMPLETION_WINDOW, BATCH_STATUSES, type BatchResultItem, type BatchStatusName } from '../http/batch.view.js';
import { BATCH_ENDPOINTS, type BatchEndpoint } from './native-batches.messages.js';
import { FILE_ID_PATTERN } from '../http/file.view.js';
import { Principal } from '../principal.js';
import { OptionalIntIn } from '../http/validators.js';

/** Batch ids: `batch_` and 32 lower-case hex characters. */
export const BATCH_ID_PATTERN = /^batch_[0-9a-f]{32}$/;
export const CUSTOM_ID_MAX_LENGTH = 512;
/** Most lines in one append message (the gateway also cuts a chunk at ~512 KB). */
export const BATCH_APPEND_MAX_LINES = 1_000;

class WithPrincipal {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

export class BatchRef extends WithPrincipal {
  @Matches(BATCH_ID_PATTERN)
  batchId!: string;
}

/** Gateway -> batch: opens a hidden batch (the header fields that precede `requests`). */
export class BatchCreateRequest extends WithPrincipal {
  @IsIn(BATCH_ENDPOINTS)
  endpoint!: BatchEndpoint;

  @IsString()
  @MinLength(1)
  @MaxLength(256)
  model!: string;

  @IsIn([BATCH_COMPLETION_WINDOW])
  completionWindow!: string;

  @IsOptional()
  @IsObject()
  provider?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  metadata?: Record<string, string>;

  /** The uploaded file the lines come from (OpenAI's batch flow). */
  @IsOptional()
  @Matches(FILE_ID_PATTERN)
  inputFileId?: string;
}

export class BatchLine {
  @IsInt()
  @Min(0)
  index!: number;

  @IsString()
  @MinLength(1)
  @MaxLength(CUSTOM_ID_MAX_LENGTH)
  custom_id!: string;

  @IsObject()
  body!: Record<string, unknown>;
}

export class BatchAppendRequest extends BatchRef {
  @IsArray()
  @ArrayMaxSize(BATCH_APPEND_MAX_LINES)
  @ValidateNested({ each: true })
  @Type(() => BatchLine)
  lines!: BatchLine[];
}

export class BatchSubmitRequest extends BatchRef {
  /** Lines the gateway sent: the service checks it holds exactly these. */
  @IsInt()
  @Min(1)
  total!: number;
}

export class BatchListRequest extends WithPrincipal {
  @IsInt()
  @Min(1)
  @Max(100)
  limit!: number;

  @IsOptional()
  @Matches(BATCH_ID_PATTERN)
  after?: string;

  @IsOptional()
  @IsArray()
  @IsIn(BATCH_STATUSES, { each: true })
  status?: BatchStatusName[];

  /** Unix seconds, inclusive. */
  @OptionalIntIn(0)
  createdAfter?: number;

  @OptionalIntIn(0)
  createdBefore?: number;
}

export class BatchResultsPageRequest extends BatchRef {
  /** Line index after which to read (-1 for the first page). */
  @IsInt()
  @Min(-1)
  afterIndex!: number;

  @IsInt()
  @Min(1)
  @Max(1_000)
  limit!: number;

  /** Only the lines that succeeded (the output file) or failed (the error file). */
  @IsOptional()
  @IsIn(['completed', 'failed'])
  status?: 'completed' | 'failed';
}

export interface BatchCreatedReply {
  id: string;
}

export interface BatchResultsPage {
  items: BatchResultItem[];
  /** Pass as afterIndex for the next page; null at the end. */
  nextAfterIndex: number | null;
}
