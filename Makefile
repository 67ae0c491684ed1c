# Makefile: builds the C library, the CLI, the WASM module and the web UI; runs every test.
#
#   make        library + CLI (release)          make test   every suite (installs what it needs)
#                                                make test-big  and the huge browser inputs
#   make run    serve the web UI on localhost     make wasm   the WebAssembly module
#               (PORT=8081 for another port; also builds the CLI)
#   make fuzz   libFuzzer on reader + planner     make bench  planning-time benchmarks
#   make clean
#
# Everything is built into build/: build/rel (release), build/san (ASan+UBSan), build/wasm.

CC      ?= cc
CXX     ?= c++
CLANG   ?= clang

# warnings: everything common, plus what catches allocator bugs (sign/shadow/format)
WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L
include c/layers.mk  # INC_<layer>, INC (CLI, WASM glue), TEST_INC, layer_inc
include c/presets/presets.mk # PRESET_DATA: the preset documents as C data
include c/cards/cards.mk     # CARD_DATA: the model cards as C data
# release: -O3, as upstream builds ggml-alloc.c (CMake Release)
OPT_REL := -O3 -g
# sanitizers: one switch away (make SAN=...)
SAN     ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT_SAN := -O1 -g $(SAN)

LIB_SRC  := $(sort $(wildcard c/src/*/*.c))
CLI_SRC  := $(sort $(wildcard c/cli/*.c))
TEST_SUP := $(sort $(wildcard tests/c/support/*.c))
TEST_SRC := $(sort $(wildcard tests/c/test-*.c))
# every header, for the rules that compile many sources in one call (fuzz targets, capture, C++ checks);
# objects depend on the headers they include (dependency files, DEPFLAGS below)
HEADERS  := $(wildcard c/include/*.h c/src/*/*.h c/cli/*.h tests/c/support/*.h) $(PRESET_DATA) $(CARD_DATA)

REL_OBJ  := $(LIB_SRC:c/src/%.c=build/rel/obj/%.o)
SAN_OBJ  := $(LIB_SRC:c/src/%.c=build/san/obj/%.o)
REL_CLI  := $(CLI_SRC:c/cli/%.c=build/rel/cli/%.o)
SAN_CLI  := $(CLI_SRC:c/cli/%.c=build/san/cli/%.o)
SUP_OBJ  := $(TEST_SUP:tests/c/support/%.c=build/san/sup/%.o)
TESTS    := $(TEST_SRC:tests/c/%.c=build/san/%)
REPLAYS  := build/san/replay-document build/san/replay-csv build/san/replay-dynalloc build/san/replay-gguf build/san/replay-model

build/rel/obj/models/galloc-presets.o build/san/obj/models/galloc-presets.o: $(PRESET_DATA)
build/rel/obj/models/galloc-model-cards.o build/san/obj/models/galloc-model-cards.o: $(CARD_DATA)

SHARED   ?= ../shared
comma    := ,
CONFORMANCE := $(SHARED)/conformance/test-alloc.cpp

.PHONY: tables bench all lib cli test test-c test-layers test-conformance test-golden test-js test-e2e clean deps run fuzz bench

all: lib cli

include c/wasm/wasm.mk
include bench/bench.mk
include bench/whatif.mk
include c/capture/capture.mk

lib: build/rel/libgalloc.a
cli: build/rel/galloc

# dependency files: each object (and each test program) records the headers it includes in a .d
# beside it, included below, so a header change rebuilds exactly what includes it. An object
# whose .d is missing is rebuilt (the empty %.d rule), so a build from before the .d files heals.
DEPFLAGS  = -MMD -MP
DEPFLAGS1 = -MMD -MP -MF $@.d -MT $@   # for a program compiled and linked in one call
DEPFILES := $(REL_OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(REL_CLI:.o=.d) $(SAN_CLI:.o=.d) $(SUP_OBJ:.o=.d) $(TESTS:=.d) \
            $(REPLAYS:build/san/replay-%=build/san/replay/fuzz-%.d) $(REPLAYS:build/san/replay-%=build/san/replay/replay-%.d)
$(DEPFILES): ;

build/rel/obj/%.o: c/src/%.c build/rel/obj/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(DEPFLAGS) $(layer_inc) -c $< -o $@

build/rel/libgalloc.a: $(REL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

build/rel/cli/%.o: c/cli/%.c build/rel/cli/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(DEPFLAGS) $(INC) -Ic/cli -c $< -o $@

build/rel/galloc: $(REL_CLI) build/rel/libgalloc.a
	$(CC) $(OPT_REL) $(REL_CLI) build/rel/libgalloc.a -o $@

build/san/obj/%.o: c/src/%.c build/san/obj/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS) $(layer_inc) -c $< -o $@

build/san/libgalloc.a: $(SAN_OBJ)
	rm -f $@ && ar rcs $@ $^

build/san/cli/%.o: c/cli/%.c build/san/cli/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS) $(INC) -Ic/cli -c $< -o $@

build/san/galloc: $(SAN_CLI) build/san/libgalloc.a
	$(CC) $(OPT_SAN) $(SAN_CLI) build/san/libgalloc.a -o $@

build/san/sup/%.o: tests/c/support/%.c build/san/sup/%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS) $(TEST_INC) -c $< -o $@

build/san/test-%: tests/c/test-%.c build/san/test-%.d $(SUP_OBJ) build/san/libgalloc.a
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS1) $(TEST_INC) $< $(SUP_OBJ) build/san/libgalloc.a -o $@

# counts the library's malloc, calloc, realloc and free calls: they go through the test's wrappers
build/san/test-gallocr-memory: tests/c/test-gallocr-memory.c build/san/test-gallocr-memory.d $(SUP_OBJ) build/san/libgalloc.a
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS1) $(TEST_INC) $< $(SUP_OBJ) build/san/libgalloc.a -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free -o $@

# fails each allocation in turn under the WebAssembly exports (c/wasm/galloc-wasm.c compiled natively)
# and ggml's allocator API: the wrappers fail one call and count the blocks left
build/san/test-alloc-failure: tests/c/test-alloc-failure.c c/wasm/galloc-wasm.c build/san/test-alloc-failure.d $(SUP_OBJ) build/san/libgalloc.a
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS1) $(TEST_INC) $< c/wasm/galloc-wasm.c $(SUP_OBJ) build/san/libgalloc.a \
	  -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=posix_memalign -o $@

# the original C++ test, compiled unmodified against our headers
build/san/test-alloc-conformance: $(CONFORMANCE) build/san/libgalloc.a $(HEADERS)
	$(CXX) -std=c++17 -Wall -Wextra -Werror $(OPT_SAN) -Ic/include -Ic/src/ggml $(CONFORMANCE) build/san/libgalloc.a -o $@

# ---- dependencies --------------------------------------------------------------

# Debian packages the build and tests need (emscripten chromium nodejs npm clang), each checked by
# the command it provides; only the missing ones are installed (apt-get, when run as root).
# CHROMIUM=path uses another browser (tests/e2e/e2e.mjs launches it); then chromium is not installed.

deps:
	@missing=""; \
	command -v emcc >/dev/null 2>&1 || missing="$$missing emscripten"; \
	if [ -n "$${CHROMIUM:-}" ]; then [ -x "$$CHROMIUM" ] || { echo "deps: CHROMIUM=$$CHROMIUM is not an executable"; exit 1; }; \
	else [ -x /usr/bin/chromium ] || missing="$$missing chromium"; fi; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	command -v clang >/dev/null 2>&1 || missing="$$missing clang"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "deps: missing$$missing (run make as root on Debian to install them)"; exit 1; fi; \
	fi; \
	node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' || \
	  { echo "deps: Node.js $$(node --version) is too old: Vite needs 20.19 or newer (Debian 12 ships 18; see README.md)"; exit 1; }

# npm packages, pinned by package-lock.json: installed (npm ci) only when node_modules was not
# installed from this very lock file (a checkout or merge that only touches the file installs nothing)
node_modules/.package-lock.json: package.json package-lock.json
	@cmp -s package-lock.json node_modules/.galloc-installed-lock || { npm ci --no-audit --no-fund && cp package-lock.json node_modules/.galloc-installed-lock; }
	@touch $@

# ---- web UI ------------------------------------------------------------------------

# the one place the UI is built (make run, test-e2e, and tests/e2e/e2e.mjs run this rule)
build/web/index.html: $(shell find web -type f 2>/dev/null) build/wasm/galloc.mjs node_modules/.package-lock.json
	npm run --silent build

# make run PORT=8081 serves on another port; a port in use is said before anything is served
PORT ?= 8080
# the web UI's copy of ggml's tables, generated from the C tables (tests/js/ggml-tables.test.js
# fails when the committed file and the C tables differ)
tables: build/wasm/galloc.mjs
	node scripts/gen-ggml-tables.mjs

run: deps
	@$(MAKE) --no-print-directory cli build/wasm/galloc.mjs build/web/index.html
	@node scripts/port-free.mjs 127.0.0.1 $(PORT)
	@echo "galloc: serving the web UI at http://127.0.0.1:$(PORT)/ (Ctrl-C to stop); the CLI is build/rel/galloc"
	@npx vite preview --host 127.0.0.1 --port $(PORT) --strictPort

# ---- tests -------------------------------------------------------------------

# Every suite records its result lines in $(SUMMARY) (scripts/suite.sh); make test runs them
# all, even after a failure, and ends with the recap of scripts/test-summary.sh. The suites are
# independent: make test builds and runs them JOBS at a time (default: the number of cores; -k:
# on after a failure; -O: each suite's output printed whole when it ends). make test-big: the
# same, plus the huge inputs in the browser (300,000-line links and imports, E2E_BIG=1).
SUMMARY ?= build/summary
SUITES  := c layers conformance golden capture js e2e
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
suite    = ./scripts/suite.sh $(SUMMARY) $(1) $(2) --

test: deps
	@rm -rf $(SUMMARY)
	@$(MAKE) --no-print-directory -k -j$(JOBS) -O $(SUITES:%=test-%) || true; \
	  ./scripts/test-summary.sh $(SUMMARY) $(SUITES)

.PHONY: test-big
test-big: export E2E_BIG = 1
test-big: test

test-js: build/wasm/galloc.mjs build/rel/galloc node_modules/.package-lock.json
	@$(call suite,js,js) sh -c 'npx vitest run --reporter=default --reporter=json --outputFile.json=$(SUMMARY)/vitest.json && \
	  node scripts/vitest-summary.mjs $(SUMMARY)/vitest.json'

test-e2e: build/wasm/galloc.mjs build/rel/galloc build/web/index.html node_modules/.package-lock.json
	@$(call suite,e2e,e2e) env E2E_NO_BUILD=1 npm run --silent e2e

# the exporter is meant to be dropped into C++ builds too (llama.cpp): it must compile as C++
# with the C++ compiler and with clang++, warning-free (the C build above checks C)
EXPORT_CXX_WARN := -x c++ -std=c++17 -Wall -Wextra -Werror -Wpedantic -Wcast-qual
build/san/export-cxx.ok: c/src/documents/galloc-export.c c/include/galloc-export.h $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(EXPORT_CXX_WARN) $(INC_documents) -c $< -o build/san/export-cxx.o
	$(CLANG)++ $(EXPORT_CXX_WARN) $(INC_documents) -c $< -o build/san/export-clangxx.o
	@touch $@

# the layers of c/src, no new circle between source files, prefixed exports (scripts/check-layers.mjs)
test-layers: $(SAN_OBJ)
	@$(call suite,layers,layers) node scripts/check-layers.mjs build/san/obj

test-c: $(TESTS) build/san/galloc $(REPLAYS) build/san/export-cxx.ok $(BENCH_BUILT)
	@$(call suite,c,c) ./scripts/test-c.sh $(TESTS) $(REPLAYS)

# upstream's own test, from $(SHARED) (the reference data beside the checkout); skipped when
# it is absent, except under CI (CI=true), where a missing reference is a failure
test-conformance:
	@$(call suite,conformance,conformance) sh -c '\
	  if [ ! -f "$(CONFORMANCE)" ]; then \
	    if [ "$(CI)" = true ]; then echo "conformance: FAILED ($(CONFORMANCE) is absent; CI=true needs $(SHARED))"; exit 1; fi; \
	    echo "conformance: SKIPPED ($(CONFORMANCE) is absent)"; exit 0; \
	  fi; \
	  $(MAKE) --no-print-directory build/san/test-alloc-conformance || exit 1; \
	  ASAN_OPTIONS=detect_leaks=1 timeout 300 ./build/san/test-alloc-conformance > build/san/conformance.out 2>&1; st=$$?; \
	  cat build/san/conformance.out; \
	  n=$$(grep -c "PASSED$$" build/san/conformance.out); \
	  if [ $$st -ne 0 ]; then echo "conformance: FAILED (exit $$st, $$n/13 PASSED)"; exit 1; fi; \
	  echo "conformance: $$n/13 PASSED"; [ "$$n" -eq 13 ]'

# the golden plans (tests/golden; tests/golden-real: real llama.cpp graphs; tests/devices and $(SHARED)/devices: the scheduler's graphs), the CLI, and the harness itself (scripts/check-harness.sh: skipped and failed suites are named)
# The golden graphs through the release CLI: the same documents are read, planned and written under
# ASan+UBSan in test-c (test-binary, test-planner-steps, test-document, test-plan-write); the CLI's
# own paths (errors, hostile input, models) run under the sanitizers here.
test-golden: build/san/galloc build/rel/galloc
	@$(call suite,golden,golden$(comma)golden-real$(comma)devices$(comma)cli$(comma)harness$(comma)hostile$(comma)model-cli$(comma)fit$(comma)cards) sh -c './scripts/check-golden.sh build/rel/galloc tests/golden && \
	  ./scripts/check-golden-real.sh build/rel/galloc tests/golden-real 244 && \
	  ./scripts/check-devices.sh build/rel/galloc tests/devices 9 && ./scripts/check-devices.sh build/rel/galloc $(SHARED)/devices && \
	  ./scripts/check-cli.sh build/san/galloc && ./scripts/check-harness.sh && ./scripts/check-hostile.sh build/san/galloc build/rel/galloc && \
	  ./scripts/check-model.sh build/san/galloc && ./scripts/check-fit.sh build/rel/galloc && ./scripts/check-cards.sh'

# ---- fuzzing ---------------------------------------------------------------------

FUZZ_SECONDS ?= 60
FUZZ_SUP := tests/c/support/gallocr-compare.c tests/c/support/galloc-document-ggml.c
build/fuzz/fuzz-document: tests/fuzz/fuzz-document.c $(FUZZ_SUP) $(LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(TEST_INC) $< $(FUZZ_SUP) $(LIB_SRC) -o $@

build/fuzz/fuzz-csv: tests/fuzz/fuzz-csv.c $(LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(TEST_INC) $< $(LIB_SRC) -o $@

build/fuzz/fuzz-gguf: tests/fuzz/fuzz-gguf.c $(LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(TEST_INC) $< $(LIB_SRC) -o $@

build/fuzz/fuzz-model: tests/fuzz/fuzz-model.c $(LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(TEST_INC) $< $(LIB_SRC) -o $@

# a fuzz target's corpus (and seeds) replayed without libFuzzer under ASan+UBSan, as a test-c program (REPLAYS)
# (the kept corpus and the seeds of each target, FUZZ_CORPUS_* and FUZZ_SEEDS_* below)
build/san/replay/fuzz-%.o: tests/fuzz/fuzz-%.c build/san/replay/fuzz-%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS) $(TEST_INC) -c $< -o $@
build/san/replay/replay-%.o: tests/fuzz/replay.c build/san/replay/replay-%.d
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(DEPFLAGS) $(TEST_INC) -DREPLAY_DIRS='"$(strip $(FUZZ_CORPUS_$*) $(FUZZ_SEEDS_$*))"' -c $< -o $@
build/san/replay-%: build/san/replay/fuzz-%.o build/san/replay/replay-%.o $(SUP_OBJ) build/san/libgalloc.a
	$(CC) $(OPT_SAN) $^ -o $@

build/fuzz/fuzz-dynalloc: tests/fuzz/fuzz-dynalloc.c tests/c/support/dynalloc-reference.c $(LIB_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(TEST_INC) $< tests/c/support/dynalloc-reference.c $(LIB_SRC) -o $@

# libFuzzer over reader + planner + writer (kept corpus tests/fuzz/corpus, seeds tests/golden),
# the CSV problem reader + what-if planners (tests/fuzz/corpus-csv), the dynamic allocator
# against upstream's loops (tests/fuzz/corpus-dynalloc), the GGUF header reader (tests/fuzz/corpus-gguf), the model
# builder: GGUF header and settings together (tests/fuzz/corpus-model, seeded from tests/models-real and the hostile models).
# New inputs go to build/fuzz/new-<target>: the git tree stays clean. `make fuzz-merge` then adds
# the new inputs that reach new code to the kept corpora (libFuzzer -merge=1), to be committed.
# make test replays every kept corpus (build/san/replay-*, in test-c).
FUZZ_TARGETS         := document csv dynalloc gguf model
FUZZ_CORPUS_document := tests/fuzz/corpus
FUZZ_CORPUS_csv      := tests/fuzz/corpus-csv
FUZZ_CORPUS_dynalloc := tests/fuzz/corpus-dynalloc
FUZZ_CORPUS_gguf     := tests/fuzz/corpus-gguf
FUZZ_CORPUS_model    := tests/fuzz/corpus-model
FUZZ_SEEDS_document  := tests/golden
FUZZ_SEEDS_csv       := tests/fixtures/minimalloc
FUZZ_SEEDS_gguf      := tests/models-real/gguf
FUZZ_FLAGS_document  := -max_len=65536 -dict=tests/fuzz/fuzz-document.dict
FUZZ_FLAGS_csv       := -max_len=16384
FUZZ_FLAGS_dynalloc  := -max_len=16384
FUZZ_FLAGS_gguf      := -max_len=65536 -dict=tests/fuzz/fuzz-gguf.dict
FUZZ_FLAGS_model     := -max_len=65536 -dict=tests/fuzz/fuzz-gguf.dict
FUZZ_COMMON          := -timeout=10 -rss_limit_mb=4096
.PHONY: fuzz fuzz-merge
fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)
fuzz-run-%: build/fuzz/fuzz-%
	@mkdir -p build/fuzz/new-$*
	./build/fuzz/fuzz-$* -max_total_time=$(FUZZ_SECONDS) $(FUZZ_COMMON) $(FUZZ_FLAGS_$*) build/fuzz/new-$* $(FUZZ_CORPUS_$*) $(FUZZ_SEEDS_$*)

fuzz-merge: $(FUZZ_TARGETS:%=fuzz-merge-%)
fuzz-merge-%: build/fuzz/fuzz-%
	@mkdir -p build/fuzz/new-$*
	./build/fuzz/fuzz-$* -merge=1 $(FUZZ_COMMON) $(FUZZ_FLAGS_$*) $(FUZZ_CORPUS_$*) build/fuzz/new-$*

clean:
	rm -rf build

# the dependency files of the objects and programs built so far (none before the first build)
-include $(shell find build/rel build/san -name '*.d' 2>/dev/null)  # (build/wasm's: c/wasm/wasm.mk)

# keep intermediate objects (test support, the replays' objects) between runs; not every target
# (a bare .SECONDARY would make a missing dependency file count as up to date)
.SECONDARY: $(SUP_OBJ) $(REPLAYS:build/san/replay-%=build/san/replay/fuzz-%.o) $(REPLAYS:build/san/replay-%=build/san/replay/replay-%.o)
