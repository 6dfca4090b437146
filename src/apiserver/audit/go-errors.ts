/** Go's `*fs.PathError` text (`open /var/log/audit.log: permission denied`) for node's file-system errors. */
export function goPathError(op: string, path: string, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const text: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    EROFS: 'read-only file system',
  };
  const why = typeof code === 'string' ? text[code] : undefined;
  if (why === undefined) return err instanceof Error ? err.message : String(err);
  // Go reads a directory successfully with open and fails on read.
  return `${code === 'EISDIR' && op === 'open' ? 'read' : op} ${path}: ${why}`;
}
