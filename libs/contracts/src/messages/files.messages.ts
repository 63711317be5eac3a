import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import {
  FILE_ID_PATTERN,
  FILE_LIST_PURPOSES,
  FILE_PURPOSES,
  BATCH_FILE_ID_PATTERN,
  type FileListPurpose,
  type FilePurpose,
} from '../http/file.view.js';
import { Principal } from '../principal.js';

/** Raw bytes of one stored part; base64 makes it ~512 KB on the bus, half of NATS's default max_payload. */
export const FILE_PART_BYTES = 384 * 1024;
export const FILENAME_MAX_LENGTH = 255;
export const FILE_LIST_MAX = 10_000;

class WithPrincipal {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

/** An uploaded file (append, complete, abort, delete take only these). */
export class FileRef extends WithPrincipal {
  @Matches(FILE_ID_PATTERN)
  fileId!: string;
}

/** An uploaded file's id or a batch's output or error file's. */
const ANY_FILE_ID = new RegExp(`${FILE_ID_PATTERN.source}|${BATCH_FILE_ID_PATTERN.source}`);

/** An uploaded file or a batch's output or error file (reads). */
export class AnyFileRef extends WithPrincipal {
  @Matches(ANY_FILE_ID)
  fileId!: string;
}

/** Gateway -> batch: opens a hidden file at the form's file part. */
export class FileCreateRequest extends WithPrincipal {
  @IsString()
  @MinLength(1)
  @MaxLength(FILENAME_MAX_LENGTH)
  filename!: string;
}

export class FileAppendRequest extends FileRef {
  @IsInt()
  @Min(0)
  part!: number;

  /** Base64 of at most FILE_PART_BYTES. */
  @IsString()
  @MaxLength(Math.ceil(FILE_PART_BYTES / 3) * 4)
  data!: string;
}

/** The upload is whole: the file becomes visible. */
export class FileCompleteRequest extends FileRef {
  @IsIn(FILE_PURPOSES)
  purpose!: FilePurpose;

  @IsInt()
  @Min(0)
  parts!: number;

  @IsInt()
  @Min(0)
  bytes!: number;
}

export class FileListRequest extends WithPrincipal {
  @IsInt()
  @Min(1)
  @Max(FILE_LIST_MAX)
  limit!: number;

  @IsIn(['asc', 'desc'])
  order!: 'asc' | 'desc';

  @IsOptional()
  @Matches(ANY_FILE_ID)
  after?: string;

  @IsOptional()
  @IsIn(FILE_LIST_PURPOSES)
  purpose?: FileListPurpose;
}

/** One stored part of an uploaded file, by number. */
export class FileContentRequest extends FileRef {
  @IsInt()
  @Min(0)
  part!: number;
}

export interface FileCreatedReply {
  id: string;
}

export interface FileContentPart {
  /** Base64; empty for a file of no bytes. */
  data: string;
  /** The next part's number; null at the end. */
  nextPart: number | null;
}
