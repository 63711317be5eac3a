import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries, enforced (STYLE.md): an app never imports another app (so a service
 * never reaches another service's Prisma client, which lives inside its app), shared libs
 * never import apps, and only tests may use the testing helpers.
 */
const productionConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:tool', 'type:testing'] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:tool', 'type:testing'] },
];

const testConstraints = productionConstraints.map((constraint) =>
  constraint.sourceTag === 'type:app' || constraint.sourceTag === 'type:util' || constraint.sourceTag === 'type:contracts'
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing', 'type:tool'] }
    : constraint,
);

const boundaries = (depConstraints) => ({
  '@nx/enforce-module-boundaries': [
    'error',
    { enforceBuildableLibDependency: false, allow: [], depConstraints, banTransitiveDependencies: false },
  ],
});

const specFiles = ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', '**/spec-helpers.ts', '**/src/e2e/**/*.ts'];

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
];
