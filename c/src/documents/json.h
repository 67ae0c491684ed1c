// json.h: a small, hardened JSON reader (DOM) and writer for the graph and plan documents.
//
// The reader keeps integers exact to 64 bits, validates UTF-8 and escapes, rejects
// duplicate keys and trailing data, limits nesting to JSON_MAX_DEPTH without
// recursing, and reports "line L, column C: message"; a parse lives in one arena,
// freed at once. The writer builds text in a growable buffer and never aborts.
//
// Example usage:
//
//   struct galloc_error err;
//   struct galloc_json_doc * doc = galloc_json_parse(text, len, &err);
//   if (!doc) { puts(err); return; }
//   const struct galloc_json_value * ne = galloc_json_object_get(galloc_json_doc_root(doc), "ne");
//   uint64_t n0;
//   if (galloc_json_get_u64(galloc_json_array_at(ne, 0), &n0) == JSON_INT_OK) { ... }
//   galloc_json_doc_free(doc);
//
//   struct galloc_json_writer w;
//   galloc_json_writer_init(&w);
//   galloc_json_write_begin_object(&w);
//   galloc_json_write_key(&w, "size"); galloc_json_write_u64(&w, 42);
//   galloc_json_write_end_object(&w);
//   size_t len; char * text = galloc_json_writer_finish(&w, &len);  // "{ \"size\": 42 }", NULL when out of memory
//   free(text);

#pragma once

#include "galloc-status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JSON_MAX_DEPTH 64 // deepest nesting of arrays and objects the reader accepts

//
// reading
//

enum galloc_json_type {
    JSON_TYPE_NULL,
    JSON_TYPE_BOOL,
    JSON_TYPE_NUMBER,
    JSON_TYPE_STRING,
    JSON_TYPE_ARRAY,
    JSON_TYPE_OBJECT,
};

// result of the exact integer accessors
enum galloc_json_int_status {
    JSON_INT_OK,
    JSON_INT_WRONG_TYPE,   // neither a number nor a string
    JSON_INT_NOT_INTEGER,  // a fraction or exponent, or a string that is not a plain decimal integer
    JSON_INT_NEGATIVE,     // galloc_json_get_u64 only: below zero
    JSON_INT_OVERFLOW,     // past 2^64 - 1 (u64) or outside [-2^63, 2^63 - 1] (i64)
};

struct galloc_json_doc;   // a parsed document: owns every value in it
struct galloc_json_value; // one value inside a galloc_json_doc

// parse len bytes (need not be NUL-terminated). NULL on failure, with a one-line
// message in err: "line L, column C: ..." (columns count bytes from 1), or "out of memory".
// A leading UTF-8 byte order mark is skipped.
struct galloc_json_doc *         galloc_json_parse   (const char * text, size_t len, struct galloc_error * err);
void                      galloc_json_doc_free(struct galloc_json_doc * doc); // NULL is fine

// the same, streaming: every item of an array that is a member of the root object is handed to
// item() as soon as it is parsed (key: the member's name, index: its place in the array), then
// dropped, so memory grows with one item, not with the array; in the returned document those
// arrays are empty. item() returns false with its own message in err to stop the parse (NULL).
typedef bool (*galloc_json_item_fn)(void * user, const char * key, size_t index, const struct galloc_json_value * item, struct galloc_error * err);
struct galloc_json_doc * galloc_json_parse_stream(const char * text, size_t len, galloc_json_item_fn item, void * user, struct galloc_error * err);

// the same, for a document whose root object holds one big array: the items of its member named key
// are checked (any error is reported as galloc_json_parse would) and counted, not kept, so memory does
// not grow with them; in the returned document that member is an empty array. skipped says whether
// it was an array and how many items it had. A document that parses is valid JSON throughout: its
// items can then be read with galloc_json_parse_stream, which fails on them only for memory.
struct galloc_json_skipped {
    bool   found; // the member is an array
    size_t count; // its items
};
struct galloc_json_doc * galloc_json_parse_skipping(const char * text, size_t len, const char * key, struct galloc_json_skipped * skipped,
                                                    struct galloc_error * err);

const struct galloc_json_value * galloc_json_doc_root(const struct galloc_json_doc * doc);

enum galloc_json_type galloc_json_type_of  (const struct galloc_json_value * v);
const char *   galloc_json_type_name(enum galloc_json_type type); // "null", "a boolean", "a number", "a string", "an array", "an object"

// booleans: false when v is not a boolean
bool galloc_json_get_bool(const struct galloc_json_value * v, bool * out);

// strings: the decoded UTF-8 bytes, NUL-terminated (they may also contain NUL: use *len); NULL when not a string
const char * galloc_json_get_string(const struct galloc_json_value * v, size_t * len);

// exact integers from a number, or from a string holding a plain decimal integer
// ("18446744073709551615", "-3"); *out is untouched unless JSON_INT_OK
enum galloc_json_int_status galloc_json_get_u64(const struct galloc_json_value * v, uint64_t * out);
enum galloc_json_int_status galloc_json_get_i64(const struct galloc_json_value * v, int64_t  * out);

// arrays: 0 / NULL when v is not an array or i is out of range
size_t                    galloc_json_array_size(const struct galloc_json_value * v);
const struct galloc_json_value * galloc_json_array_at  (const struct galloc_json_value * v, size_t i);

// objects, members in document order: 0 / NULL when v is not an object or i is out of range
size_t                    galloc_json_object_size    (const struct galloc_json_value * v);
const char *              galloc_json_object_key_at  (const struct galloc_json_value * v, size_t i, size_t * len);
const struct galloc_json_value * galloc_json_object_value_at(const struct galloc_json_value * v, size_t i);
// the member named key (a NUL-terminated string), NULL when absent
const struct galloc_json_value * galloc_json_object_get     (const struct galloc_json_value * v, const char * key);

// a short description of v for error messages: the number or string text (cut at ~40 bytes), or its type
void galloc_json_describe(const struct galloc_json_value * v, char * buf, size_t size);

//
// writing
//

// Separators are ", " and ": "; objects are padded ("{ \"a\": 1 }"), arrays are padded only when
// their first item is an object or array ("[ { ... } ]", "[1, 2]"). galloc_json_write_newline puts the
// next separator (or the closing bracket) on a new line indented by `indent` spaces instead.
// After any failure (out of memory, misuse) every call returns false and finish returns NULL.

struct galloc_json_writer_level {
    uint8_t is_object; // 1: object, 0: array
    uint8_t first;     // 1 until the first item is written
    uint8_t padded;    // 1: a space follows the opening bracket, so one precedes the closing one
};

struct galloc_json_writer {
    char *  buf;       // text so far (NUL-terminated by galloc_json_writer_finish)
    size_t  len;       // bytes in buf, without the NUL
    size_t  cap;       // bytes allocated
    bool    failed;    // out of memory or misuse: the text is lost
    bool    after_key; // a key was written: the next value completes the member
    int32_t newline;   // >= 0: indent of a pending line break; -1: none
    int32_t depth;     // open containers
    struct galloc_json_writer_level levels[JSON_MAX_DEPTH];
};

void   galloc_json_writer_init  (struct galloc_json_writer * w);
void   galloc_json_writer_free  (struct galloc_json_writer * w);                 // drops the text
char * galloc_json_writer_finish(struct galloc_json_writer * w, size_t * len);  // the text (malloc'd, caller frees) or NULL; resets w
bool   galloc_json_writer_ok    (const struct galloc_json_writer * w);

bool galloc_json_write_begin_object(struct galloc_json_writer * w);
bool galloc_json_write_end_object  (struct galloc_json_writer * w);
bool galloc_json_write_begin_array (struct galloc_json_writer * w);
bool galloc_json_write_end_array   (struct galloc_json_writer * w);
bool galloc_json_write_key         (struct galloc_json_writer * w, const char * key); // inside an object, before each value
bool galloc_json_write_newline     (struct galloc_json_writer * w, int32_t indent);

// strings: '"', '\\' and control bytes are escaped; valid UTF-8 passes through, invalid bytes become U+FFFD
bool galloc_json_write_string(struct galloc_json_writer * w, const char * s, size_t len);
bool galloc_json_write_cstr  (struct galloc_json_writer * w, const char * s);
// integers; above 2^53 in magnitude they are written as decimal strings ("18446744073709551615")
bool galloc_json_write_u64   (struct galloc_json_writer * w, uint64_t v);
bool galloc_json_write_i64   (struct galloc_json_writer * w, int64_t  v);
#define GALLOC_JSON_EXACT_LIMIT ((uint64_t) 1 << 53) // JavaScript numbers hold integers exactly up to here
// the same integer text into out (room for GALLOC_JSON_INTEGER_MAX bytes, no NUL); its byte count
#define GALLOC_JSON_INTEGER_MAX 24
size_t galloc_json_format_u64(char * out, uint64_t v);
size_t galloc_json_format_i64(char * out, int64_t v);
// a value already written as JSON text by this program (trusted, not checked), placed like any
// value: is_container says whether it is an object or array (for the padding of the array it is in)
bool galloc_json_write_raw   (struct galloc_json_writer * w, const char * json, size_t len, bool is_container);
bool galloc_json_write_f64   (struct galloc_json_writer * w, double v);  // shortest round-trip text; NaN/inf as null
// a float: the shortest decimal text that reads back as the same float; non-finite as null
bool galloc_json_write_f32   (struct galloc_json_writer * w, float v);
bool galloc_json_write_bool  (struct galloc_json_writer * w, bool v);
bool galloc_json_write_null  (struct galloc_json_writer * w);
// an array of n integers on one line ("[1, 2, 3]"); v may be NULL when n is 0
bool galloc_json_write_u64_array(struct galloc_json_writer * w, const uint64_t * v, size_t n);
bool galloc_json_write_i64_array(struct galloc_json_writer * w, const int64_t  * v, size_t n);
bool galloc_json_write_i32_array(struct galloc_json_writer * w, const int32_t  * v, size_t n);
// a parsed value, copied (numbers keep their text); containers on one line
bool galloc_json_write_value (struct galloc_json_writer * w, const struct galloc_json_value * v);
// a member in one call (inside an object): the key, then the value as above
bool galloc_json_write_key_u64 (struct galloc_json_writer * w, const char * key, uint64_t v);
bool galloc_json_write_key_i64 (struct galloc_json_writer * w, const char * key, int64_t v);
bool galloc_json_write_key_f64 (struct galloc_json_writer * w, const char * key, double v);
bool galloc_json_write_key_cstr(struct galloc_json_writer * w, const char * key, const char * s);
bool galloc_json_write_key_bool(struct galloc_json_writer * w, const char * key, bool v);

#ifdef __cplusplus
}
#endif
