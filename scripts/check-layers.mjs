// check-layers.mjs: the source tree keeps its layers, has no circles, and exports only prefixed names.
//
// usage: node scripts/check-layers.mjs OBJ_DIR     (OBJ_DIR: build/san/obj, one folder per layer)
//
// Layers of c/src, lowest first (c/layers.mk): util < ggml < alloc < documents < whatif, models.
// A file may use its own layer and the layers below it, never a layer above or beside it:
//  1. includes: every #include "..." of c/src/<layer>/* and c/include/* resolves to a file of an
//     allowed layer. A public header's layer is that of the c/src file named like it
//     (galloc-whatif.h: c/src/whatif/galloc-whatif*.c), or PUBLIC_LAYERS below.
//  2. no include cycle among those files;
//  3. symbols (nm): an object may only use symbols defined in allowed layers, and no objects
//     depend on each other in a circle (except KNOWN_CIRCLES, listed to be cut);
//  4. every symbol the library exports starts with galloc_, ggml_ or gguf_.
// Ends with "layers: N checks passed" or the list of violations (exit 1).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const RANK = { util: 0, ggml: 1, alloc: 2, documents: 3, whatif: 4, models: 4 };
const PUBLIC_LAYERS = { 'galloc-status.h': 'util', 'ggml-cpp.h': 'alloc' }; // headers with no source of their name
const PREFIXES = /^(galloc_|ggml_|gguf_)/;
// circles tolerated while they are cut (none left): any other circle fails, and so does a circle
// listed here that is gone (so the list cannot outlive what it tolerates)
const KNOWN_CIRCLES = [];
const objDir = process.argv[2] ?? 'build/san/obj';
const problems = [];
let checks = 0;

const allowed = (from, to) => from === to || RANK[to] < RANK[from];

// the layer list of c/layers.mk and the folders of c/src agree with RANK
const mk = readFileSync('c/layers.mk', 'utf8').match(/^GALLOC_LAYERS\s*:=\s*(.*)$/m)?.[1].trim().split(/\s+/) ?? [];
const folders = readdirSync('c/src', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
for (const l of new Set([...mk, ...folders, ...Object.keys(RANK)])) {
  checks++;
  if (!mk.includes(l) || !folders.includes(l) || !(l in RANK)) problems.push(`layer ${l}: must be in c/layers.mk, c/src and RANK of scripts/check-layers.mjs`);
}

// every file with its layer
const files = new Map(); // path -> layer
for (const l of folders) for (const f of readdirSync(`c/src/${l}`)) files.set(`c/src/${l}/${f}`, l);
const sources = [...files.keys()].filter((f) => f.endsWith('.c'));
for (const h of readdirSync('c/include')) {
  const stem = h.replace(/\.h$/, '');
  const impl = sources.filter((f) => path.basename(f).startsWith(stem)).map((f) => files.get(f));
  const layer = PUBLIC_LAYERS[h] ?? (impl.length ? impl.sort((a, b) => RANK[a] - RANK[b])[0] : null);
  checks++;
  if (!layer) problems.push(`c/include/${h}: no layer (no c/src/*/${stem}*.c; add it to PUBLIC_LAYERS)`);
  else files.set(`c/include/${h}`, layer);
}

// headers generated into build/gen, each with the one layer whose sources include it
const GENERATED = { 'build/gen/galloc-preset-data.h': 'models', 'build/gen/galloc-card-data.h': 'models' }; // c/presets/presets.mk, c/cards/cards.mk
for (const [file, layer] of Object.entries(GENERATED)) {
  checks++;
  if (existsSync(file)) files.set(file, layer);
  else problems.push(`${file}: missing (build it first: make ${file})`);
}

// 1. includes, 2. include cycles
const edges = new Map();
for (const [file, layer] of files) {
  const deps = [];
  for (const m of readFileSync(file, 'utf8').matchAll(/^\s*#\s*include\s+"([^"]+)"/gm)) {
    const name = m[1];
    const here = path.join(path.dirname(file), name);
    const target = [here, `c/include/${name}`, ...folders.map((l) => `c/src/${l}/${name}`), `build/gen/${name}`].find((p) => files.has(p) && existsSync(p));
    checks++;
    if (!target) {
      problems.push(`${file}: #include "${name}" is not a file of c/include, c/src or build/gen (tests and benchmarks are above the library)`);
      continue;
    }
    deps.push(target);
    if (!allowed(layer, files.get(target))) problems.push(`${file} (${layer}): includes ${target} of layer ${files.get(target)}`);
  }
  edges.set(file, deps);
}

// strongly connected components (Tarjan), the circles of a graph
function circles(graph) {
  const index = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  let n = 0;
  const visit = (v) => {
    index.set(v, n); low.set(v, n++); stack.push(v); on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const c = [];
      let w;
      do { w = stack.pop(); on.delete(w); c.push(w); } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}
checks++;
for (const c of circles(edges)) problems.push(`include circle: ${c.join(' <-> ')}`);

// 3. symbols across objects, 4. prefixes
const objects = [];
for (const l of folders) {
  const dir = path.join(objDir, l);
  if (!existsSync(dir)) { problems.push(`${dir}: missing (build the library first)`); continue; }
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.o'))) objects.push({ file: path.join(dir, f), layer: l, name: `${l}/${f.replace(/\.o$/, '.c')}` });
}
const definedBy = new Map();
for (const o of objects) {
  o.defined = []; o.undefined = [];
  const out = execFileSync('nm', ['-g', o.file], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const m = line.trim().match(/^(?:[0-9a-f]+\s+)?([A-Za-z])\s+(\S+)$/);
    if (!m || m[2].startsWith('__')) continue; // sanitizer and compiler symbols
    if (m[1] === 'U') o.undefined.push(m[2]);
    else if (m[1] !== 'w' && m[1] !== 'v') { o.defined.push(m[2]); definedBy.set(m[2], o); }
  }
  for (const s of o.defined) {
    checks++;
    if (!PREFIXES.test(s)) problems.push(`${o.name}: exports ${s}, without the galloc_/ggml_/gguf_ prefix`);
  }
}
const calls = new Map();
for (const o of objects) {
  const deps = new Set();
  for (const s of o.undefined) {
    const d = definedBy.get(s);
    if (!d || d === o) continue;
    checks++;
    deps.add(d.name);
    if (!allowed(o.layer, d.layer)) problems.push(`${o.name} (${o.layer}): uses ${s} of ${d.name} (${d.layer})`);
  }
  calls.set(o.name, [...deps]);
}
checks++;
let known = 0;
const found = circles(calls).map((c) => c.join(' <-> '));
for (const c of found) {
  if (KNOWN_CIRCLES.includes(c)) known++;
  else problems.push(`circular dependency between source files: ${c}`);
}
for (const c of KNOWN_CIRCLES.filter((k) => !found.includes(k))) {
  checks++;
  problems.push(`KNOWN_CIRCLES lists ${c}, which is no longer a circle: remove it from the list`);
}

for (const p of problems) console.log(`layers: ${p}`);
if (problems.length) {
  console.log(`layers: ${problems.length} violations`);
  process.exit(1);
}
console.log(`layers: ${checks} checks passed (${files.size} files in ${folders.length} layers, ${objects.length} objects; ${known} known circles left)`);
