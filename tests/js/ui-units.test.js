// ui-units.test.js: one unit rule (issue 28 goal 8): llama.cpp's MiB with two decimals where
// llama.cpp prints them (compute buffer lines, the KV cache; checked against the CLI's log lines),
// binary units elsewhere, and in the tooltip, which has no hover of its own, the exact bytes beside
// any rounded size: no raw offsets.
import { describe, it, expect, beforeAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { tensorFacts } from '../../web/src/components/tensor-facts.js';
import { formatMiB, formatBytesBoth } from '../../web/src/core/format.js';
import { computeLogLine } from '../../web/src/core/model-settings.js';

const CLI = fileURLToPath(new URL('../../build/rel/galloc', import.meta.url));
let g;
beforeAll(async () => { g = await loadGalloc(); });

describe('units', () => {
  it('llama.cpp\'s MiB: the compute buffer and KV cache lines as the CLI prints them', () => {
    const m = g.openModel({ card: 'llama-3.1-8b' });
    try {
      for (const flags of [['-c', '4096', '-fa', 'on'], ['-c', '8192', '-fa', 'off']]) {
        const log = execFileSync('sh', ['-c', '"$0" "$@" 2>&1 >/dev/null', CLI, 'model', '--card', 'llama-3.1-8b', '-b', '2048', '-ub', '512', ...flags], { encoding: 'utf8' });
        const s = m.sizes({ n_ctx: Number(flags[1]), n_batch: 2048, n_ubatch: 512, flash_attn: flags[3] === 'on' ? 1 : 0 });
        expect(log).toContain(`KV cache = ${formatMiB(s.kv_bytes)}`);
        for (const b of s.buffer_types) expect(log).toContain(computeLogLine(b));
      }
    } finally { m.close(); }
    expect(formatMiB(1153443184)).toBe('1100.01 MiB'); // not 1.07 GiB where llama.cpp prints MiB
  });
  it('the tooltip: binary units with the exact bytes beside them, no raw offsets', () => {
    const d = normalizeGraph(g.normalize(g.preset('llama-3.1-8b-c4096')));
    const m = buildModel(d, g.plan(d));
    let seen = 0;
    for (const r of m.rects.filter((x) => !x.view && x.offset >= 1024).slice(0, 200)) {
      const f = tensorFacts(m, r.i);
      expect(f.where).toContain(`offset ${formatBytesBoth(r.offset)} ·`);
      expect(f.where, f.where).not.toMatch(/(^|[^\d,])\d{4,}(?![\d,])/); // every number of 4+ digits has separators
      expect(f.bytes).toMatch(/^[\d.]+ (B|KiB|MiB|GiB)( \([\d,]+ B\))?$/);
      seen++;
    }
    expect(seen).toBeGreaterThan(50);
    expect(formatBytesBoth(16)).toBe('16 B');
    expect(formatBytesBoth(4194304)).toBe('4.00 MiB (4,194,304 B)');
  });
});
