// Lint: typescript-eslint's recommended rules, house style, and the layer rule (scripts/eslint/layers.mjs).
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint/layers.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'e2e/agents/**', 'release/**', 'test-results/**', 'playwright-report/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,cts,mts,js,mjs}'],
    plugins: { baton: layers },
    rules: {
      'baton/layers': 'error',
      curly: ['error', 'all'],
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
