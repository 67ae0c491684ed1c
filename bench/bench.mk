# bench.mk: `make bench`, planning-time benchmarks (included by the Makefile).
#
# The runs, each writing into build/, then the tables, build/bench.md and build/bench.json
# (bench/report.mjs; a report: no figures of earlier commits; docs/benchmarks.md says what each run is):
#   bench-ggml-api      ggml_gallocr through ggml's public API on llama-7B/70B-like prompt and decode
#                       graphs and random DAGs of 10k-1M nodes (bench-graphs.c), fresh allocators and
#                       the per-token path (--hot), stock glibc; fresh again with glibc tuned (labelled)
#   bench-planner-path  the same graphs as documents: read, planned, plan written (the CLI's and WASM's path)
#   bench-plan          golden documents rebuilt as ggml graphs (two buffer types, a maximum size)
#   instructions.mjs    instructions per plan of all three under callgrind, where valgrind is present,
#                       and of bench-ggml-api --build (the graph built through the API, then planned)
#   bench-docs          the planner on the documents of bench/documents.txt, natively
#   bench-wasm          the same documents in the WebAssembly module under Node
#   bench-transfer      (make bench-transfer, not in `make bench`): a kept document's graph and plan
#                       brought to JS as JSON text and as binary (bench/bench-transfer.mjs), printed
#   bench-hostile.sh    issue 15's large and hostile inputs: time and peak memory (bench/whatif.mk)
#   bench-whatif        offline planners vs ggml and the lower bound (bench/whatif.mk)
# The report says how long the run took (8.4 min on the 2-vCPU development VM at a load average of 7,
# with UPSTREAM_API; the callgrind counts are about half of it).

# graph documents rebuilt as ggml graphs: test support, shared with the benchmarks
BENCH_PLAN_SRC := bench/bench-util.c tests/c/support/galloc-document-ggml.c tests/c/support/files.c
build/rel/bench-plan: bench/bench-plan.c $(BENCH_PLAN_SRC) bench/bench-util.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< $(BENCH_PLAN_SRC) build/rel/libgalloc.a -o $@

build/rel/bench-docs: bench/bench-docs.c bench/bench-util.c bench/galloc-timing.c tests/c/support/files.c tests/c/support/llama-synthetic.c bench/*.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< bench/bench-util.c bench/galloc-timing.c tests/c/support/files.c tests/c/support/llama-synthetic.c build/rel/libgalloc.a -o $@

# ggml_gallocr through ggml's public API only (the source compiles unchanged against upstream ggml)
build/rel/bench-ggml-api: bench/bench-ggml-api.c bench/bench-graphs.c bench/bench-graphs.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) -Ic/include -Ic/src/ggml $< bench/bench-graphs.c build/rel/libgalloc.a -o $@

# the planner path (document in, plan out) on the same graphs, with the project's whole library
build/rel/bench-planner-path: bench/bench-planner-path.c bench/bench-graphs.c bench/bench-util.c bench/*.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) -Ic/include -Ic/src/ggml -Ic/src/util $< bench/bench-graphs.c bench/bench-util.c build/rel/libgalloc.a -o $@

# the WebAssembly module bench-wasm times: the UI's module (the same library objects and glue, the
# glue compiled with GALLOC_WASM_BENCH) plus the timing code, bench/galloc-timing.c, and its export
# (bench/wasm-exports.txt); the UI's module, build/wasm/galloc.mjs, holds no benchmark code
WASM_BENCH_DIR := build/wasm-bench
$(WASM_BENCH_DIR)/obj/%.o: bench/%.c $(WASM_BENCH_DIR)/obj/%.d bench/bench.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP $(INC) -Ibench -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer
$(WASM_BENCH_DIR)/obj/galloc-wasm.o $(WASM_BENCH_DIR)/obj/galloc-wasm-abi.o: $(WASM_BENCH_DIR)/obj/%.o: c/wasm/%.c $(WASM_BENCH_DIR)/obj/%.d bench/bench.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP -DGALLOC_WASM_BENCH $(INC) -Ibench -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer
$(WASM_BENCH_DIR)/obj/galloc-timing.d $(WASM_BENCH_DIR)/obj/galloc-wasm.d $(WASM_BENCH_DIR)/obj/galloc-wasm-abi.d: ;
-include $(wildcard $(WASM_BENCH_DIR)/obj/*.d)
$(WASM_BENCH_DIR)/exports.json: c/wasm/exports.txt bench/wasm-exports.txt
	@mkdir -p $(dir $@)
	cat c/wasm/exports.txt bench/wasm-exports.txt | sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$$/d' -e 's/.*/"_&"/' | paste -sd, - | sed -e 's/^/[/' -e 's/$$/]/' > $@
$(WASM_BENCH_DIR)/galloc.mjs: $(WASM_LIB_OBJ) $(WASM_DIR)/obj/galloc-wasm64-tf2.o $(WASM_BENCH_DIR)/obj/galloc-wasm.o $(WASM_BENCH_DIR)/obj/galloc-wasm-abi.o $(WASM_BENCH_DIR)/obj/galloc-timing.o $(WASM_BENCH_DIR)/exports.json
	NODE_PATH="$(WASM_NODE_PATH)$${NODE_PATH:+:$$NODE_PATH}" \
	  $(WASM_EMCC) $(strip $(WASM_CFLAGS)) $(filter %.o,$^) $(filter-out -sEXPORTED_FUNCTIONS=%,$(strip $(WASM_LDFLAGS))) \
	  -sEXPORTED_FUNCTIONS=@$(WASM_BENCH_DIR)/exports.json -o $@

# glibc for the labelled "tuned" run: freed memory kept (no mmap'd blocks, no trimming); the
# other runs have glibc as a user's process has it
BENCH_TUNED := glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=18446744073709551615
# UPSTREAM_API=BINARY: bench-ggml-api.c built against upstream ggml (outside the project) is also
# timed and counted in this run; without it upstream's figures come from bench/upstream-instructions.json
UPSTREAM_API ?=
# upstream's graphs (it aborts on the far-source ones)
BENCH_UPSTREAM_GRAPHS := llama-7b-pp512 llama-7b-decode llama-70b-pp512 llama-70b-decode random-10k random-100k random-1000k
BENCH_PROGRAMS := build/rel/bench-ggml-api build/rel/bench-planner-path build/rel/bench-plan build/rel/bench-docs build/rel/galloc
# built (not run) by `make test-c`, so that a change elsewhere cannot leave `make bench` broken
BENCH_BUILT := build/rel/bench-ggml-api build/rel/bench-planner-path build/rel/bench-plan build/rel/bench-docs build/rel/bench-whatif

.PHONY: bench-transfer
bench-transfer: build/wasm/galloc.mjs node_modules/.package-lock.json
	node bench/bench-transfer.mjs

bench: $(BENCH_PROGRAMS) $(WASM_BENCH_DIR)/galloc.mjs build/wasm/galloc.mjs node_modules/.package-lock.json
	@mkdir -p build && rm -f build/bench-*.jsonl build/bench-*.json build/bench-*.txt build/bench.md
	@echo "$$(date +%s) $$(cut -d' ' -f1-3 /proc/loadavg)" > build/bench-start.txt
	@git describe --always --dirty --abbrev=10 > build/bench-commit.txt 2>/dev/null || echo unknown > build/bench-commit.txt
	./build/rel/bench-ggml-api --json build/bench-ggml-api.jsonl
	./build/rel/bench-ggml-api --hot --json build/bench-ggml-api.jsonl
	GLIBC_TUNABLES=$(BENCH_TUNED) ./build/rel/bench-ggml-api --json build/bench-ggml-api-tuned.jsonl
ifneq ($(UPSTREAM_API),)
	for g in $(BENCH_UPSTREAM_GRAPHS); do $(UPSTREAM_API) --only $$g --json build/bench-upstream.jsonl || exit 1; done
	for g in $(filter llama-%,$(BENCH_UPSTREAM_GRAPHS)); do $(UPSTREAM_API) --hot --only $$g --json build/bench-upstream.jsonl || exit 1; done
endif
	./build/rel/bench-planner-path --json build/bench-planner-path.jsonl
	./build/rel/bench-plan build/bench-api.json
	UPSTREAM_API=$(UPSTREAM_API) node bench/instructions.mjs build/bench-instr.json
	./build/rel/bench-docs bench/documents.txt build/bench-docs.jsonl
	node bench/bench-wasm.mjs bench/documents.txt build/bench-wasm.jsonl $(WASM_BENCH_DIR)/galloc.mjs
	./bench/bench-hostile.sh build/rel/galloc build/bench-hostile.jsonl
	@$(MAKE) --no-print-directory bench-whatif
	@echo "$$(date +%s) $$(cut -d' ' -f1-3 /proc/loadavg)" > build/bench-end.txt
	node bench/report.mjs
