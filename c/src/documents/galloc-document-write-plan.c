// galloc-document-write-plan.c: the plan document out (galloc_document_write_plan).
//
// The head (format, name, counts, buffers) is written by the JSON writer as a whole object; the
// tensors, one line each and most of the document, are then appended to that same text by hand:
// one room check per block of entries, constant pieces copied whole, integers three digits per
// look-up (galloc-document-digits.h). The bytes are the JSON writer's layout (the format page's):
// `null` or `{ "buffer": B, ... }` per line.

#include "galloc-document.h"
#include "galloc-document-digits.h"
#include "galloc-document-impl.h"
#include "json.h"

#include <stdlib.h>
#include <string.h>

//
// the head: everything but the tensors
//

static void write_plan_buffer(struct galloc_json_writer * w, const struct galloc_document * doc, const struct galloc_plan * plan, int32_t b) {
    const struct galloc_buffer_plan * bp = &plan->buffers[b];
    const struct galloc_buffer_type * bt = &doc->buffer_types[b];
    galloc_json_write_newline(w, 4);
    galloc_json_write_begin_object(w);
    galloc_json_write_key_i64(w, "buffer_type", b);
    galloc_json_write_key_cstr(w, "name", doc->buffer_type_names != NULL ? doc->buffer_type_names[b] : "");
    galloc_json_write_key_u64(w, "alignment", bt->alignment);
    galloc_json_write_key(w, "max_size");
    if (bt->max_size == GALLOC_NO_MAX_SIZE) {
        galloc_json_write_null(w);
    } else {
        galloc_json_write_u64(w, bt->max_size);
    }
    galloc_json_write_key(w, "chunk_sizes");
    galloc_json_write_u64_array(w, bp->chunk_sizes, (size_t) (bp->n_chunks < GALLOC_MAX_CHUNKS ? bp->n_chunks : GALLOC_MAX_CHUNKS));
    galloc_json_write_key_u64(w, "size", bp->size);
    galloc_json_write_key_u64(w, "peak_live", bp->peak_live);
    galloc_json_write_key_u64(w, "overhead", galloc_overhead_bytes(bp->size, bp->peak_live));
    galloc_json_write_key(w, "shared_with");
    if (bp->shared_with < 0) {
        galloc_json_write_null(w);
    } else {
        galloc_json_write_i64(w, bp->shared_with);
    }
    galloc_json_write_end_object(w);
}

// the plan document without its "tensors" member, a whole JSON text ending in "\n}\n"; NULL when out of memory
static char * write_plan_head(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_cstr(&w, "format", "galloc-plan");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_u64(&w, "version", 1);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_cstr(&w, "name", doc->name != NULL ? doc->name : "");
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_i64(&w, "n_steps", plan->n_steps);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key_i64(&w, "n_inplace", plan->n_inplace);
    galloc_json_write_newline(&w, 2);
    galloc_json_write_key(&w, "buffers");
    galloc_json_write_begin_array(&w);
    for (int32_t b = 0; b < plan->n_buffer_types; b++) {
        write_plan_buffer(&w, doc, plan, b);
    }
    if (plan->n_buffer_types > 0) {
        galloc_json_write_newline(&w, 2);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_newline(&w, 0);
    galloc_json_write_end_object(&w);
    galloc_json_write_newline(&w, 0);
    return galloc_json_writer_finish(&w, len);
}

//
// the tensors: integers and constant pieces straight into the text
//

_Static_assert(GALLOC_JSON_EXACT_LIMIT < GALLOC_DIGITS_U64_LIMIT, "galloc_digits_put_u64 writes every exact JSON integer");

// Plans of layered models repeat a few large numbers (the 7B prompt plan: 807 tensors placed at 9
// distinct offsets, with 5 distinct sizes), so numbers from MEMO_FROM on (seven digits and more)
// are kept with their text in a small direct-mapped memo, and a repeat is one 16-byte copy. Below
// that, writing the digits costs about what looking them up would (and misses would add to it).
#define MEMO_BITS  5
#define MEMO_SLOTS (1u << MEMO_BITS)
#define MEMO_FROM  1000000u
#define MEMO_COPY  16 // bytes copied from a slot: the most digits of a number up to GALLOC_JSON_EXACT_LIMIT
#define MEMO_ROOM  (MEMO_COPY + 8) // a slot's text: the digits and the junk galloc_digits_put_u64 writes after them
_Static_assert(GALLOC_JSON_EXACT_LIMIT < 10000000000000000ull, "a memo slot's text holds every exact JSON integer");

struct number_memo {
    uint64_t      value[MEMO_SLOTS]; // the number a slot holds; 0 (below MEMO_FROM, never looked up): none yet
    unsigned char len[MEMO_SLOTS];   // its digit count
    char          text[MEMO_SLOTS][MEMO_ROOM];
};

// v (MEMO_FROM <= v <= GALLOC_JSON_EXACT_LIMIT) at `at` (MEMO_COPY bytes written), through the memo; past its digits
static inline char * put_memo(char * at, uint64_t v, struct number_memo * memo) {
    size_t slot = (size_t) ((v * 0x9E3779B97F4A7C15ull) >> (64 - MEMO_BITS)); // Fibonacci hashing: the top bits of v * 2^64 / phi
    if (memo->value[slot] != v) {
        memo->value[slot] = v;
        memo->len[slot]   = (unsigned char) (galloc_digits_put_u64(memo->text[slot], v) - memo->text[slot]);
    }
    memcpy(at, memo->text[slot], MEMO_COPY);
    return at + memo->len[slot];
}

static inline char * put_u64(char * at, uint64_t v, struct number_memo * memo) {
    if (v > GALLOC_JSON_EXACT_LIMIT) {
        return at + galloc_json_format_u64(at, v); // a quoted decimal string, rare
    }
    if (v >= MEMO_FROM) {
        return put_memo(at, v, memo);
    }
    return galloc_digits_put_u32(at, (uint32_t) v);
}

static inline char * put_i32(char * at, int32_t v) {
    if (v < 0) {
        *at++ = '-';
        return galloc_digits_put_u32(at, (uint32_t) 0 - (uint32_t) v);
    }
    return galloc_digits_put_u32(at, (uint32_t) v);
}

// a constant piece (a string literal) at `at`; past it
#define PUT_PIECE(at, lit) (memcpy((at), (lit), sizeof(lit) - 1), (at) + sizeof(lit) - 1)

// `, "how": "NAME"` for each enum galloc_how, built from galloc_how_name once per document
#define HOW_COUNT      (GALLOC_HOW_VIEW + 1)
#define HOW_PIECE_ROOM 32
struct how_pieces {
    char   text[HOW_COUNT][HOW_PIECE_ROOM];
    size_t len[HOW_COUNT];
};

static void how_pieces_init(struct how_pieces * h) {
    for (int k = 0; k < HOW_COUNT; k++) {
        const char * name = galloc_how_name((enum galloc_how) k); // a short lower-case word
        size_t       n    = strlen(name);
        char *       at   = h->text[k];
        at                = PUT_PIECE(at, ", \"how\": \"");
        memcpy(at, name, n); // the names are at most 10 bytes: 11 + 10 <= HOW_PIECE_ROOM
        at += n;
        *at++     = '"';
        h->len[k] = (size_t) (at - h->text[k]);
    }
}

// the most bytes one entry takes: its separator ",\n    ", the longest object (every member, each
// integer GALLOC_JSON_INTEGER_MAX bytes, more than its digits and the junk bytes after them) and
// the how piece
#define ENTRY_MAX (6 + 96 + 7 * GALLOC_JSON_INTEGER_MAX + HOW_PIECE_ROOM)
// entries written after one room check
#define ENTRIES_PER_ROOM 64

// a placed tensor's line (after its separator) at `at`; past it
static inline char * put_entry(char * at, const struct galloc_place * p, bool view, const struct how_pieces * how,
                               struct number_memo * memo) {
    if ((uint32_t) p->buffer < 10 && (uint32_t) p->chunk < 10) { // the usual case: one digit each, into one piece
        static const char head[] = "{ \"buffer\": 0, \"chunk\": 0, \"offset\": ";
        memcpy(at, head, sizeof(head) - 1);
        at[sizeof("{ \"buffer\": ") - 1]                   = (char) ('0' + p->buffer);
        at[sizeof("{ \"buffer\": 0, \"chunk\": ") - 1]     = (char) ('0' + p->chunk);
        at += sizeof(head) - 1;
    } else {
        at = PUT_PIECE(at, "{ \"buffer\": ");
        at = put_i32(at, p->buffer);
        at = PUT_PIECE(at, ", \"chunk\": ");
        at = put_i32(at, p->chunk);
        at = PUT_PIECE(at, ", \"offset\": ");
    }
    at = put_u64(at, p->offset, memo);
    at = PUT_PIECE(at, ", \"size\": ");
    at = put_u64(at, p->size, memo);
    if (view) {
        at = PUT_PIECE(at, ", \"view\": true");
    }
    int k = p->how >= 0 && p->how < HOW_COUNT ? p->how : GALLOC_HOW_NONE; // as galloc_how_name names others
    memcpy(at, how->text[k], HOW_PIECE_ROOM); // the whole padded piece; only its length counts
    at += how->len[k];
    if (p->how == GALLOC_HOW_INPLACE || p->how == GALLOC_HOW_VIEW) {
        at = PUT_PIECE(at, ", \"parent\": ");
        at = put_i32(at, p->parent);
    }
    at = PUT_PIECE(at, ", \"first\": ");
    if ((uint32_t) p->first_step < GALLOC_DIGITS_THOUSAND && (uint32_t) p->last_step < GALLOC_DIGITS_THOUSAND) { // the usual steps
        at = galloc_digits_put_lead(at, (uint32_t) p->first_step);
        at = PUT_PIECE(at, ", \"last\": ");
        at = galloc_digits_put_lead(at, (uint32_t) p->last_step);
        return PUT_PIECE(at, " }");
    }
    at = put_i32(at, p->first_step);
    at = PUT_PIECE(at, ", \"last\": ");
    at = put_i32(at, p->last_step);
    return PUT_PIECE(at, " }");
}

// room for `extra` more bytes after len in *buf (capacity *cap), doubling; false when out of memory
static bool text_room(char ** buf, size_t * cap, size_t len, size_t extra) {
    if (*cap - len >= extra) {
        return true;
    }
    size_t want = *cap;
    while (want - len < extra) {
        if (want > SIZE_MAX / 2) {
            return false;
        }
        want *= 2;
    }
    char * grown = realloc(*buf, want);
    if (grown == NULL) {
        return false;
    }
    *buf = grown;
    *cap = want;
    return true;
}

char * galloc_document_write_plan(const struct galloc_document * doc, const struct galloc_plan * plan, size_t * len) {
    if (len != NULL) {
        *len = 0;
    }
    if (plan->n_tensors != doc->n_tensors || plan->n_buffer_types != doc->n_buffer_types) {
        return NULL; // not a plan of this document
    }
    size_t n    = 0;
    char * text = write_plan_head(doc, plan, &n);
    static const char head_end[] = "\n}\n";
    if (text == NULL || n < sizeof(head_end) - 1 || memcmp(text + n - (sizeof(head_end) - 1), head_end, sizeof(head_end) - 1) != 0) {
        free(text);
        return NULL;
    }
    n -= sizeof(head_end) - 1; // reopened after the buffers

    // a first guess of the size (about 80 bytes a tensor on llama graphs), grown when a block of
    // entries might not fit
    size_t cap   = n + (size_t) plan->n_tensors * 96 + ENTRIES_PER_ROOM * ENTRY_MAX;
    char * grown = realloc(text, cap);
    if (grown == NULL) {
        free(text);
        return NULL;
    }
    text = grown;
    // every entry follows ",\n    "; the first one's ',' becomes the array's '['
    n                  = (size_t) (PUT_PIECE(text + n, ",\n  \"tensors\": ") - text);
    size_t array_start = n;

    struct how_pieces how;
    how_pieces_init(&how);
    struct number_memo memo;
    memset(memo.value, 0, sizeof(memo.value));
    const struct galloc_tensor * tensors = doc->tensors;
    const struct galloc_place *  places  = plan->places;
    for (int32_t i = 0; i < plan->n_tensors;) {
        int32_t block_end = plan->n_tensors - i > ENTRIES_PER_ROOM ? i + ENTRIES_PER_ROOM : plan->n_tensors;
        if (!text_room(&text, &cap, n, (size_t) (block_end - i) * ENTRY_MAX)) {
            free(text);
            return NULL;
        }
        char * at = text + n;
        for (; i < block_end; i++) {
            if (places[i].buffer < 0) {
                at = PUT_PIECE(at, ",\n    null"); // a tensor not placed (a weight, an external)
                continue;
            }
            at = PUT_PIECE(at, ",\n    ");
            at = put_entry(at, &places[i], tensors[i].view_src >= 0, &how, &memo);
        }
        n = (size_t) (at - text);
    }
    // the end ("\n  ]" after entries, then the root's "\n}\n") and the NUL: ENTRY_MAX is room enough
    if (!text_room(&text, &cap, n, ENTRY_MAX)) {
        free(text);
        return NULL;
    }
    char * at = text + n;
    if (plan->n_tensors > 0) {
        text[array_start] = '[';
        at                = PUT_PIECE(at, "\n  ]\n}\n");
    } else {
        at = PUT_PIECE(at, "[]\n}\n");
    }
    *at = '\0';
    if (len != NULL) {
        *len = (size_t) (at - text);
    }
    return text;
}
