import { IsOptional, IsString, MinLength, NotContains } from 'class-validator';
import { ChatCompletionParamsDto } from './chat-completion-request.dto.js';

/**
 * Body of `POST /v1/presets/{slug}/chat/completions` (spec §4.6): a chat-completions body
 * with every bound of a completion. `messages` is required (min 1) although only its system
 * message is kept; `model` is optional, since a preset may leave it to the request.
 */
export class PresetChatRequestDto extends ChatCompletionParamsDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @NotContains('@preset/', { message: 'model may not name another preset' })
  model?: string;
}
