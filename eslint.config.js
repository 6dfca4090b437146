// ESLint flat config: typescript-eslint's strict type-checked rules, plus the project's own rule that
// real time and randomness are only touched in src/util/clock and src/util/random (DESIGN.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.kubeplane/', '.prof/', 'eslint.config.js', 'scripts/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-dynamic-delete': 'off',
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']", message: 'Use the Clock (src/util/clock).' },
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Use the Clock (src/util/clock).' },
        { selector: "CallExpression[callee.name='setTimeout']", message: 'Use the Clock (src/util/clock).' },
        { selector: "CallExpression[callee.name='setInterval']", message: 'Use the Clock (src/util/clock).' },
        { selector: "CallExpression[callee.object.name='Math'][callee.property.name='random']", message: 'Use a Rand (src/util/random).' },
      ],
    },
  },
  {
    files: ['src/util/clock/**', 'src/util/random/**', 'bench/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      // client-node's typed APIs accept plain object literals for its model classes.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
);
