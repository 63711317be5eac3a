import { IsOptional, IsString, MaxLength } from 'class-validator';

/** How much of a client's HTTP-Referer, User-Agent or Origin header a generation records. */
export const CLIENT_HEADER_MAX_LENGTH = 512;

/**
 * The client's `HTTP-Referer` (or `Referer`), `User-Agent` and `Origin` headers, each cut to
 * 512 characters: the gateway sends them with a chat call, its generation's usage event records them.
 */
export class ClientHeaders {
  @IsOptional()
  @IsString()
  @MaxLength(CLIENT_HEADER_MAX_LENGTH)
  httpReferer?: string;

  @IsOptional()
  @IsString()
  @MaxLength(CLIENT_HEADER_MAX_LENGTH)
  userAgent?: string;

  @IsOptional()
  @IsString()
  @MaxLength(CLIENT_HEADER_MAX_LENGTH)
  origin?: string;
}
