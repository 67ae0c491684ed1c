// galloc-document-tables.c: what documents say about ggml's tables, shared by the reader and the writers.
//
// Flag names, a tensor's op and type by name (also the ones ggml's tables do
// not know, which a document keeps by name), type traits, ggml's contiguous
// strides and byte size rules with overflow checks, the one warning a
// document with unknown names gives, and the tables as JSON for the web UI.

#include "galloc-document-impl.h"
#include "galloc-document.h"
#include "galloc-planner.h"
#include "json.h"

#include <stdio.h>
#include <string.h>

const char * const galloc_document_flag_names[GALLOC_DOCUMENT_N_FLAGS] = {
    "input", "output", "param", "loss", "compute",
};

static bool mul_u64(uint64_t a, uint64_t b, uint64_t * out) {
    if (a != 0 && b > UINT64_MAX / a) {
        return false;
    }
    *out = a * b;
    return true;
}

static bool add_u64(uint64_t a, uint64_t b, uint64_t * out) {
    if (b > UINT64_MAX - a) {
        return false;
    }
    *out = a + b;
    return true;
}

static const struct galloc_unknown_name * unknown_of(const struct galloc_document * doc, int32_t id) {
    if (id < GALLOC_DOCUMENT_UNKNOWN || id - GALLOC_DOCUMENT_UNKNOWN >= doc->n_unknown) {
        return NULL;
    }
    return &doc->unknown[id - GALLOC_DOCUMENT_UNKNOWN];
}

bool galloc_document_type_traits(const struct galloc_document * doc, int32_t type, uint64_t * blck_size, uint64_t * type_size) {
    const struct galloc_unknown_name * u = unknown_of(doc, type);
    if (u != NULL) {
        *blck_size = (uint64_t) u->blck_size;
        *type_size = u->type_size;
    } else {
        *blck_size = (uint64_t) ggml_blck_size((enum ggml_type) type);
        *type_size = ggml_type_size((enum ggml_type) type);
    }
    return *blck_size > 0 && *type_size > 0;
}

bool galloc_document_contiguous_nb(uint64_t blck_size, uint64_t type_size, const int64_t ne[GGML_MAX_DIMS], uint64_t nb[GGML_MAX_DIMS]) {
    nb[0] = type_size;
    if (blck_size == 0 || !mul_u64(nb[0], (uint64_t) ne[0] / blck_size, &nb[1])) {
        return false;
    }
    for (int i = 2; i < GGML_MAX_DIMS; i++) {
        if (!mul_u64(nb[i - 1], (uint64_t) ne[i - 1], &nb[i])) {
            return false;
        }
    }
    return true;
}

bool galloc_document_nbytes(uint64_t blck_size, uint64_t type_size, const int64_t ne[GGML_MAX_DIMS], const uint64_t nb[GGML_MAX_DIMS],
                            uint64_t * nbytes) {
    if (blck_size == 0) {
        return false;
    }
    for (int i = 0; i < GGML_MAX_DIMS; i++) {
        if (ne[i] <= 0) {
            *nbytes = 0; // as ggml_nbytes: a tensor without elements has no bytes
            return true;
        }
    }
    uint64_t total;
    int      first_dim;
    if (blck_size == 1) {
        total     = type_size;
        first_dim = 0;
    } else {
        if (!mul_u64((uint64_t) ne[0], nb[0], &total)) {
            return false;
        }
        total    /= blck_size;
        first_dim = 1;
    }
    for (int i = first_dim; i < GGML_MAX_DIMS; i++) {
        uint64_t term;
        if (!mul_u64((uint64_t) (ne[i] - 1), nb[i], &term) || !add_u64(total, term, &total)) {
            return false;
        }
    }
    *nbytes = total;
    return true;
}

bool galloc_document_is_table_name(const char * s, size_t len) {
    if (len < 1 || len > GGML_MAX_NAME - 1) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
            return false;
        }
    }
    return true;
}

const char * galloc_document_op_name(const struct galloc_document * doc, int32_t t) {
    const struct galloc_unknown_name * u = unknown_of(doc, doc->tensors[t].op);
    const char *                       n = u != NULL ? u->name : ggml_op_name((enum ggml_op) doc->tensors[t].op);
    return n != NULL ? n : "?";
}

const char * galloc_document_type_name(const struct galloc_document * doc, int32_t t) {
    const struct galloc_unknown_name * u = unknown_of(doc, doc->tensors[t].type);
    const char *                       n = u != NULL ? u->name : ggml_type_name((enum ggml_type) doc->tensors[t].type);
    return n != NULL ? n : "?";
}

const char * galloc_document_op_desc(const struct galloc_document * doc, int32_t t) {
    const struct galloc_tensor * tensor = &doc->tensors[t];
    int32_t                      sub    = doc->tensor_sub_op != NULL ? doc->tensor_sub_op[t] : -1;
    const char *                 name   = NULL;
    const struct galloc_unknown_name * u = unknown_of(doc, sub);
    if (u != NULL) {
        name = u->name;
    } else if (sub >= 0 && tensor->op == GGML_OP_UNARY) {
        name = ggml_unary_op_name((enum ggml_unary_op) sub);
    } else if (sub >= 0 && tensor->op == GGML_OP_GLU) {
        name = ggml_glu_op_name((enum ggml_glu_op) sub);
    }
    return name != NULL ? name : galloc_document_op_name(doc, t);
}

bool galloc_document_warning(const struct galloc_document * doc, char * buf, size_t size) {
    static const char * const kinds[] = { "op", "unary op", "GLU op", "type" };
    if (size > 0) {
        buf[0] = '\0';
    }
    int32_t used_names = 0;
    for (int32_t k = 0; k < doc->n_unknown; k++) {
        used_names += doc->unknown[k].n_tensors > 0;
    }
    if (used_names == 0) {
        return false;
    }
    size_t used = 0;
    bool   first = true;
    int    n    = snprintf(buf, size, "names the tables of ggml 0.21.0 do not know (kept; such ops planned as not in place):");
    used        = n > 0 ? (size_t) n : 0;
    for (int32_t k = 0; k < doc->n_unknown && used < size; k++) {
        const struct galloc_unknown_name * u = &doc->unknown[k];
        if (u->n_tensors == 0) {
            continue;
        }
        const char * sep = first ? "" : ",";
        first            = false;
        if (u->kind == GALLOC_NAME_TYPE) {
            n = snprintf(buf + used, size - used, "%s type %s (%lld elements in %llu bytes per block, %d tensor%s)", sep,
                         u->name, (long long) u->blck_size, (unsigned long long) u->type_size, u->n_tensors, u->n_tensors == 1 ? "" : "s");
        } else {
            n = snprintf(buf + used, size - used, "%s %s %s (%d tensor%s)", sep, kinds[u->kind], u->name, u->n_tensors,
                         u->n_tensors == 1 ? "" : "s");
        }
        used += n > 0 ? (size_t) n : 0;
    }
    return true;
}

char * galloc_document_write_tables(size_t * len) {
    struct galloc_json_writer w;
    galloc_json_writer_init(&w);
    galloc_json_write_begin_object(&w);
    galloc_json_write_key(&w, "ggml");
    galloc_json_write_cstr(&w, "0.21.0");
    galloc_json_write_key(&w, "types");
    galloc_json_write_begin_object(&w);
    for (int t = 0; t < GGML_TYPE_COUNT; t++) {
        const char * name = ggml_type_name((enum ggml_type) t);
        if (name == NULL || ggml_blck_size((enum ggml_type) t) == 0) {
            continue; // a removed type
        }
        galloc_json_write_key(&w, name);
        galloc_json_write_begin_array(&w);
        galloc_json_write_i64(&w, ggml_blck_size((enum ggml_type) t));
        galloc_json_write_u64(&w, ggml_type_size((enum ggml_type) t));
        galloc_json_write_end_array(&w);
    }
    galloc_json_write_end_object(&w);
    for (int pass = 0; pass < 2; pass++) {
        galloc_json_write_key(&w, pass == 0 ? "ops" : "inplace_ops");
        galloc_json_write_begin_array(&w);
        for (int op = 0; op < GGML_OP_COUNT; op++) {
            if (pass == 0 || galloc_op_can_inplace(op)) {
                galloc_json_write_cstr(&w, ggml_op_name((enum ggml_op) op));
            }
        }
        galloc_json_write_end_array(&w);
    }
    galloc_json_write_key(&w, "unary_ops");
    galloc_json_write_begin_array(&w);
    for (int op = 0; op < GGML_UNARY_OP_COUNT; op++) {
        galloc_json_write_cstr(&w, ggml_unary_op_name((enum ggml_unary_op) op));
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key(&w, "glu_ops");
    galloc_json_write_begin_array(&w);
    for (int op = 0; op < GGML_GLU_OP_COUNT; op++) {
        galloc_json_write_cstr(&w, ggml_glu_op_name((enum ggml_glu_op) op));
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_key(&w, "flags");
    galloc_json_write_begin_array(&w);
    for (int b = 0; b < GALLOC_DOCUMENT_N_FLAGS; b++) {
        galloc_json_write_cstr(&w, galloc_document_flag_names[b]);
    }
    galloc_json_write_end_array(&w);
    galloc_json_write_end_object(&w);
    return galloc_json_writer_finish(&w, len);
}
