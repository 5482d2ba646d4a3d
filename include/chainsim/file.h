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
	CS_FILE_MAX_TEXT = 16u << 20,    /* a scenario, a GSP map or script */
	CS_FILE_MAX_PTX = 64u << 20,     /* a ptx= file */
	CS_FILE_MAX_BINARY = 256u << 20, /* a module, `load` data, raw pushbuffer bytes, firmware */
};

/* Reads path (what names it in messages: "the scenario", "the map"...) into a
 * malloc'd buffer with a NUL after its len bytes; the caller frees it with
 * free(). False with CS_ERR_INPUT in d (file set to path) for a file that
 * cannot be opened, is not regular, or holds more than cap bytes; CS_ERR_NOMEM
 * when the buffer cannot be had. */
CS_API bool cs_file_read(const char *path, size_t cap, const char *what, char **bytes, size_t *len,
		  cs_diag *d);

#endif
