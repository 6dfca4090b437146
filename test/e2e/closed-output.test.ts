/**
 * A `kubeplane up` whose output pipes are closed (their reader, say `| head`, is gone) still stops
 * cleanly, instead of spinning on the failed writes of its own error reports; a failed write to them
 * stops it, as a Go component dies of SIGPIPE.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeDataDir, repoRoot } from './harness.js';

describe('closed output', { timeout: 60_000 }, () => {
  test('kubeplane up stops when its stdout and stderr pipes close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-e2e-'));
    const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), 'up', '--port', '0', '--data-dir', dataDir, '--nodes', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const killOnExit = (): void => void child.kill('SIGKILL');
    process.once('exit', killOnExit);
    try {
      let out = '';
      await new Promise<void>((ok, fail) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('kubeplane is ready')) ok();
        });
        child.once('exit', (code) => fail(new Error(`exited ${code} before it was ready`)));
      });
      const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
      child.stdout.destroy();
      child.stderr.destroy();
      // Its 'stopping' line cannot be written: before, each failed write was reported as an uncaught
      // error, whose report failed too, and the process spun on them and never stopped.
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      process.off('exit', killOnExit);
      child.kill('SIGKILL');
      removeDataDir(dataDir);
    }
  });
});
