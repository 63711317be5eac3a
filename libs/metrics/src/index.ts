export * from './registry.js';
export * from './metrics-server.js';
export * from './batch-metrics.js';
export * from './probe-server.js';
