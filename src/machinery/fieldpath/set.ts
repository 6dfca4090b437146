/**
 * Sets of fields, the unit of ownership in server-side apply. Follows sigs.k8s.io/structured-merge-diff/v4
 * fieldpath/set.go (v4.6.0): a set is a tree whose nodes hold their member elements and, for each
 * element with members below it, a child set. Being a child does not make an element a member:
 * `.spec.replicas` in a set does not put `.spec` in it.
 *
 * Sets built by the operations share subtrees with their operands (as upstream's do); only
 * {@link FieldSet.insert} mutates, so insert into sets you built yourself.
 */
import { compareElements, elementsEqual, PathElementSet, type PathElement } from './element.js';
import { pathString, type Path } from './path.js';
import { at } from './value.js';

/** A child set under a path element. */
interface SetNode {
  readonly pathElement: PathElement;
  readonly set: FieldSet;
}

/** Sorted child sets by path element (SetNodeMap). */
export class SetNodeMap {
  members: SetNode[] = [];

  private search(pe: PathElement): number {
    let lo = 0;
    let hi = this.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareElements(at(this.members, mid).pathElement, pe) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The child set under `pe`, created empty when absent. */
  descend(pe: PathElement): FieldSet {
    const loc = this.search(pe);
    const here = this.members[loc];
    if (here !== undefined && elementsEqual(here.pathElement, pe)) return here.set;
    const set = new FieldSet();
    this.members.splice(loc, 0, { pathElement: pe, set });
    return set;
  }

  /** The child set under `pe`, or undefined. */
  get(pe: PathElement): FieldSet | undefined {
    const here = this.members[this.search(pe)];
    return here !== undefined && elementsEqual(here.pathElement, pe) ? here.set : undefined;
  }

  size(): number {
    return this.members.reduce((n, c) => n + c.set.size(), 0);
  }

  empty(): boolean {
    return this.members.every((c) => c.set.empty());
  }

  equals(other: SetNodeMap): boolean {
    return this.members.length === other.members.length && this.members.every((c, i) => elementsEqual(c.pathElement, at(other.members, i).pathElement) && c.set.equals(at(other.members, i).set));
  }

  /** Call `f` with each child's element, in order. */
  iterate(f: (pe: PathElement) => void): void {
    for (const c of this.members) f(c.pathElement);
  }
}

function nodeMap(members: SetNode[]): SetNodeMap {
  const m = new SetNodeMap();
  m.members = members;
  return m;
}

function newSet(members: PathElementSet, children: SetNodeMap): FieldSet {
  const s = new FieldSet();
  s.members = members;
  s.children = children;
  return s;
}

/** A set of field paths (upstream fieldpath.Set). */
export class FieldSet {
  /** Elements of this node that are themselves in the set. */
  members = new PathElementSet();
  /** Elements with members below them (appearing here does not make an element a member). */
  children = new SetNodeMap();

  /** A set of the given paths (NewSet). */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Add `p` (not its parents). The empty path, the whole object, is never tracked. */
  insert(p: Path): void {
    if (p.length === 0) return;
    if (p.length === 1) {
      this.members.insert(at(p, 0));
      return;
    }
    let s = this.children.descend(at(p, 0));
    for (let i = 1; i < p.length - 1; i++) s = s.children.descend(at(p, i));
    s.members.insert(at(p, p.length - 1));
  }

  /** Whether `p` itself is a member. */
  has(p: Path): boolean {
    if (p.length === 0) return false;
    if (p.length === 1) return this.members.has(at(p, 0));
    let s = this.children.get(at(p, 0));
    if (s === undefined) return false;
    for (let i = 1; i < p.length - 1; i++) {
      s = s.children.get(at(p, i));
      if (s === undefined) return false;
    }
    return s.members.has(at(p, p.length - 1));
  }

  /** The number of members, at every depth. */
  size(): number {
    return this.members.size() + this.children.size();
  }

  /** Whether there is no member at any depth. */
  empty(): boolean {
    return this.members.size() === 0 && this.children.empty();
  }

  /** Same members and same tree. */
  equals(other: FieldSet): boolean {
    return this.members.equals(other.members) && this.children.equals(other.children);
  }

  /** Fields in either. */
  union(other: FieldSet): FieldSet {
    const a = this.children.members;
    const b = other.children.members;
    const out: SetNode[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i).pathElement, at(b, j).pathElement);
      if (c < 0) out.push(at(a, i++));
      else {
        if (c === 0) out.push({ pathElement: at(a, i).pathElement, set: at(a, i++).set.union(at(b, j).set) });
        else out.push(at(b, j));
        j++;
      }
    }
    out.push(...a.slice(i), ...b.slice(j));
    return newSet(this.members.union(other.members), nodeMap(out));
  }

  /** Fields in both. */
  intersection(other: FieldSet): FieldSet {
    const a = this.children.members;
    const b = other.children.members;
    const out: SetNode[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i).pathElement, at(b, j).pathElement);
      if (c < 0) i++;
      else {
        if (c === 0) {
          const res = at(a, i).set.intersection(at(b, j).set);
          if (!res.empty()) out.push({ pathElement: at(a, i).pathElement, set: res });
          i++;
        }
        j++;
      }
    }
    return newSet(this.members.intersection(other.members), nodeMap(out));
  }

  /**
   * Fields in this set and not in `other`; a parent minus its child keeps the parent, a child minus
   * its parent keeps the child. This set itself when nothing is taken away, so callers can tell an
   * unchanged set by identity.
   */
  difference(other: FieldSet): FieldSet {
    return this.withDifference(this.members.difference(other.members), this.childrenDifference(other, false));
  }

  /** Like {@link difference}, but a member of `other` removes everything below it too (`a.b.c` minus `a.b` is empty). */
  recursiveDifference(other: FieldSet): FieldSet {
    return this.withDifference(this.members.difference(other.members), this.childrenDifference(other, true));
  }

  /** The set of these members and children, or this set when they are its own (a difference took nothing). */
  private withDifference(members: PathElementSet, children: SetNodeMap): FieldSet {
    return children === this.children && members.size() === this.members.size() ? this : newSet(members, children);
  }

  private childrenDifference(other: FieldSet, recursive: boolean): SetNodeMap {
    const a = this.children.members;
    const b = other.children.members;
    const out: SetNode[] = [];
    const dropped = (n: SetNode): boolean => recursive && other.members.has(n.pathElement);
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i).pathElement, at(b, j).pathElement);
      if (c < 0) {
        if (!dropped(at(a, i))) out.push(at(a, i));
        i++;
      } else {
        if (c === 0) {
          if (!dropped(at(a, i))) {
            const diff = recursive ? at(a, i).set.recursiveDifference(at(b, j).set) : at(a, i).set.difference(at(b, j).set);
            if (diff === at(a, i).set) out.push(at(a, i));
            else if (!diff.empty()) out.push({ pathElement: at(a, i).pathElement, set: diff });
          }
          i++;
        }
        j++;
      }
    }
    for (; i < a.length; i++) if (!dropped(at(a, i))) out.push(at(a, i));
    // Every child kept as it was: the same map, so an unchanged difference is this set itself.
    return out.length === a.length && out.every((n, k) => n === a[k]) ? this.children : nodeMap(out);
  }

  /** Only the leaf paths: members that have no children (Set.Leaves). */
  leaves(): FieldSet {
    const members = new PathElementSet();
    members.members = this.members.members.filter((m) => this.children.get(m) === undefined);
    return newSet(members, nodeMap(this.children.members.map((c) => ({ pathElement: c.pathElement, set: c.set.leaves() }))));
  }

  /** The subset below `pe`, without the prefix (Set.WithPrefix); empty when there is none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? new FieldSet();
  }

  /** This set moved under `prefix`: every member `p` becomes `prefix + p`. */
  prefixed(prefix: Path): FieldSet {
    if (this.empty()) return new FieldSet();
    let s = newSet(this.members, this.children);
    for (let i = prefix.length - 1; i >= 0; i--) {
      s = newSet(new PathElementSet(), nodeMap([{ pathElement: at(prefix, i), set: s }]));
    }
    return s;
  }

  /** Call `f` with each member's path, pre-order: a node's members, then its children in order (Set.Iterate). */
  iterate(f: (p: Path) => void): void {
    this.iteratePrefix([], f);
  }

  private iteratePrefix(prefix: PathElement[], f: (p: Path) => void): void {
    for (const m of this.members.members) f([...prefix, m]);
    for (const c of this.children.members) c.set.iteratePrefix([...prefix, c.pathElement], f);
  }

  /** Every member's path, in {@link iterate} order. */
  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  /** One path per line, as upstream's Set.String. */
  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

/** Removes paths from a set (upstream fieldpath.Filter); filters never mutate their input. */
export type FieldFilter = (set: FieldSet) => FieldSet;

/** A filter removing the paths of `exclude` and everything below them (NewExcludeSetFilter). */
export function excludeSetFilter(exclude: FieldSet): FieldFilter {
  return (set) => set.recursiveDifference(exclude);
}
