// wasm-bad-input.test.js: documents the library must reject, through the WebAssembly module.
// Each case must throw an Error whose message is the library's one-line message: it starts
// with the JSON path of the culprit (or "line L, column C" for JSON syntax), says what is
// wrong, and equals what the native CLI prints for the same document. A good plan right
// after each error must still work, and nothing may stay allocated.

import { beforeAll, describe, expect, it } from 'vitest';

import { cliError, cliPlanText, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();

// a small valid graph: two inputs, an add, a view of it, a scale of the view
function base() {
  return {
    format: 'galloc-graph',
    version: 1,
    name: 'bad-input-base',
    buffer_types: [{ name: 'cpu', alignment: 32, max_size: null }],
    tensors: [
      { name: 'a', op: 'NONE', type: 'f32', ne: [16, 4], flags: ['input'] },
      { name: 'b', op: 'NONE', type: 'f32', ne: [16, 4], flags: ['input'] },
      { name: 'c', op: 'ADD', type: 'f32', ne: [16, 4], src: [0, 1] },
      { name: 'd', op: 'VIEW', type: 'f32', ne: [16], src: [2], view_src: 2, view_offs: 64 },
      { name: 'e', op: 'SCALE', type: 'f32', ne: [16], src: [3], flags: ['output'] },
    ],
    nodes: [2, 3, 4],
    leafs: [0, 1],
    node_buffer_ids: [0, 0, 0],
    leaf_buffer_ids: [0, 0],
  };
}

/** base() changed by f */
function edit(f) {
  const d = base();
  f(d);
  return d;
}

const BASE_TEXT = JSON.stringify(base());

// [case, document (object or text), the message's path, what the rest must say]
const CASES = [
  ['invalid JSON: truncated', '{"format": "galloc-graph", "version": 1,', 'line 1, column 41', /end of input/],
  ['invalid JSON: missing comma', '{"format": "galloc-graph" "version": 1}', 'line 1, column 27', /expected ','/],
  ['invalid JSON: bad escape', '{"format": "galloc\\q"}', 'line 1, column', /escape/],
  ['invalid JSON: empty', '', 'line 1, column 1', /./],
  ['trailing garbage', `${BASE_TEXT} x`, 'line 1, column', /unexpected data after the document/],
  ['trailing second document', `${BASE_TEXT}{}`, 'line 1, column', /unexpected data after the document/],
  ['deep nesting', '['.repeat(100000) + ']'.repeat(100000), 'line 1, column 65', /nesting deeper than 64/],
  ['deep nesting in a field', `{"tensors": ${'['.repeat(70)}${']'.repeat(70)}}`, 'line 1, column', /nesting deeper than 64/],
  ['not an object', '[]', 'document', /expected an object, got an array/],
  ['wrong format', edit((d) => (d.format = 'galloc-plan')), 'format', /expected "galloc-graph"/],
  ['wrong version', edit((d) => (d.version = 2)), 'version', /not supported/],
  ['wrong type: tensors is an object', edit((d) => (d.tensors = {})), 'tensors', /expected an array, got an object/],
  ['wrong type: tensor is null', edit((d) => (d.tensors[0] = null)), 'tensors[0]', /expected an object, got null/],
  ['wrong type: ne is a boolean', edit((d) => (d.tensors[0].ne = [true])), 'tensors[0].ne[0]', /expected an integer, got a boolean/],
  ['wrong type: ne is a word', edit((d) => (d.tensors[0].ne = ['x'])), 'tensors[0].ne[0]', /"x" is not an integer/],
  ['wrong type: ne is a fraction', edit((d) => (d.tensors[0].ne = [1.5])), 'tensors[0].ne[0]', /not an integer/],
  ['wrong type: name is a number', edit((d) => (d.tensors[1].name = 5)), 'tensors[1].name', /expected a string, got a number/],
  ['wrong type: flags', edit((d) => (d.tensors[0].flags = ['inputs'])), 'tensors[0].flags[0]', /unknown flag/],
  ['op that is no ggml name', edit((d) => (d.tensors[2].op = 'FR OB')), 'tensors[2].op', /unknown op "FR OB" \(a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_'\)/],
  ['unknown type', edit((d) => (d.tensors[2].type = 'f33')), 'tensors[2].type', /unknown type "f33"/],
  ['src out of range', edit((d) => (d.tensors[2].src = [0, 7])), 'tensors[2].src[1]', /index 7 out of range \(5 tensors\)/],
  ['src negative', edit((d) => (d.tensors[2].src = [0, -1])), 'tensors[2].src[1]', /index -1 out of range/],
  ['src is the tensor itself', edit((d) => (d.tensors[2].src = [2, 1])), 'tensors[2].src[0]', /the tensor itself/],
  ['more than 10 sources', edit((d) => (d.tensors[2].src = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0])), 'tensors[2].src', /11 sources, more than 10/],
  ['cycle', edit((d) => (d.tensors[2].src = [0, 4])), 'tensors[3].src[0]', /cycle/],
  ['view past its source', edit((d) => (d.tensors[3].view_offs = 200)), 'tensors[3]', /reach past the 256 bytes of its view_src 2/],
  ['view of a view', edit((d) => (d.tensors[4] = { name: 'e', op: 'VIEW', type: 'f32', ne: [4], src: [3], view_src: 3, view_offs: 0 })),
    'tensors[4].view_src', /is itself a view/],
  ['ne negative', edit((d) => (d.tensors[0].ne = [-1])), 'tensors[0].ne[0]', /-1 elements, must be 0 or more/],
  ['ne count overflowing', edit((d) => (d.tensors[0].ne = [4294967296, 4294967296, 4])), 'tensors[0].ne', /overflows 64 bits/],
  ['ne past int64', edit((d) => (d.tensors[0].ne = ['9223372036854775808'])), 'tensors[0].ne[0]', /out of the 64-bit integer range/],
  ['ne: five dimensions', edit((d) => (d.tensors[0].ne = [1, 1, 1, 1, 1])), 'tensors[0].ne', /5 numbers, expected 1 to 4/],
  ['nb overflowing', edit((d) => { d.tensors[0].ne = [16, 4, 2]; d.tensors[0].nb = [4, 64, '9223372036854775808', 4]; }),
    'tensors[0].nb', /overflows 64 bits|over the limit/],
  ['tensor over 2^40 bytes', edit((d) => (d.tensors[0].ne = [2 ** 40])), 'tensors[0]', /over the limit of one tensor/],
  ['alignment 0', edit((d) => (d.buffer_types[0].alignment = 0)), 'buffer_types[0].alignment', /0 is not a power of two/],
  ['alignment not a power of two', edit((d) => (d.buffer_types[0].alignment = 48)), 'buffer_types[0].alignment', /48 is not a power of two/],
  ['no buffer types', edit((d) => (d.buffer_types = [])), 'buffer_types', /at least one buffer type/],
  ['nodes with a duplicate', edit((d) => (d.nodes = [2, 3, 3])), 'nodes[2]', /tensor 3 is already nodes\[1\]/],
  ['nodes missing a tensor', edit((d) => { d.nodes = [2, 4]; d.node_buffer_ids = [0, 0]; }), 'nodes[1]', /tensors missing/],
  ['leafs missing a tensor', edit((d) => { d.leafs = [0]; d.leaf_buffer_ids = [0]; }), 'nodes[0]', /tensors missing/],
  ['nodes without leafs', edit((d) => { delete d.leafs; delete d.leaf_buffer_ids; }), 'nodes', /both or neither/],
  ['node_buffer_ids length', edit((d) => (d.node_buffer_ids = [0, 0])), 'node_buffer_ids', /2 entries for 3 nodes/],
  ['leaf_buffer_ids length', edit((d) => (d.leaf_buffer_ids = [0, 0, 0])), 'leaf_buffer_ids', /3 entries for 2 leafs/],
  ['buffer id out of range', edit((d) => (d.node_buffer_ids = [0, 3, 0])), 'node_buffer_ids[1]', /index 3 out of range \(1 buffer types\)/],
  ['tensor buffer_type out of range', edit((d) => (d.tensors[1].buffer_type = 4)), 'tensors[1].buffer_type', /index 4 out of range/],
  ['name of 64 bytes', edit((d) => (d.tensors[1].name = 'x'.repeat(64))), 'tensors[1].name', /64 bytes, longer than 63/],
  ['name of 64 bytes in UTF-8', edit((d) => (d.tensors[1].name = 'é'.repeat(32))), 'tensors[1].name', /64 bytes, longer than 63/],
  ['number past 2^64', BASE_TEXT.replace('"ne":[16,4]', '"ne":[18446744073709551616,4]'), 'tensors[0].ne[0]', /out of the 64-bit integer range/],
  ['string number past 2^64', edit((d) => (d.buffer_types[0].max_size = '18446744073709551616')), 'buffer_types[0].max_size', /past 2\^64 - 1/],
];

/** the plan of the base document, the reference for "a good plan still works" */
let goodPlan;
beforeAll(() => {
  goodPlan = galloc.planText(base());
});

/** @returns {Error & { code?: string }} what plan(input) throws */
function planError(input) {
  try {
    galloc.plan(input);
  } catch (e) {
    return e;
  }
  throw new Error('plan() accepted the document');
}

/** the path part of a message: what precedes the first ": " */
const pathOf = (message) => message.slice(0, message.indexOf(': '));

describe('bad input', () => {
  it('the base document is good', () => {
    expect(cliPlanText(BASE_TEXT)).toBe(goodPlan);
    expect(galloc.plan(base()).buffers[0].size).toBe(512);
  });

  it('accepts a name of exactly 63 bytes', () => {
    expect(() => galloc.plan(edit((d) => (d.tensors[1].name = 'x'.repeat(63))))).not.toThrow();
  });

  // the cases past one of the reader's limits (status 'limit'); every other is 'invalid-input'
  const LIMITS = new Set(['deep nesting', 'deep nesting in a field', 'more than 10 sources', 'nb overflowing',
    'tensor over 2^40 bytes', 'name of 64 bytes', 'name of 64 bytes in UTF-8']);

  it.each(CASES)('%s', (name, input, path, says) => {
    const heap = galloc.heapUsed();
    const e = planError(input);
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe(LIMITS.has(name) ? 'limit' : 'invalid-input');
    expect(e.message).not.toMatch(/\n/);
    if (path.startsWith('line ')) {
      expect(e.message.startsWith(path)).toBe(true);
    } else {
      expect(pathOf(e.message)).toBe(path);
    }
    expect(e.message).toMatch(says);

    // the library's message: the native CLI says the same for the same bytes
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    const cli = cliError(text);
    expect(cli.status).toBe(3);
    expect(cli.message).toBe(e.message);

    // nothing left allocated, and the module still plans
    expect(galloc.heapUsed()).toBe(heap);
    expect(galloc.planText(base())).toBe(goodPlan);
  });

  it('a 50 MB document is refused before parsing', () => {
    const heap = galloc.heapUsed();
    const text = JSON.stringify({ ...base(), padding: 'x'.repeat(50 << 20) });
    const e = planError(text);
    expect(e.code).toBe('limit');
    expect(e.message).toBe(`document is ${text.length} bytes, over the 33554432-byte limit`);
    expect(galloc.heapUsed()).toBe(heap);
    expect(galloc.planText(base())).toBe(goodPlan);
  });

  it('lone surrogates: escaped by JSON.stringify they are refused, raw in text refused as the CLI refuses their bytes (never U+FFFD)', () => {
    const e = planError(edit((d) => (d.tensors[1].name = '\ud800')));
    expect(e.message).toMatch(/^line 1, column \d+: .*surrogate/);
    const raw = BASE_TEXT.replace('"name":"b"', '"name":"b\ud800"');
    const column = new TextEncoder().encode(raw.slice(0, raw.indexOf('\ud800'))).length + 1;
    expect(() => galloc.normalize(raw)).toThrow(`line 1, column ${column}: invalid UTF-8 in a string (byte 0xED)`);
  });

  it('errors from normalize() and preset() carry the library message too', () => {
    expect(() => galloc.normalize(edit((d) => (d.tensors[2].op = 'FR OB')))).toThrow('tensors[2].op: unknown op "FR OB"');
    let e;
    try {
      galloc.preset('no_such_preset');
    } catch (err) {
      e = err;
    }
    expect(e.code).toBe('not-found');
    expect(e.message).toBe('unknown preset "no_such_preset"');
    expect(galloc.planText(base())).toBe(goodPlan);
  });
});
