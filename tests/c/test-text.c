// test-text.c: messages are one line of safe text, whatever the input quoted in them holds.
//
// galloc_fail (and so every library message) turns control characters from a name into '?'
// and, when a message is cut at its size, never leaves half a UTF-8 character at the end.

#include "check.h"
#include "galloc-error.h"

#include <string.h>

static void test_control_characters(void) {
    struct galloc_error err;
    galloc_fail(&err, GALLOC_STATUS_INVALID, "tensor '%s': bad", "a\nb\x1b[31m\r\x07\x7f\xc2\x9b!");
    CHECK(strcmp(err.message, "tensor 'a?b?[31m?" "?" "?" "?" "?" "!': bad") == 0); // split: no trigraphs
    CHECK(err.status == GALLOC_STATUS_INVALID);
    galloc_fail(&err, GALLOC_STATUS_INVALID, "%s", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); // é € 😀 stay
    CHECK(strcmp(err.message, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == 0);
}

static void test_cut_on_character_boundary(void) {
    struct galloc_error err;
    char                name[GALLOC_ERROR_SIZE + 8];
    for (int shift = 0; shift < 4; shift++) {
        // shift ASCII bytes, then 4-byte characters past the end of the message
        size_t n = 0;
        for (int k = 0; k < shift; k++) {
            name[n++] = 'x';
        }
        while (n + 4 < sizeof(name)) {
            memcpy(name + n, "\xf0\x9f\x98\x80", 4);
            n += 4;
        }
        name[n] = '\0';
        galloc_fail(&err, GALLOC_STATUS_INVALID, "%s", name);
        size_t len = strlen(err.message);
        CHECK(len < GALLOC_ERROR_SIZE && (len - (size_t) shift) % 4 == 0); // whole characters only
    }
}

int main(void) {
    RUN(test_control_characters);
    RUN(test_cut_on_character_boundary);
    return check_report("test-text");
}
