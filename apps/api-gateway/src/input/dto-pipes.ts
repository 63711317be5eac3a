import type { ArgumentMetadata, PipeTransform, Type } from '@nestjs/common';
import { ChatCompletionRequestDto, validateDto, type UnknownProperties } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { acceptsChatCompletionBody } from './chat-body-acceptor.js';

/** Types that carry no class-validator rules: a parameter declared with one of them was not meant for this pipe. */
const NOT_A_DTO = new Set<unknown>([undefined, Object, String, Number, Boolean, Array]);

export interface DtoPipeOptions {
  /** Fields the DTO does not declare: `keep` (bodies passed on to providers), `reject` (a typo is a 400). */
  unknown: UnknownProperties;
  /**
   * `dto` (default): the validated class instance. `raw`: the value as received, validated but
   * not rebuilt, so fields the gateway does not model reach providers unchanged and the body is
   * not copied (measured cheaper than forwarding the instance). Either way it has the DTO's shape.
   */
  returns?: 'dto' | 'raw';
  /** An absent body (no bytes, or `DELETE` without one) counts as `{}` rather than a 400. */
  absentAsEmpty?: boolean;
  /** `metadata.reason` of the 400, for routes whose errors carry one (interns, spec §7.2). */
  reason?: string;
  /**
   * Compiled acceptors per DTO class, for `returns: 'raw'` only: one that says yes
   * passes the body on without class-validator; one that says no (a refusal, or a shape it does
   * not model) leaves the decision and the 400 to class-validator, as without it.
   */
  acceptors?: ReadonlyMap<Type<object>, (value: unknown) => boolean>;
}

/**
 * Validates a `@Body()` or `@Query()` against the class the handler declares for it
 * (`@Body(PassThroughBody) body: ChatCompletionRequestDto`), so the handler signature is the
 * contract: what is validated here is what `@nestjs/swagger` documents.
 * The class must be imported as a value (not `import type`): a parameter without runtime
 * type metadata is a programming error, answered 500, never an unvalidated body.
 */
export class DtoPipe implements PipeTransform {
  constructor(private readonly options: DtoPipeOptions) {}

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype as Type<object> | undefined;
    if (NOT_A_DTO.has(type))
      throw new Error(`DtoPipe on a ${metadata.type} parameter without a DTO class (use a value import of the class)`);
    const input = value == null && this.options.absentAsEmpty ? {} : value;
    // Accepted by the compiled subset of the rules: the same body `validateDto` would pass on (raw).
    if (this.options.returns === 'raw' && this.options.acceptors?.get(type!)?.(input) === true) return input;
    try {
      const dto = await validateDto(type!, input, this.options.unknown);
      return this.options.returns === 'raw' ? input : dto;
    } catch (error) {
      const reason = this.options.reason;
      if (reason && error instanceof GatewayError && error.status === 400) {
        throw new GatewayError(400, error.message, { metadata: { reason, retryable: false } });
      }
      throw error;
    }
  }
}

/** A body forwarded to a provider: unknown fields pass on, the received object is forwarded as is. */
export const PassThroughBody = new DtoPipe({
  unknown: 'keep',
  returns: 'raw',
  acceptors: new Map([[ChatCompletionRequestDto, acceptsChatCompletionBody]]),
});
/** A body the gateway reads field by field: unknown fields are a 400; an absent body is a 400. */
export const StrictBody = new DtoPipe({ unknown: 'reject' });
/** As `StrictBody`, but an absent body is `{}` (writes whose every field is optional). */
export const StrictBodyOrEmpty = new DtoPipe({ unknown: 'reject', absentAsEmpty: true });
/** A query string: unknown parameters are a 400. */
export const StrictQuery = new DtoPipe({ unknown: 'reject' });
