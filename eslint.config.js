import { existsSync, readdirSync } from 'node:fs';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettierConfig from 'eslint-config-prettier/flat';

/**
 * Module boundaries, enforced (STYLE.md): an app never imports another app (so a service
 * never reaches another service's Prisma client, which lives inside its app), shared libs
 * never import apps, and only tests may use the testing helpers.
 */
const typeConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:tool', 'type:testing'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:tool', 'type:testing'] },
];

/**
 * Scopes (ADR 0058): a project of one service's scope reaches only its own scope and
 * `scope:shared`; shared code reaches only shared code; tools reach shared code and other
 * tools. Tests may also use the tools (stand-ins, stack) and libs/testing (`scope:testing`),
 * which is made of them.
 */
const serviceScopes = ['gateway', 'inference', 'management', 'batch', 'intern-signing'];
const toolScopes = ['tooling', 'deploy', 'identity', 'simulator', 'daemon', 'testing'].map((scope) => `scope:${scope}`);
const scopeConstraints = (forTests) => [
  ...serviceScopes.map((scope) => ({
    sourceTag: `scope:${scope}`,
    onlyDependOnLibsWithTags: [`scope:${scope}`, 'scope:shared', ...(forTests ? toolScopes : [])],
  })),
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared', ...(forTests ? toolScopes : [])] },
  ...toolScopes.map((scope) => ({ sourceTag: scope, onlyDependOnLibsWithTags: ['scope:shared', ...toolScopes] })),
];

const productionConstraints = [...typeConstraints, ...scopeConstraints(false)];
const testConstraints = [
  ...typeConstraints.map((constraint) =>
    constraint.sourceTag === 'type:app' || constraint.sourceTag === 'type:util' || constraint.sourceTag === 'type:contracts'
      ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing', 'type:tool'] }
      : constraint,
  ),
  ...scopeConstraints(true),
];

const boundaries = (depConstraints) => ({
  '@nx/enforce-module-boundaries': [
    'error',
    { enforceBuildableLibDependency: false, allow: [], depConstraints, banTransitiveDependencies: false },
  ],
});

const specFiles = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/spec-helpers.ts', '**/src/e2e/**/*.ts'];

/**
 * Type-aware rules (ADR 0058): promises that nobody awaits or that are passed where a void
 * callback is expected, `await` on non-promises, and switches that miss a member of a union.
 * Each project is parsed with its type-check config (`tsconfig.spec.json`, or `tsconfig.json`
 * where that is the type-check config): it covers production code and specs alike, so an
 * unawaited `expect(...).rejects` is caught, and it resolves workspace libs to their source,
 * so lint does not wait for any build.
 */
const typeCheckedRules = {
  '@typescript-eslint/no-floating-promises': 'error',
  '@typescript-eslint/no-misused-promises': 'error',
  '@typescript-eslint/await-thenable': 'error',
  '@typescript-eslint/switch-exhaustiveness-check': 'error',
};
const tsconfigRootDir = import.meta.dirname;
const typeAwareProjects = ['apps', 'libs', 'tools'].flatMap((group) =>
  readdirSync(new URL(`./${group}`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`),
);
const typeAware = typeAwareProjects.map((root) => {
  const spec = `${root}/tsconfig.spec.json`;
  const project = existsSync(new URL(`./${spec}`, import.meta.url)) ? spec : `${root}/tsconfig.json`;
  return {
    files: [`${root}/**/*.ts`],
    // A bench perf script imports libs with constructor parameter properties, which the bench's
    // erasable-syntax tsconfig refuses; it is run by hand and stays outside the typed program.
    ignores: ['tools/bench/perf/**'],
    languageOptions: { parserOptions: { project, tsconfigRootDir } },
    rules: typeCheckedRules,
  };
});

export default [
  { ignores: ['**/dist/**', '**/node_modules/**', '**/generated/**', '.nx/**', 'bench-results/**', '.stack/**'] },
  ...nx.configs['flat/base'],
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      ...boundaries(productionConstraints),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: specFiles, rules: { ...boundaries(testConstraints), '@typescript-eslint/no-explicit-any': 'off' } },
  ...typeAware,
  // Prettier owns the layout (lint runs `prettier --check` first, .prettierrc.json); what it
  // cannot wrap, comments, is held to the same width here. Long strings stay whole: a message
  // or SQL split over lines is harder to find with grep.
  prettierConfig,
  {
    files: ['**/*.{ts,js,mjs,cjs}'],
    rules: {
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
];
