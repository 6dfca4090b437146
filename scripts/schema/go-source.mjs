/**
 * A reader for the declarations of Go API packages (k8s.io/api `types.go` and friends): just enough
 * of the Go grammar (https://go.dev/ref/spec) to list a file's imports, its type declarations with
 * their fields and struct tags, its constants, and the methods declared on its types, each with the
 * doc comment that go/ast would attach to it. Function bodies and `var` initialisers are skipped.
 *
 * Doc comments are returned as go/ast's `CommentGroup.Text()` returns them (the lines gengo hands
 * to kube-openapi as `CommentLines`): `//` and one following space removed, trailing white space
 * removed, leading and trailing blank lines dropped, runs of blank lines collapsed into one.
 */

/** @typedef {{ t: 'ident'|'string'|'raw'|'number'|'punct'|'nl'|'comment', v: string, line: number, own?: boolean }} Token */

/**
 * Splits Go source into tokens. Comments become `comment` tokens (`own` when nothing precedes them
 * on their line); newlines are kept as `nl` tokens because Go ends statements there.
 * @param {string} src
 * @returns {Token[]}
 */
export function tokenize(src) {
  /** @type {Token[]} */
  const out = [];
  let i = 0;
  let line = 1;
  let lineHasCode = false;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') {
      out.push({ t: 'nl', v: '\n', line });
      line++;
      i++;
      lineHasCode = false;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      out.push({ t: 'comment', v: src.slice(i, stop), line, own: !lineHasCode });
      i = stop;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      const text = src.slice(i, end + 2);
      out.push({ t: 'comment', v: text, line, own: !lineHasCode });
      line += text.split('\n').length - 1;
      i = end + 2;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 200));
      out.push({ t: 'ident', v: m[0], line });
      i += m[0].length;
      lineHasCode = true;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9][0-9A-Za-z_.]*/.exec(src.slice(i, i + 100));
      out.push({ t: 'number', v: m[0], line });
      i += m[0].length;
      lineHasCode = true;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out.push({ t: 'string', v: JSON.parse(c === '"' ? src.slice(i, j + 1) : '"?"'), line });
      i = j + 1;
      lineHasCode = true;
    } else if (c === '`') {
      const j = src.indexOf('`', i + 1);
      const text = src.slice(i + 1, j);
      out.push({ t: 'raw', v: text, line });
      line += text.split('\n').length - 1;
      i = j + 1;
      lineHasCode = true;
    } else {
      out.push({ t: 'punct', v: c, line });
      i++;
      lineHasCode = true;
    }
  }
  return out;
}

/**
 * go/ast's CommentGroup.Text() of consecutive `//` lines.
 * @param {string[]} raw the comments as written, `//` included
 * @returns {string[]}
 */
export function commentText(raw) {
  const lines = [];
  for (const c of raw) {
    if (c.startsWith('/*')) {
      lines.push(...c.slice(2, -2).split('\n'));
      continue;
    }
    let s = c.slice(2);
    if (s.startsWith(' ')) s = s.slice(1);
    else if (/^(line |extern |export |[a-z0-9]+:[a-z0-9])/.test(s)) continue; // directives (//go:build, //nolint:…)
    lines.push(s);
  }
  const trimmed = lines.map((l) => l.replace(/\s+$/, ''));
  const out = [];
  for (const l of trimmed) {
    if (l === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(l);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * @typedef {{ kind: 'named', pkg?: string, name: string }
 *   | { kind: 'pointer', elem: GoType }
 *   | { kind: 'slice', elem: GoType }
 *   | { kind: 'array', elem: GoType }
 *   | { kind: 'map', key: GoType, elem: GoType }
 *   | { kind: 'struct', fields: GoField[] }
 *   | { kind: 'interface' }
 *   | { kind: 'func' }} GoType
 * @typedef {{ name: string, embedded: boolean, type: GoType, tag: string, doc: string[], line: number }} GoField
 * @typedef {{ name: string, alias: boolean, type: GoType, doc: string[], line: number }} GoTypeDecl
 * @typedef {{ name: string, type?: GoType, value?: string, doc: string[] }} GoConst
 * @typedef {{ pkgName: string, imports: Map<string, string>, types: GoTypeDecl[], consts: GoConst[], methods: { recv: string, name: string }[] }} GoFile
 */

/**
 * Parses one Go file's declarations.
 * @param {string} src
 * @returns {GoFile}
 */
export function parseGoFile(src) {
  const all = tokenize(src);
  /** Comment groups by the line they end on: consecutive own-line `//` comments. */
  const groups = new Map();
  let current = null;
  for (const tok of all) {
    if (tok.t !== 'comment' || !tok.own) {
      if (tok.t !== 'nl') current = null;
      continue;
    }
    if (current && current.end === tok.line - 1) {
      current.raw.push(tok.v);
      current.end = tok.line + tok.v.split('\n').length - 1;
    } else {
      current = { raw: [tok.v], end: tok.line + tok.v.split('\n').length - 1 };
    }
    groups.set(current.end, current);
  }
  const docAt = (line) => {
    const g = groups.get(line - 1);
    return g ? commentText(g.raw) : [];
  };

  const toks = all.filter((t) => t.t !== 'comment');
  let p = 0;
  const peek = (k = 0) => toks[p + k];
  const next = () => toks[p++];
  const is = (v, k = 0) => peek(k)?.v === v && peek(k)?.t !== 'string' && peek(k)?.t !== 'raw';
  const expect = (v) => {
    const tok = next();
    if (tok?.v !== v) throw new Error(`line ${tok?.line}: expected ${v}, got ${tok?.v}`);
    return tok;
  };
  const skipNl = () => {
    while (peek()?.t === 'nl' || is(';')) p++;
  };
  /** Skips to the end of the statement: the next newline or `;` outside brackets. */
  const skipStatement = () => {
    let depth = 0;
    while (p < toks.length) {
      const tok = peek();
      if (depth === 0 && (tok.t === 'nl' || is(';'))) return;
      if (tok.t === 'punct' && '([{'.includes(tok.v)) depth++;
      if (tok.t === 'punct' && ')]}'.includes(tok.v)) depth--;
      p++;
    }
  };

  /** @returns {GoType} */
  const parseType = () => {
    const tok = next();
    if (tok.v === '*') return { kind: 'pointer', elem: parseType() };
    if (tok.v === '[') {
      if (is(']')) {
        p++;
        return { kind: 'slice', elem: parseType() };
      }
      while (!is(']')) p++;
      p++;
      return { kind: 'array', elem: parseType() };
    }
    if (tok.v === 'map') {
      expect('[');
      const key = parseType();
      expect(']');
      return { kind: 'map', key, elem: parseType() };
    }
    if (tok.v === 'struct') return { kind: 'struct', fields: parseFields() };
    if (tok.v === 'interface') {
      expect('{');
      let depth = 1;
      while (depth > 0) {
        const t = next();
        if (t.v === '{') depth++;
        if (t.v === '}') depth--;
      }
      return { kind: 'interface' };
    }
    if (tok.v === 'func') {
      skipStatement();
      return { kind: 'func' };
    }
    if (tok.t !== 'ident') throw new Error(`line ${tok.line}: unexpected ${tok.v} in a type`);
    if (is('.')) {
      p++;
      return { kind: 'named', pkg: tok.v, name: next().v };
    }
    return { kind: 'named', name: tok.v };
  };

  /** The fields of `struct { … }`, the opening brace being next. @returns {GoField[]} */
  const parseFields = () => {
    expect('{');
    const fields = [];
    for (;;) {
      skipNl();
      if (is('}')) {
        p++;
        return fields;
      }
      const line = peek().line;
      const doc = docAt(line);
      // An embedded field is a (possibly qualified or pointer) type name alone on its line, with a tag.
      const after = (k) => peek(k)?.t === 'nl' || peek(k)?.t === 'raw' || is('}', k) || is(';', k);
      const embedded = is('*') || is('.', 1) || after(1);
      let name;
      let type;
      if (embedded) {
        type = parseType();
        const base = type.kind === 'pointer' ? type.elem : type;
        name = base.name;
      } else {
        name = next().v;
        if (is(',')) throw new Error(`line ${line}: several names in one field declaration are not supported`);
        type = parseType();
      }
      const tag = peek()?.t === 'raw' || peek()?.t === 'string' ? next().v : '';
      fields.push({ name, embedded, type, tag, doc, line });
    }
  };

  /** One `Name [=] Type` spec. @returns {GoTypeDecl} */
  const parseTypeSpec = (doc) => {
    const nameTok = next();
    const alias = is('=');
    if (alias) p++;
    if (is('[') && peek(1)?.t === 'ident' && peek(2)?.t === 'ident') throw new Error(`line ${nameTok.line}: generic types are not supported`);
    return { name: nameTok.v, alias, type: parseType(), doc, line: nameTok.line };
  };

  /** One `Name [Type] [= value]` constant spec; `value` only for a single string literal. @returns {GoConst} */
  const parseConstSpec = (doc) => {
    const name = next().v;
    let type;
    if (!is('=') && peek().t !== 'nl' && !is(')') && !is(';')) type = parseType();
    let value;
    if (is('=')) {
      p++;
      const first = peek();
      skipStatement();
      const last = toks[p - 1];
      if (first === last && first.t === 'string') value = first.v;
    }
    return { name, type, value, doc };
  };

  /** @type {GoFile} */
  const file = { pkgName: '', imports: new Map(), types: [], consts: [], methods: [] };
  const group = (each) => {
    if (is('(')) {
      p++;
      for (;;) {
        skipNl();
        if (is(')')) {
          p++;
          return;
        }
        each(docAt(peek().line));
      }
    }
    each(docAt(toks[p - 1].line));
  };

  while (p < toks.length) {
    skipNl();
    const tok = next();
    if (!tok) break;
    if (tok.v === 'package') {
      file.pkgName = next().v;
    } else if (tok.v === 'import') {
      group(() => {
        const alias = peek().t === 'ident' || is('.') || is('_') ? next().v : undefined;
        const path = next().v;
        file.imports.set(alias ?? path.slice(path.lastIndexOf('/') + 1), path);
      });
    } else if (tok.v === 'type') {
      group((doc) => file.types.push(parseTypeSpec(doc)));
    } else if (tok.v === 'const') {
      group((doc) => file.consts.push(parseConstSpec(doc)));
    } else if (tok.v === 'func') {
      if (is('(')) {
        // A method: func (r T) Name(…) or func (r *T) Name(…).
        p++;
        while (!is(')')) p++;
        const recv = toks[p - 1].v;
        p++;
        file.methods.push({ recv, name: peek().v });
      }
      skipFunc();
    } else {
      skipStatement();
    }
  }
  return file;

  /** Skips a function's signature and body. */
  function skipFunc() {
    let depth = 0;
    while (p < toks.length) {
      const t = next();
      if (t.t !== 'punct') continue;
      if (t.v === '(' || t.v === '[') depth++;
      else if (t.v === ')' || t.v === ']') depth--;
      else if (t.v === '{' && depth === 0) {
        let braces = 1;
        while (braces > 0) {
          const b = next();
          if (b.t === 'punct' && b.v === '{') braces++;
          if (b.t === 'punct' && b.v === '}') braces--;
        }
        return;
      }
    }
  }
}

/**
 * The value of `key` in a Go struct tag (reflect.StructTag.Get): `json:"name,omitempty"` → `name,omitempty`.
 * @param {string} tag
 * @param {string} key
 * @returns {string | undefined}
 */
export function tagValue(tag, key) {
  const m = new RegExp(`(?:^|\\s)${key}:"((?:[^"\\\\]|\\\\.)*)"`).exec(tag);
  return m ? m[1] : undefined;
}
