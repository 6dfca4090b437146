/**
 * Tests of metadata coercion: the table of upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/objectmeta/algorithm_test.go (TestCoerce).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { coerce } from './objectmeta.js';
import type { Structural } from './structural.js';

interface Case {
  name: string;
  json: string;
  includeRoot?: boolean;
  dropInvalidFields?: boolean;
  schema?: Structural;
  expected: string;
  expectedError?: boolean;
  expectedUnknownFields?: string[];
}

// Ported from TestCoerce (objectmeta/algorithm_test.go, v0.33.9); Go's JSON decoder accepts the
// trailing comma of one input, JSON.parse does not, so it is removed there.
const cases: Case[] = [
{name: "empty", json: "null", schema: undefined, expected: "null"},
{name: "scalar", json: "4", schema: {}, expected: "4"},
{name: "scalar array", json: "[1,2]", schema: {
  items: {},
}, expected: "[1,2]"},
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
}, expected: `
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
      "name": "instance"
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
      "name": "instance"
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
      "name": "instance"
    },
    "spec": {
      "unspecified": "bar",
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "unspecified": "bar",
        "metadata": {
          "name": "instance"
        },
        "spec": {
          "unspecified": "bar"
        }
      }
    }
  }
}
`, expectedUnknownFields: [
  "nested.metadata.unspecified",
  "nested.spec.embedded.metadata.unspecified",
  "preserving.metadata.unspecified",
  "pruned.metadata.unspecified",
]},
{name: "x-kubernetes-embedded-resource, with includeRoot=true", json: `
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
`, includeRoot: true, schema: {
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
}, expected: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "unspecified":"bar",
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "unspecified": "bar",
    "metadata": {
      "name": "instance"
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
      "name": "instance"
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
      "name": "instance"
    },
    "spec": {
      "unspecified": "bar",
      "embedded": {
        "apiVersion": "foo/v1",
        "kind": "Foo",
        "unspecified": "bar",
        "metadata": {
          "name": "instance"
        },
        "spec": {
          "unspecified": "bar"
        }
      }
    }
  }
}`, expectedUnknownFields: [
  "metadata.unspecified",
  "nested.metadata.unspecified",
  "nested.spec.embedded.metadata.unspecified",
  "preserving.metadata.unspecified",
  "pruned.metadata.unspecified",
]},
{name: "without name", json: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "namespace": "kube-system"
    }
  }
}
`, schema: {
  type: "object",
  properties: {
    "pruned": {
      type: "object",
      xEmbeddedResource: true,
    },
  },
}, expected: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "apiVersion": "foo/v1",
    "kind": "Foo",
    "metadata": {
      "namespace": "kube-system"
    }
  }
}
`},
{name: "x-kubernetes-embedded-resource, with dropInvalidFields=true", json: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "apiVersion": 42,
    "kind": 42,
    "metadata": {
      "name": "instance",
    "namespace": ["abc"],
      "labels": {
        "foo": 42
      }
    }
  }
}
`, dropInvalidFields: true, schema: {
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
  },
}, expected: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "metadata": {
      "name": "instance"
    }
  }
}
`},
{name: "invalid metadata type, with dropInvalidFields=true", json: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "apiVersion": 42,
    "kind": 42,
    "metadata": [42]
  }
}
`, dropInvalidFields: true, schema: {
  type: "object",
  properties: {
    "pruned": {
      type: "object",
      xEmbeddedResource: true,
    },
  },
}, expected: `
{
  "apiVersion": "foo/v1",
  "kind": "Foo",
  "metadata": {
    "name": "instance"
  },
  "pruned": {
    "metadata": [42]
  }
}
`},
];

describe('coerce (upstream TestCoerce)', () => {
  for (const tt of cases) {
    it(tt.name, () => {
      const obj: unknown = JSON.parse(tt.json.replace(/,(\s*})/g, '$1'));
      const r = coerce('', obj, tt.schema, tt.includeRoot ?? false, { dropInvalidFields: tt.dropInvalidFields ?? false });
      if (tt.expectedError) {
        assert.ok(r.error, 'expected an error');
        return;
      }
      assert.equal(r.error, undefined);
      assert.deepEqual(obj, JSON.parse(tt.expected));
      assert.deepEqual(r.unknownFields, tt.expectedUnknownFields ?? []);
    });
  }
});

describe('coerce errors without dropInvalidFields', () => {
  const schema: Structural = { type: 'object', properties: { pruned: { type: 'object', xEmbeddedResource: true } } };
  it('rejects a non-string kind and a malformed metadata field, at upstream paths', () => {
    assert.deepEqual(coerce('', { pruned: { kind: 42 } }, schema, false, { dropInvalidFields: false }).error, {
      type: 'FieldValueInvalid',
      field: 'pruned.kind',
      badValue: 42,
      detail: 'must be a string',
    });
    const err = coerce('', { pruned: { apiVersion: 'v1', kind: 'K', metadata: { name: 1 } } }, schema, false, { dropInvalidFields: false }).error;
    assert.equal(err?.field, 'pruned.metadata');
    assert.equal(err?.detail, 'json: cannot unmarshal number into Go struct field ObjectMeta.name of type string');
  });
});
