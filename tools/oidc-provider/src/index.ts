export * from './accounts.ts';
export * from './server.ts';
export * from './headless-login.ts';
