/* SPDX-License-Identifier: MIT */
/* Stages 1-5 and 11, scenario wide: build, submit, forward, fetch, execute,
 * wake; a stopped channel's diagnosis. */

#include "chainsim/fe.h"
#include "chainsim/registry.h"
#include "judge.h"

/* ---- stages 1-5 and 11 (scenario wide) -------------------------------------------------- */

void jg_stage_build(judge *j, cs_chain *c)
{
	size_t pbs = 0, first_pb = JG_NONE, first_qmd = JG_NONE;
	uint64_t dwords = 0;
	bool fetched = false;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_GUEST_BUILD) {
			if (e->aux) {
				if (first_qmd == JG_NONE)
					first_qmd = i;
			} else {
				pbs++;
				dwords += e->value;
				if (first_pb == JG_NONE)
					first_pb = i;
			}
		}
		if (e->kind == CS_EV_GP_FETCH && e->value)
			fetched = true;
	}
	char qmd[96] = "";
	if (first_qmd != JG_NONE)
		snprintf(qmd, sizeof(qmd), "%sQMD %s built at %s", first_pb != JG_NONE ? ", " : "",
			 jg_qmd_version((unsigned)j->ev[first_qmd].aux),
			 JG_ADDR(j, j->ev[first_qmd].addr));
	if (first_pb != JG_NONE) {
		const cs_event *e = &j->ev[first_pb];
		if (pbs == 1)
			jg_row(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_pb,
			     "%llu dword%s in pushbuffer %s%s", JG_U(e->value), e->value == 1 ? "" : "s",
			     JG_ADDR(j, e->addr), qmd);
		else
			jg_row(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_pb,
			     "%zu pushbuffers, %llu dwords%s", pbs, JG_U(dwords), qmd);
	} else if (first_qmd != JG_NONE) {
		jg_row(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, first_qmd, "%s", qmd);
	} else if (fetched) {
		jg_row(c, 1, CS_STAGE_FIRED, CS_AUTHOR_GUEST, JG_NONE,
		     "stream written as raw memory (no build record)");
	} else {
		jg_row(c, 1, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
		jg_why(j, 1, CS_CAUSE_NO_BUILD, "the guest built no pushbuffer and no QMD, and the front end "
			   "fetched no stream: there is nothing to launch");
	}
}

/* Nothing was submitted: GP_PUT written with its old value (put), or never
 * written (put NULL). */
static void why_no_submit(judge *j, const cs_event *put)
{
	char msg[sizeof(j->diag[0])];
	if (put)
		snprintf(msg, sizeof(msg), "the guest wrote GP_PUT = %llu, its old value: no GPFIFO "
			 "entry was pushed before `submit`, so nothing was submitted", JG_U(put->value));
	else
		snprintf(msg, sizeof(msg), "the guest never wrote GP_PUT nor rang the doorbell: add "
			 "`gpfifo` entries and a `submit`");
	jg_why(j, 2, CS_CAUSE_NO_SUBMIT, "%s", msg);
}

void jg_stage_submit(judge *j, cs_chain *c)
{
	size_t put = JG_NONE, advanced = JG_NONE, bell = JG_NONE, fwd = JG_NONE, nsub = 0;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_GP_PUT) {
			if (put == JG_NONE)
				put = i;
			if (e->value != e->aux) {
				nsub++;
				if (advanced == JG_NONE)
					advanced = i;
			}
		} else if (e->kind == CS_EV_DOORBELL && bell == JG_NONE) {
			bell = i;
		} else if (e->kind == CS_EV_HOST_FORWARD && e->value && e->aux == CS_HOST_FORWARD_RING &&
			   fwd == JG_NONE) {
			fwd = i;
		}
	}
	if (advanced != JG_NONE && bell != JG_NONE) {
		const cs_event *e = &j->ev[advanced];
		if (nsub > 1)
			jg_row(c, 2, CS_STAGE_FIRED, CS_AUTHOR_GUEST, advanced,
			     "GP_PUT %llu -> %llu, doorbell (%zu submits)", JG_U(e->aux), JG_U(e->value), nsub);
		else
			jg_row(c, 2, CS_STAGE_FIRED, CS_AUTHOR_GUEST, advanced, "GP_PUT %llu -> %llu, doorbell",
			     JG_U(e->aux), JG_U(e->value));
	} else if (advanced != JG_NONE) {
		const cs_event *e = &j->ev[advanced];
		jg_row(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_GUEST, advanced, "GP_PUT %llu -> %llu, no doorbell",
		     JG_U(e->aux), JG_U(e->value));
		jg_why(j, 2, CS_CAUSE_NO_DOORBELL, "the guest advanced GP_PUT to %llu but never rang the "
			   "doorbell, so the front end was never told to fetch", JG_U(e->value));
	} else if (put != JG_NONE) {
		jg_row(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_GUEST, put, "GP_PUT written unchanged (%llu)",
		     JG_U(j->ev[put].value));
		why_no_submit(j, &j->ev[put]);
	} else {
		jg_row(c, 2, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
		why_no_submit(j, NULL);
	}
	size_t wrong = JG_NONE; /* the first forwarding edit the device found wrong */
	for (size_t i = 0; i < j->n && wrong == JG_NONE; i++)
		if (j->ev[i].kind == CS_EV_HOST_EDIT && j->ev[i].cause)
			wrong = i;
	if (wrong != JG_NONE) {
		const cs_event *e = &j->ev[wrong];
		jg_row(c, 3, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, wrong, "%s",
		     jg_detail(e) ? jg_detail(e) : "a wrong edit");
		jg_why(j, 3, (cs_cause)e->cause, "%s: the host forwarded something that is not the "
		       "relocated copy of what the guest built.", jg_detail(e) ? jg_detail(e) : "");
	} else if (fwd != JG_NONE) {
		const cs_event *e = &j->ev[fwd];
		jg_row(c, 3, CS_STAGE_FIRED, CS_AUTHOR_HOST, fwd, "%s",
		     jg_detail(e) ? jg_detail(e) : "forwarded");
	} else {
		size_t none = JG_NONE; /* the device's record of a forward that put nothing on the ring */
		for (size_t i = 0; i < j->n && none == JG_NONE; i++)
			if (j->ev[i].kind == CS_EV_HOST_FORWARD && j->ev[i].aux == CS_HOST_FORWARD_RING)
				none = i;
		const char *what = none != JG_NONE ? jg_detail(&j->ev[none]) : NULL;
		jg_row(c, 3, CS_STAGE_NOT_FIRED, none != JG_NONE ? CS_AUTHOR_HOST : CS_AUTHOR_NONE, none,
		       "%s", what ? what : "-");
		jg_why(j, 3, CS_CAUSE_NO_FORWARD, "the host forwarded no GPFIFO entry onto its ring%s%s%s",
		       what ? " (" : "", what ? what : "", what ? ")" : "");
	}
}



static bool is_engine_unit(uint8_t unit)
{
	return unit == CS_UNIT_COMPUTE || unit == CS_UNIT_COPY || unit == CS_UNIT_SM;
}

stopinfo jg_first_stop(const judge *j)
{
	stopinfo si = { JG_NONE, JG_NONE, false };
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind != CS_EV_CHANNEL_STOP)
			continue;
		if (e->unit != CS_UNIT_FE) {
			/* An engine's stop: the front end's follows on the same channel. */
			si.fault = i;
			si.stop = i;
			for (size_t k = i + 1; k < j->n; k++) {
				const cs_event *f = &j->ev[k];
				if (f->channel == e->channel && f->kind == CS_EV_CHANNEL_STOP &&
				    f->unit == CS_UNIT_FE) {
					si.stop = k;
					break;
				}
			}
		} else {
			si.stop = i;
			for (size_t k = i; k-- > 0;) {
				const cs_event *f = &j->ev[k];
				if (f->channel != e->channel)
					continue;
				if (f->kind == CS_EV_FAULT) {
					si.fault = k;
					break;
				}
				if (f->kind == CS_EV_CHANNEL_STOP || f->kind == CS_EV_ENTRY_DONE ||
				    f->kind == CS_EV_GP_FETCH)
					break;
			}
		}
		break;
	}
	if (si.fault != JG_NONE) {
		const cs_event *f = &j->ev[si.fault];
		if (is_engine_unit(f->unit) && f->stage >= CS_STAGE_QMD_INSTALL) {
			for (size_t k = 0; k < j->nslots; k++) {
				const lslot *s = &j->slots[k];
				if (s->fault_qmd == si.fault || s->fault_grid == si.fault ||
				    s->fault_release == si.fault || s->engine_stop == si.fault ||
				    f->launch != CS_NONE32)
					si.late = true;
			}
		}
	}
	return si;
}

static void diagnose_stop(judge *j, cs_stage s, const stopinfo *si)
{
	const cs_event *st = &j->ev[si->stop];
	const cs_event *f = si->fault != JG_NONE ? &j->ev[si->fault] : NULL;
	char ch[80], where[64], rest[200], mname[64];
	jg_chan_name(j, st->channel, ch, sizeof(ch));
	const cs_event *loc = st->gp_entry != CS_NONE32 ? st : (f ? f : st);
	jg_where(loc, where, sizeof(where));
	unreached u;
	jg_find_unreached(j, st->channel, loc->gp_entry, loc->method_index, si->stop + 1, &u);
	jg_unreached_sentence(&u, rest, sizeof(rest));
	const char *why = jg_detail(st) ? jg_detail(st) : (f && jg_detail(f) ? jg_detail(f) : "stopped");

	if (f && (f->value == CS_ACCESS_FETCH || s == CS_STAGE_FE_FETCH) && f->unit == CS_UNIT_FE) {
		uint64_t pb = 0, len = 0;
		for (size_t i = 0; i < si->stop; i++)
			if (j->ev[i].kind == CS_EV_GP_FETCH && j->ev[i].channel == st->channel &&
			    j->ev[i].gp_entry == loc->gp_entry) {
				pb = j->ev[i].addr;
				len = j->ev[i].value;
			}
		jg_why(j, s, CS_CAUSE_PB_UNMAPPED,
		     "entry %u of channel %s points at pushbuffer 0x%llx (%llu dwords), which is not "
		     "mapped in the channel's address space (fault at 0x%llx); the front end stopped "
		     "the channel, so %s.", loc->gp_entry, ch, JG_U(pb), JG_U(len), JG_U(f->addr), rest);
		return;
	}
	uint32_t want_cls = CS_FE_GET(set_object, NVCLASS, (uint32_t)st->value);
	if (!f && st->method == CS_FE_M_SET_OBJECT && st->unit == CS_UNIT_FE &&
	    (!cs_class_valid_for(want_cls, j->in->arch) ||
	     cs_class_kind_of(want_cls) == CS_CLASS_HOST ||
	     cs_class_kind_of(want_cls) == CS_CLASS_UNMODELLED)) {
		const cs_arch_info *ai = cs_arch_get(j->in->arch);
		char comp[96], copy[96];
		cs_class_list_for(j->in->arch, CS_CLASS_COMPUTE, comp, sizeof(comp));
		cs_class_list_for(j->in->arch, CS_CLASS_COPY, copy, sizeof(copy));
		const char *nm = cs_class_name(want_cls);
		jg_why(j, s, CS_CAUSE_BAD_CLASS,
		     "SET_OBJECT at %s on channel %s asks for class 0x%04X (%s), which %s %s "
		     "(compute: %s; copy: %s); the channel stopped, so %s.", where, ch,
		     want_cls, nm ? nm : "unknown",
		     cs_class_kind_of(want_cls) == CS_CLASS_UNMODELLED ? "chainsim does not model on"
									: "is not valid for",
		     ai ? ai->name : "?", comp, copy, rest);
		return;
	}
	if (!f && st->method != CS_NONE32 && st->method >= CS_PB_HOST_METHODS &&
	    (st->cls == CS_NONE32 || st->cls == 0)) {
		/* named as a class the subchannel conventionally holds would take it */
		uint32_t conv = cs_registry_conventional_class(j->in->arch, st->subch);
		char named[160] = "";
		if (conv && cs_registry_method_label(j->in->arch, conv, st->subch, st->method, mname,
						     sizeof(mname), NULL))
			snprintf(named, sizeof(named), " (%s of %s, the class subchannel %u "
				 "conventionally holds)", mname, cs_class_name(conv), st->subch);
		jg_why(j, s, CS_CAUSE_NO_OBJECT,
		     "method 0x%x%s at %s on channel %s went to subchannel %u, which has no object "
		     "bound (no SET_OBJECT on subchannel %u before it); the channel stopped, so %s.",
		     st->method, named, where, ch, st->subch, st->subch, rest);
		return;
	}
	if (f) {
		char label[80] = "";
		if (st->method != CS_NONE32 && st->cls != CS_NONE32) {
			jg_method_label(st->cls, st->method, mname, sizeof(mname));
			snprintf(label, sizeof(label), " (%s)", mname);
		}
		jg_why(j, s, CS_CAUSE_EARLIER_FAULT,
		     "a %s fault at 0x%llx by %s at %s%s on channel %s: %s; the channel stopped, "
		     "so %s.", jg_access_word(f->value), JG_U(f->addr),
		     jg_unit_phrase(f->unit), where, label, ch,
		     jg_detail(f) ? jg_detail(f) : "not mapped", rest);
		return;
	}
	if (!f && st->unit == CS_UNIT_FE && st->method == CS_NONE32 && st->addr) {
		jg_why(j, s, CS_CAUSE_PB_MALFORMED,
		     "the pushbuffer of entry %u on channel %s is malformed at 0x%llx (after %u "
		     "method%s): %s; the front end stopped the channel, so %s.",
		     st->gp_entry, ch, JG_U(st->addr), st->method_index == CS_NONE32 ? 0 : st->method_index,
		     st->method_index == 1 ? "" : "s", why, rest);
		return;
	}
	cs_cause cause = st->cause ? (cs_cause)st->cause
		       : s == CS_STAGE_FE_FETCH ? CS_CAUSE_PB_MALFORMED : CS_CAUSE_CHANNEL_STOP;
	jg_why(j, s, cause, "the channel %s stopped at %s: %s; %s.", ch, where, why, rest);
}

/* "method 3 LAUNCH_DMA (I2M) faulted": the short form for the table. */
static void stop_evidence(const judge *j, const stopinfo *si, char *buf, size_t len)
{
	const cs_event *st = &j->ev[si->stop];
	const cs_event *f = si->fault != JG_NONE ? &j->ev[si->fault] : NULL;
	const cs_event *loc = f && f->method != CS_NONE32 ? f : st;
	char where[64], name[64] = "";
	jg_where(loc, where, sizeof(where));
	if (loc->method != CS_NONE32 && loc->cls != CS_NONE32)
		jg_method_label(loc->cls, loc->method, name, sizeof(name));
	const char *cls = loc->cls != CS_NONE32 && loc->cls ? cs_class_name(loc->cls) : NULL;
	if (!f && st->unit == CS_UNIT_FE && st->method == CS_NONE32 && st->addr) {
		snprintf(buf, len, "entry %u: malformed header at 0x%llx", st->gp_entry, JG_U(st->addr));
		return;
	}
	snprintf(buf, len, "%s%s%s%s%s %s", where, name[0] ? " " : "", name, cls ? " on " : "",
		 cls ? cls : "", f && f->kind == CS_EV_FAULT ? "faulted" : "stopped the channel");
}

/* What the front end did, scenario wide. */
typedef struct fe_tally {
	size_t first_fetch, nfetch, nctl, ndone, binds;
	uint64_t methods, forwarded;
	size_t fetch_fault; /* the first fault of a fetch */
	uint32_t short_ch;  /* a channel given entries it did not fetch, neither stopped nor blocked */
	uint64_t short_given, short_fetched;
} fe_tally;

enum { TALLY_CHANNELS = 64 };

/* Entries forwarded that the front end never fetched, on a channel that is
 * neither stopped nor blocked: silence, not health. */
static void find_short_channel(const judge *j, fe_tally *t)
{
	uint64_t fwd[TALLY_CHANNELS] = { 0 }, got[TALLY_CHANNELS] = { 0 };
	bool held[TALLY_CHANNELS] = { false };
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->channel >= TALLY_CHANNELS)
			continue;
		if (e->kind == CS_EV_HOST_FORWARD && e->aux == CS_HOST_FORWARD_RING)
			fwd[e->channel] += e->value;
		else if (e->kind == CS_EV_GP_FETCH || e->kind == CS_EV_GP_CONTROL)
			got[e->channel]++;
		else if (e->kind == CS_EV_CHANNEL_STOP || e->kind == CS_EV_SEM_BLOCK ||
			 e->kind == CS_EV_DEADLOCK)
			held[e->channel] = true;
	}
	t->short_ch = CS_NONE32;
	for (uint32_t ch = 0; ch < TALLY_CHANNELS && t->short_ch == CS_NONE32; ch++)
		if (got[ch] < fwd[ch] && !held[ch]) {
			t->short_ch = ch;
			t->short_given = fwd[ch];
			t->short_fetched = got[ch];
		}
}

static void tally_front_end(const judge *j, fe_tally *t)
{
	*t = (fe_tally){ .first_fetch = JG_NONE, .fetch_fault = JG_NONE };
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		switch ((cs_event_kind)e->kind) {
		case CS_EV_GP_FETCH:
			t->nfetch++;
			if (t->first_fetch == JG_NONE)
				t->first_fetch = i;
			break;
		case CS_EV_GP_CONTROL:
			t->nctl++;
			if (t->first_fetch == JG_NONE)
				t->first_fetch = i;
			break;
		case CS_EV_ENTRY_DONE:
			t->ndone++;
			t->methods += e->value;
			break;
		case CS_EV_BIND:
			t->binds++;
			break;
		case CS_EV_HOST_FORWARD:
			if (e->aux == CS_HOST_FORWARD_RING)
				t->forwarded += e->value;
			break;
		case CS_EV_FAULT:
			if (e->unit == CS_UNIT_FE && e->stage == CS_STAGE_FE_FETCH &&
			    t->fetch_fault == JG_NONE)
				t->fetch_fault = i;
			break;
		default:
			break;
		}
	}
	find_short_channel(j, t);
}

/* Entries were forwarded and not fetched: on channel ch, which is neither
 * stopped nor blocked, or (ch CS_NONE32) on every channel. */
static void why_not_fetched(judge *j, uint32_t ch, uint64_t given, uint64_t fetched)
{
	char msg[sizeof(j->diag[0])];
	if (ch != CS_NONE32) {
		char name[80];
		jg_chan_name(j, ch, name, sizeof(name));
		snprintf(msg, sizeof(msg), "channel %s was given %llu GPFIFO entries but the front end "
			 "fetched %llu, and the channel is neither stopped nor blocked: %llu entries "
			 "were never fetched (did the run's entry budget end?)", name, JG_U(given),
			 JG_U(fetched), JG_U(given - fetched));
	} else {
		snprintf(msg, sizeof(msg), "the front end fetched no GPFIFO entry although %llu were "
			 "forwarded", JG_U(given));
	}
	jg_why(j, 4, CS_CAUSE_NOT_FETCHED, "%s", msg);
}

/* Stage 4: the front end fetched the entries, or why not. */
static void stage_fetch(judge *j, cs_chain *c, const stopinfo *si, const fe_tally *t, bool stop4)
{
	if (stop4 || (t->fetch_fault != JG_NONE && si->stop != JG_NONE)) {
		const cs_event *st = &j->ev[si->stop];
		const cs_event *ff = si->fault != JG_NONE ? &j->ev[si->fault]
			: (t->fetch_fault != JG_NONE ? &j->ev[t->fetch_fault] : NULL);
		if (ff)
			jg_row(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop,
			     "entry %u: %s fault at 0x%llx", st->gp_entry,
			     jg_access_word(ff->value), JG_U(ff->addr));
		else
			jg_row(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop,
			     "entry %u: stopped (%s)", st->gp_entry,
			     jg_detail(st) ? jg_detail(st) : "no reason");
		stopinfo s4 = *si;
		if (s4.fault == JG_NONE)
			s4.fault = t->fetch_fault;
		diagnose_stop(j, 4, &s4);
	} else if (t->first_fetch != JG_NONE && t->short_ch != CS_NONE32) {
		jg_row(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, JG_NONE, "%llu of %llu entries fetched",
		     JG_U(t->short_fetched), JG_U(t->short_given));
		why_not_fetched(j, t->short_ch, t->short_given, t->short_fetched);
	} else if (t->first_fetch != JG_NONE) {
		const cs_event *e = &j->ev[t->first_fetch];
		char more[48] = "";
		if (t->nfetch + t->nctl > 1)
			snprintf(more, sizeof(more), " (%zu entries)", t->nfetch + t->nctl);
		if (e->kind == CS_EV_GP_FETCH)
			jg_row(c, 4, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, t->first_fetch,
			     "entry %u: %s, %llu dword%s%s", e->gp_entry, JG_ADDR(j, e->addr),
			     JG_U(e->value), e->value == 1 ? "" : "s", more);
		else
			jg_row(c, 4, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, t->first_fetch,
			     "entry %u: control opcode %llu%s", e->gp_entry, JG_U(e->value), more);
	} else {
		jg_row(c, 4, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
		why_not_fetched(j, CS_NONE32, t->forwarded, 0);
	}
}

/* The first deadlock, and the last acquire block still in force (no
 * satisfied acquire of its channel follows it); JG_NONE where none. */
static void find_blocks(const judge *j, size_t *block_out, size_t *dead_out)
{
	size_t block = JG_NONE, dead = JG_NONE;
	for (size_t i = 0; i < j->n; i++) {
		if (j->ev[i].kind == CS_EV_DEADLOCK && dead == JG_NONE)
			dead = i;
		if (j->ev[i].kind == CS_EV_SEM_BLOCK)
			block = i;
	}
	if (block != JG_NONE) {
		for (size_t i = block + 1; i < j->n; i++)
			if (j->ev[i].channel == j->ev[block].channel &&
			    (j->ev[i].kind == CS_EV_SEM_ACQUIRE || j->ev[i].kind == CS_EV_ENTRY_DONE)) {
				block = JG_NONE;
				break;
			}
	}
	*block_out = block;
	*dead_out = dead;
}

/* Stage 5: a channel blocked on an acquire (dead: nothing left writes it). */
static void stage_exec_blocked(judge *j, cs_chain *c, size_t block, size_t dead)
{
	const cs_event *e = &j->ev[dead != JG_NONE ? dead : block];
	const cs_event *b = block != JG_NONE ? &j->ev[block] : e;
	char ch[80], where[64];
	jg_chan_name(j, e->channel, ch, sizeof(ch));
	jg_where(b, where, sizeof(where));
	uint64_t cur = dead != JG_NONE ? e->aux : b->aux;
	jg_row(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, dead != JG_NONE ? dead : block,
	     "%s blocked: acquire [%s] == %llu, value %llu", where, JG_ADDR(j, e->addr),
	     JG_U(e->value), JG_U(cur));
	if (dead != JG_NONE)
		jg_why(j, 5, CS_CAUSE_DEADLOCK,
		     "deadlock: channel %s is blocked at %s on a semaphore acquire of [%s] "
		     "== %llu (current value %llu), and nothing left to run writes it%s%s; "
		     "release the semaphore before waiting, or drop the acquire.",
		     ch, where, JG_ADDR(j, e->addr), JG_U(e->value), JG_U(cur), jg_detail(e) ? ": " : "",
		     jg_detail(e) ? jg_detail(e) : "");
	else
		jg_why(j, 5, CS_CAUSE_ACQUIRE_BLOCKED,
		     "channel %s is blocked at %s on a semaphore acquire of [%s] == %llu "
		     "(current value %llu)", ch, where, JG_ADDR(j, e->addr), JG_U(e->value), JG_U(cur));
}

/* Stage 5: the front end executed the entries' methods, or why not. */
static void stage_exec(judge *j, cs_chain *c, const stopinfo *si, const fe_tally *t, bool stop4)
{
	size_t block, dead;
	find_blocks(j, &block, &dead);
	if (si->stop != JG_NONE && !stop4 && si->late) {
		const cs_event *f = &j->ev[si->fault];
		char where[64];
		jg_where(f, where, sizeof(where));
		jg_row(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, si->fault,
		     "methods ran to %s, where %s stopped the channel", where, jg_unit_phrase(f->unit));
	} else if (si->stop != JG_NONE && !stop4) {
		char ev5[96];
		stop_evidence(j, si, ev5, sizeof(ev5));
		jg_row(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_FRONT_END, si->stop, "%s", ev5);
		diagnose_stop(j, 5, si);
	} else if (dead != JG_NONE || block != JG_NONE) {
		stage_exec_blocked(j, c, block, dead);
	} else if (t->nfetch > 0 && t->ndone >= t->nfetch) {
		char bound[48] = "";
		if (t->binds)
			snprintf(bound, sizeof(bound), ", %zu object%s bound", t->binds,
				 t->binds > 1 ? "s" : "");
		jg_row(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, JG_NONE, "%zu entr%s, %llu method%s%s",
		     t->ndone, t->ndone > 1 ? "ies" : "y", JG_U(t->methods), t->methods == 1 ? "" : "s",
		     bound);
	} else if (t->nfetch == 0 && t->nctl > 0) {
		jg_row(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "only control entries");
		jg_why(j, 5, CS_CAUSE_NO_METHODS, "every fetched entry was a control entry: no method ran");
	} else {
		jg_row(c, 5, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE,
		       t->nfetch ? "%zu of %zu entries done" : "-", t->ndone, t->nfetch);
		jg_why(j, 5, CS_CAUSE_ENTRY_UNFINISHED, "the front end fetched %zu entr%s but finished %zu",
		     t->nfetch, t->nfetch == 1 ? "y" : "ies", t->ndone);
	}
}

void jg_stage_front_end(judge *j, cs_chain *c, const stopinfo *si)
{
	fe_tally t;
	tally_front_end(j, &t);
	bool stop4 = si->stop != JG_NONE && j->ev[si->stop].stage == CS_STAGE_FE_FETCH;
	stage_fetch(j, c, si, &t, stop4);
	stage_exec(j, c, si, &t, stop4);
}

/* The wait e never resolved: a release wrote its address with another value
 * (wrote_here), or none did (rel: where the nrel releases went). */
static void why_wait_unmet(judge *j, const cs_event *e, const char *cmp, bool wrote_here,
			   const char *rel, size_t nrel)
{
	char msg[sizeof(j->diag[0])];
	if (wrote_here)
		snprintf(msg, sizeof(msg), "the guest waits for [%s] %s %llu but the value is %llu: a "
			 "release wrote that address with %s value", JG_ADDR(j, e->addr), cmp,
			 JG_U(e->aux), JG_U(e->value), strcmp(cmp, ">=") ? "another" : "a lower");
	else
		snprintf(msg, sizeof(msg), "the guest waits for [%s] %s %llu, a value nobody writes (it "
			 "is %llu): %s%s; point the wait at the release address or the release at the "
			 "waited one.", JG_ADDR(j, e->addr), cmp, JG_U(e->aux), JG_U(e->value), rel,
			 nrel > 1 ? " and others" : "");
	jg_why(j, 11, CS_CAUSE_WAIT_UNMET, "%s", msg);
}

void jg_stage_wake(judge *j, cs_chain *c)
{
	size_t begins = 0, failed = JG_NONE, last_done = JG_NONE;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_WAIT_BEGIN)
			begins++;
		else if (e->kind == CS_EV_WAIT_FAILED && failed == JG_NONE)
			failed = i;
		else if (e->kind == CS_EV_WAIT_DONE)
			last_done = i;
	}
	if (failed != JG_NONE) {
		const cs_event *e = &j->ev[failed];
		const char *cmp = jg_wait_cmp(j, failed);
		jg_row(c, 11, CS_STAGE_NOT_FIRED, CS_AUTHOR_HOST, failed, "wait %s %s %llu: value is %llu",
		     JG_ADDR(j, e->addr), cmp, JG_U(e->aux), JG_U(e->value));
		/* Who wrote what: the releases that did happen. */
		char rel[256] = "nothing released any semaphore";
		size_t nrel = 0;
		for (size_t i = 0; i < j->n; i++) {
			const cs_event *r = &j->ev[i];
			if (r->kind != CS_EV_SEM_RELEASE)
				continue;
			if (r->addr == e->addr)
				continue;
			if (nrel++ == 0) {
				char off[64];
				jg_distance_words(e->addr, r->addr, off, sizeof(off));
				snprintf(rel, sizeof(rel), "the %s release went to %s (0x%llx, %s the "
					 "waited address; value %llu)",
					 r->unit == CS_UNIT_FE ? "host" : "engine", JG_ADDR(j, r->addr),
					 JG_U(r->addr), off, JG_U(r->value));
			}
		}
		bool wrote_here = false;
		for (size_t i = 0; i < j->n; i++)
			if (j->ev[i].kind == CS_EV_SEM_RELEASE && j->ev[i].addr == e->addr)
				wrote_here = true;
		if (e->cause == CS_CAUSE_BUDGET)
			jg_why(j, 11, CS_CAUSE_BUDGET, "the guest waits for [%s] %s %llu, but the device's "
				    "entry budget ran out with work left (value %llu): raise "
				    "run_budget or shorten the stream", JG_ADDR(j, e->addr), cmp, JG_U(e->aux),
				    JG_U(e->value));
		else if (e->cause == CS_CAUSE_WAIT_UNMAPPED)
			jg_why(j, 11, CS_CAUSE_WAIT_UNMAPPED, "the guest waits on %s, which is not mapped",
			     JG_ADDR(j, e->addr));
		else
			why_wait_unmet(j, e, cmp, wrote_here, rel, nrel);
	} else if (last_done != JG_NONE) {
		const cs_event *e = &j->ev[last_done];
		char more[32] = "";
		if (begins > 1)
			snprintf(more, sizeof(more), " (%zu waits)", begins);
		char seen[40] = "";
		if (e->value != e->aux)
			snprintf(seen, sizeof(seen), " (value %llu)", JG_U(e->value));
		jg_row(c, 11, CS_STAGE_FIRED, CS_AUTHOR_HOST, last_done, "wait %s %s %llu: resolved%s%s",
		     JG_ADDR(j, e->addr), jg_wait_cmp(j, last_done), JG_U(e->aux), seen, more);
	} else if (j->in->client_waits) {
		jg_row(c, 11, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_NONE, JG_NONE,
		       "the client waits on its own memory");
		jg_why(j, 11, CS_CAUSE_CLIENT_WAIT, "the live client waits on its own memory, which "
			    "the device does not see: a wait through cs_live_wait is judged");
	} else {
		jg_row(c, 11, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "no wait");
		jg_why(j, 11, CS_CAUSE_NO_WAIT, "the guest never waits, so completion never reached it: "
			    "add `wait ADDR == VALUE` (or `>=`) on the release address");
	}
}
