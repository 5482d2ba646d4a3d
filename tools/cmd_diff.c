/* SPDX-License-Identifier: MIT */
/* chainsim diff A B: run two scenarios and compare the finished runs (the
 * library's cs_diff_runs). chainsim diff --hw-results FILE CAPTURE: compare a
 * results file from a GPU machine (chainsim-hw) with the simulator's replay of
 * the same capture, stage by stage where hardware can observe them. Both name
 * the first divergence. */
#include <glib.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/diff.h"
#include "chainsim/file.h"
#include "chainsim/report.h"
#include "chainsim/results.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"
#include "chainsim/stage.h"

#include "cli.h"
#include "commands.h"
#include "exec_options.h"

static void diff_usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim diff [--json] [EXECUTOR OPTIONS] A B\n"
		"       chainsim diff [--json] [--rewrite-a FILE] [--rewrite-b FILE]\n"
		"                     [EXECUTOR OPTIONS] SCENARIO\n"
		"       chainsim diff --hw-results FILE [--no-exec] CAPTURE\n"
		"\n"
		"With two scenarios, runs both (every method recorded), prints their chains\n"
		"side by side and the first divergence: the lowest stage whose trace records\n"
		"differ, with the entry, method index, address and both values (docs/diff.md).\n"
		"\n"
		"With --rewrite-a and/or --rewrite-b, runs one scenario twice, each time with\n"
		"the rewrite ... end block of that file in place of the scenario's own (a side\n"
		"without one runs the scenario as written), and compares the two runs.\n"
		"\n"
		"With --hw-results, replays CAPTURE on the simulator and compares its\n"
		"observables with FILE, the results chainsim-hw wrote for the same capture:\n"
		"stage 2 (submissions), 4 (GP_GET, where the GPU shows it), 5 (channel errors\n"
		"and host semaphores), 9 (the memory the scenario expects), 10 (engine\n"
		"releases), 11 (waits). Prints one line per stage and the first divergence.\n"
		"\n"
		"Both runs take the executor options (below, as chainsim run takes them); the\n"
		"replay of --hw-results only those chainsim run takes for a capture.\n"
		"\n"
		"  --json             two runs of scenarios: print one object instead (docs/json.md)\n"
		"  --rewrite-a FILE   run A under FILE's rewrite block\n"
		"  --rewrite-b FILE   run B under FILE's rewrite block\n"
		"  --hw-results FILE  the results chainsim-hw wrote\n"
		"  --version          print chainsim's version\n"
		"executor options:\n");
	cs_exec_options_help(out);
	fprintf(out,
		"One of the files (a scenario, a rewrite, results or a capture) may be -,\n"
		"standard input; an option's value follows it or an\n"
		"'='.\n"
		"\n"
		"exit status: 0 they agree, 1 they diverge, 2 bad input or usage (a scenario\n"
		"that does not parse or stops on an error, a results file that records no run,\n"
		"or one for another capture), 4 internal error.\n");
}

/* The file name without its directory ("standard input" for -). */
static const char *base_name(const char *path)
{
	const char *name = cs_file_name(path), *slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

/* ---- two scenarios, or one under two rewrites ---------------------------------- */

typedef struct scenario_run {
	cs_scenario *scenario;
	cs_run run;
	char label[2 * CS_DIAG_FILE_MAX + 16];
} scenario_run;

static void scenario_run_free(scenario_run *r)
{
	cs_run_clear(&r->run);
	cs_scenario_free(r->scenario);
}

/* A file's text as read. */
typedef struct file_text {
	const char *path;
	char *text;
	size_t len;
} file_text;

/* A rewrite file spliced into a scenario: the composed text's lines
 * [at, at + lines) are the file's, the lines after them the scenario's from
 * line `at` on. */
typedef struct splice {
	const char *rw_path;
	uint32_t at, lines;
} splice;

/* The line's first word (after stripping a comment: a '#' outside a quoted
 * path) in *w, and its length; 0 for a line without one. */
static size_t first_word(const char *line, size_t len, const char **w)
{
	bool quoted = false;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '"')
			quoted = !quoted;
		else if (line[i] == '#' && !quoted) {
			len = i;
			break;
		}
	}
	size_t a = 0;
	while (a < len && (line[a] == ' ' || line[a] == '\t' || line[a] == '\r'))
		a++;
	size_t b = a;
	while (b < len && line[b] != ' ' && line[b] != '\t' && line[b] != '\r')
		b++;
	*w = line + a;
	return b - a;
}

static bool word_is(const char *w, size_t n, const char *kw)
{
	return n == strlen(kw) && !memcmp(w, kw, n);
}

/* The next line of text at *pos, without its newline; false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *nl = memchr(text + *pos, '\n', len - *pos);
	*line = text + *pos;
	*n = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += *n + (nl != NULL);
	return true;
}

/* A rewrite file holds one `rewrite ... end` block and nothing else (blank
 * lines and comments aside); the lines inside are checked when the composed
 * scenario parses. */
static bool check_rewrite_file(const file_text *rw)
{
	const char *line, *w;
	size_t n, wn, pos = 0;
	uint32_t lineno = 0, opened = 0, closed = 0;
	while (next_line(rw->text, rw->len, &pos, &line, &n)) {
		lineno++;
		if (!(wn = first_word(line, n, &w)))
			continue;
		const char *problem = NULL;
		if (closed)
			problem = "expected nothing after the rewrite block's 'end'";
		else if (!opened && !word_is(w, wn, "rewrite"))
			problem = "expected a 'rewrite' line first: a rewrite file holds one "
				  "rewrite ... end block (docs/scenario.md)";
		else if (!opened)
			opened = lineno;
		else if (word_is(w, wn, "end"))
			closed = lineno;
		if (problem) {
			fprintf(stderr, "chainsim diff: %s:%" PRIu32 ":%zu: %s\n",
				cs_file_name(rw->path), lineno, (size_t)(w - line) + 1, problem);
			return false;
		}
	}
	if (closed)
		return true;
	if (opened)
		fprintf(stderr, "chainsim diff: %s:%" PRIu32 ":1: expected 'end' to close the rewrite "
				"block before the end of the file\n", cs_file_name(rw->path), opened);
	else
		fprintf(stderr, "chainsim diff: %s: holds no rewrite block\n", cs_file_name(rw->path));
	return false;
}

/* The scenario with its own rewrite blocks replaced by the rewrite file's:
 * the file's block goes where the scenario's first block was, else before its
 * first `submit`, else at its end; the scenario's blocks become blank lines,
 * so that its lines keep their numbers, shifted by the spliced ones. */
static GString *compose(const file_text *scn, const file_text *rw, splice *sp)
{
	GString *out = g_string_sized_new(scn->len + rw->len + 2);
	const char *line, *w;
	size_t n, wn, pos = 0;
	uint32_t lineno = 0;
	bool in_push = false, in_rewrite = false, placed = false;
	sp->rw_path = rw->path;
	sp->lines = 0;
	for (size_t i = 0; i < rw->len; i++)
		sp->lines += rw->text[i] == '\n';
	bool rw_open_last = rw->len && rw->text[rw->len - 1] != '\n';
	sp->lines += rw_open_last;
	while (next_line(scn->text, scn->len, &pos, &line, &n)) {
		lineno++;
		wn = first_word(line, n, &w);
		bool top = !in_push && !in_rewrite;
		bool block_start = top && word_is(w, wn, "rewrite");
		if (!placed && (block_start || (top && word_is(w, wn, "submit")))) {
			sp->at = lineno;
			g_string_append_len(out, rw->text, (gssize)rw->len);
			if (rw_open_last)
				g_string_append_c(out, '\n');
			placed = true;
		}
		if (block_start || in_rewrite) {
			in_rewrite = !(in_rewrite && word_is(w, wn, "end"));
			g_string_append_c(out, '\n');
			continue;
		}
		if (top && word_is(w, wn, "push"))
			in_push = true;
		else if (in_push && word_is(w, wn, "end"))
			in_push = false;
		g_string_append_len(out, line, (gssize)n);
		g_string_append_c(out, '\n');
	}
	if (!placed) {
		sp->at = lineno + 1;
		g_string_append_len(out, rw->text, (gssize)rw->len);
	}
	return out;
}

/* A diagnosis located in the composed text, moved to the file its line came
 * from. */
static void unsplice(const splice *sp, cs_diag *d)
{
	if (d->line < sp->at)
		return;
	if (d->line < sp->at + sp->lines) {
		snprintf(d->file, sizeof(d->file), "%s", cs_file_name(sp->rw_path));
		d->line -= sp->at - 1;
	} else {
		d->line -= sp->lines;
	}
}

/* Run the scenario, under the rewrite file's block when rw is not NULL, with
 * every method recorded, so that a method's data can diverge. */
static int run_scenario(const file_text *scn, const file_text *rw, const cs_run_opts *exec,
			scenario_run *r)
{
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag d;
	cs_diag_clear(&d);
	splice sp = { 0 };
	GString *composed = rw ? compose(scn, rw, &sp) : NULL;
	const char *name = cs_file_name(scn->path);
	snprintf(r->label, sizeof(r->label), "%s%s%s", base_name(scn->path), rw ? " under " : "",
		 rw ? base_name(rw->path) : "");
	r->scenario = composed ? cs_scenario_parse(composed->str, composed->len, name, NULL, &d)
			       : cs_scenario_parse(scn->text, scn->len, name, NULL, &d);
	if (composed)
		g_string_free(composed, TRUE);
	if (r->scenario) {
		cs_run_opts o = *exec;
		o.trace_methods = true;
		cs_run_scenario(r->scenario, &o, CS_RUN_JUDGE_WHOLE, &r->run, &d);
	}
	if (r->run.report)
		return CS_EXIT_OK;
	if (d.status == CS_OK) {
		fprintf(stderr, "chainsim diff: %s: out of memory judging the chain\n", r->label);
		return CS_EXIT_INTERNAL;
	}
	if (rw && !strcmp(d.file, name))
		unsplice(&sp, &d);
	cs_diag_format(&d, msg, sizeof(msg));
	fprintf(stderr, "chainsim diff: %s\n", msg);
	return d.status == CS_ERR_INTERNAL || d.status == CS_ERR_NOMEM ? CS_EXIT_INTERNAL
								       : CS_EXIT_INPUT;
}

static bool read_text(const char *path, const char *what, file_text *t)
{
	cs_diag d;
	cs_diag_clear(&d);
	t->path = path;
	if (cs_file_read(path, CS_FILE_MAX_TEXT, what, &t->text, &t->len, &d))
		return true;
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag_format(&d, msg, sizeof(msg));
	fprintf(stderr, "chainsim diff: %s\n", msg);
	return false;
}

/* Scenarios file_a and file_b; or, with file_b NULL, scenario file_a on both
 * sides, each under its rewrite file (rw_a, rw_b), a side without one as the
 * scenario is written. */
static int diff_scenarios(const char *file_a, const char *file_b, const char *rw_a,
			  const char *rw_b, const cs_run_opts *exec, bool json)
{
	file_text ta = { 0 }, tb = { 0 }, wa = { 0 }, wb = { 0 };
	scenario_run ra = { 0 }, rb = { 0 };
	int rc = CS_EXIT_INPUT;
	if (!read_text(file_a, "cannot read the scenario", &ta) ||
	    (file_b && !read_text(file_b, "cannot read the scenario", &tb)) ||
	    (rw_a && (!read_text(rw_a, "cannot read the rewrite", &wa) || !check_rewrite_file(&wa))) ||
	    (rw_b && (!read_text(rw_b, "cannot read the rewrite", &wb) || !check_rewrite_file(&wb))))
		goto out;
	rc = run_scenario(&ta, rw_a ? &wa : NULL, exec, &ra);
	if (rc == CS_EXIT_OK)
		rc = run_scenario(file_b ? &tb : &ta, rw_b ? &wb : NULL, exec, &rb);
	if (rc == CS_EXIT_OK) {
		cs_diff_run a = { .label = ra.label, .dev = ra.run.dev, .report = ra.run.report };
		cs_diff_run b = { .label = rb.label, .dev = rb.run.dev, .report = rb.run.report };
		cs_diff df;
		cs_diff_runs(&a, &b, &df);
		if (json) {
			char *text = cs_diff_json(&a, &b, &df);
			if (text)
				printf("%s\n", text);
			free(text);
			rc = !text ? CS_EXIT_INTERNAL : df.diverged ? CS_EXIT_BROKEN : CS_EXIT_OK;
		} else {
			cs_diff_print_text(&a, &b, &df, stdout);
			rc = df.diverged ? CS_EXIT_BROKEN : CS_EXIT_OK;
		}
	}
out:
	scenario_run_free(&ra);
	scenario_run_free(&rb);
	free(ta.text);
	free(tb.text);
	free(wa.text);
	free(wb.text);
	return rc;
}

/* ---- a GPU's results against the simulator's replay ------------------------------ */

typedef struct verdict {
	unsigned compared;
	bool diverged;
	char first[512];
} verdict;

static void mark(verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void mark(verdict *v, const char *fmt, ...)
{
	if (!v->diverged) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(v->first, sizeof(v->first), fmt, ap);
		va_end(ap);
	}
	v->diverged = true;
}

/* One side's records of each kind, in file order, and its channel errors
 * sorted by (channel, RC): compare looks records up by position and errors
 * by value, each in O(log n) at most, whatever the results hold. */
typedef struct results_index {
	const cs_results_rec **of[CS_RES_READ + 1];
	size_t n[CS_RES_READ + 1];
} results_index;

static void results_index_free(results_index *x)
{
	for (size_t k = 0; k <= CS_RES_READ; k++)
		free(x->of[k]);
}

static int by_error(const void *a, const void *b)
{
	const cs_results_rec *x = *(const cs_results_rec *const *)a, *y = *(const cs_results_rec *const *)b;
	return x->a != y->a ? (x->a < y->a ? -1 : 1) : x->b != y->b ? (x->b < y->b ? -1 : 1) : 0;
}

static bool results_index_build(const cs_results *r, results_index *x)
{
	memset(x, 0, sizeof(*x));
	for (size_t i = 0; i < r->nrecs; i++)
		if (r->recs[i].kind <= CS_RES_READ)
			x->n[r->recs[i].kind]++;
	for (size_t k = 0; k <= CS_RES_READ; k++) {
		x->of[k] = malloc((x->n[k] ? x->n[k] : 1) * sizeof(*x->of[k]));
		if (!x->of[k]) {
			results_index_free(x);
			return false;
		}
		x->n[k] = 0;
	}
	for (size_t i = 0; i < r->nrecs; i++)
		if (r->recs[i].kind <= CS_RES_READ)
			x->of[r->recs[i].kind][x->n[r->recs[i].kind]++] = &r->recs[i];
	qsort(x->of[CS_RES_ERROR], x->n[CS_RES_ERROR], sizeof(*x->of[CS_RES_ERROR]), by_error);
	return true;
}

/* The i-th record of a kind, or NULL. */
static const cs_results_rec *nth(const results_index *x, cs_results_kind k, size_t i)
{
	return i < x->n[k] ? x->of[k][i] : NULL;
}

static unsigned read_stage(uint64_t kind)
{
	switch (kind) {
	case CS_CAP_RB_WAIT: return 11;
	case CS_CAP_RB_RELEASE: return 10;
	case CS_CAP_RB_HOST_SEM: return 5;
	default: return 9;
	}
}

/* An address as the capture's regions name it ("out+0x8"), on the replay's device. */
static const char *addr_name(const cs_device *dev, uint64_t va, char *buf, size_t len)
{
	cs_device_addr_name(dev, va, buf, len);
	return buf;
}

/* The comparison of the capture's i-th wait, as the scenario wrote it. */
static const char *wait_cmp(const cs_capture *c, size_t i)
{
	for (size_t k = 0; k < c->nitems; k++)
		if (c->items[k].type == CS_CAP_WAIT && i-- == 0)
			return c->items[k].aux == CS_CAP_WAIT_GEQ ? ">=" : "==";
	return "==";
}

static void compare(const cs_capture *c, const cs_device *dev, const results_index *sim,
		    const results_index *hw, verdict v[12])
{
	char name[CS_REGION_NAME_MAX + 32];
	/* stages 2 and 4: the submissions, GP_PUT written, GP_GET seen */
	size_t ns = sim->n[CS_RES_SUBMIT], nh = hw->n[CS_RES_SUBMIT];
	for (size_t i = 0; i < ns || i < nh; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_SUBMIT, i), *b = nth(hw, CS_RES_SUBMIT, i);
		v[2].compared++;
		if (!a || !b) {
			mark(&v[2], "submission %zu is only in the %s's results", i, a ? "simulator" : "GPU");
			continue;
		}
		if (a->a != b->a || a->b != b->b)
			mark(&v[2], "submission %zu: simulator channel %" PRIu64 " GP_PUT %" PRIu64
			     ", GPU channel %" PRIu64 " GP_PUT %" PRIu64, i, a->a, a->b, b->a, b->b);
		if (a->c >= 0 && b->c >= 0) {
			v[4].compared++;
			if (a->c != b->c)
				mark(&v[4], "after submission %zu GP_GET is %" PRId64 " on the simulator, %"
				     PRId64 " on the GPU", i, a->c, b->c);
		}
	}
	/* stage 5: channel errors, as sets of (channel, RC); none on both is agreement */
	v[5].compared++;
	for (int side = 0; side < 2; side++) {
		const results_index *x = side ? hw : sim, *y = side ? sim : hw;
		for (size_t i = 0; i < x->n[CS_RES_ERROR]; i++) {
			const cs_results_rec *e = x->of[CS_RES_ERROR][i];
			bool found = bsearch(&e, y->of[CS_RES_ERROR], y->n[CS_RES_ERROR],
					     sizeof(*y->of[CS_RES_ERROR]), by_error) != NULL;
			if (!found)
				mark(&v[5], "channel %" PRIu64 " error RC %" PRIu64 " on the %s only", e->a,
				     e->b, side ? "GPU" : "simulator");
		}
	}
	/* stage 11: waits */
	size_t ws = sim->n[CS_RES_WAIT], wh = hw->n[CS_RES_WAIT];
	for (size_t i = 0; i < ws || i < wh; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_WAIT, i), *b = nth(hw, CS_RES_WAIT, i);
		v[11].compared++;
		if (!a || !b)
			mark(&v[11], "wait %zu is only in the %s's results", i, a ? "simulator" : "GPU");
		else if ((a->met != b->met || a->va != b->va) && !v[11].diverged)
			mark(&v[11], "wait %zu on %s %s 0x%" PRIx64 ": %s on the simulator, "
			     "%s on the GPU (it saw 0x%" PRIx64 ")", i,
			     addr_name(dev, a->va, name, sizeof(name)), wait_cmp(c, i), a->b,
			     a->met ? "met" : "unmet", b->met ? "met" : "unmet", (uint64_t)b->c);
	}
	/* stages 5, 9, 10, 11: read-backs, in capture order */
	size_t rs = sim->n[CS_RES_READ];
	for (size_t i = 0; i < rs; i++) {
		const cs_results_rec *a = nth(sim, CS_RES_READ, i), *b = nth(hw, CS_RES_READ, i);
		unsigned st = read_stage(a->b);
		v[st].compared++;
		if (!b || b->va != a->va || b->a != a->a) {
			if (!v[st].diverged) /* the namer is not free: name only the first */
				mark(&v[st], "read-back %zu (%s) is missing from the GPU's results", i,
				     addr_name(dev, a->va, name, sizeof(name)));
			continue;
		}
		if (!a->bytes || !b->bytes) {
			if (a->bytes != b->bytes && !v[st].diverged)
				mark(&v[st], "%s could be read on the %s only",
				     addr_name(dev, a->va, name, sizeof(name)),
				     a->bytes ? "simulator" : "GPU");
			continue;
		}
		for (uint64_t k = 0; k < a->a && !v[st].diverged; k++)
			if (a->bytes[k] != b->bytes[k]) {
				mark(&v[st], "%s at %s: byte 0x%02x on the simulator, 0x%02x on "
				     "the GPU", cs_capture_rb_kind_name((cs_capture_rb_kind)a->b),
				     addr_name(dev, a->va + k, name, sizeof(name)), a->bytes[k],
				     b->bytes[k]);
				break;
			}
	}
}

static int diff_hw_results(const char *hwfile, const char *capfile, const cs_run_opts *exec)
{
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_diag d;
	cs_diag_clear(&d);
	cs_results hw, sim;
	if (!cs_results_load(hwfile, &hw, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s\n", msg);
		return CS_EXIT_INPUT;
	}
	int rc = CS_EXIT_INPUT;
	cs_capture *c = cs_capture_load(capfile, &d);
	cs_device *dev = NULL;
	cs_results_init(&sim, "sim", "-", 0, 0);
	if (!c) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s\n", msg);
		goto out;
	}
	const char *hwname = cs_file_name(hwfile), *capname = cs_file_name(capfile);
	if (hw.ran == 0) {
		fprintf(stderr, "chainsim diff: %s records no run (ran 0): nothing to compare\n",
			hwname);
		goto out;
	}
	if (hw.capture_crc != c->crc) {
		fprintf(stderr, "chainsim diff: %s is for capture %08x; %s is %08x\n", hwname,
			hw.capture_crc, capname, c->crc);
		goto out;
	}
	dev = cs_run_device(c->arch, exec, &d);
	if (!dev || !cs_capture_replay(c, dev, &sim, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim diff: %s: %s\n", capname, msg);
		goto out;
	}
	verdict v[12] = { 0 };
	results_index xs, xh;
	if (!results_index_build(&sim, &xs)) {
		fprintf(stderr, "chainsim diff: out of memory indexing %zu results\n", sim.nrecs);
		rc = CS_EXIT_INTERNAL;
		goto out;
	}
	if (!results_index_build(&hw, &xh)) {
		results_index_free(&xs);
		fprintf(stderr, "chainsim diff: out of memory indexing %zu results\n", hw.nrecs);
		rc = CS_EXIT_INTERNAL;
		goto out;
	}
	compare(c, dev, &xs, &xh, v);
	results_index_free(&xs);
	results_index_free(&xh);
	printf("diff %s (simulator) vs %s (%s %s)\n", capname, hwname, hw.backend, hw.driver);
	static const unsigned shown[] = { 2, 4, 5, 9, 10, 11 };
	int first = 0;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		unsigned s = shown[i];
		printf("%2u  %-15s %s\n", s, cs_stage_name((cs_stage)s),
		       !v[s].compared ? "not-observable" : v[s].diverged ? "diverged" : "agree");
		if (v[s].diverged && !first)
			first = (int)s;
	}
	if (first)
		printf("first divergence at stage %d (%s): %s\n", first, cs_stage_name((cs_stage)first),
		       v[first].first);
	else
		printf("no divergence\n");
	rc = first ? CS_EXIT_BROKEN : CS_EXIT_OK;
out:
	cs_device_free(dev);
	cs_capture_free(c);
	cs_results_clear(&hw);
	cs_results_clear(&sim);
	return rc;
}

static const struct option diff_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "hw-results", required_argument, NULL, 'r' },
	{ "json", no_argument, NULL, 'j' },
	{ "rewrite-a", required_argument, NULL, 'a' },
	{ "rewrite-b", required_argument, NULL, 'b' },
#define X CS_EXEC_LONG_OPTION
#include "exec_options.def"
#undef X
	{ 0 },
};

int cs_cmd_diff(int argc, char **argv)
{
	const char *hwfile = NULL, *rw_a = NULL, *rw_b = NULL;
	const char *scenario_option = NULL; /* the last given that a capture does not take */
	bool json = false;
	cs_run_opts exec = { 0 };
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":h", diff_options, NULL)) != -1;) {
		const cs_exec_option *row = cs_exec_option_of(c);
		switch (c) {
		case 'h':
			diff_usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case 'r':
			hwfile = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'a':
			rw_a = optarg;
			break;
		case 'b':
			rw_b = optarg;
			break;
		default:
			if (!row)
				return cs_cli_bad_option("diff", c, argv, diff_usage);
			if (!cs_exec_option_take("diff", row, optarg, &exec))
				return CS_EXIT_INPUT;
			if (!(row->where & CS_EXEC_CAPTURE))
				scenario_option = row->name;
		}
	}
	int nfiles = argc - optind;
	char **files = argv + optind;
	bool rewrites = rw_a || rw_b;
	if (hwfile && rewrites) {
		fprintf(stderr, "chainsim diff: --hw-results and --rewrite-%c do not go together\n",
			rw_a ? 'a' : 'b');
		return CS_EXIT_INPUT;
	}
	int want = rewrites || hwfile ? 1 : 2;
	if (nfiles > want) {
		fprintf(stderr, "chainsim diff: '%s' is one file too many\n", files[want]);
		return CS_EXIT_INPUT;
	}
	if (nfiles < want || (hwfile && json)) {
		fprintf(stderr, "chainsim diff: needs two scenarios A B, one SCENARIO with "
				"--rewrite-a/--rewrite-b, or --hw-results FILE and one CAPTURE (without "
				"--json)\n");
		diff_usage(stderr);
		return CS_EXIT_INPUT;
	}
	const char *inputs[] = { files[0], want == 2 ? files[1] : hwfile, rw_a, rw_b };
	const char *names[] = { hwfile ? "the capture" : want == 2 ? "A" : "the scenario",
				hwfile ? "the results" : "B", "--rewrite-a", "--rewrite-b" };
	for (size_t i = 0; i < 4; i++)
		for (size_t j = i + 1; j < 4; j++)
			if (inputs[i] && inputs[j] && !strcmp(inputs[i], CS_FILE_STDIN) &&
			    !strcmp(inputs[j], CS_FILE_STDIN)) {
				fprintf(stderr, "chainsim diff: standard input (-) can give %s or %s, "
						"not both\n", names[i], names[j]);
				return CS_EXIT_INPUT;
			}
	if (hwfile && scenario_option) {
		fprintf(stderr, "chainsim diff: --%s is for a scenario, not a capture\n",
			scenario_option);
		return CS_EXIT_INPUT;
	}
	if (hwfile)
		return diff_hw_results(hwfile, files[0], &exec);
	return diff_scenarios(files[0], want == 2 ? files[1] : NULL, rw_a, rw_b, &exec, json);
}
