# gen-many-buffer-types.awk: a graph of NBT buffer types, each a PER-tensor random CONCAT graph
# (sources within W tensors back, sizes 8..512 floats; LCG-seeded, so the same every run).
# Its what-if problems are hard enough that about a third use their whole exact-search budget.
#   awk -v NBT=60 -v PER=200 -v W=30 -f scripts/gen-many-buffer-types.awk > graph.json
function rnd(n) { seed = (seed * 16807) % 2147483647; return int(seed / 64) % n } # exact in doubles
BEGIN {
    seed = 7
    printf "{\"format\":\"galloc-graph\",\"version\":1,\"buffer_types\":["
    for (b = 0; b < NBT; b++) printf "%s{\"name\":\"b%d\",\"alignment\":32}", (b ? "," : ""), b
    printf "],\"tensors\":["
    for (b = 0; b < NBT; b++) {
        base = b * PER
        printf "%s{\"op\":\"NONE\",\"type\":\"f32\",\"ne\":[8],\"flags\":[\"input\"]}", (b ? "," : "")
        for (i = 1; i < PER; i++) {
            lo = i - W; if (lo < 0) lo = 0
            s1 = lo + rnd(i - lo); s2 = lo + rnd(i - lo)
            src = (s1 == s2) ? (base + s1) : (base + s1) "," (base + s2)
            printf ",\n{\"op\":\"CONCAT\",\"type\":\"f32\",\"ne\":[%d],\"src\":[%s]}", (1 + rnd(64)) * 8, src
        }
    }
    # the lists, printed as they go (string concatenation would be quadratic in NBT * PER)
    printf "],\"nodes\":["
    for (b = 0; b < NBT; b++) for (i = 1; i < PER; i++) printf "%s%d", (b || i > 1 ? "," : ""), b * PER + i
    printf "],\"leafs\":["
    for (b = 0; b < NBT; b++) printf "%s%d", (b ? "," : ""), b * PER
    printf "],\"node_buffer_ids\":["
    for (b = 0; b < NBT; b++) for (i = 1; i < PER; i++) printf "%s%d", (b || i > 1 ? "," : ""), b
    printf "],\"leaf_buffer_ids\":["
    for (b = 0; b < NBT; b++) printf "%s%d", (b ? "," : ""), b
    printf "]}\n"
}
