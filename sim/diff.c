/* SPDX-License-Identifier: MIT */
/* Two finished runs compared: chains side by side, traces aligned stage by
 * stage, the first divergence (include/chainsim/diff.h, docs/diff.md). */
#include "chainsim/diff.h"
#include "chainsim/json.h"
#include "chainsim/registry.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The next record of stage s at or after *i in the trace; false at its end. */
static bool next_of_stage(const cs_event *evs, size_t n, int s, size_t *i)
{
	while (*i < n && evs[*i].stage != s)
		(*i)++;
	return *i < n;
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
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		const char *field = NULL;
		size_t ia = 0, ib = 0, k = 0;
		bool has_a, has_b;
		/* walk the stage's records in both traces side by side */
		for (;; ia++, ib++, k++) {
			has_a = next_of_stage(ea, na_ev, s, &ia);
			has_b = next_of_stage(eb, nb_ev, s, &ib);
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
			FILE *out)
{
	if (!p->present) {
		fprintf(out, "  %s %s: no record\n", side, run->label);
		return;
	}
	const cs_event *e = &p->ev;
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
	fprintf(out, "first divergence at stage %d (%s), record %zu of the stage: %s differs\n",
		(int)df->stage, cs_stage_name(df->stage), df->index, df->field);
	print_point("A", a, &df->a, out);
	print_point("B", b, &df->b, out);
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

static void add_int(cs_json_writer *jb, const char *key, int64_t v)
{
	cs_json_key(jb, key);
	cs_json_int(jb, v);
}

static void add_opt(cs_json_writer *jb, const char *key, uint32_t v)
{
	cs_json_key(jb, key);
	if (v == CS_NONE32)
		cs_json_null(jb);
	else
		cs_json_int(jb, v);
}

static void add_hex(cs_json_writer *jb, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	add_str(jb, key, buf);
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
		add_int(jb, "stage", c->first_break);
		add_str(jb, "name", cs_stage_name(c->first_break));
		add_str(jb, "cause", cs_cause_key(c->cause));
		cs_json_end_object(jb);
	}
	add_int(jb, "launches", (int64_t)r->report->nlaunches);
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
	bool named = e->method != CS_NONE32 &&
		     cs_registry_method_label(cs_device_arch(run->dev),
					      e->cls == CS_NONE32 ? 0 : e->cls,
					      e->subch == CS_NONE32 ? 0 : e->subch, e->method, method,
					      sizeof(method), NULL);
	cs_json_begin_object(jb);
	add_int(jb, "record", (int64_t)p->event);
	add_str(jb, "kind", cs_event_kind_name((cs_event_kind)e->kind));
	add_str(jb, "unit", cs_unit_name((cs_unit)e->unit));
	add_opt(jb, "channel", e->channel);
	add_opt(jb, "launch", e->launch);
	add_opt(jb, "entry", e->gp_entry);
	add_opt(jb, "method_index", e->method_index);
	add_str(jb, "method", named ? method : NULL);
	add_hex(jb, "addr", e->addr);
	add_str(jb, "addr_name", p->addr_name);
	add_hex(jb, "value", e->value);
	add_hex(jb, "aux", e->aux);
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
	add_opt(jb, "break_stage", c->first_break == CS_STAGE_NONE ? CS_NONE32 : c->first_break);
	add_str(jb, "cause", c->first_break == CS_STAGE_NONE ? NULL : cs_cause_key(c->cause));
	cs_json_end_object(jb);
}

char *cs_diff_json(const cs_diff_run *a, const cs_diff_run *b, const cs_diff *df)
{
	cs_json_writer *jb = cs_json_writer_new(true);
	cs_json_begin_object(jb);
	add_int(jb, "schema_version", 1);
	add_run(jb, "a", a);
	add_run(jb, "b", b);
	add_str(jb, "result", df->diverged ? "divergent" : "same");
	cs_json_key(jb, "chain");
	cs_json_begin_array(jb);
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		cs_json_begin_object(jb);
		add_int(jb, "stage", s);
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
		add_int(jb, "launch", (int64_t)i);
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
		add_opt(jb, "stage", df->stage == CS_STAGE_NONE ? CS_NONE32 : df->stage);
		add_str(jb, "name", df->stage == CS_STAGE_NONE ? NULL : cs_stage_name(df->stage));
		add_int(jb, "index", (int64_t)df->index);
		add_str(jb, "field", df->field);
		add_point(jb, "a", a, &df->a);
		add_point(jb, "b", b, &df->b);
		cs_json_end_object(jb);
	}
	cs_json_end_object(jb);
	return cs_json_writer_finish(jb, NULL);
}
