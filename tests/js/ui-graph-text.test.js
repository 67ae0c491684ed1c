// ui-graph-text.test.js: the graph text language: parsing, shapes as ggml
// computes them, errors at their lines, and round trips of every golden graph.
import { describe, it, expect } from 'vitest';
import { loadWasm } from './wasm-helpers.js';
import { readdirSync, readFileSync } from 'node:fs';
import { parseGraphText, graphToText } from '../../web/src/core/graph-text.js';
import { planningKey } from './planning-key.js';
import { leafKind, opDesc } from '../../web/src/core/op-rules.js';

const g = await loadWasm();
const GOLDEN = new URL('../golden/', import.meta.url);
const goldenGraphs = readdirSync(GOLDEN).filter((f) => f.endsWith('.graph.json')).sort();
const read = (f) => JSON.parse(readFileSync(new URL(f, GOLDEN), 'utf8'));

function parse(text) {
  const r = parseGraphText(text);
  if (r.errors) throw new Error(JSON.stringify(r.errors));
  return r.doc;
}
const byName = (doc, name) => doc.tensors.find((t) => t.name === name);

describe('parseGraphText: tensors and shapes', () => {
  it('reads the examples of the issue', () => {
    const doc = parse(`x0 = input(f32, 8)
x1 = input(f32, 2, 4)
x3 = mul(x0, x0)
x2 = cont(x1)
x4 = view_1d(x2, 2, 4)
x6 = add(x4, x4)
output(x6)
`);
    expect(doc.tensors.map((t) => t.name)).toEqual(['x0', 'x1', 'x3', 'x2', 'x4', 'x6']);
    expect(byName(doc, 'x0')).toMatchObject({ op: 'NONE', ne: [8], flags: ['input'] });
    expect(byName(doc, 'x4')).toMatchObject({ op: 'VIEW', ne: [2], src: [3], view_src: 3, view_offs: 4 });
    expect(byName(doc, 'x6').flags).toEqual(['output', 'compute']);
    expect(doc.leafs).toEqual([0, 1]);
    expect(doc.nodes).toEqual([2, 3, 4, 5]);
    expect(doc.buffer_types).toEqual([{ name: 'host', alignment: 32, max_size: null }]);
  });

  it('gives mul_mat the shape ggml gives it', () => {
    const doc = parse('w = weight(f16, 64, 172)\nx = input(f32, 64, 8)\ny = mul_mat(w, x)\n');
    expect(byName(doc, 'y')).toMatchObject({ op: 'MUL_MAT', type: 'f32', ne: [172, 8], src: [0, 1] });
    expect(byName(doc, 'w').buffer_type).toBe(0);
  });

  it('follows ggml for concat, pad, mean, get_rows, glu, permute, transpose, reshape', () => {
    const doc = parse(`a = input(f32, 4, 3)
b = input(f32, 4, 5)
c = concat(a, b, 1)
p = pad(a, 2, 1)
m = mean(b)
ids = input(i32, 7)
g = get_rows(b, ids)
h = swiglu(a)
q = permute(c, 1, 0, 2, 3)
t = transpose(c)
r = reshape_1d(c, 32)
k = glu(a, a)
`);
    expect(byName(doc, 'c').ne).toEqual([4, 8]);
    expect(byName(doc, 'p').ne).toEqual([6, 4]);
    expect(byName(doc, 'm').ne).toEqual([1, 5]);
    expect(byName(doc, 'g')).toMatchObject({ ne: [4, 7], type: 'f32' });
    expect(byName(doc, 'h')).toMatchObject({ op: 'GLU', glu_op: 'SWIGLU', ne: [2, 3] });
    expect(byName(doc, 'k')).toMatchObject({ op: 'GLU', ne: [4, 3] });
    expect(byName(doc, 'k').glu_op).toBeUndefined();
    expect(byName(doc, 'q')).toMatchObject({ op: 'PERMUTE', ne: [8, 4], nb: [16, 4, 128, 128], view_src: 2 });
    expect(byName(doc, 't')).toMatchObject({ op: 'TRANSPOSE', ne: [8, 4], nb: [16, 4, 128, 128] });
    expect(byName(doc, 'r')).toMatchObject({ op: 'RESHAPE', ne: [32], view_src: 2, view_offs: 0 });
  });

  it('makes cpy and set_rows views of their destination', () => {
    const doc = parse(`k = weight(f32, 64, 32)
v = view_1d(k, 64, 256)
x = input(f32, 64)
c = cpy(x, v)
rows = input(f32, 64, 2)
idx = input(i64, 2)
s = set_rows(k, rows, idx)
`);
    expect(byName(doc, 'c')).toMatchObject({ op: 'CPY', ne: [64], src: [2, 1], view_src: 0, view_offs: 256 });
    expect(byName(doc, 's')).toMatchObject({ op: 'SET_ROWS', ne: [64, 32], src: [4, 5, 0], view_src: 0, view_offs: 0 });
  });

  it('views of views point at the root and add offsets', () => {
    const doc = parse('a = input(f32, 16)\nb = view_1d(a, 8, 16)\nc = view_1d(b, 2, 8)\n');
    expect(byName(doc, 'c')).toMatchObject({ view_src: 0, view_offs: 24, src: [1] });
  });

  it('reads buffer types, sizes with units, assignments and external tensors', () => {
    const doc = parse(`@name two
@buffer cpu align=32 max=1GiB
@buffer gpu align=256 max=16KiB
w = weight(f32, 4) @gpu
a = input(f32, 4) extern=cpu @1
x = add(a, w) @gpu
y = scale(x) @0
`);
    expect(doc.name).toBe('two');
    expect(doc.buffer_types).toEqual([{ name: 'cpu', alignment: 32, max_size: 1073741824 }, { name: 'gpu', alignment: 256, max_size: 16384 }]);
    expect(byName(doc, 'w').buffer_type).toBe(1);
    expect(byName(doc, 'a').buffer_type).toBe(0);
    expect(doc.leaf_buffer_ids).toEqual([1, 1]);
    expect(doc.node_buffer_ids).toEqual([1, 0]);
  });

  it('takes any op by its printed name with explicit shape, holes, quoted names and $N', () => {
    const doc = parse(`"my input" = input(f16, 10)
k = leaf(f32, 3)
y = CONV_2D(k, "my input") ne=[4, 4, 2] type=f16
z = ADD($0, _, y) ne=[10] type=f16 nocompute
`);
    expect(byName(doc, 'y')).toMatchObject({ op: 'CONV_2D', type: 'f16', ne: [4, 4, 2], src: [1, 0] });
    expect(byName(doc, 'z')).toMatchObject({ op: 'ADD', src: [0, null, 2] });
    expect(byName(doc, 'z').flags).toBeUndefined();
  });

  it('keeps sizes above 2^53 exact as strings', () => {
    const doc = parse('@buffer big align=8 max=18446744073709551615\nx = input(i8, 9007199254740993)\n');
    expect(doc.buffer_types[0].max_size).toBe('18446744073709551615');
    expect(doc.tensors[0].ne).toEqual(['9007199254740993']);
  });
});

describe('parseGraphText: errors at their lines', () => {
  const errs = (text) => parseGraphText(text).errors;
  it('reports an unknown op with a suggestion', () => {
    expect(errs('a = input(f32, 4)\nb = mull(a, a)\n')).toEqual([{ line: 2, message: "unknown op 'mull' (did you mean mul?)" }]);
  });
  it('reports shape mismatches as ggml would assert them', () => {
    const e = errs('a = input(f32, 8)\nb = input(f32, 2, 4)\nc = mul_mat(a, b)\n');
    expect(e[0].line).toBe(3);
    expect(e[0].message).toMatch(/mul_mat: a has ne0=8 but b has ne0=2/);
    expect(errs('a = input(f32, 3)\nb = input(f32, 2)\nc = add(a, b)\n')[0].message).toMatch(/does not broadcast/);
    expect(errs('a = input(f32, 6)\nb = reshape_2d(a, 4, 2)\n')[0]).toMatchObject({ line: 2 });
    expect(errs('a = input(f32, 4)\nv = view_1d(a, 4, 8)\n')[0].message).toMatch(/out of bounds/);
  });
  it('reports unknown tensors, use before definition, cycles and bad $N', () => {
    expect(errs('b = add(a, a)\na = input(f32, 2)\n')[0]).toEqual({ line: 1, message: 'a is defined later (line 2); define tensors before using them' });
    expect(errs('a = input(f32, 2)\nb = add(a, zz)\n')[0]).toEqual({ line: 2, message: 'unknown tensor zz' });
    expect(errs('a = add($1, $1)\nb = add($0, $0)\n').map((e) => e.line)).toEqual([1, 2]);
    expect(errs('a = input(f32, 2)\nb = add(a, $7)\n')[0].message).toMatch(/\$7: there are only 2 tensors/);
  });
  it('reports syntax errors, several at once, in line order', () => {
    const e = errs('a = input(f32, 2\n\nb = add(a, a) @nope\nc = input(f33, 2)\n@buffer x align=3\n');
    expect(e.map((x) => x.line)).toEqual([1, 3, 4, 5]);
    expect(e[1].message).toMatch(/unknown buffer type 'nope'/);
    expect(e[3].message).toMatch(/power of two/);
  });
  it('refuses names longer than 63 bytes', () => {
    expect(errs(`${'n'.repeat(64)} = input(f32, 1)\n`)[0].message).toMatch(/63 bytes/);
  });
  it('ignores comments and blank lines', () => {
    expect(parseGraphText('# a comment\n\na = input(f32, 2) # trailing\n').doc.tensors).toHaveLength(1);
  });
});

describe('graphToText round trips every golden graph', () => {
  for (const f of goldenGraphs) {
    it(f, () => {
      const doc = read(f);
      const text = graphToText(doc);
      const back = parse(text);
      expect(planningKey(back)).toEqual(planningKey(doc));
      expect(graphToText(back)).toBe(text);
    });
  }
});

describe('which unary op or gated linear unit a tensor computes', () => {
  const text = `x = input(f32, 8, 2)
s = silu(x)
g = gelu_quick(s)
u = unary(g)
w = swiglu(u)
v = geglu_split(w, w)
o = GLU(v) ne=[4, 2]
`;
  it('is kept in the document as unary_op / glu_op, in ggml\'s spelling', () => {
    const doc = parse(text);
    expect(byName(doc, 's')).toMatchObject({ op: 'UNARY', unary_op: 'SILU' });
    expect(byName(doc, 'g')).toMatchObject({ op: 'UNARY', unary_op: 'GELU_QUICK' });
    expect(byName(doc, 'u').unary_op).toBeUndefined();
    expect(byName(doc, 'w')).toMatchObject({ op: 'GLU', glu_op: 'SWIGLU', ne: [4, 2] });
    expect(byName(doc, 'v')).toMatchObject({ op: 'GLU', glu_op: 'GEGLU', src: [4, 4] });
    expect(byName(doc, 'o').glu_op).toBeUndefined();
    expect(Object.keys(byName(doc, 's')).slice(0, 4)).toEqual(['name', 'op', 'unary_op', 'type']);
  });
  it('is written back as the call that computes it', () => {
    const back = graphToText(parse(text));
    expect(back).toMatch(/^s = silu\(x\)$/m);
    expect(back).toMatch(/^g = gelu_quick\(s\)$/m);
    expect(back).toMatch(/^u = unary\(g\)$/m);
    expect(back).toMatch(/^w = swiglu\(u\)$/m);
    expect(back).toMatch(/^v = geglu_split\(w, w\)$/m);
    expect(graphToText(parse(back))).toBe(back);
  });
  it('names the op as ggml_op_desc does, and what a tensor without an op is', () => {
    const doc = parse(text);
    expect(['s', 'u', 'w', 'o', 'x'].map((n) => opDesc(byName(doc, n)))).toEqual(['SILU', 'UNARY', 'SWIGLU', 'GLU', 'NONE']);
    expect(leafKind(byName(doc, 'x'))).toBe('input');
    expect(leafKind({ op: 'NONE', buffer_type: 0, flags: ['input'] })).toBe('input'); // input(...) extern
    expect(leafKind({ op: 'NONE', buffer_type: 0 })).toBe('weight');
    expect(leafKind({ op: 'NONE' })).toBe('leaf');
  });
  it('comes from imported documents, and bad ones are refused at their place', () => {
    const doc = {
      tensors: [
        { name: 'x', op: 'NONE', type: 'f32', ne: [8], flags: ['input'] },
        { name: 'y', op: 'UNARY', unary_op: 'RELU', type: 'f32', ne: [8], src: [0] },
      ],
      outputs: [1],
    };
    expect(graphToText(g.normalize(doc))).toMatch(/^y = relu\(x\)( nocompute)?$/m);
    expect(parse(graphToText(g.normalize(doc))).tensors[1].unary_op).toBe('RELU');
    // the C reader is the one checker (ui-import.test.js: the UI's import path gives its verdicts)
    const bad = (t) => () => g.normalize({ ...doc, tensors: [doc.tensors[0], { ...doc.tensors[1], ...t }] });
    expect(bad({ unary_op: 'si lu' })).toThrow('tensors[1].unary_op: unknown unary_op "si lu"');
    expect(bad({ unary_op: undefined, glu_op: 'SWIGLU' })).toThrow('tensors[1].glu_op: only GLU tensors have one (this one is UNARY)');
    // a name the tables lack is kept, as the CLI keeps it, and its text reads back to it
    const kept = g.normalize({ ...doc, tensors: [doc.tensors[0], { ...doc.tensors[1], unary_op: 'relu' }] });
    expect(parse(graphToText(kept)).tensors[1].unary_op).toBe('relu');
  });
});

describe('graphToText writes what a ggml developer would', () => {
  it('uses ggml calls, not op names, for the llama graphs', () => {
    const text = graphToText(read('llama-tiny.graph.json'));
    expect(text).toMatch(/^Kcur-0 = mul_mat\(blk\.0\.attn_k\.weight, attn_norm-0\)$/m);
    expect(text).toMatch(/^"Kcur-0 \(reshaped\)" = reshape_3d\(Kcur-0, 16, 4, 8\)$/m);
    expect(text).not.toMatch(/= [A-Z_]+\(/);
    expect(text).not.toMatch(/ (ne|nb|view|offs|type)=/);
  });
  it('round trips documents that only give outputs, unordered nodes and detached tensors', () => {
    const doc = {
      format: 'galloc-graph', version: 1, name: 'odd',
      tensors: [
        { name: 'a', op: 'NONE', type: 'f32', ne: [4], flags: ['input'] },
        { name: 'b', op: 'NONE', type: 'f32', ne: [4] },
        { name: 'c', op: 'ADD', type: 'f32', ne: [4], src: [0, 1] },
        { name: 'd', op: 'MUL', type: 'f32', ne: [4], src: [2, 0] },
        { name: 'e', op: 'NONE', type: 'f32', ne: [9] },
      ],
      nodes: [3, 2], leafs: [1, 0],
    };
    expect(planningKey(parse(graphToText(doc)))).toEqual(planningKey(doc));
    const outputsOnly = g.normalize({ tensors: doc.tensors.slice(0, 4), outputs: [3] });
    expect(planningKey(parse(graphToText(outputsOnly)))).toEqual(planningKey(outputsOnly));
  });
});
