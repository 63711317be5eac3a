import { Type } from 'class-transformer';
import { IsDefined, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { Principal } from '../principal.js';

/** Gateway -> inference: one generation of the principal's workspace, by id. */
export class GenerationsGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsString()
  @MinLength(1)
  @MaxLength(128)
  id!: string;
}
