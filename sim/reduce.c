/* SPDX-License-Identifier: MIT */
/* Scenario reduction by delta debugging over text lines (include/chainsim/
 * reduce.h, docs/reduce.md). A candidate is the scenario with some lines left
 * out; it is parsed and run here, on a fresh device, and keeps the property
 * when its overall chain breaks as the goal says. */
#include "chainsim/reduce.h"
#include "chainsim/ptx.h"
#include "chainsim/report.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* What a line is to the reducer. cs_reduce_scenario reduces the classes from
 * LINE_METHOD to LINE_OTHER in that order, one phase each. */
typedef enum line_class {
	LINE_FIXED = 0, /* arch, end: kept while their block is */
	LINE_METHOD,    /* a push line */
	LINE_REWRITE,   /* a rewrite line (relocate, keep, drop...) */
	LINE_ENTRY,     /* gpfifo, gpfifo-raw, submit, wait */
	LINE_DATA,      /* data, fill, load, random */
	LINE_OTHER,     /* alloc, qmd, module, channel, map, push and rewrite (the whole
			   block) */
	LINE_DIFFERENCE /* between: a line one scenario has and the other has not */
} line_class;

typedef struct rline {
	char *text;        /* the line without its comment, right-trimmed */
	const char *file;  /* the name of the file it came from */
	uint32_t lineno;   /* its line there */
	line_class cls;
	int32_t block;     /* the index of its push or rewrite line, -1 outside a block */
	/* A unit is "applied" while it is part of the candidate; a left-out line of
	 * between mode (a line BAD deleted) is emitted when NOT applied. */
	bool applied;
	bool invert;
	char sign;         /* between: '-' a line only GOOD has, '+' one only BAD has, 0 both */
} rline;

typedef struct reducer {
	GArray *lines;     /* rline */
	const cs_reduce_opts *o;
	cs_reduce_goal goal;
	char *base_real;   /* realpath of the base directory, for path rewriting */
	char *out_real;    /* realpath of the output directory, NULL = no rewriting */
	bool final;        /* building the output, not a candidate: rewrite its paths */
	size_t runs;
	gint64 deadline_us;  /* monotonic time past which no candidate starts */
	bool out_of_time;    /* a candidate found the deadline passed */
	GString *buf;
} reducer;

static rline *line_at(reducer *r, size_t i)
{
	return &g_array_index(r->lines, rline, i);
}

static bool emitted(reducer *r, size_t i)
{
	const rline *l = line_at(r, i);
	if (l->applied == l->invert)
		return false;
	return l->block < 0 || (size_t)l->block == i || emitted(r, (size_t)l->block);
}

/* ---- the text of a candidate --------------------------------------------------- */

/* Length of the line's content without a '#' comment (one outside a quoted
 * path, as the parser reads it) and trailing blanks. */
static size_t content_length(const char *s, size_t len)
{
	bool quoted = false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (s[i] == '#' && !quoted)
			len = i;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	return len;
}

static const char *first_word(const char *s, size_t *n)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t k = 0;
	while (s[k] && s[k] != ' ' && s[k] != '\t')
		k++;
	*n = k;
	return s;
}

static bool word_is(const char *w, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(w, lit, n);
}

/* to (an absolute, canonical path) as seen from from_dir (the same kind):
 * "/a/b/c" from "/a/x" is "../b/c". */
static char *relative_path(const char *from_dir, const char *to)
{
	char **f = g_strsplit(from_dir, "/", -1), **t = g_strsplit(to, "/", -1);
	size_t common = 0;
	while (f[common] && t[common] && !strcmp(f[common], t[common]))
		common++;
	GString *rel = g_string_new(NULL);
	for (size_t i = common; f[i]; i++)
		if (f[i][0])
			g_string_append(rel, "../");
	for (size_t i = common; t[i]; i++)
		g_string_append_printf(rel, "%s%s", t[i], t[i + 1] ? "/" : "");
	g_strfreev(f);
	g_strfreev(t);
	return g_string_free(rel, FALSE);
}

/* Append the path at *p (quoted or a bare word) moved to resolve from the
 * output's directory; *p is left after it. */
static void append_moved_path(reducer *r, const char **p)
{
	bool quoted = **p == '"';
	const char *path = *p + quoted;
	size_t plen = quoted ? strcspn(path, "\"") : strcspn(path, " \t");
	if (!plen || path[0] == '/') {
		g_string_append_len(r->buf, *p, path + plen - *p);
		*p = path + plen;
		return;
	}
	char *rel = g_strndup(path, plen);
	char *joined = g_build_filename(r->base_real, rel, NULL);
	char *target = g_canonicalize_filename(joined, "/");
	char *moved = relative_path(r->out_real, target);
	bool quote = !quoted && moved[strcspn(moved, " \t#")]; /* a new blank or '#' in it */
	g_string_append_printf(r->buf, quoted ? "\"%s" : quote ? "\"%s\"" : "%s", moved);
	*p = path + plen;
	g_free(moved);
	g_free(target);
	g_free(joined);
	g_free(rel);
}

/* A line as the output needs it: in `module NAME PATH [ptx=PATH]` and `load
 * NAME PATH`, relative paths moved to resolve from the output's directory. */
static void append_line(reducer *r, const char *text)
{
	size_t n;
	const char *w = first_word(text, &n);
	bool module = word_is(w, n, "module");
	if (!r->final || !r->out_real || !(module || word_is(w, n, "load"))) {
		g_string_append(r->buf, text);
		return;
	}
	const char *p = w + n;
	p += strspn(p, " \t");
	p += strcspn(p, " \t"); /* NAME */
	p += strspn(p, " \t");
	g_string_append_len(r->buf, text, p - text);
	append_moved_path(r, &p);
	while (module && *p) {
		size_t blanks = strspn(p, " \t");
		g_string_append_len(r->buf, p, blanks);
		p += blanks;
		if (!strncmp(p, "ptx=", 4)) {
			g_string_append(r->buf, "ptx=");
			p += 4;
			append_moved_path(r, &p);
		} else {
			size_t word = strcspn(p, " \t");
			g_string_append_len(r->buf, p, word);
			p += word;
		}
	}
	g_string_append(r->buf, p);
}

static void append_goal(GString *buf, const cs_reduce_goal *g)
{
	if (g->stage != CS_STAGE_NONE)
		g_string_append_printf(buf, "expect break %d\n", (int)g->stage);
	if (g->cause != CS_CAUSE_NONE)
		g_string_append_printf(buf, "expect cause %s\n", cs_cause_key(g->cause));
}

static size_t build_text(reducer *r)
{
	size_t kept = 0;
	g_string_truncate(r->buf, 0);
	for (size_t i = 0; i < r->lines->len; i++) {
		if (!emitted(r, i))
			continue;
		append_line(r, line_at(r, i)->text);
		g_string_append_c(r->buf, '\n');
		kept++;
	}
	append_goal(r->buf, &r->goal);
	return kept;
}

/* ---- one run ------------------------------------------------------------------- */

/* Run text in this process with the reduction's executor options, its
 * kernels within wall_ns (0: the options' budget); the overall chain's break
 * into *stage and *cause. False, with d set, when it does not parse or stops
 * on an error. */
static bool run_break(const char *text, size_t len, const char *name, const cs_reduce_opts *o,
		      uint64_t wall_ns, cs_stage *stage, cs_cause *cause, cs_diag *d)
{
	cs_scenario *s = cs_scenario_parse(text, len, name, o->base_dir ? o->base_dir : ".", d);
	if (!s)
		return false;
	cs_run_opts ro = o->run;
	if (wall_ns)
		ro.budget_ns = wall_ns;
	cs_run run;
	bool ok = cs_run_scenario(s, &ro, CS_RUN_JUDGE_WHOLE, &run, d);
	if (ok && !run.report) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory judging the chain");
		ok = false;
	}
	if (ok) {
		const cs_chain *c = &run.report->overall;
		*stage = c->first_break;
		*cause = c->first_break == CS_STAGE_NONE ? CS_CAUSE_NONE : c->cause;
	}
	cs_run_clear(&run);
	cs_scenario_free(s);
	return ok;
}

static bool goal_met(const cs_reduce_goal *g, cs_stage stage, cs_cause cause)
{
	return stage != CS_STAGE_NONE && (g->stage == CS_STAGE_NONE || g->stage == stage) &&
	       (g->cause == CS_CAUSE_NONE || g->cause == cause);
}

/* Whether the candidate keeps the property. With bounded, none runs once
 * the deadline has passed, one runs its kernels for at most the time left,
 * and one that ends past the deadline does not keep it (the budget may have
 * cut its verdict short). */
static bool candidate_run(reducer *r, bool bounded)
{
	uint64_t wall_ns = 0;
	if (bounded) {
		gint64 left_us = r->deadline_us - g_get_monotonic_time();
		if (r->out_of_time || left_us <= 0) {
			r->out_of_time = true;
			return false;
		}
		uint64_t wall = r->o->run.budget_ns ? r->o->run.budget_ns : CS_PTX_WALL_DEFAULT_NS;
		if ((uint64_t)left_us * 1000 < wall)
			wall_ns = (uint64_t)left_us * 1000;
	}
	size_t kept = build_text(r);
	cs_diag d;
	cs_diag_clear(&d);
	cs_stage stage = CS_STAGE_NONE;
	cs_cause cause = CS_CAUSE_NONE;
	bool ran = run_break(r->buf->str, r->buf->len, r->o->name, r->o, wall_ns, &stage,
			     &cause, &d);
	r->runs++;
	if (r->o->progress)
		r->o->progress(r->o->progress_ctx, r->runs, kept);
	if (bounded && g_get_monotonic_time() >= r->deadline_us) {
		r->out_of_time = true;
		return false;
	}
	return ran && goal_met(&r->goal, stage, cause);
}

static bool candidate_keeps(reducer *r)
{
	return candidate_run(r, true);
}

/* ---- ddmin --------------------------------------------------------------------- */

static void set_applied(reducer *r, const GArray *units, size_t from, size_t to, bool v)
{
	for (size_t k = from; k < to; k++)
		line_at(r, g_array_index(units, size_t, k))->applied = v;
}

/* Delta debugging by complements: leave out each of `gran` chunks in turn,
 * keeping every removal that keeps the property; refine the chunks when a
 * sweep removes nothing, until single units cannot be removed. Returns
 * whether anything was removed. */
static bool ddmin(reducer *r, GArray *units)
{
	size_t gran = 2;
	bool any = false;
	while (units->len && !r->out_of_time) {
		size_t chunk = (units->len + gran - 1) / gran;
		bool removed = false;
		for (size_t start = 0; start < units->len && !r->out_of_time;) {
			size_t end = start + chunk < units->len ? start + chunk : units->len;
			set_applied(r, units, start, end, false);
			if (candidate_keeps(r)) {
				g_array_remove_range(units, (guint)start, (guint)(end - start));
				removed = any = true;
			} else {
				set_applied(r, units, start, end, true);
				start = end;
			}
		}
		if (chunk == 1 && !removed)
			break;
		if (!removed)
			gran = gran * 2 < units->len ? gran * 2 : units->len;
	}
	return any;
}

/* A unit still in play: applied, and not inside a push block left out (its
 * removal would change nothing). */
static bool in_play(reducer *r, size_t i)
{
	const rline *l = line_at(r, i);
	return l->cls != LINE_FIXED && l->applied && (l->block < 0 || emitted(r, (size_t)l->block));
}

/* The units in play of one class, in line order. */
static GArray *units_of(reducer *r, line_class cls)
{
	GArray *u = g_array_new(FALSE, FALSE, sizeof(size_t));
	for (size_t i = 0; i < r->lines->len; i++)
		if (line_at(r, i)->cls == cls && in_play(r, i))
			g_array_append_val(u, i);
	return u;
}

static size_t count_applied(reducer *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->lines->len; i++)
		n += in_play(r, i);
	return n;
}

/* ---- setup and results --------------------------------------------------------- */

static uint64_t budget_of(const cs_reduce_opts *o)
{
	return o->time_budget_ns ? o->time_budget_ns : CS_REDUCE_TIME_BUDGET_DEFAULT_NS;
}

/* The output header's word on a reduction the budget stopped. */
static const char *budget_note(const reducer *r)
{
	return r->out_of_time ? " (stopped at its time budget: a smaller scenario may keep it too)"
			      : "";
}

static void reducer_init(reducer *r, const cs_reduce_opts *o, gint64 start_us)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->deadline_us = start_us + (gint64)(budget_of(o) / 1000);
	r->lines = g_array_new(FALSE, TRUE, sizeof(rline));
	r->buf = g_string_new(NULL);
	if (o->out_dir) {
		r->base_real = realpath(o->base_dir ? o->base_dir : ".", NULL);
		r->out_real = r->base_real ? realpath(o->out_dir, NULL) : NULL;
		if (r->out_real && !strcmp(r->out_real, r->base_real)) {
			free(r->out_real); /* same directory: the paths stand */
			r->out_real = NULL;
		}
	}
}

static void reducer_free(reducer *r)
{
	for (size_t i = 0; i < r->lines->len; i++)
		g_free(line_at(r, i)->text);
	g_array_free(r->lines, TRUE);
	g_string_free(r->buf, TRUE);
	free(r->base_real);
	free(r->out_real);
}

/* The final text into out (with a header comment), and the counts. */
static bool finish(reducer *r, const char *header, cs_reduce_result *out, cs_diag *d)
{
	r->final = true;
	build_text(r);
	g_string_prepend(r->buf, header);
	out->text = strdup(r->buf->str);
	out->runs = r->runs;
	out->budget_reached = r->out_of_time;
	out->units_after = count_applied(r);
	if (!out->text) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory writing the reduced scenario");
		return false;
	}
	return true;
}

/* Split text into content lines (comment stripped). A line of a file named
 * in a diagnosis carries its number. */
static char **content_lines(const char *text, size_t len, size_t *n)
{
	char *copy = g_strndup(text, len);
	char **lines = g_strsplit(copy, "\n", -1);
	g_free(copy);
	*n = g_strv_length(lines);
	for (size_t i = 0; i < *n; i++)
		lines[i][content_length(lines[i], strlen(lines[i]))] = 0;
	return lines;
}

static bool is_blank(const char *s)
{
	return s[strspn(s, " \t")] == 0;
}

void cs_reduce_result_clear(cs_reduce_result *r)
{
	free(r->text);
	free(r->differences);
	memset(r, 0, sizeof(*r));
}

bool cs_reduce_goal_parse(const char *text, cs_reduce_goal *goal, cs_diag *d)
{
	*goal = (cs_reduce_goal){ .stage = CS_STAGE_NONE, .cause = CS_CAUSE_NONE };
	char **parts = g_strsplit_set(text, " \t", -1);
	GPtrArray *w = g_ptr_array_new();
	for (size_t i = 0; parts[i]; i++)
		if (parts[i][0])
			g_ptr_array_add(w, parts[i]);
	bool ok = w->len > 0 && w->len % 2 == 0;
	if (!ok)
		cs_diag_set(d, CS_ERR_INPUT, "--until '%s': expected 'break N' (a stage number or "
			    "name), 'cause KEY' or both", text);
	for (size_t i = 0; ok && i < w->len; i += 2) {
		const char *key = w->pdata[i], *value = w->pdata[i + 1];
		if (!strcmp(value, "any") && (!strcmp(key, "break") || !strcmp(key, "cause"))) {
			*(key[0] == 'b' ? &goal->any_stage : &goal->any_cause) = true;
			continue;
		}
		if (!strcmp(key, "break") && (goal->stage = cs_stage_parse(value)) != CS_STAGE_NONE)
			continue;
		if (!strcmp(key, "cause") && (goal->cause = cs_cause_parse(value)) != CS_CAUSE_NONE)
			continue;
		ok = false;
		if (!strcmp(key, "break"))
			cs_diag_set(d, CS_ERR_INPUT, "--until '%s': '%s' is not a stage (1..11 or a "
				    "name like qmd-read)", text, value);
		else if (!strcmp(key, "cause"))
			cs_diag_set(d, CS_ERR_INPUT, "--until '%s': '%s' is not a cause key (docs/"
				    "chain.md lists them)", text, value);
		else
			cs_diag_set(d, CS_ERR_INPUT, "--until '%s': '%s' is neither 'break' nor "
				    "'cause'", text, key);
	}
	g_ptr_array_free(w, TRUE);
	g_strfreev(parts);
	return ok;
}

/* ---- reduce one scenario ------------------------------------------------------- */

static void add_scenario_lines(reducer *r, char **lines, size_t n, const char *file)
{
	int32_t open_block = -1;
	line_class inside = LINE_METHOD; /* the class of the open block's lines */
	for (size_t i = 0; i < n; i++) {
		size_t wn;
		const char *w = first_word(lines[i], &wn);
		if (is_blank(lines[i]) || word_is(w, wn, "expect"))
			continue;
		rline l = { .text = g_strdup(lines[i]), .file = file, .lineno = (uint32_t)i + 1,
			    .block = open_block, .applied = true };
		if (open_block >= 0 && word_is(w, wn, "end")) {
			l.cls = LINE_FIXED;
			open_block = -1;
		} else if (open_block >= 0) {
			l.cls = inside;
		} else if (word_is(w, wn, "push") || word_is(w, wn, "rewrite")) {
			l.cls = LINE_OTHER;
			l.block = open_block = (int32_t)r->lines->len;
			inside = word_is(w, wn, "push") ? LINE_METHOD : LINE_REWRITE;
		} else if (word_is(w, wn, "arch") || word_is(w, wn, "end")) {
			l.cls = LINE_FIXED;
		} else if (word_is(w, wn, "gpfifo") || word_is(w, wn, "gpfifo-raw") ||
			   word_is(w, wn, "submit") || word_is(w, wn, "wait")) {
			l.cls = LINE_ENTRY;
		} else if (word_is(w, wn, "data") || word_is(w, wn, "fill") ||
			   word_is(w, wn, "load") || word_is(w, wn, "random")) {
			l.cls = LINE_DATA;
		} else {
			l.cls = LINE_OTHER;
		}
		g_array_append_val(r->lines, l);
	}
}

bool cs_reduce_scenario(const char *text, size_t len, const cs_reduce_opts *o,
			cs_reduce_result *out, cs_diag *d)
{
	memset(out, 0, sizeof(*out));
	cs_reduce_goal goal = o->goal;
	if (goal.stage == CS_STAGE_NONE && goal.cause == CS_CAUSE_NONE && !goal.any_stage &&
	    !goal.any_cause) {
		cs_diag_set(d, CS_ERR_INPUT, "reduce needs a goal: a break stage, a cause or both");
		return false;
	}
	const char *name = o->name ? o->name : "scenario";
	gint64 start_us = g_get_monotonic_time();
	/* the input itself must run: a located error, not "does not keep it" */
	cs_stage stage;
	cs_cause cause;
	if (!run_break(text, len, name, o, 0, &stage, &cause, d))
		return false;
	/* The property is the input's break: what the goal leaves out of it is kept
	 * too, unless asked for less, so the reduction cannot slide to another bug. */
	if (goal_met(&goal, stage, cause)) {
		if (goal.stage == CS_STAGE_NONE && !goal.any_stage)
			goal.stage = stage;
		if (goal.cause == CS_CAUSE_NONE && !goal.any_cause)
			goal.cause = cause;
	}
	reducer r;
	reducer_init(&r, o, start_us);
	r.goal = goal;
	size_t n;
	char **lines = content_lines(text, len, &n);
	add_scenario_lines(&r, lines, n, name);
	g_strfreev(lines);
	out->goal = r.goal;
	out->units_before = count_applied(&r);
	out->held = candidate_run(&r, false);
	bool ok = true;
	if (out->held) {
		for (bool changed = true; changed && !r.out_of_time;) {
			changed = false;
			for (int c = LINE_METHOD; c <= LINE_OTHER && !r.out_of_time; c++) {
				GArray *units = units_of(&r, (line_class)c);
				changed |= ddmin(&r, units);
				g_array_free(units, TRUE);
			}
		}
		char *header = g_strdup_printf("# reduced by chainsim reduce from %s: %zu of %zu lines "
					       "kept, %zu runs%s\n", name, count_applied(&r),
					       out->units_before, r.runs + 1, budget_note(&r));
		ok = finish(&r, header, out, d);
		g_free(header);
	}
	out->runs = r.runs + 1;
	out->time_budget_ns = budget_of(o);
	reducer_free(&r);
	return ok;
}

/* ---- the differences between two scenarios ------------------------------------ */

/* The content lines of a scenario that take part in the diff. */
static GPtrArray *diff_lines(const char *text, size_t len, GArray *linenos)
{
	size_t n;
	char **lines = content_lines(text, len, &n);
	GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
	for (size_t i = 0; i < n; i++) {
		size_t wn;
		const char *w = first_word(lines[i], &wn);
		if (is_blank(lines[i]) || word_is(w, wn, "expect"))
			continue;
		g_ptr_array_add(out, g_strdup(lines[i]));
		uint32_t no = (uint32_t)i + 1;
		g_array_append_val(linenos, no);
	}
	g_strfreev(lines);
	return out;
}

static bool same_line(const char *a, const char *b)
{
	while (*a == ' ' || *a == '\t')
		a++;
	while (*b == ' ' || *b == '\t')
		b++;
	return !strcmp(a, b);
}

/* The middle of two line lists beyond this many cells of the LCS table is
 * refused rather than allocated. */
enum { DIFF_MAX_CELLS = 1 << 24 };

static void add_op(reducer *r, const char *text, const char *file, uint32_t lineno, char sign)
{
	rline l = { .text = g_strdup(text), .file = file, .lineno = lineno, .block = -1,
		    .applied = true, .invert = sign == '-', .sign = sign,
		    .cls = sign ? LINE_DIFFERENCE : LINE_FIXED };
	g_array_append_val(r->lines, l);
}

/* The edit script from good to bad as rlines: common lines fixed, each
 * deleted and each added line a unit (applied: the difference is made). */
static bool build_script(reducer *r, GPtrArray *g, GArray *gno, const char *gname, GPtrArray *b,
			 GArray *bno, const char *bname, cs_diag *d)
{
	size_t gn = g->len, bn = b->len, pre = 0, suf = 0;
	while (pre < gn && pre < bn && same_line(g->pdata[pre], b->pdata[pre]))
		pre++;
	while (suf < gn - pre && suf < bn - pre &&
	       same_line(g->pdata[gn - 1 - suf], b->pdata[bn - 1 - suf]))
		suf++;
	size_t m = gn - pre - suf, k = bn - pre - suf;
	if (m && k && (m + 1) * (k + 1) > DIFF_MAX_CELLS) {
		cs_diag_set(d, CS_ERR_INPUT, "%s and %s differ in %zu and %zu lines: more than "
			    "reduce --between compares (%d table cells)", gname, bname, m, k,
			    DIFF_MAX_CELLS);
		return false;
	}
	/* lcs[i][j]: the longest common subsequence of the middles from i and j on */
	uint32_t *lcs = g_new0(uint32_t, (m + 1) * (k + 1));
	for (size_t i = m; i-- > 0;)
		for (size_t j = k; j-- > 0;)
			lcs[i * (k + 1) + j] =
				same_line(g->pdata[pre + i], b->pdata[pre + j])
					? lcs[(i + 1) * (k + 1) + j + 1] + 1
					: MAX(lcs[(i + 1) * (k + 1) + j], lcs[i * (k + 1) + j + 1]);
	for (size_t i = 0; i < pre; i++)
		add_op(r, g->pdata[i], gname, g_array_index(gno, uint32_t, i), 0);
	size_t i = 0, j = 0;
	while (i < m || j < k) {
		if (i < m && j < k && same_line(g->pdata[pre + i], b->pdata[pre + j])) {
			add_op(r, g->pdata[pre + i], gname, g_array_index(gno, uint32_t, pre + i), 0);
			i++, j++;
		} else if (j < k && (i == m || lcs[i * (k + 1) + j + 1] >= lcs[(i + 1) * (k + 1) + j])) {
			add_op(r, b->pdata[pre + j], bname, g_array_index(bno, uint32_t, pre + j), '+');
			j++;
		} else {
			add_op(r, g->pdata[pre + i], gname, g_array_index(gno, uint32_t, pre + i), '-');
			i++;
		}
	}
	for (size_t s = gn - suf; s < gn; s++)
		add_op(r, g->pdata[s], gname, g_array_index(gno, uint32_t, s), 0);
	g_free(lcs);
	return true;
}

static char *list_differences(reducer *r)
{
	GString *s = g_string_new(NULL);
	for (size_t i = 0; i < r->lines->len; i++) {
		const rline *l = line_at(r, i);
		if (l->sign && l->applied)
			g_string_append_printf(s, "%s:%u: %c %s\n", l->file, l->lineno, l->sign,
					       l->text + strspn(l->text, " \t"));
	}
	return g_string_free(s, FALSE);
}

bool cs_reduce_between(const char *good, size_t good_len, const char *good_name, const char *bad,
		       size_t bad_len, const char *bad_name, const cs_reduce_opts *o,
		       cs_reduce_result *out, cs_diag *d)
{
	memset(out, 0, sizeof(*out));
	cs_stage gs = CS_STAGE_NONE, bs = CS_STAGE_NONE;
	cs_cause gc = CS_CAUSE_NONE, bc = CS_CAUSE_NONE;
	gint64 start_us = g_get_monotonic_time();
	out->time_budget_ns = budget_of(o);
	if (!run_break(good, good_len, good_name, o, 0, &gs, &gc, d) ||
	    !run_break(bad, bad_len, bad_name, o, 0, &bs, &bc, d))
		return false;
	out->goal = (cs_reduce_goal){ .stage = bs, .cause = bc };
	out->runs = 2;
	if (bs == CS_STAGE_NONE || goal_met(&out->goal, gs, gc))
		return true; /* held stays false: nothing to reproduce, or nothing to find */
	reducer r;
	reducer_init(&r, o, start_us);
	r.goal = out->goal;
	GArray *gno = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GArray *bno = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	GPtrArray *g = diff_lines(good, good_len, gno), *b = diff_lines(bad, bad_len, bno);
	bool ok = build_script(&r, g, gno, good_name, b, bno, bad_name, d);
	g_ptr_array_free(g, TRUE);
	g_ptr_array_free(b, TRUE);
	g_array_free(gno, TRUE);
	g_array_free(bno, TRUE);
	if (ok) {
		out->units_before = count_applied(&r);
		/* every difference made is bad without its comments and expect lines */
		out->held = candidate_run(&r, false);
	}
	if (ok && out->held) {
		GArray *units = units_of(&r, LINE_DIFFERENCE);
		ddmin(&r, units);
		g_array_free(units, TRUE);
		out->differences = list_differences(&r);
		GString *header = g_string_new(NULL);
		g_string_append_printf(header, "# reduced by chainsim reduce --between %s %s: %zu of "
				       "%zu differences reproduce the break, %zu runs%s\n",
				       good_name, bad_name, count_applied(&r), out->units_before,
				       r.runs + 2, budget_note(&r));
		char **dl = g_strsplit(out->differences, "\n", -1);
		for (size_t i = 0; dl[i] && dl[i][0]; i++)
			g_string_append_printf(header, "#   %s\n", dl[i]);
		g_strfreev(dl);
		ok = finish(&r, header->str, out, d);
		g_string_free(header, TRUE);
	}
	out->runs = r.runs + 2;
	reducer_free(&r);
	return ok;
}
