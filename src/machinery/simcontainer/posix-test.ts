/**
 * The shell's `test` / `[ … ]` builtin, as the POSIX `test` utility specifies it
 * (https://pubs.opengroup.org/onlinepubs/9799919799/utilities/test.html) and dash/busybox run it:
 * exit status 0 when the expression is true, 1 when it is false, 2 on a usage error.
 *
 * Evaluated by the number of arguments, as POSIX's table says:
 * - 0: false. 1: true iff the argument is non-empty.
 * - 2: `! s` (true iff s is empty); a unary primary `-z s`, `-n s`; the file primaries (`-e`, `-f`,
 *   `-d`, `-r`, `-s`, `-x`… and `-t fd`) are always false: a simulated container has no files nor a
 *   terminal. Anything else is a usage error.
 * - 3: a binary primary `s1 = s2`, `s1 == s2`, `s1 != s2` (strings), `n1 -eq|-ne|-lt|-le|-gt|-ge n2`
 *   (integers: optional leading whitespace and sign, trailing whitespace, as dash's `getn` accepts;
 *   anything else is a usage error), `e1 -a e2`/`e1 -o e2` (each one-argument expression); else
 *   `! a b` (negated two-argument test); else `( s )`.
 * - 4: `! a b c` (negated three-argument test); `( a b )`.
 * - More arguments (longer `-a`/`-o` chains, nested parentheses): not simulated, a usage error (2).
 *   POSIX marks `-a`, `-o` and parentheses obsolescent; scripts use `[ … ] && [ … ]` instead.
 *
 * The error messages dash writes to stderr (`[: missing ]`, `bad number`) are not printed.
 */

/** Exit status of `test`/`[`: true, false, usage error. */
const TRUE = 0;
const FALSE = 1;
const USAGE = 2;

/** A usage error inside the evaluation. */
class Usage extends Error {}

const FILE_PRIMARIES = new Set(['-b', '-c', '-d', '-e', '-f', '-g', '-h', '-L', '-p', '-r', '-S', '-s', '-t', '-u', '-w', '-x']);
const INT_PRIMARIES = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const BINARY_PRIMARIES = new Set(['=', '==', '!=', '-a', '-o', ...INT_PRIMARIES]);

/**
 * Runs `test` (`bracket` false) or `[` (`bracket` true: the last argument must be `]`) with `args`
 * (the words after the command name). Returns the exit status: 0 true, 1 false, 2 usage error.
 * Never throws.
 */
export function runTest(args: readonly string[], bracket: boolean): number {
  let a = args;
  if (bracket) {
    if (a[a.length - 1] !== ']') return USAGE;
    a = a.slice(0, -1);
  }
  try {
    return evaluate(a) ? TRUE : FALSE;
  } catch (err) {
    if (err instanceof Usage) return USAGE;
    throw err;
  }
}

/** The truth of an expression of 0–4 arguments (POSIX's table). @throws Usage */
function evaluate(a: readonly string[]): boolean {
  const [a0 = '', a1 = '', a2 = ''] = a;
  switch (a.length) {
    case 0:
      return false;
    case 1:
      return a0 !== '';
    case 2:
      if (a0 === '!') return a1 === '';
      return unary(a0, a1);
    case 3:
      if (BINARY_PRIMARIES.has(a1)) return binary(a0, a1, a2);
      if (a0 === '!') return !evaluate(a.slice(1));
      if (a0 === '(' && a2 === ')') return a1 !== '';
      throw new Usage(`${a1}: unexpected operator`);
    case 4:
      if (a0 === '!') return !evaluate(a.slice(1));
      if (a0 === '(' && a[3] === ')') return evaluate(a.slice(1, 3));
      throw new Usage('unexpected operator');
    default:
      throw new Usage('too many arguments');
  }
}

function unary(op: string, s: string): boolean {
  if (op === '-z') return s === '';
  if (op === '-n') return s !== '';
  if (FILE_PRIMARIES.has(op)) return false;
  throw new Usage(`${op}: unexpected operator`);
}

function binary(l: string, op: string, r: string): boolean {
  switch (op) {
    case '=':
    case '==':
      return l === r;
    case '!=':
      return l !== r;
    case '-a':
      return l !== '' && r !== '';
    case '-o':
      return l !== '' || r !== '';
    default: {
      const x = integer(l);
      const y = integer(r);
      return { '-eq': x === y, '-ne': x !== y, '-lt': x < y, '-le': x <= y, '-gt': x > y, '-ge': x >= y }[op] ?? false;
    }
  }
}

/** An integer operand as dash's `getn` reads it (whitespace around, a sign). @throws Usage ("bad number") */
function integer(s: string): bigint {
  const m = /^\s*([+-]?\d+)\s*$/.exec(s);
  if (!m) throw new Usage(`${s}: bad number`);
  return BigInt(m[1] as string);
}
