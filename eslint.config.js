// ESLint flat config: typescript-eslint type-checked rules on src, test, bench and examples.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/**/*.mjs', '.ci/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  // Plain scripts the tests spawn with node (they import the built package): linted without type information.
  { files: ['eslint.config.js', 'test/**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['test/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly' } } },
);
