/**
 * `--token-auth-file`: static bearer tokens from a CSV file, one per line:
 * `token,user,uid[,"group1,group2"]` (columns after the fourth are ignored).
 *
 * Upstream (v1.33): k8s.io/apiserver pkg/authentication/token/tokenfile/tokenfile.go (`NewCSV`: a line
 * with fewer than three columns fails the whole file; an empty token is skipped; of two lines with
 * the same token the last wins). Tokens are compared by map lookup, as upstream's are; the file is
 * read once at start.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { tokenMapAuthenticator, type TokenAuthenticator, type UserInfo } from './index.js';

/**
 * The users of the token file's text, by token. `path` only names the file in errors.
 * @throws Error `token file '<path>' must have at least 3 columns (token, user name, user uid), found N`,
 *   or the CSV parser's error for malformed quoting.
 */
export function parseTokenFile(text: string, path: string): Map<string, UserInfo> {
  const records: string[][] = parse(text, { relaxColumnCount: true, skipEmptyLines: true });
  const tokens = new Map<string, UserInfo>();
  for (const record of records) {
    if (record.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, username, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') continue;
    tokens.set(token, { username, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/**
 * The authenticator of a `--token-auth-file`. Its tokens are audience-agnostic: valid for the API
 * audiences among those asked (authenticator/audiences.go).
 * @throws Error when the file cannot be read or parsed ({@link parseTokenFile}).
 */
export function tokenFileAuthenticator(path: string): TokenAuthenticator {
  return tokenMapAuthenticator(parseTokenFile(readFileSync(path, 'utf8'), path));
}
