/**
 * Tests of pruning: the table of upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/pruning/algorithm_test.go (TestPrune), then the metadata coercion and the
 * null pruning that `prune` adds as the CRD handler does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Structural } from './structural.js';
import { prune, pruneNonNullableNullsWithoutDefaults, pruneWithOptions } from './pruning.js';

interface Case {
  name: string;
  json: string;
  isResourceRoot?: boolean;
  schema?: Structural;
  expectedObject: string;
  expectedPruned?: string[];
}

// Ported from TestPrune (pruning/algorithm_test.go, v0.33.9).
const cases: Case[] = [
{name: "empty", json: "null", expectedObject: "null"},
{name: "scalar", json: "4", schema: {}, expectedObject: "4"},
{name: "scalar array", json: "[1,2]", schema: {
  items: {},
}, expectedObject: "[1,2]"},
{name: "object array", json: `[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]`, schema: {
  items: {
    properties: {
      "a": {},
      "c": {},
    },
  },
}, expectedObject: `[{"a":1},{},{"a":1,"c":3}]`, expectedPruned: ["[1].b", "[2].b"]},
{name: "object array with nil schema", json: `[{"a":1},{"b":1},{"a":1,"b":2,"c":3}]`, expectedObject: `[{},{},{}]`,
  expectedPruned: ["[0].a", "[1].b", "[2].a", "[2].b", "[2].c"]},
{name: "object array object", json: `{"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}}`, schema: {
  properties: {
    "array": {
      items: {
        properties: {
          "a": {},
          "c": {},
        },
      },
    },
    "specified": {
      properties: {
        "a": {},
        "c": {},
      },
    },
  },
}, expectedObject: `{"array":[{"a":1},{},{"a":1,"c":3}],"specified":{"a":1,"c":3}}`,
  expectedPruned: ["array[1].b", "array[2].b", "specified.b", "unspecified"]},
{name: "nested x-kubernetes-preserve-unknown-fields", json: `
{
  "unspecified":"bar",
  "alpha": "abc",
  "beta": 42.0,
  "unspecifiedObject": {"unspecified": "bar"},
  "pruning": {
     "unspecified": "bar",
     "unspecifiedObject": {"unspecified": "bar"},
     "pruning": {"unspecified": "bar"},
     "apiVersion": "unknown",
     "preserving": {"unspecified": "bar"}
  },
  "preserving": {
     "unspecified": "bar",
     "unspecifiedObject": {"unspecified": "bar"},
     "pruning": {"unspecified": "bar"},
     "preserving": {"unspecified": "bar"},
     "preservingUnknownType": [{"foo":true},{"bar":true}]
  },
  "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {
     "foo": {
        "specified": {"unspecified":"bar"},
        "unspecified": "bar"
     }
  },
  "preservingAdditionalPropertiesKeyPruneValues": {
     "foo": {
        "specified": {"unspecified":"bar"},
        "unspecified": "bar"
     }
  }
}
`, schema: {
  type: "object",
  xPreserveUnknownFields: true,
  properties: {
    "alpha": {type: "string",},
    "beta":  {type: "number",},
    "pruning": {
      type: "object",
      properties: {
        "preserving": {
          type: "object",
          xPreserveUnknownFields: true,
        },
        "pruning": {
          type: "object",
        },
      },
    },
    "preserving": {
      type: "object",
      xPreserveUnknownFields: true,
      properties: {
        "preserving": {
          type: "object",
          xPreserveUnknownFields: true,
        },
        "preservingUnknownType": {
          type: "",
          xPreserveUnknownFields: true,
        },
        "pruning": {
          type: "object",
        },
      },
    },
    "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {
      // this x-kubernetes-preserve-unknown-fields is not inherited by the schema inside of additionalProperties
      xPreserveUnknownFields: true,
      type: "object",
      additionalProperties: {
        structural: {
          type: "object",
          properties: {
            "specified": {type: "object",},
          },
        },
      },
    },
    "preservingAdditionalPropertiesKeyPruneValues": {
      type: "object",
      additionalProperties: {
        structural: {
          type: "object",
          properties: {
            "specified": {type: "object",},
          },
        },
      },
    },
  },
}, expectedObject: `
{
  "unspecified":"bar",
  "alpha": "abc",
  "beta": 42.0,
  "unspecifiedObject": {"unspecified": "bar"},
  "pruning": {
     "pruning": {},
     "preserving": {"unspecified": "bar"}
  },
  "preserving": {
     "unspecified": "bar",
     "unspecifiedObject": {"unspecified": "bar"},
     "pruning": {},
     "preserving": {"unspecified": "bar"},
     "preservingUnknownType": [{"foo":true},{"bar":true}]
  },
  "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {
     "foo": {
        "specified": {}
     }
  },
  "preservingAdditionalPropertiesKeyPruneValues": {
     "foo": {
        "specified": {}
     }
  }
}
`, expectedPruned: ["preserving.pruning.unspecified", "preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified", "preservingAdditionalPropertiesKeyPruneValues.foo.unspecified", "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified", "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified", "pruning.apiVersion", "pruning.pruning.unspecified", "pruning.unspecified", "pruning.unspecifiedObject"]},
{name: "additionalProperties with schema", json: `{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}}`, schema: {
  properties: {
    "a": {},
    "c": {
      additionalProperties: {
        structural: {
          type: "integer",
        },
      },
    },
  },
}, expectedObject: `{"a":1,"c":{"a":1,"b":2,"c":{}}}`,
  expectedPruned: ["b", "c.c.a"]},
{name: "additionalProperties with bool", json: `{"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1, "apiVersion": "unknown"}}}`, schema: {
  properties: {
    "a": {},
    "c": {
      additionalProperties: {
        bool: false,
      },
    },
  },
}, expectedObject: `{"a":1,"c":{"a":1,"b":2,"c":{}}}`,
  expectedPruned: ["b", "c.c.a", "c.c.apiVersion"]},
{name: "x-kubernetes-embedded-resource", json: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance",
    "unspecified": "bar"
  },
  "unspecified":"bar",
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "preserving": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "nested": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar",
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "unspecified": "bar",
        "metadata": {
          "name": "instance",
          "unspecified": "bar"
        },
        "spec": {
          "unspecified": "bar"
        }
      }
    }
  }
}
`, schema: {
  type: "object",
  properties: {
    "pruned": {
      type: "object",
      xEmbeddedResource: true,
      properties: {
        "spec": {
          type: "object",
        },
      },
    },
    "preserving": {
      type: "object",
      xEmbeddedResource:      true,
        xPreserveUnknownFields: true,
    },
    "nested": {
      type: "object",
      xEmbeddedResource: true,
      properties: {
        "spec": {
          type: "object",
          properties: {
            "embedded": {
              type: "object",
              xEmbeddedResource: true,
              properties: {
                "spec": {
                  type: "object",
                },
              },
            },
          },
        },
      },
    },
  },
}, expectedObject: `
{
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
    }
  },
  "preserving": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "nested": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "name": "instance",
      "unspecified": "bar"
    },
    "spec": {
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "metadata": {
          "name": "instance",
          "unspecified": "bar"
        },
        "spec": {
        }
      }
    }
  }
}
`, expectedPruned: ["nested.spec.embedded.spec.unspecified", "nested.spec.embedded.unspecified", "nested.spec.unspecified", "nested.unspecified", "pruned.spec.unspecified", "pruned.unspecified", "unspecified"]},
{name: "x-kubernetes-embedded-resource, with root=true", json: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance",
    "namespace": "myns",
    "labels":{"foo":"bar"},
    "unspecified": "bar"
  },
  "unspecified":"bar",
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels":{"foo":"bar"},
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "preserving": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels":{"foo":"bar"},
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "nested": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels":{"foo":"bar"},
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar",
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "unspecified": "bar",
        "metadata": {
          "name": "instance",
          "namespace": "myns",
          "labels":{"foo":"bar"},
          "unspecified": "bar"
        },
        "spec": {
          "unspecified": "bar"
        }
      }
    }
  }
}
`, isResourceRoot: true, schema: {
  type: "object",
  properties: {
    "metadata": {
      type: "object",
    },
    "pruned": {
      type: "object",
      xEmbeddedResource: true,
      properties: {
        "metadata": {
          type: "object",
        },
        "spec": {
          type: "object",
        },
      },
    },
    "preserving": {
      type: "object",
      xEmbeddedResource:      true,
        xPreserveUnknownFields: true,
    },
    "nested": {
      type: "object",
      xEmbeddedResource: true,
      properties: {
        "spec": {
          type: "object",
          properties: {
            "embedded": {
              type: "object",
              xEmbeddedResource: true,
              properties: {
                "metadata": {
                  type: "object",
                },
                "spec": {
                  type: "object",
                },
              },
            },
          },
        },
      },
    },
  },
}, expectedObject: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance",
    "namespace": "myns",
    "labels": {"foo": "bar"},
    "unspecified": "bar"
  },
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels": {"foo": "bar"},
      "unspecified": "bar"
    },
    "spec": {
    }
  },
  "preserving": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels": {"foo": "bar"},
      "unspecified": "bar"
    },
    "spec": {
      "unspecified": "bar"
    }
  },
  "nested": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "name": "instance",
      "namespace": "myns",
      "labels": {"foo": "bar"},
      "unspecified": "bar"
    },
    "spec": {
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "metadata": {
          "name": "instance",
          "namespace": "myns",
          "labels": {"foo": "bar"},
          "unspecified": "bar"
        },
        "spec": {
        }
      }
    }
  }
}
`, expectedPruned: ["nested.spec.embedded.spec.unspecified", "nested.spec.embedded.unspecified", "nested.spec.unspecified", "nested.unspecified", "pruned.spec.unspecified", "pruned.unspecified", "unspecified"]},
];

describe('pruneWithOptions (upstream TestPrune)', () => {
  for (const tt of cases) {
    it(tt.name, () => {
      const obj: unknown = JSON.parse(tt.json);
      const pruned = pruneWithOptions(obj, tt.schema, tt.isResourceRoot ?? false);
      assert.deepEqual(obj, JSON.parse(tt.expectedObject));
      assert.deepEqual(pruned, tt.expectedPruned ?? []);
    });
  }
});

describe('prune (pruning + metadata coercion + null pruning, as the CRD handler)', () => {
  const schema: Structural = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer' },
          optional: { type: 'string', nullable: true },
          defaulted: { type: 'string', default: 'x' },
          list: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          template: { type: 'object', xEmbeddedResource: true, properties: { spec: { type: 'object' } } },
        },
      },
    },
  };

  it('drops unknown fields at the root, in lists, and unknown metadata fields; keeps apiVersion/kind/metadata', () => {
    const obj = {
      apiVersion: 'example.com/v1',
      kind: 'Foo',
      metadata: { name: 'a', labels: { a: 'b' }, bogus: 1 },
      extra: true,
      spec: { replicas: 1, foo: 'bar', list: [{ name: 'x', bar: 1 }] },
    };
    const pruned = prune(obj, schema, { isResourceRoot: true });
    assert.deepEqual(pruned, ['extra', 'metadata.bogus', 'spec.foo', 'spec.list[0].bar']);
    assert.deepEqual(obj, { apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'a', labels: { a: 'b' } }, spec: { replicas: 1, list: [{ name: 'x' }] } });
  });

  it('coerces the metadata of embedded resources with upstream coercer paths', () => {
    const obj = {
      apiVersion: 'example.com/v1',
      kind: 'Foo',
      metadata: { name: 'a' },
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 't', other: 'x', ownerReferences: [{ name: 'o', junk: 1 }] }, spec: {} } },
    };
    const pruned = prune(obj, schema, { isResourceRoot: true });
    assert.deepEqual(pruned, ['spec.template.metadata.other', 'spec.template.metadata.ownerReferences[0].junk']);
    assert.deepEqual(obj.spec.template.metadata, { name: 't', ownerReferences: [{ name: 'o' }] });
  });

  it('removes non-nullable nulls without a default, keeps nullable and defaulted ones', () => {
    const obj = { apiVersion: 'v', kind: 'K', spec: { replicas: null, optional: null, defaulted: null } };
    assert.deepEqual(prune(obj, schema, { isResourceRoot: true }), []);
    assert.deepEqual(obj.spec, { optional: null, defaulted: null });
  });
});

// Ported from TestPruneNonNullableNullsWithoutDefaults (defaulting/prunenulls_test.go).
describe('pruneNonNullableNullsWithoutDefaults', () => {
  it('removes nulls of non-nullable fields without default, in objects, additionalProperties and list items objects', () => {
    const s: Structural = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'string', nullable: true },
        c: { type: 'string', default: 'x' },
        d: { type: 'object', additionalProperties: { structural: { type: 'string' } } },
        e: { type: 'array', items: { type: 'object', properties: { f: { type: 'string' } } } },
      },
    };
    const obj = { a: null, b: null, c: null, d: { k: null }, e: [null, { f: null }], unknown: null };
    pruneNonNullableNullsWithoutDefaults(obj, s);
    assert.deepEqual(obj, { b: null, c: null, d: {}, e: [null, {}], unknown: null });
  });
});
