/* SPDX-License-Identifier: MIT */
/* Private to ptxrun/exec/: what the device's vprintf prints, formatted on the
 * host from the format string and argument buffer in the kernel's memory. */
#ifndef CS_PTX_PRINTF_H
#define CS_PTX_PRINTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads n bytes of the kernel's memory at generic address va; false when the
 * read faults (the reader records why). */
typedef struct ptx_reader {
	void *ctx;
	bool (*read)(void *ctx, uint64_t va, void *dst, size_t n);
} ptx_reader;

/* The most a string read from kernel memory (a format, or a %s argument) may
 * be, and the most one printf prints; longer ones are cut there. */
enum { PTX_PRINTF_STRING_MAX = 1024, PTX_PRINTF_OUT_MAX = 4096 };

/* Formats vprintf(fmt, args) as CUDA's device printf does: the format string
 * at generic address fmt, the arguments packed at args, each at the next
 * multiple of its size (4 bytes for int and char conversions, 8 for l/ll
 * integers, doubles, pointers and %s). Conversions: d i u o x X c s f F e E g
 * G a A p %, with flags, width, precision (also `*`) and length modifiers;
 * anything else is copied as written. out gets at most cap - 1 chars and a
 * NUL; *nargs the arguments consumed. False when a read faults. */
bool ptx_printf_format(const ptx_reader *rd, uint64_t fmt, uint64_t args, char *out, size_t cap,
		       int *nargs);

/* A NUL-terminated string at generic address va, cut at cap - 1 chars. */
bool ptx_printf_read_string(const ptx_reader *rd, uint64_t va, char *out, size_t cap);

#endif
