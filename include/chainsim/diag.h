/* SPDX-License-Identifier: MIT */
/* Errors as values with a location (docs/architecture.md). */
#ifndef CHAINSIM_DIAG_H
#define CHAINSIM_DIAG_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_status {
	CS_OK = 0,
	CS_ERR_INPUT,       /* bad user input: scenario, pushbuffer, cubin, PTX, ELF... */
	CS_ERR_FAULT,       /* a modelled access faulted (guest error, not ours) */
	CS_ERR_UNSUPPORTED, /* valid input the model does not handle */
	CS_ERR_UNAVAILABLE, /* a backend or device that is not present */
	CS_ERR_INTERNAL,    /* our own invariant broke */
	CS_ERR_NOMEM,
} cs_status;

enum { CS_DIAG_MSG_MAX = 512, CS_DIAG_FILE_MAX = 256 };

/* Where the input went wrong: a text position (file:line:col, 1-based) or a
 * byte offset in a binary input. Both unset means "no location". */
typedef struct cs_diag {
	cs_status status;
	char file[CS_DIAG_FILE_MAX];
	uint32_t line;
	uint32_t col;
	bool has_offset;
	uint64_t offset;
	char msg[CS_DIAG_MSG_MAX];
} cs_diag;

CS_API void cs_diag_clear(cs_diag *d);

/* Each setter overwrites the diagnosis; d may be NULL (the error is then dropped). */
CS_API void cs_diag_set(cs_diag *d, cs_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
CS_API void cs_diag_at_text(cs_diag *d, cs_status st, const char *file, uint32_t line,
		     uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
CS_API void cs_diag_at_offset(cs_diag *d, cs_status st, const char *file, uint64_t offset,
		       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* "file:line:col: msg", "file: byte 0x10: msg" or "msg"; returns the length
 * snprintf would have written. */
CS_API int cs_diag_format(const cs_diag *d, char *buf, size_t len);

CS_API const char *cs_status_name(cs_status st);

#ifdef __cplusplus
}
#endif

#endif
