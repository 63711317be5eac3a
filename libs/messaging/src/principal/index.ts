export * from './principal-keys.js';
export * from './principal-token.js';
export * from './principal-signer.js';
export * from './principal-verifier.js';
export * from './outgoing-principal.js';
export * from './usage-principal.js';
export * from './generation-ids.js';
