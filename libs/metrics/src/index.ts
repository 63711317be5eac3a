export * from './registry.js';
export * from './metrics-server.js';
export * from './batch-metrics.js';
