/**
 * `--token-auth-file`. Ports k8s.io/apiserver pkg/authentication/token/tokenfile/tokenfile_test.go
 * (v0.33.9): TestTokenFile (its 8 tokens: plain lines, quoted and unquoted groups, columns after the
 * fourth ignored, an unknown token), TestBadTokenFile, TestInsufficientColumnsTokenFile and
 * TestEmptyTokenTokenFile. Upstream's users without a fourth column have nil groups; ours have `[]`.
 * The last cases follow tokenfile.go's `NewCSV` (a duplicate token: the last line wins; `\r\n` line
 * ends and malformed quoting as encoding/csv reads them).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_AUDIENCES, type UserInfo } from './index.js';
import { parseTokenFile, tokenFileAuthenticator } from './tokenfile.js';

const dir = mkdtempSync(join(tmpdir(), 'tokenfile-test-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;

/** newWithContents: the contents written to a fresh file, and that file's authenticator. */
function newWithContents(contents: string): ReturnType<typeof tokenFileAuthenticator> {
  const path = join(dir, `tokens-${String(files++)}.csv`);
  writeFileSync(path, contents);
  return tokenFileAuthenticator(path);
}

describe('tokenfile (tokenfile_test.go TestTokenFile)', () => {
  const contents = `
token1,user1,uid1
token2,user2,uid2
token3,user3,uid3,"group1,group2"
token4,user4,uid4,"group2"
token5,user5,uid5,group5
token6,user6,uid6,group5,otherdata
token7,user7,uid7,"group1,group2",otherdata
`;
  const cases: { token: string; user?: UserInfo }[] = [
    { token: 'token1', user: { username: 'user1', uid: 'uid1', groups: [] } },
    { token: 'token2', user: { username: 'user2', uid: 'uid2', groups: [] } },
    { token: 'token3', user: { username: 'user3', uid: 'uid3', groups: ['group1', 'group2'] } },
    { token: 'token4', user: { username: 'user4', uid: 'uid4', groups: ['group2'] } },
    { token: 'token5', user: { username: 'user5', uid: 'uid5', groups: ['group5'] } },
    { token: 'token6', user: { username: 'user6', uid: 'uid6', groups: ['group5'] } },
    { token: 'token7', user: { username: 'user7', uid: 'uid7', groups: ['group1', 'group2'] } },
    { token: 'token8' },
  ];
  const auth = newWithContents(contents);
  for (const c of cases) {
    test(`${c.token}: ${c.user ? c.user.username : 'not found'}`, async () => {
      const res = await auth.authenticateToken(c.token);
      if (!c.user) {
        assert.equal(res, undefined);
        return;
      }
      assert.deepEqual(res, { user: c.user, audiences: [...API_AUDIENCES] });
    });
  }

  test('parseTokenFile gives the same users by token', () => {
    const tokens = parseTokenFile(contents, 'tokens.csv');
    assert.deepEqual(
      [...tokens.keys()],
      cases.filter((c) => c.user).map((c) => c.token),
    );
    for (const c of cases) assert.deepEqual(tokens.get(c.token), c.user);
  });

  test('a token is audience-agnostic: valid for the API audiences asked, not for others', async () => {
    assert.deepEqual((await auth.authenticateToken('token1', ['other', ...API_AUDIENCES]))?.audiences, [...API_AUDIENCES]);
    assert.equal(await auth.authenticateToken('token1', ['other']), undefined);
  });

  test("the user answered is a copy: changing its groups does not change the file's", async () => {
    const first = await auth.authenticateToken('token3');
    first?.user.groups.push('mutated');
    assert.deepEqual((await auth.authenticateToken('token3'))?.user.groups, ['group1', 'group2']);
  });
});

describe('tokenfile errors (tokenfile_test.go)', () => {
  test('TestBadTokenFile: a line with fewer than 3 columns fails the whole file', () => {
    const contents = `
token1,user1,uid1
token2,user2,uid2
token3,user3
token4
`;
    assert.throws(() => newWithContents(contents), /must have at least 3 columns \(token, user name, user uid\), found 2$/);
    assert.throws(() => parseTokenFile(contents, '/etc/tokens.csv'), {
      message: "token file '/etc/tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    });
  });

  test('TestInsufficientColumnsTokenFile: the message names the file and the columns found', () => {
    assert.throws(() => parseTokenFile('token4\n', '/etc/kubernetes/tokens.csv'), {
      message: "token file '/etc/kubernetes/tokens.csv' must have at least 3 columns (token, user name, user uid), found 1",
    });
    const path = join(dir, 'insufficient.csv');
    writeFileSync(path, 'token4\n');
    assert.throws(() => tokenFileAuthenticator(path), { message: `token file '${path}' must have at least 3 columns (token, user name, user uid), found 1` });
  });

  test('TestEmptyTokenTokenFile: an empty token is not recorded', async () => {
    assert.equal(parseTokenFile(',user5,uid5\n', 'tokens.csv').size, 0);
    assert.equal(await newWithContents(',user5,uid5\n').authenticateToken(''), undefined);
  });

  test('an unreadable file fails', () => {
    assert.throws(() => tokenFileAuthenticator(join(dir, 'missing.csv')), { code: 'ENOENT' });
  });

  test('unterminated quoting fails, as encoding/csv does', () => {
    assert.throws(() => parseTokenFile('token1,"user1,uid1\n', 'tokens.csv'));
  });
});

describe('tokenfile.go NewCSV details', () => {
  test('of two lines with the same token the last wins', () => {
    assert.deepEqual(parseTokenFile('t,first,1\nt,second,2,g\n', 'tokens.csv').get('t'), { username: 'second', uid: '2', groups: ['g'] });
  });

  test('\\r\\n line ends, and a last line without one', () => {
    const tokens = parseTokenFile('a,ua,1\r\nb,ub,2,"g1,g2"', 'tokens.csv');
    assert.deepEqual(tokens.get('a'), { username: 'ua', uid: '1', groups: [] });
    assert.deepEqual(tokens.get('b'), { username: 'ub', uid: '2', groups: ['g1', 'g2'] });
  });

  test('an empty fourth column is one empty group (strings.Split("", ",") is [""])', () => {
    assert.deepEqual(parseTokenFile('t,u,1,\n', 'tokens.csv').get('t'), { username: 'u', uid: '1', groups: [''] });
  });

  test('an empty file has no tokens', () => {
    assert.equal(parseTokenFile('', 'tokens.csv').size, 0);
  });
});
