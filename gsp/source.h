/* SPDX-License-Identifier: MIT */
/* The firmware's source through its DWARF, read with libdw (elfutils): line
 * tables, functions, variables and their types, frames (CFI). gsp/source.c;
 * private to gsp/. */
#ifndef CHAINSIM_GSP_SOURCE_H
#define CHAINSIM_GSP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/gsp.h"

/* NULL when the ELF has no .debug_info (not an error: the commands say so).
 * The bytes are copied; elf_path locates the sources (next to the ELF first,
 * then the compilation directory). */
cs_gsp_source *gsp_source_open(const uint8_t *buf, size_t len, const char *elf_path);
void gsp_source_free(cs_gsp_source *s);

/* The line of pc; *stmt_start when pc begins a statement's row. file is the
 * path the line table names (valid while s lives). */
bool gsp_source_line(const cs_gsp_source *s, uint64_t pc, const char **file, unsigned *line,
		     bool *stmt_start);
/* "FILE:LINE" (FILE matched by its last path component) to the lowest address
 * of the first line at or after LINE with code; *at_line gets that line. */
bool gsp_source_addr(const cs_gsp_source *s, const char *file, unsigned line, uint64_t *addr,
		     unsigned *at_line, cs_diag *d);
/* Where a function is declared (for `list FUNC`). */
bool gsp_source_func(const cs_gsp_source *s, const char *name, const char **file, unsigned *line);
/* Prints lines [first, last] of file, marking `mark` with "=>". */
bool gsp_source_list(const cs_gsp_source *s, const char *file, unsigned first, unsigned last,
		     unsigned mark, FILE *out, cs_diag *d);

/* `print` of a DWARF expression: NAME{.FIELD|[N]|->FIELD}, optional leading
 * '*' or '&': a local in scope in frame `frame` (0 innermost) or a global,
 * with its type. Returns false without setting d (status stays CS_OK) when
 * the expression names no DWARF variable, so the caller can fall back to
 * plain expressions. */
bool gsp_source_print(cs_gsp *m, const cs_gsp_source *s, int frame, const char *expr, FILE *out, cs_diag *d);
/* `print` of a cast: [*](TYPE)OPERAND or [*]((TYPE)OPERAND)PATH, TYPE a type
 * of the DWARF (struct|union|enum NAME, a typedef, a base type) or C integer
 * words, with '*'s; OPERAND a variable path of scalar type, else a plain
 * expression evaluated by eval. 1: printed; 0: no cast here (the caller goes
 * on); -1: an error in d. */
int gsp_source_print_cast(cs_gsp *m, const cs_gsp_source *s, int frame, const char *expr,
			  bool (*eval)(cs_gsp *, const char *, uint64_t *, cs_diag *), FILE *out, cs_diag *d);
/* The variables in scope in frame `frame`, with types and values. */
bool gsp_source_locals(cs_gsp *m, const cs_gsp_source *s, int frame, FILE *out, cs_diag *d);
/* The pc of frame n, unwound through .debug_frame (0: the machine's), and
 * when x is not NULL its integer registers (bit i of *known: x[i] recovered). */
bool gsp_source_frame(cs_gsp *m, const cs_gsp_source *s, int n, uint64_t *pc, uint64_t x[32], uint32_t *known,
		      cs_diag *d);

#endif
