#!/usr/bin/env node
/**
 * Generates src/api/proto/messages.json, the protobuf message schemas of the Kubernetes API (field
 * numbers, names, types, repetition, and whether gogo-protobuf makes a field a pointer), from the
 * wire definitions that a kubectl binary carries: every k8s.io/api and k8s.io/apimachinery
 * `generated.proto` is compiled into kubectl as a gzipped `FileDescriptorProto` (gogo-protobuf's
 * `proto.RegisterFile`). Run by hand, after `npm run build` (it uses our own wire reader):
 *
 *     node scripts/gen-proto-schema.mjs [path/to/kubectl.1.33]
 *
 * The default binary is `kubectl.1.33` beside the target of `kubectl` on the PATH.
 *
 * Output format (decoded by src/api/proto/schema.ts):
 *   { "source": "<binary name>",
 *     "messages": { "<full message name>": [[<number>, "<json name>", "<type>", "<flags>"], …] } }
 * where <type> is a scalar proto type (`int32`, `int64`, `bool`, `string`, `bytes`, `double`, …), a
 * full message name (`k8s.io.api.core.v1.PodSpec`) or `map:<key type>:<value type>`, and <flags> has
 * `r` for repeated, `p` for a pointer field (gogo `nullable` not false: present on the wire only when
 * set, so a zero value is meaningful) and `i` for a Go struct embedded with `json:",inline"` (its
 * fields appear directly in the parent's JSON; descriptors cannot show this, see INLINE).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync, constants } from 'node:zlib';
import { WireReader, WIRE_BYTES, WIRE_VARINT } from '../dist/src/api/proto/wire.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outFile = join(root, 'src/api/proto/messages.json');

/** Packages served now or soon: stable k8s.io/api groups and the apimachinery types they use. */
const PACKAGE = /^k8s\.io\.(api\.[a-z]+\.v\d+|apimachinery\.pkg\.(apis\.meta\.v1|runtime|runtime\.schema|util\.intstr|api\.resource))$/;

/**
 * Fields that are Go structs embedded with `json:",inline"` (k8s.io/api types.go), e.g. `Volume`'s
 * `VolumeSource`, `Probe`'s `ProbeHandler`, and `runtime.Unknown`'s `TypeMeta`.
 */
const INLINE = new Set([
  'k8s.io.api.core.v1.Volume.volumeSource',
  'k8s.io.api.core.v1.Probe.handler',
  'k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon',
  'k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource',
  'k8s.io.api.core.v1.ConfigMapEnvSource.localObjectReference',
  'k8s.io.api.core.v1.ConfigMapKeySelector.localObjectReference',
  'k8s.io.api.core.v1.ConfigMapProjection.localObjectReference',
  'k8s.io.api.core.v1.ConfigMapVolumeSource.localObjectReference',
  'k8s.io.api.core.v1.SecretEnvSource.localObjectReference',
  'k8s.io.api.core.v1.SecretKeySelector.localObjectReference',
  'k8s.io.api.core.v1.SecretProjection.localObjectReference',
  'k8s.io.api.networking.v1.IngressRule.ingressRuleValue',
  'k8s.io.api.admissionregistration.v1.NamedRuleWithOperations.ruleWithOperations',
  'k8s.io.api.admissionregistration.v1.RuleWithOperations.rule',
  'k8s.io.apimachinery.pkg.runtime.Unknown.typeMeta',
]);

/**
 * Fields whose proto name is not their JSON name (go-to-protobuf takes the name from the field's
 * protobuf struct tag, which a few types spell after the Go name): `UID types.UID json:"uid"
 * protobuf:"…,name=uID"`. Found by comparing every field name with the JSON schema; `DaemonEndpoint.Port`
 * and `FieldsV1.Raw` are spelled so in JSON too.
 */
const JSON_NAMES = new Map([
  ['k8s.io.api.authentication.v1.BoundObjectReference.uID', 'uid'],
  ['k8s.io.api.networking.v1.IngressClassParametersReference.aPIGroup', 'apiGroup'],
  ['k8s.io.api.admissionregistration.v1.MutatingWebhookConfiguration.Webhooks', 'webhooks'],
  ['k8s.io.api.admissionregistration.v1.ValidatingWebhookConfiguration.Webhooks', 'webhooks'],
  ['k8s.io.api.admissionregistration.v1.Validation.Expression', 'expression'],
  ['k8s.io.api.admissionregistration.v1.Variable.Name', 'name'],
  ['k8s.io.api.admissionregistration.v1.Variable.Expression', 'expression'],
]);

/** FieldDescriptorProto.Type numbers → names (google/protobuf/descriptor.proto). */
const TYPES = { 1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 6: 'fixed64', 7: 'fixed32', 8: 'bool', 9: 'string', 11: 'message', 12: 'bytes', 13: 'uint32', 15: 'sfixed32', 16: 'sfixed64', 17: 'sint32', 18: 'sint64' };
/** gogoproto.nullable's extension number. */
const GOGO_NULLABLE = 65001;

/** Decodes a message into `{field: [values]}` (varints as numbers, length-delimited as byte views). */
function fieldsOf(buf) {
  const r = new WireReader(buf);
  const out = {};
  while (!r.eof()) {
    const [no, wt] = r.key();
    let v;
    if (wt === WIRE_VARINT) v = r.varint().lo;
    else if (wt === WIRE_BYTES) v = r.bytes();
    else {
      r.skip(wt);
      continue;
    }
    (out[no] ??= []).push(v);
  }
  return out;
}

const text = (b) => Buffer.from(b).toString('utf8');

function defaultBinary() {
  const kubectl = execFileSync('readlink', ['-f', execFileSync('which', ['kubectl']).toString().trim()]).toString().trim();
  return join(dirname(kubectl), 'kubectl.1.33');
}

/**
 * Every gzipped FileDescriptorProto in the binary whose name ends in generated.proto. Go's gzip writer
 * sets no optional header fields (FLG 0), so the deflate stream starts 10 bytes in; it is inflated raw,
 * because gunzip would run on into the next descriptor when two are adjacent (apidiscovery v2 is
 * followed by v2beta1) and merge their messages.
 */
function descriptors(binary) {
  const bin = readFileSync(binary);
  const files = new Map();
  for (let i = bin.indexOf(0x1f); i >= 0 && i < bin.length - 10; i = bin.indexOf(0x1f, i + 1)) {
    if (bin[i + 1] !== 0x8b || bin[i + 2] !== 0x08 || bin[i + 3] !== 0) continue;
    let data;
    try {
      data = inflateRawSync(bin.subarray(i + 10, i + 1_000_000), { finishFlush: constants.Z_SYNC_FLUSH });
    } catch {
      continue;
    }
    let f;
    try {
      f = fieldsOf(data);
    } catch {
      continue;
    }
    const name = f[1]?.[0];
    if (!(name instanceof Uint8Array) || !text(name).endsWith('generated.proto')) continue;
    files.set(text(name), f);
  }
  return files;
}

function main() {
  const binary = process.argv[2] ?? defaultBinary();
  const messages = {};
  const mapEntries = new Map();
  const pending = [];
  for (const f of descriptors(binary).values()) {
    const pkg = text(f[2][0]);
    if (!PACKAGE.test(pkg)) continue;
    const visit = (buf, prefix) => {
      const m = fieldsOf(buf);
      const full = `${prefix}.${text(m[1][0])}`;
      const isMapEntry = (m[7] ?? []).some((o) => fieldsOf(o)[7]?.[0] === 1);
      const fields = (m[2] ?? []).map((fb) => {
        const fd = fieldsOf(fb);
        const opts = fd[8] ? fieldsOf(fd[8][0]) : {};
        return {
          name: text(fd[1][0]),
          number: fd[3][0],
          repeated: fd[4][0] === 3,
          type: fd[5][0] === 11 ? text(fd[6][0]).replace(/^\./, '') : TYPES[fd[5][0]],
          pointer: opts[GOGO_NULLABLE]?.[0] !== 0,
        };
      });
      if (isMapEntry) mapEntries.set(full, fields);
      else pending.push([full, fields]);
      for (const nested of m[3] ?? []) visit(nested, full);
    };
    for (const mb of f[4] ?? []) visit(mb, pkg);
  }
  for (const [full, fields] of pending.sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    messages[full] = fields.map((fd) => {
      const entry = mapEntries.get(fd.type);
      if (entry) {
        const [k, v] = entry;
        return [fd.number, fd.name, `map:${k.type}:${v.type}`, ''];
      }
      if (fd.type === undefined) throw new Error(`${full}.${fd.name}: unsupported field type`);
      const flags = `${fd.repeated ? 'r' : ''}${fd.pointer && !fd.repeated ? 'p' : ''}${INLINE.has(`${full}.${fd.name}`) ? 'i' : ''}`;
      return [fd.number, JSON_NAMES.get(`${full}.${fd.name}`) ?? fd.name, fd.type, flags];
    });
  }
  const has = (key, name) => messages[key.slice(0, key.lastIndexOf('.'))]?.some((f) => f[1] === name);
  for (const key of INLINE) if (!has(key, key.slice(key.lastIndexOf('.') + 1))) throw new Error(`INLINE entry ${key} not found`);
  for (const [key, name] of JSON_NAMES) if (!has(key, name)) throw new Error(`JSON_NAMES entry ${key} not found`);
  const lines = Object.entries(messages).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
  writeFileSync(outFile, `{"source":${JSON.stringify(basename(binary))},"messages":{\n${lines.join(',\n')}\n}}\n`);
  console.log(`wrote ${outFile}: ${lines.length} messages`);
}

main();
