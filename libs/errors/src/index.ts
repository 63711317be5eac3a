export * from './error-types.js';
export * from './gateway-error.js';
export * from './rpc-error.js';
export * from './envelope.js';
export * from './database-unavailable.js';
