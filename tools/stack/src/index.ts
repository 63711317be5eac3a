export * from './ports.ts';
export * from './infra.ts';
export * from './stack.ts';
export * from './isolation.ts';
export * from './isolated-run.ts';
export * from './nats-auth.ts';
export * from './nats-cluster.ts';
