/* SPDX-License-Identifier: MIT */
/* Fences and hints that change no result: membar, fence, nanosleep, prefetch,
 * prefetchu, pmevent. */
#include "ptx_build.h"

bool ptx_build_membar(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	stmt_take(s, ".gl");
	stmt_take(s, ".proxy");
	ins->op = OP_MEMBAR;
	return pp_nops(P, s, 0, 0);
}

bool ptx_build_hint(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)P;
	(void)form;
	ins->op = OP_NOP;
	for (int i = 0; i < s->nmods; i++)
		s->used[i] = true;
	return true;
}
