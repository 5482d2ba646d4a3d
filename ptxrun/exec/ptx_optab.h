/* SPDX-License-Identifier: MIT */
/* The PTX opcode table: one row per base opcode name (the text before the
 * first '.'), sorted by name, naming the builder of its instruction family. */
#ifndef CS_PTX_OPTAB_H
#define CS_PTX_OPTAB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pp pp;
typedef struct stmt stmt;
typedef struct ptx_ins ptx_ins;

/* Checks statement s and fills ins; form is the row's per-opcode constant. */
typedef bool ptx_builder(pp *P, stmt *s, ptx_ins *ins, int form);

typedef struct ptx_opcode {
	const char *name;
	ptx_builder *build;
	int form;    /* which opcode of its builder's family (ptx_build.h says per builder) */
	bool lowers; /* the builder emits instructions itself and gets no ins */
} ptx_opcode;

extern const ptx_opcode ptx_opcodes[];
extern const size_t ptx_opcode_count;

/* The row of base opcode name, or NULL for one the model does not know. */
const ptx_opcode *ptx_opcode_find(const char *name);

#endif
