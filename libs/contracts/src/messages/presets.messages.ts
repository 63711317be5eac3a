import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsObject, Matches, Max, Min, ValidateNested } from 'class-validator';
import { PRESETS_PAGE_SIZE } from '../http/list-presets-query.dto.js';
import { Principal } from '../principal.js';
import { PRESET_SLUG_PATTERN } from './resolve.messages.js';

/** Gateway -> management: a new version of the caller's preset (created at version 1 when new). */
export class PresetsCreateVersionRequest<Body extends object = Record<string, unknown>> {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @Matches(PRESET_SLUG_PATTERN)
  slug!: string;

  /** The chat-completions body as the client sent it; management validates it again and keeps the config fields. */
  @IsObject()
  body!: Body;
}

export class PresetsListRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsInt()
  @Min(0)
  offset!: number;

  @IsInt()
  @Min(1)
  @Max(PRESETS_PAGE_SIZE)
  limit!: number;
}

export class PresetsGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @Matches(PRESET_SLUG_PATTERN)
  slug!: string;
}

export class PresetsVersionsListRequest extends PresetsListRequest {
  @Matches(PRESET_SLUG_PATTERN)
  slug!: string;
}

export class PresetsVersionGetRequest extends PresetsGetRequest {
  @IsInt()
  @Min(1)
  version!: number;
}
