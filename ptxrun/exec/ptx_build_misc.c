/* SPDX-License-Identifier: MIT */
/* Fences, hints and grid dependency controls that change no result on the
 * model: membar, fence, nanosleep, prefetch, prefetchu, pmevent, griddepcontrol. */
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

/* griddepcontrol.wait and griddepcontrol.launch_dependents (sm_90 and later,
 * docs/cooperative.md). chainsim runs a grid only once every grid before it
 * has completed, so when .wait runs its prerequisite grids have completed and
 * their writes are visible; .launch_dependents lets dependents start early, a
 * permission a schedule may leave unused. Both run as no-ops. */
bool ptx_build_griddepcontrol(pp *P, stmt *s, ptx_ins *ins, int form)
{
	(void)form;
	bool wait = stmt_take(s, ".wait"), launch = stmt_take(s, ".launch_dependents");
	if (wait == launch) {
		pp_err(P, &s->optok, CS_ERR_INPUT,
		       "griddepcontrol takes one of .wait and .launch_dependents");
		return false;
	}
	if (!pp_target_has_clusters(P)) {
		pp_err(P, &s->optok, CS_ERR_INPUT, "griddepcontrol requires sm_90 or later (.target %s)",
		       P->p->target);
		return false;
	}
	ins->op = OP_NOP;
	return pp_nops(P, s, 0, 0);
}
