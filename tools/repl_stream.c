/* SPDX-License-Identifier: MIT */
/* The method-stream session: a scenario run as a coroutine, paused between
 * methods by the device's method hook (see repl_stream.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chainsim/arch.h"
#include "chainsim/file.h"
#include "chainsim/registry.h"
#include "chainsim/report.h"

#include "repl_coro.h"
#include "repl_stream.h"

/* A method's label and class name, looked up once per (class, subchannel,
 * offset): a step describes the method it stops before, and the class tables
 * are searched linearly. */
typedef struct rs_label {
	bool used;
	uint32_t cls, subch, method;
	const cs_method_desc *m;
	const char *cname;
	char text[96];
} rs_label;

enum { RS_LABELS = 64 };

struct rs_session {
	char *path;
	char *stdin_text; /* the scenario, when path is -: read once, parsed at each start */
	size_t stdin_len;
	cs_scenario *scn;
	cs_device *dev;
	cs_arch arch;
	cs_run_opts exec; /* the executor's options, every method recorded */

	rs_coro *co;       /* the scenario runs here, see "the device's turn" */
	bool dev_live;     /* the coroutine started and has not ended */
	bool finished;     /* the scenario returned */
	bool exec_ok;
	cs_diag exec_diag;
	bool free_run;     /* restart and teardown: never stop again */

	bool at_method;
	cs_method_call cur, prev; /* prev: the method that ran last */
	uint64_t nmethod;  /* methods reached; cur is number nmethod */

	/* the request in force */
	rs_go go;
	uint64_t go_count;
	unsigned go_stage;
	char go_name[RS_NAME_MAX];
	uint32_t go_channel, go_entry;
	size_t scan_from;             /* records already looked at by this request */
	size_t fired_base[CS_STAGE_COUNT + 1];
	bool watch_stages;            /* a stage breakpoint or until stage is set */
	char reason[2 * CS_DIAG_MSG_MAX];

	rs_break brk[RS_MAX_BREAKS];
	size_t nbrk;
	unsigned next_id;

	rs_label labels[RS_LABELS]; /* emptied at each start: the arch may change */
};

/* ---- names ---------------------------------------------------------------- */

static const cs_class_desc *arch_class(cs_arch arch, unsigned k)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	if (!ai)
		return NULL;
	uint32_t ids[3] = { ai->host_class, ai->compute_class, ai->copy_class };
	return k < 3 ? cs_registry_class(ids[k]) : NULL;
}

const char *rs_method_name(const rs_session *s, size_t i)
{
	for (unsigned k = 0; k < 3; k++) {
		const cs_class_desc *c = arch_class(s->arch, k);
		if (!c)
			continue;
		if (i < c->nmethods)
			return c->methods[i].name;
		i -= c->nmethods;
	}
	return NULL;
}

bool rs_method_name_known(const rs_session *s, const char *name)
{
	const char *n;
	for (size_t i = 0; (n = rs_method_name(s, i)) != NULL; i++)
		if (!strcasecmp(n, name))
			return true;
	return false;
}

static const cs_method_desc *method_desc(const cs_method_call *c)
{
	const cs_class_desc *cls = cs_registry_class(c->cls);
	uint32_t index = 0;
	return cls ? cs_class_method_at(cls, c->method, &index) : NULL;
}

/* A line built by appends: the REPL describes every method it stops before,
 * and one snprintf of eleven conversions was a fifth of a step. */
typedef struct rs_text {
	char *buf;
	size_t len, used;
} rs_text;

static void text_put_n(rs_text *t, const char *s, size_t n)
{
	if (t->used + 1 >= t->len)
		return;
	size_t room = t->len - t->used - 1;
	if (n > room)
		n = room;
	memcpy(t->buf + t->used, s, n);
	t->used += n;
	t->buf[t->used] = 0;
}

#define TEXT_LIT(t, lit) text_put_n((t), (lit), sizeof(lit) - 1)

static void text_put(rs_text *t, const char *s)
{
	text_put_n(t, s, strlen(s));
}

static void text_u64(rs_text *t, uint64_t v)
{
	char num[21];
	size_t k = sizeof(num);
	do
		num[--k] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	text_put_n(t, num + k, sizeof(num) - k);
}

static void text_hex32(rs_text *t, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char num[10] = "0x";
	for (int i = 0; i < 8; i++)
		num[2 + i] = hex[(v >> (28 - 4 * i)) & 0xf];
	text_put_n(t, num, sizeof(num));
}

static const rs_label *method_label(rs_session *s, const cs_method_call *c)
{
	rs_label *l = &s->labels[(c->cls * 31u + c->subch * 7u + c->method / 4u) % RS_LABELS];
	if (l->used && l->cls == c->cls && l->subch == c->subch && l->method == c->method)
		return l;
	*l = (rs_label){ .used = true, .cls = c->cls, .subch = c->subch, .method = c->method };
	if (!cs_registry_method_label(s->arch, c->cls, c->subch, c->method, l->text, sizeof(l->text), &l->m))
		snprintf(l->text, sizeof(l->text), "0x%04x", c->method);
	l->cname = cs_class_name(c->cls);
	return l;
}

size_t rs_describe_method(rs_session *s, const cs_method_call *c, uint64_t number, char *buf, size_t len)
{
	const rs_label *l = method_label(s, c);
	char fields[256];
	fields[0] = 0;
	size_t nfields = l->m ? cs_method_format_fields(l->m, c->data, fields, sizeof(fields)) : 0;
	rs_text t = { buf, len, 0 };
	if (len)
		buf[0] = 0;
	TEXT_LIT(&t, "#");
	text_u64(&t, number);
	TEXT_LIT(&t, " ch");
	text_u64(&t, c->channel);
	TEXT_LIT(&t, " entry ");
	text_u64(&t, c->gp_entry);
	TEXT_LIT(&t, " method ");
	text_u64(&t, c->method_index);
	TEXT_LIT(&t, " subch ");
	text_u64(&t, c->subch);
	TEXT_LIT(&t, " ");
	text_put(&t, l->cname ? l->cname : "?");
	TEXT_LIT(&t, ".");
	text_put(&t, l->text);
	TEXT_LIT(&t, " = ");
	text_hex32(&t, c->data);
	if (nfields) {
		TEXT_LIT(&t, " (");
		text_put_n(&t, fields, nfields);
		TEXT_LIT(&t, ")");
	}
	return t.used;
}

/* ---- stop conditions (the device's turn) ---------------------------------- */

static size_t fired_count(const cs_report *r, unsigned stage)
{
	size_t n = r->overall.rows[stage].status == CS_STAGE_FIRED;
	for (size_t i = 0; i < r->nlaunches; i++)
		n += r->launches[i].rows[stage].status == CS_STAGE_FIRED;
	return n;
}

static void stage_baseline(rs_session *s)
{
	s->watch_stages = s->go == RS_GO_UNTIL_STAGE;
	for (size_t i = 0; i < s->nbrk; i++)
		s->watch_stages |= s->brk[i].kind == RS_BREAK_STAGE;
	memset(s->fired_base, 0, sizeof(s->fired_base));
	if (!s->watch_stages)
		return;
	cs_report *r = cs_report_build(s->dev);
	if (!r)
		return;
	for (unsigned st = 1; st <= CS_STAGE_COUNT; st++)
		s->fired_base[st] = fired_count(r, st);
	cs_report_free(r);
}

/* A stage that fired since the request began and is watched: its number and
 * the evidence, else 0. Builds the report only when a record of a watched
 * stage (other than the per-method records) appeared. */
static unsigned stage_fired(rs_session *s, char *why, size_t len)
{
	if (!s->watch_stages)
		return 0;
	size_t n = 0;
	const cs_event *ev = cs_device_events(s->dev, &n);
	bool want[CS_STAGE_COUNT + 1] = { false };
	if (s->go == RS_GO_UNTIL_STAGE)
		want[s->go_stage] = true;
	for (size_t i = 0; i < s->nbrk; i++)
		if (s->brk[i].kind == RS_BREAK_STAGE)
			want[s->brk[i].stage] = true;
	bool candidate = false;
	for (size_t i = s->scan_from; i < n && !candidate; i++)
		candidate = ev[i].kind != CS_EV_METHOD && ev[i].stage <= CS_STAGE_COUNT &&
			    want[ev[i].stage];
	if (!candidate)
		return 0;
	cs_report *r = cs_report_build(s->dev);
	if (!r)
		return 0;
	unsigned hit = 0;
	for (unsigned st = 1; st <= CS_STAGE_COUNT && !hit; st++) {
		if (!want[st] || fired_count(r, st) <= s->fired_base[st])
			continue;
		hit = st;
		const cs_stage_row *row = &r->overall.rows[st];
		for (size_t i = 0; i < r->nlaunches; i++)
			if (r->launches[i].rows[st].status == CS_STAGE_FIRED)
				row = &r->launches[i].rows[st];
		snprintf(why, len, "stage %u (%s) fired: %s", st, cs_stage_name((cs_stage)st),
			 row->evidence[0] ? row->evidence : "-");
	}
	if (hit) {
		for (unsigned st = 1; st <= CS_STAGE_COUNT; st++)
			s->fired_base[st] = fired_count(r, st);
		for (size_t i = 0; i < s->nbrk; i++)
			if (s->brk[i].kind == RS_BREAK_STAGE && s->brk[i].stage == hit)
				s->brk[i].hits++;
	}
	cs_report_free(r);
	return hit;
}

static bool breaks_chain(const cs_event *ev)
{
	switch (ev->kind) {
	case CS_EV_CHANNEL_STOP: case CS_EV_FAULT: case CS_EV_QMD_REJECT: case CS_EV_CTX_BAD:
	case CS_EV_GRID_NOT_RUN: case CS_EV_SEM_BLOCK: case CS_EV_DEADLOCK:
	case CS_EV_WAIT_FAILED: case CS_EV_INLINE_QMD_SHORT:
		return true;
	default:
		return false;
	}
}

static bool chain_break_seen(rs_session *s, char *why, size_t len)
{
	size_t n = 0;
	const cs_event *ev = cs_device_events(s->dev, &n);
	for (size_t i = s->scan_from; i < n; i++) {
		if (!breaks_chain(&ev[i]))
			continue;
		snprintf(why, len, "record %zu (%s, ch%" PRIu32 "): %s", i,
			 cs_event_kind_name((cs_event_kind)ev[i].kind), ev[i].channel,
			 ev[i].detail ? ev[i].detail : "-");
		return true;
	}
	return false;
}

/* A watched value as a little-endian number (1, 2, 4, 8 bytes), else bytes. */
static void format_bytes(const uint8_t *b, uint32_t n, bool ok, char *buf, size_t len)
{
	if (!ok) {
		snprintf(buf, len, "unmapped");
		return;
	}
	if (n == 1 || n == 2 || n == 4 || n == 8) {
		uint64_t v = 0;
		memcpy(&v, b, n);
		snprintf(buf, len, "0x%0*" PRIx64, (int)(2 * n), v);
		return;
	}
	size_t k = 0;
	for (uint32_t j = 0; j < n && k + 3 < len; j++)
		k += (size_t)snprintf(buf + k, len - k, "%s%02x", j ? " " : "", b[j]);
}

static bool watch_changed(rs_session *s, char *why, size_t len)
{
	for (size_t i = 0; i < s->nbrk; i++) {
		rs_break *b = &s->brk[i];
		if (b->kind != RS_BREAK_WRITE)
			continue;
		uint8_t now[RS_WATCH_MAX];
		bool ok = cs_device_peek(s->dev, b->addr, now, b->len);
		if (ok == b->last_ok && (!ok || !memcmp(now, b->last, b->len)))
			continue;
		char name[128], was[3 * RS_WATCH_MAX + 1], is[3 * RS_WATCH_MAX + 1], by[512] = "";
		cs_device_addr_name(s->dev, b->addr, name, sizeof(name));
		format_bytes(b->last, b->len, b->last_ok, was, sizeof(was));
		format_bytes(now, b->len, ok, is, sizeof(is));
		if (s->nmethod > 1 || s->finished) {
			char m[400];
			rs_describe_method(s, s->finished ? &s->cur : &s->prev,
					   s->finished ? s->nmethod : s->nmethod - 1, m, sizeof(m));
			snprintf(by, sizeof(by), "\n  after %s", m);
		}
		snprintf(why, len, "watchpoint %u: [%s, %" PRIu32 " bytes] %s -> %s%s", b->id, name, b->len,
			 was, is, by);
		memcpy(b->last, now, b->len);
		b->last_ok = ok;
		b->hits++;
		return true;
	}
	return false;
}

static bool method_matches(const cs_method_call *c, const char *name, uint32_t subch)
{
	if (subch != CS_NONE32 && subch != c->subch)
		return false;
	const cs_method_desc *m = method_desc(c);
	return m && !strcasecmp(m->name, name);
}

/* Whether the device should stop before the method s->cur; fills s->reason. */
static bool should_stop(rs_session *s)
{
	char *why = s->reason;
	size_t len = sizeof(s->reason);
	why[0] = 0;
	for (size_t i = 0; i < s->nbrk; i++) {
		rs_break *b = &s->brk[i];
		if (b->kind == RS_BREAK_METHOD && method_matches(&s->cur, b->name, b->subch)) {
			b->hits++;
			snprintf(why, len, "breakpoint %u, method %s", b->id, b->name);
			return true;
		}
	}
	if (watch_changed(s, why, len) || stage_fired(s, why, len))
		return true;
	switch (s->go) {
	case RS_GO_STEP:
		return s->go_count == 0 || --s->go_count == 0;
	case RS_GO_NEXT:
		return s->cur.channel != s->go_channel || s->cur.gp_entry != s->go_entry;
	case RS_GO_UNTIL_METHOD:
		if (method_matches(&s->cur, s->go_name, CS_NONE32)) {
			snprintf(why, len, "until: method %s", s->go_name);
			return true;
		}
		return false;
	case RS_GO_UNTIL_BREAK:
		return chain_break_seen(s, why, len);
	case RS_GO_CONTINUE:
	case RS_GO_UNTIL_STAGE:
		return false;
	}
	return false;
}

/* ---- the device's turn --------------------------------------------------- */

/* The scenario runs as a coroutine on the REPL's own thread: the method hook
 * yields to the REPL when it should stop, and `resume` enters it again. (A
 * second thread handed the turn cost a wake-up through the scheduler per
 * step, most of a step's time on a loaded machine.) */
static void method_hook(void *ctx, const cs_method_call *call)
{
	rs_session *s = ctx;
	s->prev = s->cur;
	s->cur = *call;
	s->at_method = true;
	s->nmethod++;
	if (!s->free_run && should_stop(s))
		rs_coro_yield(s->co);
}

static void device_main(void *arg)
{
	rs_session *s = arg;
	cs_diag d;
	cs_diag_clear(&d);
	bool ok = cs_scenario_execute(s->scn, s->dev, &d);
	s->exec_ok = ok;
	s->exec_diag = d;
	s->finished = true;
	s->at_method = false;
	s->dev_live = false;
	rs_coro_exit(s->co);
}

/* Hands the device its turn until it stops or the program ends. */
static void resume(rs_session *s)
{
	size_t n = 0;
	cs_device_events(s->dev, &n);
	s->scan_from = n;
	stage_baseline(s);
	for (size_t i = 0; i < s->nbrk; i++)
		if (s->brk[i].kind == RS_BREAK_WRITE)
			s->brk[i].last_ok = cs_device_peek(s->dev, s->brk[i].addr, s->brk[i].last,
							    s->brk[i].len);
	rs_coro_enter(s->co);
}

static bool start(rs_session *s, cs_diag *d)
{
	s->scn = s->stdin_text ? cs_scenario_parse(s->stdin_text, s->stdin_len,
						   cs_file_name(s->path), NULL, d)
			       : cs_scenario_load(s->path, d);
	if (!s->scn)
		return false;
	s->arch = cs_scenario_arch(s->scn);
	s->dev = cs_run_device(s->arch, &s->exec, d);
	if (!s->dev) {
		if (d->status == CS_OK)
			cs_diag_set(d, CS_ERR_INTERNAL, "cannot make the device");
		return false;
	}
	cs_device_set_method_hook(s->dev, method_hook, s);
	memset(s->labels, 0, sizeof(s->labels));
	s->finished = s->free_run = s->at_method = false;
	s->nmethod = 0;
	s->go = RS_GO_STEP;
	s->go_count = 1;
	rs_coro_start(s->co, device_main, s);
	s->dev_live = true;
	rs_coro_enter(s->co);
	return true;
}

/* Lets a paused program run to its end without stopping, and frees it. */
static void stop(rs_session *s)
{
	if (s->dev_live) {
		s->free_run = true;
		rs_coro_enter(s->co);
	}
	cs_device_free(s->dev);
	cs_scenario_free(s->scn);
	s->dev = NULL;
	s->scn = NULL;
}

rs_session *rs_session_new(const char *path, const cs_run_opts *exec, cs_diag *d)
{
	rs_session *s = calloc(1, sizeof(*s));
	if (!s || !(s->path = strdup(path))) {
		free(s);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	s->co = rs_coro_new();
	if (!s->co) {
		free(s->path);
		free(s);
		cs_diag_set(d, CS_ERR_NOMEM, "cannot map the device's stack");
		return NULL;
	}
	s->next_id = 1;
	s->exec = *exec;
	s->exec.trace_methods = true;
	if ((!strcmp(path, CS_FILE_STDIN) &&
	     !cs_file_read(path, CS_FILE_MAX_TEXT, "cannot read the scenario", &s->stdin_text,
			   &s->stdin_len, d)) ||
	    !start(s, d)) {
		rs_session_free(s);
		return NULL;
	}
	return s;
}

void rs_session_free(rs_session *s)
{
	if (!s)
		return;
	stop(s);
	rs_coro_free(s->co);
	free(s->path);
	free(s->stdin_text);
	free(s);
}

bool rs_session_restart(rs_session *s, cs_diag *d)
{
	stop(s);
	for (size_t i = 0; i < s->nbrk; i++)
		s->brk[i].hits = 0;
	return start(s, d);
}

cs_device *rs_session_device(rs_session *s) { return s->dev; }
cs_scenario *rs_session_scenario(rs_session *s) { return s->scn; }
bool rs_session_finished(const rs_session *s) { return s->finished; }

bool rs_session_current(const rs_session *s, cs_method_call *call, uint64_t *number)
{
	if (!s->at_method)
		return false;
	if (call)
		*call = s->cur;
	if (number)
		*number = s->nmethod;
	return true;
}

/* What only the end shows: a watched stage, a break, a changed watch. */
static void end_reason(rs_session *s)
{
	char *why = s->reason;
	size_t len = sizeof(s->reason);
	why[0] = 0;
	if (watch_changed(s, why, len) || stage_fired(s, why, len))
		return;
	if (s->go == RS_GO_UNTIL_BREAK)
		chain_break_seen(s, why, len);
}

/* `until stage N` for a stage that fired already in the overall chain. */
static bool stage_already_fired(rs_session *s, unsigned stage, FILE *out)
{
	cs_report *r = cs_report_build(s->dev);
	bool fired = r && stage >= 1 && stage <= CS_STAGE_COUNT &&
		     r->overall.rows[stage].status == CS_STAGE_FIRED;
	if (fired)
		fprintf(out, "stage %u (%s) has already fired: %s\n", stage, cs_stage_name((cs_stage)stage),
			r->overall.rows[stage].evidence[0] ? r->overall.rows[stage].evidence : "-");
	cs_report_free(r);
	return fired;
}

/* A channel that stopped while the device ran, said where it happened: the
 * program may end quietly after it, and a step over the faulting method
 * would otherwise show nothing of it. */
static void print_stops(const rs_session *s, size_t from, FILE *out)
{
	size_t n = 0;
	const cs_event *ev = cs_device_events(s->dev, &n);
	for (size_t i = from; i < n; i++) {
		const cs_event *e = &ev[i];
		if (e->kind != CS_EV_CHANNEL_STOP)
			continue;
		fprintf(out, "channel '%s' stopped (record %zu): %s\n",
			cs_device_channel_name(s->dev, e->channel), i,
			e->detail ? e->detail : "no reason recorded");
	}
}

void rs_session_go(rs_session *s, rs_go go, uint64_t arg, const char *name, FILE *out)
{
	if (s->finished) {
		fprintf(out, "the program has ended; 'restart' runs it again\n");
		return;
	}
	s->go = go;
	s->go_count = go == RS_GO_STEP ? (arg ? arg : 1) : 0;
	s->go_stage = (unsigned)arg;
	snprintf(s->go_name, sizeof(s->go_name), "%s", name ? name : "");
	if (go == RS_GO_UNTIL_STAGE && stage_already_fired(s, (unsigned)arg, out))
		return;
	s->go_channel = s->cur.channel;
	s->go_entry = s->cur.gp_entry;
	resume(s);
	size_t ran_from = s->scan_from;
	if (s->finished) {
		end_reason(s);
		if (s->reason[0])
			fprintf(out, "%s\n", s->reason);
		print_stops(s, ran_from, out);
		if (go == RS_GO_UNTIL_STAGE && !strstr(s->reason, "fired"))
			fprintf(out, "stage %u (%s) did not fire\n", s->go_stage,
				cs_stage_name((cs_stage)s->go_stage));
		fprintf(out, "the program ended after %" PRIu64 " method%s\n", s->nmethod,
			s->nmethod == 1 ? "" : "s");
		if (!s->exec_ok) {
			char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
			cs_diag_format(&s->exec_diag, msg, sizeof(msg));
			fprintf(out, "the scenario stopped: %s\n", msg);
		}
		return;
	}
	if (s->reason[0])
		fprintf(out, "%s\n", s->reason);
	print_stops(s, ran_from, out);
	char line[512];
	size_t n = rs_describe_method(s, &s->cur, s->nmethod, line, sizeof(line));
	fwrite("next: ", 1, 6, out);
	fwrite(line, 1, n, out);
	fputc('\n', out);
}

/* ---- breakpoints ------------------------------------------------------------ */

bool rs_break_add(rs_session *s, const rs_break *b, unsigned *id, cs_diag *d)
{
	if (s->nbrk == RS_MAX_BREAKS) {
		cs_diag_set(d, CS_ERR_INPUT, "at most %d breakpoints; 'delete' some first",
			    RS_MAX_BREAKS);
		return false;
	}
	rs_break *n = &s->brk[s->nbrk++];
	*n = *b;
	n->id = s->next_id++;
	n->hits = 0;
	if (n->kind == RS_BREAK_WRITE && s->dev)
		n->last_ok = cs_device_peek(s->dev, n->addr, n->last, n->len);
	*id = n->id;
	return true;
}

bool rs_break_delete(rs_session *s, unsigned id)
{
	if (!id) {
		s->nbrk = 0;
		return true;
	}
	for (size_t i = 0; i < s->nbrk; i++) {
		if (s->brk[i].id != id)
			continue;
		memmove(&s->brk[i], &s->brk[i + 1], (s->nbrk - i - 1) * sizeof(s->brk[0]));
		s->nbrk--;
		return true;
	}
	return false;
}

size_t rs_break_count(const rs_session *s) { return s->nbrk; }
const rs_break *rs_break_at(const rs_session *s, size_t i) { return i < s->nbrk ? &s->brk[i] : NULL; }
