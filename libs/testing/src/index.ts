export * from './nats-server.js';
export * from './test-databases.js';
