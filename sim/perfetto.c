/* The trace as Chrome/Perfetto trace-event JSON: one process (the device),
 * one track (thread) per unit, per channel for the front end; every record an
 * instant event, each grid a complete event from dispatch to its outcome.
 * Virtual time is the clock: ts in microseconds of virtual nanoseconds. */
#include "chainsim/report.h"

#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

enum {
	TID_GUEST = 1,
	TID_HOST = 2,
	TID_COMPUTE = 10,
	TID_COPY = 11,
	TID_SM = 12,
	TID_CHANNEL = 100, /* + channel id: the front end's track for that channel */
};

static int64_t tid_of(const cs_event *e)
{
	switch ((cs_unit)e->unit) {
	case CS_UNIT_GUEST: return TID_GUEST;
	case CS_UNIT_HOST: return TID_HOST;
	case CS_UNIT_FE: return TID_CHANNEL + e->channel;
	case CS_UNIT_COMPUTE: return TID_COMPUTE;
	case CS_UNIT_COPY: return TID_COPY;
	case CS_UNIT_SM: return TID_SM;
	case CS_UNIT_COUNT: break;
	}
	return TID_HOST;
}

static void track_name(JsonBuilder *b, int64_t tid, const char *name)
{
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "ph");
	json_builder_add_string_value(b, "M");
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, "thread_name");
	json_builder_set_member_name(b, "pid");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "tid");
	json_builder_add_int_value(b, tid);
	json_builder_set_member_name(b, "args");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, name);
	json_builder_end_object(b);
	json_builder_end_object(b);
}

static void hex_member(JsonBuilder *b, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	json_builder_set_member_name(b, key);
	json_builder_add_string_value(b, buf);
}

static void event_common(JsonBuilder *b, const char *name, const char *ph, int64_t tid,
			 uint64_t time_ns)
{
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, name);
	json_builder_set_member_name(b, "cat");
	json_builder_add_string_value(b, "chain");
	json_builder_set_member_name(b, "ph");
	json_builder_add_string_value(b, ph);
	json_builder_set_member_name(b, "pid");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "tid");
	json_builder_add_int_value(b, tid);
	json_builder_set_member_name(b, "ts");
	json_builder_add_double_value(b, (double)time_ns / 1000.0);
}

static void event_args(JsonBuilder *b, const cs_event *e)
{
	json_builder_set_member_name(b, "args");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "seq");
	json_builder_add_int_value(b, (int64_t)e->seq);
	json_builder_set_member_name(b, "stage");
	json_builder_add_int_value(b, e->stage);
	json_builder_set_member_name(b, "channel");
	json_builder_add_int_value(b, e->channel);
	if (e->launch != CS_NONE32) {
		json_builder_set_member_name(b, "launch");
		json_builder_add_int_value(b, e->launch);
	}
	if (e->gp_entry != CS_NONE32) {
		json_builder_set_member_name(b, "gp_entry");
		json_builder_add_int_value(b, e->gp_entry);
	}
	if (e->method_index != CS_NONE32) {
		json_builder_set_member_name(b, "method_index");
		json_builder_add_int_value(b, e->method_index);
	}
	if (e->method != CS_NONE32)
		hex_member(b, "method", e->method);
	hex_member(b, "addr", e->addr);
	hex_member(b, "value", e->value);
	hex_member(b, "aux", e->aux);
	if (e->detail) {
		json_builder_set_member_name(b, "detail");
		json_builder_add_string_value(b, e->detail);
	}
	json_builder_end_object(b);
}

char *cs_trace_perfetto_json(const cs_device *dev)
{
	size_t n = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	JsonBuilder *b = json_builder_new();
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "displayTimeUnit");
	json_builder_add_string_value(b, "ns");
	json_builder_set_member_name(b, "traceEvents");
	json_builder_begin_array(b);

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "ph");
	json_builder_add_string_value(b, "M");
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, "process_name");
	json_builder_set_member_name(b, "pid");
	json_builder_add_int_value(b, 1);
	json_builder_set_member_name(b, "args");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "name");
	const cs_arch_info *ai = cs_arch_get(cs_device_arch(dev));
	char pname[64];
	snprintf(pname, sizeof(pname), "chainsim %s device", ai ? ai->name : "?");
	json_builder_add_string_value(b, pname);
	json_builder_end_object(b);
	json_builder_end_object(b);

	track_name(b, TID_GUEST, "guest");
	track_name(b, TID_HOST, "host");
	for (uint32_t c = 0; c < cs_device_channel_count(dev); c++) {
		char name[96];
		snprintf(name, sizeof(name), "channel %s (front end)", cs_device_channel_name(dev, c));
		track_name(b, TID_CHANNEL + c, name);
	}
	track_name(b, TID_COMPUTE, "compute engine");
	track_name(b, TID_COPY, "copy engine");
	track_name(b, TID_SM, "sm (executor)");

	for (size_t i = 0; i < n; i++) {
		const cs_event *e = &ev[i];
		json_builder_begin_object(b);
		event_common(b, cs_event_kind_name((cs_event_kind)e->kind), "i", tid_of(e), e->time_ns);
		json_builder_set_member_name(b, "s");
		json_builder_add_string_value(b, "t");
		event_args(b, e);
		json_builder_end_object(b);
		/* A grid: a slice from its dispatch to its outcome on the SM track. */
		if (e->kind == CS_EV_DISPATCH) {
			for (size_t k = i + 1; k < n; k++) {
				const cs_event *o = &ev[k];
				if (o->launch != e->launch ||
				    (o->kind != CS_EV_GRID_DONE && o->kind != CS_EV_GRID_NOT_RUN &&
				     !(o->kind == CS_EV_FAULT && o->stage == CS_STAGE_GR_DISPATCH)))
					continue;
				char name[64];
				snprintf(name, sizeof(name), "grid (launch %u)", e->launch);
				json_builder_begin_object(b);
				event_common(b, name, "X", TID_SM, e->time_ns);
				json_builder_set_member_name(b, "dur");
				json_builder_add_double_value(b, (double)(o->time_ns - e->time_ns) / 1000.0);
				event_args(b, o);
				json_builder_end_object(b);
				break;
			}
		}
	}
	json_builder_end_array(b);
	json_builder_end_object(b);

	JsonGenerator *g = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	json_generator_set_root(g, root);
	gchar *text = json_generator_to_data(g, NULL);
	char *out = text ? strdup(text) : NULL;
	g_free(text);
	json_node_unref(root);
	g_object_unref(g);
	g_object_unref(b);
	return out;
}

bool cs_trace_perfetto_write(const cs_device *dev, const char *path, cs_diag *d)
{
	char *text = cs_trace_perfetto_json(dev);
	if (!text) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory writing the trace");
		return false;
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		cs_diag_set(d, CS_ERR_INPUT, "%s: cannot open for writing", path);
		free(text);
		return false;
	}
	size_t len = strlen(text);
	bool ok = fwrite(text, 1, len, f) == len && fputc('\n', f) != EOF;
	ok = (fclose(f) == 0) && ok;
	free(text);
	if (!ok)
		cs_diag_set(d, CS_ERR_INPUT, "%s: write failed", path);
	return ok;
}
