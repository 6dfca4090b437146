/**
 * Simulated containers: what a container's `command`/`args`/`env` would print, with which exit code,
 * after how long — computed, never executed. Pure (no I/O, no clock): the node simulator uses it to
 * decide when a container of a run-to-completion pod terminates, and the API server to compute
 * `pods/log` from the pod's spec and status.
 *
 * The program is `command` + `args` (Kubernetes replaces the image's ENTRYPOINT/CMD with them; the
 * kubelet first expands `$(VAR)` references from the container's env, `$$(VAR)` escaping —
 * pkg/kubelet/kuberuntime/kuberuntime_container.go `makeContainerCommand` via
 * third_party/forked/golang/expansion). Two shapes are understood:
 * - a shell: `sh -c '<script>'`, `bash -c …`, `/bin/sh -c …` (any path ending in sh/bash/ash/dash/zsh);
 * - a direct argv, run as one simple command (`echo hello`, `sleep 5`).
 *
 * The shell subset: simple commands separated by `;`, newlines, `&&`, `||`; words with 'single' and
 * "double" quotes and backslash escapes; `$VAR`, `${VAR}`, `$?` expansion from env (unquoted ones
 * split on blanks, an empty one dropping out, as with sh's default IFS; no globbing); `NAME=value`
 * assignments; `#` comments. Builtins: `echo` (with `-n`), `printf` (`%s`, `%d`, `%%`, `\n`, `\t`,
 * `\\`; the format is reused while arguments remain, as POSIX printf does), `sleep N` (seconds, may be
 * fractional; `infinity` = never ends), `exit [N]`, `true`, `:`, `false`, and `test`/`[ … ]` (POSIX
 * `test` by argument count: strings, integers, `!`; files never exist; see ./posix-test.ts). Command
 * names may be written with /bin/ or /usr/bin/ (`/usr/bin/test`, `/usr/bin/[`).
 *
 * Anything else is "unknown": an unknown command (e.g. `perl -Mbignum=bpi -wle 'print bpi(20)'`)
 * runs for {@link UNKNOWN_COMMAND_MS} and exits 0 printing nothing; a script using syntax outside the
 * subset (pipes, redirections, `$(…)`, `if`/`for`/`while`…) is one unknown command as a whole. A
 * container without `command`/`args` (the image's own entrypoint) is unknown too. In a pod with
 * restartPolicy Always an unknown command never ends ({@link runPodContainer}): such a pod runs
 * servers — `nginx`, `sh -c 'echo starting; exec app'` — while a program wholly understood there,
 * like `sh -c 'echo hi'`, ends and is restarted by the kubelet, as on a real node.
 *
 * Start-up line: when what ran was unknown commands only — the image's entrypoint, an unknown
 * command, a script outside the subset, or a script none of whose builtins ran — the run prints one
 * line at offset 0 naming the container, its image and the program ({@link startupLine}), so
 * `kubectl logs` of e.g. an nginx pod shows that it started. A script in which a builtin ran (say
 * `date; echo done`) prints only what its builtins print. The line is part of the program's result,
 * so every run (each restart) prints it again.
 *
 * `JOB_COMPLETION_INDEX` is read from env only: the Job controller gives Indexed Job pods an env entry
 * with `valueFrom.fieldRef` on the `batch.kubernetes.io/job-completion-index` annotation, which
 * {@link runPodContainer} resolves from the pod (other `valueFrom` sources — ConfigMaps, Secrets,
 * resources — are empty).
 */

import { runTest } from './posix-test.js';

/** How long an unknown command runs, ms. */
export const UNKNOWN_COMMAND_MS = 1000;

/** The parts of a core/v1 Container this module reads (`name` and `image` only for the start-up line). */
export interface SimContainerSpec {
  name?: string;
  image?: string;
  command?: readonly string[];
  args?: readonly string[];
  env?: ReadonlyArray<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath?: string } } }>;
}

/** The parts of a core/v1 Pod that `fieldRef` env values read (the downward API). */
export interface SimPodFields {
  metadata?: { name?: string; namespace?: string; uid?: string; labels?: Readonly<Record<string, string>>; annotations?: Readonly<Record<string, string>> };
  spec?: { nodeName?: string; serviceAccountName?: string; restartPolicy?: string };
  status?: { podIP?: string; hostIP?: string };
}

/**
 * The value of a downward-API `fieldRef` (pkg/fieldpath `ExtractFieldPathAsString` plus the kubelet's
 * spec/status fields): `metadata.name|namespace|uid`, `metadata.labels['k']`,
 * `metadata.annotations['k']` (how the Job controller hands Indexed pods JOB_COMPLETION_INDEX),
 * `spec.nodeName`, `spec.serviceAccountName`, `status.podIP`, `status.hostIP`; '' for anything else.
 */
export function podFieldValue(pod: SimPodFields, fieldPath: string): string {
  const m = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (m) return pod.metadata?.[m[1] as 'labels' | 'annotations']?.[m[2] as string] ?? '';
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.podIP': pod.status?.podIP,
    'status.hostIP': pod.status?.hostIP,
  };
  return fields[fieldPath] ?? '';
}

/**
 * Runs a container of a pod: HOSTNAME is the pod's name, `fieldRef` env values come from the pod, and
 * under restartPolicy Always (the default) unknown commands never end (a server), elsewhere they run
 * {@link UNKNOWN_COMMAND_MS} (a job step).
 */
export function runPodContainer(pod: SimPodFields, c: SimContainerSpec): ProgramResult {
  const runsToCompletion = pod.spec?.restartPolicy === 'Never' || pod.spec?.restartPolicy === 'OnFailure';
  return runProgram(c, {
    env: { HOSTNAME: pod.metadata?.name ?? '' },
    fieldRef: (path) => podFieldValue(pod, path),
    unknownCommandMs: runsToCompletion ? UNKNOWN_COMMAND_MS : Infinity,
  });
}

/** One line the program wrote: `offsetMs` after the container started; `text` without its newline. */
export interface OutputLine {
  offsetMs: number;
  text: string;
}

/** The outcome of a run. `durationMs` is `Infinity` for a program that never ends (`sleep infinity`). */
export interface ProgramResult {
  output: OutputLine[];
  exitCode: number;
  durationMs: number;
}

/** Options of {@link runProgram}. */
export interface RunOptions {
  /** Variables added before the container's env (e.g. HOSTNAME); the container's env wins. */
  env?: Readonly<Record<string, string>>;
  /** Resolves an env entry's `valueFrom.fieldRef.fieldPath`; without it such entries are empty. */
  fieldRef?: (fieldPath: string) => string;
  /** How long an unknown command runs, ms (default {@link UNKNOWN_COMMAND_MS}; Infinity: it never ends). */
  unknownCommandMs?: number;
}

const SHELLS = /(^|\/)(sh|bash|ash|dash|zsh)$/;

/** Expands `$(VAR)` in a command/args entry from `env`, as the kubelet does; `$$` → `$`; unknown references stay as written. */
export function expandKubeRefs(s: string, env: Readonly<Record<string, string>>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (name === undefined) return '$';
    return Object.hasOwn(env, name) ? (env[name] as string) : m;
  });
}

/** The environment of a container: `extra` then its env (with `$(VAR)` references to earlier entries expanded). */
export function containerEnv(spec: SimContainerSpec, extra: Readonly<Record<string, string>> = {}, fieldRef?: (fieldPath: string) => string): Record<string, string> {
  const env: Record<string, string> = { ...extra };
  for (const e of spec.env ?? []) {
    const path = e.valueFrom?.fieldRef?.fieldPath;
    env[e.name] = path !== undefined ? (fieldRef?.(path) ?? '') : expandKubeRefs(e.value ?? '', env);
  }
  return env;
}

/**
 * Runs a container's program (see the module doc) and returns its output lines, exit code and
 * duration (ms). Never throws: whatever cannot be understood is an unknown command.
 */
export function runProgram(spec: SimContainerSpec, opts: RunOptions = {}): ProgramResult {
  const env = containerEnv(spec, opts.env, opts.fieldRef);
  const argv = [...(spec.command ?? []), ...(spec.args ?? [])].map((a) => expandKubeRefs(a, env));
  const sh = new Shell(env, opts.unknownCommandMs ?? UNKNOWN_COMMAND_MS);
  if (argv.length === 0) {
    sh.unknown();
  } else if (SHELLS.test(argv[0] as string) && argv[1] === '-c' && argv.length >= 3) {
    let script: Command[] | undefined;
    try {
      script = parseScript(argv[2] as string);
    } catch (err) {
      if (!(err instanceof Unsupported)) throw err;
    }
    if (script) sh.run(script);
    else sh.unknown();
  } else {
    sh.simple(argv);
  }
  return sh.result(sh.onlyUnknown() ? startupLine(spec, argv) : undefined);
}

/** Longest program text quoted in a start-up line, characters. */
const STARTUP_PROGRAM_MAX = 200;

/**
 * The line a container whose whole program is unknown prints at offset 0 of each run, so its log
 * shows it ran: `kubeplane: simulated container "web" (image nginx:1.27) started; its image's
 * entrypoint is not simulated`, or for a command `… started; it runs "perl -wle 'print 1'", which is
 * not simulated` (argv shell-quoted, then JSON-quoted so a multi-line script stays one line).
 */
export function startupLine(spec: SimContainerSpec, argv: readonly string[]): string {
  const who = `kubeplane: simulated container${spec.name ? ` ${JSON.stringify(spec.name)}` : ''}${spec.image ? ` (image ${spec.image})` : ''} started`;
  if (argv.length === 0) return `${who}; its image's entrypoint is not simulated`;
  let program = argv.map(shellQuote).join(' ');
  if (program.length > STARTUP_PROGRAM_MAX) program = `${program.slice(0, STARTUP_PROGRAM_MAX)}…`;
  return `${who}; it runs ${JSON.stringify(program)}, which is not simulated`;
}

/** A word as a shell would need it written: as is when plain, else in single quotes. */
function shellQuote(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

// ---- parsing ------------------------------------------------------------------------------------

/** Syntax outside the subset. */
class Unsupported extends Error {}

/** A word: parts that are literal text or variable references (`quoted`: inside "…", not field-split). */
type WordPart = { lit: string } | { ref: string; quoted: boolean };
type Word = WordPart[];
/** A simple command and how it joins the previous one. */
interface Command {
  op: ';' | '&&' | '||';
  words: Word[];
}

const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'function', '{', '}', '!']);

/** Splits a script into simple commands. Throws {@link Unsupported}. */
function parseScript(src: string): Command[] {
  const cmds: Command[] = [];
  let words: Word[] = [];
  let op: Command['op'] = ';';
  let i = 0;
  const end = (next: Command['op']): void => {
    if (words.length > 0) cmds.push({ op, words });
    else if (next !== ';') throw new Unsupported('empty command before an operator');
    words = [];
    op = next;
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (c === ' ' || c === '\t') {
      i++;
    } else if (c === '\n' || c === ';') {
      if (src[i + 1] === ';') throw new Unsupported(';;');
      end(';');
      i++;
    } else if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (src.startsWith('&&', i) || src.startsWith('||', i)) {
      end(src.slice(i, i + 2) as '&&' | '||');
      i += 2;
    } else if ('|&<>()`'.includes(c)) {
      throw new Unsupported(c);
    } else {
      const [word, next] = parseWord(src, i);
      if (words.length === 0 && word.length === 1 && 'lit' in (word[0] as WordPart) && KEYWORDS.has((word[0] as { lit: string }).lit)) {
        throw new Unsupported('compound command');
      }
      words.push(word);
      i = next;
    }
  }
  if (op !== ';' && words.length === 0) throw new Unsupported('trailing operator');
  end(';');
  return cmds;
}

/** Reads one word from `i`; returns it and the index after it. */
function parseWord(src: string, i: number): [Word, number] {
  const parts: WordPart[] = [];
  const lit = (s: string): void => {
    const last = parts[parts.length - 1];
    if (last && 'lit' in last) last.lit += s;
    else parts.push({ lit: s });
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (' \t\n;&|<>()`'.includes(c)) {
      break;
    } else if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) throw new Unsupported('unterminated quote');
      lit(src.slice(i + 1, close)); // '' still makes a word: lit('') adds a part
      i = close + 1;
    } else if (c === '"') {
      i++;
      let any = false;
      while (i < src.length && src[i] !== '"') {
        const d = src[i] as string;
        if (d === '\\' && '"\\$`\n'.includes(src[i + 1] ?? '')) {
          if (src[i + 1] !== '\n') lit(src[i + 1] as string);
          i += 2;
        } else if (d === '$') {
          i = parseRef(src, i, parts, lit, true);
        } else if (d === '`') {
          throw new Unsupported('command substitution');
        } else {
          lit(d);
          i++;
        }
        any = true;
      }
      if (i >= src.length) throw new Unsupported('unterminated quote');
      if (!any) lit('');
      i++;
    } else if (c === '\\') {
      if (src[i + 1] !== '\n') lit(src[i + 1] ?? '');
      i += 2;
    } else if (c === '$') {
      i = parseRef(src, i, parts, lit, false);
    } else {
      lit(c);
      i++;
    }
  }
  return [parts, i];
}

/** Reads `$NAME`, `${NAME}`, `$?`, `$1`… at `i` (a `$`) into `parts`; a lone `$` is literal. */
function parseRef(src: string, i: number, parts: WordPart[], lit: (s: string) => void, quoted: boolean): number {
  const rest = src.slice(i + 1);
  if (rest.startsWith('(')) throw new Unsupported('command substitution');
  const braced = /^\{([A-Za-z_][A-Za-z0-9_]*|[0-9?#@*$])\}/.exec(rest);
  if (braced) {
    parts.push({ ref: braced[1] as string, quoted });
    return i + 1 + braced[0].length;
  }
  if (rest.startsWith('{')) throw new Unsupported('parameter expansion');
  const bare = /^([A-Za-z_][A-Za-z0-9_]*|[0-9?#@*$])/.exec(rest);
  if (bare) {
    parts.push({ ref: bare[1] as string, quoted });
    return i + 1 + bare[0].length;
  }
  lit('$');
  return i + 1;
}

// ---- running ------------------------------------------------------------------------------------

/** Thrown by `exit`: ends the script. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Command names the shell simulates (after /bin/, /usr/bin/ are stripped). */
const BUILTINS = new Set(['echo', 'printf', 'sleep', 'exit', 'true', ':', 'false', 'test', '[']);

class Shell {
  private now = 0;
  private status = 0;
  /** Whether a builtin ran, and an unknown command: together they decide the start-up line. */
  private ranBuiltin = false;
  private ranUnknown = false;
  private readonly lines: OutputLine[] = [];
  /** A line started without its newline yet, and when it started. */
  private partial: OutputLine | undefined;

  constructor(
    private readonly vars: Record<string, string>,
    private readonly unknownCommandMs: number,
  ) {}

  run(script: readonly Command[]): void {
    try {
      for (const cmd of script) {
        if (cmd.op === '&&' && this.status !== 0) continue;
        if (cmd.op === '||' && this.status === 0) continue;
        this.simple(this.expandWords(cmd.words), true);
        if (this.now === Infinity) return;
      }
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      this.status = e.code;
    }
  }

  /** Runs one command (argv already expanded). */
  simple(argv: string[], inScript = false): void {
    if (inScript) {
      // Leading NAME=value words: assignments (alone) or a command's env (ignored: builtins do not read it).
      const assignments: string[] = [];
      while (argv.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0] as string)) assignments.push(argv.shift() as string);
      if (argv.length === 0) {
        for (const a of assignments) this.vars[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
        this.status = 0;
        return;
      }
    }
    const [name = '', ...args] = argv;
    const builtin = name.replace(/^\/(usr\/)?bin\//, '');
    if (BUILTINS.has(builtin)) this.ranBuiltin = true;
    switch (builtin) {
      case 'echo': {
        const noNewline = args[0] === '-n';
        this.write(args.slice(noNewline ? 1 : 0).join(' ') + (noNewline ? '' : '\n'));
        this.status = 0;
        return;
      }
      case 'printf':
        this.write(printf(args));
        this.status = 0;
        return;
      case 'sleep': {
        const secs = args.reduce((sum, a) => sum + sleepSeconds(a), 0);
        if (Number.isNaN(secs)) {
          this.status = 1;
          return;
        }
        this.now += secs * 1000;
        this.status = 0;
        return;
      }
      case 'exit': {
        const code = args[0] === undefined ? this.status : Number.parseInt(args[0], 10);
        const exit = new Exit(Number.isNaN(code) ? 2 : ((code % 256) + 256) % 256);
        if (inScript) throw exit;
        this.status = exit.code;
        return;
      }
      case 'true':
      case ':':
        this.status = 0;
        return;
      case 'false':
        this.status = 1;
        return;
      case 'test':
      case '[':
        this.status = runTest(args, builtin === '[');
        return;
      default:
        this.unknown();
    }
  }

  unknown(): void {
    this.ranUnknown = true;
    this.now += this.unknownCommandMs;
    this.status = 0;
  }

  /** Whether what ran was unknown commands only (the whole program is not simulated). */
  onlyUnknown(): boolean {
    return this.ranUnknown && !this.ranBuiltin;
  }

  /** The run's result; `startup` is put first, at offset 0. */
  result(startup?: string): ProgramResult {
    if (this.partial && this.now !== Infinity) this.lines.push(this.partial);
    if (startup !== undefined) this.lines.unshift({ offsetMs: 0, text: startup });
    return { output: this.lines, exitCode: this.now === Infinity ? 0 : this.status, durationMs: this.now };
  }

  private value(ref: string): string {
    return ref === '?' ? String(this.status) : (this.vars[ref] ?? '');
  }

  /**
   * A command's words expanded into its argv: leading `NAME=value` assignments as one field each;
   * then unquoted expansions are split on blanks and an empty one disappears, as sh's field
   * splitting with the default IFS does (so `[ $UNSET = 1 ]` is `[ = 1 ]`, a usage error).
   */
  private expandWords(words: readonly Word[]): string[] {
    const argv: string[] = [];
    let assigning = true;
    for (const w of words) {
      const first = w[0];
      assigning &&= first !== undefined && 'lit' in first && /^[A-Za-z_][A-Za-z0-9_]*=/.test(first.lit);
      if (assigning) argv.push(w.map((p) => ('lit' in p ? p.lit : this.value(p.ref))).join(''));
      else argv.push(...this.fields(w));
    }
    return argv;
  }

  /** The fields of one word (none for an unquoted empty expansion alone). */
  private fields(word: Word): string[] {
    const out: string[] = [];
    let cur = '';
    let open = false;
    for (const p of word) {
      if ('lit' in p || p.quoted) {
        cur += 'lit' in p ? p.lit : this.value(p.ref);
        open = true;
        continue;
      }
      this.value(p.ref)
        .split(/[ \t\n]+/)
        .forEach((piece, k) => {
          if (k > 0 && open) out.push(cur);
          if (k > 0) [cur, open] = ['', false];
          if (piece !== '') [cur, open] = [cur + piece, true];
        });
    }
    if (open) out.push(cur);
    return out;
  }

  private write(text: string): void {
    const pieces = text.split('\n');
    pieces.forEach((piece, k) => {
      const last = k === pieces.length - 1;
      if (last && piece === '') return;
      const line = this.partial ?? { offsetMs: this.now, text: '' };
      line.text += piece;
      if (last) this.partial = line;
      else {
        this.lines.push(line);
        this.partial = undefined;
      }
    });
  }
}

/** `sleep`'s argument in seconds: `5`, `0.5`, `2s`, `1m`, `1h`, `1d`, `infinity`; NaN if malformed. */
function sleepSeconds(a: string): number {
  if (a === 'infinity' || a === 'inf') return Infinity;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
  if (!m) return Number.NaN;
  return Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as string] ?? 1);
}

/** POSIX printf for `%s`, `%d`, `%%` and the escapes `\n \t \\`; the format is reused while arguments remain. */
export function printf(argv: readonly string[]): string {
  const [format = '', ...args] = argv;
  let out = '';
  let k = 0;
  do {
    let used = false;
    for (let i = 0; i < format.length; i++) {
      const c = format[i] as string;
      if (c === '\\' && i + 1 < format.length) {
        const e = format[++i] as string;
        out += { n: '\n', t: '\t', '\\': '\\', r: '\r' }[e] ?? `\\${e}`;
      } else if (c === '%' && i + 1 < format.length) {
        const f = format[++i] as string;
        if (f === '%') out += '%';
        else if (f === 's') {
          out += args[k++] ?? '';
          used = true;
        } else if (f === 'd' || f === 'i') {
          const n = Number.parseInt(args[k++] ?? '0', 10);
          out += String(Number.isNaN(n) ? 0 : n);
          used = true;
        } else out += `%${f}`;
      } else out += c;
    }
    if (!used) break;
  } while (k < args.length);
  return out;
}
