// check-capture.mjs: the capture library end to end (make test-capture).
//
// usage: node tests/capture/check-capture.mjs GALLOC_CLI BUILD_DIR...
// Each BUILD_DIR (one per compiler) holds libggml-subset.so (the project's ggml as a shared
// library), capture-demo (tests/capture/capture-demo.c, linked against it),
// libgalloc-capture.so, capture-demo-static (the same program with ggml linked in) and
// symbolic/ (the program beside a -Bsymbolic libggml-subset.so). Checked, independently of
// the library's own code: which documents were written and under which names, that a
// repeated graph was written once, what the graph documents say about buffer types and ids,
// that `galloc plan` of each captured graph equals ggml's placement (`galloc diff`), how
// alloc_graph's own re-reserve arrived (gcc: through the PLT; clang: a direct call the
// replay has to predict), that LD_BIND_NOW does not stop a process without ggml, that the
// library has no strong references to ggml and exports its hooks only, that static and
// -Bsymbolic builds are named, and that valgrind finds no error or leak of it in the program.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

const [galloc, ...builds] = process.argv.slice(2).map((p) => resolve(p));
let passed = 0;
const failures = [];
function check(ok, what) {
  if (ok) passed++;
  else failures.push(what);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return null;
  }
}

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

// what capture-demo.c does, written down by hand: seven distinct graphs (A's first graph is
// reserved twice), six of them placed
const expected = [
  { stem: 'capture-demo-001-14n-CPU', nodes: 14, types: [['CPU', 32, null]], placed: true },
  { stem: 'capture-demo-002-22n-CPU', nodes: 22, types: [['CPU', 32, null]], placed: true },
  { stem: 'capture-demo-003-15n-gpu+pinned', nodes: 15, types: [['gpu', 64, 4096], ['pinned', 32, null], ['gpu', 64, 4096], ['CPU', 32, null]], placed: true, ids: 3 },
  { stem: 'capture-demo-004-24n-gpu+pinned', nodes: 24, types: [['gpu', 64, 4096], ['pinned', 32, null], ['gpu', 64, 4096], ['CPU', 32, null]], placed: true, ids: 3 },
  { stem: 'capture-demo-005-9n-CPU+pinned', nodes: 9, types: [['CPU', 32, null], ['pinned', 32, null]], placed: false, ids: 2 },
  { stem: 'capture-demo-006-2n-gpu', nodes: 2, types: [['gpu', 64, 4096]], placed: true, chunks: 3 },
  // placed through a smaller graph of the same shape
  { stem: 'capture-demo-007-10n-CPU', nodes: 10, types: [['CPU', 32, null]], placed: true },
];

for (const dir of builds) {
  const cc = basename(dir);
  const lib = join(dir, 'libgalloc-capture.so');
  const out = mkdtempSync(join(tmpdir(), `capture-${cc}-`));
  const demo = run(join(dir, 'capture-demo'), [], { LD_PRELOAD: lib, GALLOC_CAPTURE_DIR: out });
  check(demo.status === 0, `${cc}: capture-demo exits 0 under the library (${demo.status}: ${demo.stderr})`);

  const files = readdirSync(out).sort();
  const want = expected.flatMap((e) => [`${e.stem}.graph.json`, ...(e.placed ? [`${e.stem}.ggml-plan.json`] : [])]).sort();
  check(JSON.stringify(files) === JSON.stringify(want), `${cc}: files written: ${files.join(' ')} (expected ${want.join(' ')})`);

  // one summary line per distinct graph, the repeated one said as such
  for (const [i, e] of expected.entries()) {
    const line = `galloc: graph ${i + 1}: ${e.nodes} nodes, `;
    check(demo.stderr.includes(line) && demo.stderr.includes(`-> ${out}/${e.stem}.graph.json`), `${cc}: summary of graph ${i + 1}`);
  }
  check(/galloc: graph 1 again: 14 nodes/.test(demo.stderr), `${cc}: the graph reserved twice is said to be graph 1 again`);

  for (const e of expected) {
    const doc = readJson(join(out, `${e.stem}.graph.json`));
    if (doc === null) {
      check(false, `${cc}: ${e.stem}.graph.json is there and is JSON`);
      continue;
    }
    const types = doc.buffer_types.map((t) => [t.name.replace(/#\d+$/, ''), t.alignment, t.max_size]);
    check(JSON.stringify(types) === JSON.stringify(e.types), `${cc}: ${e.stem} buffer types ${JSON.stringify(types)}`);
    check(doc.nodes.length === e.nodes && doc.name === e.stem, `${cc}: ${e.stem} name and node count`);
    const ids = doc.node_buffer_ids ?? [];
    check(ids.length === e.nodes && ids.every((id, i) => id === (e.ids ? i % e.ids : 0)), `${cc}: ${e.stem} node buffer ids`);
    if (!e.placed) continue;
    const plan = join(out, `${e.stem}.plan.json`);
    const planned = run(galloc, ['plan', join(out, `${e.stem}.graph.json`), '-o', plan]);
    check(planned.status === 0, `${cc}: galloc plan ${e.stem} (${planned.stderr})`);
    const diff = run(galloc, ['diff', plan, join(out, `${e.stem}.ggml-plan.json`)]);
    check(diff.status === 0, `${cc}: galloc diff of ${e.stem} against ggml's placement: ${diff.stdout}${diff.stderr}`);
    // chunk sizes derived from the placement are those ggml allocated (every graph here grew the buffers)
    const real = readJson(join(out, `${e.stem}.ggml-plan.json`));
    const grown = real !== null && real.buffers.every((b) => JSON.stringify(b.chunk_sizes) === JSON.stringify(b.buffer_sizes));
    check(grown, `${cc}: ${e.stem} chunk sizes equal the buffers ggml allocated`);
    if (e.chunks) check(real?.buffers[0].chunk_sizes.length === e.chunks, `${cc}: ${e.stem} has ${e.chunks} chunks`);
  }
  // gcc calls ggml_gallocr_reserve through the PLT inside ggml-alloc.c, clang calls it directly
  // the counts of the closing summary (capture-startup.c), read as numbers: a summary that is not there fails
  const viaPlt = cc.startsWith('clang') ? 0 : 1;
  const counts = /re-reserved (\d+) graphs itself \((\d+) through the PLT, (\d+) by a direct call\), (\d+) of them not predicted/.exec(demo.stderr);
  check(counts !== null, `${cc}: the closing summary with alloc_graph's own re-reserves`);
  const [auto, plt, direct, missed] = counts ? counts.slice(1).map(Number) : [];
  check(auto === 1 && plt === viaPlt && direct === 1 - viaPlt, `${cc}: alloc_graph's own re-reserve ${viaPlt ? 'through the PLT' : 'by a direct call'}`);
  // the replay of upstream's needs_realloc and the project's ggml agree (a re-reserve the replay did
  // not predict, e.g. after reserve_n_size, is counted: capture_stats.auto_missed)
  check(missed === 0, `${cc}: every re-reserve inside alloc_graph was predicted by the replay (${missed} not)`);
  rmSync(out, { recursive: true, force: true });

  // no strong undefined ggml symbol: a process without ggml starts even when binding everything at once
  const nm = run('nm', ['-D', '--undefined-only', lib]);
  check(nm.status === 0 && !/ U ggml_/.test(nm.stdout), `${cc}: no strong ggml references in the library`);
  // it exports the hooks and nothing else (its copy of the exporter must not stand in for a program's own)
  const hooks = ['ggml_backend_buft_alloc_buffer', 'ggml_gallocr_alloc_graph', 'ggml_gallocr_free', 'ggml_gallocr_new',
                 'ggml_gallocr_new_n', 'ggml_gallocr_reserve', 'ggml_gallocr_reserve_n', 'ggml_gallocr_reserve_n_size'];
  const defined = run('nm', ['-D', '--defined-only', lib]).stdout.split('\n').map((l) => l.split(' ').pop()).filter((n) => n && !n.startsWith('_'));
  check(JSON.stringify(defined.sort()) === JSON.stringify(hooks), `${cc}: the library exports the hooks only (${defined.join(' ')})`);
  const bindNow = run('/bin/true', [], { LD_PRELOAD: lib, LD_BIND_NOW: '1' });
  check(bindNow.status === 0 && bindNow.stderr === '', `${cc}: LD_BIND_NOW=1 LD_PRELOAD=... /bin/true (${bindNow.status}: ${bindNow.stderr})`);

  // builds that hide the calls are named at start-up
  const staticOut = mkdtempSync(join(tmpdir(), `capture-static-${cc}-`));
  const stat = run(join(dir, 'capture-demo-static'), [], { LD_PRELOAD: lib, GALLOC_CAPTURE_DIR: staticOut });
  check(stat.status === 0 && /has ggml built in \(a static build\)/.test(stat.stderr) && readdirSync(staticOut).length === 0,
        `${cc}: a static build is named and nothing written (${stat.stderr})`);
  rmSync(staticOut, { recursive: true, force: true });
  const symOut = mkdtempSync(join(tmpdir(), `capture-symbolic-${cc}-`));
  const sym = run(join(dir, 'symbolic', 'capture-demo'), [], { LD_PRELOAD: lib, GALLOC_CAPTURE_DIR: symOut });
  check(sym.status === 0 && /was linked with -Bsymbolic/.test(sym.stderr), `${cc}: a -Bsymbolic ggml is named (${sym.stderr.split('\n')[1]})`);
  rmSync(symOut, { recursive: true, force: true });
}

// the library never writes over a file or through a link planted in its directory (every file is
// created with O_EXCL | O_NOFOLLOW), a directory whose path leaves no room for its names writes
// nothing (names cut at 4,095 bytes made each .graph.json and its .ggml-plan.json one file), and the
// closing summary counts only what was written
{
  const dir = builds[0];
  const cc = basename(dir);
  const lib = join(dir, 'libgalloc-capture.so');
  const victims = mkdtempSync(join(tmpdir(), 'capture-victims-'));
  const out = mkdtempSync(join(tmpdir(), 'capture-planted-'));
  const placed = expected.filter((e) => e.placed);
  for (const e of placed) {
    writeFileSync(join(victims, e.stem), 'keep me');
    symlinkSync(join(victims, e.stem), join(out, `${e.stem}.ggml-plan.json`));
  }
  const r = run(join(dir, 'capture-demo'), [], { LD_PRELOAD: lib, GALLOC_CAPTURE_DIR: out });
  check(r.status === 0, `${cc}: capture-demo exits 0 with links planted (${r.status})`);
  check(placed.every((e) => readFileSync(join(victims, e.stem), 'utf8') === 'keep me'), `${cc}: no file written through a planted link`);
  check(/7 graphs written \(\d+ reserved again\), 0 placements/.test(r.stderr), `${cc}: the summary counts no placement (${r.stderr.split('\n').slice(-2).join(' ')})`);
  check(/cannot create .*ggml-plan\.json: File exists/.test(r.stderr), `${cc}: the planted name is said`);
  rmSync(out, { recursive: true, force: true });
  rmSync(victims, { recursive: true, force: true });

  const base = mkdtempSync(join(tmpdir(), 'capture-long-'));
  let long = base;
  while (long.length < 4085) long = join(long, 'd'.repeat(Math.min(200, 4085 - long.length - 1)));
  mkdirSync(long, { recursive: true });
  const l = run(join(dir, 'capture-demo'), [], { LD_PRELOAD: lib, GALLOC_CAPTURE_DIR: long });
  check(l.status === 0 && readdirSync(long).length === 0, `${cc}: a ${long.length}-byte directory: nothing written (${readdirSync(long).join(' ')})`);
  check(/path is too long/.test(l.stderr) && /0 graphs written/.test(l.stderr), `${cc}: ... said, and counted (${l.stderr.split('\n').slice(-2).join(' ')})`);
  rmSync(base, { recursive: true, force: true });
}

// memory errors and leaks of the library in the program, under valgrind (the library is not built
// with sanitizers: it runs inside someone else's process)
{
  const dir = builds[0];
  const out = mkdtempSync(join(tmpdir(), 'capture-valgrind-'));
  const vg = run('valgrind', ['--error-exitcode=9', '--leak-check=full', '--errors-for-leak-kinds=definite,indirect', '--trace-children=yes',
                              'env', `LD_PRELOAD=${join(dir, 'libgalloc-capture.so')}`, join(dir, 'capture-demo')], { GALLOC_CAPTURE_DIR: out });
  check(vg.status === 0 && / 0 errors from 0 contexts/.test(vg.stderr), `${basename(dir)}: valgrind finds no error and no leak (${vg.status})`);
  rmSync(out, { recursive: true, force: true });
}

for (const f of failures) console.error(`capture: FAIL ${f}`);
console.log(`capture: ${passed}/${passed + failures.length} checks passed (${builds.map((b) => basename(b)).join(', ')})`);
process.exit(failures.length ? 1 : 0);
