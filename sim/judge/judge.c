/* SPDX-License-Identifier: MIT */
/* The chain judged from the trace (docs/chain.md): eleven stages overall and
 * per launch, each from positive evidence in the records, and the first break
 * with its cause (cause.def) and diagnosis.
 *
 * Claim discipline: a stage fires only on a record that shows it; only an
 * engine-authored release (or a host release after a wait for idle) proves
 * execution; a grid dispatched but not executed is not a grid that ran. */
#include <stdlib.h>
#include <string.h>

#include "judge.h"

/* ---- counters ------------------------------------------------------------------ */

enum {
	C_ENTRIES, C_METHODS, C_LAUNCHES, C_CTAS, C_FAULTS, C_ENGINE_RELEASES,
	C_HOST_RELEASES, C_COPIES, C_BYTES_COPIED, C_WAITS, C_DEADLOCKS, C_RECORDS,
	C_COUNT
};
static const char *const counter_names[C_COUNT] = {
	"entries", "methods", "launches", "ctas", "faults", "engine_releases",
	"host_releases", "copies", "bytes_copied", "waits", "deadlocks", "records",
};

const char *cs_report_counter_name(const cs_report *r, size_t i)
{
	(void)r;
	return i < C_COUNT ? counter_names[i] : NULL;
}

bool cs_report_counter(const cs_report *r, const char *name, uint64_t *value)
{
	for (size_t i = 0; i < r->ncounters; i++) {
		if (strcmp(counter_names[i], name) == 0) {
			*value = r->counters[i];
			return true;
		}
	}
	return false;
}
/* Appends n to a growing note array; false when out of memory. */
static bool push_note(cs_report_note **arr, size_t *n, size_t *cap, const cs_report_note *note)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		cs_report_note *na = realloc(*arr, nc * sizeof(*na));
		if (!na)
			return false;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = *note;
	return true;
}

/* ---- assembling the chains --------------------------------------------------------------- */

static bool engine_work(const judge *j)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_COPY || e->kind == CS_EV_I2M_WRITE ||
		    (e->kind == CS_EV_SEM_RELEASE && e->unit != CS_UNIT_FE))
			return true;
	}
	return false;
}

static void finish_chain(judge *j, cs_chain *c)
{
	c->first_break = CS_STAGE_NONE;
	c->break_event = JG_NONE;
	c->cause = CS_CAUSE_NONE;
	c->diagnosis[0] = '\0';
	c->unobservable = CS_STAGE_NONE;
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		if (c->rows[s].status == CS_STAGE_NOT_OBSERVABLE && c->unobservable == CS_STAGE_NONE &&
		    j->cause[s]) {
			/* No break so far: say why the chain cannot be judged from here. */
			c->unobservable = (cs_stage)s;
			c->cause = j->cause[s];
			snprintf(c->diagnosis, sizeof(c->diagnosis), "%s", j->diag[s]);
		}
		if (c->rows[s].status != CS_STAGE_NOT_FIRED)
			continue;
		c->first_break = (cs_stage)s;
		c->break_event = c->rows[s].event;
		c->cause = j->cause[s] ? j->cause[s] : CS_CAUSE_NOT_FIRED;
		snprintf(c->diagnosis, sizeof(c->diagnosis), "%s",
			 j->diag[s][0] ? j->diag[s] : "no record shows this stage");
		break;
	}
}

static void clear_why(judge *j)
{
	memset(j->cause, 0, sizeof(j->cause));
	memset(j->diag, 0, sizeof(j->diag));
}

static void copy_why(judge *dst_j, int s, cs_cause cause, const char *diag)
{
	dst_j->cause[s] = cause;
	snprintf(dst_j->diag[s], sizeof(dst_j->diag[s]), "%s", diag);
}

/* What the launches gave the overall chain at stages 6-10: per stage, the
 * row of the first launch that did not fire it, else of the first that could
 * not be observed there, else the first launch's. */
typedef struct merged {
	int first_bad[CS_STAGE_COUNT + 1], first_unobs[CS_STAGE_COUNT + 1];
	cs_stage_row row0[CS_STAGE_COUNT + 1], badrow[CS_STAGE_COUNT + 1];
	cs_stage_row unobsrow[CS_STAGE_COUNT + 1];
	cs_cause unobscause[CS_STAGE_COUNT + 1], badcause[CS_STAGE_COUNT + 1];
	/* the diagnosis of the row the overall chain takes at each stage: the
	 * first launch that broke there, else the first that could not be
	 * observed there (a break always wins, so it may overwrite) */
	char baddiag[CS_STAGE_COUNT + 1][CS_DIAGNOSIS_MAX];
} merged;

/* Launch s's own stages 5 and 11 around its 6-10: it reached the engine, and
 * a wait on its release address resolved (or depends on a grid the simulator
 * could not run). */
static void launch_stages(judge *j, const lslot *s, cs_chain *c, const size_t *waits,
			  size_t nwait)
{
	const cs_event *fe = &j->ev[s->install != JG_NONE ? s->install : s->first];
	char where[64];
	jg_where(fe, where, sizeof(where));
	if (s->install != JG_NONE || s->schedule != JG_NONE || s->shortq != JG_NONE)
		jg_row(c, 5, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END,
		       s->install != JG_NONE ? s->install : s->first, "%s reached the engine", where);
	jg_stage_launch(j, s, c);
	if (s->release != JG_NONE) {
		for (size_t w = 0; w < nwait; w++) {
			const cs_event *we = &j->ev[waits[w]];
			if (we->addr == j->ev[s->release].addr) {
				char seen[40] = "";
				if (we->value != we->aux)
					snprintf(seen, sizeof(seen), " (value %llu)", JG_U(we->value));
				jg_row(c, 11, CS_STAGE_FIRED, CS_AUTHOR_HOST, waits[w],
				       "wait %s %s %llu: resolved%s", JG_ADDR(j, we->addr),
				       jg_wait_cmp(j, waits[w]), JG_U(we->aux), seen);
				break;
			}
		}
	}
	const cs_stage_row *w11 = &c->rows[11];
	if (c->rows[9].status == CS_STAGE_NOT_OBSERVABLE && w11->status == CS_STAGE_NOT_FIRED &&
	    w11->event != JG_NONE && jg_launch_would_release(j, s, j->ev[w11->event].addr))
		jg_row(c, 11, CS_STAGE_NOT_OBSERVABLE, CS_AUTHOR_HOST, w11->event,
		       "the wait depends on this launch's release, which the simulator "
		       "could not run");
}

/* Launch k's chain c into m. */
static void merge_launch(const judge *j, size_t k, const cs_chain *c, merged *m)
{
	if (k == 0)
		memcpy(m->row0, c->rows, sizeof(m->row0));
	for (int st = 6; st <= 10; st++) {
		if (c->rows[st].status == CS_STAGE_NOT_OBSERVABLE && m->first_unobs[st] < 0) {
			m->first_unobs[st] = (int)k;
			m->unobsrow[st] = c->rows[st];
			m->unobscause[st] = j->cause[st];
			if (m->first_bad[st] < 0)
				snprintf(m->baddiag[st], CS_DIAGNOSIS_MAX, "%s", j->diag[st]);
		}
		if (c->rows[st].status == CS_STAGE_NOT_FIRED && m->first_bad[st] < 0) {
			m->first_bad[st] = (int)k;
			m->badrow[st] = c->rows[st];
			m->badcause[st] = j->cause[st];
			snprintf(m->baddiag[st], CS_DIAGNOSIS_MAX, "%s", j->diag[st]);
		}
	}
}

/* Each launch's chain (the overall chain's 1-5 and 11, its own 5, 6-10 and
 * 11) into r->launches and m; false when out of memory. */
static bool judge_launches(judge *j, cs_report *r, const cs_chain *o, merged *m)
{
	size_t nid = 0;
	for (size_t k = 0; k < j->nslots; k++)
		if (j->slots[k].id != CS_NONE32)
			nid++;
	r->launches = nid ? calloc(nid, sizeof(cs_chain)) : NULL;
	cs_chain *c = malloc(sizeof(*c));
	size_t nwait = 0, *waits = malloc((j->n ? j->n : 1) * sizeof(size_t));
	if (!c || !waits || (nid && !r->launches)) {
		free(c);
		free(waits);
		return false;
	}
	for (size_t i = 0; i < j->n; i++)
		if (j->ev[i].kind == CS_EV_WAIT_DONE)
			waits[nwait++] = i;
	for (int s = 0; s <= CS_STAGE_COUNT; s++)
		m->first_bad[s] = m->first_unobs[s] = -1;
	size_t li = 0;
	for (size_t k = 0; k < j->nslots; k++) {
		const lslot *s = &j->slots[k];
		*c = *o;
		c->launch = s->id;
		for (int st = 6; st <= 10; st++) {
			j->cause[st] = CS_CAUSE_NONE;
			j->diag[st][0] = '\0';
		}
		launch_stages(j, s, c, waits, nwait);
		finish_chain(j, c);
		merge_launch(j, k, c, m);
		if (s->id != CS_NONE32)
			r->launches[li++] = *c;
	}
	r->nlaunches = li;
	free(c);
	free(waits);
	return true;
}

/* Stage 10 of a scenario without a launch: an engine's release, else a host
 * release after the engine work (a copy, an inline-to-memory write), else
 * the channel semaphore when there was no engine work. */
static void stage10_without_launch(judge *j, cs_chain *o)
{
	size_t rel = JG_NONE, host_rel = JG_NONE, copy = JG_NONE;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_SEM_RELEASE && e->unit != CS_UNIT_FE && rel == JG_NONE)
			rel = i;
		if (e->kind == CS_EV_SEM_RELEASE && e->unit == CS_UNIT_FE && host_rel == JG_NONE)
			host_rel = i;
		if ((e->kind == CS_EV_COPY || e->kind == CS_EV_I2M_WRITE) && copy == JG_NONE)
			copy = i;
	}
	if (rel != JG_NONE) {
		jg_row(o, 10, CS_STAGE_FIRED, CS_AUTHOR_ENGINE, rel, "%s release 0x%llx = %llu",
		       cs_unit_name((cs_unit)j->ev[rel].unit), JG_U(j->ev[rel].addr),
		       JG_U(j->ev[rel].value));
	} else if (engine_work(j)) {
		size_t after = JG_NONE;
		for (size_t i = copy + 1; i < j->n && after == JG_NONE; i++)
			if (j->ev[i].kind == CS_EV_SEM_RELEASE && j->ev[i].unit == CS_UNIT_FE &&
			    j->ev[i].channel == j->ev[copy].channel)
				after = i;
		const char *kind = cs_event_kind_name((cs_event_kind)j->ev[copy].kind);
		char done[96];
		snprintf(done, sizeof(done), "the engine moved %llu bytes (%s)",
			 JG_U(j->ev[copy].value), kind);
		jg_work w = { .done = done, .work = kind, .engine = "the engine",
			      .risk = "it may land before the engine's work", .other_fix = "",
			      .writer = "",
			      .unlearned = ", so nothing proves to the guest that it completed" };
		if (after != JG_NONE)
			jg_host_release_after(j, o, after, &w);
		else
			jg_no_release(j, o, &w);
	} else if (host_rel != JG_NONE) {
		/* The chain counts the channel semaphore among stage 10's releases
		 * (docs/chain.md); with no launch it is the release the guest's
		 * wake depends on. */
		jg_row(o, 10, CS_STAGE_FIRED, CS_AUTHOR_FRONT_END, host_rel,
		       "channel semaphore 0x%llx = %llu (host release, no engine work)",
		       JG_U(j->ev[host_rel].addr), JG_U(j->ev[host_rel].value));
	} else {
		jg_row(o, 10, CS_STAGE_NA, CS_AUTHOR_NONE, JG_NONE, "no engine work, no release");
	}
}

/* A QMD was built (the record at qmd_build) but no launch record exists: the
 * entry that should carry it points elsewhere, or the stream never sends it. */
static void launch_never_sent(judge *j, cs_chain *o, size_t qmd_build)
{
	const cs_event *q = &j->ev[qmd_build];
	for (int st = 6; st <= 10; st++)
		jg_row(o, (cs_stage)st, CS_STAGE_NOT_FIRED, CS_AUTHOR_NONE, JG_NONE, "-");
	size_t stray = jg_stray_entry(j);
	if (stray != JG_NONE) {
		const cs_event *f = &j->ev[stray];
		bool inside;
		const cs_event *pb = &j->ev[jg_nearest_build(j, false, f->addr, &inside)];
		char off[64];
		jg_distance_words(f->addr, pb->addr, off, sizeof(off));
		jg_why(j, 6, CS_CAUSE_PB_NOT_BUILT,
		       "entry %u points at 0x%llx (%llu dwords), where the guest built no "
		       "pushbuffer; it built one at 0x%llx (%s) that no entry names, so its "
		       "launch of the QMD at 0x%llx never reached the engine: point the entry at "
		       "the pushbuffer the guest built, or relocate it.", f->gp_entry, JG_U(f->addr),
		       JG_U(f->value), JG_U(pb->addr), off, JG_U(q->addr));
	} else {
		jg_why(j, 6, CS_CAUSE_NO_LAUNCH_SENT,
		       "a QMD was built at 0x%llx but no launch reached the engine: the stream "
		       "has no SEND_PCAS_A / SET_INLINE_QMD_ADDRESS for it", JG_U(q->addr));
	}
}

/* The overall chain's stages 6-10 from the launches (m). */
static void take_launch_rows(judge *j, cs_chain *o, const merged *m)
{
	for (int st = 6; st <= 10; st++) {
		if (m->first_bad[st] >= 0) {
			o->rows[st] = m->badrow[st];
			copy_why(j, st, m->badcause[st], m->baddiag[st]);
		} else if (m->first_unobs[st] >= 0) {
			o->rows[st] = m->unobsrow[st];
			copy_why(j, st, m->unobscause[st], m->baddiag[st]);
		} else {
			o->rows[st] = m->row0[st];
			if (j->nslots > 1) {
				char buf[CS_EVIDENCE_MAX];
				snprintf(buf, sizeof(buf), "%zu launches; first: %s", j->nslots,
					 m->row0[st].evidence);
				snprintf(o->rows[st].evidence, sizeof(o->rows[st].evidence), "%s", buf);
			}
		}
	}
}

/* The counters, faults, findings, output, edits and assumptions of the
 * records; false when out of memory. */
static bool tally(const judge *j, cs_report *r)
{
	r->ncounters = C_COUNT;
	size_t cap_as = 0, cap_out = 0, cap_find = 0, cap_edits = 0;
	bool nomem = false;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		switch ((cs_event_kind)e->kind) {
		case CS_EV_GP_FETCH:
		case CS_EV_GP_CONTROL:
			r->counters[C_ENTRIES]++;
			break;
		case CS_EV_ENTRY_DONE:
			r->counters[C_METHODS] += e->value;
			break;
		case CS_EV_CHANNEL_STOP:
			/* The methods of the stopped entry up to and including the one that
			 * stopped it. */
			if (e->unit == CS_UNIT_FE && e->method_index != CS_NONE32)
				r->counters[C_METHODS] += e->method_index + 1u;
			break;
		case CS_EV_GRID_DONE:
			r->counters[C_CTAS] += e->value;
			break;
		case CS_EV_FAULT:
			r->counters[C_FAULTS]++;
			r->nfaults++;
			break;
		case CS_EV_SEM_RELEASE:
			r->counters[e->unit == CS_UNIT_FE ? C_HOST_RELEASES : C_ENGINE_RELEASES]++;
			break;
		case CS_EV_COPY:
			r->counters[C_COPIES]++;
			r->counters[C_BYTES_COPIED] += e->value;
			break;
		case CS_EV_WAIT_BEGIN:
			r->counters[C_WAITS]++;
			break;
		case CS_EV_DEADLOCK:
			r->counters[C_DEADLOCKS]++;
			break;
		case CS_EV_PRINTF:
		case CS_EV_RACE:
		case CS_EV_ATOMIC_ORDER: {
			bool out = e->kind == CS_EV_PRINTF;
			cs_report_note n = { .launch = e->launch, .cta = e->value,
					     .thread = out ? e->aux : 0,
					     .text = e->detail ? e->detail : "" };
			if (!push_note(out ? &r->output : &r->findings,
				       out ? &r->noutput : &r->nfindings,
				       out ? &cap_out : &cap_find, &n))
				nomem = true;
			break;
		}
		case CS_EV_HOST_EDIT: {
			if (r->nedits == cap_edits) {
				size_t nc = cap_edits ? cap_edits * 2 : 8;
				cs_report_edit *na = realloc(r->edits, nc * sizeof(*na));
				if (!na) {
					nomem = true;
					break;
				}
				r->edits = na;
				cap_edits = nc;
			}
			r->edits[r->nedits++] = (cs_report_edit){
				.event = i, .edit = (cs_forward_edit)e->subch, .entry = e->gp_entry,
				.guest = e->addr, .host = e->aux, .value = e->value,
				.cause = (cs_cause)e->cause, .text = e->detail ? e->detail : "" };
			break;
		}
		case CS_EV_ASSUMPTION: {
			const char *d = jg_detail(e);
			if (!d)
				break;
			bool seen = false;
			for (size_t k = 0; k < r->nassumptions; k++)
				if (strcmp(r->assumptions[k], d) == 0)
					seen = true;
			if (seen)
				break;
			if (r->nassumptions == cap_as) {
				size_t nc = cap_as ? cap_as * 2 : 8;
				const char **na = realloc(r->assumptions, nc * sizeof(*na));
				if (!na)
					break;
				r->assumptions = na;
				cap_as = nc;
			}
			r->assumptions[r->nassumptions++] = d;
			break;
		}
		default:
			break;
		}
	}
	/* The header's count: launches the engines numbered (a QMD installed and
	 * never scheduled is not one). */
	r->counters[C_LAUNCHES] = r->nlaunches;
	r->counters[C_RECORDS] = j->n;
	return !nomem;
}

cs_report *cs_report_judge(const cs_report_input *in)
{
	cs_report *r = calloc(1, sizeof(*r));
	judge *j = calloc(1, sizeof(*j));
	merged *m = calloc(1, sizeof(*m));
	if (!r || !j || !m) {
		free(r);
		free(j);
		free(m);
		return NULL;
	}
	j->in = in;
	j->ev = in->events;
	j->n = in->nevents;
	r->arch = in->arch;
	jg_collect_slots(j);
	jg_find_host_releases(j);

	/* Intent: a QMD built, or any launch record. */
	bool intent = j->nslots > 0;
	size_t qmd_build = JG_NONE;
	for (size_t i = 0; i < j->n; i++)
		if (j->ev[i].kind == CS_EV_GUEST_BUILD && j->ev[i].aux && qmd_build == JG_NONE)
			qmd_build = i;
	intent = intent || qmd_build != JG_NONE;
	r->has_launch = intent;

	cs_chain *o = &r->overall;
	o->launch = CS_NONE32;
	for (int s = 0; s <= CS_STAGE_COUNT; s++) {
		o->rows[s].stage = (cs_stage)s;
		o->rows[s].event = JG_NONE;
	}
	stopinfo si = jg_first_stop(j);
	jg_stage_build(j, o);
	jg_stage_submit(j, o);
	jg_stage_front_end(j, o, &si);
	jg_stage_wake(j, o);

	/* The overall causes of 1-5 and 11 outlive the launches' 6-10. */
	cs_cause ocause[CS_STAGE_COUNT + 1];
	_Static_assert(sizeof(ocause) == sizeof(j->cause), "cause table size");
	char (*odiag)[CS_DIAGNOSIS_MAX] = malloc(sizeof(j->diag));
	memcpy(ocause, j->cause, sizeof(ocause));
	if (odiag)
		memcpy(odiag, j->diag, sizeof(j->diag));
	bool ok = odiag && judge_launches(j, r, o, m);
	if (ok) {
		clear_why(j);
		memcpy(j->cause, ocause, sizeof(ocause));
		memcpy(j->diag, odiag, sizeof(j->diag));
		if (!intent) {
			for (int st = 6; st <= 9; st++)
				jg_row(o, (cs_stage)st, CS_STAGE_NA, CS_AUTHOR_NONE, JG_NONE, "no launch");
			stage10_without_launch(j, o);
		} else if (j->nslots == 0) {
			launch_never_sent(j, o, qmd_build);
		} else {
			take_launch_rows(j, o, m);
		}
		jg_attribute_consequences(j, r, o);
		finish_chain(j, o);
		jg_attribute_forwarding(j, r);
		ok = tally(j, r);
	}
	free(odiag);
	free(m);
	free(j->slots);
	free(j->by_id);
	free(j);
	if (!ok) {
		cs_report_free(r);
		return NULL;
	}
	return r;
}

cs_report *cs_report_build(const cs_device *dev)
{
	size_t n;
	const cs_event *ev = cs_device_events(dev, &n);
	cs_report_input in = { .arch = cs_device_arch(dev), .events = ev, .nevents = n,
			       .no_executor = cs_device_config_get(dev)->no_executor,
			       .client_waits = cs_device_config_get(dev)->client_channels, .dev = dev };
	return cs_report_judge(&in);
}

void cs_report_free(cs_report *r)
{
	if (!r)
		return;
	free(r->launches);
	free(r->assumptions);
	free(r->output);
	free(r->findings);
	free(r->edits);
	free(r);
}

const char *cs_report_result(const cs_report *r, const cs_report_meta *meta)
{
	if (meta && meta->error)
		return "error";
	if (r->overall.first_break != CS_STAGE_NONE)
		return "broken";
	if (r->overall.unobservable != CS_STAGE_NONE)
		return "not-observable";
	return "complete";
}

int cs_report_exit_status(const cs_report *r, const cs_report_meta *meta)
{
	if (meta && meta->error)
		return 2;
	if (meta && meta->nexpects) {
		for (size_t i = 0; i < meta->nexpects; i++)
			if (!meta->expects[i].held)
				return 1;
		return 0;
	}
	if (r->overall.first_break != CS_STAGE_NONE)
		return 1;
	return r->overall.unobservable != CS_STAGE_NONE ? 3 : 0;
}
