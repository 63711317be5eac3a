export * from './helm.ts';
export * from './manifests.ts';
export * from './prune.ts';
