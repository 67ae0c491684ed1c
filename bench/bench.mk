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
BENCH_PLAN_SRC := bench/bench-util.c tests/c/support/galloc-document-ggml.c tests/c/support/rng.c tests/c/support/files.c
build/rel/bench-plan: bench/bench-plan.c $(BENCH_PLAN_SRC) bench/bench-util.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< $(BENCH_PLAN_SRC) build/rel/libgalloc.a -o $@

build/rel/bench-docs: bench/bench-docs.c bench/bench-util.c bench/galloc-timing.c tests/c/support/files.c bench/*.h build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< bench/bench-util.c bench/galloc-timing.c tests/c/support/files.c build/rel/libgalloc.a -o $@

# ggml_gallocr through ggml's public API only (the source compiles unchanged against upstream ggml)
build/rel/bench-ggml-api: bench/bench-ggml-api.c build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) -Ic/include -Ic/src/ggml $< build/rel/libgalloc.a -o $@

# the WebAssembly module bench-wasm times: the UI's module (the same library objects and glue, the
# glue compiled with GALLOC_WASM_BENCH) plus the timing code, bench/galloc-timing.c, and its export
# (bench/wasm-exports.txt); the UI's module, build/wasm/galloc.mjs, holds no benchmark code
WASM_BENCH_DIR := build/wasm-bench
$(WASM_BENCH_DIR)/obj/%.o: bench/%.c $(WASM_BENCH_DIR)/obj/%.d bench/bench.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP $(INC) -Ibench -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer
$(WASM_BENCH_DIR)/obj/galloc-wasm.o: c/wasm/galloc-wasm.c $(WASM_BENCH_DIR)/obj/galloc-wasm.d bench/bench.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP -DGALLOC_WASM_BENCH $(INC) -Ibench -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer
$(WASM_BENCH_DIR)/obj/galloc-timing.d $(WASM_BENCH_DIR)/obj/galloc-wasm.d: ;
-include $(wildcard $(WASM_BENCH_DIR)/obj/*.d)
$(WASM_BENCH_DIR)/exports.json: c/wasm/exports.txt bench/wasm-exports.txt
	@mkdir -p $(dir $@)
	cat c/wasm/exports.txt bench/wasm-exports.txt | sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$$/d' -e 's/.*/"_&"/' | paste -sd, - | sed -e 's/^/[/' -e 's/$$/]/' > $@
$(WASM_BENCH_DIR)/galloc.mjs: $(WASM_LIB_OBJ) $(WASM_BENCH_DIR)/obj/galloc-wasm.o $(WASM_BENCH_DIR)/obj/galloc-timing.o $(WASM_BENCH_DIR)/exports.json
	NODE_PATH="$(WASM_NODE_PATH)$${NODE_PATH:+:$$NODE_PATH}" \
	  $(WASM_EMCC) $(strip $(WASM_CFLAGS)) $(filter %.o,$^) $(filter-out -sEXPORTED_FUNCTIONS=%,$(strip $(WASM_LDFLAGS))) \
	  -sEXPORTED_FUNCTIONS=@$(WASM_BENCH_DIR)/exports.json -o $@

bench: build/rel/bench-plan build/rel/bench-ggml-api build/rel/bench-docs $(WASM_BENCH_DIR)/galloc.mjs node_modules/.package-lock.json
	./build/rel/bench-plan build/bench-api.json > build/bench-api.txt
	./build/rel/bench-plan --tuned build/bench-api-tuned.json > build/bench-api-tuned.txt
	./build/rel/bench-ggml-api > build/bench-ggml-api.txt && ./build/rel/bench-ggml-api --hot >> build/bench-ggml-api.txt
	node bench/instructions.mjs build/bench-instr.json
	./build/rel/bench-docs bench/documents.txt build/bench-docs.jsonl
	node bench/bench-wasm.mjs bench/documents.txt build/bench-wasm.jsonl $(WASM_BENCH_DIR)/galloc.mjs
	node bench/report.mjs
	@$(MAKE) --no-print-directory bench-whatif
