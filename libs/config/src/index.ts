export * from './validate-env.js';
export * from './common-env.js';
export * from './logging.js';
export * from './oidc-env.js';
export * from './redis-env.js';
export * from './key-ring.js';
export * from './envelope-encryption.js';
export * from './response-cache-env.js';
