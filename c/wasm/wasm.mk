# wasm.mk: builds the WebAssembly module build/wasm/galloc.{mjs,wasm} with emscripten.
#
# Included from the top Makefile (`make wasm`), or on its own from the repository root:
#   make -f c/wasm/wasm.mk wasm
# Needs only emcc. The sources are the whole library (c/src/*/*.c, each compiled with its
# layer's include path, c/layers.mk) plus the glue c/wasm/galloc-wasm.c and the exports JS calls,
# c/wasm/galloc-wasm-abi.c (listed in c/wasm/exports.txt).
#
# The module is wasm64 lowered to wasm32 (-sMEMORY64=2): size_t and pointers have 64 bits in C,
# so the page plans every size the CLI plans, and the memory is 32-bit, so every browser and node
# run it. Debian's emscripten ships prebuilt wasm32 system libraries only: the first link builds
# the wasm64 ones (libc, compiler-rt, dlmalloc, ...) into WASM_CACHE, once, and every later build
# reuses them. c/wasm/emcc-syslibs.py runs emcc with that one step made faster (clang directly, all
# cores); measured on 2 loaded cores: about 220 s of CPU, once (see the commit that added it).

ifndef GALLOC_LAYERS
include c/layers.mk
include c/presets/presets.mk
include c/cards/cards.mk
endif

WASM_DIR       := build/wasm
# the wasm64 system libraries, built once (emscripten clears them itself when its version changes)
WASM_CACHE     ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/galloc-emscripten-wasm64
# Debian's emcc is a Python program: its own python3 (the emscripten package depends on it)
WASM_PYTHON    ?= $(firstword $(wildcard /usr/bin/python3) python3)
WASM_EMCC      ?= EM_CACHE="$(WASM_CACHE)" EM_FROZEN_CACHE= $(WASM_PYTHON) c/wasm/emcc-syslibs.py
WASM_LIB_SRC   := $(sort $(wildcard c/src/*/*.c))
WASM_LIB_OBJ   := $(WASM_LIB_SRC:c/src/%.c=$(WASM_DIR)/obj/%.o)
WASM_GLUE_OBJ  := $(WASM_DIR)/obj/galloc-wasm.o $(WASM_DIR)/obj/galloc-wasm-abi.o $(WASM_DIR)/obj/galloc-wasm64-tf2.o
# emscripten's JS optimizer runs in node and needs Debian's acorn (/usr/share/nodejs)
WASM_NODE_PATH ?= /usr/share/nodejs

# compiling
WASM_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L                # the C dialect of the native build
WASM_CFLAGS += -Wall -Wextra -Werror -Wshadow -Wpointer-arith     # warnings as in the native build
WASM_CFLAGS += -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes # ... all of them
WASM_CFLAGS += -O2                                                # optimize code and JS (no closure: it needs java)
WASM_CFLAGS += -sMEMORY64=2                                       # 64-bit size_t and pointers, lowered to wasm32
WASM_CFLAGS += -Wno-format # emscripten 3.1.6's wasm64 PRIu64 is "lu" for a long long uint64_t (the native builds check formats)

# linking: one flag per line
WASM_LDFLAGS := -sMODULARIZE=1                   # the .mjs exports a factory returning a promise of the module
WASM_LDFLAGS += -sDEFAULT_TO_CXX=0               # C only: no libc++ to build for wasm64
WASM_LDFLAGS += -sEXPORT_ES6=1                   # ... as an ES module's default export
WASM_LDFLAGS += -sEXPORT_NAME=createGallocModule # the factory's name
WASM_LDFLAGS += -sENVIRONMENT=web,worker         # browser and worker only; node loads it by passing wasmBinary
WASM_LDFLAGS += -sALLOW_MEMORY_GROWTH=1          # graphs of any size: the heap grows on demand
WASM_LDFLAGS += -sMAXIMUM_MEMORY=2GB             # ... up to 2 GiB: every address is a positive int32 in JS (galloc-wasm-abi.c)
WASM_LDFLAGS += -sABORTING_MALLOC=0              # malloc returns NULL at the limit (reported as "out of memory")
WASM_LDFLAGS += -sFILESYSTEM=0                   # no files: documents cross as memory
WASM_LDFLAGS += -sDYNAMIC_EXECUTION=0            # no eval/new Function in the glue (strict CSP pages)
WASM_LDFLAGS += -sEXPORTED_RUNTIME_METHODS=HEAPU8 # the byte view of the heap, the only runtime piece galloc.js uses
WASM_LDFLAGS += -sINCOMING_MODULE_JS_API=wasmBinary,locateFile,print,printErr # the factory options galloc.js may pass
WASM_LDFLAGS += -sEXPORTED_FUNCTIONS=@$(WASM_DIR)/exports.json # c/wasm/exports.txt with leading underscores
WASM_LDFLAGS += --js-library c/wasm/galloc-wasm64-lib.js # the JS imports, taking the wasm64 module's BigInt arguments

.PHONY: wasm wasm-clean

wasm: $(WASM_DIR)/galloc.mjs $(WASM_DIR)/galloc.wasm

# exports.txt (one C name per line, '#' comments) as the JSON list emcc reads
$(WASM_DIR)/exports.json: c/wasm/exports.txt c/wasm/wasm.mk
	@mkdir -p $(WASM_DIR)
	sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$$/d' -e 's/.*/"_&"/' c/wasm/exports.txt | paste -sd, - | sed -e 's/^/[/' -e 's/$$/]/' > $@

# the library, each object with its layer's include path; each object's .d (-MMD -MP) lists the
# headers it includes, so a header change rebuilds what includes it (an object without its .d is rebuilt)
$(WASM_DIR)/obj/%.o: c/src/%.c $(WASM_DIR)/obj/%.d c/wasm/wasm.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP $(layer_inc) -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer

$(WASM_DIR)/obj/models/galloc-presets.o: $(PRESET_DATA)
$(WASM_DIR)/obj/models/galloc-model-cards.o: $(CARD_DATA)

# the glue sees every layer
$(WASM_DIR)/obj/%.o: c/wasm/%.c $(WASM_DIR)/obj/%.d c/wasm/wasm.mk
	@mkdir -p $(dir $@)
	$(WASM_EMCC) $(strip $(WASM_CFLAGS)) -MMD -MP $(INC) -c $< -o $@
	@touch $@ # emcc writes the .d after the object: the object must stay the newer

$(WASM_LIB_OBJ:.o=.d) $(WASM_GLUE_OBJ:.o=.d): ;
-include $(shell find $(WASM_DIR) -name '*.d' 2>/dev/null)

# emcc writes galloc.wasm next to galloc.mjs
# (the library and the glue only: benchmark code, bench/galloc-timing.c, goes into bench/bench.mk's own module)
$(WASM_DIR)/galloc.mjs: $(WASM_LIB_OBJ) $(WASM_GLUE_OBJ) $(WASM_DIR)/exports.json c/wasm/emcc-syslibs.py c/wasm/galloc-wasm64-lib.js
	@mkdir -p $(WASM_DIR)
	NODE_PATH="$(WASM_NODE_PATH)$${NODE_PATH:+:$$NODE_PATH}" \
	  $(WASM_EMCC) $(strip $(WASM_CFLAGS)) $(WASM_LIB_OBJ) $(WASM_GLUE_OBJ) $(strip $(WASM_LDFLAGS)) -o $@
	@wc -c $(WASM_DIR)/galloc.wasm $(WASM_DIR)/galloc.mjs | sed -e 's/^/wasm: /'

$(WASM_DIR)/galloc.wasm: $(WASM_DIR)/galloc.mjs

wasm-clean:
	rm -rf $(WASM_DIR)
