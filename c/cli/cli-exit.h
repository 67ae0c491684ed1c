// cli-exit.h: the galloc CLI's exit statuses, and the one table from library statuses to them.
//
// Exit status: 0 success (plans equal), 1 plans differ (galloc model --fit: no fit), 2 usage error (also an unknown
// preset), 3 invalid input or an input past a limit, 4 file error, 5 out of memory,
// 6 a valid input the what-if analysis declines (too many items live at once).

#pragma once

#include "galloc-status.h"

enum exit_code {
    EXIT_OK     = 0,
    EXIT_DIFFER = 1,
    EXIT_NO_FIT = 1,   // galloc model --fit: llama.cpp's --fit fails (llama-fit-params exits 1 too)
    EXIT_USAGE  = 2,
    EXIT_INPUT  = 3,
    EXIT_FILE   = 4,
    EXIT_MEMORY = 5,
    EXIT_DECLINED = 6, // a valid input the what-if analysis declines (--compare, compare)
};

// the exit status for a failure of the library (or of the CLI's file I/O) with this status
int cli_exit_code(enum galloc_status status);
