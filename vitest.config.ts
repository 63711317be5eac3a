import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// One config, three kinds of test, told apart by file name:
//   *.spec.ts      unit, no infrastructure
//   *.int-spec.ts  integration, real NATS and PostgreSQL (isolated databases per run)
//   *.e2e-spec.ts  end to end, the whole stack started from the built services
//   *.cluster-spec.ts  faults under load (NATS, PostgreSQL, Redis), GW_TEST_CLUSTER=1 only
// Workspace libraries resolve to their TypeScript source through the "@gw/source"
// export condition, so unit and integration tests need no build.
const sourceCondition = ['@gw/source', 'module', 'node', 'development|production'];
// Node itself loads the dependencies Vite leaves external, with the SSR conditions: without
// "module", which would pick bundler builds (the AWS SDK's imports files without extensions).
const nodeCondition = sourceCondition.filter((condition) => condition !== 'module');
const ignored = ['**/node_modules/**', '**/dist/**'];

// Inline projects extend this file (plugins, resolve), so they list only what differs.
export default defineConfig({
  plugins: [swc.vite({ tsconfigFile: 'tsconfig.base.json', module: { type: 'es6' } })],
  resolve: { conditions: sourceCondition },
  ssr: { resolve: { conditions: nodeCondition } },
  test: {
    setupFiles: ['reflect-metadata'],
    reporters: process.env.GW_TEST_JSON ? ['default', ['json', { outputFile: process.env.GW_TEST_JSON }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['{apps,libs,tools}/**/*.spec.ts'], exclude: ignored },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['{apps,libs,tools}/**/*.int-spec.ts'],
          exclude: ignored,
          globalSetup: ['libs/testing/src/global-setup/integration.ts'],
          // Waits judge the code, not the machine (2 shared cores at load 20-60): an `expect.poll`
          // without a bound waits 30 s (vitest's default is 1 s), a test 60 s.
          testTimeout: 60_000,
          hookTimeout: 60_000,
          expect: { poll: { timeout: 30_000 } },
        },
      },
      // Faults under load on stacks of their own (issue 36): minutes, so `npm run test:cluster` only.
      ...(process.env.GW_TEST_CLUSTER
        ? [
            {
              extends: true,
              test: {
                name: 'cluster',
                include: ['{apps,libs,tools}/**/*.cluster-spec.ts'],
                exclude: ignored,
                testTimeout: 300_000,
                hookTimeout: 400_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['{apps,libs,tools}/**/*.e2e-spec.ts'],
          exclude: ignored,
          globalSetup: ['libs/testing/src/global-setup/e2e.ts'],
          // Every answer from the gateway is checked against its OpenAPI document (ADR 0053).
          setupFiles: ['apps/api-gateway/src/e2e/openapi-answers.setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          expect: { poll: { timeout: 30_000 } },
          fileParallelism: false,
        },
      },
    ],
  },
});
