/**
 * Values paired with their schema type, and the walks over them that server-side apply needs:
 * validation (typed/validate.go), the field set of a value (typed/tofieldset.go), the structured
 * merge of an applied configuration into a live object (typed/merge.go), the comparison of two
 * values into added/modified/removed sets (typed/compare.go), the removal or extraction of a set's
 * items (typed/remove.go) and the reconciliation of a recorded set with a changed schema
 * (typed/reconcile_schema.go), all after sigs.k8s.io/structured-merge-diff/v4 v4.6.0.
 *
 * Values are plain JSON; `undefined` stands for upstream's nil (absent), `null` for an explicit null.
 * No walk mutates its inputs.
 */
import { at, FieldSet, elementString, elementsEqual, isMap, PathElementSet, sortKeyFields, valuesEqual, type KeyField, type PathElement, type Value } from '../fieldpath/index.js';
import { DEDUCED_TYPE, findField, mapFieldType, type Atom, type ListAtom, type MapAtom, type ScalarType, type Schema, type TypeRef } from './schema.js';

/** One validation failure at a path (typed.ValidationError). */
export interface ValidationError {
  readonly path: string;
  readonly message: string;
}

/** A list of failures, thrown as one error with upstream's text (typed.ValidationErrors). */
export class ValidationErrors extends Error {
  override readonly name = 'ValidationErrors';
  constructor(readonly errors: readonly ValidationError[]) {
    const one = (e: ValidationError): string => (e.path === '' ? e.message : `${e.path}: ${e.message}`);
    super(errors.length === 1 ? one(at(errors, 0)) : ['errors:', ...errors.map((e) => '  ' + one(e))].join('\n'));
  }
}

function prefixed(errs: ValidationError[], prefix: string): ValidationError[] {
  return errs.map((e) => ({ path: prefix + e.path, message: e.message }));
}

/** True for a map without own keys. */
function isEmpty(m: Record<string, Value>): boolean {
  for (const k in m) if (Object.hasOwn(m, k)) return false;
  return true;
}

/** The one member of a (possibly deduced) atom that applies to `v` (deduceAtom); the atom itself when none does. */
function deduceAtom(a: Atom, v: Value | undefined): Atom {
  if (v === undefined || v === null) return a;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return a.scalar !== undefined ? { scalar: a.scalar } : a;
  if (Array.isArray(v)) return a.list !== undefined ? { list: a.list } : a;
  return a.map !== undefined ? { map: a.map } : a;
}

/** Which handler an atom goes to: map first, then scalar, then list (handleAtom). */
function atomKind(a: Atom): 'map' | 'scalar' | 'list' | undefined {
  if (a.map !== undefined) return 'map';
  if (a.scalar !== undefined) return 'scalar';
  if (a.list !== undefined) return 'list';
  return undefined;
}

function atomsEqual(a: Atom, b: Atom): boolean {
  return a.scalar === b.scalar && a.list === b.list && a.map === b.map;
}

function typeName(tr: TypeRef): string {
  return tr.namedType ?? 'inlined type';
}

/** Which handler `v` goes to under atom `a`: {@link atomKind} of {@link deduceAtom}, without building the atom. */
function deducedKind(a: Atom, v: Value | undefined): 'map' | 'scalar' | 'list' | undefined {
  if (v !== undefined && v !== null) {
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') {
      if (a.scalar !== undefined) return 'scalar';
    } else if (Array.isArray(v)) {
      if (a.list !== undefined) return 'list';
    } else if (a.map !== undefined) return 'map';
  }
  return atomKind(a);
}

/** The message of a scalar that is not of type `t`, undefined when it is (or absent). */
function scalarError(t: ScalarType, v: Value | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  switch (t) {
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goType(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got ${JSON.stringify(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got ${JSON.stringify(v)}`;
    case 'untyped':
      return typeof v === 'object' ? `expected any scalar, got ${JSON.stringify(v)}` : undefined;
  }
}

/**
 * Whether neither side of a scalar merge or comparison is of type `t` (upstream's walkers fail only
 * then, with both sides' errors, `lhs: …` and `rhs: …`, added to `errs`).
 */
function bothScalarsInvalid(t: ScalarType, lhs: Value | undefined, rhs: Value | undefined, errs: ValidationError[]): boolean {
  const l = scalarError(t, lhs);
  const r = scalarError(t, rhs);
  if (l === undefined || r === undefined) return false;
  errs.push({ path: '', message: 'lhs: ' + l }, { path: '', message: 'rhs: ' + r });
  return true;
}

function goType(v: Value): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** The path element of a list item (listItemToPathElement): its keys for a map list, its value for a set. Throws with upstream's text. */
export function listItemToPathElement(schema: Schema, list: ListAtom, child: Value): PathElement {
  if (list.elementRelationship !== 'associative') throw new Error('invalid indexing of non-associative list');
  const keys = list.keys ?? [];
  if (keys.length > 0) {
    if (child === null) throw new Error('associative list with keys may not have a null element');
    if (!isMap(child)) throw new Error('associative list with keys may not have non-map elements');
    const key: KeyField[] = [];
    for (const name of keys) {
      if (Object.hasOwn(child, name)) {
        key.push({ name, value: at(child, name) });
        continue;
      }
      const elem = schema.resolve(list.elementType);
      if (elem === undefined) throw new Error(`couldn't find default value for ${name}: invalid elementType for list`);
      if (elem.map === undefined) throw new Error(`couldn't find default value for ${name}: associative list may not have non-map types`);
      const def = findField(elem.map, name)?.default;
      if (def === undefined || def === null) throw new Error(`associative list with keys has an element that omits key field ${JSON.stringify(name)} (and doesn't have default value)`);
      key.push({ name, value: def });
    }
    return { key: sortKeyFields(key) };
  }
  if (isMap(child)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(child)) throw new Error('not supported: associative list with lists as elements');
  if (child === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { value: child };
}

function tryItemElement(schema: Schema, list: ListAtom, child: Value): PathElement {
  try {
    return listItemToPathElement(schema, list, child);
  } catch {
    return {};
  }
}

function asList(v: Value | undefined): Value[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

function asMap(v: Value | undefined): Record<string, Value> | undefined {
  return isMap(v) ? v : undefined;
}

/** What changed from one value to another (typed.Comparison). */
export interface Comparison {
  readonly removed: FieldSet;
  readonly modified: FieldSet;
  readonly added: FieldSet;
}

/** Whether a comparison found no change. */
export function comparisonIsSame(c: Comparison): boolean {
  return c.removed.empty() && c.modified.empty() && c.added.empty();
}

/** Options of {@link TypedValue.validate}: live objects may carry duplicate list items (upstream typed.AllowDuplicates). */
export interface ValidateOptions {
  readonly allowDuplicates?: boolean;
}

/** A value of a type of a schema (typed.TypedValue). */
export class TypedValue {
  constructor(
    readonly value: Value | undefined,
    readonly schema: Schema,
    readonly typeRef: TypeRef,
  ) {}

  private resolve(tr: TypeRef): Atom {
    const a = this.schema.resolve(tr);
    if (a === undefined) throw new ValidationErrors([{ path: '', message: `schema error: no type found matching: ${typeName(tr)}` }]);
    return a;
  }

  private with(value: Value | undefined): TypedValue {
    return new TypedValue(value, this.schema, this.typeRef);
  }

  /** Check the value against the schema (TypedValue.Validate); throws {@link ValidationErrors} (duplicate list keys, wrong scalar types, undeclared fields). */
  validate(opts: ValidateOptions = {}): void {
    const errs: ValidationError[] = [];
    this.validateNode(this.value, this.typeRef, opts.allowDuplicates === true, [], errs);
    if (errs.length > 0) throw new ValidationErrors(errs);
  }

  /**
   * Validates `v` into `errs`. Every write validates whole objects, so the walk allocates nothing on
   * the way: `path` is a stack of field names (`.name`) and list elements, made a string only for an
   * error.
   */
  private validateNode(v: Value | undefined, tr: TypeRef, allowDuplicates: boolean, path: (string | PathElement)[], errs: ValidationError[]): void {
    const fail = (message: string): void => {
      errs.push({ path: path.map((p) => (typeof p === 'string' ? p : elementString(p))).join(''), message });
    };
    const a = this.schema.resolve(tr);
    if (a === undefined) return fail(`schema error: no type found matching: ${typeName(tr)}`);
    switch (deducedKind(a, v)) {
      case 'map': {
        const t = a.map as MapAtom;
        if (v === undefined || v === null) return;
        const m = asMap(v);
        if (m === undefined) return fail(`expected map, got ${JSON.stringify(v)}`);
        if (t.elementRelationship === 'atomic') return;
        for (const k in m) {
          const ft = mapFieldType(t, k);
          path.push('.' + k);
          if (ft === undefined) fail('field not declared in schema');
          else this.validateNode(m[k], ft, allowDuplicates, path, errs);
          path.pop();
        }
        return;
      }
      case 'scalar': {
        const message = scalarError(a.scalar as ScalarType, v);
        if (message !== undefined) fail(message);
        return;
      }
      case 'list': {
        const t = a.list as ListAtom;
        if (v === undefined || v === null) return;
        const l = asList(v);
        if (l === undefined) return fail(`expected list, got ${JSON.stringify(v)}`);
        if (t.elementRelationship === 'atomic') return;
        const seen = new PathElementSet();
        l.forEach((child, i) => {
          let pe: PathElement;
          try {
            pe = listItemToPathElement(this.schema, t, child);
          } catch (e) {
            fail(`element ${i}: ${(e as Error).message}`);
            return;
          }
          if (seen.has(pe) && !allowDuplicates) fail(`duplicate entries for key ${elementString(pe)}`);
          seen.insert(pe);
          path.push(pe);
          this.validateNode(child, t.elementType, allowDuplicates, path, errs);
          path.pop();
        });
        return;
      }
      case undefined:
        return fail(`schema error: invalid atom: ${tr.namedType !== undefined ? 'named type: ' + tr.namedType : 'inlined'}`);
    }
  }

  /**
   * The fields the value sets (TypedValue.ToFieldSet): every scalar, every list item of a set or map
   * list, every map key that is not a struct field, every atomic list or map, every null or empty
   * map; a struct field holding a non-empty struct is not itself a member.
   */
  toFieldSet(): FieldSet {
    const set = new FieldSet();
    this.fieldSetNode(this.value, this.typeRef, [], set);
    return set;
  }

  private fieldSetNode(v: Value | undefined, tr: TypeRef, path: PathElement[], set: FieldSet): void {
    const atom = deduceAtom(this.resolve(tr), v);
    switch (atomKind(atom)) {
      case 'scalar':
        set.insert(path);
        return;
      case 'list': {
        const t = atom.list as ListAtom;
        if (t.elementRelationship === 'atomic') {
          set.insert(path);
          return;
        }
        const l = asList(v);
        if (l === undefined) return;
        const seen = new PathElementSet();
        const duplicates = new PathElementSet();
        const pes = l.map((child) => tryItemElement(this.schema, t, child));
        for (const pe of pes) {
          if (!seen.has(pe)) seen.insert(pe);
          else if (!duplicates.has(pe)) {
            // A duplicated item is owned whole: its path, none of its fields.
            set.insert([...path, pe]);
            duplicates.insert(pe);
          }
        }
        l.forEach((child, i) => {
          const pe = at(pes, i);
          if (duplicates.has(pe)) return;
          const p = [...path, pe];
          this.fieldSetNode(child, t.elementType, p, set);
          set.insert(p);
        });
        return;
      }
      case 'map': {
        const t = atom.map as MapAtom;
        if (t.elementRelationship === 'atomic') {
          set.insert(path);
          return;
        }
        const m = asMap(v);
        if (m === undefined) return;
        for (const [k, child] of Object.entries(m)) {
          const p = [...path, { fieldName: k }];
          const ft = mapFieldType(t, k);
          if (ft === undefined) throw new ValidationErrors([{ path: elementString({ fieldName: k }), message: 'field not declared in schema' }]);
          this.fieldSetNode(child, ft, p, set);
          if (child === null || (isMap(child) && Object.keys(child).length === 0) || findField(t, k) === undefined) set.insert(p);
        }
        return;
      }
      case undefined:
        return;
    }
  }

  /**
   * Merge `rhs` (an applied configuration) over this value (TypedValue.Merge): scalars, atomic lists
   * and maps take rhs's value; set and map lists merge item by item, keeping rhs's order for its
   * items and this value's items where they were; granular maps merge key by key.
   */
  merge(rhs: TypedValue): TypedValue {
    const errs: ValidationError[] = [];
    const out = this.mergeNode(this.value, rhs.value, this.typeRef, errs);
    if (errs.length > 0) throw new ValidationErrors(errs);
    return this.with(out === undefined ? null : out);
  }

  private mergeNode(lhs: Value | undefined, rhs: Value | undefined, tr: TypeRef, errs: ValidationError[]): Value | undefined {
    if (lhs === undefined && rhs === undefined) {
      errs.push({ path: '', message: 'at least one of lhs and rhs must be provided' });
      return undefined;
    }
    const a = this.schema.resolve(tr);
    if (a === undefined) {
      errs.push({ path: '', message: `schema error: no type found matching: ${typeName(tr)}` });
      return undefined;
    }
    const alhs = deduceAtom(a, lhs);
    const arhs = deduceAtom(a, rhs);
    if (rhs === undefined) return this.mergeAtom(alhs, lhs, rhs, errs);
    if (lhs !== undefined && !atomsEqual(alhs, arhs)) {
      // Types differ: upstream walks the left side too (for its errors) and keeps the right's result.
      this.mergeAtom(alhs, lhs, rhs, errs);
    }
    return this.mergeAtom(arhs, lhs, rhs, errs);
  }

  private mergeAtom(atom: Atom, lhs: Value | undefined, rhs: Value | undefined, errs: ValidationError[]): Value | undefined {
    const leaf = (): Value | undefined => (rhs !== undefined ? rhs : lhs);
    switch (atomKind(atom)) {
      case 'scalar':
        return bothScalarsInvalid(atom.scalar as ScalarType, lhs, rhs, errs) ? undefined : leaf();
      case 'list': {
        const t = atom.list as ListAtom;
        const l = asList(lhs);
        const r = asList(rhs);
        if (t.elementRelationship === 'atomic' || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) return leaf();
        return this.mergeListItems(t, l, r, errs);
      }
      case 'map': {
        const t = atom.map as MapAtom;
        const l = asMap(lhs);
        const r = asMap(rhs);
        if (t.elementRelationship === 'atomic' || ((l === undefined || Object.keys(l).length === 0) && (r === undefined || Object.keys(r).length === 0))) return leaf();
        const out: Record<string, Value> = {};
        const keys = new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})]);
        for (const k of keys) {
          const ft = mapFieldType(t, k);
          if (ft === undefined) {
            errs.push({ path: '.' + k, message: 'field not declared in schema' });
            continue;
          }
          const sub: ValidationError[] = [];
          const v = this.mergeNode(l !== undefined && Object.hasOwn(l, k) ? l[k] : undefined, r !== undefined && Object.hasOwn(r, k) ? r[k] : undefined, ft, sub);
          errs.push(...prefixed(sub, '.' + k));
          if (v !== undefined) out[k] = v;
        }
        return Object.keys(out).length > 0 ? out : undefined;
      }
      case undefined:
        errs.push({ path: '', message: 'schema error: invalid atom: inlined' });
        return undefined;
    }
  }

  /** Index a list's items by path element (indexListPathElements); a duplicated left item maps to null. */
  private indexList(t: ListAtom, list: Value[] | undefined, allowDuplicates: boolean, errs: ValidationError[]): { pes: PathElement[]; observed: ElementMap<Value> } {
    const observed = new ElementMap<Value>();
    const pes: PathElement[] = [];
    (list ?? []).forEach((child, i) => {
      let pe: PathElement;
      try {
        pe = listItemToPathElement(this.schema, t, child);
      } catch (e) {
        errs.push({ path: '', message: `element ${i}: ${(e as Error).message}` });
        return;
      }
      const found = observed.has(pe);
      if (found && !allowDuplicates) {
        errs.push({ path: '', message: `duplicate entries for key ${elementString(pe)}` });
        return;
      }
      observed.set(pe, found ? null : child);
      pes.push(pe);
    });
    return { pes, observed };
  }

  private mergeListItems(t: ListAtom, lhs: Value[] | undefined, rhs: Value[] | undefined, errs: ValidationError[]): Value | undefined {
    const listErrs: ValidationError[] = [];
    const { pes: rhsPEs, observed: observedRHS } = this.indexList(t, rhs, false, listErrs);
    const { pes: lhsPEs, observed: observedLHS } = this.indexList(t, lhs, true, listErrs);
    if (listErrs.length > 0) {
      errs.push(...listErrs);
      return undefined;
    }
    const out: Value[] = [];
    // Items present on both sides, in rhs order: the left side's items are placed around them.
    const sharedOrder = rhsPEs.filter((pe) => observedLHS.has(pe));
    let nextShared = sharedOrder.shift();
    const mergedRHS = new ElementMap<true>();
    // Item-level errors are dropped, as upstream's visitListItems does (its errs are shadowed).
    const item = (pe: PathElement, l: Value | undefined, r: Value | undefined): void => {
      const v = this.mergeNode(l, r, t.elementType, []);
      if (v !== undefined) out.push(v);
    };
    let lI = 0;
    let rI = 0;
    while (lI < lhsPEs.length || rI < rhsPEs.length) {
      if (lI < lhsPEs.length && rI < rhsPEs.length) {
        const pe = at(lhsPEs, lI);
        if (elementsEqual(pe, at(rhsPEs, rI))) {
          mergedRHS.set(pe, true);
          item(pe, observedLHS.get(pe), observedRHS.get(pe));
          lI++;
          rI++;
          nextShared = sharedOrder.shift();
          continue;
        }
        if (observedRHS.has(pe) && nextShared !== undefined && !elementsEqual(nextShared, pe)) {
          lI++;
          continue;
        }
      }
      if (lI < lhsPEs.length) {
        const pe = at(lhsPEs, lI);
        if (!observedRHS.has(pe)) {
          item(pe, at(lhs ?? [], lI), undefined);
          lI++;
          continue;
        } else if (mergedRHS.has(pe)) lI++;
      }
      if (rI < rhsPEs.length) {
        const pe = at(rhsPEs, rI);
        mergedRHS.set(pe, true);
        item(pe, observedLHS.get(pe), observedRHS.get(pe));
        rI++;
        if (nextShared !== undefined && elementsEqual(nextShared, pe)) nextShared = sharedOrder.shift();
      }
    }
    return out.length > 0 ? out : undefined;
  }

  /**
   * What changed from this value to `rhs` (TypedValue.Compare). With `exclude`, the members of
   * `exclude` and everything below them are not compared: the result is the comparison with
   * `exclude`'s paths taken out as `Comparison.FilterFields(NewExcludeSetFilter(exclude))` takes them
   * out (a recursive difference), without walking what it would drop — a `/status` write's spec, say.
   */
  compare(rhs: TypedValue, exclude?: FieldSet): Comparison {
    const c: Comparison = { removed: new FieldSet(), modified: new FieldSet(), added: new FieldSet() };
    const errs: ValidationError[] = [];
    this.compareNode(this.value, rhs.value, this.typeRef, [], c, errs, exclude);
    if (errs.length > 0) throw new ValidationErrors(errs);
    return c;
  }

  private compareNode(lhs: Value | undefined, rhs: Value | undefined, tr: TypeRef, path: PathElement[], c: Comparison, errs: ValidationError[], exclude?: FieldSet): void {
    if (lhs === undefined && rhs === undefined) {
      errs.push({ path: '', message: 'at least one of lhs and rhs must be provided' });
      return;
    }
    // Equal values compare as no change at every depth (the walk below would only find equal leaves);
    // skipping them makes a write's comparison cost what it changed. Upstream walks them anyway, for
    // validation, which the typed conversion before a comparison has already done. Not at the root,
    // which a write always changes: checking there would walk the unchanged parts twice.
    if (lhs !== undefined && rhs !== undefined && (lhs === rhs || (path.length > 0 && valuesEqual(lhs, rhs)))) return;
    const a = this.schema.resolve(tr);
    if (a === undefined) {
      errs.push({ path: '', message: `schema error: no type found matching: ${typeName(tr)}` });
      return;
    }
    const alhs = deduceAtom(a, lhs);
    const arhs = deduceAtom(a, rhs);
    let inLeaf: boolean;
    if (rhs === undefined) inLeaf = this.compareAtom(alhs, lhs, rhs, path, c, errs, exclude);
    else if (lhs === undefined || atomsEqual(alhs, arhs)) inLeaf = this.compareAtom(arhs, lhs, rhs, path, c, errs, exclude);
    else {
      // Types differ: both sides are walked into the same comparison; only the right side's leafness counts (upstream's copied walker).
      this.compareAtom(alhs, lhs, rhs, path, c, errs, exclude);
      inLeaf = this.compareAtom(arhs, lhs, rhs, path, c, errs, exclude);
    }
    if (!inLeaf) {
      if (lhs === undefined) c.added.insert(path);
      else if (rhs === undefined) c.removed.insert(path);
    }
  }

  /** Records the change of a leaf in `c` (added, removed or modified); returns true (a leaf). */
  private compareLeaf(lhs: Value | undefined, rhs: Value | undefined, path: PathElement[], c: Comparison): boolean {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!valuesEqual(rhs, lhs)) c.modified.insert(path);
    return true;
  }

  /** Returns whether the node was a leaf (upstream's inLeaf). */
  private compareAtom(atom: Atom, lhs: Value | undefined, rhs: Value | undefined, path: PathElement[], c: Comparison, errs: ValidationError[], exclude?: FieldSet): boolean {
    switch (atomKind(atom)) {
      case 'scalar':
        return bothScalarsInvalid(atom.scalar as ScalarType, lhs, rhs, errs) ? false : this.compareLeaf(lhs, rhs, path, c);
      case 'list': {
        const t = atom.list as ListAtom;
        const l = asList(lhs);
        const r = asList(rhs);
        if (t.elementRelationship === 'atomic' || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) return this.compareLeaf(lhs, rhs, path, c);
        this.compareListItems(t, l, r, path, c, errs, exclude);
        return false;
      }
      case 'map': {
        const t = atom.map as MapAtom;
        const l = asMap(lhs);
        const r = asMap(rhs);
        if (t.elementRelationship === 'atomic' || ((l === undefined || isEmpty(l)) && (r === undefined || isEmpty(r)))) return this.compareLeaf(lhs, rhs, path, c);
        // Every key once: the left side's in order, then the right side's the left lacks (the order of
        // a Set of both key lists, without building one for every map of every write).
        if (l !== undefined) for (const k of Object.keys(l)) this.compareField(t, k, l, r, path, c, errs, exclude);
        if (r !== undefined) for (const k of Object.keys(r)) if (l === undefined || !Object.hasOwn(l, k)) this.compareField(t, k, l, r, path, c, errs, exclude);
        return false;
      }
      case undefined:
        errs.push({ path: '', message: 'schema error: invalid atom: inlined' });
        return false;
    }
  }

  /** Compares field `k` of two maps (either may lack it) of type `t`. */
  private compareField(t: MapAtom, k: string, l: Record<string, Value> | undefined, r: Record<string, Value> | undefined, path: PathElement[], c: Comparison, errs: ValidationError[], exclude?: FieldSet): void {
    const ft = mapFieldType(t, k);
    if (ft === undefined) {
      errs.push({ path: '.' + k, message: 'field not declared in schema' });
      return;
    }
    const pe = { fieldName: k };
    if (exclude?.members.has(pe)) return;
    const sub: ValidationError[] = [];
    this.compareNode(l !== undefined && Object.hasOwn(l, k) ? l[k] : undefined, r !== undefined && Object.hasOwn(r, k) ? r[k] : undefined, ft, [...path, pe], c, sub, exclude?.children.get(pe));
    if (sub.length > 0) errs.push(...prefixed(sub, '.' + k));
  }

  private compareListItems(t: ListAtom, lhs: Value[] | undefined, rhs: Value[] | undefined, path: PathElement[], c: Comparison, errs: ValidationError[], exclude?: FieldSet): void {
    const allPEs: PathElement[] = [];
    const lValues = new ElementMap<Value[]>();
    const rValues = new ElementMap<Value[]>();
    const index = (list: Value[] | undefined, into: ElementMap<Value[]>, other?: ElementMap<Value[]>): void => {
      (list ?? []).forEach((child, i) => {
        let pe: PathElement;
        try {
          pe = listItemToPathElement(this.schema, t, child);
        } catch (e) {
          errs.push({ path: '', message: `element ${i}: ${(e as Error).message}` });
          return;
        }
        const existing = into.get(pe);
        if (existing !== undefined) existing.push(child);
        else {
          into.set(pe, [child]);
          if (other === undefined || !other.has(pe)) allPEs.push(pe);
        }
      });
    };
    index(lhs, lValues);
    index(rhs, rValues, lValues);
    for (const pe of allPEs) {
      if (exclude?.members.has(pe)) continue;
      const lList = lValues.get(pe) ?? [];
      const rList = rValues.get(pe) ?? [];
      const p = [...path, pe];
      const compareItem = (l: Value | undefined, r: Value | undefined): void => {
        const sub: ValidationError[] = [];
        this.compareNode(l, r, t.elementType, p, c, sub, exclude?.children.get(pe));
        if (sub.length > 0) errs.push(...prefixed(sub, elementString(pe)));
      };
      if (lList.length === 0 && rList.length === 0) return;
      if (lList.length <= 1 && rList.length <= 1) compareItem(lList[0], rList[0]);
      else if (lList.length >= 2 && rList.length >= 2) {
        if (lList.length !== rList.length || !lList.every((v, i) => valuesEqual(v, at(rList, i)))) c.modified.insert(p);
      } else if (lList.length >= 2) {
        if (rList.length !== 0) compareItem(undefined, rList[0]);
        c.removed.insert(p);
      } else {
        if (lList.length !== 0) compareItem(lList[0], undefined);
        c.added.insert(p);
      }
    }
  }

  /** The value without the items of `toRemove` (TypedValue.RemoveItems); an emptied list or map becomes absent. */
  removeItems(toRemove: FieldSet): TypedValue {
    const out = this.removeNode(this.value, toRemove, this.typeRef, false);
    return this.with(out === undefined ? null : out);
  }

  /**
   * Only the items of `items` (TypedValue.ExtractItems), as client-go's Extract* builds an apply
   * configuration from what a manager owns. `appendKeyFields` adds the key fields of every list-map
   * item on the way to an extracted path, so the result can be applied again.
   */
  extractItems(items: FieldSet, opts: { appendKeyFields?: boolean } = {}): TypedValue {
    let set = items;
    if (opts.appendKeyFields === true) {
      const own = this.toFieldSet();
      const keyFields = new FieldSet();
      items.iterate((path) => {
        if (!own.has(path)) return;
        path.forEach((pe, i) => {
          for (const k of pe.key ?? []) keyFields.insert([...path.slice(0, i + 1), { fieldName: k.name }]);
        });
      });
      set = items.union(keyFields);
    }
    const out = this.removeNode(this.value, set, this.typeRef, true);
    return this.with(out === undefined ? null : out);
  }

  /** removingWalker: remove (or, with `extract`, keep only) the items of `toRemove`. */
  private removeNode(v: Value | undefined, toRemove: FieldSet, tr: TypeRef, extract: boolean): Value | undefined {
    const a = this.schema.resolve(tr);
    if (a === undefined) return undefined;
    const atom = deduceAtom(a, v);
    const nullIfAbsent = (x: Value | undefined): Value => (x === undefined ? null : x);
    switch (atomKind(atom)) {
      case 'scalar':
        return v;
      case 'list': {
        const t = atom.list as ListAtom;
        const l = asList(v);
        if (l === undefined || l.length === 0) return undefined;
        if (t.elementRelationship === 'atomic') return extract ? v : undefined;
        const items: Value[] = [];
        for (const child of l) {
          const pe = tryItemElement(this.schema, t, child);
          let item = child;
          if (toRemove.has([pe])) {
            if (!extract) continue;
            // Upstream extracts a whole owned item with the full set, then still looks at its children.
            items.push(nullIfAbsent(this.removeNode(child, toRemove, t.elementType, true)));
          }
          const subset = toRemove.withPrefix(pe);
          if (!subset.empty()) item = nullIfAbsent(this.removeNode(child, subset, t.elementType, extract));
          else if (extract) continue;
          items.push(item);
        }
        return items.length > 0 ? items : undefined;
      }
      case 'map': {
        const t = atom.map as MapAtom;
        const m = asMap(v);
        if (m === undefined || Object.keys(m).length === 0) return undefined;
        if (t.elementRelationship === 'atomic') return extract ? v : undefined;
        const out: Record<string, Value> = {};
        for (const [k, child] of Object.entries(m)) {
          const pe = { fieldName: k };
          const ft = mapFieldType(t, k);
          if (toRemove.has([pe])) {
            if (extract) out[k] = ft === undefined ? child : nullIfAbsent(this.removeNode(child, toRemove, ft, true));
            continue;
          }
          const subset = toRemove.withPrefix(pe);
          if (!subset.empty() && ft !== undefined) out[k] = nullIfAbsent(this.removeNode(child, subset, ft, extract));
          else if (!extract) out[k] = child;
        }
        return Object.keys(out).length > 0 ? out : undefined;
      }
      case undefined:
        return undefined;
    }
  }

  /**
   * `s` plus every struct field (named field) that has members below it: `.spec.replicas` brings
   * `.spec`, while a map key's parent map is not added (Set.EnsureNamedFieldsAreMembers). Used when
   * pruning so that a struct a manager no longer applies goes away with its fields.
   */
  ensureNamedFieldsAreMembers(s: FieldSet): FieldSet {
    return ensureNamed(this.schema, s, this.typeRef);
  }
}

function ensureNamed(schema: Schema, s: FieldSet, tr: TypeRef | undefined): FieldSet {
  const atom = tr === undefined ? undefined : schema.resolve(tr);
  const out = new FieldSet();
  out.members = new PathElementSet();
  out.members.members = [...s.members.members];
  for (const c of s.children.members) {
    const name = c.pathElement.fieldName;
    if (name !== undefined && atom?.map !== undefined && findField(atom.map, name) !== undefined) out.members.insert(c.pathElement);
  }
  for (const c of s.children.members) {
    let childType: TypeRef | undefined;
    if (c.pathElement.fieldName !== undefined && atom?.map !== undefined) childType = mapFieldType(atom.map, c.pathElement.fieldName);
    else if (c.pathElement.key !== undefined && atom?.list !== undefined) childType = atom.list.elementType;
    out.children.members.push({ pathElement: c.pathElement, set: ensureNamed(schema, c.set, childType) });
  }
  return out;
}

/** A map keyed by path element (fieldpath.PathElementValueMap), by serialized form. */
class ElementMap<T> {
  private readonly m = new Map<string, T>();

  private static id(pe: PathElement): string {
    // Keys are sorted and values canonical, so the element string identifies it.
    return elementString(pe) + '\u0000' + (pe.fieldName !== undefined ? 'f' : pe.key !== undefined ? 'k' : pe.value !== undefined ? 'v' : 'i');
  }

  has(pe: PathElement): boolean {
    return this.m.has(ElementMap.id(pe));
  }

  get(pe: PathElement): T | undefined {
    return this.m.get(ElementMap.id(pe));
  }

  set(pe: PathElement, v: T): void {
    this.m.set(ElementMap.id(pe), v);
  }
}


/** Whether a map is the deduced type's (no fields, deduced elements): nothing below it to reconcile. */
function isUntypedDeducedMap(m: MapAtom): boolean {
  if (m.fields !== undefined || m.elementType === undefined) return false;
  const et = m.elementType;
  return et.namedType !== undefined ? et.namedType === DEDUCED_TYPE : et.inlined?.scalar === 'untyped';
}

/**
 * A manager's set adjusted to the current schema (typed.ReconcileFieldSetWithSchema): where a list
 * or map became atomic, the paths below it are replaced by the atomic node itself. Returns
 * undefined when nothing changes. Fields the schema no longer has are left alone.
 */
export function reconcileFieldSetWithSchema(fieldSet: FieldSet, tv: TypedValue): FieldSet | undefined {
  // A manager's set usually comes back unchanged write after write (decoded once per stored
  // managedFields entry); its reconciliation depends on the set and the type alone.
  const cached = reconciled.get(fieldSet);
  if (cached !== undefined && cached.schema === tv.schema && sameTypeRef(cached.typeRef, tv.typeRef)) return cached.result;
  const result = reconcileUncached(fieldSet, tv);
  reconciled.set(fieldSet, { schema: tv.schema, typeRef: tv.typeRef, result });
  return result;
}

/** Results of {@link reconcileFieldSetWithSchema} by set (sets are never changed once built). */
const reconciled = new WeakMap<FieldSet, { schema: Schema; typeRef: TypeRef; result: FieldSet | undefined }>();

/** Whether two references name the same type: the same named type, or the same inline atom. */
function sameTypeRef(a: TypeRef, b: TypeRef): boolean {
  if (a.elementRelationship !== b.elementRelationship) return false;
  return a.namedType !== undefined ? a.namedType === b.namedType : a.inlined === b.inlined;
}

function reconcileUncached(fieldSet: FieldSet, tv: TypedValue): FieldSet | undefined {
  const toRemove = new FieldSet();
  const toAdd = new FieldSet();
  let changed = false;
  const errs: string[] = [];
  // The path of the node being walked, as a stack: copied only where a node became atomic.
  const path: PathElement[] = [];
  const walk = (set: FieldSet | undefined, tr: TypeRef, isAtomic: boolean): void => {
    const a = tv.schema.resolve(tr);
    if (a === undefined) {
      errs.push(`could not resolve ${typeName(tr)}`);
      return;
    }
    const becameAtomic = (): void => {
      toRemove.insert([...path]);
      toAdd.insert([...path]);
      changed = true;
    };
    const visit = (element: FieldSet, typeOf: (pe: PathElement) => TypeRef | undefined): void => {
      const handle = (pe: PathElement, isMember: boolean): void => {
        const childType = typeOf(pe);
        if (childType === undefined) return;
        const children = element.children.get(pe);
        path.push(pe);
        walk(children, childType, isMember && children === undefined);
        path.pop();
      };
      element.children.iterate((pe) => {
        if (!element.members.has(pe)) handle(pe, false);
      });
      for (const pe of element.members.members) handle(pe, true);
    };
    if (a.map !== undefined) {
      const m = a.map;
      if (isUntypedDeducedMap(m)) return;
      if (!isAtomic && m.elementRelationship === 'atomic') {
        if (set !== undefined && set.size() > 0) becameAtomic();
        return;
      }
      if (set !== undefined) visit(set, (pe) => (pe.fieldName !== undefined ? mapFieldType(m, pe.fieldName) : m.elementType));
    } else if (a.scalar !== undefined) {
      return;
    } else if (a.list !== undefined) {
      const l = a.list;
      if (!isAtomic && l.elementRelationship === 'atomic') {
        becameAtomic();
        return;
      }
      if (set !== undefined) visit(set, () => l.elementType);
    }
  };
  walk(fieldSet, tv.typeRef, false);
  if (errs.length > 0) throw new Error(`errors reconciling field set with schema: ${errs.join('; ')}`);
  return changed ? fieldSet.recursiveDifference(toRemove).union(toAdd) : undefined;
}
