# embed-cards.awk: the model cards of c/cards as C data, for c/src/models/galloc-model-cards.c.
#
# Usage: scripts/embed-cards.sh c/cards > build/gen/galloc-card-data.h (which runs this over
# c/cards/families.tsv, then each family's file in that order). The one reader of the card
# format (c/cards/README.md); a mistake stops the build with FILE:LINE: what is wrong.
# A card's numbers are copied as written (C double literals), so a card's values are exactly
# the ones its file states.

BEGIN {
    FS = "\t"
    n_cards = 0
    failed = 0
    table = ""
    print "// generated from c/cards by scripts/embed-cards.sh: edit the cards there, not this file"
}

function fail_at(where, msg) {
    printf "%s: %s\n", where, msg | "cat 1>&2"
    failed = 1
    exit 1
}

function fail(msg) {
    fail_at(FILENAME ":" FNR, msg)
}

function c_string(s) {
    gsub(/\\/, "\\\\", s)
    gsub(/"/, "\\\"", s)
    return "\"" s "\""
}

function is_number(v) {
    return v ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/
}

# the card being read ends: its tables, and its row of the cards table
function end_card(   id, i) {
    if (card == "") {
        return
    }
    if (arch == "" || source == "" || about == "") {
        fail_at(card_file[card], "card " card ": needs arch, source and about lines")
    }
    id = n_cards++
    printf "static const char * const card_%d_tensors[] = { ", id
    for (i = 1; i <= n_tensors; i++) {
        printf "%s, ", c_string(tensors[i])
    }
    print "NULL };"
    printf "%s", arrays
    printf "static const struct model_card_kv card_%d_kv[] = {\n%s};\n", id, kvs
    table = table sprintf("    { %s, %s, %s, %s, %s, card_%d_kv, %d, card_%d_tensors },\n", c_string(card), c_string(arch),
                          c_string(family), c_string(source), c_string(about), id, n_kv, id)
    card = ""
}

# families.tsv: FILE<TAB>Family, in menu order; remembered for the family files that follow
FILENAME ~ /families\.tsv$/ {
    if ($0 ~ /^#/ || $0 == "") {
        next
    }
    if (NF != 2 || $1 !~ /^[a-z0-9-]+\.tsv$/ || $2 == "") {
        fail("expected FILE.tsv<TAB>Family name")
    }
    if ($1 in family_of) {
        fail($1 " listed twice")
    }
    family_of[$1] = $2
    next
}

FNR == 1 {
    end_card()
    base = FILENAME
    sub(/.*\//, "", base)
    if (!(base in family_of)) {
        fail("not listed in families.tsv")
    }
    family = family_of[base]
    seen_file[base] = 1
}

/^#/ || /^$/ {
    next
}

{
    if (NF != 2 || $2 == "") {
        fail("expected KEY<TAB>VALUE (one tab, a value)")
    }
    key = $1
    value = $2
}

key == "card" {
    end_card()
    if (value !~ /^[a-z0-9][a-z0-9._-]*$/) {
        fail("card name '" value "': lower-case letters, digits, '.', '_' and '-' only")
    }
    if (value in card_file) {
        fail("card " value " is also defined at " card_file[value])
    }
    card_file[value] = FILENAME ":" FNR
    card = value
    arch = source = about = kvs = arrays = ""
    n_kv = n_tensors = 0
    split("", kv_seen)
    next
}

card == "" {
    fail("'" key "' before the first card line")
}

key == "arch" {
    if (value !~ /^[a-z0-9_-]+$/) {
        fail("arch '" value "': not an architecture name")
    }
    arch = value
    next
}

key == "source" {
    if (value !~ /^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/) {
        fail("source '" value "': expected a Hugging Face repository id, OWNER/NAME")
    }
    source = value
    next
}

key == "about" {
    about = value
    next
}

key == "tensors" {
    n_tensors = split(value, tensors, / +/)
    for (i = 1; i <= n_tensors; i++) {
        if (tensors[i] !~ /^[a-z0-9_.]+$/) {
            fail("tensor '" tensors[i] "': expected a tensor name ('blk.' without the layer number)")
        }
    }
    next
}

key ~ /^\.[a-z0-9_.]+$/ {
    if (key in kv_seen) {
        fail("key " key " given twice in card " card)
    }
    kv_seen[key] = 1
    n_kv++
    if (value == "true" || value == "false") {
        kvs = kvs sprintf("    { %s, %d, NULL, NULL, 0 },\n", c_string(key), value == "true")
    } else if (is_number(value)) {
        kvs = kvs sprintf("    { %s, %s, NULL, NULL, 0 },\n", c_string(key), value)
    } else if (value ~ /^\[.*\]$/) {
        list = substr(value, 2, length(value) - 2)
        n = split(list, items, / *, */)
        for (i = 1; i <= n; i++) {
            if (!is_number(items[i])) {
                fail("key " key ": element " i " '" items[i] "' of the list is not a number")
            }
        }
        arrays = arrays sprintf("static const double card_%d_arr_%d[] = { %s };\n", n_cards, n_kv, list)
        kvs = kvs sprintf("    { %s, 0, NULL, card_%d_arr_%d, %d },\n", c_string(key), n_cards, n_kv, n)
    } else if (value ~ /^[a-z][a-z0-9_-]*$/) {
        kvs = kvs sprintf("    { %s, 0, %s, NULL, 0 },\n", c_string(key), c_string(value))
    } else {
        fail("key " key ": '" value "' is not a number, a [list, of, numbers], true/false or a word")
    }
    next
}

{
    fail("unknown line '" key "' (card, arch, source, about, tensors or a .key)")
}

END {
    if (failed) {
        exit 1
    }
    end_card()
    for (f in family_of) {
        if (!(f in seen_file)) {
            printf "%s: listed in families.tsv but not read\n", f | "cat 1>&2"
            exit 1
        }
    }
    print "static const struct model_card cards[] = {"
    printf "%s", table
    print "};"
}
