/* SPDX-License-Identifier: MIT */
/* chainsim repl FILE: step a scenario's method stream through the device,
 * method by method (docs/repl.md). The commands read the paused device, its
 * trace and the judge; repl_stream.c does the stopping. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chainsim/arch.h"
#include "chainsim/fe.h"
#include "chainsim/file.h"
#include "chainsim/gr.h"
#include "chainsim/registry.h"
#include "chainsim/repl.h"
#include "chainsim/report.h"

#include "cli.h"
#include "commands.h"
#include "exec_options.h"
#include "repl_stream.h"

typedef struct rs_cmd {
	const char *name;
	const char *aliases; /* space-separated */
	const char *usage;
	const char *summary;
	cs_status (*fn)(rs_session *s, const char *args, FILE *out, cs_diag *d);
} rs_cmd;

static const rs_cmd *find_cmd(const char *name, size_t len);

/* ---- argument helpers ------------------------------------------------------ */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Copies the next word of *p into buf and advances *p; false at the end. */
static bool next_word(const char **p, char *buf, size_t len)
{
	const char *s = skip_ws(*p);
	size_t n = 0;
	while (s[n] && s[n] != ' ' && s[n] != '\t')
		n++;
	if (!n)
		return false;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	*p = s + n;
	while (**p && **p != ' ' && **p != '\t')
		(*p)++;
	return true;
}

static bool parse_u64(const char *text, uint64_t *v)
{
	if (!*text || *text == '-')
		return false;
	char *end = NULL;
	errno = 0;
	unsigned long long x = strtoull(text, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* An address: a number, or NAME / NAME+OFF with NAME from the scenario. */
static bool parse_addr(rs_session *s, const char *text, uint64_t *va, cs_diag *d)
{
	if (parse_u64(text, va))
		return true;
	char name[128];
	snprintf(name, sizeof(name), "%s", text);
	uint64_t off = 0, size = 0;
	char *plus = strchr(name, '+');
	if (plus) {
		*plus = 0;
		if (!parse_u64(plus + 1, &off)) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': the offset after '+' is not a number", text);
			return false;
		}
	}
	if (!cs_scenario_symbol(rs_session_scenario(s), name, va, &size)) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "'%s' is not an address: give a number or a name the scenario allocates",
			    text);
		return false;
	}
	*va += off;
	return true;
}

static cs_status need_no_args(const char *args, const char *cmd, cs_diag *d)
{
	if (*skip_ws(args)) {
		cs_diag_set(d, CS_ERR_INPUT, "%s takes no arguments (got '%s')", cmd, skip_ws(args));
		return CS_ERR_INPUT;
	}
	return CS_OK;
}

/* After a command's last word: nothing more. */
static bool no_extra(const char *args, const char *cmd, cs_diag *d)
{
	if (*skip_ws(args)) {
		cs_diag_set(d, CS_ERR_INPUT, "%s takes one argument (extra '%s')", cmd, skip_ws(args));
		return false;
	}
	return true;
}

/* ---- running ---------------------------------------------------------------- */

static cs_status cmd_step(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	uint64_t n = 1;
	char w[32];
	if (next_word(&args, w, sizeof(w)) && (!parse_u64(w, &n) || !n)) {
		cs_diag_set(d, CS_ERR_INPUT, "step N: N must be a positive number, not '%s'", w);
		return CS_ERR_INPUT;
	}
	if (!no_extra(args, "step [N]", d))
		return CS_ERR_INPUT;
	rs_session_go(s, RS_GO_STEP, n, NULL, out);
	return CS_OK;
}

static cs_status cmd_next(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	if (need_no_args(args, "next", d) != CS_OK)
		return CS_ERR_INPUT;
	rs_session_go(s, RS_GO_NEXT, 0, NULL, out);
	return CS_OK;
}

static cs_status cmd_continue(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	if (need_no_args(args, "continue", d) != CS_OK)
		return CS_ERR_INPUT;
	rs_session_go(s, RS_GO_CONTINUE, 0, NULL, out);
	return CS_OK;
}

static bool parse_stage(const char *w, unsigned *stage, cs_diag *d)
{
	cs_stage st = cs_stage_parse(w);
	if (st == CS_STAGE_NONE) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s' is not a stage: give 1..11 or a name such as fe-exec",
			    w);
		return false;
	}
	*stage = (unsigned)st;
	return true;
}

static cs_status cmd_until(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char what[32], arg[RS_NAME_MAX];
	if (!next_word(&args, what, sizeof(what))) {
		cs_diag_set(d, CS_ERR_INPUT, "until what? 'until stage N', 'until method NAME' or 'until break'");
		return CS_ERR_INPUT;
	}
	if (!strcmp(what, "break")) {
		if (need_no_args(args, "until break", d) != CS_OK)
			return CS_ERR_INPUT;
		rs_session_go(s, RS_GO_UNTIL_BREAK, 0, NULL, out);
		return CS_OK;
	}
	bool have = next_word(&args, arg, sizeof(arg));
	if (have && *skip_ws(args)) {
		cs_diag_set(d, CS_ERR_INPUT, "until %s takes one argument (extra '%s')", what, skip_ws(args));
		return CS_ERR_INPUT;
	}
	if (!strcmp(what, "stage")) {
		unsigned st = 0;
		if (!have) {
			cs_diag_set(d, CS_ERR_INPUT, "until stage N: which stage (1..11)?");
			return CS_ERR_INPUT;
		}
		if (!parse_stage(arg, &st, d))
			return CS_ERR_INPUT;
		rs_session_go(s, RS_GO_UNTIL_STAGE, st, NULL, out);
		return CS_OK;
	}
	if (!strcmp(what, "method")) {
		if (!have || !rs_method_name_known(s, arg)) {
			cs_diag_set(d, CS_ERR_INPUT, "until method NAME: %s%s%s", have ? "no method named '" : "which method?",
				    have ? arg : "", have ? "' in this arch's classes" : "");
			return CS_ERR_INPUT;
		}
		rs_session_go(s, RS_GO_UNTIL_METHOD, 0, arg, out);
		return CS_OK;
	}
	cs_diag_set(d, CS_ERR_INPUT, "until %s: expected 'stage', 'method' or 'break'", what);
	return CS_ERR_INPUT;
}

static cs_status cmd_restart(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	if (need_no_args(args, "restart", d) != CS_OK)
		return CS_ERR_INPUT;
	if (!rs_session_restart(s, d))
		return d->status == CS_OK ? CS_ERR_INTERNAL : d->status;
	cs_method_call c;
	uint64_t n;
	char line[512];
	if (rs_session_current(s, &c, &n)) {
		rs_describe_method(s, &c, n, line, sizeof(line));
		fprintf(out, "restarted; next: %s\n", line);
	} else {
		fprintf(out, "restarted; the program ran no method\n");
	}
	return CS_OK;
}

/* ---- breakpoints ------------------------------------------------------------- */

static void print_breaks(rs_session *s, FILE *out)
{
	if (!rs_break_count(s)) {
		fprintf(out, "no breakpoints\n");
		return;
	}
	for (size_t i = 0; i < rs_break_count(s); i++) {
		const rs_break *b = rs_break_at(s, i);
		char name[128];
		switch (b->kind) {
		case RS_BREAK_METHOD:
			if (b->subch == CS_NONE32)
				fprintf(out, "%u  method %s", b->id, b->name);
			else
				fprintf(out, "%u  method %s subch %" PRIu32, b->id, b->name, b->subch);
			break;
		case RS_BREAK_STAGE:
			fprintf(out, "%u  stage %u (%s)", b->id, b->stage, cs_stage_name((cs_stage)b->stage));
			break;
		case RS_BREAK_WRITE:
			cs_device_addr_name(rs_session_device(s), b->addr, name, sizeof(name));
			fprintf(out, "%u  write %s,%" PRIu32, b->id, name, b->len);
			break;
		}
		fprintf(out, "  hits %" PRIu64 "\n", b->hits);
	}
}

static cs_status cmd_break(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char kind[16], arg[128], extra[32];
	if (!next_word(&args, kind, sizeof(kind))) {
		print_breaks(s, out);
		return CS_OK;
	}
	rs_break b;
	memset(&b, 0, sizeof(b));
	b.subch = CS_NONE32;
	if (!next_word(&args, arg, sizeof(arg))) {
		cs_diag_set(d, CS_ERR_INPUT, "break %s: missing its argument (help break)", kind);
		return CS_ERR_INPUT;
	}
	bool has_extra = next_word(&args, extra, sizeof(extra));
	if (!strcmp(kind, "method")) {
		if (!rs_method_name_known(s, arg)) {
			cs_diag_set(d, CS_ERR_INPUT, "break method: no method named '%s' in this arch's classes",
				    arg);
			return CS_ERR_INPUT;
		}
		size_t nl = strlen(arg) < sizeof(b.name) - 1 ? strlen(arg) : sizeof(b.name) - 1;
		memcpy(b.name, arg, nl);
		b.name[nl] = 0;
		for (char *p = b.name; *p; p++)
			*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
		b.kind = RS_BREAK_METHOD;
		if (has_extra) {
			uint64_t sc;
			if (!parse_u64(extra, &sc) || sc > 7) {
				cs_diag_set(d, CS_ERR_INPUT, "break method NAME SUBCH: subchannel 0..7, not '%s'", extra);
				return CS_ERR_INPUT;
			}
			b.subch = (uint32_t)sc;
		}
	} else if (!strcmp(kind, "stage")) {
		if (has_extra) {
			cs_diag_set(d, CS_ERR_INPUT, "break stage N takes one argument (extra '%s')", extra);
			return CS_ERR_INPUT;
		}
		if (!parse_stage(arg, &b.stage, d))
			return CS_ERR_INPUT;
		b.kind = RS_BREAK_STAGE;
	} else if (!strcmp(kind, "write")) {
		if (has_extra) {
			cs_diag_set(d, CS_ERR_INPUT, "break write ADDR[,LEN] takes one argument (extra '%s')", extra);
			return CS_ERR_INPUT;
		}
		uint64_t len = 4;
		char *comma = strchr(arg, ',');
		if (comma) {
			*comma = 0;
			if (!parse_u64(comma + 1, &len) || !len || len > RS_WATCH_MAX) {
				cs_diag_set(d, CS_ERR_INPUT, "break write ADDR,LEN: LEN is 1..%d bytes, not '%s'",
					    RS_WATCH_MAX, comma + 1);
				return CS_ERR_INPUT;
			}
		}
		if (!parse_addr(s, arg, &b.addr, d))
			return CS_ERR_INPUT;
		if (b.addr + len < b.addr) {
			cs_diag_set(d, CS_ERR_INPUT, "break write: 0x%" PRIx64 "+%" PRIu64 " wraps around", b.addr, len);
			return CS_ERR_INPUT;
		}
		b.len = (uint32_t)len;
		b.kind = RS_BREAK_WRITE;
	} else {
		cs_diag_set(d, CS_ERR_INPUT, "break %s: expected 'method', 'stage' or 'write'", kind);
		return CS_ERR_INPUT;
	}
	unsigned id;
	if (!rs_break_add(s, &b, &id, d))
		return CS_ERR_INPUT;
	fprintf(out, "breakpoint %u: ", id);
	if (b.kind == RS_BREAK_METHOD)
		fprintf(out, "method %s\n", b.name);
	else if (b.kind == RS_BREAK_STAGE)
		fprintf(out, "stage %u (%s)\n", b.stage, cs_stage_name((cs_stage)b.stage));
	else {
		char name[128];
		cs_device_addr_name(rs_session_device(s), b.addr, name, sizeof(name));
		fprintf(out, "write %s,%" PRIu32 "\n", name, b.len);
	}
	return CS_OK;
}

static cs_status cmd_delete(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char w[32];
	uint64_t id = 0;
	if (next_word(&args, w, sizeof(w)) && (!parse_u64(w, &id) || !id || id > UINT32_MAX)) {
		cs_diag_set(d, CS_ERR_INPUT, "delete [ID]: '%s' is not a breakpoint number", w);
		return CS_ERR_INPUT;
	}
	if (!no_extra(args, "delete [ID]", d))
		return CS_ERR_INPUT;
	if (!rs_break_delete(s, (unsigned)id)) {
		cs_diag_set(d, CS_ERR_INPUT, "no breakpoint %" PRIu64, id);
		return CS_ERR_INPUT;
	}
	if (id)
		fprintf(out, "deleted breakpoint %" PRIu64 "\n", id);
	else
		fprintf(out, "deleted all breakpoints\n");
	return CS_OK;
}

/* ---- the chain -------------------------------------------------------------- */

/* The chain judged as the session stands, for cmd (which takes no
 * arguments); NULL with d set when args are given or memory runs out. */
static cs_report *judge_now(rs_session *s, const char *cmd, const char *args, cs_diag *d)
{
	if (need_no_args(args, cmd, d) != CS_OK)
		return NULL;
	cs_report *r = cs_report_build(rs_session_device(s));
	if (!r)
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory judging the chain");
	return r;
}

static cs_status cmd_stages(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	cs_report *r = judge_now(s, "stages", args, d);
	if (!r)
		return d->status;
	fprintf(out, " #  %-15s %-14s %-10s %s\n", "stage", "status", "author", "evidence");
	for (int st = 1; st <= CS_STAGE_COUNT; st++) {
		const cs_stage_row *row = &r->overall.rows[st];
		fprintf(out, "%2d  %-15s %-14s %-10s %s\n", st, cs_stage_name((cs_stage)st),
			cs_stage_status_name(row->status), cs_author_name(row->author),
			row->evidence[0] ? row->evidence : "-");
	}
	cs_report_free(r);
	return CS_OK;
}

/* The same break line as `chainsim run` (sim/report/text.c), then the
 * evidence of the stage it names. */
static cs_status cmd_why(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	cs_report *r = judge_now(s, "why", args, d);
	if (!r)
		return d->status;
	const cs_chain *c = &r->overall;
	cs_stage st = c->first_break != CS_STAGE_NONE ? c->first_break : c->unobservable;
	if (c->first_break != CS_STAGE_NONE)
		fprintf(out, "break at stage %d (%s) [%s]: %s\n", (int)st, cs_stage_name(st),
			cs_cause_key(c->cause), c->diagnosis);
	else if (st != CS_STAGE_NONE)
		fprintf(out, "not observable from stage %d (%s) [%s]: %s\n", (int)st, cs_stage_name(st),
			cs_cause_key(c->cause), c->diagnosis);
	else
		fprintf(out, "chain complete: every stage fired%s\n",
			r->has_launch ? "" : " or does not apply (no launch)");
	if (st != CS_STAGE_NONE)
		fprintf(out, "evidence: %s\n", c->rows[st].evidence[0] ? c->rows[st].evidence : "-");
	if (!rs_session_finished(s))
		fprintf(out, "(the program has not ended: later methods may still fire it)\n");
	cs_report_free(r);
	return CS_OK;
}

/* ---- the stream: decoding what has not run yet ---------------------------- */

typedef struct rs_method {
	uint32_t index;
	uint32_t subch;
	uint32_t method;
	uint32_t data;
	uint64_t va;
} rs_method;

/* The pushbuffer VA a ring entry of ch names, or 0 for a control entry. */
static bool entry_pb(cs_device *dev, const cs_fe_channel_info *ci, uint32_t slot, uint64_t *va,
		     uint32_t *dwords)
{
	uint32_t w[2];
	if (!cs_device_peek(dev, ci->ring_va + 8ull * slot, w, sizeof(w)))
		return false;
	cs_gp_entry e = cs_gp_decode(w[0], w[1]);
	*va = e.addr | ci->pb_extended_base;
	*dwords = e.length;
	return e.length != 0;
}

/* The methods of one entry, in order; malloc'd, *n of them (NULL on none). */
static rs_method *decode_entry(cs_device *dev, uint64_t va, uint32_t dwords, size_t *n)
{
	*n = 0;
	uint32_t *dw = cs_device_pb_read(dev, va, dwords, NULL);
	rs_method *m = dw ? malloc(sizeof(*m) * ((size_t)dwords + 4)) : NULL;
	if (!m) {
		free(dw);
		return NULL;
	}
	cs_pb_walk w;
	cs_pb_step st;
	cs_pb_walk_begin(&w, dw, dwords, false, NULL);
	while (cs_pb_walk_next(&w, &st)) {
		if (st.item.kind != CS_PB_ITEM_METHOD)
			continue;
		m[*n] = (rs_method){ .index = st.index, .subch = st.item.subch,
				     .method = st.item.method, .data = st.item.data,
				     .va = va + 4 * st.item.dword };
		(*n)++;
	}
	free(dw);
	return m;
}

/* The pushbuffer the front end fetched for (ch, slot) most recently. */
static bool fetched_entry(cs_device *dev, uint32_t ch, uint32_t slot, uint64_t *va, uint32_t *dwords)
{
	size_t n = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	for (size_t i = n; i-- > 0;) {
		if (ev[i].kind == CS_EV_GP_FETCH && ev[i].channel == ch && ev[i].gp_entry == slot) {
			*va = ev[i].addr;
			*dwords = (uint32_t)ev[i].value;
			return true;
		}
	}
	return false;
}

static void method_text(rs_session *s, uint32_t cls_bound[8], const rs_method *m, uint32_t ch,
			char *buf, size_t len)
{
	const cs_arch_info *ai = cs_arch_get(cs_scenario_arch(rs_session_scenario(s)));
	cs_method_call c = { .channel = ch, .subch = m->subch, .method = m->method, .data = m->data,
			     .method_index = m->index };
	c.cls = m->method < CS_PB_HOST_METHODS ? (ai ? ai->host_class : 0)
					      : (cls_bound[m->subch & 7] ? cls_bound[m->subch & 7]
									 : cs_registry_conventional_class(ai->arch, m->subch));
	char label[96], fields[256];
	const cs_method_desc *md = NULL;
	if (!cs_registry_method_label(ai->arch, c.cls, c.subch, c.method, label, sizeof(label), &md))
		snprintf(label, sizeof(label), "0x%04x", c.method);
	fields[0] = 0;
	if (md)
		cs_method_format_fields(md, c.data, fields, sizeof(fields));
	snprintf(buf, len, "method %" PRIu32 " subch %" PRIu32 " %s = 0x%08" PRIx32 "%s%s%s", m->index,
		 m->subch, label, m->data, fields[0] ? " (" : "", fields, fields[0] ? ")" : "");
}

static cs_status cmd_list(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	uint64_t around = 5;
	char w[32];
	if (next_word(&args, w, sizeof(w)) && (!parse_u64(w, &around) || around > 1000)) {
		cs_diag_set(d, CS_ERR_INPUT, "list [N]: N methods each side (0..1000), not '%s'", w);
		return CS_ERR_INPUT;
	}
	if (!no_extra(args, "list [N]", d))
		return CS_ERR_INPUT;
	cs_method_call cur;
	uint64_t num;
	if (!rs_session_current(s, &cur, &num)) {
		fprintf(out, "the program has ended: no current method\n");
		return CS_OK;
	}
	cs_device *dev = rs_session_device(s);
	uint64_t va;
	uint32_t dwords;
	size_t n = 0;
	rs_method *m = fetched_entry(dev, cur.channel, cur.gp_entry, &va, &dwords)
			       ? decode_entry(dev, va, dwords, &n) : NULL;
	if (!m) {
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot decode GPFIFO entry %" PRIu32 " again", cur.gp_entry);
		return CS_ERR_INTERNAL;
	}
	cs_fe_channel_info ci;
	cs_device_channel_info(dev, cur.channel, &ci);
	fprintf(out, "ch%" PRIu32 " entry %" PRIu32 " at 0x%" PRIx64 ", %" PRIu32 " dwords, %zu methods\n",
		cur.channel, cur.gp_entry, va, dwords, n);
	uint64_t lo = cur.method_index > around ? cur.method_index - around : 0;
	for (size_t i = (size_t)lo; i < n && i <= cur.method_index + around; i++) {
		char line[512];
		method_text(s, ci.bound, &m[i], cur.channel, line, sizeof(line));
		fprintf(out, "%s %s\n", i == cur.method_index ? "=>" : "  ", line);
	}
	free(m);
	return CS_OK;
}

/* ---- channels --------------------------------------------------------------- */

static const char *acquire_op_name(uint32_t op)
{
	switch (op) {
	case CS_FE_SEM_ACQUIRE: return "==";
	case CS_FE_SEM_ACQ_STRICT_GEQ: return ">=";
	case CS_FE_SEM_ACQ_CIRC_GEQ: return ">= (circular)";
	case CS_FE_SEM_ACQ_AND: return "& (any bit of)";
	case CS_FE_SEM_ACQ_NOR: return "nor";
	default: return "?";
	}
}

/* Host releases of [addr] left in channel ch's stream: the rest of its
 * current entry after `after` (CS_NONE32: all of it), then the entries up to
 * GP_PUT. Prints each; returns how many. */
static size_t pending_releases(rs_session *s, uint32_t ch, uint64_t addr, FILE *out)
{
	cs_device *dev = rs_session_device(s);
	cs_fe_channel_info ci;
	if (!cs_device_channel_info(dev, ch, &ci) || ci.state == CS_FE_CHAN_STOPPED)
		return 0;
	cs_method_call cur;
	bool at = rs_session_current(s, &cur, NULL) && cur.channel == ch;
	/* where the unexecuted part begins: the current or blocked entry */
	uint32_t first_slot = ci.gp_get, after = CS_NONE32;
	if (ci.state == CS_FE_CHAN_BLOCKED) {
		first_slot = ci.block.gp_entry;
		after = ci.block.method_index;
	} else if (at) {
		first_slot = cur.gp_entry;
		after = cur.method_index ? cur.method_index - 1 : CS_NONE32;
		if (!cur.method_index)
			after = CS_NONE32;
	}
	size_t found = 0;
	bool current = first_slot != ci.gp_get || ci.state == CS_FE_CHAN_BLOCKED || at;
	uint32_t mask = ci.ring_entries ? ci.ring_entries - 1 : 0;
	const cs_class_desc *host = cs_registry_class(cs_arch_get(cs_device_arch(dev))->host_class);
	uint64_t sem_addr = 0;
	uint32_t payload_lo = 0, payload_hi = 0;
	for (uint32_t slot = first_slot, guard = 0; guard <= ci.ring_entries; guard++) {
		if (!current && slot == ci.gp_put)
			break;
		uint64_t va;
		uint32_t dwords;
		bool have = current ? fetched_entry(dev, ch, slot, &va, &dwords)
				    : entry_pb(dev, &ci, slot, &va, &dwords);
		size_t n = 0;
		rs_method *m = have ? decode_entry(dev, va, dwords, &n) : NULL;
		for (size_t i = 0; i < n; i++) {
			/* SEM_ADDR_LO/HI by the host class's fields, as the front end latches them */
			const cs_field_desc *part = cs_class_addr_field(host, "SEM_ADDR", m[i].method);
			if (part)
				sem_addr = cs_field_addr_merge(part, sem_addr, m[i].data);
			else if (m[i].method == CS_FE_M_SEM_PAYLOAD_LO)
				payload_lo = m[i].data;
			else if (m[i].method == CS_FE_M_SEM_PAYLOAD_HI)
				payload_hi = m[i].data;
			uint32_t op = CS_FE_GET(sem_execute, OPERATION, m[i].data);
			if (m[i].method != CS_FE_M_SEM_EXECUTE || sem_addr != addr ||
			    (op != CS_FE_SEM_RELEASE && op != CS_FE_SEM_REDUCTION))
				continue;
			if (current && after != CS_NONE32 && m[i].index <= after)
				continue;
			char name[128];
			cs_device_addr_name(dev, addr, name, sizeof(name));
			fprintf(out, "    ch%" PRIu32 " '%s' entry %" PRIu32 " method %" PRIu32 ": %s [%s] = 0x%" PRIx64,
				ch, cs_device_channel_name(dev, ch), slot, m[i].index,
				op == CS_FE_SEM_RELEASE ? "release" : "reduction", name,
				((uint64_t)payload_hi << 32) | payload_lo);
			if (ci.state == CS_FE_CHAN_BLOCKED)
				fprintf(out, ", not run: behind this channel's own blocked acquire at entry %" PRIu32
					" method %" PRIu32 "\n", ci.block.gp_entry, ci.block.method_index);
			else
				fprintf(out, ", not run yet\n");
			found++;
		}
		free(m);
		if (current) {
			current = false;
			slot = ci.gp_get;
			if (first_slot == ci.gp_get && ci.state != CS_FE_CHAN_BLOCKED && !at)
				slot = (slot + 1) & mask;
			continue;
		}
		slot = (slot + 1) & mask;
	}
	return found;
}

static void print_block(rs_session *s, uint32_t ch, const cs_fe_channel_info *ci, FILE *out)
{
	cs_device *dev = rs_session_device(s);
	const cs_fe_block_info *b = &ci->block;
	char name[128];
	cs_device_addr_name(dev, b->addr, name, sizeof(name));
	fprintf(out, "  blocked at entry %" PRIu32 " method %" PRIu32 ": acquire [%s] %s 0x%" PRIx64
		", value is 0x%" PRIx64 "\n", b->gp_entry, b->method_index, name, acquire_op_name(b->op),
		b->wanted, b->current);
	size_t n = 0, seen = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	for (size_t i = 0; i < n; i++) {
		bool writes = (ev[i].kind == CS_EV_SEM_RELEASE || ev[i].kind == CS_EV_I2M_WRITE ||
			       ev[i].kind == CS_EV_COPY) &&
			      ev[i].addr <= b->addr &&
			      b->addr < ev[i].addr + (ev[i].kind == CS_EV_SEM_RELEASE ? 8 : ev[i].value);
		if (!writes)
			continue;
		if (!seen++)
			fprintf(out, "  writes of [%s] that ran:\n", name);
		fprintf(out, "    record %zu %s ch%" PRIu32 " (%s)", i,
			cs_event_kind_name((cs_event_kind)ev[i].kind), ev[i].channel,
			cs_unit_name((cs_unit)ev[i].unit));
		if (ev[i].kind == CS_EV_SEM_RELEASE)
			fprintf(out, " wrote 0x%" PRIx64, ev[i].value);
		fprintf(out, "\n");
	}
	fprintf(out, "  releases that could unblock it:\n");
	size_t found = 0;
	for (uint32_t c = 0; c < cs_device_channel_count(dev); c++)
		found += pending_releases(s, c, b->addr, out);
	if (!found)
		fprintf(out, "    none: no channel's stream has a release of [%s] left to run\n", name);
	(void)ch;
}

static void print_channel(rs_session *s, uint32_t ch, FILE *out)
{
	cs_device *dev = rs_session_device(s);
	cs_fe_channel_info ci;
	if (!cs_device_channel_info(dev, ch, &ci))
		return;
	fprintf(out, "channel %" PRIu32 " '%s': %s\n", ch, cs_device_channel_name(dev, ch),
		cs_fe_chan_state_name(ci.state));
	fprintf(out, "  GP_GET %" PRIu32 "  GP_PUT %" PRIu32 "  ring 0x%" PRIx64 " (%" PRIu32
		" entries)  USERD 0x%" PRIx64 "\n", ci.gp_get, ci.gp_put, ci.ring_va, ci.ring_entries,
		ci.userd_va);
	fprintf(out, "  subchannels:");
	bool any = false;
	for (uint32_t i = 0; i < CS_FE_SUBCHANNELS; i++) {
		if (!ci.bound[i])
			continue;
		const char *cn = cs_class_name(ci.bound[i]);
		fprintf(out, " %" PRIu32 "=%s", i, cn ? cn : "?");
		any = true;
	}
	fprintf(out, "%s\n", any ? "" : " none bound");
	fprintf(out, "  methods %" PRIu64 "  releases %" PRIu64 "  acquires %" PRIu64 "  blocks %" PRIu64 "\n",
		ci.counters.methods, ci.counters.releases, ci.counters.acquires, ci.counters.blocks);
	if (ci.state == CS_FE_CHAN_BLOCKED)
		print_block(s, ch, &ci, out);
	if (ci.state == CS_FE_CHAN_STOPPED)
		fprintf(out, "  stopped: %s\n", ci.stop.msg);
}

static cs_status cmd_channel(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	cs_device *dev = rs_session_device(s);
	uint32_t count = cs_device_channel_count(dev);
	char w[64];
	bool named = next_word(&args, w, sizeof(w));
	if (!no_extra(args, "channel [N|NAME]", d))
		return CS_ERR_INPUT;
	if (!named) {
		for (uint32_t c = 0; c < count; c++)
			print_channel(s, c, out);
		return CS_OK;
	}
	uint64_t ch;
	if (!parse_u64(w, &ch)) {
		for (ch = 0; ch < count; ch++)
			if (!strcmp(cs_device_channel_name(dev, (uint32_t)ch), w))
				break;
	}
	if (ch >= count) {
		cs_diag_set(d, CS_ERR_INPUT, "no channel '%s' (the device has %" PRIu32 ")", w, count);
		return CS_ERR_INPUT;
	}
	print_channel(s, (uint32_t)ch, out);
	return CS_OK;
}

/* ---- memory ------------------------------------------------------------------ */

/* The scenario's name for va (the device's one namer); false when it has none. */
static bool addr_named(const cs_device *dev, uint64_t va, char *buf, size_t len)
{
	cs_device_addr_name(dev, va, buf, len);
	return strncmp(buf, "0x", 2) != 0;
}

static cs_status cmd_qmd(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	cs_device *dev = rs_session_device(s);
	const cs_arch_info *ai = cs_arch_get(cs_device_arch(dev));
	char w[128];
	uint64_t va = 0;
	const char *from = NULL;
	bool given = next_word(&args, w, sizeof(w));
	if (!no_extra(args, "qmd [ADDR]", d))
		return CS_ERR_INPUT;
	if (given) {
		if (!parse_addr(s, w, &va, d))
			return CS_ERR_INPUT;
		from = "as given";
	} else {
		cs_method_call cur;
		const cs_method_desc *m = NULL;
		char label[64];
		if (rs_session_current(s, &cur, NULL) &&
		    cs_registry_method_label(ai->arch, cur.cls, cur.subch, cur.method, label,
					     sizeof(label), &m) &&
		    !strcmp(label, "SEND_PCAS_A")) {
			va = cs_field_addr_bits(cs_method_addr_field(m), cur.data);
			from = "the SEND_PCAS_A about to run";
		} else {
			size_t n = 0;
			const cs_event *ev = cs_device_events(dev, &n);
			for (size_t i = n; i-- > 0 && !from;) {
				if (ev[i].kind == CS_EV_QMD_INSTALL || ev[i].kind == CS_EV_QMD_READ) {
					va = ev[i].addr;
					from = "the last QMD the engine saw";
				}
			}
		}
		if (!from) {
			cs_diag_set(d, CS_ERR_INPUT, "no QMD yet: give its address (qmd ADDR)");
			return CS_ERR_INPUT;
		}
	}
	cs_qmd q;
	uint64_t fault = 0;
	if (!cs_device_qmd_read(dev, va, &q, &fault)) {
		cs_diag_set(d, CS_ERR_INPUT, "the QMD at 0x%" PRIx64 " is not readable: 0x%" PRIx64 " is unmapped",
			    va, fault);
		return CS_ERR_INPUT;
	}
	char name[128];
	cs_device_addr_name(dev, va, name, sizeof(name));
	fprintf(out, "QMD %s at %s (%s); fields that are not zero:\n", q.layout->name, name, from);
	unsigned zero = 0;
	for (unsigned i = 0; i < q.layout->nfields; i++) {
		const cs_qmd_field *f = &q.layout->fields[i];
		for (unsigned k = 0; k < f->count; k++) {
			uint64_t v = cs_qmd_field_get(&q, f, k);
			if (!v) {
				zero++;
				continue;
			}
			char fname[96];
			if (f->count > 1)
				snprintf(fname, sizeof(fname), "%s(%u)", f->name, k);
			else
				snprintf(fname, sizeof(fname), "%s", f->name);
			char vname[CS_REGION_NAME_MAX + 32];
			if (f->kind == CS_FIELD_ADDRESS && addr_named(dev, v, vname, sizeof(vname)))
				fprintf(out, "  %-36s 0x%" PRIx64 " <%s>\n", fname, v, vname);
			else
				fprintf(out, "  %-36s 0x%" PRIx64 " (%" PRIu64 ")\n", fname, v, v);
		}
	}
	fprintf(out, "  (%u fields are zero)\n", zero);
	return CS_OK;
}

static cs_status cmd_x(rs_session *s, const char *fmt, const char *args, FILE *out, cs_diag *d)
{
	uint64_t count = 1;
	char f = 'x', u = 'w';
	const char *p = fmt;
	if (*p == '/') {
		p++;
		char *end = NULL;
		if (*p >= '0' && *p <= '9') {
			count = strtoull(p, &end, 10);
			p = end;
		}
		for (; *p; p++) {
			if (strchr("xduf", *p))
				f = *p;
			else if (strchr("bhwg", *p))
				u = *p;
			else if (*p == 's')
				f = 's';
			else {
				cs_diag_set(d, CS_ERR_INPUT, "x/FMT: unknown letter '%c' (count, then x d u f s, then b h w g)", *p);
				return CS_ERR_INPUT;
			}
		}
	} else if (*p) {
		cs_diag_set(d, CS_ERR_INPUT, "x/FMT ADDR: expected '/' after x");
		return CS_ERR_INPUT;
	}
	char w[128];
	uint64_t va;
	if (!next_word(&args, w, sizeof(w))) {
		cs_diag_set(d, CS_ERR_INPUT, "x/FMT ADDR: which address?");
		return CS_ERR_INPUT;
	}
	if (!no_extra(args, "x/FMT ADDR", d))
		return CS_ERR_INPUT;
	if (!parse_addr(s, w, &va, d))
		return CS_ERR_INPUT;
	if (!count || count > 4096) {
		cs_diag_set(d, CS_ERR_INPUT, "x: count is 1..4096");
		return CS_ERR_INPUT;
	}
	cs_device *dev = rs_session_device(s);
	char name[128];
	if (f == 's') {
		char str[4097];
		size_t n = 0;
		for (; n < 4096; n++)
			if (!cs_device_peek(dev, va + n, &str[n], 1) || !str[n])
				break;
		str[n] = 0;
		cs_device_addr_name(dev, va, name, sizeof(name));
		fprintf(out, "0x%" PRIx64 " <%s>: \"%s\"\n", va, name, str);
		return CS_OK;
	}
	unsigned size = u == 'b' ? 1 : u == 'h' ? 2 : u == 'w' ? 4 : 8;
	if (f == 'f' && size < 4)
		size = 4;
	if (va + count * size < va) {
		cs_diag_set(d, CS_ERR_INPUT, "x: 0x%" PRIx64 " + %" PRIu64 " bytes wraps around", va, count * size);
		return CS_ERR_INPUT;
	}
	unsigned per_line = 16 / size;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t a = va + i * size;
		if (i % per_line == 0) {
			cs_device_addr_name(dev, a, name, sizeof(name));
			fprintf(out, "%s0x%" PRIx64 " <%s>:", i ? "\n" : "", a, name);
		}
		uint64_t v = 0;
		if (!cs_device_peek(dev, a, &v, size)) {
			fprintf(out, "\n");
			cs_diag_set(d, CS_ERR_INPUT, "x: 0x%" PRIx64 " is not mapped", a);
			return CS_ERR_INPUT;
		}
		if (f == 'x')
			fprintf(out, " 0x%0*" PRIx64, (int)size * 2, v);
		else if (f == 'u')
			fprintf(out, " %" PRIu64, v);
		else if (f == 'd') {
			int64_t sv = size == 8 ? (int64_t)v : size == 4 ? (int32_t)v : size == 2 ? (int16_t)v : (int8_t)v;
			fprintf(out, " %" PRId64, sv);
		} else if (size == 4) {
			float fv;
			uint32_t b32 = (uint32_t)v;
			memcpy(&fv, &b32, 4);
			fprintf(out, " %g", (double)fv);
		} else {
			double dv;
			memcpy(&dv, &v, 8);
			fprintf(out, " %g", dv);
		}
	}
	fprintf(out, "\n");
	return CS_OK;
}

static cs_status cmd_set(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char what[16], addr[128], type[8], val[64];
	if (!next_word(&args, what, sizeof(what)) || strcmp(what, "mem")) {
		cs_diag_set(d, CS_ERR_INPUT, "set mem ADDR TYPE VALUE...: only 'set mem' exists");
		return CS_ERR_INPUT;
	}
	if (!next_word(&args, addr, sizeof(addr)) || !next_word(&args, type, sizeof(type))) {
		cs_diag_set(d, CS_ERR_INPUT, "set mem ADDR TYPE VALUE...: TYPE is u8, u16, u32, u64 or f32");
		return CS_ERR_INPUT;
	}
	uint64_t va;
	if (!parse_addr(s, addr, &va, d))
		return CS_ERR_INPUT;
	unsigned size = !strcmp(type, "u8") ? 1 : !strcmp(type, "u16") ? 2 : !strcmp(type, "u32") ? 4
		      : !strcmp(type, "u64") ? 8 : !strcmp(type, "f32") ? 4 : 0;
	if (!size) {
		cs_diag_set(d, CS_ERR_INPUT, "set mem: type '%s' is not u8, u16, u32, u64 or f32", type);
		return CS_ERR_INPUT;
	}
	unsigned written = 0;
	cs_mem *mem = cs_device_mem(rs_session_device(s));
	while (next_word(&args, val, sizeof(val))) {
		uint64_t v = 0;
		if (!strcmp(type, "f32")) {
			char *end = NULL;
			float fv = strtof(val, &end);
			if (*end || end == val) {
				cs_diag_set(d, CS_ERR_INPUT, "set mem: '%s' is not a number", val);
				return CS_ERR_INPUT;
			}
			uint32_t b;
			memcpy(&b, &fv, 4);
			v = b;
		} else if (!parse_u64(val, &v) || (size < 8 && v >> (8 * size))) {
			cs_diag_set(d, CS_ERR_INPUT, "set mem: '%s' is not a %s", val, type);
			return CS_ERR_INPUT;
		}
		uint64_t fault = 0;
		if (!cs_mem_write(mem, va + (uint64_t)written * size, &v, size, &fault)) {
			cs_diag_set(d, CS_ERR_INPUT, "set mem: 0x%" PRIx64 " is not mapped", fault);
			return CS_ERR_INPUT;
		}
		written++;
	}
	if (!written) {
		cs_diag_set(d, CS_ERR_INPUT, "set mem ADDR TYPE VALUE...: no value given");
		return CS_ERR_INPUT;
	}
	char name[128];
	cs_device_addr_name(rs_session_device(s), va, name, sizeof(name));
	fprintf(out, "wrote %u x %s at %s\n", written, type, name);
	return CS_OK;
}

static cs_status cmd_trace(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	uint64_t last = 10;
	char w[32];
	if (next_word(&args, w, sizeof(w)) && (!parse_u64(w, &last) || !last)) {
		cs_diag_set(d, CS_ERR_INPUT, "trace [N]: N is a positive number, not '%s'", w);
		return CS_ERR_INPUT;
	}
	if (!no_extra(args, "trace [N]", d))
		return CS_ERR_INPUT;
	size_t n = 0;
	const cs_event *ev = cs_device_events(rs_session_device(s), &n);
	for (size_t i = n > last ? n - (size_t)last : 0; i < n; i++) {
		const cs_event *e = &ev[i];
		fprintf(out, "%5zu %-16s st%-2u %-10s ch%" PRIu32, i, cs_event_kind_name((cs_event_kind)e->kind),
			e->stage, cs_unit_name((cs_unit)e->unit), e->channel);
		if (e->gp_entry != CS_NONE32)
			fprintf(out, " entry %" PRIu32, e->gp_entry);
		if (e->method_index != CS_NONE32)
			fprintf(out, ".%" PRIu32, e->method_index);
		char name[CS_REGION_NAME_MAX + 32];
		fprintf(out, " addr 0x%" PRIx64, e->addr);
		if (addr_named(rs_session_device(s), e->addr, name, sizeof(name)))
			fprintf(out, " <%s>", name);
		fprintf(out, " value 0x%" PRIx64, e->value);
		if (e->detail)
			fprintf(out, "  %s", e->detail);
		fprintf(out, "\n");
	}
	return CS_OK;
}

/* gdb's `print`: here an address expression, shown with its name. */
static cs_status cmd_print(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char w[128], extra[32];
	if (!next_word(&args, w, sizeof(w))) {
		cs_diag_set(d, CS_ERR_INPUT, "print ADDR: give an address (a number, NAME or "
			    "NAME+OFF); x/FMT ADDR reads the memory there");
		return CS_ERR_INPUT;
	}
	if (next_word(&args, extra, sizeof(extra))) {
		cs_diag_set(d, CS_ERR_INPUT, "print ADDR: one address, not '%s' after it (the "
			    "scenario's expressions have no spaces: NAME+OFF)", extra);
		return CS_ERR_INPUT;
	}
	uint64_t va;
	if (!parse_addr(s, w, &va, d))
		return CS_ERR_INPUT;
	char name[CS_REGION_NAME_MAX + 32];
	if (addr_named(rs_session_device(s), va, name, sizeof(name)))
		fprintf(out, "%s = 0x%" PRIx64 " <%s>\n", w, va, name);
	else
		fprintf(out, "%s = 0x%" PRIx64 "\n", w, va);
	return CS_OK;
}

/* gdb's `info`: the tables a method stream has, and for the rest what to
 * type instead. */
static cs_status cmd_info(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	char w[32];
	if (!next_word(&args, w, sizeof(w))) {
		cs_diag_set(d, CS_ERR_INPUT, "info what? breakpoints, stages, channels (help info)");
		return CS_ERR_INPUT;
	}
	if (!strcmp(w, "breakpoints") || !strcmp(w, "break") || !strcmp(w, "b") ||
	    !strcmp(w, "watchpoints"))
		return need_no_args(args, "info breakpoints", d) != CS_OK ? CS_ERR_INPUT
									 : cmd_break(s, args, out, d);
	if (!strcmp(w, "stages") || !strcmp(w, "chain"))
		return cmd_stages(s, args, out, d);
	if (!strcmp(w, "channels") || !strcmp(w, "channel"))
		return cmd_channel(s, args, out, d);
	if (!strcmp(w, "registers") || !strcmp(w, "all-registers") || !strcmp(w, "frame") ||
	    !strcmp(w, "locals") || !strcmp(w, "args")) {
		cs_diag_set(d, CS_ERR_INPUT, "info %s: a method stream has no registers or frames: "
			    "'channel' shows GP_GET, GP_PUT and the bindings, 'list' the methods "
			    "around the next one, 'qmd' the launch descriptor", w);
		return CS_ERR_INPUT;
	}
	cs_diag_set(d, CS_ERR_INPUT, "info %s: not here; info breakpoints, info stages and info "
		    "channels are (help lists the commands)", w);
	return CS_ERR_INPUT;
}

static cs_status cmd_help(rs_session *s, const char *args, FILE *out, cs_diag *d);

static const rs_cmd commands[] = {
	{ "step", "s", "step [N]", "run N methods (1), stopping before the next", cmd_step },
	{ "next", "n", "next", "run to the first method of the next GPFIFO entry", cmd_next },
	{ "continue", "c", "continue", "run to a breakpoint or the end of the program", cmd_continue },
	{ "until", "", "until stage N | until method NAME | until break",
	  "run until stage N fires, a method NAME is next, or a record shows the chain breaking", cmd_until },
	{ "break", "", "break [method NAME [SUBCH] | stage N | write ADDR[,LEN]]",
	  "stop before a method, after a stage fires, or after memory changes; alone, list them", cmd_break },
	{ "delete", "", "delete [ID]", "delete breakpoint ID, or all of them", cmd_delete },
	{ "stages", "", "stages", "the chain so far: eleven stages with status and evidence", cmd_stages },
	{ "why", "", "why", "the judge's diagnosis of the first stage not fired, as chainsim run prints it", cmd_why },
	{ "channel", "", "channel [N|NAME]",
	  "GP_GET, GP_PUT, bindings; a blocked acquire and the releases that could unblock it", cmd_channel },
	{ "qmd", "", "qmd [ADDR]", "a QMD decoded by field name (default: SEND_PCAS_A's, or the last one read)", cmd_qmd },
	{ "x", "", "x/[N][xduf s][bhwg] ADDR", "examine memory (ADDR: a number, NAME or NAME+OFF)", NULL },
	{ "set", "", "set mem ADDR TYPE VALUE...", "write memory (TYPE u8 u16 u32 u64 f32)", cmd_set },
	{ "list", "", "list [N]", "the current entry's methods, N each side of the current one (5)", cmd_list },
	{ "trace", "", "trace [N]", "the last N trace records (10)", cmd_trace },
	{ "restart", "", "restart", "run the scenario again from the start, breakpoints kept", cmd_restart },
	{ "print", "p", "print ADDR", "the address ADDR names (a number, NAME or NAME+OFF), with its name", cmd_print },
	{ "info", "i", "info breakpoints | info stages | info channels [N|NAME]",
	  "gdb's spelling of break (alone), stages and channel", cmd_info },
	{ "help", "", "help [CMD]", "the commands, or one command's usage", cmd_help },
	{ "complete", "", "complete TEXT", "what Tab would offer after TEXT, one a line", NULL },
	{ "quit", "exit q", "quit", "leave", NULL },
	{ "echo", "", "echo TEXT", "print TEXT (scripts)", NULL },
};
enum { NCOMMANDS = sizeof(commands) / sizeof(commands[0]) };

static const rs_cmd *find_cmd(const char *name, size_t len)
{
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const rs_cmd *c = &commands[i];
		if (strlen(c->name) == len && !strncmp(c->name, name, len))
			return c;
		for (const char *al = c->aliases; *al;) {
			size_t n = strcspn(al, " ");
			if (n == len && !strncmp(al, name, len))
				return c;
			al += n;
			al += strspn(al, " ");
		}
	}
	return NULL;
}

static cs_status cmd_help(rs_session *s, const char *args, FILE *out, cs_diag *d)
{
	(void)s;
	char w[32];
	if (!next_word(&args, w, sizeof(w))) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
		return CS_OK;
	}
	if (!no_extra(args, "help [CMD]", d))
		return CS_ERR_INPUT;
	const rs_cmd *c = find_cmd(w, strlen(w));
	if (!c) {
		cs_diag_set(d, CS_ERR_INPUT, "help: no command '%s' (help lists them)", w);
		return CS_ERR_INPUT;
	}
	fprintf(out, "usage: %s\n  %s\n", c->usage, c->summary);
	if (c->aliases[0])
		fprintf(out, "  also: %s\n", c->aliases);
	return CS_OK;
}

/* What the engine's callbacks get: the session, and the engine itself for
 * `complete`. */
typedef struct repl_cli {
	rs_session *s;
	cs_repl *r;
} repl_cli;

static void print_word(const char *w, void *arg)
{
	fprintf(arg, "%s\n", w);
}

/* What to type here for a gdb command a method stream has no use for as such. */
static const char *gdb_instead(const char *word, size_t len)
{
	static const struct {
		const char *gdb, *here;
	} habits[] = {
		{ "watch", "break write ADDR[,LEN]" }, { "rwatch", "break write ADDR[,LEN]" },
		{ "run", "restart" }, { "r", "restart" }, { "start", "restart" },
		{ "bt", "trace" }, { "backtrace", "trace" }, { "where", "trace" },
		{ "finish", "next" }, { "display", "x/FMT ADDR" }, { "disassemble", "list" },
		{ "frame", "list" }, { "kill", "quit" }, { "tbreak", "break" },
	};
	for (size_t i = 0; i < sizeof(habits) / sizeof(habits[0]); i++)
		if (strlen(habits[i].gdb) == len && !strncmp(habits[i].gdb, word, len))
			return habits[i].here;
	return NULL;
}

static cs_status exec_line(void *ctx, const char *line, FILE *out, cs_diag *d)
{
	repl_cli *cli = ctx;
	rs_session *s = cli->s;
	if (!strncmp(line, "complete", 8) && (line[8] == ' ' || !line[8])) {
		/* as gdb's: the candidates for the text, one a line */
		const char *text = line[8] ? line + 9 : "";
		if (!cs_repl_complete(cli->r, text, print_word, out))
			fprintf(out, "(no completions)\n");
		return CS_OK;
	}
	size_t len = 0;
	while (line[len] && line[len] != ' ' && line[len] != '\t' && line[len] != '/')
		len++;
	if (line[0] == 'x' && (len == 1)) {
		const char *fmt = line + 1;
		char buf[32];
		size_t k = 0;
		while (fmt[k] && fmt[k] != ' ' && fmt[k] != '\t' && k < sizeof(buf) - 1) {
			buf[k] = fmt[k];
			k++;
		}
		buf[k] = 0;
		return cmd_x(s, buf, fmt + k, out, d);
	}
	const rs_cmd *c = find_cmd(line, len);
	if (!c || !c->fn) {
		const char *instead = gdb_instead(line, len);
		cs_diag_set(d, CS_ERR_INPUT, "unknown command '%.*s'%s%s%s (help lists them)", (int)len,
			    line, instead ? ": here, '" : "", instead ? instead : "", instead ? "'" : "");
		return CS_ERR_INPUT;
	}
	if (line[len] == '/') {
		cs_diag_set(d, CS_ERR_INPUT, "%s takes no /FMT", c->name);
		return CS_ERR_INPUT;
	}
	return c->fn(s, line + len, out, d);
}

/* After the command: its subcommand words, the names of the device's memory
 * regions (the scenario's allocations), then the arch's method names. */
static const char *complete_word(void *ctx, size_t i)
{
	rs_session *s = ((repl_cli *)ctx)->s;
	static const char *const extra[] = { "method", "stage", "write", "break", "mem", NULL };
	if (i < 5)
		return extra[i];
	i -= 5;
	const cs_mem *mem = cs_device_mem(rs_session_device(s));
	size_t nreg = cs_mem_region_count(mem);
	if (i < nreg)
		return cs_mem_region(mem, i)->name;
	return rs_method_name(s, i - nreg);
}

/* ---- the command line ------------------------------------------------------ */

static void repl_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim repl FILE [--script SCRIPT] [-ex CMD]... [EXECUTOR OPTIONS]\n"
		"\n"
		"Runs the .chain scenario FILE on the simulator and stops before its first\n"
		"method; the commands step the method stream, set breakpoints, and read the\n"
		"chain, channels, QMDs and memory (docs/repl.md; 'help' inside lists them).\n"
		"\n"
		"  --script SCRIPT  run the commands in SCRIPT, echoed, then exit\n"
		"  -ex CMD          run CMD (repeatable; in order, before --script)\n"
		"  --version        print chainsim's version\n"
		"The scenario runs with the executor options, as chainsim run takes them (every\n"
		"method is recorded, as with --trace-methods):\n");
	cs_exec_options_help(out);
	fprintf(out,
		"FILE or SCRIPT - reads standard input; an option's value follows it or an '='.\n"
		"\n"
		"Without --script or -ex the session is interactive (libedit: history,\n"
		"Tab completes commands and method names). exit status: 0, or 2 when a\n"
		"command failed (its located error is on stderr) or FILE is bad input.\n");
}

/* getopt_long_only, so that gdb's -ex spelling stays as it was */
static const struct option repl_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "script", required_argument, NULL, 's' },
	{ "ex", required_argument, NULL, 'e' },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

int cs_cmd_repl(int argc, char **argv)
{
	const char *file = NULL, *script = NULL;
	const char **ex = calloc((size_t)argc, sizeof(*ex));
	size_t nex = 0;
	cs_run_opts exec = { 0 };
	if (!ex)
		return CS_EXIT_INTERNAL;
	cs_cli_begin();
	for (int c; (c = getopt_long_only(argc, argv, ":h", repl_options, NULL)) != -1;) {
		if (c == 'h' || c == CS_CLI_VERSION) {
			free(ex);
			if (c == CS_CLI_VERSION)
				return cs_cli_version();
			repl_usage(stdout);
			return CS_EXIT_OK;
		} else if (c == 's') {
			script = optarg;
		} else if (c == 'e') {
			ex[nex++] = optarg;
		} else if (cs_exec_option_of(c)) {
			if (!cs_exec_option_take("repl", cs_exec_option_of(c), optarg, &exec)) {
				free(ex);
				return CS_EXIT_INPUT;
			}
		} else {
			free(ex);
			return cs_cli_bad_option("repl", c, argv, repl_usage);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "chainsim repl: one scenario at a time ('%s' and '%s')\n", file,
			argv[optind]);
		free(ex);
		return CS_EXIT_INPUT;
	}
	bool scenario_on_stdin = file && !strcmp(file, CS_FILE_STDIN);
	if (scenario_on_stdin && ((script && !strcmp(script, CS_FILE_STDIN)) || (!script && !nex))) {
		fprintf(stderr, "chainsim repl: the scenario is on standard input (-), so the "
			"commands must come from --script FILE or -ex\n");
		free(ex);
		return CS_EXIT_INPUT;
	}
	if (!file) {
		fprintf(stderr, "chainsim repl: no scenario file given\n");
		repl_usage(stderr);
		free(ex);
		return CS_EXIT_INPUT;
	}
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	rs_session *s = rs_session_new(file, &exec, &d);
	if (!s) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim repl: %s\n", msg);
		free(ex);
		return d.status == CS_ERR_NOMEM || d.status == CS_ERR_INTERNAL ? CS_EXIT_INTERNAL
									   : CS_EXIT_INPUT;
	}
	const char *cmd_names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		cmd_names[i] = commands[i].name;
	cmd_names[NCOMMANDS] = NULL;
	repl_cli cli = { s, NULL };
	cs_repl_config cfg = { .prog = "chainsim", .prompt = "(chainsim) ", .commands = cmd_names,
			       .words = complete_word, .exec = exec_line, .ctx = &cli,
			       .own_help = true };
	cs_repl *r = cs_repl_new(&cfg);
	cli.r = r;
	int rc = CS_EXIT_OK;
	if (!r) {
		rs_session_free(s);
		free(ex);
		return CS_EXIT_INTERNAL;
	}
	cs_method_call c;
	uint64_t n;
	char line[512];
	if (rs_session_current(s, &c, &n)) {
		rs_describe_method(s, &c, n, line, sizeof(line));
		fprintf(stdout, "%s: stopped before the first method\nnext: %s\n", cs_file_name(file), line);
	} else {
		fprintf(stdout, "%s: the program ran no method\n", file);
	}
	bool quit = false;
	cs_diag_clear(&d);
	if (cs_repl_ex(r, ex, nex, stdout, &quit, &d) != CS_OK) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim repl: %s\n", msg);
		rc = CS_EXIT_INPUT;
	}
	if (rc == CS_EXIT_OK && !quit && script) {
		cs_diag_clear(&d);
		if (cs_repl_script(r, script, stdout, &d) != CS_OK) {
			cs_diag_format(&d, msg, sizeof(msg));
			fflush(stdout);
			fprintf(stderr, "chainsim repl: %s\n", msg);
			rc = CS_EXIT_INPUT;
		}
	} else if (rc == CS_EXIT_OK && !quit && !nex) {
		rc = cs_repl_interactive(r, stdout, stderr) ? CS_EXIT_INPUT : CS_EXIT_OK;
	}
	fflush(stdout);
	cs_repl_free(r);
	rs_session_free(s);
	free(ex);
	return rc;
}
