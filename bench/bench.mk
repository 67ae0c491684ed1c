# bench.mk: `make bench`, planning-time benchmarks (included by the Makefile).
#
# The runs, then one table and build/bench.json (bench/report.mjs):
#   bench-plan   ggml_gallocr on graphs built with the ggml API (llama presets, random 1k..1M nodes)
#                and on golden documents rebuilt as ggml graphs (the graphs upstream was timed on),
#                with stock glibc (as a user's process runs), then again with glibc tuned to keep
#                freed memory (labelled), then instructions per plan under callgrind (instructions.mjs)
#   bench-docs   the planner on the documents of bench/documents.txt, natively
#   bench-wasm   the same documents in the WebAssembly module under Node
# then bench-whatif (bench/whatif.mk): offline planners vs ggml and the lower bound.

# graph documents rebuilt as ggml graphs: test support, shared with the benchmarks
BENCH_PLAN_SRC := bench/bench-util.c tests/c/support/galloc-document-ggml.c
build/rel/bench-plan: bench/bench-plan.c $(BENCH_PLAN_SRC) bench/bench-util.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< $(BENCH_PLAN_SRC) build/rel/libgalloc.a -o $@

build/rel/bench-docs: bench/bench-docs.c bench/bench-util.c bench/galloc-timing.c bench/*.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< bench/bench-util.c bench/galloc-timing.c build/rel/libgalloc.a -o $@

# ggml_gallocr through ggml's public API only (the source compiles unchanged against upstream ggml)
build/rel/bench-ggml-api: bench/bench-ggml-api.c build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) -Ic/include -Ic/src/ggml $< build/rel/libgalloc.a -o $@

bench: build/rel/bench-plan build/rel/bench-ggml-api build/rel/bench-docs build/wasm/galloc.mjs node_modules/.package-lock.json
	./build/rel/bench-plan build/bench-api.json > build/bench-api.txt
	./build/rel/bench-plan --tuned build/bench-api-tuned.json > build/bench-api-tuned.txt
	./build/rel/bench-ggml-api > build/bench-ggml-api.txt && ./build/rel/bench-ggml-api --hot >> build/bench-ggml-api.txt
	node bench/instructions.mjs build/bench-instr.json
	./build/rel/bench-docs bench/documents.txt build/bench-docs.jsonl
	node bench/bench-wasm.mjs bench/documents.txt build/bench-wasm.jsonl
	node bench/report.mjs
	@$(MAKE) --no-print-directory bench-whatif
