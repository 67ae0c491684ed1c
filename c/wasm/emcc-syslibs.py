#!/usr/bin/env python3
# emcc-syslibs.py: emcc, run in this process, with a faster build of missing system libraries.
#
# Debian's emscripten ships prebuilt wasm32 system libraries only; the wasm64 module (-sMEMORY64)
# needs libc, compiler-rt, dlmalloc, ... built once into a writable cache (EM_CACHE). emcc builds
# them itself, but it compiles each of their ~1,300 sources by starting another emcc (a Python
# process: ~0.4 s of CPU before clang starts, ~4x clang's own time on a libc file). This wrapper
# runs emcc's own main in this process and replaces only that step: for each distinct set of
# flags it runs emcc once with -v (which compiles that source and prints the clang command it
# ran), then compiles the other sources of that set with the same clang command, EMCC_CORES (or
# all cores) at a time. Which libraries, which variants, their flags and their archives stay
# emcc's. A command that does not have the expected shape is run through emcc as before.
# (Checked: 331 libc objects emcc built itself have the same code, relocations and data.)
# Also: the node option emscripten 3.1.6 passes when it generates the wasm64 struct info is
# dropped (newer node refuses it).
#
# Usage: python3 c/wasm/emcc-syslibs.py <emcc arguments>    (EMSCRIPTEN_ROOT: /usr/share/emscripten)

import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

EM_ROOT = os.environ.get('EMSCRIPTEN_ROOT', '/usr/share/emscripten')
sys.path.insert(0, EM_ROOT)

import emcc  # noqa: E402  (emscripten's own driver)
from tools import shared, system_libs  # noqa: E402

stats = {'clang': 0, 'emcc': 0, 'seconds': 0.0}


def run(cmd, env):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise subprocess.CalledProcessError(r.returncode, cmd)
    return r


def learn(flags, src, out, env):
    """Compiles src with emcc -v; returns the clang command it ran as (template, src index, out index)."""
    stats['emcc'] += 1
    r = run(list(flags) + ['-v', '-c', src, '-o', out], env)
    for line in r.stderr.splitlines():
        if not line.startswith(' "'):
            continue
        argv = [a for a in shlex.split(line) if a != '-v']
        if argv.count(src) == 1 and argv.count(out) == 1 and argv.index(out) > 0 and argv[argv.index(out) - 1] == '-o':
            return argv, argv.index(src), argv.index(out)
    return None


def build(commands):
    """emcc's run_build_commands: each command is [emcc or em++, flags..., -c, src, -o, out]."""
    start = time.time()
    system_libs.ensure_sysroot()
    env = system_libs.clean_env()
    groups, odd = {}, []
    for cmd in commands:
        if len(cmd) >= 5 and cmd[-4] == '-c' and cmd[-2] == '-o':
            groups.setdefault(tuple(cmd[:-4]), []).append((cmd[-3], cmd[-1]))
        else:
            odd.append(cmd)
    cores = shared.get_num_cores()
    with ThreadPoolExecutor(max_workers=cores) as pool:
        # one emcc per flag set: compiles its first source and tells the clang command
        firsts = {flags: pool.submit(learn, flags, *files[0], env) for flags, files in groups.items()}
        jobs = [pool.submit(run, cmd, env) for cmd in odd]
        stats['emcc'] += len(odd)
        for flags, files in groups.items():
            template = firsts[flags].result()
            for src, out in files[1:]:
                if template is None:
                    stats['emcc'] += 1
                    jobs.append(pool.submit(run, list(flags) + ['-c', src, '-o', out], env))
                    continue
                argv, i_src, i_out = template
                cmd = list(argv)
                cmd[i_src], cmd[i_out] = src, out
                stats['clang'] += 1
                jobs.append(pool.submit(run, cmd, env))
        for job in jobs:
            job.result()
    stats['seconds'] += time.time() - start


system_libs.run_build_commands = build

# the wasm64 struct info (generated once into the cache) runs a program under node with
# --experimental-wasm-bigint, an option node 16+ no longer takes (BigInt integration is on)
_run_js_tool = shared.run_js_tool


def run_js_tool(filename, jsargs=[], node_args=[], **kw):  # noqa: B006 (emscripten's signature)
    return _run_js_tool(filename, jsargs, [a for a in node_args if a != '--experimental-wasm-bigint'], **kw)


shared.run_js_tool = run_js_tool

if __name__ == '__main__':
    status = emcc.main([os.path.join(EM_ROOT, 'emcc.py')] + sys.argv[1:])
    if stats['emcc'] or stats['clang']:
        print(f"emcc-syslibs: system libraries built: {stats['clang']} sources by clang, "
              f"{stats['emcc']} by emcc, {stats['seconds']:.0f} s wall", file=sys.stderr)
    sys.exit(status)
