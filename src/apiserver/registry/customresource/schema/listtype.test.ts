/**
 * Tests of list-type validation: the table of upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/listtype/validation_test.go (TestValidateListSetsAndMaps), then the rendering
 * of duplicates.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString, type FieldErrorType } from '../../../../machinery/errors/index.js';
import { validateListSetsAndMaps } from './listtype.js';
import type { Structural } from './structural.js';

interface Match {
  type: FieldErrorType;
  path: string;
}
const duplicate = (...path: string[]): Match => ({ type: 'FieldValueDuplicate', path: path.join('.') });
const invalid = (...path: string[]): Match => ({ type: 'FieldValueInvalid', path: path.join('.') });

interface Case {
  name: string;
  schema?: Structural;
  obj?: Record<string, unknown>;
  errors?: Match[];
}

// Ported from TestValidateListSetsAndMaps (listtype/validation_test.go, v0.33.9).
const cases: Case[] = [
{name: "nil"},
{name: "no schema", obj: {}},
{name: "no object", schema: {}},
{name: "list without schema",
  obj: {
    "array": ["a", "b", "a"],
  },
},
{name: "list without items",
  obj: {
    "array": ["a", "b", "a"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
      },
    },
  },
},

{name: "set list with one item",
  obj: {
    "array": ["a"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        xListType: "set",
        type: "array",
      },
    },
  },
},
{name: "set list with two equal items",
  obj: {
    "array": ["a", "a"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        xListType: "set",
        type: "array",
      },
    },
  },
  errors: [
    duplicate("root", "array[1]"),
  ],
},
{name: "set list with two different items",
  obj: {
    "array": ["a", "b"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        xListType: "set",
        type: "array",
      },
    },
  },
},
{name: "set list with multiple duplicated items",
  obj: {
    "array": ["a", "a", "b", "c", "d", "c"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        xListType: "set",
        type: "array",
      },
    },
  },
  errors: [
    duplicate("root", "array[1]"),
    duplicate("root", "array[5]"),
  ],
},

{name: "normal list with items",
  obj: {
    "array": ["a", "b", "a"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
        items: {
          type: "string",
        },
      },
    },
  },
},
{name: "set list with items",
  obj: {
    "array": ["a", "b", "a"],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
        xListType: "set",
        items: {
          type: "string",
        },
      },
    },
  },
  errors: [
    duplicate("root", "array[2]"),
  ],
},
{name: "set list with items under additionalProperties",
  obj: {
    "array": ["a", "b", "a"],
  },
  schema: {
    type: "object",
    additionalProperties: {
      structural: {
        type: "array",
        xListType: "set",
        items: {
          type: "string",
        },
      },
    },
  },
  errors: [
    duplicate("root[array][2]"),
  ],
},
{name: "set list with items under items",
  obj: {
    "array": [
      ["a", "b", "a"],
      ["b", "b", "a"],
    ],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
        items: {
          type: "array",
          xListType: "set",
          items: {
            type: "string",
          },
        },
      },
    },
  },
  errors: [
    duplicate("root", "array[0][2]"),
    duplicate("root", "array[1][1]"),
  ],
},

{name: "nested set lists",
  obj: {
    "array": [
      "a", "b", "a", ["b", "b", "a"],
    ],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
        xListType: "set",
        items: {
          type: "array",
          xListType: "set",
        },
      },
    },
  },
  errors: [
    duplicate("root", "array[2]"),
    duplicate("root", "array[3][1]"),
  ],
},

{name: "set list with compound map items",
  obj: {
    "strings":             ["a", "b", "a"],
    "integers":            [1, 2, 1],
    "booleans":            [false, true, true],
    "float64":             [1.0, 2.0, 2.0],
    "null":                 ["a", null, null],
    "empty maps":          [{"a": "b"}, {}, {}],
    "map values":          [{"a": "b"}, {"a": "c"}, {"a": "b"}],
    "null values":          [{"a": null}, {"b": "c", "a": null}],
    "array":               [[], ["a"], ["b"], ["a"]],
    "null array":           [[], [null], [null, null], [null], ["a"]],
    "multiple duplicates": [{"a": "b"}, {"a": "c"}, {"a": "b"}, {"a": "c"}, {"a": "c"}],
  },
  schema: {
    type: "object",
    properties: {
      "strings": {
        type: "array",
        items: {
          type: "string",
        },
        xListType: "set",
      },
      "integers": {
        type: "array",
        items: {
          type: "integer",
        },
        xListType: "set",
      },
      "booleans": {
        type: "array",
        items: {
          type: "boolean",
        },
        xListType: "set",
      },
      "float64": {
        type: "array",
        items: {
          type: "number",
        },
        xListType: "set",
      },
      "null": {
        type: "array", items: {
          type:     "string",
            nullable: true,
        },
        xListType: "set",
      },
      "empty maps": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType: "set",
      },
      "map values": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType: "set",
      },
      "null values": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type:     "string",
                nullable: true,
            },
          },
        },
        xListType: "set",
      },
      "array": {
        type: "array",
        items: {
          type: "array",
          items: {
            type: "string",
          },
        },
        xListType: "set",
      },
      "null array": {
        type: "array",
        items: {
          type: "array",
          items: {
            type:     "string",
              nullable: true,
          },
        },
        xListType: "set",
      },
      "multiple duplicates": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType: "set",
      },
    },
  },
  errors: [
    duplicate("root", "strings[2]"),
    duplicate("root", "integers[2]"),
    duplicate("root", "booleans[2]"),
    duplicate("root", "float64[2]"),
    duplicate("root", "null[2]"),
    duplicate("root", "empty maps[2]"),
    duplicate("root", "map values[2]"),
    duplicate("root", "array[3]"),
    duplicate("root", "null array[3]"),
    duplicate("root", "multiple duplicates[2]"),
    duplicate("root", "multiple duplicates[3]"),
  ],
},
{name: "set list with compound array items",
  obj: {
    "array": [[], ["a"], ["a"]],
  },
  schema: {
    type: "object",
    properties: {
      "array": {
        type: "array",
        xListType: "set",
        items: {
          type: "string",
        },
      },
    },
  },
  errors: [
    duplicate("root", "array[2]"),
  ],
},

{name: "map list with compound map items",
  obj: {
    "strings":                ["a"],
    "integers":               [1],
    "booleans":               [false],
    "float64":                [1.0],
    "null":                    [null],
    "array":                  [["a"]],
    "one key":                [{"a": "0", "c": "2"}, {"a": "1", "c": "1"}, {"a": "1", "c": "2"}, {}],
    "two keys":               [{"a": "1", "b": "1", "c": "1"}, {"a": "1", "b": "2", "c": "2"}, {"a": "1", "b": "2", "c": "3"}, {}],
    "undefined key":          [{"a": "1", "b": "1", "c": "1"}, {"a": "1", "c": "2"}, {"a": "1", "c": "3"}, {}],
    "compound key":           [{"a": [], "c": "1"}, {"a": null, "c": "1"}, {"a": ["a"], "c": "1"}, {"a": ["a", 42], "c": "2"}, {"a": ["a", 42], "c": ["3"]}],
    "null key":                [{"a": [], "c": "1"}, {"a": null, "c": "1"}, {"c": "1"}, {"a": null}],
    "null item":               [null, {"a": "0", "c": "1"}, {"a": null}, {"c": "1"}],
    "null item multiple keys": [null, {"b": "0", "c": "1"}, {"a": null}, {"c": "1"}],
    "multiple duplicates": [
      {"a": [], "c": "1"},
      {"a": null, "c": "1"},
      {"a": ["a"], "c": "1"},
      {"a": ["a", 42], "c": "2"},
      {"a": ["a", 42], "c": ["3"]},
      {"a": ["a"], "c": "1", "d": "1"},
      {"a": ["a"], "c": "1", "d": "2"},
    ],
  },
  schema: {
    type: "object",
    properties: {
      "strings": {
        type: "array",
        items: {
          type: "string",
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "integers": {
        type: "array",
        items: {
          type: "integer",
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "booleans": {
        type: "array",
        items: {
          type: "boolean",
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "float64": {
        type: "array",
        items: {
          type: "number",
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "null": {
        type: "array",
        items: {
          type:     "string",
            nullable: true,
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "array": {
        type: "array",
        items: {
          type: "array",
          items: {
            type: "string",
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "one key": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "two keys": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a", "b"],
      },
      "undefined key": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a", "b"],
      },
      "compound key": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type:     "string",
                nullable: true,
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "null key": {
        type: "array",
        items: {
          type: "object",
          properties: {
            "a": {
              type:     "array",
                nullable: true,
              items: {
                type: "string",
              },
            },
            "c": {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "null item": {
        type: "array",
        items: {
          type: "object",
          properties: {
            "a": {
              type:     "array",
                nullable: true,
              items: {
                type: "string",
              },
            },
            "c": {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
      "null item multiple keys": {
        type: "array",
        items: {
          type: "object",
          properties: {
            "a": {
              type:     "array",
                nullable: true,
              items: {
                type: "string",
              },
            },
            "b": {
              type: "string",
            },
            "c": {
              type: "string",
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a", "b"],
      },
      "multiple duplicates": {
        type: "array",
        items: {
          type: "object",
          additionalProperties: {
            structural: {
              type:     "string",
                nullable: true,
            },
          },
        },
        xListType:    "map",
          xListMapKeys: ["a"],
      },
    },
  },
  errors: [
    invalid("root", "strings[0]"),
    invalid("root", "integers[0]"),
    invalid("root", "booleans[0]"),
    invalid("root", "float64[0]"),
    invalid("root", "array[0]"),
    duplicate("root", "one key[2]"),
    duplicate("root", "two keys[2]"),
    duplicate("root", "undefined key[2]"),
    duplicate("root", "compound key[4]"),
    duplicate("root", "null key[3]"),
    duplicate("root", "null item[3]"),
    duplicate("root", "null item multiple keys[3]"),
    duplicate("root", "multiple duplicates[4]"),
    duplicate("root", "multiple duplicates[5]"),
  ],
},
];

describe('validateListSetsAndMaps (upstream TestValidateListSetsAndMaps)', () => {
  for (const tt of cases) {
    it(tt.name, () => {
      const errs = validateListSetsAndMaps('root', tt.schema, tt.obj);
      const got = errs.map((e) => ({ type: e.type, path: e.field }));
      const want = tt.errors ?? [];
      const key = (m: Match): string => `${m.type} ${m.path}`;
      assert.deepEqual(got.map(key).sort(), want.map(key).sort());
    });
  }
});

describe('duplicates as upstream prints them', () => {
  const s: Structural = {
    type: 'object',
    properties: {
      set: { type: 'array', xListType: 'set', items: { type: 'string' } },
      objs: { type: 'array', xListType: 'set', items: { type: 'object' } },
      map: { type: 'array', xListType: 'map', xListMapKeys: ['name'], items: { type: 'object' } },
      map2: { type: 'array', xListType: 'map', xListMapKeys: ['name', 'port'], items: { type: 'object' } },
    },
  };
  it('renders scalars with %q/%v and maps with %#v', () => {
    const errs = validateListSetsAndMaps('', s, {
      set: ['a', 'a'],
      objs: [{ b: 1, a: 'x' }, { a: 'x', b: 1 }],
      map: [{ name: 'a' }, { name: 'a', x: 1 }, {}, { y: 1 }],
      map2: [{ name: 'a', port: 80 }, { port: 80, name: 'a' }],
      other: ['a', 'a'],
    }).map(fieldErrorString);
    assert.deepEqual(errs, [
      'set[1]: Duplicate value: "a"',
      'objs[1]: Duplicate value: map[string]interface {}{"a":"x", "b":1}',
      'map[1]: Duplicate value: map[string]interface {}{"name":"a"}',
      'map[3]: Duplicate value: map[string]interface {}{}',
      'map2[1]: Duplicate value: map[string]interface {}{"name":"a", "port":80}',
    ]);
  });
  it('rejects non-object items of map lists', () => {
    const errs = validateListSetsAndMaps('', s, { map: [{ name: 'a' }, 'x'] }).map(fieldErrorString);
    assert.deepEqual(errs, ['map[1]: Invalid value: "x": must be an object for an array of list-type map']);
  });
});
