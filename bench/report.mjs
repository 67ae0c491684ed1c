// report.mjs: the tables of one `make bench` run, as markdown (build/bench.md) and JSON (build/bench.json).
//
// Reads what the runs wrote into build/ (bench/bench.mk lists them): ggml_gallocr through ggml's
// API with stock glibc (bench-ggml-api, fresh and hot) and with glibc tuned (labelled), the
// planner path (bench-planner-path), instructions under callgrind (instructions.mjs), the golden
// graphs (bench-plan), the planner natively and in WASM (bench-docs, bench-wasm), issue 15's bounds
// (bench-hostile.sh); upstream's figures are reference data from bench/upstream-instructions.json
// (or, with UPSTREAM_API, counted and timed in this run), always labelled with where they come from.
// Prints the markdown (no figures of earlier commits: the run is a report, not a target).
//   node bench/report.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const readLines = (path) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : []);
const run = (cmd, args) => {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};

// ---- the runs ---------------------------------------------------------------------

const api = readLines('build/bench-ggml-api.jsonl');
const tuned = readLines('build/bench-ggml-api-tuned.jsonl');
const upstreamRun = readLines('build/bench-upstream.jsonl'); // only with UPSTREAM_API
const path = readLines('build/bench-planner-path.jsonl');
const instr = readJson('build/bench-instr.json');
const golden = existsSync('build/bench-api.json') ? readJson('build/bench-api.json').results.filter((r) => r.graph.startsWith('golden ')) : [];
const docs = readLines('build/bench-docs.jsonl');
const wasm = new Map(readLines('build/bench-wasm.jsonl').map((r) => [r.graph, r]));
const hostile = readLines('build/bench-hostile.jsonl');
const reference = readJson('bench/upstream-instructions.json');
// "SECONDS LOAD1 LOAD5 LOAD15" written by the bench recipe when the runs start and when they end
const stamp = (p) => (existsSync(p) ? readFileSync(p, 'utf8').trim().split(/\s+/) : null);
const started = stamp('build/bench-start.txt');
const ended = stamp('build/bench-end.txt');

const key = (graph, plan) => `${graph} ${plan}`;
const byKey = (rows) => new Map(rows.map((r) => [key(r.graph, r.plan ?? 'fresh'), r]));
const apiOf = byKey(api);
const tunedOf = byKey(tuned);
const upstreamRunOf = byKey(upstreamRun);
const count = (program, graph, plan = 'fresh', phase) =>
  instr.results.find((r) => r.program === program && r.graph === graph && r.plan === plan && (phase ? r.phase === phase : true))?.instructions_per_plan;
// upstream's instructions and faults: counted in this run (UPSTREAM_API), else the reference file
const upstreamCounted = instr.results.some((r) => r.program === 'upstream');
const referenceOf = byKey(reference.results);
const upstreamInstr = (graph, plan = 'fresh') => (upstreamCounted ? count('upstream', graph, plan) : referenceOf.get(key(graph, plan))?.instructions_per_plan);
const upstreamFaults = (graph, plan = 'fresh') =>
  upstreamRun.length ? upstreamRunOf.get(key(graph, plan))?.faults_per_plan : referenceOf.get(key(graph, plan))?.faults_per_plan;

// ---- formatting -------------------------------------------------------------------

const int = (n) => (n == null ? '–' : Math.round(n).toLocaleString('en-US'));
const ms = (n) => (n == null ? '–' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
const wall = (r) => (r ? `${ms(r.median_ms)} (${ms(r.min_ms)}–${ms(r.max_ms)})` : '–');
const ratio = (a, b) => (a != null && b ? (a / b).toFixed(2) : '–');
const faults = (n) => (n == null ? '–' : n === 0 ? '0' : n < 10 ? n.toFixed(1) : int(n));
const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const LABELS = {
  'llama-7b-pp512': 'llama-7B-like, 512-token prompt', 'llama-7b-decode': 'llama-7B-like, one-token decode',
  'llama-70b-pp512': 'llama-70B-like (GQA), 512-token prompt', 'llama-70b-decode': 'llama-70B-like (GQA), one-token decode',
  'random-10k': 'random DAG, 10k nodes', 'random-100k': 'random DAG, 100k nodes', 'random-1000k': 'random DAG, 1M nodes',
  'random-far-10k': 'random DAG, far sources (many free blocks), 10k', 'random-far-100k': 'random DAG, far sources, 100k',
  'random-far-1000k': 'random DAG, far sources, 1M',
};
const label = (graph) => LABELS[graph] ?? graph;

// ---- the machine and the run ------------------------------------------------------

const cpu = (readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1] ?? os.cpus()[0]?.model ?? 'unknown CPU';
const glibc = run('getconf', ['GNU_LIBC_VERSION']) ?? 'not glibc';
const cc = (run(process.env.CC || 'cc', ['--version']) ?? '').split('\n')[0];
// the commit measured, as the recipe wrote it when the runs started (the report may be written later)
const commit = (existsSync('build/bench-commit.txt') ? readFileSync('build/bench-commit.txt', 'utf8').trim() : null) ||
  run('git', ['describe', '--always', '--dirty', '--abbrev=10']) || 'unknown';
const now = ended ? new Date(Number(ended[0]) * 1000) : new Date();
const endLoad = ended ? ended.slice(1, 4) : os.loadavg();
const elapsedMin = started ? (now.getTime() / 1000 - Number(started[0])) / 60 : null;
const load = (l) => l.map((x) => Number(x).toFixed(1)).join(' / ');
const tunables = tuned[0]?.glibc_tunables;

const lines = [];
const say = (s = '') => lines.push(s);
say(`Measured by \`make bench\` on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB (${os.type()} ${os.release()}, ${glibc}, ${cc}), ` +
  `${now.toISOString().slice(0, 16).replace('T', ' ')} UTC, commit ${commit}` +
  (elapsedMin != null ? `; the run took ${elapsedMin.toFixed(1)} min` : '') +
  (started ? `, load average (1/5/15 min) ${load(started.slice(1, 4))} at its start, ${load(endLoad)} at its end` : '') + '.');
say(`glibc as a user's process has it (stock: no GLIBC_TUNABLES, no mallopt) unless labelled "tuned" (\`GLIBC_TUNABLES=${tunables ?? '–'}\`: freed memory kept).`);
say(`Instructions: ${instr.valgrind ? `\`valgrind --tool=callgrind --collect-atstart=no\` (${instr.valgrind}), the planning calls only, per plan` :
  'valgrind not found: not counted'}. Wall times: median (min–max) in ms over the runs, after warm-up plans.`);
const upstreamBuild = 'bench-ggml-api.c built against upstream ggml outside the project';
if (upstreamRun.length) say(`Upstream's wall times and faults: \`UPSTREAM_API\` (${upstreamBuild}), timed in this run.`);
say(upstreamCounted ? `Upstream's instructions: \`${instr.upstream_api}\` (${upstreamBuild}), counted in this run.`
  : `Upstream's instructions${upstreamRun.length ? '' : ' and faults'} (reference data, not measured in this run; how: ` +
    `\`bench/upstream-instructions.json\`): ${reference.measured}.`);
say();

// ---- ggml_gallocr through ggml's public API ----------------------------------------

say('**ggml_gallocr through ggml\'s public API** (`bench-ggml-api`; fresh: `ggml_gallocr_new_n` + `reserve_n` + `alloc_graph` + `free`; ' +
  'hot: `alloc_graph` on an allocator reserved for the graph, the path llama.cpp runs per token; built + planned, counted only: ' +
  '`--build`, the graph built through the API, planned fresh and freed)');
say();
const apiRows = [];
for (const plan of ['fresh', 'hot']) {
  for (const r of api.filter((x) => x.plan === plan)) {
    const mine = count('bench-ggml-api', r.graph, plan);
    const up = upstreamInstr(r.graph, plan);
    const far = r.graph.startsWith('random-far');
    if (plan === 'hot' && !r.graph.startsWith('llama')) continue; // the per-token path is llama.cpp's
    apiRows.push([`${plan === 'hot' ? 'per token: ' : ''}${label(r.graph)}`, int(r.nodes), int(mine), far ? 'aborts' : int(up), ratio(mine, up),
      faults(r.faults_per_plan), far ? '–' : faults(upstreamFaults(r.graph, plan)), wall(r),
      ...(upstreamRun.length ? [wall(upstreamRunOf.get(key(r.graph, plan)))] : []),
      plan === 'fresh' ? wall(tunedOf.get(key(r.graph, plan))) : '–']);
  }
}
// the graph built through the API and planned (--build): counted only, not timed
for (const r of api.filter((x) => x.plan === 'fresh')) {
  const mine = count('bench-ggml-api', r.graph, 'build');
  const up = upstreamInstr(r.graph, 'build');
  if (mine == null && up == null) continue;
  apiRows.push([`built + planned: ${label(r.graph)}`, int(r.nodes), int(mine), int(up), ratio(mine, up), '–',
    faults(upstreamFaults(r.graph, 'build')), '–', ...(upstreamRun.length ? ['–'] : []), '–']);
}
say(table(['graph', 'nodes', 'instructions', 'upstream', 'ratio', 'faults', 'upstream faults', 'ms, stock glibc',
  ...(upstreamRun.length ? ['upstream ms'] : []), 'ms, tuned glibc'], apiRows));
say();
say('Far-source graphs leave more than 256 free blocks in a chunk: upstream aborts (`GGML_ASSERT` in `ggml_dyn_tallocr_free_bytes`).');
say();

// ---- the planner path --------------------------------------------------------------

say('**The planner path, document in, plan out** (`bench-planner-path`: the same graphs written as documents; ' +
  '`galloc_planned_read` + `galloc_document_write_plan` + free, JSON read and written counted; per tensor of the document). ' +
  'Two references from upstream, per tensor of the same document: its `ggml_gallocr` fresh plan alone (the graph already built, ' +
  'nothing to read), and the graph built through ggml\'s API and then planned (`bench-ggml-api --build`: `ggml_init`, every tensor ' +
  'and op call, `ggml_build_forward_expand`, the fresh plan, `ggml_free`), the nearest upstream counterpart of getting a graph in and planned.');
say();
const pathRows = [];
for (const r of path) {
  const all = count('bench-planner-path', r.graph, 'fresh', 'all');
  const phases = ['read', 'plan', 'write'].map((p) => count('bench-planner-path', r.graph, 'fresh', p));
  const up = upstreamInstr(r.graph);
  const upBuilt = upstreamInstr(r.graph, 'build');
  const perTensor = (n) => int(n != null ? n / r.tensors : null);
  pathRows.push([label(r.graph), int(r.tensors), `${int(r.document_bytes / 1024)} / ${int(r.plan_bytes / 1024)}`, int(all),
    perTensor(all), phases.every((p) => p != null) ? phases.map(perTensor).join(' / ') : '–',
    perTensor(up), ratio(all, up), perTensor(upBuilt), ratio(all, upBuilt), faults(r.faults_per_plan), wall(r)]);
}
say(table(['graph', 'tensors', 'KiB in / out', 'instructions', 'per tensor', 'read / plan / write per tensor',
  'upstream: plan per tensor', 'ratio to it', 'upstream: build + plan per tensor', 'ratio to it', 'faults', 'ms, stock glibc'], pathRows));
say();
const binaryRows = path.map((r) => [r, count('bench-planner-path', r.graph, 'fresh', 'binary')]).filter(([, n]) => n != null);
if (binaryRows.length) {
  say('The WebAssembly module hands the plan to the page as binary instead (`galloc_binary_write_plan`, `--phase binary`): ' +
    binaryRows.map(([r, n]) => `${int(n / r.tensors)} (${label(r.graph)})`).join(', ') + ' instructions per tensor, in place of the JSON write.');
  say();
}
say('(Graphs whose document passes the reader\'s 32 MiB limit, 1M nodes, are not documents. Neither upstream figure reads or ' +
  'writes any text: the first has no graph to get in at all; the second builds it from C calls, as llama.cpp does, where the ' +
  'planner path parses it from JSON and writes the plan out as JSON.)');
say();

// ---- graphs only bench-plan builds -------------------------------------------------

if (golden.length) {
  say('**Golden documents rebuilt as ggml graphs** (`bench-plan`, stock glibc; shapes the API graphs lack: two buffer types, a maximum buffer size)');
  say();
  say(table(['graph', 'nodes', 'instructions', 'faults', 'ms, stock glibc'],
    golden.map((r) => [r.graph.replace(/^golden /, ''), int(r.nodes), int(count('bench-plan', r.graph)), faults(r.faults_per_plan), wall(r)])));
  say();
}

// ---- native and WebAssembly --------------------------------------------------------

say('**The planner natively and in WebAssembly under Node** (`bench-docs`, `bench-wasm`: document read once, then planned per run; median ms)');
say();
const docRows = docs.map((r) => {
  const w = wasm.get(r.graph);
  return [r.graph, int(r.nodes), ms(r.median_ms), w ? ms(w.median_ms) : '–', ratio(w?.median_ms, r.median_ms), int(r.heap_bytes / 1024)];
});
say(table(['document', 'nodes', 'native ms', 'WASM ms', 'WASM / native', 'heap KiB'], docRows));
say();

// ---- issue 15's bounds -------------------------------------------------------------

if (hostile.length) {
  say('**Large and hostile inputs** (`bench-hostile.sh`, issue 15: release CLI and the UI\'s WASM module)');
  say();
  say(table(['case', 'seconds', 'peak memory', 'exit / answer'], hostile.map((r) => [r.case, r.seconds.toFixed(2),
    r.heap_mib != null ? `${r.heap_mib.toFixed(1)} MiB WASM heap after` : `${r.max_rss_mib.toFixed(1)} MiB max RSS`,
    r.message ?? `exit ${r.exit}`])));
}

const markdown = lines.join('\n') + '\n';
writeFileSync('build/bench.md', markdown);
writeFileSync('build/bench.json', JSON.stringify({ commit, date: now.toISOString(), cpu, n_cpus: os.cpus().length, glibc, cc,
  elapsed_min: elapsedMin, load_start: started?.slice(1, 4).map(Number) ?? null, load_end: endLoad.map(Number), glibc_tuned: tunables ?? null,
  api, api_tuned: tuned, upstream_run: upstreamRun, planner_path: path, instructions: instr, golden, documents: docs,
  wasm: [...wasm.values()], hostile, upstream_reference: reference }, null, 2) + '\n');
process.stdout.write(markdown);
console.log('\nwrote build/bench.md and build/bench.json');

