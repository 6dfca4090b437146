// ESLint flat config: typescript-eslint's strict type-checked rules, plus the project's own rules:
// real time and randomness are only touched in src/util/clock and src/util/random, and imports point
// down the layers of DESIGN.md (eslint-plugin-import-x: no-restricted-paths, no-cycle).
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import enhancedResolve from 'enhanced-resolve';

/**
 * What each module of src/ may not import (DESIGN.md "Dependency direction"): util and api at the
 * bottom, machinery on them, then storage, client and workqueue, then informers and the API server,
 * then the components (controllers, scheduler, simulated nodes), and cli, which wires everything, on
 * top. The components talk to the API only through client and informers, never to each other.
 */
const ABOVE = {
  util: ['api', 'machinery', 'storage', 'client', 'workqueue', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  api: ['machinery', 'storage', 'client', 'workqueue', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  machinery: ['storage', 'client', 'workqueue', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  storage: ['client', 'workqueue', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  client: ['storage', 'workqueue', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  workqueue: ['storage', 'client', 'informers', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  informers: ['storage', 'apiserver', 'controller', 'scheduler', 'nodes', 'cli'],
  apiserver: ['client', 'workqueue', 'informers', 'controller', 'scheduler', 'nodes', 'cli'],
  controller: ['storage', 'apiserver', 'scheduler', 'nodes', 'cli'],
  scheduler: ['storage', 'apiserver', 'controller', 'nodes', 'cli'],
  nodes: ['storage', 'apiserver', 'controller', 'scheduler', 'cli'],
};

/** Each controller (a folder of src/controller) may use the shared files of src/controller, not another controller. */
const CONTROLLERS = readdirSync(new URL('./src/controller', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'history')
  .map((d) => d.name);

/** How import-x resolves `./x.js` to `./x.ts`, and parses what it follows (no-cycle reads the files imported). */
const resolveSync = enhancedResolve.create.sync({ extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] }, conditionNames: ['import', 'node', 'default'] });

/**
 * An import-x resolver (interface version 3) over enhanced-resolve. import-x 4.7+ ships resolvers with
 * native bindings whose other-platform packages the registry does not serve, which breaks `npm ci`;
 * 4.6 with this pure-JS resolver does not.
 */
const nodeResolver = {
  interfaceVersion: 3,
  name: 'kubeplane-node',
  resolve(source, file) {
    try {
      const path = resolveSync({}, dirname(file), source);
      return path === false ? { found: false } : { found: true, path };
    } catch {
      return { found: false };
    }
  },
};

export const importXSettings = {
  'import-x/resolver-next': [nodeResolver],
  'import-x/extensions': ['.ts', '.js'],
  'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
};

/** The zones of import-x/no-restricted-paths for the layers and the controllers. */
export const layerZones = [
  ...Object.entries(ABOVE).flatMap(([target, from]) =>
    from.map((f) => ({ target: `./src/${target}`, from: `./src/${f}`, message: `src/${target} may not import src/${f} (DESIGN.md: dependency direction).` })),
  ),
  ...CONTROLLERS.flatMap((c) =>
    CONTROLLERS.filter((o) => o !== c).map((o) => ({
      target: `./src/controller/${c}`,
      from: `./src/controller/${o}`,
      message: 'controllers do not import each other; share code through src/controller/*.ts.',
    })),
  ),
  // Test support builds the real API server behind the test fake: only tests may import it (the
  // override below exempts *.test.ts, test/ and src/**/testing/**).
  { target: './src', from: './src/testing', message: 'only tests import src/testing (the real API server behind the test fake).' },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.kubeplane/', '.prof/', 'eslint.config.js', 'scripts/**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    plugins: { 'import-x': importX },
    settings: importXSettings,
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-dynamic-delete': 'off',
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
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
    // Tests and test fixtures wire whatever they test, as cli does.
    files: ['**/*.test.ts', 'test/**', 'src/**/testing/**'],
    rules: {
      'import-x/no-restricted-paths': 'off',
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
