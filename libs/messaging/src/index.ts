export * from './nats-connection.js';
export * from './rpc-client.js';
export * from './rpc-exception.filter.js';
export * from './payload-validation.pipe.js';
export * from './service-bootstrap.js';
export * from './health.js';
export * from './validate-dto.js';
export * from './nats-server.strategy.js';
