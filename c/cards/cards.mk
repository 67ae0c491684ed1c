# cards.mk: the model cards of c/cards as C data for galloc-model-cards.c (included by the
# Makefile and c/wasm/wasm.mk). families.tsv lists each family's file in menu order.
CARD_DATA := build/gen/galloc-card-data.h

$(CARD_DATA): c/cards/families.tsv $(wildcard c/cards/*.tsv) scripts/embed-cards.sh scripts/embed-cards.awk c/cards/cards.mk
	@mkdir -p $(dir $@)
	./scripts/embed-cards.sh c/cards > $@.tmp && mv $@.tmp $@
