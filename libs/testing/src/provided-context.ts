/** What the global setups hand to tests through Vitest's `inject()`. */
export interface E2eStack {
  baseUrl: string;
  managementKey: string;
  apiKey: string;
  simulatorUrl: string;
  workspaceId: string;
  logDir: string;
  natsUrl: string;
  managementDatabaseUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Integration: prefix of the run's databases. */
    databasePrefix: string;
    /** Integration: URL of the run's nats-server. */
    natsUrl: string;
    /** End to end: the running stack. */
    stack: E2eStack;
  }
}
