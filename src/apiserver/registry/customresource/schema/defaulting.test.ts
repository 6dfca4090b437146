/**
 * Tests of defaulting: the table of upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/defaulting/algorithm_test.go (TestDefault).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults } from './defaulting.js';
import type { Structural } from './structural.js';

// Ported from TestDefault (defaulting/algorithm_test.go, v0.33.9): [name, json, schema, expected].
const cases: [string, string, Structural | undefined, string][] = [
["empty", "null", undefined, "null"],
["scalar", "4", {
  default: "foo",
}, "4"],
["scalar array", "[1,2]", {
  items: {
    default: "foo",
  },
}, "[1,2]"],
["object array", `[{"a":1},{"b":1},{"c":1}]`, {
  items: {
    properties: {
      "a": {
        default: "A",
      },
      "b": {
        default: "B",
      },
      "c": {
        default: "C",
      },
    },
  },
}, `[{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}]`],
["object array object", `{"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}}`, {
  properties: {
    "array": {
      items: {
        properties: {
          "a": {
            default: "A",
          },
          "b": {
            default: "B",
          },
        },
      },
    },
    "object": {
      properties: {
        "a": {
          default: "N",
        },
        "b": {
          default: "O",
        },
      },
    },
    "additionalProperties": {
      additionalProperties: {
        structural: {
          properties: {
            "a": {
              default: "alpha",
            },
            "b": {
              default: "beta",
            },
          },
        },
      },
    },
    "foo": {
      default: "bar",
    },
  },
}, `{"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},"additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"}`],
["empty and null", `[{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}]`, {
  items: {
    properties: {
      "a": {
        default: "A",
      },
    },
  },
}, `[{"a":"A"},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":"A"},{"a":[]},{"a":{}}]`],
["null in nullable list", `[null]`, {
  nullable: true,
  items: {
    properties: {
      "a": {
        default: "A",
      },
    },
  },
}, `[null]`],
["null in non-nullable list", `[null]`, {
  nullable: false,
  items: {
    default: "A",
  },
}, `["A"]`],
["null in nullable object", `{"a": null}`, {
  
  properties: {
    "a": {
      nullable: true,
        default:  "A",
    },
  },
}, `{"a": null}`],
["null in non-nullable object", `{"a": null}`, {
  properties: {
    "a": {
      nullable: false,
        default:  "A",
    },
  },
}, `{"a": "A"}`],
["null in nullable object with additionalProperties", `{"a": null}`, {
  additionalProperties: {
    structural: {
      nullable: true,
        default:  "A",
    },
  },
}, `{"a": null}`],
["null in non-nullable object with additionalProperties", `{"a": null}`, {
  additionalProperties: {
    structural: {
      nullable: false,
        default:  "A",
    },
  },
}, `{"a": "A"}`],
["null unknown field", `{"a": null}`, {
  additionalProperties: {
    bool: true,
  },
}, `{"a": null}`],
];

describe('applyDefaults (upstream TestDefault)', () => {
  for (const [name, json, schema, expected] of cases) {
    it(name, () => {
      const obj: unknown = JSON.parse(json);
      applyDefaults(obj, schema);
      assert.deepEqual(obj, JSON.parse(expected));
    });
  }

  it('gives each object its own deep copy of a default', () => {
    const s: Structural = { items: { properties: { a: { default: { nested: [1] } } } } };
    const obj = [{}, {}] as { a: { nested: number[] } }[];
    applyDefaults(obj, s);
    obj[0]?.a.nested.push(2);
    assert.deepEqual(obj[1]?.a, { nested: [1] });
    assert.deepEqual(s.items?.properties?.['a']?.default, { nested: [1] });
  });
});
