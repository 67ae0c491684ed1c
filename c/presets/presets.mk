# presets.mk: the preset documents of c/presets as C data for galloc-presets.c (included by the
# Makefile and c/wasm/wasm.mk). presets.tsv lists each preset (name, one sentence) in menu order.
PRESET_DATA := build/gen/galloc-preset-data.h

$(PRESET_DATA): c/presets/presets.tsv $(wildcard c/presets/*.graph.json) scripts/embed-presets.sh c/presets/presets.mk
	@mkdir -p $(dir $@)
	./scripts/embed-presets.sh c/presets > $@.tmp && mv $@.tmp $@
