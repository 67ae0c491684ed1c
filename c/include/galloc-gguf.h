// galloc-gguf.h: reads the header of a GGUF model file (metadata and tensor infos, never tensor data).
//
// Accepts exactly what llama.cpp's gguf.cpp (snapshot 3f545bec, ggml 0.21.0) accepts, with the same
// limits and checks (magic, versions 2 and 3, string and array limits, empty and duplicate keys,
// general.alignment, tensor names, dimensions, types, sizes and offsets), except one thing GGUF
// allows and gguf.cpp refuses: arrays of arrays are read (to GALLOC_GGUF_MAX_DEPTH) and the refusal
// gguf.cpp would print is kept in llama_refusal. Works from a prefix of the file: when the prefix is
// too short it says how long a prefix it needs. Every allocation is backed by bytes already read,
// so a count or a length in the input never sizes memory on its own.
//
// Example usage:
//
//   struct galloc_gguf g;
//   uint64_t need = 0;
//   struct galloc_error err;
//   enum galloc_gguf_status st = galloc_gguf_read(buf, len, &g, &need, &err);
//   while (st == GALLOC_GGUF_NEED_MORE) { ...read `need` bytes (or more) into buf...; st = galloc_gguf_read(...); }
//   if (st != GALLOC_GGUF_OK) { puts(err.message); return; }
//   uint64_t n_layer;
//   if (galloc_gguf_get_u64(&g, "llama.block_count", &n_layer)) { ... }
//   galloc_gguf_free(&g);

#pragma once

#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//
// limits (gguf.cpp's, plus the nesting depth)
//

#define GALLOC_GGUF_MAX_STRING_LENGTH  ((uint64_t) 1 << 30)  // bytes of one string (key, value, tensor name)
#define GALLOC_GGUF_MAX_ARRAY_ELEMENTS ((uint64_t) 1 << 30)  // elements of one array
#define GALLOC_GGUF_MAX_DEPTH          8                     // arrays nested in arrays (gguf.cpp: 1, no nesting)
#define GALLOC_GGUF_DEFAULT_ALIGNMENT  32                    // data alignment without general.alignment
#define GALLOC_GGUF_SIZE_UNKNOWN       UINT64_MAX            // file_size when only a prefix is known

// value types, numbered as GGUF numbers them
enum galloc_gguf_type {
    GALLOC_GGUF_TYPE_UINT8   = 0,
    GALLOC_GGUF_TYPE_INT8    = 1,
    GALLOC_GGUF_TYPE_UINT16  = 2,
    GALLOC_GGUF_TYPE_INT16   = 3,
    GALLOC_GGUF_TYPE_UINT32  = 4,
    GALLOC_GGUF_TYPE_INT32   = 5,
    GALLOC_GGUF_TYPE_FLOAT32 = 6,
    GALLOC_GGUF_TYPE_BOOL    = 7,
    GALLOC_GGUF_TYPE_STRING  = 8,
    GALLOC_GGUF_TYPE_ARRAY   = 9,
    GALLOC_GGUF_TYPE_UINT64  = 10,
    GALLOC_GGUF_TYPE_INT64   = 11,
    GALLOC_GGUF_TYPE_FLOAT64 = 12,
    GALLOC_GGUF_TYPE_COUNT   = 13,
};

enum galloc_gguf_status {
    GALLOC_GGUF_OK        = 0,
    GALLOC_GGUF_NEED_MORE = 1, // the prefix ends too early: *need_bytes is the prefix length to try next
    GALLOC_GGUF_INVALID   = 2, // not a GGUF file llama.cpp reads; err names the byte offset and the key or tensor
    GALLOC_GGUF_NO_MEMORY = 3, // an allocation failed
};

// one value; what is set depends on type
struct galloc_gguf_value {
    enum galloc_gguf_type type;       // ARRAY for arrays
    enum galloc_gguf_type elem_type;  // ARRAY: type of the elements (ARRAY again when nested)
    uint64_t n;                       // STRING: length in bytes; ARRAY: element count; otherwise 1
    uint64_t offset;                  // byte offset in the file where the value starts
    const uint8_t * bytes;            // numbers (a scalar or an array's elements): little-endian bytes as in
                                      // the file; STRING: its n bytes followed by a NUL
    const char * const * strs;        // ARRAY of STRING: n NUL-terminated copies
    const uint64_t * str_lens;        // ARRAY of STRING: their lengths in bytes
    const struct galloc_gguf_value * items; // ARRAY of ARRAY: the n inner arrays
};

struct galloc_gguf_kv {
    const char * key;                 // NUL-terminated copy (keys may hold a NUL: then key_len tells)
    uint64_t     key_len;
    uint64_t     offset;              // byte offset in the file of the key's length field
    struct galloc_gguf_value value;
};

struct galloc_gguf_tensor_info {
    const char * name;                // as ggml names it: the bytes before the first NUL
    int32_t  n_dims;
    int64_t  ne[4];                   // elements per dimension, 1 past n_dims
    int32_t  type;                    // enum ggml_type number
    uint64_t offset;                  // of its data from data_offset, bytes
    uint64_t nbytes;                  // of its data, bytes (ggml_nbytes)
    uint64_t info_offset;             // byte offset in the file of the tensor info
};

struct galloc_gguf {
    uint32_t version;                 // 2 or 3
    int64_t  n_kv;
    int64_t  n_tensors;
    const struct galloc_gguf_kv *          kv;      // n_kv, in file order
    const struct galloc_gguf_tensor_info * tensors; // n_tensors, in file order
    uint64_t alignment;               // general.alignment, or 32
    uint64_t header_size;             // bytes of magic, counts, KV pairs and tensor infos
    uint64_t data_offset;             // where the tensor data starts (header_size padded to alignment
                                      // when there are tensors)
    uint64_t data_size;               // sum of the tensors' nbytes, each padded to alignment
    uint64_t file_size;               // data_offset + data_size: the length llama.cpp's loader expects
                                      // (UINT64_MAX when it does not fit)
    char     llama_refusal[256];      // "" when gguf.cpp reads the file; else what it would say (nested arrays)

    void *   impl;                    // owned memory and lookup tables
};

//
// reading
//

// Reads the header from the first len bytes of a GGUF file (never the tensor data).
// Returns GALLOC_GGUF_OK and fills *out (free it with galloc_gguf_free), or another status with *out
// left empty: NEED_MORE sets *need_bytes to the prefix length needed (a lower bound: call again with
// at least that many bytes); INVALID and NO_MEMORY fill err (may be NULL) with the status
// (GALLOC_STATUS_INVALID, GALLOC_STATUS_NO_MEMORY) and one line naming the byte offset and the key or
// tensor. NEED_MORE also fills err, as GALLOC_STATUS_INVALID (the bytes given are an incomplete file),
// saying what ran past the end of the prefix.
enum galloc_gguf_status galloc_gguf_read(const uint8_t * data, size_t len, struct galloc_gguf * out,
                                         uint64_t * need_bytes, struct galloc_error * err);

// The same, knowing the file is file_size bytes long: what would run past the end of the file is
// INVALID (not NEED_MORE), and a data section starting past the end is refused as gguf.cpp refuses it.
// len == file_size reads a whole file; file_size = GALLOC_GGUF_SIZE_UNKNOWN is galloc_gguf_read.
enum galloc_gguf_status galloc_gguf_read_prefix(const uint8_t * data, size_t len, uint64_t file_size,
                                                struct galloc_gguf * out, uint64_t * need_bytes,
                                                struct galloc_error * err);

// A source of a file's bytes: copies up to n bytes starting at offset into dst and returns how many
// it copied (fewer than n only at the end of the file, or on a read error).
typedef size_t (*galloc_gguf_source_fn)(void * ctx, uint64_t offset, uint8_t * dst, size_t n);

#define GALLOC_GGUF_FIRST_READ ((uint64_t) 1 << 20) // bytes of the first prefix read (most headers fit)
#define GALLOC_GGUF_MAX_HEADER ((uint64_t) 1 << 30) // tokenizer arrays make headers many MiB, not GiB

// Reads the header of a file_size-byte file (GALLOC_GGUF_SIZE_UNKNOWN when unknown) from source, each
// byte once, in order: GALLOC_GGUF_FIRST_READ bytes first, then a prefix at least twice as long
// whenever the reader needs more, so a header is parsed at most log2(size / FIRST_READ) + 2 times
// (time linear in its size). Returns as galloc_gguf_read_prefix, never NEED_MORE: a source that ends
// inside the header is INVALID (err: GALLOC_STATUS_INVALID), a header past GALLOC_GGUF_MAX_HEADER is
// INVALID with err's status GALLOC_STATUS_LIMIT.
enum galloc_gguf_status galloc_gguf_read_source(galloc_gguf_source_fn source, void * ctx, uint64_t file_size,
                                                struct galloc_gguf * out, struct galloc_error * err);

// frees what galloc_gguf_read filled (and empties it); safe on an emptied or zeroed struct
void galloc_gguf_free(struct galloc_gguf * g);

// "u8", "i8", ..., "arr" as gguf.cpp names the types, "?" for other numbers
const char * galloc_gguf_type_name(enum galloc_gguf_type type);
const char * galloc_gguf_status_name(enum galloc_gguf_status status);

//
// lookups: NULL / false when the key is absent or its value of another kind
//

const struct galloc_gguf_kv * galloc_gguf_find(const struct galloc_gguf * g, const char * key);
enum galloc_gguf_type galloc_gguf_kv_type(const struct galloc_gguf_kv * kv);            // ARRAY for arrays

bool galloc_gguf_get_u64 (const struct galloc_gguf * g, const char * key, uint64_t * out); // a non-negative integer or bool
bool galloc_gguf_get_i64 (const struct galloc_gguf * g, const char * key, int64_t * out);  // an integer (or bool) that fits
bool galloc_gguf_get_f64 (const struct galloc_gguf * g, const char * key, double * out);   // float32/64 or an integer
bool galloc_gguf_get_bool(const struct galloc_gguf * g, const char * key, bool * out);     // a bool
const char * galloc_gguf_get_str(const struct galloc_gguf * g, const char * key);          // a string, NUL-terminated

// arrays: element type and count; element i as a number (false when out of range or not numeric) or string
bool galloc_gguf_get_arr    (const struct galloc_gguf * g, const char * key, enum galloc_gguf_type * elem_type, uint64_t * n);
bool galloc_gguf_get_arr_i64(const struct galloc_gguf * g, const char * key, uint64_t i, int64_t * out);
bool galloc_gguf_get_arr_f64(const struct galloc_gguf * g, const char * key, uint64_t i, double * out);
const char * galloc_gguf_get_arr_str(const struct galloc_gguf * g, const char * key, uint64_t i, uint64_t * len);

// the same on a value (a KV's or an array element's)
bool galloc_gguf_value_i64(const struct galloc_gguf_value * v, uint64_t i, int64_t * out); // element i (0 for a scalar)
bool galloc_gguf_value_u64(const struct galloc_gguf_value * v, uint64_t i, uint64_t * out);
bool galloc_gguf_value_f64(const struct galloc_gguf_value * v, uint64_t i, double * out);

const struct galloc_gguf_tensor_info * galloc_gguf_find_tensor(const struct galloc_gguf * g, const char * name);

//
// summary
//

// The header as one JSON object, "galloc-gguf-summary": version, architecture, name, counts,
// alignment, header_size, data_offset, data_size, file_size (bytes), llama_refusal, tensor_types
// ([{type, count, bytes}]), kv ([{key, type, offset, value}]: numbers as numbers (integers past
// 2^53 as decimal strings, floats shortest, non-finite as null), strings cut to 64 KiB,
// arrays as {elem_type, n, items: the first max_items}) and tensors ([{name, type, ne, nbytes, offset}]).
// malloc'd (*len bytes, NUL-terminated); NULL when out of memory.
char * galloc_gguf_write_summary(const struct galloc_gguf * g, uint64_t max_items, size_t * len);

#ifdef __cplusplus
}
#endif
