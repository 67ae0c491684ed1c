// instructions.mjs: instructions per plan, counted by valgrind's callgrind.
//
// Runs the benchmark programs under `valgrind --tool=callgrind --collect-atstart=no`, so only
// what each program toggles collection around is counted (bench-ggml-api, bench-plan: the
// planning calls; bench-ggml-api --build: the graph built through ggml's API, planned and freed;
// bench-planner-path: the planner path or one phase of it), and divides
// callgrind's "Collected" total by the runs. Instruction counts repeat exactly for the same
// binary and input, whatever else the machine does, so they compare builds where wall times on a
// shared machine cannot. With UPSTREAM_API=BINARY (bench-ggml-api.c built against upstream ggml,
// outside the project) its graphs are counted for upstream too, in the same run.
// Writes build/bench-instr.json; without valgrind it says so and writes an empty list.
//   node bench/instructions.mjs [OUT.json]
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const RUNS = 5;
const API_FRESH = ['llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'llama-70b-decode', 'random-10k', 'random-100k'];
const API_HOT = ['llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'llama-70b-decode'];
// 1M nodes: one plan after one warm-up (about 1.4G instructions, a few minutes under callgrind)
const ONCE = { runs: 1, warmup: 1 };
// the graphs the planner path is counted on: there, build + plan through the API is its reference
const PATH_GRAPHS = ['llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'llama-70b-decode', 'random-10k'];
const apiCases = (program) => [
  ...API_FRESH.map((graph) => ({ program, graph })),
  { program, graph: 'random-1000k', ...ONCE },
  ...API_HOT.map((graph) => ({ program, graph, args: ['--hot'] })),
  ...PATH_GRAPHS.map((graph) => ({ program, graph, args: ['--build'] })),
];
const CASES = [
  ...apiCases('bench-ggml-api'),
  // the planner path (document in, plan out): whole, and each phase, on the same graphs
  // (random 100k: 1.6G instructions a plan, minutes under callgrind; 10k shows the same per tensor)
  ...['llama-7b-pp512', 'llama-70b-pp512', 'random-10k'].flatMap((graph) =>
    ['all', 'read', 'plan', 'write', 'binary'].map((phase) => ({ program: 'bench-planner-path', graph, phase, args: ['--phase', phase] }))),
  ...['llama-7b-decode', 'llama-70b-decode'].map((graph) => ({ program: 'bench-planner-path', graph, phase: 'all', args: ['--phase', 'all'] })),
  // graphs only bench-plan has: golden documents rebuilt as ggml graphs (two buffer types, chunked)
  ...['golden llama-7b-like', 'golden llama-7b-like-2buft', 'golden rand-n10000-lowleaf-s0-a8', 'golden rand-n10000-s0-a8-chunked']
    .map((graph) => ({ program: 'bench-plan', graph, args: ['/dev/null'] })),
  ...(process.env.UPSTREAM_API ? apiCases('upstream') : []),
];


const binary = (program) => (program === 'upstream' ? process.env.UPSTREAM_API : `build/rel/${program}`);
const out = process.argv[2] ?? 'build/bench-instr.json';
const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const results = [];
if (!hasValgrind) {
  console.log('instructions: valgrind not found, not counted');
} else {
  for (const { program, graph, phase, args = [], runs = RUNS, warmup } of CASES) {
    // bench-plan's --runs N skips its warm-up; the others take --warmup (1: enough for a count)
    const uncounted = program === 'bench-plan' ? [] : ['--warmup', String(warmup ?? 1)];
    const argv = ['--tool=callgrind', '--collect-atstart=no', '--callgrind-out-file=/dev/null',
      binary(program), '--only', graph, '--runs', String(runs), ...uncounted, ...args];
    const r = spawnSync('valgrind', argv, { encoding: 'utf8', maxBuffer: 1 << 26 });
    const m = /Collected : (\d+)/.exec(r.stderr ?? '');
    if (r.status !== 0 || !m) {
      console.error(`instructions: ${program} ${graph}: valgrind failed\n${r.stderr}`);
      process.exit(1);
    }
    if (Number(m[1]) === 0) { // compiled without <valgrind/callgrind.h>: nothing toggles collection
      console.error(`instructions: ${binary(program)} counts nothing: rebuild it with valgrind installed (valgrind/callgrind.h)`);
      process.exit(1);
    }
    const hot = args.includes('--hot');
    const plan = hot ? 'hot' : args.includes('--build') ? 'build' : 'fresh';
    results.push({ program, graph, plan, ...(phase ? { phase } : {}), runs,
      instructions_per_plan: Math.round(Number(m[1]) / runs) });
    let perTensor = '';
    if (program === 'bench-planner-path') { // its table row: graph, nodes, tensors, ...
      const row = (r.stdout ?? '').split('\n').find((l) => l.startsWith(`${graph} `));
      const tensors = row ? Number(row.trim().split(/\s+/)[2]) : NaN;
      if (tensors > 0) {
        results.at(-1).instructions_per_tensor = Math.round(results.at(-1).instructions_per_plan / tensors);
        perTensor = `, ${results.at(-1).instructions_per_tensor} per tensor`;
      }
    }
    console.log(`instructions: ${program} ${graph}${plan !== 'fresh' ? ` --${plan}` : ''}${phase ? ` (${phase})` : ''}: ${results.at(-1).instructions_per_plan}${perTensor}`);
  }
}
const version = hasValgrind ? execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim() : null;
writeFileSync(out, JSON.stringify({ valgrind: version, upstream_api: process.env.UPSTREAM_API ?? null, results }, null, 2) + '\n');
