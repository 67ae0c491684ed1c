// instructions.mjs: instructions per plan of ggml_gallocr, counted by valgrind's callgrind.
//
// Runs build/rel/bench-plan under `valgrind --tool=callgrind --collect-atstart=no` for each
// graph, so only the planning calls are counted (bench-plan toggles collection around
// new_n + reserve_n + alloc_graph + free), and divides callgrind's "Collected" total by the
// runs. Instruction counts repeat exactly for the same binary and input, whatever else the
// machine does, so they compare builds where wall times on a shared machine cannot.
// Writes build/bench-instr.json; without valgrind it says so and writes an empty list.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const RUNS = 5;
// [program, graph, extra flags]: graphs small enough to run under valgrind in seconds
// bench-plan: the project's presets and golden graphs; bench-ggml-api: the graphs of the
// harness that also compiles against upstream ggml (fresh allocator, and --hot: alloc_graph
// on an allocator already reserved, the per-token path)
const CASES = [
  ...['llama-tiny', 'llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'random-1k', 'random-10k',
    'golden llama-7b-like', 'golden rand-n10000-lowleaf-s0-a8', 'golden rand-n10000-s0-a8'].map((g) => ['bench-plan', g, []]),
  ...['llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'llama-70b-decode', 'random-10k', 'random-100k']
    .map((g) => ['bench-ggml-api', g, []]),
  // 1M nodes: one plan after one warm-up (about 1.4G instructions, a few minutes under callgrind)
  ['bench-ggml-api', 'random-1000k', [], 1, ['--warmup', '1']],
  ...['llama-7b-pp512', 'llama-7b-decode', 'llama-70b-pp512', 'llama-70b-decode'].map((g) => ['bench-ggml-api', g, ['--hot']]),
];

const out = process.argv[2] ?? 'build/bench-instr.json';
const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const results = [];
if (!hasValgrind) {
  console.log('instructions: valgrind not found, not counted');
} else {
  for (const [program, graph, extra, runs = RUNS, uncounted = []] of CASES) {
    const args = ['--tool=callgrind', '--collect-atstart=no', '--callgrind-out-file=/dev/null',
      `build/rel/${program}`, '--only', graph, '--runs', String(runs), ...uncounted, ...extra, ...(program === 'bench-plan' ? ['/dev/null'] : [])];
    const r = spawnSync('valgrind', args, { encoding: 'utf8' });
    const m = /Collected : (\d+)/.exec(r.stderr ?? '');
    if (r.status !== 0 || !m) {
      console.error(`instructions: ${graph}: valgrind failed\n${r.stderr}`);
      process.exit(1);
    }
    results.push({ program, graph: graph + (extra.length ? ` ${extra.join(' ')}` : ''), runs,
      instructions_per_plan: Math.round(Number(m[1]) / runs) });
  }
}
const version = hasValgrind ? execFileSync('valgrind', ['--version'], { encoding: 'utf8' }).trim() : null;
writeFileSync(out, JSON.stringify({ valgrind: version, results }, null, 2) + '\n');
