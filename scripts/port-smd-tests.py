#!/usr/bin/env python3
"""Convert structured-merge-diff v4.6.0 merge/*_test.go test tables into JSON test data.

Usage: scripts/port-smd-tests.py <mirror git dir> <out dir> <test file>...

Each TestCase map (`tests := map[string]TestCase{...}`) in the Go file becomes an entry
{"function", "schema" (the typed.NewParser YAML, or null for the deduced parser), "typeName",
"cases": {name: case}} with Go calls kept as {"call": name, "args": [...]} and composite literals
as {"type": T, "fields": {...}} or lists, for src/machinery/merge/testing/fixture.ts to run.
"""
import json, re, subprocess, sys

def tokenize(src):
    toks = []
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c.isspace():
            i += 1
        elif src.startswith('//', i):
            i = src.index('\n', i) if '\n' in src[i:] else n
        elif c == '`':
            j = src.index('`', i + 1)
            toks.append(('str', src[i + 1:j])); i = j + 1
        elif c == '"':
            j = i + 1
            while src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            toks.append(('str', json.loads(src[i:j + 1]))); i = j + 1
        elif c.isdigit() or (c == '-' and src[i + 1].isdigit()):
            m = re.match(r'-?[0-9.]+', src[i:]); toks.append(('num', float(m.group()) if '.' in m.group() else int(m.group()))); i += len(m.group())
        elif c.isalpha() or c == '_' or c == '[' and src.startswith('[]', i) or c == '*' or c == '&':
            m = re.match(r'[&*]?(\[\])?[A-Za-z_][A-Za-z_0-9.]*(\[[A-Za-z_0-9.]*\]\*?[A-Za-z_0-9.]*)?', src[i:])
            toks.append(('id', m.group())); i += len(m.group())
        else:
            toks.append(('p', c)); i += 1
    return toks

class P:
    def __init__(self, toks): self.t = toks; self.i = 0
    def peek(self, k=0): return self.t[self.i + k] if self.i + k < len(self.t) else ('eof', None)
    def next(self): tok = self.t[self.i]; self.i += 1; return tok
    def expect(self, v):
        tok = self.next()
        assert tok[1] == v, (tok, v, self.t[self.i - 5:self.i + 5])
    def value(self):
        kind, v = self.peek()
        if kind in ('str', 'num'):
            self.next(); return v
        if kind == 'p' and v == '{':
            return self.composite(None)
        if kind == 'id':
            self.next()
            if v in ('true', 'false'): return v == 'true'
            if v == 'nil': return None
            nk, nv = self.peek()
            if nk == 'p' and nv == '(':
                self.next(); args = []
                while self.peek()[1] != ')':
                    args.append(self.value())
                    if self.peek()[1] == ',': self.next()
                self.expect(')')
                return {'call': v, 'args': args}
            if nk == 'p' and nv == '{':
                return self.composite(v)
            return {'ident': v}
        raise Exception(('unexpected', self.peek(), self.t[self.i - 10:self.i + 3]))
    def composite(self, typ):
        self.expect('{')
        fields, items, keyed = {}, [], False
        while self.peek()[1] != '}':
            if self.peek(1)[1] == ':' and self.peek()[0] in ('id', 'str'):
                k = self.next()[1]; self.next(); fields[k] = self.value(); keyed = True
            else:
                items.append(self.value())
            if self.peek()[1] == ',': self.next()
        self.expect('}')
        if keyed:
            return {'type': typ, 'fields': fields}
        return {'type': typ, 'items': items}

def resolve_idents(x, strings):
    if isinstance(x, dict):
        if 'ident' in x and x['ident'] in strings:
            return strings[x['ident']]
        if x.get('call') == 'typed.YAMLObject' and len(x['args']) == 1:
            return resolve_idents(x['args'][0], strings)
        return {k: resolve_idents(v, strings) for k, v in x.items()}
    if isinstance(x, list):
        return [resolve_idents(v, strings) for v in x]
    return x

def dump_vars(mirror, out_dir, f, names):
    """`--vars typed/merge_test.go mergeCases ...`: the named package-level table variables of a typed/ test file."""
    src = subprocess.check_output(['git', '-C', mirror, 'show', 'v4.6.0:' + f], text=True)
    strings = {m.group(1): m.group(2) for m in re.finditer(r'\nvar (\w+) = `(.*?)`', src, re.S)}
    out = {}
    for name in names:
        # A package variable, or a table local to a test function (`\ttriplets := []mergeTriplet{`, named Func.var).
        local = name.split('.')
        if len(local) == 2:
            fm = re.search(r'\nfunc ' + local[0] + r'\(', src)
            m = re.compile(r'\n\t' + local[1] + r' := ([^{\n]*)\{').search(src, fm.end())
        else:
            m = re.search(r'\nvar ' + name + r' = ([^{\n]*)\{', src)
        p = P(tokenize(src[m.end() - 1:]))
        out[name] = resolve_idents(p.composite(m.group(1).strip()), strings)
    base = f.split('/')[-1].replace('_test.go', '')
    with open(f'{out_dir}/typed_{base}.json', 'w') as fh:
        json.dump({'source': f'sigs.k8s.io/structured-merge-diff/v4 {f} (v4.6.0)', 'vars': out}, fh, indent=1)
    print(f, {k: len(v.get('items', [])) for k, v in out.items()})

def main():
    mirror, out_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    if files[0] == '--vars':
        dump_vars(mirror, out_dir, files[1], files[2:])
        return
    parsers = {'DeducedParser': {'schema': None, 'typeName': None}}
    if '--parsers-from' in files:
        at = files.index('--parsers-from'); extra = files[at + 1:]; files = files[:at]
    else:
        extra = []
    for f in extra:
        src = subprocess.check_output(['git', '-C', mirror, 'show', 'v4.6.0:' + f], text=True)
        for m in re.finditer(r'var (\w+) = func\(\) Parser \{(?:(?!\nvar ).)*?typed\.NewParser\(`(.*?)`\)(?:(?!\nvar ).)*?parser\.Type\("(\w+)"\)', src, re.S):
            parsers[m.group(1)] = {'schema': m.group(2), 'typeName': m.group(3)}
    sources = {}
    for f in files:
        src = sources[f] = subprocess.check_output(['git', '-C', mirror, 'show', 'v4.6.0:' + f], text=True).replace('fixture.', '')
        # A parser declared inside the test function (field_level_overrides_test.go).
        for m in re.finditer(r'\n\tvar (\w+) = func\(\) Parser \{(?:(?!\n\}).)*?typed\.NewParser\(`(.*?)`\)(?:(?!\n\}).)*?SameVersionParser\{T: parser\.Type\("(\w+)"\)\}', src, re.S):
            parsers[m.group(1)] = {'schema': m.group(2), 'typeName': m.group(3)}
        for m in re.finditer(r'var (\w+) = func\(\) Parser \{(?:(?!\nvar ).)*?typed\.NewParser\(`(.*?)`\)(?:(?!\nvar ).)*?parser\.Type\("(\w+)"\)', src, re.S):
            parsers[m.group(1)] = {'schema': m.group(2), 'typeName': m.group(3)}
        for m in re.finditer(r'var (\w+) = func\(\) \*typed\.Parser \{(?:(?!\nvar ).)*?typed\.NewParser\(`(.*?)`\)', src, re.S):
            parsers[m.group(1) + '*'] = {'schema': m.group(2), 'typeName': None}
        for m in re.finditer(r'var (\w+) = func\(\) Parser \{((?:(?!\nvar ).)*?)\n\}\(\)', src, re.S):
            nm = re.search(r'typed\.NewParser\(`(.*?)`\)', m.group(2), re.S)
            if nm is not None and 'return parser' in m.group(2):
                parsers[m.group(1) + '*'] = {'schema': nm.group(1), 'typeName': None}
    for f in files:
        src = sources[f]
        entries = []
        for m in re.finditer(r'func ([tT]est\w+)\(t \*testing\.T(?:, v1, v2, v3 fieldpath\.APIVersion)?\) \{\n(?:\tvar \w+ = func\(\) Parser \{.*?\n\t\}\(\)\n\n)?\ttests := map\[string\]TestCase(\{.*?\n\t\})\n(.*?)\n\}\n', src, re.S):
            body = m.group(3)
            cm = re.search(r'(renamingConverter)\{(\w+)\}', body)
            if cm is not None and cm.group(2) + '*' in parsers:
                parser = {**parsers[cm.group(2) + '*'], 'typeName': None, 'converter': cm.group(1)}
                cases = P(tokenize(m.group(2))).composite('map')['fields']
                entries.append({'function': m.group(1), **parser, 'versionCombinations': ', v1, v2, v3' in m.group(0).split('\n')[0], 'cases': cases})
                continue
            pm = re.search(r'\.Test\((\w+)\)', body)
            sm = re.search(r'\.Test\(SameVersionParser\{T: (\w+)\.Type\("(\w+)"\)\}\)', body)
            if sm is not None and sm.group(1) + '*' in parsers:
                parser = {**parsers[sm.group(1) + '*'], 'typeName': sm.group(2)}
            elif pm is not None and pm.group(1) in parsers:
                parser = parsers[pm.group(1)]
            elif pm is not None and pm.group(1) + '*' in parsers:
                # A *typed.Parser used as the fixture's Parser: each operation's APIVersion names its type.
                parser = {**parsers[pm.group(1) + '*'], 'typeName': None, 'typePerVersion': True}
            else:
                print('skip', f, m.group(1), file=sys.stderr); continue
            cases = P(tokenize(m.group(2))).composite('map')['fields']
            named = {k[:-1]: v['schema'] for k, v in parsers.items() if k.endswith('*')}
            used = {k: v for k, v in named.items() if ('"ident": "%s"' % k) in json.dumps(cases)}
            entries.append({'function': m.group(1), **parser, 'expectError': '== nil' in body, **({'namedParsers': used} if used else {}), 'cases': cases})
        name = f.split('/')[-1].replace('_test.go', '')
        with open(f'{out_dir}/{name}.json', 'w') as fh:
            json.dump({'source': f'sigs.k8s.io/structured-merge-diff/v4 {f} (v4.6.0)', 'tests': entries}, fh, indent=1)
        print(f, [(e['function'], len(e['cases'])) for e in entries])

main()
