/**
 * How many times a request to inference whose replica died before it called the provider is
 * sent to another replica; once the provider was called it is never resent.
 */
export const INFERENCE_RESENDS = 2;
