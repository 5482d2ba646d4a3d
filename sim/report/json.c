/* SPDX-License-Identifier: MIT */
/* The --json object, schema version 1 (docs/json.md). Every field is always
 * present, null when it has no value, and the object is printed for every
 * outcome, input errors included. */
#include "chainsim/json.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include <stdlib.h>
#include <string.h>

#include "fit.h"

enum { JSON_SCHEMA_VERSION = 1 };

/* The address as the scenario names it (cs_device_addr_name). */
static void add_addr_name(cs_json_writer *b, const char *key, const cs_device *dev, uint64_t v)
{
	char buf[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(dev, v, buf, sizeof(buf));
	cs_json_key(b, key);
	cs_json_string(b, buf);
}

static void add_null(cs_json_writer *b, const char *key)
{
	cs_json_key(b, key);
	cs_json_null(b);
}

/* A string member; null for NULL or "". */
static void add_str(cs_json_writer *b, const char *key, const char *v)
{
	cs_json_key(b, key);
	if (v && v[0])
		cs_json_string(b, v);
	else
		cs_json_null(b);
}

/* A string from a fixed buffer of cap bytes, never cut mid-word. */
static void add_fit(cs_json_writer *b, const char *key, const char *v, size_t cap)
{
	char buf[CS_DIAGNOSIS_MAX + 8];
	add_str(b, key, cs_report_fit(v, cap < CS_DIAGNOSIS_MAX ? cap : CS_DIAGNOSIS_MAX, buf,
				      sizeof(buf)));
}

static void add_chain(cs_json_writer *b, const cs_chain *c)
{
	cs_json_begin_array(b);
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		const cs_stage_row *r = &c->rows[s];
		cs_json_begin_object(b);
		cs_json_member_int(b, "stage", s);
		add_str(b, "name", cs_stage_name((cs_stage)s));
		add_str(b, "status", cs_stage_status_name(r->status));
		add_str(b, "author", r->author == CS_AUTHOR_NONE ? NULL : cs_author_name(r->author));
		add_fit(b, "evidence", strcmp(r->evidence, "-") ? r->evidence : NULL,
			sizeof(r->evidence));
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
}

static void add_notes(cs_json_writer *b, const cs_report_note *n, size_t count, bool output)
{
	cs_json_begin_array(b);
	for (size_t i = 0; i < count; i++) {
		cs_json_begin_object(b);
		cs_json_member_u32_or_null(b, "launch", n[i].launch);
		cs_json_member_int(b, "cta", (int64_t)n[i].cta);
		if (output)
			cs_json_member_int(b, "thread", (int64_t)n[i].thread);
		add_str(b, "text", n[i].text);
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
}

static void add_assumptions(cs_json_writer *b, const cs_report *r)
{
	cs_json_begin_array(b);
	for (size_t i = 0; i < r->nassumptions; i++)
		cs_json_string(b, r->assumptions[i]);
	cs_json_end_array(b);
}

/* The record that decided a break (or a not-observable stage), or null. */
static void add_evidence(cs_json_writer *b, const cs_chain *c, const cs_device *dev)
{
	const cs_event *e = dev && c->break_event != SIZE_MAX ? cs_device_event(dev, c->break_event) : NULL;
	cs_json_key(b, "evidence");
	if (!e) {
		cs_json_null(b);
		return;
	}
	cs_json_begin_object(b);
	add_str(b, "record", cs_event_kind_name((cs_event_kind)e->kind));
	cs_json_member_int(b, "seq", (int64_t)e->seq);
	cs_json_member_int(b, "channel", e->channel);
	cs_json_member_u32_or_null(b, "gp_entry", e->gp_entry);
	cs_json_member_u32_or_null(b, "method_index", e->method_index);
	cs_json_member_hex(b, "addr", e->addr);
	add_addr_name(b, "addr_name", dev, e->addr);
	cs_json_member_hex(b, "value", e->value);
	cs_json_end_object(b);
}

static void add_break(cs_json_writer *b, const cs_report *r, const cs_chain *c, const cs_device *dev)
{
	if (c->first_break == CS_STAGE_NONE) {
		cs_json_null(b);
		return;
	}
	cs_json_begin_object(b);
	cs_json_member_int(b, "stage", c->first_break);
	add_str(b, "name", cs_stage_name(c->first_break));
	add_str(b, "cause", cs_cause_key(c->cause));
	add_fit(b, "diagnosis", c->diagnosis, sizeof(c->diagnosis));
	add_evidence(b, c, dev);
	/* The model's assumptions belong to the run as a whole: the overall
	 * break carries them (as does the top-level `assumptions`). */
	cs_json_key(b, "assumptions");
	if (c == &r->overall)
		add_assumptions(b, r);
	else
		cs_json_null(b);
	cs_json_end_object(b);
}

/* With no break, the first stage the backend cannot judge (code the
 * simulator cannot run), its cause and diagnosis; else null. */
static void add_not_observable(cs_json_writer *b, const cs_chain *c, const cs_device *dev)
{
	if (c->first_break != CS_STAGE_NONE || c->unobservable == CS_STAGE_NONE) {
		cs_json_null(b);
		return;
	}
	cs_json_begin_object(b);
	cs_json_member_int(b, "stage", c->unobservable);
	add_str(b, "name", cs_stage_name(c->unobservable));
	add_str(b, "cause", cs_cause_key(c->cause));
	add_fit(b, "diagnosis", c->diagnosis, sizeof(c->diagnosis));
	add_evidence(b, c, dev);
	cs_json_end_object(b);
}

/* The located message of an input error: file, line and col of a text
 * position, offset of a binary one, each null when the error has none. */
static void add_error(cs_json_writer *b, const cs_report_meta *meta)
{
	cs_json_key(b, "error");
	if (!meta || !meta->error) {
		cs_json_null(b);
		return;
	}
	const cs_diag *d = meta->error_diag;
	cs_json_begin_object(b);
	add_str(b, "status", d ? cs_status_name(d->status) : NULL);
	add_str(b, "file", d ? d->file : NULL);
	if (d && d->line)
		cs_json_member_int(b, "line", d->line);
	else
		add_null(b, "line");
	if (d && d->line && d->col)
		cs_json_member_int(b, "col", d->col);
	else
		add_null(b, "col");
	if (d && d->has_offset)
		cs_json_member_int(b, "offset", (int64_t)d->offset);
	else
		add_null(b, "offset");
	add_str(b, "message", d && d->msg[0] ? d->msg : meta->error_msg);
	add_str(b, "text", meta->error_msg);
	cs_json_end_object(b);
}

static void add_expectations(cs_json_writer *b, const cs_report_meta *meta)
{
	enum { TEXT_CAP = sizeof(((cs_expect_outcome *)0)->text),
	       DETAIL_CAP = sizeof(((cs_expect_outcome *)0)->detail) };
	cs_json_begin_array(b);
	for (size_t i = 0; meta && i < meta->nexpects; i++) {
		const cs_report_expect *e = &meta->expects[i];
		cs_json_begin_object(b);
		cs_json_member_int(b, "line", e->line);
		add_fit(b, "text", e->text, TEXT_CAP);
		cs_json_key(b, "held");
		cs_json_bool(b, e->held);
		add_fit(b, "detail", e->held ? NULL : e->detail, DETAIL_CAP);
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
}

static void add_faults(cs_json_writer *b, const cs_device *dev)
{
	cs_json_begin_array(b);
	size_t n = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	for (size_t i = 0; i < n; i++) {
		const cs_event *e = &ev[i];
		if (e->kind != CS_EV_FAULT)
			continue;
		cs_json_begin_object(b);
		cs_json_member_int(b, "seq", (int64_t)e->seq);
		cs_json_member_int(b, "stage", e->stage);
		add_str(b, "unit", cs_unit_name((cs_unit)e->unit));
		add_str(b, "access", cs_access_name((cs_access)e->value));
		cs_json_member_hex(b, "addr", e->addr);
		add_addr_name(b, "addr_name", dev, e->addr);
		cs_json_member_int(b, "channel", e->channel);
		cs_json_member_u32_or_null(b, "launch", e->launch);
		cs_json_member_u32_or_null(b, "gp_entry", e->gp_entry);
		cs_json_member_u32_or_null(b, "method_index", e->method_index);
		add_str(b, "detail", e->detail);
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
}

/* Every forwarding edit (stage 3), in trace order. */
static void add_edits(cs_json_writer *b, const cs_report *r, const cs_device *dev)
{
	cs_json_begin_array(b);
	for (size_t i = 0; i < r->nedits; i++) {
		const cs_report_edit *e = &r->edits[i];
		cs_json_begin_object(b);
		cs_json_member_int(b, "record", (int64_t)e->event);
		add_str(b, "edit", cs_forward_edit_name(e->edit));
		cs_json_member_u32_or_null(b, "gp_entry", e->entry);
		cs_json_member_hex(b, "guest", e->guest);
		add_addr_name(b, "guest_name", dev, e->guest);
		cs_json_member_hex(b, "host", e->host);
		cs_json_member_hex(b, "value", e->value);
		add_str(b, "cause", e->cause ? cs_cause_key(e->cause) : NULL);
		add_str(b, "text", e->text);
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
}

char *cs_report_json(const cs_report *r, const cs_device *dev, const cs_report_meta *meta)
{
	/* After an input error the partial run's chain would blame the guest for
	 * directives that never ran: the judged fields are null then, and only
	 * what the run recorded (faults, counters, assumptions) is shown. */
	bool judged = r && !(meta && meta->error);
	cs_json_writer *b = cs_json_writer_new(true);
	cs_json_begin_object(b);
	cs_json_member_int(b, "schema_version", JSON_SCHEMA_VERSION);
	add_str(b, "file", meta ? meta->file : NULL);
	const cs_arch_info *ai = r ? cs_arch_get(r->arch) : NULL;
	add_str(b, "arch", ai ? ai->name : NULL);
	add_str(b, "result", r || (meta && meta->error) ? cs_report_result(r, meta) : "error");
	add_error(b, meta);

	cs_json_key(b, "chain");
	if (judged)
		add_chain(b, &r->overall);
	else
		cs_json_null(b);

	cs_json_key(b, "first_break");
	if (judged)
		add_break(b, r, &r->overall, dev);
	else
		cs_json_null(b);

	cs_json_key(b, "not_observable");
	if (judged)
		add_not_observable(b, &r->overall, dev);
	else
		cs_json_null(b);

	cs_json_key(b, "launches");
	if (judged) {
		cs_json_begin_array(b);
		for (size_t i = 0; i < r->nlaunches; i++) {
			const cs_chain *c = &r->launches[i];
			cs_json_begin_object(b);
			cs_json_member_int(b, "launch", c->launch);
			add_str(b, "result", c->first_break != CS_STAGE_NONE   ? "broken"
					     : c->unobservable != CS_STAGE_NONE ? "not-observable"
										 : "complete");
			cs_json_key(b, "chain");
			add_chain(b, c);
			cs_json_key(b, "first_break");
			add_break(b, r, c, dev);
			cs_json_key(b, "not_observable");
			add_not_observable(b, c, dev);
			cs_json_end_object(b);
		}
		cs_json_end_array(b);
	} else {
		cs_json_null(b);
	}

	cs_json_key(b, "expectations");
	if (judged)
		add_expectations(b, meta);
	else
		cs_json_null(b);

	cs_json_key(b, "faults");
	if (dev)
		add_faults(b, dev);
	else
		cs_json_null(b);

	cs_json_key(b, "edits");
	if (r)
		add_edits(b, r, dev);
	else
		cs_json_null(b);

	cs_json_key(b, "counters");
	if (r) {
		cs_json_begin_object(b);
		for (size_t i = 0; i < r->ncounters; i++)
			cs_json_member_int(b, cs_report_counter_name(r, i), (int64_t)r->counters[i]);
		cs_json_end_object(b);
	} else {
		cs_json_null(b);
	}

	cs_json_key(b, "assumptions");
	if (r)
		add_assumptions(b, r);
	else
		cs_json_null(b);

	cs_json_key(b, "findings");
	if (r)
		add_notes(b, r->findings, r->nfindings, false);
	else
		cs_json_null(b);

	cs_json_key(b, "output");
	if (r)
		add_notes(b, r->output, r->noutput, true);
	else
		cs_json_null(b);

	cs_json_end_object(b);

	return cs_json_writer_finish(b, NULL);
}
