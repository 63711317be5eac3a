import type { PipeTransform } from '@nestjs/common';
import { KEY_HASH_PATTERN } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

/** `{hash}` in a path: a string that cannot be a hash names no key, 404 (the status the spec lists for keys). */
export const KeyHashParam: PipeTransform<string, string> = {
  transform(hash) {
    if (!KEY_HASH_PATTERN.test(hash)) throw GatewayError.notFound('No API key with that hash');
    return hash;
  },
};
