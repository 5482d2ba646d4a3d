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
	if (b != JG_NONE && !inside && not_a_qmd) {
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

/* Stage 6: the QMD in memory (an install), or why not. */
/* The QMD's address is unset or unmapped: the install stopped the channel
 * (stage 6, e a channel stop by who at where), its address faulted (stage 6,
 * e the fault), or the engine's read of it faulted (stage 7). */
static void why_qmd_addr_unmapped(judge *j, cs_stage st, const cs_event *e, const char *who,
				  const char *where)
{
	char msg[sizeof(j->diag[0])];
	const char *state = e->addr < 0x1000 ? "unset" : "not mapped";
	const char *det = jg_detail(e);
	if (st == CS_STAGE_QMD_INSTALL && e->kind == CS_EV_CHANNEL_STOP)
		snprintf(msg, sizeof(msg), "%s at %s: the QMD address is unset: %s; the engine "
			 "stopped the channel, so the launch was never installed.", who, where,
			 det ? det : "refused");
	else if (st == CS_STAGE_QMD_INSTALL)
		snprintf(msg, sizeof(msg), "%s at %s: the QMD address 0x%llx is %s (%s of 0x%llx "
			 "faulted%s%s); set SEND_PCAS_A / SET_INLINE_QMD_ADDRESS to a mapped, 256-byte "
			 "aligned QMD.", who, where, JG_U(e->addr), state, jg_access_word(e->value),
			 JG_U(e->addr), det ? ": " : "", det ? det : "");
	else
		snprintf(msg, sizeof(msg), "the engine could not read the QMD of %s: 0x%llx is %s%s%s.",
			 who, JG_U(e->addr), state, det ? ": " : "", det ? det : "");
	jg_why(j, st, CS_CAUSE_QMD_ADDR_UNMAPPED, "%s", msg);
}

/* The kernel's code is not mapped: the engine rejected the QMD for it (stage
 * 7, e the rejection, det its reason), or the grid faulted fetching it
 * (stage 9, e the fault, prog the program address). */
static void why_code_unmapped(judge *j, cs_stage st, const char *ln, const cs_event *e,
			      const char *det, uint64_t prog)
{
	char msg[sizeof(j->diag[0])];
	if (st == CS_STAGE_QMD_READ)
		snprintf(msg, sizeof(msg), "the engine rejected the QMD of %s at %s: %s; nothing can "
			 "run from there", ln, JG_ADDR(j, e->addr), det);
	else
		snprintf(msg, sizeof(msg), "%s was dispatched to program 0x%llx, which is not mapped "
			 "(fault at 0x%llx)", ln, JG_U(prog), JG_U(e->addr));
	jg_why(j, st, CS_CAUSE_CODE_UNMAPPED, "%s: upload the kernel's code (module NAME PATH) and "
	       "point the QMD's program at NAME.KERNEL.", msg);
}

static bool stage_install(judge *j, const lslot *s, cs_chain *c, const char *ln)
{
	const cs_event *ev = j->ev;
	char where[64];
	if (s->install != JG_NONE) {
		const cs_event *e = &ev[s->install];
		jg_row(c, 6, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, s->install, "QMD at %s (%s), %llu bytes",
		     JG_ADDR(j, e->addr), jg_path_name(e->aux), JG_U(e->value));
	} else if (s->shortq != JG_NONE) {
		const cs_event *e = &ev[s->shortq];
		jg_where(e, where, sizeof(where));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, s->shortq,
		     "inline QMD at 0x%llx: %llu of %llu dwords", JG_U(e->addr), JG_U(e->value), JG_U(e->aux));
		jg_why(j, 6, CS_CAUSE_INLINE_QMD_INCOMPLETE,
		     "the inline QMD begun at %s (address 0x%llx) got %llu of its %llu dwords "
		     "(LOAD_INLINE_QMD_DATA) when the guest program ended; the engine installs an "
		     "inline QMD only with its last dword (a model assumption), so the launch was "
		     "never installed: send all %llu dwords.",
		     where, JG_U(e->addr), JG_U(e->value), JG_U(e->aux), JG_U(e->aux));
		return false;
	} else if (s->fault_qmd != JG_NONE && ev[s->fault_qmd].stage == CS_STAGE_QMD_INSTALL &&
		   ev[s->fault_qmd].kind == CS_EV_CHANNEL_STOP) {
		const cs_event *e = &ev[s->fault_qmd];
		const char *det = jg_detail(e) ? jg_detail(e) : "refused";
		jg_where(e, where, sizeof(where));
		char mname[64];
		jg_method_label(e->cls, e->method, mname, sizeof(mname));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "%s at %s: %s", mname,
		     where, det);
		if (e->cause == CS_CAUSE_QMD_ADDR_UNMAPPED)
			why_qmd_addr_unmapped(j, 6, e, mname, where);
		else
			jg_why(j, 6, CS_CAUSE_QMD_INSTALL_REFUSED, "%s at %s: %s; the engine stopped the "
			       "channel, so the launch was never installed.", mname, where, det);
		return false;
	} else if (s->fault_qmd != JG_NONE && ev[s->fault_qmd].kind == CS_EV_FAULT) {
		/* No install and the QMD's address faulted: it never was in memory. */
		const cs_event *e = &ev[s->fault_qmd];
		jg_where(e, where, sizeof(where));
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD address 0x%llx unmapped",
		     JG_U(e->addr));
		why_qmd_addr_unmapped(j, 6, e, ln, where);
		return false;
	} else {
		jg_row(c, 6, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
		jg_why(j, 6, CS_CAUSE_NO_INSTALL, "%s has records but no QMD install", ln);
		return false;
	}
	return true;
}

/* Stage 7: the engine read and accepted the QMD, or why not. */
static bool stage_read(judge *j, const lslot *s, cs_chain *c, const char *ln)
{
	const cs_event *ev = j->ev;
	char where[64];
	if (s->read != JG_NONE) {
		const cs_event *e = &ev[s->read];
		jg_row(c, 7, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->read, "QMD %s read at %s",
		     jg_qmd_version((unsigned)e->value), JG_ADDR(j, e->addr));
	} else if (s->reject != JG_NONE) {
		const cs_event *e = &ev[s->reject];
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->reject, "rejected: %s",
		     jg_detail(e) ? jg_detail(e) : "?");
		const char *det = jg_detail(e) ? jg_detail(e) : "no reason given";
		if (e->cause == CS_CAUSE_CODE_UNMAPPED)
			why_code_unmapped(j, 7, ln, e, det, 0);
		else
			judge_rejected_qmd(j, ln, e, det);
		return false;
	} else if (s->fault_qmd != JG_NONE) {
		const cs_event *e = &ev[s->fault_qmd];
		jg_row(c, 7, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_qmd, "QMD read at 0x%llx faulted",
		     JG_U(e->addr));
		why_qmd_addr_unmapped(j, 7, e, ln, NULL);
		return false;
	} else {
		const cs_event *in = &ev[s->install];
		jg_where(in, where, sizeof(where));
		char sched[160];
		if (s->schedule == JG_NONE && jg_detail(in)) {
			snprintf(sched, sizeof(sched), "%s", jg_detail(in));
		} else if (s->schedule != JG_NONE) {
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
		     "(PREFETCH_SCHEDULE).", JG_U(in->addr), where, sched);
		return false;
	}
	return true;
}

/* Stage 8: the channel's context at dispatch. */
static bool stage_ctx(judge *j, const lslot *s, cs_chain *c, const char *ln)
{
	const cs_event *ev = j->ev;
	if (s->ctx != JG_NONE) {
		const cs_event *e = &ev[s->ctx];
		jg_row(c, 8, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->ctx, "%s",
		     jg_detail(e) ? jg_detail(e) : "context valid");
	} else {
		const cs_event *e = s->ctx_bad != JG_NONE ? &ev[s->ctx_bad] : NULL;
		jg_row(c, 8, CS_STAGE_NOT_FIRED, e ? CS_AUTHOR_ENGINE : CS_AUTHOR_NONE,
		     e ? s->ctx_bad : JG_NONE, "%s", e && jg_detail(e) ? jg_detail(e) : "-");
		jg_why(j, 8, CS_CAUSE_CTX_INVALID, "the channel's context was not valid at dispatch of %s: %s.", ln,
		     e && jg_detail(e) ? jg_detail(e) : "the engine recorded no context load");
		return false;
	}
	return true;
}

/* Stage 9's row and cause for a grid dispatched but not executed; true when
 * that is a limit of the simulator (not observable), not a verdict. */
static bool grid_not_run(judge *j, const lslot *s, cs_chain *c, const char *ln, uint64_t prog,
			 uint64_t ctas)
{
	const cs_event *e = &j->ev[s->not_run];
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
		     JG_U(ctas), ctas == 1 ? "" : "s", JG_U(prog));
		break;
	case CS_CAUSE_CODE_UNKNOWN:
		jg_why(j, 9, cause,
		     "%s was dispatched to program 0x%llx, but not executed: %s; a kernel the simulator "
		     "cannot execute is not a kernel that ran: load its module and point "
		     "the QMD's program at NAME.KERNEL.", ln, JG_U(prog), det);
		break;
	case CS_CAUSE_CODE_UNSUPPORTED:
		jg_why(j, 9, cause,
		     "%s was dispatched to program 0x%llx, and the simulator cannot execute "
		     "it: %s. This is a limit of the simulator, not a fault of the guest: "
		     "whether the grid runs is not observable here.", ln, JG_U(prog), det);
		break;
	case CS_CAUSE_GRID_BUDGET:
		jg_why(j, 9, cause,
		     "%s was dispatched to program 0x%llx, and the executor stopped it at "
		     "its budget: %s. This is a limit of the simulator, not a verdict: "
		     "whether the grid completes is not observable here (raise the budget "
		     "with --budget-instructions or --budget-seconds).", ln, JG_U(prog), det);
		break;
	default:
		jg_why(j, 9, cause, "%s was dispatched to program 0x%llx but not "
			    "executed: %s.", ln, JG_U(prog), det);
		break;
	}
	return limit;
}

/* How stage 9 ended for a launch. */
typedef enum grid_outcome { GRID_RAN, GRID_BROKE, GRID_UNKNOWN } grid_outcome;

/* Stage 9: the grid ran, or why not. */
static grid_outcome stage_dispatch(judge *j, const lslot *s, cs_chain *c, const char *ln)
{
	const cs_event *ev = j->ev;
	if (s->done != JG_NONE) {
		const cs_event *e = &ev[s->done];
		jg_row(c, 9, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->done, "%llu CTA%s executed%s%s",
		       JG_U(e->value), e->value == 1 ? "" : "s", jg_detail(e) ? ": " : "",
		       jg_detail(e) ? jg_detail(e) : "");
		return GRID_RAN;
	}
	uint64_t prog = s->dispatch != JG_NONE ? ev[s->dispatch].addr : 0;
	uint64_t ctas = s->dispatch != JG_NONE ? ev[s->dispatch].value : 0;
	if (s->fault_grid != JG_NONE) {
		const cs_event *f = &ev[s->fault_grid];
		bool code = f->value == CS_ACCESS_FETCH || (prog && f->addr == prog);
		jg_row(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_grid, "%s fault at 0x%llx",
		     jg_access_word(f->value), JG_U(f->addr));
		if (code)
			why_code_unmapped(j, 9, ln, f, NULL, prog);
		else
			jg_why(j, 9, CS_CAUSE_GRID_FAULT, "%s faulted while executing: %s at 0x%llx%s%s.", ln,
			     jg_access_word(f->value), JG_U(f->addr),
			     jg_detail(f) ? ": " : "", jg_detail(f) ? jg_detail(f) : "");
	} else if (s->not_run != JG_NONE) {
		if (grid_not_run(j, s, c, ln, prog, ctas))
			return GRID_UNKNOWN;
	} else {
		jg_row(c, 9, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, s->dispatch, s->dispatch != JG_NONE ?
		     "dispatched, no outcome" : "-");
		jg_why(j, 9, CS_CAUSE_NO_DISPATCH, "%s was read and its context loaded, but no grid "
			    "outcome was recorded", ln);
	}
	return GRID_BROKE;
}

/* Stage 10: the engine's release, or what stands for one, or why none. */
static void stage_release(judge *j, const lslot *s, cs_chain *c, const char *ln)
{
	const cs_event *ev = j->ev;
	char done[64];
	jg_work w = { .done = done, .work = "grid", .engine = "the compute engine",
		      .risk = "the front end may write it before the grid completes",
		      .other_fix = " or release from the QMD", .writer = "the engine ",
		      .unlearned = ": the QMD enables no release semaphore and no report semaphore "
				   "followed, so the guest cannot learn it completed; set "
				   "release0=ADDR,PAYLOAD in the QMD." };
	if (s->release != JG_NONE) {
		const cs_event *e = &ev[s->release];
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->release, "release %s = %llu",
		       JG_ADDR(j, e->addr), JG_U(e->value));
	} else if (s->dependent != JG_NONE) {
		const cs_event *e = &ev[s->dependent];
		jg_row(c, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, s->dependent,
		       "completion acted on: dependent QMD 0x%llx scheduled by the engine",
		       JG_U(e->addr));
	} else if (s->fault_release == JG_NONE && s->host_release != JG_NONE) {
		snprintf(done, sizeof(done), "%s ran", ln);
		jg_host_release_after(j, c, s->host_release, &w);
	} else if (s->fault_release != JG_NONE) {
		const cs_event *f = &ev[s->fault_release];
		jg_row(c, 10, CS_STAGE_NOT_FIRED, CS_AUTHOR_ENGINE, s->fault_release,
		       "release to 0x%llx faulted", JG_U(f->addr));
		jg_why(j, 10, CS_CAUSE_RELEASE_FAULT,
		       "%s ran, but its release semaphore write to 0x%llx faulted%s%s; map the "
		       "release address.", ln, JG_U(f->addr), jg_detail(f) ? ": " : "",
		       jg_detail(f) ? jg_detail(f) : "");
	} else {
		const cs_event *d = &ev[s->done];
		snprintf(done, sizeof(done), "%s ran %llu CTA%s", ln, JG_U(d->value),
			 d->value == 1 ? "" : "s");
		jg_no_release(j, c, &w);
	}
}

/* A stage after one that did not fire: not fired, no record. */
static void dash(cs_chain *c, int st)
{
	jg_row(c, (cs_stage)st, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
}

/* Fills rows 6..10 of c for launch s; sets j's cause/diag for its not-fired
 * rows. */
void jg_stage_launch(judge *j, const lslot *s, cs_chain *c)
{
	char ln[32];
	name_launch(s, ln, sizeof(ln));
	bool ok = stage_install(j, s, c, ln);
	if (ok)
		ok = stage_read(j, s, c, ln);
	else
		dash(c, 7);
	if (ok)
		ok = stage_ctx(j, s, c, ln);
	else
		dash(c, 8);
	grid_outcome g = GRID_BROKE;
	if (ok)
		g = stage_dispatch(j, s, c, ln);
	else
		dash(c, 9);
	if (g == GRID_UNKNOWN)
		jg_row(c, 10, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_NONE, JG_NONE,
		       "the grid was not executed here: its release is unknown");
	else if (g == GRID_RAN)
		stage_release(j, s, c, ln);
	else
		dash(c, 10);
}
