/* SPDX-License-Identifier: MIT */
/* Two finished runs compared: chains side by side, traces aligned stage by
 * stage, the first divergence (include/chainsim/diff.h, docs/diff.md). */
#include "chainsim/diff.h"
#include "chainsim/json.h"
#include "chainsim/pushbuf.h"
#include "chainsim/registry.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Stage 3's edits are matched by what they target, not by position. */
static bool is_edit(const cs_event *e)
{
	return e->kind == CS_EV_HOST_EDIT;
}

/* The next record of stage s at or after *i in the trace (other than an edit
 * when skip_edits); false at its end. */
static bool next_of_stage(const cs_event *evs, size_t n, int s, bool skip_edits, size_t *i)
{
	while (*i < n && (evs[*i].stage != s || (skip_edits && is_edit(&evs[*i]))))
		(*i)++;
	return *i < n;
}

/* The next edit at or after *i; false at the trace's end. */
static bool next_edit(const cs_event *evs, size_t n, size_t *i)
{
	while (*i < n && !is_edit(&evs[*i]))
		(*i)++;
	return *i < n;
}

/* The name of an edit's target: the opening target_len bytes of its detail. */
static size_t target_of(const cs_event *e, const char **name)
{
	*name = e->detail ? e->detail : "";
	return e->detail && e->target_len <= strlen(e->detail) ? e->target_len : 0;
}

static bool same_target(const cs_event *a, const cs_event *b)
{
	const char *ta, *tb;
	size_t la = target_of(a, &ta), lb = target_of(b, &tb);
	return a->channel == b->channel && a->gp_entry == b->gp_entry && la == lb &&
	       !memcmp(ta, tb, la);
}

static bool is_hex_name(const char *name)
{
	return name[0] == '0' && name[1] == 'x';
}

/* Addresses agree when both runs name them the same, or, where either run
 * has no name for it, when they are the same number. */
static bool same_addr(const cs_device *da, uint64_t a, const cs_device *db, uint64_t b)
{
	if (a == b)
		return true;
	char na[CS_REGION_NAME_MAX + 32], nb[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(da, a, na, sizeof(na));
	cs_device_addr_name(db, b, nb, sizeof(nb));
	return !is_hex_name(na) && !is_hex_name(nb) && !strcmp(na, nb);
}

/* The first field in which two records differ, or NULL. seq and time are
 * where a record falls, not what it says. */
static const char *record_difference(const cs_device *da, const cs_event *a, const cs_device *db,
				     const cs_event *b)
{
	if (a->kind != b->kind)
		return "kind";
	if (a->unit != b->unit)
		return "unit";
	if (a->channel != b->channel)
		return "channel";
	if (a->launch != b->launch)
		return "launch";
	if (a->gp_entry != b->gp_entry)
		return "entry";
	if (a->method_index != b->method_index)
		return "method_index";
	if (a->subch != b->subch || a->cls != b->cls || a->method != b->method)
		return "method";
	if (!same_addr(da, a->addr, db, b->addr))
		return "addr";
	if (a->value != b->value)
		return "value";
	if (a->aux != b->aux)
		return "aux";
	if (a->cause != b->cause)
		return "cause";
	if (strcmp(a->detail ? a->detail : "", b->detail ? b->detail : "") != 0)
		return "detail";
	return NULL;
}

/* What differs between two edits of the same target, or NULL. */
static const char *edit_difference(const cs_device *da, const cs_event *a, const cs_device *db,
				   const cs_event *b)
{
	if (a->subch != b->subch)
		return "edit";
	if (a->method != b->method)
		return "method";
	if (!same_addr(da, a->addr, db, b->addr))
		return "addr";
	if (a->value != b->value)
		return "value";
	if (!same_addr(da, a->aux, db, b->aux))
		return "host";
	if (a->cause != b->cause)
		return "cause";
	return NULL;
}

/* One stage-3 edit's standing against the other run's edits. */
typedef struct edit_match {
	size_t at;          /* its index in its own trace */
	size_t k;           /* its position among its run's edits */
	size_t other;       /* the other run's edit of the same target, SIZE_MAX when none */
	const char *field;  /* what differs from that edit, "missing" when there is none */
} edit_match;

/* The first of run x's edits (from ex) that run y (ey, taken marking the
 * edits already matched) lacks or makes differently, or none (field NULL). */
static edit_match first_unlike_edit(const cs_device *dx, const cs_event *ex, size_t nx,
				    const cs_device *dy, const cs_event *ey, size_t ny, bool *taken,
				    bool compare)
{
	edit_match m = { .field = NULL };
	size_t k = 0;
	for (size_t i = 0; next_edit(ex, nx, &i); i++, k++) {
		size_t j = 0;
		while (next_edit(ey, ny, &j) && (taken[j] || !same_target(&ex[i], &ey[j])))
			j++;
		if (j < ny)
			taken[j] = true;
		const char *field = j == ny ? "missing"
			 : compare ? edit_difference(dx, &ex[i], dy, &ey[j]) : NULL;
		if (field) {
			m = (edit_match){ i, k, j == ny ? SIZE_MAX : j, field };
			break;
		}
	}
	return m;
}

static void set_point(cs_diff_point *p, const cs_device *dev, bool present, size_t event);

/* Stage 3's edits matched by target: A's first edit that B lacks or makes
 * differently, else B's first edit that A lacks. False when they agree, or
 * when memory for the matching cannot be had (the edits are then compared in
 * trace order, as other records are). */
static bool edits_diverge(const cs_diff_run *a, const cs_diff_run *b, cs_diff *out, bool *matched)
{
	size_t na = 0, nb = 0;
	const cs_event *ea = cs_device_events(a->dev, &na), *eb = cs_device_events(b->dev, &nb);
	bool *taken_b = calloc(nb + 1, 1), *taken_a = calloc(na + 1, 1);
	*matched = taken_a && taken_b;
	edit_match ma = { .field = NULL }, mb = { .field = NULL };
	if (*matched) {
		ma = first_unlike_edit(a->dev, ea, na, b->dev, eb, nb, taken_b, true);
		if (!ma.field)
			mb = first_unlike_edit(b->dev, eb, nb, a->dev, ea, na, taken_a, false);
	}
	free(taken_a);
	free(taken_b);
	if (!ma.field && !mb.field)
		return false;
	out->stage = CS_STAGE_HOST_FORWARD;
	if (ma.field) {
		out->index = ma.k;
		out->field = ma.field;
		set_point(&out->a, a->dev, true, ma.at);
		set_point(&out->b, b->dev, ma.other != SIZE_MAX, ma.other);
	} else {
		out->index = mb.k;
		out->field = mb.field;
		set_point(&out->a, a->dev, false, 0);
		set_point(&out->b, b->dev, true, mb.at);
	}
	return true;
}

static void set_point(cs_diff_point *p, const cs_device *dev, bool present, size_t event)
{
	memset(p, 0, sizeof(*p));
	p->present = present;
	if (!present)
		return;
	p->event = event;
	p->ev = *cs_device_event(dev, event);
	cs_device_addr_name(dev, p->ev.addr, p->addr_name, sizeof(p->addr_name));
}

static bool chains_differ(const cs_chain *a, const cs_chain *b)
{
	return a->first_break != b->first_break || a->cause != b->cause;
}

void cs_diff_runs(const cs_diff_run *a, const cs_diff_run *b, cs_diff *out)
{
	memset(out, 0, sizeof(*out));
	size_t na_ev = 0, nb_ev = 0;
	const cs_event *ea = cs_device_events(a->dev, &na_ev), *eb = cs_device_events(b->dev, &nb_ev);
	bool edits_matched = false;
	cs_diff edits;
	memset(&edits, 0, sizeof(edits));
	bool edits_differ = edits_diverge(a, b, &edits, &edits_matched);
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		const char *field = NULL;
		size_t ia = 0, ib = 0, k = 0;
		bool has_a, has_b;
		if (s == CS_STAGE_HOST_FORWARD && edits_differ) {
			out->stage_differs[s] = true;
			if (!out->diverged) {
				out->diverged = true;
				out->stage = edits.stage;
				out->edit = true;
				out->index = edits.index;
				out->field = edits.field;
				out->a = edits.a;
				out->b = edits.b;
			}
			continue;
		}
		bool skip_edits = s == CS_STAGE_HOST_FORWARD && edits_matched;
		/* walk the stage's records in both traces side by side */
		for (;; ia++, ib++, k++) {
			has_a = next_of_stage(ea, na_ev, s, skip_edits, &ia);
			has_b = next_of_stage(eb, nb_ev, s, skip_edits, &ib);
			if (!has_a || !has_b)
				break;
			field = record_difference(a->dev, &ea[ia], b->dev, &eb[ib]);
			if (field)
				break;
		}
		if (!field && has_a != has_b)
			field = "count";
		const cs_stage_row *ra = &a->report->overall.rows[s], *rb = &b->report->overall.rows[s];
		out->stage_differs[s] = field || ra->status != rb->status;
		if (!out->stage_differs[s] || out->diverged)
			continue;
		out->diverged = true;
		out->stage = (cs_stage)s;
		out->index = k;
		out->field = field ? field : "status";
		set_point(&out->a, a->dev, field && has_a, ia);
		set_point(&out->b, b->dev, field && has_b, ib);
	}
	size_t na = a->report->nlaunches, nb = b->report->nlaunches;
	for (size_t i = 0; i < na || i < nb; i++)
		out->launches_differ += i >= na || i >= nb ||
					chains_differ(&a->report->launches[i], &b->report->launches[i]);
	if (out->launches_differ && !out->diverged) {
		/* reachable only when the judge reads the same records differently */
		out->diverged = true;
		out->field = "launches";
	}
}

/* ---- text -------------------------------------------------------------------- */

static const char *optional(uint32_t v, char *buf, size_t len)
{
	if (v == CS_NONE32)
		return "-";
	snprintf(buf, len, "%" PRIu32, v);
	return buf;
}

static void print_point(const char *side, const cs_diff_run *run, const cs_diff_point *p,
			bool edit, FILE *out)
{
	if (!p->present) {
		fprintf(out, "  %s %s: %s\n", side, run->label, edit ? "no such edit" : "no record");
		return;
	}
	const cs_event *e = &p->ev;
	if (is_edit(e)) {
		fprintf(out, "  %s %s: %s by %s: %s%s%s%s\n", side, run->label,
			cs_forward_edit_name((cs_forward_edit)e->subch), cs_unit_name((cs_unit)e->unit),
			e->detail ? e->detail : "", e->cause ? " [" : "",
			e->cause ? cs_cause_key((cs_cause)e->cause) : "", e->cause ? "]" : "");
		return;
	}
	char ent[16], mi[16], la[16], method[96] = "-";
	if (e->method != CS_NONE32 &&
	    !cs_registry_method_label(cs_device_arch(run->dev), e->cls == CS_NONE32 ? 0 : e->cls,
				      e->subch == CS_NONE32 ? 0 : e->subch, e->method, method,
				      sizeof(method), NULL))
		snprintf(method, sizeof(method), "0x%" PRIx32, e->method);
	fprintf(out, "  %s %s: %s by %s, entry %s, method %s (%s), launch %s, addr %s (0x%" PRIx64
		"), value 0x%" PRIx64 ", aux 0x%" PRIx64 "%s%s\n", side, run->label,
		cs_event_kind_name((cs_event_kind)e->kind), cs_unit_name((cs_unit)e->unit),
		optional(e->gp_entry, ent, sizeof(ent)), optional(e->method_index, mi, sizeof(mi)),
		method, optional(e->launch, la, sizeof(la)), p->addr_name, e->addr, e->value, e->aux,
		e->detail ? ": " : "", e->detail ? e->detail : "");
}

/* A stage-3 divergence: the edit's target, and what differs or who lacks it. */
static void print_edit_divergence(const cs_diff *df, FILE *out)
{
	const cs_diff_point *p = df->a.present ? &df->a : &df->b;
	const char *target;
	int len = (int)target_of(&p->ev, &target);
	fprintf(out, "first divergence at stage %d (%s), edit %zu of %s: ", (int)df->stage,
		cs_stage_name(df->stage), df->index, df->a.present ? "A" : "B");
	if (!strcmp(df->field, "missing"))
		fprintf(out, "%s does not edit %.*s (%s: %s)\n", df->a.present ? "B" : "A", len,
			target, df->a.present ? "A" : "B",
			cs_forward_edit_name((cs_forward_edit)p->ev.subch));
	else if (!strcmp(df->field, "edit"))
		fprintf(out, "the edits of %.*s differ in kind: A %s, B %s\n", len, target,
			cs_forward_edit_name((cs_forward_edit)df->a.ev.subch),
			cs_forward_edit_name((cs_forward_edit)df->b.ev.subch));
	else
		fprintf(out, "the edits of %.*s differ in %s\n", len, target, df->field);
}

static void print_verdict(const cs_chain *c, FILE *out)
{
	if (c->first_break == CS_STAGE_NONE && c->unobservable != CS_STAGE_NONE)
		fprintf(out, "not observable from stage %d (%s) [%s]", (int)c->unobservable,
			cs_stage_name(c->unobservable), cs_cause_key(c->cause));
	else if (c->first_break == CS_STAGE_NONE)
		fprintf(out, "complete");
	else
		fprintf(out, "break at stage %d (%s) [%s]", (int)c->first_break,
			cs_stage_name(c->first_break), cs_cause_key(c->cause));
}

void cs_diff_print_text(const cs_diff_run *a, const cs_diff_run *b, const cs_diff *df, FILE *out)
{
	fprintf(out, "diff A %s vs B %s\n", a->label, b->label);
	fprintf(out, " #  %-15s %-14s %-14s %s\n", "stage", "A", "B", "records");
	for (int s = 1; s <= CS_STAGE_COUNT; s++)
		fprintf(out, "%2d  %-15s %-14s %-14s %s\n", s, cs_stage_name((cs_stage)s),
			cs_stage_status_name(a->report->overall.rows[s].status),
			cs_stage_status_name(b->report->overall.rows[s].status),
			df->stage_differs[s] ? "differ" : "same");
	const cs_report *ra = a->report, *rb = b->report;
	fprintf(out, "A: ");
	print_verdict(&ra->overall, out);
	fprintf(out, "\nB: ");
	print_verdict(&rb->overall, out);
	fprintf(out, "\n");
	for (size_t i = 0; i < ra->nlaunches || i < rb->nlaunches; i++) {
		const cs_chain *ca = i < ra->nlaunches ? &ra->launches[i] : NULL;
		const cs_chain *cb = i < rb->nlaunches ? &rb->launches[i] : NULL;
		if (ca && cb && !chains_differ(ca, cb))
			continue;
		fprintf(out, "launch %zu: A ", i);
		if (ca)
			print_verdict(ca, out);
		else
			fprintf(out, "no such launch");
		fprintf(out, ", B ");
		if (cb)
			print_verdict(cb, out);
		else
			fprintf(out, "no such launch");
		fprintf(out, "\n");
	}
	if (!df->diverged) {
		fprintf(out, "no divergence\n");
		return;
	}
	if (df->stage == CS_STAGE_NONE) {
		fprintf(out, "the same records were judged differently (launch chains differ)\n");
		return;
	}
	if (df->edit)
		print_edit_divergence(df, out);
	else
		fprintf(out, "first divergence at stage %d (%s), record %zu of the stage: %s differs\n",
			(int)df->stage, cs_stage_name(df->stage), df->index, df->field);
	print_point("A", a, &df->a, df->edit, out);
	print_point("B", b, &df->b, df->edit, out);
}

/* ---- JSON -------------------------------------------------------------------- */

static void add_str(cs_json_writer *jb, const char *key, const char *v)
{
	cs_json_key(jb, key);
	if (v)
		cs_json_string(jb, v);
	else
		cs_json_null(jb);
}

static void add_run(cs_json_writer *jb, const char *key, const cs_diff_run *r)
{
	cs_json_key(jb, key);
	cs_json_begin_object(jb);
	add_str(jb, "label", r->label);
	const cs_chain *c = &r->report->overall;
	add_str(jb, "result", cs_report_result(r->report, NULL));
	cs_json_key(jb, "first_break");
	if (c->first_break == CS_STAGE_NONE) {
		cs_json_null(jb);
	} else {
		cs_json_begin_object(jb);
		cs_json_member_int(jb, "stage", c->first_break);
		add_str(jb, "name", cs_stage_name(c->first_break));
		add_str(jb, "cause", cs_cause_key(c->cause));
		cs_json_end_object(jb);
	}
	cs_json_member_int(jb, "launches", (int64_t)r->report->nlaunches);
	cs_json_end_object(jb);
}

static void add_point(cs_json_writer *jb, const char *key, const cs_diff_run *run,
		      const cs_diff_point *p)
{
	cs_json_key(jb, key);
	if (!p->present) {
		cs_json_null(jb);
		return;
	}
	const cs_event *e = &p->ev;
	char method[96];
	bool edit = is_edit(e);
	/* an edit's record names no class: only a host method has a name there */
	bool named = e->method != CS_NONE32 && (!edit || e->method < CS_PB_HOST_METHODS) &&
		     cs_registry_method_label(cs_device_arch(run->dev),
					      e->cls == CS_NONE32 || edit ? 0 : e->cls,
					      e->subch == CS_NONE32 || edit ? 0 : e->subch, e->method,
					      method, sizeof(method), NULL);
	if (!named && edit && e->method != CS_NONE32) {
		snprintf(method, sizeof(method), "0x%" PRIx32, e->method);
		named = true;
	}
	cs_json_begin_object(jb);
	cs_json_member_int(jb, "record", (int64_t)p->event);
	add_str(jb, "kind", cs_event_kind_name((cs_event_kind)e->kind));
	add_str(jb, "unit", cs_unit_name((cs_unit)e->unit));
	cs_json_member_u32_or_null(jb, "channel", e->channel);
	cs_json_member_u32_or_null(jb, "launch", e->launch);
	cs_json_member_u32_or_null(jb, "entry", e->gp_entry);
	cs_json_member_u32_or_null(jb, "method_index", e->method_index);
	add_str(jb, "method", named ? method : NULL);
	add_str(jb, "edit", edit ? cs_forward_edit_name((cs_forward_edit)e->subch) : NULL);
	const char *target;
	int tlen = (int)target_of(e, &target);
	char tbuf[256];
	snprintf(tbuf, sizeof(tbuf), "%.*s", tlen, target);
	add_str(jb, "target", edit ? tbuf : NULL);
	cs_json_member_hex(jb, "addr", e->addr);
	add_str(jb, "addr_name", p->addr_name);
	cs_json_member_hex(jb, "value", e->value);
	cs_json_member_hex(jb, "aux", e->aux);
	add_str(jb, "detail", e->detail);
	cs_json_end_object(jb);
}

static void add_verdict(cs_json_writer *jb, const char *key, const cs_chain *c)
{
	cs_json_key(jb, key);
	if (!c) {
		cs_json_null(jb);
		return;
	}
	cs_json_begin_object(jb);
	add_str(jb, "result", c->first_break == CS_STAGE_NONE ? "complete" : "broken");
	cs_json_member_u32_or_null(jb, "break_stage", c->first_break == CS_STAGE_NONE ? CS_NONE32 : c->first_break);
	add_str(jb, "cause", c->first_break == CS_STAGE_NONE ? NULL : cs_cause_key(c->cause));
	cs_json_end_object(jb);
}

char *cs_diff_json(const cs_diff_run *a, const cs_diff_run *b, const cs_diff *df)
{
	cs_json_writer *jb = cs_json_writer_new(true);
	cs_json_begin_object(jb);
	cs_json_member_int(jb, "schema_version", 1);
	add_run(jb, "a", a);
	add_run(jb, "b", b);
	add_str(jb, "result", df->diverged ? "divergent" : "same");
	cs_json_key(jb, "chain");
	cs_json_begin_array(jb);
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		cs_json_begin_object(jb);
		cs_json_member_int(jb, "stage", s);
		add_str(jb, "name", cs_stage_name((cs_stage)s));
		add_str(jb, "a", cs_stage_status_name(a->report->overall.rows[s].status));
		add_str(jb, "b", cs_stage_status_name(b->report->overall.rows[s].status));
		add_str(jb, "records", df->stage_differs[s] ? "differ" : "same");
		cs_json_end_object(jb);
	}
	cs_json_end_array(jb);
	cs_json_key(jb, "launches");
	cs_json_begin_array(jb);
	const cs_report *ra = a->report, *rb = b->report;
	for (size_t i = 0; i < ra->nlaunches || i < rb->nlaunches; i++) {
		const cs_chain *ca = i < ra->nlaunches ? &ra->launches[i] : NULL;
		const cs_chain *cb = i < rb->nlaunches ? &rb->launches[i] : NULL;
		cs_json_begin_object(jb);
		cs_json_member_int(jb, "launch", (int64_t)i);
		add_verdict(jb, "a", ca);
		add_verdict(jb, "b", cb);
		cs_json_key(jb, "differ");
		cs_json_bool(jb, !ca || !cb || chains_differ(ca, cb));
		cs_json_end_object(jb);
	}
	cs_json_end_array(jb);
	cs_json_key(jb, "first_divergence");
	if (!df->diverged) {
		cs_json_null(jb);
	} else {
		cs_json_begin_object(jb);
		cs_json_member_u32_or_null(jb, "stage", df->stage == CS_STAGE_NONE ? CS_NONE32 : df->stage);
		add_str(jb, "name", df->stage == CS_STAGE_NONE ? NULL : cs_stage_name(df->stage));
		cs_json_key(jb, "edit");
		cs_json_bool(jb, df->edit);
		cs_json_member_int(jb, "index", (int64_t)df->index);
		add_str(jb, "field", df->field);
		add_point(jb, "a", a, &df->a);
		add_point(jb, "b", b, &df->b);
		cs_json_end_object(jb);
	}
	cs_json_end_object(jb);
	return cs_json_writer_finish(jb, NULL);
}
