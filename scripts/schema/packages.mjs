/**
 * Loads the Go API packages the schema is generated from, out of extracted source trees of the
 * k8s.io modules (see scripts/gen-schema.mjs for how to produce them): every GA version (`v1`, `v2`)
 * of k8s.io/api, apimachinery's meta/v1, kube-aggregator's apiregistration/v1, apiextensions-apiserver's
 * apiextensions/v1 and metrics' metrics/v1beta1.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseGoFile } from './go-source.mjs';

/** Packages outside k8s.io/api, by import path. */
export const EXTRA_PACKAGES = [
  'k8s.io/apimachinery/pkg/apis/meta/v1',
  'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1',
  'k8s.io/metrics/pkg/apis/metrics/v1beta1',
];

export const META_V1 = 'k8s.io/apimachinery/pkg/apis/meta/v1';

/**
 * @typedef {import('./go-source.mjs').GoFile} GoFile
 * @typedef {import('./go-source.mjs').GoTypeDecl} GoTypeDecl
 * @typedef {import('./go-source.mjs').GoConst} GoConst
 * @typedef {{ path: string, name: string, group: string, version: string, apiVersion: string,
 *   types: Map<string, { decl: GoTypeDecl, file: GoFile }>, consts: { c: GoConst, file: GoFile }[],
 *   customJSON: Set<string> }} GoPackage
 */

/** Generated and test files carry no API declarations of their own. */
function isSourceFile(name) {
  return name.endsWith('.go') && !name.endsWith('_test.go') && !name.startsWith('zz_generated') && name !== 'generated.pb.go' && !name.endsWith('swagger_doc_generated.go');
}

/**
 * The directory of a k8s.io import path under `src`: `k8s.io/api/core/v1` → `<src>/api/core/v1`.
 * @param {string} src
 * @param {string} importPath
 */
function dirOf(src, importPath) {
  return join(src, importPath.replace(/^k8s\.io\//, ''));
}

/**
 * The declaration of type `name` in one file of a package that is not read whole (their other files
 * hold Go this reader does not need to follow): `typeDeclIn(src, 'k8s.io/apimachinery/pkg/util/intstr',
 * 'intstr.go', 'IntOrString')`.
 * @param {string} src
 * @param {string} importPath
 * @param {string} fileName
 * @param {string} name
 * @returns {GoTypeDecl}
 */
export function typeDeclIn(src, importPath, fileName, name) {
  const decl = parseGoFile(readFileSync(join(dirOf(src, importPath), fileName), 'utf8')).types.find((t) => t.name === name);
  if (!decl) throw new Error(`${importPath}/${fileName} declares no type ${name}`);
  return decl;
}

/**
 * Import paths of every package to read: each `k8s.io/api/<group>/v<N>` (GA versions only) and
 * {@link EXTRA_PACKAGES}.
 * @param {string} src
 */
export function packagePaths(src) {
  const out = [];
  for (const group of readdirSync(join(src, 'api')).sort()) {
    const groupDir = join(src, 'api', group);
    if (!statSync(groupDir).isDirectory()) continue;
    for (const version of readdirSync(groupDir).sort()) {
      if (/^v\d+$/.test(version) && statSync(join(groupDir, version)).isDirectory()) out.push(`k8s.io/api/${group}/${version}`);
    }
  }
  return [...out, ...EXTRA_PACKAGES];
}

/**
 * Reads and indexes one package: its types, constants, the API group (register.go's `GroupName`)
 * and the types that encode themselves (a `MarshalJSON` or `OpenAPISchemaType` method).
 * @param {string} src
 * @param {string} importPath
 * @returns {GoPackage}
 */
export function loadPackage(src, importPath) {
  const dir = dirOf(src, importPath);
  if (!existsSync(dir)) throw new Error(`${dir} is missing: see the header of scripts/gen-schema.mjs`);
  const version = importPath.slice(importPath.lastIndexOf('/') + 1);
  /** @type {GoPackage} */
  const pkg = { path: importPath, name: '', group: '', version, apiVersion: '', types: new Map(), consts: [], customJSON: new Set() };
  let group;
  for (const name of readdirSync(dir).sort()) {
    if (!isSourceFile(name)) continue;
    const file = parseGoFile(readFileSync(join(dir, name), 'utf8'));
    pkg.name = file.pkgName;
    for (const decl of file.types) pkg.types.set(decl.name, { decl, file });
    for (const c of file.consts) {
      pkg.consts.push({ c, file });
      if (c.name === 'GroupName') group = c.value;
    }
    for (const m of file.methods) {
      if (m.name === 'MarshalJSON' || m.name === 'OpenAPISchemaType' || m.name === 'OpenAPIDefinition') pkg.customJSON.add(m.recv);
    }
  }
  if (group === undefined) throw new Error(`${importPath}: no GroupName constant`);
  pkg.group = group;
  pkg.apiVersion = group === '' ? version : `${group}/${version}`;
  return pkg;
}
