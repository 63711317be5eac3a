export * from './request-context.js';
export * from './tracing.js';
export * from './propagation.js';
export * from './log-context.js';
export * from './genai.js';
