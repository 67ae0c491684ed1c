// bench-whatif-wasm.mjs: the exact what-if search in the WebAssembly module under Node, on the
// MiniMalloc CSV problems (capacity from the file name), as the browser's what-if worker runs it
// (galloc.whatifCsv). Per problem: the median of RUNS runs of the exact search's time, when it
// fit the capacity, and whether it proved its plan optimal.
//   node bench/bench-whatif-wasm.mjs [MINIMALLOC_DIR] [BUDGET_MS] [RUNS]
import { readdirSync, readFileSync } from 'node:fs';
import { loadGalloc } from '../web/src/core/galloc.js';

const [dir = '../shared/bench/minimalloc', budgetArg = '10000', runsArg = '3'] = process.argv.slice(2);
const budgetMs = Number(budgetArg), runs = Number(runsArg);
const galloc = await loadGalloc();
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`MiniMalloc problems in ${dir}, WebAssembly (Node ${process.version}), exact budget ${budgetMs} ms, median of ${runs}`);
console.log(`${'problem'.padEnd(16)} ${'bound'.padStart(9)} ${'exact'.padStart(9)} ${'fit ms'.padStart(9)} ${'exact ms'.padStart(9)}  proved`);
for (const name of readdirSync(dir).filter((f) => /\.\d+\.csv$/.test(f)).sort()) {
  const capacity = BigInt(name.match(/\.(\d+)\.csv$/)[1]);
  const text = readFileSync(`${dir}/${name}`, 'utf8');
  const fits = [], times = [];
  let result;
  for (let k = 0; k < runs; k++) {
    result = galloc.whatifCsv(text, { capacity, budgetMs });
    const exact = result.planners.find((p) => p.name === 'exact');
    fits.push(exact.fit_us === null ? Infinity : exact.fit_us / 1000);
    times.push(exact.time_us / 1000);
  }
  const exact = result.planners.find((p) => p.name === 'exact');
  const fit = median(fits);
  console.log(`${name.padEnd(16)} ${String(result.lower_bound).padStart(9)} ${String(exact.total).padStart(9)} ` +
              `${(fit === Infinity ? 'never' : fit.toFixed(0)).padStart(9)} ${median(times).toFixed(0).padStart(9)}  ${exact.proved_optimal ? 'proved' : 'not proved'}`);
}
