export * from './helm.ts';
export * from './manifests.ts';
