export * from './services.ts';
export * from './migrate.ts';
export { generateClients } from './generate.ts';
