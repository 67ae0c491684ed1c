// galloc-gguf-source.c: reads a GGUF header from a source of bytes (a file, a blob), growing the
// prefix it hands to galloc_gguf_read_prefix until the reader has the whole header.
//
// The reader parses from byte 0 each time, so the prefix at least doubles between parses: every
// byte is read once and parsed at most twice on average (time linear in the header's size, however
// many strings its tokenizer holds), never grown only to the next string the reader asked for.

#include "galloc-error.h"
#include "galloc-gguf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

// the next prefix to try: what the reader asked for, at least twice what it had, within the file and
// the limit (need <= max_header here)
static uint64_t next_prefix(uint64_t have, uint64_t need, uint64_t file_size, uint64_t max_header) {
    uint64_t want = have <= max_header / 2 ? have * 2 : max_header;
    if (want < need) {
        want = need;
    }
    return file_size != GALLOC_GGUF_SIZE_UNKNOWN && want > file_size ? file_size : want;
}

enum galloc_gguf_status galloc_gguf_read_source(galloc_gguf_source_fn source, void * ctx, uint64_t file_size,
                                                struct galloc_gguf * out, struct galloc_error * err) {
    galloc_error_clear(err);
    memset(out, 0, sizeof(*out));
    uint64_t want = file_size < GALLOC_GGUF_FIRST_READ ? file_size : GALLOC_GGUF_FIRST_READ;
    uint64_t have = 0;
    uint8_t * buf = NULL;
    enum galloc_gguf_status st;
    for (;;) {
        uint8_t * grown = realloc(buf, want ? (size_t) want : 1);
        if (!grown) {
            galloc_fail(err, GALLOC_STATUS_NO_MEMORY, "out of memory reading a %" PRIu64 "-byte GGUF header", want);
            st = GALLOC_GGUF_NO_MEMORY;
            break;
        }
        buf = grown;
        uint64_t got = want > have ? source(ctx, have, buf + have, (size_t) (want - have)) : 0;
        bool ended = got < want - have; // the source has no more bytes
        have += got;
        uint64_t need = 0;
        st = galloc_gguf_read_prefix(buf, (size_t) have, file_size, out, &need, err);
        if (st != GALLOC_GGUF_NEED_MORE) {
            break;
        }
        if (need > GALLOC_GGUF_MAX_HEADER) {
            galloc_fail(err, GALLOC_STATUS_LIMIT, "the header is larger than %" PRIu64 " MiB (%" PRIu64 " bytes needed)",
                        GALLOC_GGUF_MAX_HEADER >> 20, need);
            st = GALLOC_GGUF_INVALID;
            break;
        }
        if (ended || need <= have) {
            struct galloc_error why = { GALLOC_STATUS_INVALID, "" };
            if (err) {
                why = *err;
            }
            galloc_fail(err, GALLOC_STATUS_INVALID, "the file ends inside its header: %s", why.message);
            st = GALLOC_GGUF_INVALID;
            break;
        }
        want = next_prefix(have, need, file_size, GALLOC_GGUF_MAX_HEADER);
    }
    free(buf);
    return st;
}
