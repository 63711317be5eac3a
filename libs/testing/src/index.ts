export * from './provided-context.js';
export * from './nats-server.js';
export * from './test-databases.js';
export * from './round-trip.js';
