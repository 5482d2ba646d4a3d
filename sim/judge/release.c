/* SPDX-License-Identifier: MIT */
/* Stage 10's rules when engine work (a launch's grid, a copy or an
 * inline-to-memory write) wrote no release of its own: the host release after
 * it proves the work done only with RELEASE_WFI. The launch path (launch.c)
 * and the path without a launch (judge.c) both judge through these. */
#include "judge.h"

void jg_host_release_after(judge *j, cs_chain *c, size_t rel, const jg_work *w)
{
	const cs_event *h = &j->ev[rel];
	if (jg_after_wfi(h)) {
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_HOST, rel,
		       "host release 0x%llx = %llu with RELEASE_WFI after the %s (assumes the wait "
		       "for idle covers %s)", JG_U(h->addr), JG_U(h->value), w->work, w->engine);
		return;
	}
	jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, rel,
	       "host release 0x%llx = %llu without RELEASE_WFI", JG_U(h->addr), JG_U(h->value));
	jg_why(j, 10, CS_CAUSE_RELEASE_UNORDERED,
	       "%s, and the only release after it is the host's SEM_EXECUTE to 0x%llx (value %llu) "
	       "without RELEASE_WFI: %s, so it proves nothing; set RELEASE_WFI=EN%s.", w->done,
	       JG_U(h->addr), JG_U(h->value), w->risk, w->other_fix);
}

void jg_no_release(judge *j, cs_chain *c, const jg_work *w)
{
	jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "no release");
	jg_why(j, 10, CS_CAUSE_RELEASE_DISABLED, "%s but %swrote no release%s", w->done,
	       w->writer, w->unlearned);
}
