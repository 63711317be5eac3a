export * from './usage-stream.js';
export * from './usage-event.js';
export * from './usage-event-validator.js';
export * from './usage-stream-consumer.js';
