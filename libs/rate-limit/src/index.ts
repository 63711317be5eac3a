export * from './limiter-store.js';
export * from './redis-connection.js';
export * from './request-rate.limiter.js';
export * from './rate-limit.module.js';
export * from './key-limiter.js';
