# layers.mk: the layers of c/src and the include path each may use (included by the Makefile and c/wasm/wasm.mk).
#
# Lowest first: util < ggml < alloc < documents < whatif, models < c/cli, c/wasm.
# A folder sees the public headers (c/include), its own private headers and those of the
# layers below it, so a private header included the wrong way fails the build
# (scripts/check-layers.sh checks the public headers and the order too).
# Tests and benchmarks see everything.

GALLOC_LAYERS := util ggml alloc documents whatif models

INC_util      := -Ic/include -Ic/src/util
INC_ggml      := $(INC_util) -Ic/src/ggml
INC_alloc     := $(INC_ggml) -Ic/src/alloc
INC_documents := $(INC_alloc) -Ic/src/documents
INC_whatif    := $(INC_documents) -Ic/src/whatif
INC_models    := $(INC_documents) -Ic/src/models -Ibuild/gen # build/gen: the preset documents and the model cards as data
INC           := $(INC_documents) -Ic/src/whatif -Ic/src/models -Ibuild/gen
TEST_INC      := $(INC) -Itests/c/support

# the include path of the library object being built from c/src/<layer>/<file>.c ($* = <layer>/<file>)
layer_inc      = $(INC_$(firstword $(subst /, ,$*)))
