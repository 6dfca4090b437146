import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writePrivateFile } from './private-files.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

/**
 * A kill during a write must leave the old file or the new one, never an empty or torn one (an empty
 * `token` locked every client out of the restarted kubeplane). That holds if the new content goes to
 * another file that replaces the old one in one rename, so the old file is never opened for writing:
 * a hard link to it still reads the old content afterwards. Writing in place fails this.
 */
test('writePrivateFile replaces the file by a rename, never rewriting it in place', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-private-'));
  try {
    const path = join(dir, 'token');
    writePrivateFile(path, 'old\n');
    linkSync(path, join(dir, 'old-inode'));
    writePrivateFile(path, 'new\n');
    assert.equal(readFileSync(join(dir, 'old-inode'), 'utf8'), 'old\n', 'the old file was not touched');
    assert.equal(readFileSync(path, 'utf8'), 'new\n');
    assert.equal(mode(path), 0o600);
    assert.deepEqual(readdirSync(dir).sort(), ['old-inode', 'token'], 'no temporary file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('writePrivateFile writes over the torn, readable .tmp a killed write left; the file is 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-private-'));
  try {
    const path = join(dir, 'server.key');
    writeFileSync(`${path}.tmp`, '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEG', { mode: 0o644 });
    writePrivateFile(path, 'complete\n');
    assert.equal(readFileSync(path, 'utf8'), 'complete\n');
    assert.equal(mode(path), 0o600);
    assert.deepEqual(readdirSync(dir), ['server.key']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
