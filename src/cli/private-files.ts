/**
 * The data directory is private: it holds the database (every object, Secrets included), the bearer
 * token, the kubeconfig and the CA and serving keys. kubeplane makes the directory 0700 and every file
 * it writes there 0600, also when an older kubeplane left them more open (0755/0644), as kubeadm keeps
 * `/etc/kubernetes/pki` keys and admin.conf private.
 */
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';

/** Owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Owner read/write/search only. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `dir` (and missing parents) if needed and sets it to 0700. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Writes `data` to `path` with mode 0600, atomically: into `<path>.tmp`, flushed to disk, then renamed
 * over `path`. A process killed at any point (SIGKILL, OOM, power loss) leaves `path` as it was or
 * complete, never empty or cut short. Writing `path` in place truncates it first, and a kill between the
 * truncate and the write left an empty `token`, with which the restarted kubeplane accepted no request
 * (kubectl asks for a username), or a torn serving key it could not serve TLS with. (`openSync`'s mode
 * applies only to a new file, and `.tmp` may be one a killed write left, hence the chmod.)
 */
export function writePrivateFile(path: string, data: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', PRIVATE_FILE_MODE);
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, PRIVATE_FILE_MODE);
  renameSync(tmp, path);
}

/** Sets 0600 on each of `paths` that exists. */
export function makePrivate(...paths: string[]): void {
  for (const path of paths) if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}
