/*
 * The signed-invocation protocol between the gateway and a daemon: header names and the exact
 * bytes that are signed. The gateway signs with these functions and the verifier checks with
 * them, so there is one definition; the README states the same format for other languages.
 */

export const INVOKE_HEADERS = {
  signature: 'x-ori-invoke-signature',
  timestamp: 'x-ori-invoke-timestamp',
  user: 'x-ori-invoke-user',
  keyId: 'x-ori-invoke-key-id',
  nonce: 'x-ori-invoke-nonce',
  signatureV2: 'x-ori-invoke-signature-v2',
} as const;

/** Lower-case hex SHA-256 of the exact request body bytes. */
export const BODY_SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** An HTTP method token, upper case (RFC 9110 allows more; daemons see these). */
export const ROUTE_METHOD_PATTERN = /^[A-Z]{1,16}$/;
/** The request target as sent on the request line: starts with `/`, printable ASCII without spaces. */
export const ROUTE_PATH_PATTERN = /^\/[\x21-\x7e]{0,2047}$/;

export interface InvokeV1Fields {
  internId: string;
  /** Decimal Unix seconds, exactly as sent in `x-ori-invoke-timestamp`. */
  timestamp: string;
  user: string;
  bodySha256: string;
}

export interface InvokeV2Fields extends InvokeV1Fields {
  nonce: string;
  method: string;
  path: string;
}

const encoder = new TextEncoder();

/** UTF-8 of `ori-invoke-v1\n<internId>\n<timestamp>\n<user>\n<bodySha256>`. */
export function invokeMessageV1(fields: InvokeV1Fields): Uint8Array {
  return encoder.encode(['ori-invoke-v1', fields.internId, fields.timestamp, fields.user, fields.bodySha256].join('\n'));
}

/** UTF-8 of `ori-invoke-v2\n<internId>\n<timestamp>\n<nonce>\n<user>\n<METHOD>\n<path>\n<bodySha256>`. */
export function invokeMessageV2(fields: InvokeV2Fields): Uint8Array {
  return encoder.encode(
    ['ori-invoke-v2', fields.internId, fields.timestamp, fields.nonce, fields.user, fields.method, fields.path, fields.bodySha256].join(
      '\n',
    ),
  );
}

/** A field that would change the message's line structure cannot be signed or verified. */
export function isSingleLine(value: string): boolean {
  return !/[\r\n]/.test(value);
}
