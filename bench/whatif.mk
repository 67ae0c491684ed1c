# whatif.mk: `make bench-whatif`, offline planners against ggml and the lower bound (included by the Makefile).
#
# Builds bench/bench-whatif.c against the release library and runs it: per llama preset
# (as built and with a 1 GiB max size) and per MiniMalloc CSV in $(SHARED)/bench/minimalloc,
# and per generated tight problem (200-500 items cut from a square, full or with holes, 3
# seeds per size and kind), each planner's total above the lower bound and its time; the rows also go to
# build/bench-whatif.json. The exact search gets 2 s per llama buffer, 10 s per CSV, 2 s per
# generated problem.

build/rel/bench-whatif: bench/bench-whatif.c bench/bench-util.c bench/bench-util.h tests/c/support/files.c tests/c/support/tight-problems.c tests/c/support/llama-synthetic.c build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(TEST_INC) $< bench/bench-util.c tests/c/support/files.c tests/c/support/tight-problems.c tests/c/support/llama-synthetic.c build/rel/libgalloc.a -o $@

.PHONY: bench-whatif
bench-whatif: build/rel/bench-whatif
	./build/rel/bench-whatif $(SHARED)/bench/minimalloc build/bench-whatif.json

# the same MiniMalloc problems in the WebAssembly module under Node, as the browser's what-if worker runs them
.PHONY: bench-whatif-wasm
bench-whatif-wasm: build/wasm/galloc.mjs
	node bench/bench-whatif-wasm.mjs $(SHARED)/bench/minimalloc 10000 3

# issue 15's large and hostile inputs: time and peak memory (bench/bench-hostile.sh)
.PHONY: bench-hostile
bench-hostile: build/rel/galloc build/wasm/galloc.mjs
	./bench/bench-hostile.sh build/rel/galloc
