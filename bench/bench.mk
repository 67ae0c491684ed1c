# bench.mk: `make bench`, planning-time benchmarks (included by the Makefile).
#
# Builds bench/bench-plan.c against the release library and runs it: a table of
# median planning times (llama presets, random graphs of 1k/10k/100k nodes) on
# stdout and the same numbers in build/bench.json.

build/rel/bench-plan: bench/bench-plan.c build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(INC) $< build/rel/libgalloc.a -o $@

bench: build/rel/bench-plan
	./build/rel/bench-plan build/bench.json
