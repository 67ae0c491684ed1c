# capture.mk: libgalloc-capture.so, the preload library that writes the graphs of a ggml program
# (c/capture/), and its end-to-end test. Included by the Makefile.
#
#   make capture [GGML=path]   build/capture/libgalloc-capture.so, built against the ggml headers of
#                              path: a ggml checkout (include/, src/) or a llama.cpp one (ggml/include,
#                              ggml/src); without GGML the project's own headers
#   make test-capture          the project's ggml as a shared library, a program that reserves and
#                              allocates graphs, run under the library: with gcc and with clang
#
# ggml's functions are weak references in the library (objcopy --weaken-symbols), so a process
# without ggml starts even under LD_BIND_NOW.

GGML ?=
# the headers: a ggml checkout (include/, src/), a llama.cpp one (ggml/include, ggml/src), or the
# project's own; with GGML the exporter's header alone is copied beside (its "ggml.h" must be theirs)
CAPTURE_GGML_INC = $(if $(GGML),$(if $(wildcard $(GGML)/ggml/include/ggml.h),-I$(GGML)/ggml/include -I$(GGML)/ggml/src,-I$(GGML)/include -I$(GGML)/src) -Ibuild/capture/include,$(INC_ggml))
# the project's exporter writes the graph documents
CAPTURE_SRC  = $(sort $(wildcard c/capture/*.c)) $(filter %/galloc-export.c,$(LIB_SRC))
CAPTURE_HDR  = $(wildcard c/capture/*.h) $(HEADERS)
# unknown ggml headers may warn where the project's do not: -Werror only on the project's own
# (upstream's ggml-impl.h defines static helpers each file uses a few of)
CAPTURE_WARN = $(if $(GGML),$(filter-out -Werror -Wmissing-prototypes -Wstrict-prototypes,$(WARN)) -Wno-unused-function,$(WARN))
# hidden: only the hooks are exported (the exporter inside must not stand in for a program's own copy)
CAPTURE_OPT  = -std=c11 -O2 -g -fPIC -fvisibility=hidden -DGALLOC_EXPORT_API=extern

# $(call capture_link,CC,INCLUDES,WARNINGS): compile, weaken ggml's symbols, link $@
define capture_link
	@mkdir -p $(@D)/capture-obj
	@set -e; objs=""; for s in $(CAPTURE_SRC); do o=$(@D)/capture-obj/$$(basename $$s .c).o; \
	  echo "$(1) ... -c $$s"; $(1) $(CAPTURE_OPT) $(3) $(2) -c $$s -o $$o; objs="$$objs $$o"; done; \
	nm -u $$objs | awk '$$1 == "U" && $$2 ~ /^ggml_/ { print $$2 }' | sort -u > $(@D)/capture-obj/weak-symbols.txt; \
	for o in $$objs; do objcopy --weaken-symbols=$(@D)/capture-obj/weak-symbols.txt $$o; done; \
	$(1) -shared -o $@ $$objs -ldl -lpthread
endef

# rebuilt when GGML or CC changes
CAPTURE_CONFIG := build/capture/config.txt
$(shell mkdir -p build/capture && echo '$(CC) $(CAPTURE_GGML_INC)' | cmp -s - $(CAPTURE_CONFIG) || echo '$(CC) $(CAPTURE_GGML_INC)' > $(CAPTURE_CONFIG))

.PHONY: capture test-capture
capture: build/capture/libgalloc-capture.so
	@echo "capture: $< (ggml headers: $(CAPTURE_GGML_INC))"

build/capture/libgalloc-capture.so: $(CAPTURE_SRC) $(CAPTURE_HDR) $(CAPTURE_CONFIG)
	@mkdir -p build/capture/include && cp c/include/galloc-export.h build/capture/include/
	$(call capture_link,$(CC),$(CAPTURE_GGML_INC),$(CAPTURE_WARN))

# ---- the test: per compiler, the project's ggml subset as a shared library, the library, the program

CAPTURE_COMPILERS := gcc clang
# the library compiled once per compiler, position-independent, one object per file (every
# layer's private headers on the path); the shared, the static and the -Bsymbolic builds link them
CAPTURE_LIB_INC    = -Ic/include $(foreach l,$(GALLOC_LAYERS),-Ic/src/$(l)) -Ibuild/gen # build/gen: the preset documents and the model cards
CAPTURE_TEST_SRC  := tests/capture/capture-demo.c
define capture_test_rules
build/capture-test/$(1)/obj/%.o: c/src/%.c $$(HEADERS)
	@mkdir -p $$(@D)
	$(2) $$(CSTD) $$(WARN) $$(OPT_REL) -fPIC $$(CAPTURE_LIB_INC) -c $$< -o $$@
CAPTURE_OBJ_$(1) := $$(LIB_SRC:c/src/%.c=build/capture-test/$(1)/obj/%.o)
build/capture-test/$(1)/libggml-subset.so: $$(CAPTURE_OBJ_$(1))
	$(2) -shared $$^ -o $$@
build/capture-test/$(1)/libgalloc-capture.so: $$(CAPTURE_SRC) $$(CAPTURE_HDR)
	$$(call capture_link,$(2),$$(INC_ggml),$$(WARN))
build/capture-test/$(1)/capture-demo: $$(CAPTURE_TEST_SRC) build/capture-test/$(1)/libggml-subset.so $$(HEADERS)
	$(2) $$(CSTD) $$(WARN) $$(OPT_REL) $$(INC_ggml) $$(CAPTURE_TEST_SRC) -Lbuild/capture-test/$(1) -lggml-subset \
	  -Wl,-rpath,'$$$$ORIGIN' -o $$@
# the same program with ggml linked in, and beside a ggml linked with -Bsymbolic: both hide calls
build/capture-test/$(1)/capture-demo-static: $$(CAPTURE_TEST_SRC) $$(CAPTURE_OBJ_$(1)) $$(HEADERS)
	$(2) $$(CSTD) $$(WARN) $$(OPT_REL) $$(CAPTURE_LIB_INC) $$(CAPTURE_TEST_SRC) $$(CAPTURE_OBJ_$(1)) -o $$@
build/capture-test/$(1)/symbolic/capture-demo: $$(CAPTURE_TEST_SRC) $$(CAPTURE_OBJ_$(1)) $$(HEADERS)
	@mkdir -p $$(@D)
	$(2) -shared -Wl,-Bsymbolic $$(CAPTURE_OBJ_$(1)) -o $$(@D)/libggml-subset.so
	$(2) $$(CSTD) $$(WARN) $$(OPT_REL) $$(INC_ggml) $$(CAPTURE_TEST_SRC) -L$$(@D) -lggml-subset -Wl,-rpath,'$$$$ORIGIN' -o $$@
CAPTURE_TEST_FILES += build/capture-test/$(1)/capture-demo build/capture-test/$(1)/capture-demo-static \
                      build/capture-test/$(1)/symbolic/capture-demo build/capture-test/$(1)/libgalloc-capture.so
endef
$(foreach c,$(CAPTURE_COMPILERS),$(eval $(call capture_test_rules,$(c),$(if $(filter clang,$(c)),$(CLANG),gcc))))

test-capture: build/san/galloc $(CAPTURE_TEST_FILES)
	@$(call suite,capture,capture) node tests/capture/check-capture.mjs build/san/galloc $(foreach c,$(CAPTURE_COMPILERS),build/capture-test/$(c))
