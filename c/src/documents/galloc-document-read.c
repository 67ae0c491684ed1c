// galloc-document-read.c: reads and checks a graph document (galloc_document_read), the one reader.
//
// Two parses of the text, memory bounded by one entry: the first checks the whole document as JSON
// and keeps all but the "tensors" entries (counted, not kept); the second hands the entries over one
// at a time, each read and checked on its own. Then the checks across tensors (views, cycles) and of
// the graph (nodes and leafs, or built from outputs). Anything the planner or the writers could trip
// on is refused with one line naming its JSON path. Array sizes come only from JSON arrays already in
// memory or counted, never from a number.

#include "galloc-document.h"
#include "galloc-document-impl.h"
#include "galloc-error.h"
#include "json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOCUMENT_MAX_BUFFER_TYPES 1024 // entries of "buffer_types" (they are compared pairwise)

//
// errors: "<json path>: <message>"
//

// a JSON path: array[index].field[sub]; parts absent when NULL / negative
struct doc_path {
    const char * array; // top-level key ("tensors", "nodes", "format"), or "document"
    int64_t      index; // element of it, or -1
    const char * field; // member of that element, or NULL
    int64_t      sub;   // element of that member, or -1
};

static struct doc_path path_top(const char * key) {
    struct doc_path p = { key, -1, NULL, -1 };
    return p;
}

static struct doc_path path_item(const char * key, int64_t index) {
    struct doc_path p = { key, index, NULL, -1 };
    return p;
}

static struct doc_path path_field(const char * key, int64_t index, const char * field) {
    struct doc_path p = { key, index, field, -1 };
    return p;
}

static struct doc_path path_sub(const char * key, int64_t index, const char * field, int64_t sub) {
    struct doc_path p = { key, index, field, sub };
    return p;
}

struct name_id {
    const char * name; // as ggml prints it
    int32_t      id;   // enum value
};

struct reader {
    struct galloc_document * doc;
    struct galloc_error *    err;
    bool                     failed;
    struct name_id           ops[GGML_OP_COUNT];     // sorted by name
    int32_t                  n_ops;
    struct name_id           types[GGML_TYPE_COUNT]; // sorted by name; only types with a block size
    int32_t                  n_types;
    size_t                   n_alloc_sizes;   // tensors with "alloc_sizes" so far
    size_t                   cap_alloc_sizes; // rows doc->alloc_sizes has room for
};

#if defined(__GNUC__) || defined(__clang__)
#    define DOC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#    define DOC_PRINTF(a, b)
#endif

// record the first error only: its status, the path, then the message
DOC_PRINTF(4, 0)
static bool reader_vfail(struct reader * r, enum galloc_status status, const struct doc_path * path, const char * fmt, va_list ap) {
    if (r->failed) {
        return false;
    }
    r->failed = true;
    if (r->err == NULL) {
        return false;
    }
    r->err->status = status;
    char * out  = r->err->message;
    size_t size = sizeof(r->err->message);
    int    n    = 0;
    if (path != NULL) {
        if (path->index >= 0 && path->field != NULL && path->sub >= 0) {
            n = snprintf(out, size, "%s[%lld].%s[%lld]: ", path->array, (long long) path->index, path->field,
                         (long long) path->sub);
        } else if (path->index >= 0 && path->field != NULL) {
            n = snprintf(out, size, "%s[%lld].%s: ", path->array, (long long) path->index, path->field);
        } else if (path->index >= 0) {
            n = snprintf(out, size, "%s[%lld]: ", path->array, (long long) path->index);
        } else {
            n = snprintf(out, size, "%s: ", path->array);
        }
    }
    int m = 0;
    if (n >= 0 && (size_t) n < size) {
        m = vsnprintf(out + n, size - (size_t) n, fmt, ap);
    }
    galloc_error_one_line(out, n < 0 || (size_t) n >= size || m < 0 || (size_t) m >= size - (size_t) n);
    return false;
}

// the document breaks the format (GALLOC_STATUS_INVALID)
DOC_PRINTF(3, 4)
static bool reader_fail(struct reader * r, const struct doc_path * path, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, GALLOC_STATUS_INVALID, path, fmt, ap);
    va_end(ap);
    return false;
}

// the document is well formed but past a limit of the reader (GALLOC_STATUS_LIMIT)
DOC_PRINTF(3, 4)
static bool reader_limit(struct reader * r, const struct doc_path * path, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, GALLOC_STATUS_LIMIT, path, fmt, ap);
    va_end(ap);
    return false;
}

DOC_PRINTF(2, 3)
static bool reader_nomem(struct reader * r, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    reader_vfail(r, GALLOC_STATUS_NO_MEMORY, NULL, fmt, ap);
    va_end(ap);
    return false;
}

static bool reader_oom(struct reader * r) {
    return reader_nomem(r, "out of memory");
}

// malloc of n elements of size bytes; at least one element, so that empty arrays are not NULL
static void * reader_alloc(struct reader * r, size_t n, size_t size) {
    if (n == 0) {
        n = 1;
    }
    if (n > SIZE_MAX / size) {
        reader_oom(r);
        return NULL;
    }
    void * p = calloc(n, size);
    if (p == NULL) {
        reader_oom(r);
    }
    return p;
}

//
// typed field access
//

static bool read_expect(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path, enum galloc_json_type type) {
    if (galloc_json_type_of(v) != type) {
        return reader_fail(r, path, "expected %s, got %s", galloc_json_type_name(type), galloc_json_type_name(galloc_json_type_of(v)));
    }
    return true;
}

// the error of an integer that did not read (st is not JSON_INT_OK): unsigned (u64) or signed (i64)
static bool read_integer_fail(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path,
                              enum galloc_json_int_status st, bool is_signed) {
    char what[64];
    galloc_json_describe(v, what, sizeof(what));
    switch (st) {
        case JSON_INT_WRONG_TYPE:
            return reader_fail(r, path, "expected an integer, got %s", galloc_json_type_name(galloc_json_type_of(v)));
        case JSON_INT_NOT_INTEGER:
            return reader_fail(r, path, "%s is not an integer", what);
        case JSON_INT_NEGATIVE:
        case JSON_INT_OVERFLOW:
            if (is_signed) {
                return reader_fail(r, path, "%s is out of the 64-bit integer range", what);
            }
            return reader_fail(r, path, st == JSON_INT_NEGATIVE ? "%s is negative" : "%s is past 2^64 - 1", what);
        case JSON_INT_OK:
            break;
    }
    return reader_fail(r, path, "expected an integer");
}

static bool read_u64(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path, uint64_t * out) {
    enum galloc_json_int_status st = galloc_json_get_u64(v, out);
    return st == JSON_INT_OK || read_integer_fail(r, v, path, st, false);
}

static bool read_i64(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path, int64_t * out) {
    enum galloc_json_int_status st = galloc_json_get_i64(v, out);
    return st == JSON_INT_OK || read_integer_fail(r, v, path, st, true);
}

// an index in [0, n); `what` names the n things ("tensors")
static bool read_index(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path, int32_t n,
                       const char * what, int32_t * out) {
    int64_t i;
    if (!read_i64(r, v, path, &i)) {
        return false;
    }
    if (i < 0 || i >= n) {
        return reader_fail(r, path, "index %lld out of range (%d %s)", (long long) i, n, what);
    }
    *out = (int32_t) i;
    return true;
}

// a string without NUL bytes, at most max_len bytes (0: no limit)
static const char * read_name(struct reader * r, const struct galloc_json_value * v, const struct doc_path * path, size_t max_len) {
    if (!read_expect(r, v, path, JSON_TYPE_STRING)) {
        return NULL;
    }
    size_t       len;
    const char * s = galloc_json_get_string(v, &len);
    if (memchr(s, '\0', len) != NULL) {
        reader_fail(r, path, "contains a NUL character");
        return NULL;
    }
    if (max_len > 0 && len > max_len) {
        reader_limit(r, path, "%zu bytes, longer than %zu", len, max_len);
        return NULL;
    }
    return s;
}

// a member that may be absent or null (both give NULL)
static const struct galloc_json_value * get_optional(const struct galloc_json_value * obj, const char * key) {
    const struct galloc_json_value * v = galloc_json_object_get(obj, key);
    return galloc_json_type_of(v) == JSON_TYPE_NULL ? NULL : v;
}

//
// op and type names
//

static int name_id_compare(const void * a, const void * b) {
    return strcmp(((const struct name_id *) a)->name, ((const struct name_id *) b)->name);
}

static void reader_build_names(struct reader * r) {
    r->n_ops = 0;
    for (int32_t op = 0; op < GGML_OP_COUNT; op++) {
        const char * name = ggml_op_name((enum ggml_op) op);
        if (name != NULL) {
            r->ops[r->n_ops].name = name;
            r->ops[r->n_ops].id   = op;
            r->n_ops++;
        }
    }
    qsort(r->ops, (size_t) r->n_ops, sizeof(struct name_id), name_id_compare);
    r->n_types = 0;
    for (int32_t type = 0; type < GGML_TYPE_COUNT; type++) {
        const char * name = ggml_type_name((enum ggml_type) type);
        if (name != NULL && ggml_blck_size((enum ggml_type) type) > 0 && ggml_type_size((enum ggml_type) type) > 0) {
            r->types[r->n_types].name = name;
            r->types[r->n_types].id   = type;
            r->n_types++;
        }
    }
    qsort(r->types, (size_t) r->n_types, sizeof(struct name_id), name_id_compare);
}

static int32_t name_find(const struct name_id * table, int32_t n, const char * name) {
    struct name_id         key = { name, 0 };
    const struct name_id * hit = bsearch(&key, table, (size_t) n, sizeof(struct name_id), name_id_compare);
    return hit != NULL ? hit->id : -1;
}

//
// top level and buffer types
//

static bool read_header(struct reader * r, const struct galloc_json_value * root) {
    struct doc_path           path;
    const struct galloc_json_value * v;

    if ((v = galloc_json_object_get(root, "format")) != NULL) {
        path = path_top("format");
        const char * format = read_name(r, v, &path, 0);
        if (format == NULL) {
            return false;
        }
        if (strcmp(format, "galloc-graph") != 0) {
            char what[64];
            galloc_json_describe(v, what, sizeof(what));
            return reader_fail(r, &path, "%s, expected \"galloc-graph\"", what);
        }
    }
    if ((v = galloc_json_object_get(root, "version")) != NULL) {
        path = path_top("version");
        int64_t version;
        if (!read_i64(r, v, &path, &version)) {
            return false;
        }
        if (version != 1) {
            return reader_fail(r, &path, "version %lld is not supported (only 1)", (long long) version);
        }
    }
    const char * name = "";
    if ((v = get_optional(root, "name")) != NULL) {
        path = path_top("name");
        if ((name = read_name(r, v, &path, 0)) == NULL) {
            return false;
        }
    }
    size_t n = strlen(name);
    r->doc->name = malloc(n + 1);
    if (r->doc->name == NULL) {
        return reader_oom(r);
    }
    memcpy(r->doc->name, name, n + 1);
    return true;
}

static bool read_buffer_types(struct reader * r, const struct galloc_json_value * root) {
    struct galloc_document *  doc = r->doc;
    const struct galloc_json_value * arr = get_optional(root, "buffer_types");
    struct doc_path           path = path_top("buffer_types");
    size_t                    n    = 1;
    if (arr != NULL) {
        if (!read_expect(r, arr, &path, JSON_TYPE_ARRAY)) {
            return false;
        }
        n = galloc_json_array_size(arr);
        if (n == 0) {
            return reader_fail(r, &path, "empty (at least one buffer type is needed)");
        }
        if (n > DOCUMENT_MAX_BUFFER_TYPES) {
            return reader_limit(r, &path, "%zu entries, more than %d", n, DOCUMENT_MAX_BUFFER_TYPES);
        }
    }
    doc->buffer_types      = reader_alloc(r, n, sizeof(struct galloc_buffer_type));
    doc->buffer_type_names = reader_alloc(r, n, sizeof(char *));
    if (doc->buffer_types == NULL || doc->buffer_type_names == NULL) {
        return false;
    }
    doc->n_buffer_types = (int32_t) n;

    for (size_t i = 0; i < n; i++) {
        struct galloc_buffer_type * bt   = &doc->buffer_types[i];
        const char *                name = GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_NAME;
        bt->alignment = GALLOC_DOCUMENT_DEFAULT_BUFFER_TYPE_ALIGNMENT;
        bt->max_size  = GALLOC_NO_MAX_SIZE;
        bt->allocator = (int32_t) i;
        if (arr != NULL) {
            const struct galloc_json_value * e = galloc_json_array_at(arr, i);
            const struct galloc_json_value * v;
            path = path_item("buffer_types", (int64_t) i);
            if (!read_expect(r, e, &path, JSON_TYPE_OBJECT)) {
                return false;
            }
            if ((v = galloc_json_object_get(e, "name")) == NULL) {
                return reader_fail(r, &path, "missing \"name\"");
            }
            path = path_field("buffer_types", (int64_t) i, "name");
            if ((name = read_name(r, v, &path, GGML_MAX_NAME - 1)) == NULL) {
                return false;
            }
            path = path_item("buffer_types", (int64_t) i);
            if ((v = galloc_json_object_get(e, "alignment")) == NULL) {
                return reader_fail(r, &path, "missing \"alignment\"");
            }
            path = path_field("buffer_types", (int64_t) i, "alignment");
            if (!read_u64(r, v, &path, &bt->alignment)) {
                return false;
            }
            if (bt->alignment == 0 || (bt->alignment & (bt->alignment - 1)) != 0) {
                return reader_fail(r, &path, "%llu is not a power of two", (unsigned long long) bt->alignment);
            }
            if (bt->alignment > GALLOC_DOCUMENT_MAX_ALIGNMENT) {
                return reader_limit(r, &path, "%llu is over the limit of %llu (2^30)", (unsigned long long) bt->alignment,
                                   (unsigned long long) GALLOC_DOCUMENT_MAX_ALIGNMENT);
            }
            if ((v = get_optional(e, "max_size")) != NULL) {
                path = path_field("buffer_types", (int64_t) i, "max_size");
                if (!read_u64(r, v, &path, &bt->max_size)) {
                    return false;
                }
            }
        }
        size_t len = strlen(name);
        doc->buffer_type_names[i] = malloc(len + 1);
        if (doc->buffer_type_names[i] == NULL) {
            return reader_oom(r);
        }
        memcpy(doc->buffer_type_names[i], name, len + 1);
        // a name seen before is the same buffer type: it shares that allocator
        for (size_t j = 0; j < i; j++) {
            if (strcmp(doc->buffer_type_names[j], name) != 0) {
                continue;
            }
            const struct galloc_buffer_type * first = &doc->buffer_types[j];
            path = path_item("buffer_types", (int64_t) i);
            if (first->alignment != bt->alignment) {
                return reader_fail(r, &path, "named \"%s\" like buffer_types[%zu] (the same buffer type) but alignment %llu differs from %llu",
                                   name, j, (unsigned long long) bt->alignment, (unsigned long long) first->alignment);
            }
            if (first->max_size != bt->max_size) {
                return reader_fail(r, &path, "named \"%s\" like buffer_types[%zu] (the same buffer type) but max_size differs", name, j);
            }
            bt->allocator = first->allocator;
            break;
        }
    }
    return true;
}

//
// tensors, one at a time
//

static bool read_tensor_size_limit(struct reader * r, const struct doc_path * path, bool ok, uint64_t bytes, const char * what) {
    if (!ok) {
        return reader_limit(r, path, "%soverflows 64 bits (the limit of one tensor is %llu bytes, 2^40)", what,
                           (unsigned long long) GALLOC_DOCUMENT_MAX_TENSOR_BYTES);
    }
    if (bytes > GALLOC_DOCUMENT_MAX_TENSOR_BYTES) {
        return reader_limit(r, path, "%s%llu is over the limit of one tensor, %llu bytes (2^40)", what,
                           (unsigned long long) bytes, (unsigned long long) GALLOC_DOCUMENT_MAX_TENSOR_BYTES);
    }
    return true;
}

// tensors[i].alloc_sizes: one entry per buffer type, bytes or null (= ggml_nbytes)
static bool read_tensor_alloc_sizes(struct reader * r, const struct galloc_json_value * e, int32_t i, const struct galloc_tensor * t) {
    struct galloc_document *  doc  = r->doc;
    const struct galloc_json_value * v    = get_optional(e, "alloc_sizes");
    struct doc_path           path = path_field("tensors", i, "alloc_sizes");
    doc->tensor_alloc_sizes[i]     = -1;
    if (v == NULL) {
        return true;
    }
    if (get_optional(e, "alloc_size") != NULL) {
        return reader_fail(r, &path, "given with \"alloc_size\" (one or the other)");
    }
    if (!read_expect(r, v, &path, JSON_TYPE_ARRAY)) {
        return false;
    }
    const size_t nbt = (size_t) doc->n_buffer_types;
    if (galloc_json_array_size(v) != nbt) {
        return reader_fail(r, &path, "%zu entries for %zu buffer types", galloc_json_array_size(v), nbt);
    }
    if (r->n_alloc_sizes == r->cap_alloc_sizes) { // grows with the JSON arrays already in memory
        size_t    cap   = r->cap_alloc_sizes ? 2 * r->cap_alloc_sizes : 16;
        uint64_t * grown = cap <= SIZE_MAX / nbt / sizeof(uint64_t) ? realloc(doc->alloc_sizes, cap * nbt * sizeof(uint64_t)) : NULL;
        if (grown == NULL) {
            return reader_oom(r);
        }
        doc->alloc_sizes   = grown;
        r->cap_alloc_sizes = cap;
    }
    uint64_t * sizes = &doc->alloc_sizes[r->n_alloc_sizes * nbt];
    for (size_t b = 0; b < nbt; b++) {
        const struct galloc_json_value * sv = galloc_json_array_at(v, b);
        path  = path_sub("tensors", i, "alloc_sizes", (int64_t) b);
        sizes[b] = t->nbytes;
        if (galloc_json_type_of(sv) == JSON_TYPE_NULL) {
            continue;
        }
        if (!read_u64(r, sv, &path, &sizes[b]) || !read_tensor_size_limit(r, &path, true, sizes[b], "")) {
            return false;
        }
        if (sizes[b] < t->nbytes) {
            return reader_fail(r, &path, "%llu is less than the tensor's %llu bytes (ggml_nbytes)", (unsigned long long) sizes[b],
                               (unsigned long long) t->nbytes);
        }
    }
    doc->tensor_alloc_sizes[i] = (int32_t) r->n_alloc_sizes++;
    return true;
}

static bool read_tensor_shape(struct reader * r, const struct galloc_json_value * e, int32_t i, struct galloc_tensor * t) {
    struct doc_path           path = path_item("tensors", i);
    const struct galloc_json_value * v    = galloc_json_object_get(e, "ne");
    if (v == NULL) {
        return reader_fail(r, &path, "missing \"ne\"");
    }
    path = path_field("tensors", i, "ne");
    if (!read_expect(r, v, &path, JSON_TYPE_ARRAY)) {
        return false;
    }
    size_t n = galloc_json_array_size(v);
    if (n < 1 || n > GGML_MAX_DIMS) {
        return reader_fail(r, &path, "%zu numbers, expected 1 to %d", n, GGML_MAX_DIMS);
    }
    uint64_t nelements = 1;
    for (int d = 0; d < GGML_MAX_DIMS; d++) {
        t->ne[d] = 1;
        if ((size_t) d < n) {
            path = path_sub("tensors", i, "ne", d);
            if (!read_i64(r, galloc_json_array_at(v, (size_t) d), &path, &t->ne[d])) {
                return false;
            }
            if (t->ne[d] < 0) {
                return reader_fail(r, &path, "%lld elements, must be 0 or more", (long long) t->ne[d]);
            }
        }
        if (!galloc_mul_u64(nelements, (uint64_t) t->ne[d], &nelements) || nelements > (uint64_t) INT64_MAX) {
            path = path_field("tensors", i, "ne");
            return reader_fail(r, &path, "the element count overflows 64 bits");
        }
    }
    uint64_t blck, tsize;
    galloc_document_type_traits(r->doc, t->type, &blck, &tsize);
    if ((uint64_t) t->ne[0] % blck != 0) {
        path = path_sub("tensors", i, "ne", 0);
        return reader_fail(r, &path, "%lld is not a multiple of the block size %llu of %s", (long long) t->ne[0],
                           (unsigned long long) blck, galloc_document_type_name(r->doc, i));
    }

    if ((v = get_optional(e, "nb")) != NULL) {
        path = path_field("tensors", i, "nb");
        if (!read_expect(r, v, &path, JSON_TYPE_ARRAY)) {
            return false;
        }
        if (galloc_json_array_size(v) != GGML_MAX_DIMS) {
            return reader_fail(r, &path, "%zu numbers, expected %d", galloc_json_array_size(v), GGML_MAX_DIMS);
        }
        for (int d = 0; d < GGML_MAX_DIMS; d++) {
            path = path_sub("tensors", i, "nb", d);
            if (!read_u64(r, galloc_json_array_at(v, (size_t) d), &path, &t->nb[d])) {
                return false;
            }
        }
        path    = path_field("tensors", i, "nb");
        bool ok = galloc_document_nbytes(blck, tsize, t->ne, t->nb, &t->nbytes);
        if (!read_tensor_size_limit(r, &path, ok, t->nbytes, "byte size ")) {
            return false;
        }
    } else {
        path    = path_item("tensors", i);
        bool ok = galloc_document_contiguous_nb(blck, tsize, t->ne, t->nb) && galloc_document_nbytes(blck, tsize, t->ne, t->nb, &t->nbytes);
        if (!read_tensor_size_limit(r, &path, ok, t->nbytes, "byte size ")) {
            return false;
        }
    }

    t->alloc_size = t->nbytes;
    if ((v = get_optional(e, "alloc_size")) != NULL) {
        path = path_field("tensors", i, "alloc_size");
        if (!read_u64(r, v, &path, &t->alloc_size) ||
            !read_tensor_size_limit(r, &path, true, t->alloc_size, "")) {
            return false;
        }
        if (t->alloc_size < t->nbytes) {
            return reader_fail(r, &path, "%llu is less than the tensor's %llu bytes (ggml_nbytes)",
                               (unsigned long long) t->alloc_size, (unsigned long long) t->nbytes);
        }
    }
    return read_tensor_alloc_sizes(r, e, i, t);
}

static bool read_tensor_links(struct reader * r, const struct galloc_json_value * e, int32_t i, struct galloc_tensor * t) {
    struct galloc_document *  doc = r->doc;
    struct doc_path           path;
    const struct galloc_json_value * v;

    for (int s = 0; s < GGML_MAX_SRC; s++) {
        t->src[s] = -1;
    }
    if ((v = get_optional(e, "src")) != NULL) {
        path = path_field("tensors", i, "src");
        if (!read_expect(r, v, &path, JSON_TYPE_ARRAY)) {
            return false;
        }
        size_t n = galloc_json_array_size(v);
        if (n > GGML_MAX_SRC) {
            return reader_limit(r, &path, "%zu sources, more than %d (GGML_MAX_SRC)", n, GGML_MAX_SRC);
        }
        for (size_t s = 0; s < n; s++) {
            const struct galloc_json_value * sv = galloc_json_array_at(v, s);
            if (galloc_json_type_of(sv) == JSON_TYPE_NULL) {
                continue;
            }
            path = path_sub("tensors", i, "src", (int64_t) s);
            if (!read_index(r, sv, &path, doc->n_tensors, "tensors", &t->src[s])) {
                return false;
            }
            // ggml_cast makes a CPY whose src[1] is the result itself; nothing else may point at itself
            if (t->src[s] == i && !(t->op == GGML_OP_CPY && s == 1)) {
                return reader_fail(r, &path, "the tensor itself");
            }
        }
    }

    t->view_src  = -1;
    t->view_offs = 0;
    if ((v = get_optional(e, "view_src")) != NULL) {
        path = path_field("tensors", i, "view_src");
        if (!read_index(r, v, &path, doc->n_tensors, "tensors", &t->view_src)) {
            return false;
        }
        if (t->view_src == i) {
            return reader_fail(r, &path, "the tensor itself");
        }
    }
    if ((v = get_optional(e, "view_offs")) != NULL) {
        path = path_field("tensors", i, "view_offs");
        if (t->view_src < 0) {
            return reader_fail(r, &path, "given without view_src");
        }
        if (!read_u64(r, v, &path, &t->view_offs)) {
            return false;
        }
    }

    t->flags = 0;
    if ((v = get_optional(e, "flags")) != NULL) {
        path = path_field("tensors", i, "flags");
        if (!read_expect(r, v, &path, JSON_TYPE_ARRAY)) {
            return false;
        }
        for (size_t k = 0; k < galloc_json_array_size(v); k++) {
            const struct galloc_json_value * fv = galloc_json_array_at(v, k);
            path = path_sub("tensors", i, "flags", (int64_t) k);
            if (!read_expect(r, fv, &path, JSON_TYPE_STRING)) {
                return false;
            }
            size_t       len;
            const char * name = galloc_json_get_string(fv, &len);
            int          bit  = -1;
            for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) {
                if (strlen(galloc_document_flag_names[b]) == len && memcmp(galloc_document_flag_names[b], name, len) == 0) {
                    bit = b;
                }
            }
            if (bit < 0) {
                char what[64];
                galloc_json_describe(fv, what, sizeof(what));
                return reader_fail(r, &path, "unknown flag %s (known: input, output, param, loss, compute)", what);
            }
            t->flags |= 1 << bit;
        }
    }

    doc->tensor_buffer_type[i] = -1;
    t->external                = 0;
    if ((v = get_optional(e, "buffer_type")) != NULL) {
        path = path_field("tensors", i, "buffer_type");
        if (!read_index(r, v, &path, doc->n_buffer_types, "buffer types", &doc->tensor_buffer_type[i])) {
            return false;
        }
        t->external = 1;
    }
    if ((v = get_optional(e, "external")) != NULL) {
        path = path_field("tensors", i, "external");
        bool external = false;
        if (!read_expect(r, v, &path, JSON_TYPE_BOOL)) {
            return false;
        }
        galloc_json_get_bool(v, &external);
        if (external) {
            if (t->view_src >= 0) {
                return reader_fail(r, &path, "a view has no memory of its own (its view_src's is used)");
            }
            t->external = 1; // has memory outside any buffer (data and no buffer): never placed
        }
    }
    return true;
}


// the id of a name the tables do not know (GALLOC_DOCUMENT_UNKNOWN + k), kept once per kind; -1 after an error
static int32_t intern_unknown(struct reader * r, const struct doc_path * path, const struct galloc_json_value * v, int32_t kind) {
    struct galloc_document * doc = r->doc;
    size_t                   len;
    const char *             name = galloc_json_get_string(v, &len);
    static const char * const what[] = { "op", "unary_op", "glu_op", "type" };
    if (!galloc_document_is_table_name(name, len)) {
        char shown[64];
        galloc_json_describe(v, shown, sizeof(shown));
        reader_fail(r, path, "unknown %s %s (a name ggml's tables lack is kept, but must be 1 to 63 letters, digits or '_')",
                    what[kind], shown);
        return -1;
    }
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        if (doc->unknown[k].kind == kind && strcmp(doc->unknown[k].name, name) == 0) {
            return GALLOC_DOCUMENT_UNKNOWN + k;
        }
    }
    if (doc->n_unknown == GALLOC_DOCUMENT_MAX_UNKNOWN) {
        reader_limit(r, path, "unknown %s \"%s\": more than %d distinct names the tables do not know", what[kind], name,
                    GALLOC_DOCUMENT_MAX_UNKNOWN);
        return -1;
    }
    if (doc->unknown == NULL &&
        (doc->unknown = reader_alloc(r, GALLOC_DOCUMENT_MAX_UNKNOWN, sizeof(struct galloc_unknown_name))) == NULL) {
        return -1;
    }
    struct galloc_unknown_name * u = &doc->unknown[doc->n_unknown];
    memcpy(u->name, name, len + 1);
    u->kind = kind;
    return GALLOC_DOCUMENT_UNKNOWN + doc->n_unknown++;
}

static void count_unknown_use(struct galloc_document * doc, int32_t id) {
    if (id >= GALLOC_DOCUMENT_UNKNOWN && id - GALLOC_DOCUMENT_UNKNOWN < doc->n_unknown) {
        doc->unknown[id - GALLOC_DOCUMENT_UNKNOWN].n_tensors++;
    }
}

// "type_traits": block size and bytes per block of types, required for the ones ggml's table lacks
static bool read_type_traits(struct reader * r, const struct galloc_json_value * root) {
    struct galloc_document *  doc  = r->doc;
    const struct galloc_json_value * arr  = get_optional(root, "type_traits");
    struct doc_path           path = path_top("type_traits");
    if (arr == NULL) {
        return true;
    }
    if (!read_expect(r, arr, &path, JSON_TYPE_ARRAY)) {
        return false;
    }
    for (size_t i = 0; i < galloc_json_array_size(arr); i++) {
        const struct galloc_json_value * e = galloc_json_array_at(arr, i);
        const struct galloc_json_value * v;
        uint64_t                  blck = 0, size = 0;
        path = path_item("type_traits", (int64_t) i);
        if (!read_expect(r, e, &path, JSON_TYPE_OBJECT)) {
            return false;
        }
        static const char * const keys[3] = { "name", "blck_size", "type_size" };
        for (int k = 0; k < 3; k++) {
            if (galloc_json_object_get(e, keys[k]) == NULL) {
                return reader_fail(r, &path, "missing \"%s\"", keys[k]);
            }
        }
        path = path_field("type_traits", (int64_t) i, "blck_size");
        if (!read_u64(r, galloc_json_object_get(e, "blck_size"), &path, &blck)) {
            return false;
        }
        if (blck < 1 || blck > 1024) {
            return reader_fail(r, &path, "%llu elements per block, expected 1 to 1024", (unsigned long long) blck);
        }
        path = path_field("type_traits", (int64_t) i, "type_size");
        if (!read_u64(r, galloc_json_object_get(e, "type_size"), &path, &size)) {
            return false;
        }
        if (size < 1 || size > 65536) {
            return reader_fail(r, &path, "%llu bytes per block, expected 1 to 65536", (unsigned long long) size);
        }
        path = path_field("type_traits", (int64_t) i, "name");
        v    = galloc_json_object_get(e, "name");
        const char * name = read_name(r, v, &path, 0);
        if (name == NULL) {
            return false;
        }
        int32_t      known = name_find(r->types, r->n_types, name);
        if (known >= 0) {
            if ((uint64_t) ggml_blck_size((enum ggml_type) known) != blck || ggml_type_size((enum ggml_type) known) != size) {
                return reader_fail(r, &path, "type %s has %lld elements in %zu bytes per block in ggml, not %llu in %llu", name,
                                   (long long) ggml_blck_size((enum ggml_type) known), ggml_type_size((enum ggml_type) known),
                                   (unsigned long long) blck, (unsigned long long) size);
            }
            continue;
        }
        int32_t before = doc->n_unknown;
        int32_t id     = intern_unknown(r, &path, v, GALLOC_NAME_TYPE);
        if (id < 0) {
            return false;
        }
        if (doc->n_unknown == before) {
            return reader_fail(r, &path, "type %s is described twice", name);
        }
        doc->unknown[id - GALLOC_DOCUMENT_UNKNOWN].blck_size = (int64_t) blck;
        doc->unknown[id - GALLOC_DOCUMENT_UNKNOWN].type_size = size;
    }
    return true;
}

// tensors[i].op: an op name; one the table lacks is kept
static bool read_tensor_op(struct reader * r, const struct galloc_json_value * e, int32_t i, int32_t * out) {
    struct doc_path           path = path_item("tensors", i);
    const struct galloc_json_value * v    = galloc_json_object_get(e, "op");
    if (v == NULL) {
        return reader_fail(r, &path, "missing \"op\"");
    }
    path = path_field("tensors", i, "op");
    const char * name = read_name(r, v, &path, 0); // "ADD\u0000XYZ" is no op, not ADD
    if (name == NULL) {
        return false;
    }
    if ((*out = name_find(r->ops, r->n_ops, name)) < 0) {
        *out = intern_unknown(r, &path, v, GALLOC_NAME_OP);
    }
    return *out >= 0;
}

// tensors[i].type: a type name; one the table lacks must be described in "type_traits"
static bool read_tensor_type(struct reader * r, const struct galloc_json_value * e, int32_t i, int32_t * out) {
    struct galloc_document *  doc  = r->doc;
    struct doc_path           path = path_item("tensors", i);
    const struct galloc_json_value * v    = galloc_json_object_get(e, "type");
    if (v == NULL) {
        return reader_fail(r, &path, "missing \"type\"");
    }
    path = path_field("tensors", i, "type");
    const char * name = read_name(r, v, &path, 0);
    if (name == NULL) {
        return false;
    }
    if ((*out = name_find(r->types, r->n_types, name)) >= 0) {
        return true;
    }
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        if (doc->unknown[k].kind == GALLOC_NAME_TYPE && strcmp(doc->unknown[k].name, name) == 0) {
            *out = GALLOC_DOCUMENT_UNKNOWN + k;
            return true;
        }
    }
    char what[64];
    galloc_json_describe(v, what, sizeof(what));
    return reader_fail(r, &path, "unknown type %s: its block size and bytes per block must be given in \"type_traits\"", what);
}

// tensors[i].unary_op / .glu_op: which unary op or gated linear unit a UNARY or GLU tensor computes
static bool read_tensor_sub_op(struct reader * r, const struct galloc_json_value * e, int32_t i) {
    struct galloc_document * doc = r->doc;
    doc->tensor_sub_op[i]        = -1;
    static const char * const keys[2] = { "unary_op", "glu_op" };
    static const enum ggml_op ops[2]  = { GGML_OP_UNARY, GGML_OP_GLU };
    for (int k = 0; k < 2; k++) {
        const struct galloc_json_value * v = get_optional(e, keys[k]);
        if (v == NULL) {
            continue;
        }
        struct doc_path path = path_field("tensors", i, keys[k]);
        if (doc->tensors[i].op != (int32_t) ops[k]) {
            return reader_fail(r, &path, "only %s tensors have one (this one is %s)", ggml_op_name(ops[k]),
                               galloc_document_op_name(doc, i));
        }
        const char * name = read_name(r, v, &path, 0);
        if (name == NULL) {
            return false;
        }
        int32_t count = k == 0 ? GGML_UNARY_OP_COUNT : GGML_GLU_OP_COUNT;
        for (int32_t id = 0; id < count && doc->tensor_sub_op[i] < 0; id++) {
            const char * known = k == 0 ? ggml_unary_op_name((enum ggml_unary_op) id) : ggml_glu_op_name((enum ggml_glu_op) id);
            if (known != NULL && strcmp(known, name) == 0) {
                doc->tensor_sub_op[i] = id;
            }
        }
        if (doc->tensor_sub_op[i] < 0 &&
            (doc->tensor_sub_op[i] = intern_unknown(r, &path, v, k == 0 ? GALLOC_NAME_UNARY_OP : GALLOC_NAME_GLU_OP)) < 0) {
            return false;
        }
        count_unknown_use(doc, doc->tensor_sub_op[i]);
    }
    return true;
}

static bool read_tensor(struct reader * r, const struct galloc_json_value * e, int32_t i) {
    struct galloc_document *  doc  = r->doc;
    struct galloc_tensor *    t    = &doc->tensors[i];
    struct doc_path           path = path_item("tensors", i);
    const struct galloc_json_value * v;

    if (!read_expect(r, e, &path, JSON_TYPE_OBJECT)) {
        return false;
    }
    if ((v = get_optional(e, "name")) != NULL) {
        path = path_field("tensors", i, "name");
        const char * name = read_name(r, v, &path, GGML_MAX_NAME - 1);
        if (name == NULL) {
            return false;
        }
        memcpy(doc->tensor_names[i], name, strlen(name) + 1);
    }

    if (!read_tensor_op(r, e, i, &t->op) || !read_tensor_type(r, e, i, &t->type)) {
        return false;
    }
    count_unknown_use(doc, t->op);
    count_unknown_use(doc, t->type);

    return read_tensor_shape(r, e, i, t) && read_tensor_links(r, e, i, t) && read_tensor_sub_op(r, e, i);
}

//
// tensors against each other
//

static bool check_views(struct reader * r) {
    const struct galloc_document * doc = r->doc;
    for (int32_t i = 0; i < doc->n_tensors; i++) {
        const struct galloc_tensor * t = &doc->tensors[i];
        if (t->view_src < 0) {
            continue;
        }
        const struct galloc_tensor * root = &doc->tensors[t->view_src];
        struct doc_path              path;
        switch (galloc_document_view_fit(t, root)) {
            case GALLOC_VIEW_FITS: break;
            case GALLOC_VIEW_OF_A_VIEW:
                path = path_field("tensors", i, "view_src");
                return reader_fail(r, &path, "tensor %d is itself a view (of tensor %d): view_src must name the root", t->view_src,
                                   root->view_src);
            case GALLOC_VIEW_OFFS_OVER_LIMIT:
                path = path_field("tensors", i, "view_offs");
                return reader_fail(r, &path, "%llu is over the limit of %llu bytes (2^40)", (unsigned long long) t->view_offs,
                                   (unsigned long long) GALLOC_DOCUMENT_MAX_TENSOR_BYTES);
            case GALLOC_VIEW_PAST_ROOT:
                path = path_item("tensors", i);
                return reader_fail(r, &path, "the view's bytes [%llu, %llu + %llu) reach past the %llu bytes of its view_src %d",
                                   (unsigned long long) t->view_offs, (unsigned long long) t->view_offs,
                                   (unsigned long long) t->nbytes, (unsigned long long) root->nbytes, t->view_src);
        }
    }
    return true;
}

// the tensor that edge k (0..GGML_MAX_SRC-1: sources, GGML_MAX_SRC: view_src) of t leads to, or -1
static int32_t tensor_edge(const struct galloc_tensor * t, int k) {
    return k < GGML_MAX_SRC ? t->src[k] : t->view_src;
}

// depth-first over src and view_src with an explicit stack: a cycle is an edge back into the stack
static bool check_cycles(struct reader * r) {
    const struct galloc_document * doc   = r->doc;
    const int32_t                  n     = doc->n_tensors;
    uint8_t *                      state = reader_alloc(r, (size_t) n, 1); // 0 new, 1 on the stack, 2 done
    int32_t *                      stack = reader_alloc(r, (size_t) n, sizeof(int32_t));
    uint8_t *                      edge  = reader_alloc(r, (size_t) n, 1); // next edge to follow, per stack entry
    bool                           ok    = state != NULL && stack != NULL && edge != NULL;
    for (int32_t start = 0; ok && start < n; start++) {
        if (state[start] != 0) {
            continue;
        }
        int32_t depth = 0;
        stack[depth]  = start;
        edge[depth]   = 0;
        state[start]  = 1;
        depth++;
        while (ok && depth > 0) {
            int32_t t = stack[depth - 1];
            int     k = edge[depth - 1];
            if (k > GGML_MAX_SRC) {
                state[t] = 2;
                depth--;
                continue;
            }
            edge[depth - 1]++;
            int32_t next = tensor_edge(&doc->tensors[t], k);
            if (next < 0 || next == t || state[next] == 2) { // a self edge (ggml_cast) is no cycle
                continue;
            }
            if (state[next] == 1) {
                struct doc_path path = k < GGML_MAX_SRC ? path_sub("tensors", t, "src", k) : path_field("tensors", t, "view_src");
                ok = reader_fail(r, &path, "%d closes a cycle (tensor %d already depends on tensor %d)", next, next, t);
                break;
            }
            state[next]  = 1;
            stack[depth] = next;
            edge[depth]  = 0;
            depth++;
        }
    }
    free(state);
    free(stack);
    free(edge);
    return ok;
}

//
// the graph
//

// an array of tensor indices (or buffer type indices), allocated from its JSON array size
static bool read_index_list(struct reader * r, const struct galloc_json_value * arr, const char * key, int32_t n_max,
                            const char * what, int32_t ** out, int32_t * n_out) {
    struct doc_path path = path_top(key);
    if (!read_expect(r, arr, &path, JSON_TYPE_ARRAY)) {
        return false;
    }
    size_t n = galloc_json_array_size(arr);
    if (n > (size_t) INT32_MAX) {
        return reader_limit(r, &path, "too many entries");
    }
    *out = reader_alloc(r, n, sizeof(int32_t));
    if (*out == NULL) {
        return false;
    }
    *n_out = (int32_t) n;
    for (size_t k = 0; k < n; k++) {
        path = path_item(key, (int64_t) k);
        if (!read_index(r, galloc_json_array_at(arr, k), &path, n_max, what, &(*out)[k])) {
            return false;
        }
    }
    return true;
}

// nodes and leafs as ggml_build_forward_expand makes them from the outputs (indices in range), in order; frees outputs
static bool build_from_output_list(struct reader * r, int32_t * outputs, int32_t n_out) {
    struct galloc_document * doc = r->doc;
    const int32_t n       = doc->n_tensors;
    uint8_t *     visited = reader_alloc(r, (size_t) n, 1);
    int32_t *     stack   = reader_alloc(r, (size_t) n, sizeof(int32_t));
    uint8_t *     slot    = reader_alloc(r, (size_t) n, 1); // next source slot, per stack entry
    doc->nodes            = reader_alloc(r, (size_t) n, sizeof(int32_t));
    doc->leafs            = reader_alloc(r, (size_t) n, sizeof(int32_t));
    bool ok               = visited != NULL && stack != NULL && slot != NULL && doc->nodes != NULL && doc->leafs != NULL;
    for (int32_t o = 0; ok && o < n_out; o++) {
        if (visited[outputs[o]]) {
            continue;
        }
        int32_t depth = 0;
        visited[outputs[o]] = 1;
        stack[depth]        = outputs[o];
        slot[depth]         = 0;
        depth++;
        while (depth > 0) {
            int32_t t = stack[depth - 1];
            if (slot[depth - 1] < GGML_MAX_SRC) {
                int32_t s = doc->tensors[t].src[slot[depth - 1]++];
                if (s >= 0 && !visited[s]) {
                    visited[s]   = 1;
                    stack[depth] = s;
                    slot[depth]  = 0;
                    depth++;
                }
                continue;
            }
            depth--;
            struct galloc_tensor * tensor = &doc->tensors[t];
            char *                 name   = doc->tensor_names[t];
            if (tensor->op == GGML_OP_NONE && !(tensor->flags & GGML_TENSOR_FLAG_PARAM)) {
                if (name[0] == '\0') {
                    snprintf(name, GGML_MAX_NAME, "leaf_%d", doc->n_leafs);
                }
                doc->leafs[doc->n_leafs++] = t;
            } else {
                if (name[0] == '\0') {
                    snprintf(name, GGML_MAX_NAME, "node_%d", doc->n_nodes);
                }
                tensor->flags |= GGML_TENSOR_FLAG_COMPUTE;
                doc->nodes[doc->n_nodes++] = t;
            }
        }
    }
    doc->graph_from_outputs = true;
    free(outputs);
    free(visited);
    free(stack);
    free(slot);
    return ok;
}

static bool build_from_outputs(struct reader * r, const struct galloc_json_value * arr) {
    int32_t * outputs = NULL;
    int32_t   n_out   = 0;
    if (!read_index_list(r, arr, "outputs", r->doc->n_tensors, "tensors", &outputs, &n_out)) {
        free(outputs);
        return false;
    }
    return build_from_output_list(r, outputs, n_out);
}

// where a tensor is in the graph's lists (check_graph): in neither, a leaf, or nodes[k]. A source
// or view_src of a node is in the graph when it is a leaf or any node, earlier or later: upstream's
// ggml_gallocr allocates a parent when its first consumer runs (the scheduler's graphs put some
// sources after the node that reads them); only a tensor in neither list (POS_NONE) is missing
#define POS_NONE    0u
#define POS_LEAF    1u
#define POS_NODE(k) ((uint32_t) (k) + 2u)

// sources 2 on all empty (negative: -1), two slots at a time: their AND has every sign bit set
static inline bool sources_2_on_empty(const int32_t * src) {
    _Static_assert(GGML_MAX_SRC % 2 == 0, "slots are read two at a time");
    const uint64_t signs = 0x8000000080000000ull;
    uint64_t       rest  = UINT64_MAX;
    for (int s = 2; s < GGML_MAX_SRC; s += 2) {
        uint64_t pair;
        memcpy(&pair, &src[s], sizeof(pair));
        rest &= pair;
    }
    return (rest & signs) == signs;
}

// the first leafs[j] (j < k) that is tensor t: the earlier entry a repeated leaf repeats
static int32_t leaf_index(const struct galloc_document * doc, int32_t t, int32_t k) {
    int32_t j = 0;
    while (j < k && doc->leafs[j] != t) {
        j++;
    }
    return j;
}

// why source slot s (or view_src, s < 0) of nodes[k], tensor `src` in neither list, is missing;
// true when it is not after all (an external tensor)
static bool check_missing(struct reader * r, int32_t k, int s, int32_t src) {
    const struct galloc_document * doc  = r->doc;
    int32_t                        t    = doc->nodes[k];
    struct doc_path                path = path_item("nodes", k);
    if (doc->tensors[src].external) {
        return true;
    }
    if (s >= 0) {
        return reader_fail(r, &path, "tensors[%d].src[%d] = %d is neither a node, a leaf, nor external (tensors missing)", t, s, src);
    }
    // ggml_gallocr would find the view's memory nowhere (upstream asserts view_src->buffer)
    return reader_fail(r, &path, "tensors[%d].view_src = %d is neither a node, a leaf, nor external (tensors missing)", t, src);
}

// no tensor twice, none in both lists, and every node's sources and view_src in the graph (or external)
static bool check_graph(struct reader * r) {
    const struct galloc_document * doc = r->doc;
    uint32_t *                     pos = reader_alloc(r, (size_t) doc->n_tensors, sizeof(uint32_t)); // zeroed: POS_NONE
    bool                           ok  = pos != NULL;
    for (int32_t k = 0; ok && k < doc->n_nodes; k++) {
        int32_t t = doc->nodes[k];
        if (pos[t] != POS_NONE) {
            struct doc_path path = path_item("nodes", k);
            ok = reader_fail(r, &path, "tensor %d is already nodes[%d]", t, (int32_t) (pos[t] - POS_NODE(0)));
        }
        pos[t] = POS_NODE(k);
    }
    for (int32_t k = 0; ok && k < doc->n_leafs; k++) {
        int32_t t = doc->leafs[k];
        if (pos[t] == POS_LEAF) {
            struct doc_path path = path_item("leafs", k);
            ok = reader_fail(r, &path, "tensor %d is already leafs[%d]", t, leaf_index(doc, t, k));
        } else if (pos[t] != POS_NONE) {
            struct doc_path path = path_item("leafs", k);
            ok = reader_fail(r, &path, "tensor %d is also nodes[%d]", t, (int32_t) (pos[t] - POS_NODE(0)));
        }
        pos[t] = POS_LEAF;
    }
    for (int32_t k = 0; ok && k < doc->n_nodes; k++) {
        const struct galloc_tensor * node  = &doc->tensors[doc->nodes[k]];
        const int                    n_src = sources_2_on_empty(node->src) ? 2 : GGML_MAX_SRC;
        for (int s = 0; s < n_src; s++) {
            int32_t src = node->src[s];
            if (src >= 0 && pos[src] == POS_NONE && !check_missing(r, k, s, src)) {
                ok = false;
                break;
            }
        }
        int32_t vs = node->view_src;
        if (ok && vs >= 0 && pos[vs] == POS_NONE) {
            ok = check_missing(r, k, -1, vs);
        }
    }
    free(pos);
    return ok;
}

static bool read_buffer_ids(struct reader * r, const struct galloc_json_value * root, const char * key, int32_t n_expected,
                            const char * list, int32_t ** out) {
    const struct galloc_json_value * arr = get_optional(root, key);
    int32_t                   n   = 0;
    if (arr == NULL) {
        return true;
    }
    if (!read_index_list(r, arr, key, r->doc->n_buffer_types, "buffer types", out, &n)) {
        return false;
    }
    if (n != n_expected) {
        struct doc_path path = path_top(key);
        return reader_fail(r, &path, "%d entries for %d %s", n, n_expected, list);
    }
    return true;
}

static bool read_graph(struct reader * r, const struct galloc_json_value * root) {
    struct galloc_document *  doc   = r->doc;
    const struct galloc_json_value * nodes = get_optional(root, "nodes");
    const struct galloc_json_value * leafs = get_optional(root, "leafs");
    if (nodes != NULL || leafs != NULL) {
        if (nodes == NULL) {
            struct doc_path path = path_top("leafs");
            return reader_fail(r, &path, "given without \"nodes\" (both or neither)");
        }
        if (leafs == NULL) {
            struct doc_path path = path_top("nodes");
            return reader_fail(r, &path, "given without \"leafs\" (both or neither)");
        }
        if (!read_index_list(r, nodes, "nodes", doc->n_tensors, "tensors", &doc->nodes, &doc->n_nodes) ||
            !read_index_list(r, leafs, "leafs", doc->n_tensors, "tensors", &doc->leafs, &doc->n_leafs)) {
            return false;
        }
    } else {
        const struct galloc_json_value * outputs = get_optional(root, "outputs");
        if (outputs == NULL) {
            struct doc_path path = path_top("document");
            return reader_fail(r, &path, "needs \"nodes\" and \"leafs\", or \"outputs\"");
        }
        if (!build_from_outputs(r, outputs)) {
            return false;
        }
    }
    return check_graph(r) &&
           read_buffer_ids(r, root, "node_buffer_ids", doc->n_nodes, "nodes", &doc->node_buffer_ids) &&
           read_buffer_ids(r, root, "leaf_buffer_ids", doc->n_leafs, "leafs", &doc->leaf_buffer_ids);
}

//
// the whole document
//

// the planner's alloc_size callback for a document with "alloc_sizes"
static uint64_t document_alloc_size(void * user, int32_t t, int32_t buffer_id) {
    const struct galloc_document * doc = user;
    int32_t                        row = doc->tensor_alloc_sizes[t];
    return row < 0 ? doc->tensors[t].alloc_size : doc->alloc_sizes[(size_t) row * (size_t) doc->n_buffer_types + (size_t) buffer_id];
}

// the per-tensor arrays of doc grown to want > *cap entries, the new ones zero-filled, *cap updated;
// false when out of memory (the arrays are then as they were, still doc's)
static bool grow_tensors(struct galloc_document * doc, size_t * cap, size_t want) {
    size_t old = *cap;
    void * t  = realloc(doc->tensors, want * sizeof(*doc->tensors));
    doc->tensors = t ? t : doc->tensors;
    void * nm = t ? realloc(doc->tensor_names, want * sizeof(*doc->tensor_names)) : NULL;
    doc->tensor_names = nm ? nm : doc->tensor_names;
    void * bt = nm ? realloc(doc->tensor_buffer_type, want * sizeof(int32_t)) : NULL;
    doc->tensor_buffer_type = bt ? bt : doc->tensor_buffer_type;
    void * so = bt ? realloc(doc->tensor_sub_op, want * sizeof(int32_t)) : NULL;
    doc->tensor_sub_op = so ? so : doc->tensor_sub_op;
    void * as = so ? realloc(doc->tensor_alloc_sizes, want * sizeof(int32_t)) : NULL;
    doc->tensor_alloc_sizes = as ? as : doc->tensor_alloc_sizes;
    if (!as) {
        return false;
    }
    *cap = want;
    memset(doc->tensors + old, 0, (want - old) * sizeof(*doc->tensors));
    memset(doc->tensor_names + old, 0, (want - old) * sizeof(*doc->tensor_names));
    memset(doc->tensor_buffer_type + old, 0, (want - old) * sizeof(int32_t));
    memset(doc->tensor_sub_op + old, 0, (want - old) * sizeof(int32_t));
    memset(doc->tensor_alloc_sizes + old, 0, (want - old) * sizeof(int32_t));
    return true;
}

// doubling from 1024, at most to the n entries the first parse counted
static bool grow_tensor_arrays(struct reader * r, size_t * cap, size_t n) {
    size_t want = *cap ? 2 * *cap : 1024;
    return grow_tensors(r->doc, cap, want < n ? want : n) || reader_oom(r);
}

// the second parse: each entry of "tensors" read as it is parsed (the other arrays' items are not looked at)
struct tensor_stream {
    struct reader * r;
    size_t          n;   // entries counted by the first parse
    size_t          cap; // entries the tensor arrays have room for
};

static bool read_tensor_item(void * user, const char * key, size_t index, const struct galloc_json_value * item, struct galloc_error * err) {
    struct tensor_stream * ts = user;
    (void) err; // the reader writes its own message into it (the same struct)
    if (strcmp(key, "tensors") != 0) {
        return true;
    }
    if (index == ts->cap && !grow_tensor_arrays(ts->r, &ts->cap, ts->n)) {
        return false;
    }
    return read_tensor(ts->r, item, (int32_t) index);
}

static void finish_graph(struct reader * r);

static bool read_document(struct reader * r, const struct galloc_json_value * root, size_t n, const char * json, size_t len) {
    struct galloc_document * doc  = r->doc;
    struct doc_path          path = path_top("document");
    if (!read_expect(r, root, &path, JSON_TYPE_OBJECT) || !read_header(r, root) || !read_buffer_types(r, root)) {
        return false;
    }

    const struct galloc_json_value * tensors = galloc_json_object_get(root, "tensors");
    if (tensors == NULL) {
        return reader_fail(r, &path, "missing \"tensors\"");
    }
    path = path_top("tensors");
    if (!read_expect(r, tensors, &path, JSON_TYPE_ARRAY)) {
        return false;
    }
    if (n > GALLOC_DOCUMENT_MAX_TENSORS) {
        return reader_limit(r, &path, "%zu entries, more than %d", n, GALLOC_DOCUMENT_MAX_TENSORS);
    }
    doc->n_tensors = (int32_t) n;
    reader_build_names(r);
    if (!read_type_traits(r, root)) {
        return false;
    }
    struct tensor_stream ts = { r, n, 0 };
    if (n > 0) {
        struct galloc_json_doc * again = galloc_json_parse_stream(json, len, read_tensor_item, &ts, r->err);
        if (again == NULL) {
            r->failed = true; // the entry's message, or out of memory
            return false;
        }
        galloc_json_doc_free(again);
    }
    if (n == 0 && !grow_tensor_arrays(r, &ts.cap, 1)) {
        return false; // the arrays are never NULL
    }
    if (!check_views(r) || !check_cycles(r) || !read_graph(r, root)) {
        return false;
    }
    finish_graph(r);
    return true;
}

// the planner's view of the document read
static void finish_graph(struct reader * r) {
    struct galloc_document * doc = r->doc;
    struct galloc_graph *    g   = &doc->graph;
    g->n_tensors       = doc->n_tensors;
    g->tensors         = doc->tensors;
    g->n_nodes         = doc->n_nodes;
    g->nodes           = doc->nodes;
    g->node_buffer_ids = doc->node_buffer_ids;
    g->n_leafs         = doc->n_leafs;
    g->leafs           = doc->leafs;
    g->leaf_buffer_ids = doc->leaf_buffer_ids;
    g->n_buffer_types  = doc->n_buffer_types;
    g->buffer_types    = doc->buffer_types;
    g->alloc_size      = r->n_alloc_sizes > 0 ? document_alloc_size : NULL;
    g->user            = r->n_alloc_sizes > 0 ? doc : NULL;
}

bool galloc_document_read(const char * json, size_t len, struct galloc_document * doc, struct galloc_error * err) {
    memset(doc, 0, sizeof(*doc));
    galloc_error_clear(err);
    struct reader r;
    memset(&r, 0, sizeof(r));
    r.doc = doc;
    r.err = err;
    if (len > GALLOC_DOCUMENT_MAX_BYTES) {
        reader_limit(&r, NULL, "document is %zu bytes, over the %zu-byte limit", len, GALLOC_DOCUMENT_MAX_BYTES);
        return false;
    }
    // the first parse: the whole text checked as JSON (a syntax error anywhere is the error), the
    // "tensors" entries counted, not kept, so that memory does not grow with them (an 8 MB array of
    // 0s is refused at tensors[0] without a tree of 4M values)
    struct galloc_json_skipped skipped;
    struct galloc_json_doc *   parsed = galloc_json_parse_skipping(json, len, "tensors", &skipped, err);
    if (parsed == NULL) {
        return false;
    }
    bool ok = read_document(&r, galloc_json_doc_root(parsed), skipped.count, json, len);
    galloc_json_doc_free(parsed);
    if (!ok) {
        galloc_document_free(doc);
    }
    return ok;
}

void galloc_document_free(struct galloc_document * doc) {
    if (doc == NULL) {
        return;
    }
    free(doc->name);
    if (doc->buffer_type_names != NULL) {
        for (int32_t i = 0; i < doc->n_buffer_types; i++) {
            free(doc->buffer_type_names[i]);
        }
    }
    free(doc->buffer_type_names);
    free(doc->buffer_types);
    free(doc->tensors);
    free(doc->tensor_names);
    free(doc->tensor_buffer_type);
    free(doc->tensor_sub_op);
    free(doc->tensor_alloc_sizes);
    free(doc->alloc_sizes);
    free(doc->unknown);
    free(doc->nodes);
    free(doc->node_buffer_ids);
    free(doc->leafs);
    free(doc->leaf_buffer_ids);
    memset(doc, 0, sizeof(*doc));
}
