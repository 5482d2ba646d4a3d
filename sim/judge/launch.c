/* SPDX-License-Identifier: MIT */
/* Stages 6-10 of one launch: install, read, context, dispatch, release. */
#include <string.h>

#include "chainsim/gr.h"
#include "judge.h"

/* ---- stages 6-10 for one launch ---------------------------------------------------------- */

static void name_launch(const lslot *s, char *buf, size_t len)
{
	if (s->id != CS_NONE32)
		snprintf(buf, len, "launch %u", s->id);
	else
		snprintf(buf, len, "the launch");
}

/* A QMD the engine rejected: a field the guest got wrong, or an address that
 * names memory where the guest built no QMD while it built one elsewhere (the
 * forwarding layer's relocation bug). */
static void judge_rejected_qmd(judge *j, const char *ln, const cs_event *e, const char *det)
{
	bool inside;
	size_t b = jg_nearest_build(j, true, e->addr, &inside);
	/* A version the class does not read: what is there is no QMD at all. */
	bool not_a_qmd = e->value != cs_class_qmd_major(e->cls);
	if (b != NONE && !inside && not_a_qmd) {
		char off[64];
		jg_distance_words(e->addr, j->ev[b].addr, off, sizeof(off));
		jg_why(j, 7, CS_CAUSE_QMD_NOT_BUILT,
		     "the QMD of %s at %s was never built: the guest built one at %s (%s), "
		     "and the engine read memory that holds none (%s); point SEND_PCAS_A / "
		     "SET_INLINE_QMD_ADDRESS at the QMD the guest built, or relocate it.", ln,
		     JG_ADDR(j, e->addr), JG_ADDR(j, j->ev[b].addr), off, det);
		return;
	}
	jg_why(j, 7, CS_CAUSE_QMD_REJECTED, "the engine rejected the QMD of %s at %s: %s; fix "
	     "that field in the QMD.", ln, JG_ADDR(j, e->addr), det);
}

/* Fills rows 6..10 of c for launch s; sets j's cause/diag for its not-fired rows. */
void jg_stage_launch(judge *j, const lslot *s, cs_chain *c)
{
	const cs_event *ev = j->ev;
	char ln[32], where[64];
	name_launch(s, ln, sizeof(ln));
	bool ok = true;
	/* 6 qmd-install */
	if (s->install != NONE) {
		const cs_event *e = &ev[s->install];
		jg_row(c, 6, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, s->install, "QMD at %s (%s), %llu bytes",
		     JG_ADDR(j, e->addr), jg_path_name(e->aux), X(e->value));
	} else if (s->shortq != NONE) {
		const cs_event *e = &ev[s->shortq];
		jg_where(e, where, sizeof(where));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, s->shortq,
		     "inline QMD at 0x%llx: %llu of %llu dwords", X(e->addr), X(e->value), X(e->aux));
		jg_why(j, 6, CS_CAUSE_INLINE_QMD_INCOMPLETE,
		     "the inline QMD begun at %s (address 0x%llx) got %llu of its %llu dwords "
		     "(LOAD_INLINE_QMD_DATA) when the guest program ended; the engine installs an "
		     "inline QMD only with its last dword (a model assumption), so the launch was "
		     "never installed: send all %llu dwords.",
		     where, X(e->addr), X(e->value), X(e->aux), X(e->aux));
		ok = false;
	} else if (s->fault_qmd != NONE && ev[s->fault_qmd].stage == CS_STAGE_QMD_INSTALL &&
		   ev[s->fault_qmd].kind == CS_EV_CHANNEL_STOP) {
		const cs_event *e = &ev[s->fault_qmd];
		const char *det = jg_detail(e) ? jg_detail(e) : "refused";
		jg_where(e, where, sizeof(where));
		char mname[64];
		jg_method_label(e->cls, e->method, mname, sizeof(mname));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "%s at %s: %s", mname,
		     where, det);
		bool unset = e->cause == CS_CAUSE_QMD_ADDR_UNMAPPED;
		jg_why(j, 6, unset ? CS_CAUSE_QMD_ADDR_UNMAPPED : CS_CAUSE_QMD_INSTALL_REFUSED,
		     "%s at %s: %s%s; the engine stopped the channel, so the launch was never "
		     "installed.", mname, where, unset ? "the QMD address is unset: " : "", det);
		ok = false;
	} else if (s->fault_qmd != NONE && ev[s->fault_qmd].kind == CS_EV_FAULT) {
		/* No install and the QMD's address faulted: it never was in memory. */
		const cs_event *e = &ev[s->fault_qmd];
		jg_where(e, where, sizeof(where));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD address 0x%llx unmapped",
		     X(e->addr));
		jg_why(j, 6, CS_CAUSE_QMD_ADDR_UNMAPPED,
		     "%s at %s: the QMD address 0x%llx is %s (%s of 0x%llx faulted%s%s); set "
		     "SEND_PCAS_A / SET_INLINE_QMD_ADDRESS to a mapped, 256-byte aligned QMD.", ln,
		     where, X(e->addr), e->addr < 0x1000 ? "unset" : "not mapped",
		     jg_access_word(e->value), X(e->addr), jg_detail(e) ? ": " : "",
		     jg_detail(e) ? jg_detail(e) : "");
		ok = false;
	} else {
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
		jg_why(j, 6, CS_CAUSE_NO_INSTALL, "%s has records but no QMD install", ln);
		ok = false;
	}
	/* 7 qmd-read */
	if (!ok) {
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->read != NONE) {
		const cs_event *e = &ev[s->read];
		jg_row(c, 7, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->read, "QMD %s read at %s",
		     jg_qmd_version((unsigned)e->value), JG_ADDR(j, e->addr));
	} else if (s->reject != NONE) {
		const cs_event *e = &ev[s->reject];
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->reject, "rejected: %s",
		     jg_detail(e) ? jg_detail(e) : "?");
		const char *det = jg_detail(e) ? jg_detail(e) : "no reason given";
		if (e->cause == CS_CAUSE_CODE_UNMAPPED)
			jg_why(j, 7, CS_CAUSE_CODE_UNMAPPED,
			     "the engine rejected the QMD of %s at %s: %s; nothing can run from "
			     "there: upload the kernel's code (module NAME PATH) and point the QMD's "
			     "program at NAME.KERNEL.", ln, JG_ADDR(j, e->addr), det);
		else
			judge_rejected_qmd(j, ln, e, det);
		ok = false;
	} else if (s->fault_qmd != NONE) {
		const cs_event *e = &ev[s->fault_qmd];
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD read at 0x%llx faulted",
		     X(e->addr));
		jg_why(j, 7, CS_CAUSE_QMD_ADDR_UNMAPPED, "the engine could not read the QMD of %s: 0x%llx is %s%s%s.",
		     ln, X(e->addr), e->addr < 0x1000 ? "unset" : "not mapped",
		     jg_detail(e) ? ": " : "", jg_detail(e) ? jg_detail(e) : "");
		ok = false;
	} else {
		const cs_event *in = &ev[s->install];
		jg_where(in, where, sizeof(where));
		char sched[160];
		if (s->schedule == NONE && jg_detail(in)) {
			snprintf(sched, sizeof(sched), "%s", jg_detail(in));
		} else if (s->schedule != NONE) {
			uint32_t a = (uint32_t)ev[s->schedule].value;
			const char *an = cs_pcas2_action_name(a);
			snprintf(sched, sizeof(sched), "SEND_SIGNALING_PCAS2_B action %u (%s) does not "
				 "schedule", a, an ? an : "reserved");
		} else {
			snprintf(sched, sizeof(sched), "no schedule request followed (no "
				 "SEND_SIGNALING_PCAS2_B with a scheduling action)");
		}
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, s->install, "installed, never scheduled");
		jg_why(j, 7, CS_CAUSE_NO_SCHEDULE,
		     "the QMD at 0x%llx was installed at %s but never scheduled: %s; send "
		     "SEND_SIGNALING_PCAS2_B with action 3 (INVALIDATE_COPY_SCHEDULE) or 9 "
		     "(PREFETCH_SCHEDULE).", X(in->addr), where, sched);
		ok = false;
	}
	/* 8 ctx-load */
	if (!ok) {
		jg_row(c, 8, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->ctx != NONE) {
		const cs_event *e = &ev[s->ctx];
		jg_row(c, 8, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->ctx, "%s",
		     jg_detail(e) ? jg_detail(e) : "context valid");
	} else {
		const cs_event *e = s->ctx_bad != NONE ? &ev[s->ctx_bad] : NULL;
		jg_row(c, 8, CS_STAGE_NOT_FIRED, e ? CS_AUTHOR_ENGINE : CS_AUTHOR_NONE,
		     e ? s->ctx_bad : NONE, "%s", e && jg_detail(e) ? jg_detail(e) : "-");
		jg_why(j, 8, CS_CAUSE_CTX_INVALID, "the channel's context was not valid at dispatch of %s: %s.", ln,
		     e && jg_detail(e) ? jg_detail(e) : "the engine recorded no context load");
		ok = false;
	}
	/* 9 gr-dispatch */
	if (!ok) {
		jg_row(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->done != NONE) {
		const cs_event *e = &ev[s->done];
		jg_row(c, 9, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->done, "%llu CTA%s executed%s%s",
		     X(e->value), e->value == 1 ? "" : "s", jg_detail(e) ? ": " : "", jg_detail(e) ? jg_detail(e) : "");
	} else {
		uint64_t prog = s->dispatch != NONE ? ev[s->dispatch].addr : 0;
		uint64_t ctas = s->dispatch != NONE ? ev[s->dispatch].value : 0;
		if (s->fault_grid != NONE) {
			const cs_event *f = &ev[s->fault_grid];
			bool code = f->value == CS_ACCESS_FETCH || (prog && f->addr == prog);
			jg_row(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_grid, "%s fault at 0x%llx",
			     jg_access_word(f->value), X(f->addr));
			if (code)
				jg_why(j, 9, CS_CAUSE_CODE_UNMAPPED,
				     "%s was dispatched to program 0x%llx, which is not mapped (fault at "
				     "0x%llx): upload the kernel's code (module NAME PATH) and point the "
				     "QMD's program at NAME.KERNEL.", ln, X(prog), X(f->addr));
			else
				jg_why(j, 9, CS_CAUSE_GRID_FAULT, "%s faulted while executing: %s at 0x%llx%s%s.", ln,
				     jg_access_word(f->value), X(f->addr),
				     jg_detail(f) ? ": " : "", jg_detail(f) ? jg_detail(f) : "");
		} else if (s->not_run != NONE) {
			const cs_event *e = &ev[s->not_run];
			const char *det = jg_detail(e) ? jg_detail(e) : "not executed";
			/* The engine and the executor each say "dispatched, not executed";
			 * once is enough in a sentence that says it already. */
			static const char prefix[] = "dispatched, not executed: ";
			while (strncmp(det, prefix, sizeof(prefix) - 1) == 0)
				det += sizeof(prefix) - 1;
			cs_cause cause = j->in->no_executor ? CS_CAUSE_NO_EXECUTOR
				       : e->cause ? (cs_cause)e->cause : CS_CAUSE_GRID_NOT_RUN;
			bool limit = cause == CS_CAUSE_CODE_UNSUPPORTED || cause == CS_CAUSE_GRID_BUDGET;
			jg_row(c, 9, limit ? CS_STAGE_NOT_OBSERVABLE : CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE,
			     s->not_run, "dispatched, not executed: %s", det);
			switch (cause) {
			case CS_CAUSE_NO_EXECUTOR:
				jg_why(j, 9, cause,
				     "%s was dispatched (%llu CTA%s at program 0x%llx) but not executed: no "
				     "executor is wired (--no-exec), so execution is unproven.", ln,
				     X(ctas), ctas == 1 ? "" : "s", X(prog));
				break;
			case CS_CAUSE_CODE_UNKNOWN:
				jg_why(j, 9, cause,
				     "%s was dispatched to program 0x%llx, but not executed: %s; a kernel the simulator "
				     "cannot execute is not a kernel that ran: load its module and point "
				     "the QMD's program at NAME.KERNEL.", ln, X(prog), det);
				break;
			case CS_CAUSE_CODE_UNSUPPORTED:
				jg_why(j, 9, cause,
				     "%s was dispatched to program 0x%llx, and the simulator cannot execute "
				     "it: %s. This is a limit of the simulator, not a fault of the guest: "
				     "whether the grid runs is not observable here.", ln, X(prog), det);
				break;
			case CS_CAUSE_GRID_BUDGET:
				jg_why(j, 9, cause,
				     "%s was dispatched to program 0x%llx, and the executor stopped it at "
				     "its budget: %s. This is a limit of the simulator, not a verdict: "
				     "whether the grid completes is not observable here (raise the budget "
				     "with --budget-instructions or --budget-seconds).", ln, X(prog), det);
				break;
			default:
				jg_why(j, 9, cause, "%s was dispatched to program 0x%llx but not "
					    "executed: %s.", ln, X(prog), det);
				break;
			}
			if (limit) {
				jg_row(c, 10, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_NONE, NONE,
				     "the grid was not executed here: its release is unknown");
				return;
			}
		} else {
			jg_row(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, s->dispatch, s->dispatch != NONE ?
			     "dispatched, no outcome" : "-");
			jg_why(j, 9, CS_CAUSE_NO_DISPATCH, "%s was read and its context loaded, but no grid "
				    "outcome was recorded", ln);
		}
		ok = false;
	}
	/* 10 engine-release */
	if (!ok) {
		jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "-");
	} else if (s->release != NONE) {
		const cs_event *e = &ev[s->release];
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->release, "release %s = %llu",
		     JG_ADDR(j, e->addr), X(e->value));
	} else if (s->dependent != NONE) {
		const cs_event *e = &ev[s->dependent];
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->dependent,
		     "completion acted on: dependent QMD 0x%llx scheduled by the engine", X(e->addr));
	} else if (s->fault_release == NONE && s->host_release != NONE &&
		   jg_after_wfi(&ev[s->host_release])) {
		const cs_event *e = &ev[s->host_release];
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_HOST, s->host_release,
		     "host release 0x%llx = %llu with RELEASE_WFI after the grid (assumes the wait "
		     "for idle covers the compute engine)", X(e->addr), X(e->value));
	} else if (s->fault_release != NONE) {
		const cs_event *f = &ev[s->fault_release];
		jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_release,
		     "release to 0x%llx faulted", X(f->addr));
		jg_why(j, 10, CS_CAUSE_RELEASE_FAULT, "%s ran, but its release semaphore write to 0x%llx faulted%s%s; "
			     "map the release address.", ln, X(f->addr), jg_detail(f) ? ": " : "",
		     jg_detail(f) ? jg_detail(f) : "");
	} else if (s->host_release != NONE) {
		const cs_event *e = &ev[s->host_release];
		jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, s->host_release,
		     "host release 0x%llx = %llu without RELEASE_WFI", X(e->addr), X(e->value));
		jg_why(j, 10, CS_CAUSE_RELEASE_UNORDERED,
		     "%s ran, and the only release after it is the host's SEM_EXECUTE to 0x%llx "
		     "(value %llu) without RELEASE_WFI: the front end may write it before the grid "
		     "completes, so it proves nothing; set RELEASE_WFI=EN or release from the QMD.",
		     ln, X(e->addr), X(e->value));
	} else {
		const cs_event *d = &ev[s->done];
		jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, NONE, "no release");
		jg_why(j, 10, CS_CAUSE_RELEASE_DISABLED,
		     "%s ran %llu CTA%s but the engine wrote no release: the QMD enables no release "
		     "semaphore and no report semaphore followed, so the guest cannot learn it "
		     "completed; set release0=ADDR,PAYLOAD in the QMD.", ln, X(d->value),
		     d->value == 1 ? "" : "s");
	}
}
