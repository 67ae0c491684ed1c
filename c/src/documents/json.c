// json.c: the JSON reader and writer of json.h.
//
// The reader is one loop over an explicit stack of open containers (at most
// JSON_MAX_DEPTH), so no input can recurse it. Finished values wait on a
// growable value stack; when a container closes, its items move into the
// arena as one compact array. Line and column are computed only when an error
// is reported.

#include "json.h"
#include "galloc-decimal.h"
#include "galloc-error.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//
// arena: bump allocation in a list of blocks, all freed at once
//

struct arena_block {
    struct arena_block * next; // older block
    size_t               size; // bytes of data after the header
    size_t               used; // bytes handed out
};

#define ARENA_HEADER      ((sizeof(struct arena_block) + 15) & ~(size_t) 15) // data starts 16-byte aligned
#define ARENA_FIRST_BLOCK ((size_t) 4096)       // bytes of the first block
#define ARENA_MAX_BLOCK   ((size_t) 4 << 20)    // blocks double up to this size

struct arena {
    struct arena_block * head;       // current block (newest)
    size_t               next_size;  // data bytes of the next block
    void *               last;       // last allocation, which can still shrink
};

static unsigned char * arena_data(struct arena_block * b) {
    return (unsigned char *) b + ARENA_HEADER;
}

static void * arena_alloc(struct arena * a, size_t size) {
    size_t need = (size + 7) & ~(size_t) 7;
    if (need < size) {
        return NULL;
    }
    struct arena_block * b = a->head;
    if (b == NULL || b->size - b->used < need) {
        size_t bsize = a->next_size ? a->next_size : ARENA_FIRST_BLOCK;
        if (bsize < need) {
            bsize = need;
        }
        if (bsize > SIZE_MAX - ARENA_HEADER) {
            return NULL;
        }
        b = malloc(ARENA_HEADER + bsize);
        if (b == NULL) {
            return NULL;
        }
        b->next = a->head;
        b->size = bsize;
        b->used = 0;
        a->head = b;
        if (a->next_size < ARENA_MAX_BLOCK) {
            a->next_size = a->next_size ? a->next_size * 2 : ARENA_FIRST_BLOCK * 2;
        }
    }
    void * p = arena_data(b) + b->used;
    b->used += need;
    a->last = p;
    return p;
}

// give back the tail of the last allocation: it keeps its first `size` bytes
static void arena_shrink_last(struct arena * a, void * p, size_t size) {
    struct arena_block * b = a->head;
    if (b == NULL || p != a->last) {
        return;
    }
    size_t start = (size_t) ((unsigned char *) p - arena_data(b));
    b->used = start + ((size + 7) & ~(size_t) 7);
}

// free everything allocated after the mark (the head block and its use, taken earlier)
static void arena_rewind(struct arena * a, struct arena_block * mark_block, size_t mark_used) {
    while (a->head != mark_block && a->head != NULL) {
        struct arena_block * older = a->head->next;
        free(a->head);
        a->head = older;
    }
    if (a->head != NULL) {
        a->head->used = mark_used;
    }
    a->last = NULL;
}

static void arena_free(struct arena * a) {
    struct arena_block * b = a->head;
    while (b != NULL) {
        struct arena_block * next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->last = NULL;
    a->next_size = 0;
}

//
// values
//

enum galloc_json_num {
    JSON_NUM_UINT, // integer >= 0 that fits 64 bits: u.mag
    JSON_NUM_NEG,  // integer < 0 whose magnitude fits 64 bits: u.mag
    JSON_NUM_BIG,  // integer whose magnitude is past 2^64 - 1: u.text
    JSON_NUM_REAL, // with a fraction or exponent: u.text
};

struct galloc_json_value {
    uint8_t  type; // enum galloc_json_type
    uint8_t  sub;  // NUMBER: enum galloc_json_num; BOOL: 0 or 1
    uint32_t n;    // STRING: bytes; ARRAY: items; OBJECT: members; NUMBER (BIG, REAL): text bytes
    union {
        uint64_t                  mag;   // NUMBER (UINT, NEG): magnitude
        const char *              text;  // STRING: decoded bytes + NUL; NUMBER (BIG, REAL): source text + NUL
        const struct galloc_json_value * items; // ARRAY: n values; OBJECT: 2n values, each key (a string) then its value
    } u;
};

struct galloc_json_doc {
    struct arena      arena; // every string and container array of the document
    struct galloc_json_value root;
};

//
// UTF-8
//

// bytes of the valid UTF-8 sequence starting at s[0] (n bytes available), 0 when invalid
static size_t utf8_length(const unsigned char * s, size_t n) {
    unsigned char c = s[0];
    if (c < 0x80) {
        return 1;
    }
    size_t  len;
    uint8_t lo = 0x80; // allowed range of the second byte
    uint8_t hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0) { lo = 0xA0; } // no overlong forms
        if (c == 0xED) { hi = 0x9F; } // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0) { lo = 0x90; } // no overlong forms
        if (c == 0xF4) { hi = 0x8F; } // nothing past U+10FFFF
    } else {
        return 0;
    }
    if (n < len || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    return len;
}

static size_t utf8_encode(uint32_t cp, unsigned char * out) {
    if (cp < 0x80) {
        out[0] = (unsigned char) cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char) (0xC0 | (cp >> 6));
        out[1] = (unsigned char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char) (0xE0 | (cp >> 12));
        out[1] = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char) (0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char) (0xF0 | (cp >> 18));
    out[1] = (unsigned char) (0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char) (0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char) (0x80 | (cp & 0x3F));
    return 4;
}

//
// parser
//

struct parser_frame {
    uint8_t  is_object; // 1: object, 0: array
    size_t   base;      // index in the value stack of its first item (objects: key, value, key, ...)
    size_t   key_base;  // index in the key offset stack of its first key
    // streamed arrays (members of the root object, when galloc_json_parse_stream has a callback)
    bool                 streamed;
    bool                 skipped;    // galloc_json_parse_skipping's array: items checked, counted, not kept
    const char *         key;        // the member's name
    size_t               n_streamed; // items handed over so far
    struct arena_block * mark_block; // the arena as the current item started
    size_t               mark_used;
};

struct parser {
    const char *        text;     // input
    size_t              len;      // input bytes
    size_t              pos;      // next byte to read
    struct galloc_json_doc *   doc;
    struct galloc_json_value * stack;    // finished values waiting for their container to close
    size_t              n_stack;
    size_t              cap_stack;
    size_t *            key_offs; // input offset of each waiting object key (for duplicate key errors)
    size_t              n_keys;
    size_t              cap_keys;
    struct parser_frame frames[JSON_MAX_DEPTH];
    int                 depth;    // open containers
    galloc_json_item_fn        item_fn;  // galloc_json_parse_stream's callback, NULL for galloc_json_parse
    void *              user;
    const char *        skip_key;  // galloc_json_parse_skipping's member name, else NULL
    size_t              skip_key_len;
    struct galloc_json_skipped * skipped;
    struct galloc_error * err;
    bool                failed;
};


#if defined(__GNUC__) || defined(__clang__)
#    define JSON_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#    define JSON_PRINTF(a, b)
#endif

// record the first error, at input offset `at`, as "line L, column C: message"
JSON_PRINTF(3, 4)
static void parser_fail(struct parser * p, size_t at, const char * fmt, ...) {
    if (p->failed) {
        return;
    }
    p->failed = true;
    if (p->err == NULL) {
        return;
    }
    p->err->status    = GALLOC_STATUS_INVALID;
    size_t line       = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < at && i < p->len; i++) {
        if (p->text[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    char * out  = p->err->message;
    size_t size = sizeof(p->err->message);
    int    n    = snprintf(out, size, "line %zu, column %zu: ", line, at - line_start + 1);
    if (n >= 0 && (size_t) n < size) {
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(out + n, size - (size_t) n, fmt, ap);
        va_end(ap);
        galloc_error_one_line(out, m < 0 || (size_t) m >= size - (size_t) n);
    }
}

static void parser_fail_oom(struct parser * p) {
    if (p->failed) {
        return;
    }
    p->failed = true;
    galloc_fail(p->err, GALLOC_STATUS_NO_MEMORY, "out of memory");
}

static void parser_skip_ws(struct parser * p) {
    while (p->pos < p->len) {
        char c = p->text[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
        p->pos++;
    }
}

// a printable rendering of the byte at pos for messages
static void parser_describe_byte(const struct parser * p, size_t pos, char * buf, size_t size) {
    unsigned char c = (unsigned char) p->text[pos];
    if (c >= 0x21 && c < 0x7F && c != '\'') {
        snprintf(buf, size, "'%c'", c);
    } else {
        snprintf(buf, size, "byte 0x%02X", c);
    }
}

static bool parser_push(struct parser * p, const struct galloc_json_value * v) {
    if (p->n_stack == p->cap_stack) {
        size_t cap = p->cap_stack ? p->cap_stack * 2 : 256;
        if (cap > SIZE_MAX / sizeof(struct galloc_json_value)) {
            parser_fail_oom(p);
            return false;
        }
        struct galloc_json_value * s = realloc(p->stack, cap * sizeof(struct galloc_json_value));
        if (s == NULL) {
            parser_fail_oom(p);
            return false;
        }
        p->stack     = s;
        p->cap_stack = cap;
    }
    p->stack[p->n_stack++] = *v;
    return true;
}

static bool parser_push_key_offset(struct parser * p, size_t offset) {
    if (p->n_keys == p->cap_keys) {
        size_t cap = p->cap_keys ? p->cap_keys * 2 : 64;
        if (cap > SIZE_MAX / sizeof(size_t)) {
            parser_fail_oom(p);
            return false;
        }
        size_t * s = realloc(p->key_offs, cap * sizeof(size_t));
        if (s == NULL) {
            parser_fail_oom(p);
            return false;
        }
        p->key_offs = s;
        p->cap_keys = cap;
    }
    p->key_offs[p->n_keys++] = offset;
    return true;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') { return c - '0'; }
    if (c >= 'a' && c <= 'f') { return c - 'a' + 10; }
    if (c >= 'A' && c <= 'F') { return c - 'A' + 10; }
    return -1;
}

// the 4 hex digits at text[at..at+3], all before `end`; -1 when not
static int32_t parser_hex4(const struct parser * p, size_t at, size_t end) {
    if (at > end || end - at < 4) {
        return -1;
    }
    int32_t v = 0;
    for (size_t i = 0; i < 4; i++) {
        int h = hex_value(p->text[at + i]);
        if (h < 0) {
            return -1;
        }
        v = v * 16 + h;
    }
    return v;
}

// the string starting at the '"' at p->pos, decoded into the arena
static bool parser_string(struct parser * p, struct galloc_json_value * out) {
    const size_t open = p->pos;
    // find the closing quote (an escape is a backslash and the next byte)
    size_t end = open + 1;
    while (end < p->len && p->text[end] != '"') {
        end += p->text[end] == '\\' ? 2 : 1;
    }
    if (end >= p->len) {
        parser_fail(p, open, "unterminated string");
        return false;
    }
    if (end - open - 1 > UINT32_MAX - 1) {
        parser_fail(p, open, "string longer than 4 GiB");
        return false;
    }
    unsigned char * buf = arena_alloc(&p->doc->arena, end - open); // decoded bytes never outnumber the source bytes
    if (buf == NULL) {
        parser_fail_oom(p);
        return false;
    }
    size_t n = 0;
    size_t i = open + 1;
    while (i < end) {
        unsigned char c = (unsigned char) p->text[i];
        if (c == '\\') {
            char e = p->text[i + 1];
            switch (e) {
                case '"':  buf[n++] = '"';  i += 2; continue;
                case '\\': buf[n++] = '\\'; i += 2; continue;
                case '/':  buf[n++] = '/';  i += 2; continue;
                case 'b':  buf[n++] = '\b'; i += 2; continue;
                case 'f':  buf[n++] = '\f'; i += 2; continue;
                case 'n':  buf[n++] = '\n'; i += 2; continue;
                case 'r':  buf[n++] = '\r'; i += 2; continue;
                case 't':  buf[n++] = '\t'; i += 2; continue;
                case 'u':  break;
                default: {
                    char what[16];
                    parser_describe_byte(p, i + 1, what, sizeof(what));
                    parser_fail(p, i, "invalid escape: backslash followed by %s", what);
                    return false;
                }
            }
            int32_t cp = parser_hex4(p, i + 2, end);
            if (cp < 0) {
                parser_fail(p, i, "invalid \\u escape: expected 4 hex digits");
                return false;
            }
            size_t esc_len = 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                parser_fail(p, i, "invalid \\u escape: low surrogate \\u%04X without a high surrogate before it", (unsigned) cp);
                return false;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                int32_t low = -1;
                if (i + 7 < end && p->text[i + 6] == '\\' && p->text[i + 7] == 'u') {
                    low = parser_hex4(p, i + 8, end);
                }
                if (low < 0xDC00 || low > 0xDFFF) {
                    parser_fail(p, i, "invalid \\u escape: high surrogate \\u%04X not followed by a low surrogate", (unsigned) cp);
                    return false;
                }
                cp      = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                esc_len = 12;
            }
            n += utf8_encode((uint32_t) cp, buf + n);
            i += esc_len;
            continue;
        }
        if (c < 0x20) {
            parser_fail(p, i, "control character 0x%02X in a string (must be escaped)", c);
            return false;
        }
        if (c < 0x80) {
            buf[n++] = c;
            i++;
            continue;
        }
        size_t seq = utf8_length((const unsigned char *) p->text + i, end - i);
        if (seq == 0) {
            parser_fail(p, i, "invalid UTF-8 in a string (byte 0x%02X)", c);
            return false;
        }
        memcpy(buf + n, p->text + i, seq);
        n += seq;
        i += seq;
    }
    buf[n] = '\0';
    arena_shrink_last(&p->doc->arena, buf, n + 1);
    out->type   = JSON_TYPE_STRING;
    out->sub    = 0;
    out->n      = (uint32_t) n;
    out->u.text = (const char *) buf;
    p->pos      = end + 1;
    return true;
}

static bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// the number starting at p->pos
static bool parser_number(struct parser * p, struct galloc_json_value * out) {
    const size_t start = p->pos;
    size_t       i     = start;
    bool         neg   = false;
    if (p->text[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= p->len || !is_digit(p->text[i])) {
        parser_fail(p, start, "invalid number: expected a digit");
        return false;
    }
    uint64_t mag      = 0;
    bool     overflow = false;
    if (p->text[i] == '0') {
        i++;
        if (i < p->len && is_digit(p->text[i])) {
            parser_fail(p, start, "invalid number: leading zero");
            return false;
        }
    } else {
        size_t first = i;
        while (i < p->len && is_digit(p->text[i])) {
            i++;
        }
        overflow = !galloc_decimal_scan_u64(p->text + first, i - first, UINT64_MAX, &mag); // digits only: past 2^64 - 1
    }
    bool real = false;
    if (i < p->len && p->text[i] == '.') {
        i++;
        if (i >= p->len || !is_digit(p->text[i])) {
            parser_fail(p, start, "invalid number: expected a digit after '.'");
            return false;
        }
        while (i < p->len && is_digit(p->text[i])) {
            i++;
        }
        real = true;
    }
    if (i < p->len && (p->text[i] == 'e' || p->text[i] == 'E')) {
        i++;
        if (i < p->len && (p->text[i] == '+' || p->text[i] == '-')) {
            i++;
        }
        if (i >= p->len || !is_digit(p->text[i])) {
            parser_fail(p, start, "invalid number: expected a digit in the exponent");
            return false;
        }
        while (i < p->len && is_digit(p->text[i])) {
            i++;
        }
        real = true;
    }
    out->type = JSON_TYPE_NUMBER;
    if (real || overflow) {
        size_t n = i - start;
        if (n > UINT32_MAX - 1) {
            parser_fail(p, start, "number longer than 4 GiB");
            return false;
        }
        char * text = arena_alloc(&p->doc->arena, n + 1);
        if (text == NULL) {
            parser_fail_oom(p);
            return false;
        }
        memcpy(text, p->text + start, n);
        text[n]     = '\0';
        out->sub    = real ? JSON_NUM_REAL : JSON_NUM_BIG;
        out->n      = (uint32_t) n;
        out->u.text = text;
    } else {
        out->sub   = neg ? JSON_NUM_NEG : JSON_NUM_UINT;
        out->n     = 0;
        out->u.mag = mag;
    }
    p->pos = i;
    return true;
}

static bool parser_literal(struct parser * p, struct galloc_json_value * out) {
    static const struct {
        const char * word;
        uint8_t      type;
        uint8_t      sub;
    } literals[] = {
        { "true",  JSON_TYPE_BOOL, 1 },
        { "false", JSON_TYPE_BOOL, 0 },
        { "null",  JSON_TYPE_NULL, 0 },
    };
    for (size_t k = 0; k < sizeof(literals) / sizeof(literals[0]); k++) {
        size_t n = strlen(literals[k].word);
        if (p->len - p->pos >= n && memcmp(p->text + p->pos, literals[k].word, n) == 0) {
            out->type  = literals[k].type;
            out->sub   = literals[k].sub;
            out->n     = 0;
            out->u.mag = 0;
            p->pos += n;
            return true;
        }
    }
    parser_fail(p, p->pos, "invalid literal (expected true, false or null)");
    return false;
}

struct key_ref {
    const char * key;   // decoded key bytes
    uint32_t     len;   // bytes
    uint32_t     index; // member index
};

static int key_ref_compare(const void * a, const void * b) {
    const struct key_ref * x = a;
    const struct key_ref * y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int      c = n ? memcmp(x->key, y->key, n) : 0;
    if (c != 0) {
        return c;
    }
    if (x->len != y->len) {
        return x->len < y->len ? -1 : 1;
    }
    return x->index < y->index ? -1 : (x->index > y->index ? 1 : 0);
}

static bool key_equal(const struct galloc_json_value * a, const struct galloc_json_value * b) {
    return a->n == b->n && memcmp(a->u.text, b->u.text, a->n) == 0;
}

// a key's text for messages: printable ASCII kept, anything else as '?', cut at 40 bytes
static void describe_key(const char * key, size_t len, char * buf, size_t size) {
    size_t n = 0;
    for (size_t i = 0; i < len && n + 4 < size; i++) {
        if (i == 40) {
            buf[n++] = '.'; buf[n++] = '.'; buf[n++] = '.';
            break;
        }
        unsigned char c = (unsigned char) key[i];
        buf[n++] = (c >= 0x20 && c < 0x7F) ? (char) c : '?';
    }
    if (size > 0) {
        buf[n < size ? n : size - 1] = '\0';
    }
}

// members: 2*n_members values (key, value, ...); reports the first key that repeats an earlier one
static bool parser_check_duplicates(struct parser * p, const struct galloc_json_value * items, size_t n_members, size_t key_base) {
    size_t dup = SIZE_MAX; // member index of the earliest repeated key
    if (n_members <= 16) {
        for (size_t k = 1; k < n_members && dup == SIZE_MAX; k++) {
            for (size_t j = 0; j < k; j++) {
                if (key_equal(&items[2 * k], &items[2 * j])) {
                    dup = k;
                    break;
                }
            }
        }
    } else {
        struct key_ref * refs = malloc(n_members * sizeof(struct key_ref));
        if (refs == NULL) {
            parser_fail_oom(p);
            return false;
        }
        for (size_t k = 0; k < n_members; k++) {
            refs[k].key   = items[2 * k].u.text;
            refs[k].len   = items[2 * k].n;
            refs[k].index = (uint32_t) k;
        }
        qsort(refs, n_members, sizeof(struct key_ref), key_ref_compare);
        for (size_t k = 1; k < n_members; k++) {
            if (refs[k].len == refs[k - 1].len && memcmp(refs[k].key, refs[k - 1].key, refs[k].len) == 0) {
                if (refs[k].index < dup) {
                    dup = refs[k].index;
                }
            }
        }
        free(refs);
    }
    if (dup == SIZE_MAX) {
        return true;
    }
    char name[64];
    describe_key(items[2 * dup].u.text, items[2 * dup].n, name, sizeof(name));
    parser_fail(p, p->key_offs[key_base + dup], "duplicate key \"%s\"", name);
    return false;
}

// close the innermost container: its waiting items move into the arena
static bool parser_close(struct parser * p, struct galloc_json_value * out) {
    struct parser_frame * f     = &p->frames[p->depth - 1];
    size_t                count = p->n_stack - f->base;
    struct galloc_json_value *   items = NULL;
    if (count > 0) {
        if (count > SIZE_MAX / sizeof(struct galloc_json_value)) {
            parser_fail_oom(p);
            return false;
        }
        items = arena_alloc(&p->doc->arena, count * sizeof(struct galloc_json_value));
        if (items == NULL) {
            parser_fail_oom(p);
            return false;
        }
        memcpy(items, p->stack + f->base, count * sizeof(struct galloc_json_value));
    }
    if (f->is_object && !parser_check_duplicates(p, items, count / 2, f->key_base)) {
        return false;
    }
    size_t n = f->is_object ? count / 2 : count;
    if (n > UINT32_MAX) {
        parser_fail(p, p->pos, "container with more than 2^32 items");
        return false;
    }
    if (f->skipped && p->skipped != NULL) {
        p->skipped->found = true;
        p->skipped->count = f->n_streamed;
    }
    out->type    = f->is_object ? JSON_TYPE_OBJECT : JSON_TYPE_ARRAY;
    out->sub     = 0;
    out->n       = (uint32_t) n;
    out->u.items = items;
    p->n_stack   = f->base;
    p->n_keys    = f->key_base;
    p->depth--;
    return true;
}

// an object key at p->pos (the '"' already checked), then ':'
static bool parser_key(struct parser * p) {
    size_t            at = p->pos;
    struct galloc_json_value key;
    if (!parser_string(p, &key) || !parser_push(p, &key) || !parser_push_key_offset(p, at)) {
        return false;
    }
    parser_skip_ws(p);
    if (p->pos >= p->len) {
        parser_fail(p, p->pos, "unexpected end of input, expected ':'");
        return false;
    }
    if (p->text[p->pos] != ':') {
        parser_fail(p, p->pos, "expected ':'");
        return false;
    }
    p->pos++;
    return true;
}

static bool parser_open(struct parser * p, bool is_object) {
    if (p->depth == JSON_MAX_DEPTH) {
        parser_fail(p, p->pos, "nesting deeper than %d", JSON_MAX_DEPTH);
        if (p->err) {
            p->err->status = GALLOC_STATUS_LIMIT;
        }
        return false;
    }
    struct parser_frame * f = &p->frames[p->depth++];
    f->is_object  = is_object;
    f->base       = p->n_stack;
    f->key_base   = p->n_keys;
    f->streamed   = false;
    f->skipped    = false;
    if (!is_object && p->depth == 2 && p->frames[0].is_object) {
        const struct galloc_json_value * key = &p->stack[p->n_stack - 1]; // the member's key, pushed last
        if (p->skip_key != NULL) {
            f->skipped  = key->n == p->skip_key_len && memcmp(key->u.text, p->skip_key, key->n) == 0;
            f->streamed = f->skipped;
        } else {
            f->streamed = p->item_fn != NULL;
        }
    }
    f->key        = f->streamed ? p->stack[p->n_stack - 1].u.text : NULL;
    f->n_streamed = 0;
    p->pos++;
    return true;
}

static bool parser_run(struct parser * p) {
    struct galloc_json_value v;
    for (;;) {
        // a value starts here
        if (p->depth == 2 && p->frames[1].streamed) { // an item of a streamed array: all it allocates goes at its end
            p->frames[1].mark_block = p->doc->arena.head;
            p->frames[1].mark_used  = p->doc->arena.head ? p->doc->arena.head->used : 0;
        }
        parser_skip_ws(p);
        if (p->pos >= p->len) {
            parser_fail(p, p->pos, "unexpected end of input, expected a value");
            return false;
        }
        char   c          = p->text[p->pos];
        bool   have_value = true;
        if (c == '{' || c == '[') {
            if (!parser_open(p, c == '{')) {
                return false;
            }
            parser_skip_ws(p);
            char close = c == '{' ? '}' : ']';
            if (p->pos < p->len && p->text[p->pos] == close) {
                p->pos++;
                if (!parser_close(p, &v)) {
                    return false;
                }
            } else if (c == '{') {
                if (p->pos >= p->len) {
                    parser_fail(p, p->pos, "unexpected end of input, expected a string key or '}'");
                    return false;
                }
                if (p->text[p->pos] != '"') {
                    parser_fail(p, p->pos, "expected a string key or '}'");
                    return false;
                }
                if (!parser_key(p)) {
                    return false;
                }
                have_value = false; // the member's value comes next
            } else {
                have_value = false; // the first item comes next
            }
        } else if (c == '"') {
            if (!parser_string(p, &v)) {
                return false;
            }
        } else if (c == '-' || is_digit(c)) {
            if (!parser_number(p, &v)) {
                return false;
            }
        } else if (c == 't' || c == 'f' || c == 'n') {
            if (!parser_literal(p, &v)) {
                return false;
            }
        } else {
            char what[16];
            parser_describe_byte(p, p->pos, what, sizeof(what));
            parser_fail(p, p->pos, "expected a value, got %s", what);
            return false;
        }
        // a finished value goes to its container, which may close in turn
        while (have_value) {
            if (p->depth == 0) {
                p->doc->root = v;
                parser_skip_ws(p);
                if (p->pos < p->len) {
                    parser_fail(p, p->pos, "unexpected data after the document");
                    return false;
                }
                return true;
            }
            struct parser_frame * f = &p->frames[p->depth - 1];
            if (f->skipped) {
                f->n_streamed++;
                arena_rewind(&p->doc->arena, f->mark_block, f->mark_used);
            } else if (f->streamed) {
                if (!p->item_fn(p->user, f->key, f->n_streamed++, &v, p->err)) {
                    p->failed = true; // the callback's message stands
                    return false;
                }
                arena_rewind(&p->doc->arena, f->mark_block, f->mark_used);
            } else if (!parser_push(p, &v)) {
                return false;
            }
            char close = f->is_object ? '}' : ']';
            parser_skip_ws(p);
            if (p->pos >= p->len) {
                parser_fail(p, p->pos, "unexpected end of input, expected ',' or '%c'", close);
                return false;
            }
            char d = p->text[p->pos];
            if (d == ',') {
                p->pos++;
                if (f->is_object) {
                    parser_skip_ws(p);
                    if (p->pos >= p->len) {
                        parser_fail(p, p->pos, "unexpected end of input, expected a string key");
                        return false;
                    }
                    if (p->text[p->pos] != '"') {
                        parser_fail(p, p->pos, "expected a string key");
                        return false;
                    }
                    if (!parser_key(p)) {
                        return false;
                    }
                }
                have_value = false;
            } else if (d == close) {
                p->pos++;
                if (!parser_close(p, &v)) {
                    return false;
                }
            } else {
                parser_fail(p, p->pos, "expected ',' or '%c'", close);
                return false;
            }
        }
    }
}

struct galloc_json_doc * galloc_json_parse(const char * text, size_t len, struct galloc_error * err) {
    return galloc_json_parse_stream(text, len, NULL, NULL, err);
}

static struct galloc_json_doc * parse_with(const char * text, size_t len, galloc_json_item_fn item, void * user, const char * skip_key,
                                           struct galloc_json_skipped * skipped, struct galloc_error * err);

struct galloc_json_doc * galloc_json_parse_stream(const char * text, size_t len, galloc_json_item_fn item, void * user, struct galloc_error * err) {
    return parse_with(text, len, item, user, NULL, NULL, err);
}

struct galloc_json_doc * galloc_json_parse_skipping(const char * text, size_t len, const char * key, struct galloc_json_skipped * skipped,
                                                    struct galloc_error * err) {
    memset(skipped, 0, sizeof(*skipped));
    return parse_with(text, len, NULL, NULL, key, skipped, err);
}

static struct galloc_json_doc * parse_with(const char * text, size_t len, galloc_json_item_fn item, void * user, const char * skip_key,
                                           struct galloc_json_skipped * skipped, struct galloc_error * err) {
    galloc_error_clear(err);
    struct galloc_json_doc * doc = calloc(1, sizeof(struct galloc_json_doc));
    if (doc == NULL) {
        galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory");
        return NULL;
    }
    struct parser p;
    memset(&p, 0, sizeof(p));
    p.text     = text != NULL ? text : "";
    p.len      = text != NULL ? len : 0;
    p.doc      = doc;
    p.item_fn  = item;
    p.user     = user;
    p.err      = err;
    p.skip_key     = skip_key;
    p.skip_key_len = skip_key != NULL ? strlen(skip_key) : 0;
    p.skipped      = skipped;
    if (p.len >= 3 && memcmp(p.text, "\xEF\xBB\xBF", 3) == 0) {
        p.pos = 3; // byte order mark
    }
    bool ok = parser_run(&p);
    free(p.stack);
    free(p.key_offs);
    if (!ok) {
        galloc_json_doc_free(doc);
        return NULL;
    }
    return doc;
}

void galloc_json_doc_free(struct galloc_json_doc * doc) {
    if (doc == NULL) {
        return;
    }
    arena_free(&doc->arena);
    free(doc);
}

const struct galloc_json_value * galloc_json_doc_root(const struct galloc_json_doc * doc) {
    return doc != NULL ? &doc->root : NULL;
}

//
// access
//

enum galloc_json_type galloc_json_type_of(const struct galloc_json_value * v) {
    return v != NULL ? (enum galloc_json_type) v->type : JSON_TYPE_NULL;
}

const char * galloc_json_type_name(enum galloc_json_type type) {
    switch (type) {
        case JSON_TYPE_NULL:   return "null";
        case JSON_TYPE_BOOL:   return "a boolean";
        case JSON_TYPE_NUMBER: return "a number";
        case JSON_TYPE_STRING: return "a string";
        case JSON_TYPE_ARRAY:  return "an array";
        case JSON_TYPE_OBJECT: return "an object";
    }
    return "?";
}

bool galloc_json_get_bool(const struct galloc_json_value * v, bool * out) {
    if (v == NULL || v->type != JSON_TYPE_BOOL) {
        return false;
    }
    *out = v->sub != 0;
    return true;
}

const char * galloc_json_get_string(const struct galloc_json_value * v, size_t * len) {
    if (v == NULL || v->type != JSON_TYPE_STRING) {
        return NULL;
    }
    if (len != NULL) {
        *len = v->n;
    }
    return v->u.text;
}

// a string holding exactly -?(0|[1-9][0-9]*): its sign and magnitude; *overflow when past 2^64 - 1
static bool decimal_parse(const char * s, size_t n, bool * neg, uint64_t * mag, bool * overflow) {
    size_t i = 0;
    *neg      = false;
    *mag      = 0;
    *overflow = false;
    if (i < n && s[i] == '-') {
        *neg = true;
        i++;
    }
    if (i >= n || !is_digit(s[i]) || (s[i] == '0' && i + 1 < n)) {
        return false;
    }
    for (size_t k = i; k < n; k++) {
        if (!is_digit(s[k])) {
            return false;
        }
    }
    *overflow = !galloc_decimal_scan_u64(s + i, n - i, UINT64_MAX, mag); // digits only: past 2^64 - 1
    if (*overflow) {
        *mag = 0;
    }
    return true;
}

// sign and magnitude of an integer value; a status other than OK when it is none
static enum galloc_json_int_status integer_parts(const struct galloc_json_value * v, bool * neg, uint64_t * mag) {
    if (v == NULL) {
        return JSON_INT_WRONG_TYPE;
    }
    bool overflow = false;
    if (v->type == JSON_TYPE_NUMBER) {
        switch ((enum galloc_json_num) v->sub) {
            case JSON_NUM_UINT: *neg = false; *mag = v->u.mag; break;
            case JSON_NUM_NEG:  *neg = true;  *mag = v->u.mag; break;
            case JSON_NUM_BIG:  *neg = v->u.text[0] == '-'; overflow = true; break;
            case JSON_NUM_REAL: return JSON_INT_NOT_INTEGER;
        }
    } else if (v->type == JSON_TYPE_STRING) {
        if (!decimal_parse(v->u.text, v->n, neg, mag, &overflow)) {
            return JSON_INT_NOT_INTEGER;
        }
    } else {
        return JSON_INT_WRONG_TYPE;
    }
    if (*neg && !overflow && *mag == 0) {
        *neg = false; // -0
    }
    if (overflow) {
        return *neg ? JSON_INT_NEGATIVE : JSON_INT_OVERFLOW; // callers of i64 map NEGATIVE back to OVERFLOW
    }
    return JSON_INT_OK;
}

enum galloc_json_int_status galloc_json_get_u64(const struct galloc_json_value * v, uint64_t * out) {
    bool                 neg = false;
    uint64_t             mag = 0;
    enum galloc_json_int_status st  = integer_parts(v, &neg, &mag);
    if (st != JSON_INT_OK) {
        return st;
    }
    if (neg) {
        return JSON_INT_NEGATIVE;
    }
    *out = mag;
    return JSON_INT_OK;
}

enum galloc_json_int_status galloc_json_get_i64(const struct galloc_json_value * v, int64_t * out) {
    bool                 neg = false;
    uint64_t             mag = 0;
    enum galloc_json_int_status st  = integer_parts(v, &neg, &mag);
    if (st == JSON_INT_NEGATIVE) {
        return JSON_INT_OVERFLOW; // a negative integer past -2^64
    }
    if (st != JSON_INT_OK) {
        return st;
    }
    if (!neg) {
        if (mag > (uint64_t) INT64_MAX) {
            return JSON_INT_OVERFLOW;
        }
        *out = (int64_t) mag;
    } else {
        if (mag > (uint64_t) INT64_MAX + 1) {
            return JSON_INT_OVERFLOW;
        }
        *out = mag == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) mag;
    }
    return JSON_INT_OK;
}

size_t galloc_json_array_size(const struct galloc_json_value * v) {
    return v != NULL && v->type == JSON_TYPE_ARRAY ? v->n : 0;
}

const struct galloc_json_value * galloc_json_array_at(const struct galloc_json_value * v, size_t i) {
    if (v == NULL || v->type != JSON_TYPE_ARRAY || i >= v->n) {
        return NULL;
    }
    return &v->u.items[i];
}

size_t galloc_json_object_size(const struct galloc_json_value * v) {
    return v != NULL && v->type == JSON_TYPE_OBJECT ? v->n : 0;
}

const char * galloc_json_object_key_at(const struct galloc_json_value * v, size_t i, size_t * len) {
    if (v == NULL || v->type != JSON_TYPE_OBJECT || i >= v->n) {
        return NULL;
    }
    if (len != NULL) {
        *len = v->u.items[2 * i].n;
    }
    return v->u.items[2 * i].u.text;
}

const struct galloc_json_value * galloc_json_object_value_at(const struct galloc_json_value * v, size_t i) {
    if (v == NULL || v->type != JSON_TYPE_OBJECT || i >= v->n) {
        return NULL;
    }
    return &v->u.items[2 * i + 1];
}

const struct galloc_json_value * galloc_json_object_get(const struct galloc_json_value * v, const char * key) {
    if (v == NULL || v->type != JSON_TYPE_OBJECT || key == NULL) {
        return NULL;
    }
    size_t n = strlen(key);
    for (uint32_t i = 0; i < v->n; i++) {
        const struct galloc_json_value * k = &v->u.items[2 * i];
        if (k->n == n && memcmp(k->u.text, key, n) == 0) {
            return &v->u.items[2 * i + 1];
        }
    }
    return NULL;
}

void galloc_json_describe(const struct galloc_json_value * v, char * buf, size_t size) {
    if (buf == NULL || size == 0) {
        return;
    }
    if (v == NULL) {
        snprintf(buf, size, "nothing");
        return;
    }
    char text[64];
    switch ((enum galloc_json_type) v->type) {
        case JSON_TYPE_NULL:
            snprintf(buf, size, "null");
            return;
        case JSON_TYPE_BOOL:
            snprintf(buf, size, "%s", v->sub ? "true" : "false");
            return;
        case JSON_TYPE_NUMBER:
            if (v->sub == JSON_NUM_UINT || v->sub == JSON_NUM_NEG) {
                snprintf(buf, size, "%s%llu", v->sub == JSON_NUM_NEG && v->u.mag ? "-" : "", (unsigned long long) v->u.mag);
            } else {
                describe_key(v->u.text, v->n, text, sizeof(text));
                snprintf(buf, size, "%s", text);
            }
            return;
        case JSON_TYPE_STRING:
            describe_key(v->u.text, v->n, text, sizeof(text));
            snprintf(buf, size, "\"%s\"", text);
            return;
        case JSON_TYPE_ARRAY:
        case JSON_TYPE_OBJECT:
            snprintf(buf, size, "%s", galloc_json_type_name((enum galloc_json_type) v->type));
            return;
    }
    snprintf(buf, size, "?");
}

//
// writer
//

void galloc_json_writer_init(struct galloc_json_writer * w) {
    memset(w, 0, sizeof(*w));
    w->newline = -1;
}

void galloc_json_writer_free(struct galloc_json_writer * w) {
    free(w->buf);
    galloc_json_writer_init(w);
}

bool galloc_json_writer_ok(const struct galloc_json_writer * w) {
    return !w->failed;
}

static bool writer_fail(struct galloc_json_writer * w) {
    w->failed = true;
    return false;
}

// make room for `extra` more bytes and a NUL (the slow path of writer_room)
static bool writer_grow(struct galloc_json_writer * w, size_t extra) {
    if (w->failed) {
        return false;
    }
    if (extra > SIZE_MAX - w->len - 1) {
        return writer_fail(w);
    }
    size_t need = w->len + extra + 1;
    if (need <= w->cap) {
        return true;
    }
    size_t cap = w->cap ? w->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char * buf = realloc(w->buf, cap);
    if (buf == NULL) {
        return writer_fail(w);
    }
    w->buf = buf;
    w->cap = cap;
    return true;
}

// room for `extra` more bytes and the final NUL; a failed writer has cap 0 or keeps failing in grow
static inline bool writer_room(struct galloc_json_writer * w, size_t extra) {
    return (!w->failed && w->cap - w->len > extra) || writer_grow(w, extra);
}

static inline bool writer_put(struct galloc_json_writer * w, const char * s, size_t n) {
    if (!writer_room(w, n)) {
        return false;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return true;
}

static inline bool writer_putc(struct galloc_json_writer * w, char c) {
    if (!writer_room(w, 1)) {
        return false;
    }
    w->buf[w->len++] = c;
    return true;
}

static bool writer_line_break(struct galloc_json_writer * w, int32_t indent) {
    if (!writer_room(w, (size_t) indent + 1)) {
        return false;
    }
    char * out = w->buf + w->len;
    *out++ = '\n';
    for (int32_t k = 0; k < indent; k++) {
        *out++ = ' ';
    }
    w->len += (size_t) indent + 1;
    return true;
}

// what goes before an array item or an object key: ',' then a line break or a space
static bool writer_separator(struct galloc_json_writer * w, struct galloc_json_writer_level * lvl, bool is_container) {
    if (!lvl->first && w->newline < 0) { // the common case: ", "
        if (!writer_room(w, 2)) {
            return false;
        }
        w->buf[w->len]     = ',';
        w->buf[w->len + 1] = ' ';
        w->len += 2;
        return true;
    }
    if (!lvl->first && !writer_putc(w, ',')) {
        return false;
    }
    bool ok = true;
    if (w->newline >= 0) {
        ok = writer_line_break(w, w->newline);
        w->newline = -1;
    } else if (!lvl->first) {
        ok = writer_putc(w, ' ');
    } else if (lvl->is_object || is_container) {
        ok = writer_putc(w, ' ');
        lvl->padded = 1;
    }
    lvl->first = 0;
    return ok;
}

// checks and separators before any value
static bool writer_before_value(struct galloc_json_writer * w, bool is_container) {
    if (w->failed) {
        return false;
    }
    if (w->depth == 0) {
        if (w->len > 0) {
            return writer_fail(w); // one value per document
        }
        w->newline = -1;
        return true;
    }
    struct galloc_json_writer_level * lvl = &w->levels[w->depth - 1];
    if (lvl->is_object) {
        if (!w->after_key) {
            return writer_fail(w); // an object member needs its key first
        }
        w->after_key = false;
        return true;
    }
    return writer_separator(w, lvl, is_container);
}

static bool writer_begin(struct galloc_json_writer * w, bool is_object) {
    if (!writer_before_value(w, true)) {
        return false;
    }
    if (w->depth == JSON_MAX_DEPTH) {
        return writer_fail(w);
    }
    struct galloc_json_writer_level * lvl = &w->levels[w->depth++];
    lvl->is_object = is_object;
    lvl->first     = 1;
    lvl->padded    = 0;
    return writer_putc(w, is_object ? '{' : '[');
}

static bool writer_end(struct galloc_json_writer * w, bool is_object) {
    if (w->failed) {
        return false;
    }
    if (w->depth == 0 || w->after_key || w->levels[w->depth - 1].is_object != is_object) {
        return writer_fail(w);
    }
    const struct galloc_json_writer_level * lvl = &w->levels[w->depth - 1];
    bool ok = true;
    if (w->newline >= 0) {
        ok = writer_line_break(w, w->newline);
        w->newline = -1;
    } else if (lvl->padded) {
        ok = writer_putc(w, ' ');
    }
    w->depth--;
    return ok && writer_putc(w, is_object ? '}' : ']');
}

bool galloc_json_write_begin_object(struct galloc_json_writer * w) { return writer_begin(w, true); }
bool galloc_json_write_end_object  (struct galloc_json_writer * w) { return writer_end(w, true); }
bool galloc_json_write_begin_array (struct galloc_json_writer * w) { return writer_begin(w, false); }
bool galloc_json_write_end_array   (struct galloc_json_writer * w) { return writer_end(w, false); }

bool galloc_json_write_newline(struct galloc_json_writer * w, int32_t indent) {
    if (w->failed) {
        return false;
    }
    if (indent < 0 || indent > 1024) {
        return writer_fail(w);
    }
    w->newline = indent;
    return true;
}

// 1 for the bytes a string holds as they are: printable ASCII but '"' and '\\'
static const uint8_t json_plain[256] = {
    ['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                               // 0x20-0x2F, '"' is 0x22
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                             // 0x30-0x3F
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                             // 0x40-0x4F
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,                                             // 0x50-0x5F, '\\' is 0x5C
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                             // 0x60-0x6F
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,                                             // 0x70-0x7F
};

// the quoted, escaped string; then `tail` (tail_len bytes, e.g. ": " after a key)
static bool writer_quoted(struct galloc_json_writer * w, const char * s, size_t len, const char * tail, size_t tail_len) {
    // fast path: printable ASCII without '"' or '\\' is copied as it is checked
    if (len <= SIZE_MAX - 8 - tail_len && writer_room(w, len + 2 + tail_len)) {
        const unsigned char * u   = (const unsigned char *) s;
        char *                out = w->buf + w->len;
        size_t                i   = 0;
        *out++ = '"';
        while (i < len && json_plain[u[i]]) {
            *out++ = (char) u[i++];
        }
        if (i == len) {
            *out++ = '"';
            for (size_t k = 0; k < tail_len; k++) {
                *out++ = tail[k];
            }
            w->len += len + 2 + tail_len;
            return true;
        }
    }
    if (!writer_putc(w, '"')) {
        return false;
    }
    const unsigned char * u = (const unsigned char *) s;
    size_t i = 0;
    while (i < len) {
        // copy a run of bytes that need no escaping at once
        size_t run = i;
        while (run < len && u[run] >= 0x20 && u[run] < 0x80 && u[run] != '"' && u[run] != '\\') {
            run++;
        }
        if (run > i) {
            if (!writer_put(w, s + i, run - i)) {
                return false;
            }
            i = run;
            continue;
        }
        unsigned char c = u[i];
        char          esc[8];
        const char *  out = esc;
        size_t        n   = 2;
        switch (c) {
            case '"':  out = "\\\""; break;
            case '\\': out = "\\\\"; break;
            case '\n': out = "\\n";  break;
            case '\r': out = "\\r";  break;
            case '\t': out = "\\t";  break;
            case '\b': out = "\\b";  break;
            case '\f': out = "\\f";  break;
            default:
                if (c < 0x20) {
                    snprintf(esc, sizeof(esc), "\\u%04X", c);
                    n = 6;
                } else {
                    size_t seq = utf8_length(u + i, len - i);
                    if (seq == 0) {
                        out = "\xEF\xBF\xBD"; // U+FFFD for a byte that is not UTF-8
                        n   = 3;
                    } else {
                        out = s + i;
                        n   = seq;
                        i  += seq - 1;
                    }
                }
                break;
        }
        if (!writer_put(w, out, n)) {
            return false;
        }
        i++;
    }
    return writer_putc(w, '"') && writer_put(w, tail, tail_len);
}

bool galloc_json_write_key(struct galloc_json_writer * w, const char * key) {
    if (w->failed) {
        return false;
    }
    if (w->depth == 0 || !w->levels[w->depth - 1].is_object || w->after_key || key == NULL) {
        return writer_fail(w);
    }
    if (!writer_separator(w, &w->levels[w->depth - 1], false) || !writer_quoted(w, key, strlen(key), ": ", 2)) {
        return false;
    }
    w->after_key = true;
    return true;
}

bool galloc_json_write_string(struct galloc_json_writer * w, const char * s, size_t len) {
    if (s == NULL && len > 0) {
        return writer_fail(w);
    }
    return writer_before_value(w, false) && writer_quoted(w, s != NULL ? s : "", len, "", 0);
}

bool galloc_json_write_cstr(struct galloc_json_writer * w, const char * s) {
    return galloc_json_write_string(w, s, s != NULL ? strlen(s) : 0);
}

#define JSON_EXACT_LIMIT GALLOC_JSON_EXACT_LIMIT

// digits of a magnitude, optionally negative and/or quoted, into out (at most 24 bytes); the byte count
static size_t format_integer(char * out, bool neg, uint64_t mag, bool quoted) {
    size_t n = 0;
    if (quoted) {
        out[n++] = '"';
    }
    if (neg) {
        out[n++] = '-';
    }
    n += galloc_decimal_format_u64(out + n, mag);
    if (quoted) {
        out[n++] = '"';
    }
    return n;
}

static bool writer_integer(struct galloc_json_writer * w, bool neg, uint64_t mag, bool quoted) {
    if (!writer_room(w, GALLOC_JSON_INTEGER_MAX)) {
        return false;
    }
    w->len += format_integer(w->buf + w->len, neg, mag, quoted);
    return true;
}

size_t galloc_json_format_u64(char * out, uint64_t v) {
    return format_integer(out, false, v, v > JSON_EXACT_LIMIT);
}

size_t galloc_json_format_i64(char * out, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
    return format_integer(out, v < 0, mag, mag > JSON_EXACT_LIMIT);
}

bool galloc_json_write_raw(struct galloc_json_writer * w, const char * json, size_t len, bool is_container) {
    return writer_before_value(w, is_container) && writer_put(w, json, len);
}

bool galloc_json_write_u64(struct galloc_json_writer * w, uint64_t v) {
    return writer_before_value(w, false) && writer_integer(w, false, v, v > JSON_EXACT_LIMIT);
}

bool galloc_json_write_i64(struct galloc_json_writer * w, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
    return writer_before_value(w, false) && writer_integer(w, v < 0, mag, mag > JSON_EXACT_LIMIT);
}

bool galloc_json_write_f64(struct galloc_json_writer * w, double v) {
    if (!isfinite(v)) {
        return galloc_json_write_null(w);
    }
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) { // the fewest digits that read back as v
        snprintf(buf, sizeof(buf), "%.*g", digits, v);
        if (strtod(buf, NULL) == v) {
            break;
        }
    }
    return writer_before_value(w, false) && writer_put(w, buf, strlen(buf));
}

bool galloc_json_write_f32(struct galloc_json_writer * w, float v) {
    if (!isfinite(v)) {
        return galloc_json_write_null(w);
    }
    char buf[40];
    for (int digits = 1; digits <= 9; digits++) { // the fewest digits that read back as v
        snprintf(buf, sizeof(buf), "%.*g", digits, (double) v);
        if ((float) strtod(buf, NULL) == v) {
            break;
        }
    }
    return writer_before_value(w, false) && writer_put(w, buf, strlen(buf));
}

bool galloc_json_write_bool(struct galloc_json_writer * w, bool v) {
    return writer_before_value(w, false) && (v ? writer_put(w, "true", 4) : writer_put(w, "false", 5));
}

bool galloc_json_write_null(struct galloc_json_writer * w) {
    return writer_before_value(w, false) && writer_put(w, "null", 4);
}

bool galloc_json_write_u64_array(struct galloc_json_writer * w, const uint64_t * v, size_t n) {
    bool ok = galloc_json_write_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        ok = galloc_json_write_u64(w, v[i]) && ok;
    }
    return galloc_json_write_end_array(w) && ok;
}

bool galloc_json_write_i64_array(struct galloc_json_writer * w, const int64_t * v, size_t n) {
    bool ok = galloc_json_write_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        ok = galloc_json_write_i64(w, v[i]) && ok;
    }
    return galloc_json_write_end_array(w) && ok;
}

bool galloc_json_write_i32_array(struct galloc_json_writer * w, const int32_t * v, size_t n) {
    bool ok = galloc_json_write_begin_array(w);
    for (size_t i = 0; i < n; i++) {
        ok = galloc_json_write_i64(w, v[i]) && ok;
    }
    return galloc_json_write_end_array(w) && ok;
}

// recursion is bounded: parsed values nest at most JSON_MAX_DEPTH deep, and so does the writer
bool galloc_json_write_value(struct galloc_json_writer * w, const struct galloc_json_value * v) {
    if (v == NULL) {
        return writer_fail(w);
    }
    switch ((enum galloc_json_type) v->type) {
        case JSON_TYPE_NULL:   return galloc_json_write_null(w);
        case JSON_TYPE_BOOL:   return galloc_json_write_bool(w, v->sub != 0);
        case JSON_TYPE_STRING: return galloc_json_write_string(w, v->u.text, v->n);
        case JSON_TYPE_NUMBER:
            if (!writer_before_value(w, false)) {
                return false;
            }
            if (v->sub == JSON_NUM_UINT || v->sub == JSON_NUM_NEG) {
                return writer_integer(w, v->sub == JSON_NUM_NEG && v->u.mag != 0, v->u.mag, false);
            }
            return writer_put(w, v->u.text, v->n);
        case JSON_TYPE_ARRAY:
            if (w->depth >= JSON_MAX_DEPTH || !galloc_json_write_begin_array(w)) {
                return writer_fail(w);
            }
            for (uint32_t i = 0; i < v->n; i++) {
                if (!galloc_json_write_value(w, &v->u.items[i])) {
                    return false;
                }
            }
            return galloc_json_write_end_array(w);
        case JSON_TYPE_OBJECT:
            if (w->depth >= JSON_MAX_DEPTH || !galloc_json_write_begin_object(w)) {
                return writer_fail(w);
            }
            for (uint32_t i = 0; i < v->n; i++) {
                const struct galloc_json_value * k = &v->u.items[2 * i];
                if (!writer_separator(w, &w->levels[w->depth - 1], false) || !writer_quoted(w, k->u.text, k->n, ": ", 2)) {
                    return false;
                }
                w->after_key = true;
                if (!galloc_json_write_value(w, &v->u.items[2 * i + 1])) {
                    return false;
                }
            }
            return galloc_json_write_end_object(w);
    }
    return writer_fail(w);
}

char * galloc_json_writer_finish(struct galloc_json_writer * w, size_t * len) {
    if (!w->failed && (w->depth != 0 || w->after_key || w->len == 0)) {
        w->failed = true; // unfinished or empty document
    }
    if (!w->failed && w->newline >= 0) {
        writer_line_break(w, w->newline);
    }
    if (w->failed) {
        galloc_json_writer_free(w);
        if (len != NULL) {
            *len = 0;
        }
        return NULL;
    }
    char * text = w->buf;
    text[w->len] = '\0'; // writer_room always leaves a byte for it
    if (len != NULL) {
        *len = w->len;
    }
    galloc_json_writer_init(w);
    return text;
}

bool galloc_json_write_key_u64(struct galloc_json_writer * w, const char * key, uint64_t v) {
    return galloc_json_write_key(w, key) && galloc_json_write_u64(w, v);
}

bool galloc_json_write_key_i64(struct galloc_json_writer * w, const char * key, int64_t v) {
    return galloc_json_write_key(w, key) && galloc_json_write_i64(w, v);
}

bool galloc_json_write_key_f64(struct galloc_json_writer * w, const char * key, double v) {
    return galloc_json_write_key(w, key) && galloc_json_write_f64(w, v);
}

bool galloc_json_write_key_cstr(struct galloc_json_writer * w, const char * key, const char * s) {
    return galloc_json_write_key(w, key) && galloc_json_write_cstr(w, s);
}

bool galloc_json_write_key_bool(struct galloc_json_writer * w, const char * key, bool v) {
    return galloc_json_write_key(w, key) && galloc_json_write_bool(w, v);
}
