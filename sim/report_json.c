/* The --json object of DESIGN.md section 4: exactly arch, result, chain,
 * first_break, launches, expectations, faults, counters. */
#include "chainsim/report.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

static void add_hex(JsonBuilder *b, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	json_builder_set_member_name(b, key);
	json_builder_add_string_value(b, buf);
}

static void add_int(JsonBuilder *b, const char *key, int64_t v)
{
	json_builder_set_member_name(b, key);
	json_builder_add_int_value(b, v);
}

static void add_str(JsonBuilder *b, const char *key, const char *v)
{
	json_builder_set_member_name(b, key);
	json_builder_add_string_value(b, v ? v : "");
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
		add_str(b, "author", cs_author_name(r->author));
		add_str(b, "evidence", r->evidence[0] ? r->evidence : "-");
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
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
	add_str(b, "diagnosis", c->diagnosis);
	const cs_event *e = dev && c->break_event != SIZE_MAX ? cs_device_event(dev, c->break_event) : NULL;
	if (e) {
		json_builder_set_member_name(b, "evidence");
		json_builder_begin_object(b);
		add_str(b, "record", cs_event_kind_name((cs_event_kind)e->kind));
		add_int(b, "seq", (int64_t)e->seq);
		add_int(b, "channel", e->channel);
		add_opt(b, "gp_entry", e->gp_entry);
		add_opt(b, "method_index", e->method_index);
		add_hex(b, "addr", e->addr);
		add_hex(b, "value", e->value);
		json_builder_end_object(b);
	}
	if (c == &r->overall) {
		json_builder_set_member_name(b, "assumptions");
		json_builder_begin_array(b);
		for (size_t i = 0; i < r->nassumptions; i++)
			json_builder_add_string_value(b, r->assumptions[i]);
		json_builder_end_array(b);
	}
	json_builder_end_object(b);
}

char *cs_report_json(const cs_report *r, const cs_device *dev, const cs_report_meta *meta)
{
	JsonBuilder *b = json_builder_new();
	json_builder_begin_object(b);
	const cs_arch_info *ai = cs_arch_get(r->arch);
	add_str(b, "arch", ai ? ai->name : "?");
	add_str(b, "result", cs_report_result(r, meta));

	json_builder_set_member_name(b, "chain");
	add_chain(b, &r->overall);

	json_builder_set_member_name(b, "first_break");
	add_break(b, r, &r->overall, dev);

	json_builder_set_member_name(b, "launches");
	json_builder_begin_array(b);
	for (size_t i = 0; i < r->nlaunches; i++) {
		const cs_chain *c = &r->launches[i];
		json_builder_begin_object(b);
		add_int(b, "launch", c->launch);
		json_builder_set_member_name(b, "chain");
		add_chain(b, c);
		json_builder_set_member_name(b, "first_break");
		add_break(b, r, c, dev);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);

	json_builder_set_member_name(b, "expectations");
	json_builder_begin_array(b);
	for (size_t i = 0; meta && i < meta->nexpects; i++) {
		const cs_report_expect *e = &meta->expects[i];
		json_builder_begin_object(b);
		add_int(b, "line", e->line);
		add_str(b, "text", e->text);
		json_builder_set_member_name(b, "held");
		json_builder_add_boolean_value(b, e->held);
		add_str(b, "detail", e->held ? "" : e->detail);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);

	json_builder_set_member_name(b, "faults");
	json_builder_begin_array(b);
	size_t n = 0;
	const cs_event *ev = dev ? cs_device_events(dev, &n) : NULL;
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
		add_int(b, "channel", e->channel);
		add_opt(b, "launch", e->launch);
		add_opt(b, "gp_entry", e->gp_entry);
		add_opt(b, "method_index", e->method_index);
		add_str(b, "detail", e->detail);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);

	json_builder_set_member_name(b, "counters");
	json_builder_begin_object(b);
	for (size_t i = 0; i < r->ncounters; i++)
		add_int(b, cs_report_counter_name(r, i), (int64_t)r->counters[i]);
	json_builder_end_object(b);

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
