// cli-exit.c: library statuses to exit statuses (see cli-exit.h), the CLI's one table of them.

#include "cli-exit.h"

static const int exit_codes[GALLOC_STATUS_COUNT] = {
    [GALLOC_STATUS_OK]        = EXIT_OK,
    [GALLOC_STATUS_INVALID]   = EXIT_INPUT,
    [GALLOC_STATUS_LIMIT]     = EXIT_INPUT,
    [GALLOC_STATUS_NO_MEMORY] = EXIT_MEMORY,
    [GALLOC_STATUS_ARGUMENT]  = EXIT_USAGE,
    [GALLOC_STATUS_NOT_FOUND] = EXIT_USAGE,
    [GALLOC_STATUS_IO]        = EXIT_FILE,
    [GALLOC_STATUS_DECLINED]  = EXIT_DECLINED,
};

int cli_exit_code(enum galloc_status status) {
    return (int) status >= 0 && status < GALLOC_STATUS_COUNT ? exit_codes[status] : EXIT_INPUT;
}
