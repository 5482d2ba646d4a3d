/* SPDX-License-Identifier: MIT */
/* The --json object, schema version 1 (docs/json.md). Every field is always
 * present, null when it has no value, and the object is printed for every
 * outcome, input errors included. */
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "report_fit.h"

enum { JSON_SCHEMA_VERSION = 1 };

static void add_hex(JsonBuilder *b, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	json_builder_set_member_name(b, key);
	json_builder_add_string_value(b, buf);
}

/* The address as the scenario names it (cs_device_addr_name). */
static void add_addr_name(JsonBuilder *b, const char *key, const cs_device *dev, uint64_t v)
{
	char buf[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(dev, v, buf, sizeof(buf));
	json_builder_set_member_name(b, key);
	json_builder_add_string_value(b, buf);
}

static void add_int(JsonBuilder *b, const char *key, int64_t v)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, v);
}

static void add_null(JsonBuilder *b, const char *key)
{
	json_builder_set_member_name(b, key);
	json_builder_add_null_value(b);
}

/* A string member; null for NULL or "". */
static void add_str(JsonBuilder *b, const char *key, const char *v)
{
	json_builder_set_member_name(b, key);
	if (v && v[0])
		json_builder_add_string_value(b, v);
	else
		json_builder_add_null_value(b);
}

/* A string from a fixed buffer of cap bytes, never cut mid-word. */
static void add_fit(JsonBuilder *b, const char *key, const char *v, size_t cap)
{
	char buf[CS_DIAGNOSIS_MAX + 8];
	add_str(b, key, cs_report_fit(v, cap < CS_DIAGNOSIS_MAX ? cap : CS_DIAGNOSIS_MAX, buf,
				      sizeof(buf)));
}

/* A record field that may be "none": null, else the number. */
static void add_opt(JsonBuilder *b, const char *key, uint32_t v)
{
	json_builder_set_member_name(b, key);
	if (v == CS_NONE32)
		json_builder_add_null_value(b);
	else
		json_builder_add_int_value(b, v);
}

static void add_chain(JsonBuilder *b, const cs_chain *c)
{
	json_builder_begin_array(b);
	for (int s = 1; s <= CS_STAGE_COUNT; s++) {
		const cs_stage_row *r = &c->rows[s];
		json_builder_begin_object(b);
		add_int(b, "stage", s);
		add_str(b, "name", cs_stage_name((cs_stage)s));
		add_str(b, "status", cs_stage_status_name(r->status));
		add_str(b, "author", r->author == CS_AUTHOR_NONE ? NULL : cs_author_name(r->author));
		add_fit(b, "evidence", strcmp(r->evidence, "-") ? r->evidence : NULL,
			sizeof(r->evidence));
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static void add_notes(JsonBuilder *b, const cs_report_note *n, size_t count, bool output)
{
	json_builder_begin_array(b);
	for (size_t i = 0; i < count; i++) {
		json_builder_begin_object(b);
		add_opt(b, "launch", n[i].launch);
		add_int(b, "cta", (int64_t)n[i].cta);
		if (output)
			add_int(b, "thread", (int64_t)n[i].thread);
		add_str(b, "text", n[i].text);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static void add_assumptions(JsonBuilder *b, const cs_report *r)
{
	json_builder_begin_array(b);
	for (size_t i = 0; i < r->nassumptions; i++)
		json_builder_add_string_value(b, r->assumptions[i]);
	json_builder_end_array(b);
}

/* The record that decided a break (or a not-observable stage), or null. */
static void add_evidence(JsonBuilder *b, const cs_chain *c, const cs_device *dev)
{
	const cs_event *e = dev && c->break_event != SIZE_MAX ? cs_device_event(dev, c->break_event) : NULL;
	json_builder_set_member_name(b, "evidence");
	if (!e) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_object(b);
	add_str(b, "record", cs_event_kind_name((cs_event_kind)e->kind));
	add_int(b, "seq", (int64_t)e->seq);
	add_int(b, "channel", e->channel);
	add_opt(b, "gp_entry", e->gp_entry);
	add_opt(b, "method_index", e->method_index);
	add_hex(b, "addr", e->addr);
	add_addr_name(b, "addr_name", dev, e->addr);
	add_hex(b, "value", e->value);
	json_builder_end_object(b);
}

static void add_break(JsonBuilder *b, const cs_report *r, const cs_chain *c, const cs_device *dev)
{
	if (c->first_break == CS_STAGE_NONE) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_object(b);
	add_int(b, "stage", c->first_break);
	add_str(b, "name", cs_stage_name(c->first_break));
	add_str(b, "cause", cs_cause_key(c->cause));
	add_fit(b, "diagnosis", c->diagnosis, sizeof(c->diagnosis));
	add_evidence(b, c, dev);
	/* The model's assumptions belong to the run as a whole: the overall
	 * break carries them (as does the top-level `assumptions`). */
	json_builder_set_member_name(b, "assumptions");
	if (c == &r->overall)
		add_assumptions(b, r);
	else
		json_builder_add_null_value(b);
	json_builder_end_object(b);
}

/* With no break, the first stage the backend cannot judge (code the
 * simulator cannot run), its cause and diagnosis; else null. */
static void add_not_observable(JsonBuilder *b, const cs_chain *c, const cs_device *dev)
{
	if (c->first_break != CS_STAGE_NONE || c->unobservable == CS_STAGE_NONE) {
		json_builder_add_null_value(b);
		return;
	}
	json_builder_begin_object(b);
	add_int(b, "stage", c->unobservable);
	add_str(b, "name", cs_stage_name(c->unobservable));
	add_str(b, "cause", cs_cause_key(c->cause));
	add_fit(b, "diagnosis", c->diagnosis, sizeof(c->diagnosis));
	add_evidence(b, c, dev);
	json_builder_end_object(b);
}

/* The located message of an input error: file, line and col of a text
 * position, offset of a binary one, each null when the error has none. */
static void add_error(JsonBuilder *b, const cs_report_meta *meta)
{
	json_builder_set_member_name(b, "error");
	if (!meta || !meta->error) {
		json_builder_add_null_value(b);
		return;
	}
	const cs_diag *d = meta->error_diag;
	json_builder_begin_object(b);
	add_str(b, "status", d ? cs_status_name(d->status) : NULL);
	add_str(b, "file", d ? d->file : NULL);
	if (d && d->line)
		add_int(b, "line", d->line);
	else
		add_null(b, "line");
	if (d && d->line && d->col)
		add_int(b, "col", d->col);
	else
		add_null(b, "col");
	if (d && d->has_offset)
		add_int(b, "offset", (int64_t)d->offset);
	else
		add_null(b, "offset");
	add_str(b, "message", d && d->msg[0] ? d->msg : meta->error_msg);
	add_str(b, "text", meta->error_msg);
	json_builder_end_object(b);
}

static void add_expectations(JsonBuilder *b, const cs_report_meta *meta)
{
	enum { TEXT_CAP = sizeof(((cs_expect_outcome *)0)->text),
	       DETAIL_CAP = sizeof(((cs_expect_outcome *)0)->detail) };
	json_builder_begin_array(b);
	for (size_t i = 0; meta && i < meta->nexpects; i++) {
		const cs_report_expect *e = &meta->expects[i];
		json_builder_begin_object(b);
		add_int(b, "line", e->line);
		add_fit(b, "text", e->text, TEXT_CAP);
		json_builder_set_member_name(b, "held");
		json_builder_add_boolean_value(b, e->held);
		add_fit(b, "detail", e->held ? NULL : e->detail, DETAIL_CAP);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

static void add_faults(JsonBuilder *b, const cs_device *dev)
{
	json_builder_begin_array(b);
	size_t n = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	for (size_t i = 0; i < n; i++) {
		const cs_event *e = &ev[i];
		if (e->kind != CS_EV_FAULT)
			continue;
		json_builder_begin_object(b);
		add_int(b, "seq", (int64_t)e->seq);
		add_int(b, "stage", e->stage);
		add_str(b, "unit", cs_unit_name((cs_unit)e->unit));
		add_str(b, "access", cs_access_name((cs_access)e->value));
		add_hex(b, "addr", e->addr);
		add_addr_name(b, "addr_name", dev, e->addr);
		add_int(b, "channel", e->channel);
		add_opt(b, "launch", e->launch);
		add_opt(b, "gp_entry", e->gp_entry);
		add_opt(b, "method_index", e->method_index);
		add_str(b, "detail", e->detail);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

/* Every forwarding edit (stage 3), in trace order. */
static void add_edits(JsonBuilder *b, const cs_report *r, const cs_device *dev)
{
	json_builder_begin_array(b);
	for (size_t i = 0; i < r->nedits; i++) {
		const cs_report_edit *e = &r->edits[i];
		json_builder_begin_object(b);
		add_int(b, "record", (int64_t)e->event);
		add_str(b, "edit", cs_forward_edit_name(e->edit));
		add_opt(b, "gp_entry", e->entry);
		add_hex(b, "guest", e->guest);
		add_addr_name(b, "guest_name", dev, e->guest);
		add_hex(b, "host", e->host);
		add_hex(b, "value", e->value);
		add_str(b, "cause", e->cause ? cs_cause_key(e->cause) : NULL);
		add_str(b, "text", e->text);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
}

char *cs_report_json(const cs_report *r, const cs_device *dev, const cs_report_meta *meta)
{
	/* After an input error the partial run's chain would blame the guest for
	 * directives that never ran: the judged fields are null then, and only
	 * what the run recorded (faults, counters, assumptions) is shown. */
	bool judged = r && !(meta && meta->error);
	JsonBuilder *b = json_builder_new();
	json_builder_begin_object(b);
	add_int(b, "schema_version", JSON_SCHEMA_VERSION);
	add_str(b, "file", meta ? meta->file : NULL);
	const cs_arch_info *ai = r ? cs_arch_get(r->arch) : NULL;
	add_str(b, "arch", ai ? ai->name : NULL);
	add_str(b, "result", r || (meta && meta->error) ? cs_report_result(r, meta) : "error");
	add_error(b, meta);

	json_builder_set_member_name(b, "chain");
	if (judged)
		add_chain(b, &r->overall);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "first_break");
	if (judged)
		add_break(b, r, &r->overall, dev);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "not_observable");
	if (judged)
		add_not_observable(b, &r->overall, dev);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "launches");
	if (judged) {
		json_builder_begin_array(b);
		for (size_t i = 0; i < r->nlaunches; i++) {
			const cs_chain *c = &r->launches[i];
			json_builder_begin_object(b);
			add_int(b, "launch", c->launch);
			json_builder_set_member_name(b, "chain");
			add_chain(b, c);
			json_builder_set_member_name(b, "first_break");
			add_break(b, r, c, dev);
			json_builder_set_member_name(b, "not_observable");
			add_not_observable(b, c, dev);
			json_builder_end_object(b);
		}
		json_builder_end_array(b);
	} else {
		json_builder_add_null_value(b);
	}

	json_builder_set_member_name(b, "expectations");
	if (judged)
		add_expectations(b, meta);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "faults");
	if (dev)
		add_faults(b, dev);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "edits");
	if (r)
		add_edits(b, r, dev);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "counters");
	if (r) {
		json_builder_begin_object(b);
		for (size_t i = 0; i < r->ncounters; i++)
			add_int(b, cs_report_counter_name(r, i), (int64_t)r->counters[i]);
		json_builder_end_object(b);
	} else {
		json_builder_add_null_value(b);
	}

	json_builder_set_member_name(b, "assumptions");
	if (r)
		add_assumptions(b, r);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "findings");
	if (r)
		add_notes(b, r->findings, r->nfindings, false);
	else
		json_builder_add_null_value(b);

	json_builder_set_member_name(b, "output");
	if (r)
		add_notes(b, r->output, r->noutput, true);
	else
		json_builder_add_null_value(b);

	json_builder_end_object(b);

	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	json_generator_set_pretty(g, TRUE);
	json_generator_set_indent(g, 2);
	gchar *text = json_generator_to_data(g, NULL);
	char *out = text ? strdup(text) : NULL;
	g_free(text);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
	return out;
}
