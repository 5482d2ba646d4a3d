/* SPDX-License-Identifier: MIT */
/* Reading an input file: only a regular file is read, and never more than a
 * cap, so that /dev/zero, a FIFO or a folder given as input is bad input with
 * a message, not a hang or memory exhausted (docs/scenario.md, "Input limits"). */
#ifndef CHAINSIM_FILE_H
#define CHAINSIM_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "chainsim/api.h"
#include "chainsim/diag.h"

/* The documented caps, in bytes. */
enum {
	CS_FILE_MAX_TEXT = 16u << 20,    /* a scenario, a GSP map or script, a conform result */
	CS_FILE_MAX_PTX = 64u << 20,     /* a ptx= file */
	CS_FILE_MAX_BINARY = 256u << 20, /* a module, `load` data, raw pushbuffer bytes, firmware */
};

/* The path that means standard input, as on every command line. */
#define CS_FILE_STDIN "-"

/* Reads path (what names it in messages: "the scenario", "the map"...) into a
 * malloc'd buffer with a NUL after its len bytes; the caller frees it with
 * free(). False with CS_ERR_INPUT in d (file set to path) for a file that
 * cannot be opened, is not regular, or holds more than cap bytes; CS_ERR_NOMEM
 * when the buffer cannot be had. Path CS_FILE_STDIN reads standard input to
 * its end, whatever it is (a pipe, a terminal), under the same cap. */
CS_API bool cs_file_read(const char *path, size_t cap, const char *what, char **bytes, size_t *len,
		  cs_diag *d);

/* The name a path goes by in messages and reports: "<stdin>" for
 * CS_FILE_STDIN, else the path itself. */
CS_API const char *cs_file_name(const char *path);

#endif
