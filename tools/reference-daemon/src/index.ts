export * from './daemon-server.ts';
