export * from './provided-context.js';
export * from './round-trip.js';
export * from './fixtures.js';
export {
  createTestDatabases,
  DEV_CATALOG_PATHS,
  dropTestDatabases,
  IsolatedStackRun,
  type IsolatedStack,
  POSTGRES_URL,
  PrivateNatsCluster,
  PrivateNatsNode,
  PrivateNatsServer,
  PrivateRedisServer,
  TcpRelay,
  runPrefix,
  testDatabaseNames,
  testDatabaseUrl,
} from '@gw/stack';
export * from './minimal-pdf.js';
