/**
 * The layering of DESIGN.md is enforced by lint (issue 10): these run ESLint with the project's own
 * zones (eslint.config.js `layerZones`) on imports that break them, and on a cycle, and expect errors.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { repoRoot } from '../e2e/harness.js';

/** What eslint.config.js exports for the layering rules: the zones (built from the source tree) and import-x's settings. */
interface LayeringConfig {
  layerZones: unknown[];
  importXSettings: Record<string, unknown>;
}

async function layeringConfig(): Promise<LayeringConfig> {
  return (await import(join(repoRoot, 'eslint.config.js'))) as LayeringConfig;
}

/** An ESLint that runs only the layering rules, as eslint.config.js configures them, under `basePath`. */
function eslintFor(basePath: string, zones: unknown[], settings: Record<string, unknown>): ESLint {
  return new ESLint({
    cwd: basePath,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        // import-x 4.6's declared types predate ESLint 9's Plugin type; the runtime object is a plugin.
        plugins: { 'import-x': importX as unknown as ESLint.Plugin },
        settings,
        rules: {
          ...(zones.length > 0 ? { 'import-x/no-restricted-paths': ['error', { basePath, zones }] } : {}),
          'import-x/no-cycle': ['error', { ignoreExternal: true }],
        },
      },
    ],
  });
}

async function errorsOf(eslint: ESLint, code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? ''}: ${m.message}`);
}

describe('the layering lint rules', () => {
  test('an upward or sideways import fails: scheduler → controller, apiserver → client, a controller → another, code → test support', async () => {
    const { layerZones, importXSettings } = await layeringConfig();
    const eslint = eslintFor(repoRoot, layerZones, importXSettings);
    const bad: [string, string, RegExp][] = [
      ["import { ReplicaSetController } from '../controller/replicaset/index.js';\nexport const x = ReplicaSetController;\n", 'src/scheduler/x.ts', /src\/scheduler may not import src\/controller/],
      ["import { newClientset } from '../client/index.js';\nexport const x = newClientset;\n", 'src/apiserver/x.ts', /src\/apiserver may not import src\/client/],
      ["import { ApiServer } from '../apiserver/index.js';\nexport const x = ApiServer;\n", 'src/nodes/x.ts', /src\/nodes may not import src\/apiserver/],
      ["import { DeploymentController } from '../deployment/index.js';\nexport const x = DeploymentController;\n", 'src/controller/replicaset/x.ts', /controllers do not import each other/],
      ["import { SqliteBackend } from '../storage/index.js';\nexport const x = SqliteBackend;\n", 'src/controller/x.ts', /src\/controller may not import src\/storage/],
      ["import { newFakeTransport } from '../testing/index.js';\nexport const x = newFakeTransport;\n", 'src/controller/x.ts', /only tests import src\/testing/],
    ];
    for (const [code, file, want] of bad) {
      const errors = await errorsOf(eslint, code, join(repoRoot, file));
      assert.ok(errors.some((e) => e.startsWith('import-x/no-restricted-paths') && want.test(e)), `${file}: ${errors.join('; ')}`);
    }
    // Downward imports are fine.
    const ok = await errorsOf(eslint, "import { RateLimitingQueue } from '../workqueue/index.js';\nexport const x = RateLimitingQueue;\n", join(repoRoot, 'src/scheduler/x.ts'));
    assert.deepEqual(ok, []);
  });

  test('an import cycle fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-cycle-'));
    try {
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src/a.ts'), "import { b } from './b.js';\nexport const a = () => b;\n");
      writeFileSync(join(dir, 'src/b.ts'), "import { a } from './a.js';\nexport const b = () => a;\n");
      const errors = await errorsOf(eslintFor(dir, [], (await layeringConfig()).importXSettings), "import { b } from './b.js';\nexport const a = () => b;\n", join(dir, 'src/a.ts'));
      assert.ok(errors.some((e) => e.startsWith('import-x/no-cycle')), errors.join('; '));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
