// bench-whatif-wasm.mjs: the exact what-if search in the WebAssembly module under Node, on the
// MiniMalloc CSV problems (capacity from the file name), as the browser's what-if worker runs it
// (galloc.whatifCsv). Each problem in a Node process of its own, as in a fresh worker: V8 shares
// compiled WebAssembly between the modules of one process, so a second module would start with
// the first one's optimized code. Per problem: the first run's time to fit the capacity (the
// engine still compiling the search's code: what a user's first what-if costs), the median of
// RUNS runs' (the first included), the exact search's median time, and whether it proved its
// plan optimal, and the machine's load (1-minute average) when its process started: the times are
// wall-clock times, so a loaded machine stretches them.
//   node bench/bench-whatif-wasm.mjs [MINIMALLOC_DIR] [BUDGET_MS] [RUNS]
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const fitText = (ms) => (ms === null ? 'never' : ms.toFixed(0)).padStart(9);

// one problem, in this process: a JSON line
async function runOne(path, budgetMs, runs) {
  const { loadGalloc } = await import('../web/src/core/galloc.js');
  const galloc = await loadGalloc();
  const capacity = BigInt(path.match(/\.(\d+)\.csv$/)[1]);
  const text = readFileSync(path, 'utf8');
  const fits = [], times = [];
  let result, exact;
  for (let k = 0; k < runs; k++) {
    result = galloc.whatifCsv(text, { capacity, budgetMs });
    exact = result.planners.find((p) => p.name === 'exact');
    fits.push(exact.fit_us === null ? Infinity : exact.fit_us / 1000);
    times.push(exact.time_us / 1000);
  }
  const ms = (x) => (x === Infinity ? null : x);
  console.log(JSON.stringify({ bound: String(result.lower_bound), total: String(exact.total), first: ms(fits[0]), fit: ms(median(fits)),
                               time: median(times), proved: exact.proved_optimal }));
}

const args = process.argv.slice(2);
if (args[0] === '--one') {
  await runOne(args[1], Number(args[2]), Number(args[3]));
} else {
  const [dir = '../shared/bench/minimalloc', budgetArg = '10000', runsArg = '3'] = args;
  console.log(`MiniMalloc problems in ${dir}, WebAssembly (Node ${process.version}), exact budget ${budgetArg} ms, ` +
              `a process per problem, median of ${runsArg} runs`);
  console.log(`${'problem'.padEnd(16)} ${'bound'.padStart(9)} ${'exact'.padStart(9)} ${'first fit'.padStart(9)} ${'fit ms'.padStart(9)} ` +
              `${'exact ms'.padStart(9)}  ${'proved'.padEnd(10)}  load`);
  for (const name of readdirSync(dir).filter((f) => /\.\d+\.csv$/.test(f)).sort()) {
    const load = loadavg()[0];
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', `${dir}/${name}`, budgetArg, runsArg], { encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop());
    console.log(`${name.padEnd(16)} ${r.bound.padStart(9)} ${r.total.padStart(9)} ${fitText(r.first)} ${fitText(r.fit)} ` +
                `${r.time.toFixed(0).padStart(9)}  ${(r.proved ? 'proved' : 'not proved').padEnd(10)}  ${load.toFixed(1)}`);
  }
}
