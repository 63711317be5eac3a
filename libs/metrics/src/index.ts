export * from './registry.js';
export * from './metrics-server.js';
