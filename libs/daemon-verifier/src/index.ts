export * from './invoke-message.js';
export * from './jwks-key-source.js';
export * from './nonce-store.js';
export * from './daemon-verifier.js';
