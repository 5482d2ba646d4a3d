/* SPDX-License-Identifier: MIT */
/* chainsim conform's results: the SUMMARY line, the JSON and JUnit files, and
 * `conform merge`, which joins shards only when they add up to the whole
 * selection (docs/conform.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "chainsim/file.h"
#include "chainsim/json.h"

#include "commands.h"
#include "conform.h"

static const char *const outcome_names[] = {
	[CONFORM_PENDING] = "pending", [CONFORM_PASS] = "pass",
	[CONFORM_FAIL] = "fail",       [CONFORM_CRASHED] = "crashed",
	[CONFORM_TIMEOUT] = "timeout", [CONFORM_UNAVAILABLE] = "unavailable",
	[CONFORM_UNOBSERVABLE] = "unobservable",
};

const char *conform_outcome_name(conform_outcome o)
{
	return o <= CONFORM_UNOBSERVABLE ? outcome_names[o] : "?";
}

static conform_outcome outcome_from_name(const char *s)
{
	for (conform_outcome o = CONFORM_PASS; o <= CONFORM_UNOBSERVABLE; o++)
		if (s && !strcmp(s, outcome_names[o]))
			return o;
	return CONFORM_PENDING;
}

conform_summary conform_summarize(const conform_case *cases, size_t n)
{
	conform_summary s = { .cases = n };
	for (size_t i = 0; i < n; i++) {
		switch (cases[i].outcome) {
		case CONFORM_PASS: s.pass++; break;
		case CONFORM_FAIL: s.fail++; break;
		case CONFORM_CRASHED: s.crashed++; break;
		case CONFORM_TIMEOUT: s.timeout++; break;
		case CONFORM_UNAVAILABLE: s.unavailable++; break;
		case CONFORM_UNOBSERVABLE: s.unobservable++; break;
		case CONFORM_PENDING: s.crashed++; break; /* never finished: not a pass */
		}
	}
	return s;
}

void conform_print_summary(FILE *out, const conform_summary *s)
{
	fprintf(out,
		"SUMMARY: %zu cases: %zu pass, %zu fail, %zu crashed, %zu timed out, "
		"%zu unavailable, %zu not observable\n",
		s->cases, s->pass, s->fail, s->crashed, s->timeout, s->unavailable, s->unobservable);
}

int conform_exit_status(const conform_summary *s, bool allow_unavailable,
			bool allow_unobservable)
{
	if (s->cases == 0)
		return CS_EXIT_INPUT;
	if (s->fail || s->crashed || s->timeout)
		return CS_EXIT_BROKEN;
	if (s->unavailable == s->cases)
		return CS_EXIT_UNAVAILABLE; /* nothing ran: never green */
	if (s->unavailable && !allow_unavailable)
		return CS_EXIT_BROKEN;
	if (s->unobservable && !allow_unobservable)
		return CS_EXIT_BROKEN;
	return CS_EXIT_OK;
}

bool conform_write_atomically(const char *path, const char *text, char *err, size_t errlen)
{
	char *tmp = g_strdup_printf("%s.tmp", path);
	GError *ge = NULL;
	bool ok = g_file_set_contents(tmp, text, -1, &ge);
	if (!ok) {
		snprintf(err, errlen, "%s", ge->message);
		g_error_free(ge);
	} else if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename %s: %s", tmp, strerror(errno));
		remove(tmp);
		ok = false;
	}
	g_free(tmp);
	return ok;
}

bool conform_write_json(const char *path, const conform_meta *m, const conform_case *cases,
			size_t n, char *err, size_t errlen)
{
	cs_json_writer *b = cs_json_writer_new(true);
	cs_json_begin_object(b);
	cs_json_key(b, "format");
	cs_json_string(b, "chainsim-conform-1");
	cs_json_key(b, "backend");
	cs_json_string(b, m->backend);
	cs_json_key(b, "shard");
	cs_json_begin_object(b);
	cs_json_key(b, "index");
	cs_json_int(b, m->shard_index);
	cs_json_key(b, "count");
	cs_json_int(b, m->shard_count);
	cs_json_end_object(b);
	cs_json_key(b, "filter");
	if (m->filter)
		cs_json_string(b, m->filter);
	else
		cs_json_null(b);
	cs_json_key(b, "allow_unavailable");
	cs_json_bool(b, m->allow_unavailable);
	cs_json_key(b, "allow_unobservable");
	cs_json_bool(b, m->allow_unobservable);
	/* Every case the filter chose, before sharding: merge checks that the
	 * shards agree on it and cover it once. */
	cs_json_key(b, "selection");
	cs_json_begin_array(b);
	for (size_t i = 0; i < m->nselection; i++)
		cs_json_string(b, m->selection[i]);
	cs_json_end_array(b);
	cs_json_key(b, "cases");
	cs_json_begin_array(b);
	for (size_t i = 0; i < n; i++) {
		const conform_case *c = &cases[i];
		cs_json_begin_object(b);
		cs_json_key(b, "path");
		cs_json_string(b, c->path);
		cs_json_key(b, "outcome");
		cs_json_string(b, conform_outcome_name(c->outcome));
		cs_json_key(b, "exit");
		cs_json_int(b, c->exit_code);
		cs_json_key(b, "signal");
		cs_json_int(b, c->signal);
		cs_json_key(b, "seconds");
		cs_json_double(b, c->seconds);
		cs_json_key(b, "peak_rss_kib");
		cs_json_int(b, c->peak_rss_kib);
		cs_json_key(b, "reason");
		cs_json_string(b, c->reason);
		cs_json_end_object(b);
	}
	cs_json_end_array(b);
	conform_summary s = conform_summarize(cases, n);
	cs_json_key(b, "summary");
	cs_json_begin_object(b);
	const struct {
		const char *k;
		size_t v;
	} counts[] = { { "cases", s.cases },	 { "pass", s.pass },	       { "fail", s.fail },
		       { "crashed", s.crashed }, { "timed_out", s.timeout },
		       { "unavailable", s.unavailable }, { "unobservable", s.unobservable } };
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		cs_json_key(b, counts[i].k);
		cs_json_int(b, (int64_t)counts[i].v);
	}
	cs_json_end_object(b);
	/* Written last: a file without it never came from a finished run. */
	cs_json_key(b, "complete");
	cs_json_bool(b, true);
	cs_json_end_object(b);
	char *text = cs_json_writer_finish(b, NULL);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return false;
	}
	bool ok = conform_write_atomically(path, text, err, errlen);
	free(text);
	return ok;
}

static void xml_escape(GString *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		switch (ch) {
		case '<': g_string_append(out, "&lt;"); break;
		case '>': g_string_append(out, "&gt;"); break;
		case '&': g_string_append(out, "&amp;"); break;
		case '"': g_string_append(out, "&quot;"); break;
		default:
			/* XML 1.0 has no place for other control characters */
			if (ch < 0x20 && ch != '\t' && ch != '\n')
				g_string_append_c(out, '?');
			else
				g_string_append_c(out, (char)ch);
		}
	}
}

bool conform_write_junit(const char *path, const conform_case *cases, size_t n, char *err,
			 size_t errlen)
{
	conform_summary s = conform_summarize(cases, n);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += cases[i].seconds;
	GString *x = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	g_string_append_printf(x,
			       "<testsuites name=\"chainsim conform\" tests=\"%zu\" failures=\"%zu\" "
			       "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
			       s.cases, s.fail, s.crashed + s.timeout, s.unavailable + s.unobservable, total);
	g_string_append_printf(x,
			       "  <testsuite name=\"conformance\" tests=\"%zu\" failures=\"%zu\" "
			       "errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
			       s.cases, s.fail, s.crashed + s.timeout, s.unavailable + s.unobservable,
			       total);
	for (size_t i = 0; i < n; i++) {
		const conform_case *c = &cases[i];
		const char *slash = strrchr(c->path, '/');
		g_string_append(x, "    <testcase classname=\"");
		if (slash) {
			char *dir = g_strndup(c->path, (gsize)(slash - c->path));
			xml_escape(x, dir);
			g_free(dir);
		} else {
			g_string_append(x, ".");
		}
		g_string_append(x, "\" name=\"");
		xml_escape(x, slash ? slash + 1 : c->path);
		g_string_append_printf(x, "\" file=\"");
		xml_escape(x, c->path);
		g_string_append_printf(x, "\" time=\"%.3f\"", c->seconds);
		const char *tag = c->outcome == CONFORM_FAIL	     ? "failure"
				  : c->outcome == CONFORM_UNAVAILABLE ? "skipped"
				  : c->outcome == CONFORM_UNOBSERVABLE ? "skipped"
				  : c->outcome == CONFORM_PASS	      ? NULL
								      : "error";
		if (!tag) {
			g_string_append(x, "/>\n");
			continue;
		}
		g_string_append_printf(x, ">\n      <%s type=\"%s\" message=\"", tag,
				       conform_outcome_name(c->outcome));
		xml_escape(x, c->reason);
		g_string_append(x, "\"/>\n    </testcase>\n");
	}
	g_string_append(x, "  </testsuite>\n</testsuites>\n");
	bool ok = conform_write_atomically(path, x->str, err, errlen);
	g_string_free(x, TRUE);
	return ok;
}

/* ---- merge -------------------------------------------------------------- */

typedef struct shard_file {
	const char *file;
	cs_json_value *root; /* an object */
	unsigned index, count;
} shard_file;

/* A member that is an array, or NULL. */
static const cs_json_value *json_array(const cs_json_value *o, const char *key)
{
	const cs_json_value *a = cs_json_member(o, key);
	return cs_json_type_of(a) == CS_JSON_ARRAY ? a : NULL;
}

/* An int member, or dflt when it is missing or out of an int's range. */
static int json_int(const cs_json_value *o, const char *key, int dflt)
{
	int64_t v = cs_json_get_int(cs_json_member(o, key), dflt);
	return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* Names an allocation the merge could not make; exit 4. */
static int merge_out_of_memory(const char *what, size_t count, size_t each)
{
	fprintf(stderr, "chainsim conform merge: out of memory for %s (%zu x %zu bytes)\n", what,
		count, each);
	return CS_EXIT_INTERNAL;
}

/* CS_EXIT_OK, CS_EXIT_INPUT (a message naming the file) or CS_EXIT_INTERNAL. */
static int load_shard(const char *path, shard_file *sf)
{
	const char *file = cs_file_name(path);
	sf->file = file;
	char *text = NULL, msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 8];
	size_t len = 0;
	cs_diag d;
	cs_diag_clear(&d);
	/* text: its tree takes up to 16 bytes of memory a byte ("[0,0,...]") */
	if (!cs_file_read(path, CS_FILE_MAX_TEXT, "the shard's result", &text, &len, &d)) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim conform merge: %s\n", msg);
		return d.status == CS_ERR_NOMEM ? CS_EXIT_INTERNAL : CS_EXIT_INPUT;
	}
	char why[160];
	errno = 0;
	sf->root = cs_json_parse(text, len, why, sizeof(why));
	bool parse_out_of_memory = !sf->root && errno == ENOMEM;
	free(text);
	if (parse_out_of_memory) {
		fprintf(stderr, "chainsim conform merge: %s: out of memory for its JSON tree (%zu "
			"bytes of text): %s\n", file, len, why);
		return CS_EXIT_INTERNAL;
	}
	if (!sf->root) {
		fprintf(stderr, "chainsim conform merge: %s: %s (the shard crashed, never ran, "
			"or this is not its result)\n", file, why);
		return CS_EXIT_INPUT;
	}
	const cs_json_value *sh = cs_json_member(sf->root, "shard");
	if (strcmp(cs_json_get_string(cs_json_member(sf->root, "format"), ""),
		   "chainsim-conform-1") != 0 ||
	    cs_json_type_of(sh) != CS_JSON_OBJECT || !json_array(sf->root, "cases") ||
	    !json_array(sf->root, "selection")) {
		fprintf(stderr, "chainsim conform merge: %s: not a chainsim conform result\n", file);
		return CS_EXIT_INPUT;
	}
	if (!cs_json_get_bool(cs_json_member(sf->root, "complete"), false)) {
		fprintf(stderr, "chainsim conform merge: %s: the shard did not finish (crashed?)\n",
			file);
		return CS_EXIT_INPUT;
	}
	int64_t index = cs_json_get_int(cs_json_member(sh, "index"), 0),
		count = cs_json_get_int(cs_json_member(sh, "count"), 0);
	/* a shard count is a count of processes: far below this */
	sf->index = index > 0 && index <= 1 << 20 ? (unsigned)index : 0;
	sf->count = count > 0 && count <= 1 << 20 ? (unsigned)count : 0;
	if (!sf->count || !sf->index || sf->index > sf->count) {
		fprintf(stderr, "chainsim conform merge: %s: shard %u/%u is not a shard\n", file,
			sf->index, sf->count);
		return CS_EXIT_INPUT;
	}
	return CS_EXIT_OK;
}

static bool same_selection(const cs_json_value *a, const cs_json_value *b)
{
	size_t n = cs_json_length(a);
	if (n != cs_json_length(b))
		return false;
	for (size_t i = 0; i < n; i++)
		if (g_strcmp0(cs_json_get_string(cs_json_at(a, i), NULL),
			      cs_json_get_string(cs_json_at(b, i), NULL)))
			return false;
	return true;
}

/* The selection's cases sorted by path, for lookups by path. */
static int by_path(const void *a, const void *b)
{
	return strcmp((*(const conform_case *const *)a)->path, (*(const conform_case *const *)b)->path);
}

/* The case of the selection at path, or NULL. */
static conform_case *case_at_path(conform_case *const *sorted, size_t n, const char *path)
{
	conform_case key = { .path = (char *)path }, *kp = &key;
	conform_case *const *hit = bsearch(&kp, sorted, n, sizeof(*sorted), by_path);
	return hit ? *hit : NULL;
}

/* Joins the shards into cases[] in selection order: CS_EXIT_OK, or
 * CS_EXIT_INPUT (and a message naming what is wrong) unless every shard is
 * there once and every case of the selection ran exactly once, or
 * CS_EXIT_INTERNAL naming an allocation that failed. */
static int join_shards(shard_file *sf, size_t nf, conform_case **out, size_t *nout,
		       bool *allow_unavailable, bool *allow_unobservable)
{
	unsigned count = sf[0].count;
	const cs_json_value *sel = json_array(sf[0].root, "selection");
	size_t nsel = cs_json_length(sel), room = nsel ? nsel : 1;
	const char **by_index = calloc(count, sizeof(*by_index));
	conform_case *cases = calloc(room, sizeof(*cases));
	const char **ran_in = calloc(room, sizeof(*ran_in));
	conform_case **sorted = malloc(room * sizeof(*sorted));
	int rc = !by_index ? merge_out_of_memory("the shard table", count, sizeof(*by_index))
		 : !cases  ? merge_out_of_memory("the cases", nsel, sizeof(*cases))
		 : !ran_in ? merge_out_of_memory("the cases' shards", nsel, sizeof(*ran_in))
		 : !sorted ? merge_out_of_memory("the cases' index", nsel, sizeof(*sorted))
			   : CS_EXIT_OK;
	bool ok = rc == CS_EXIT_OK;
	for (size_t i = 0; ok && i < nsel; i++) {
		cases[i].path = (char *)cs_json_get_string(cs_json_at(sel, i), NULL);
		sorted[i] = &cases[i];
		if (!cases[i].path) {
			fprintf(stderr, "chainsim conform merge: %s: the selection names case %zu "
				"not as text\n", sf[0].file, i + 1);
			ok = false;
		}
	}
	if (ok)
		qsort(sorted, nsel, sizeof(*sorted), by_path);
	for (size_t i = 1; ok && i < nsel; i++) {
		if (!strcmp(sorted[i - 1]->path, sorted[i]->path)) {
			fprintf(stderr, "chainsim conform merge: %s: the selection names case %s "
				"twice\n", sf[0].file, sorted[i]->path);
			ok = false;
		}
	}
	*allow_unavailable = *allow_unobservable = true;
	for (size_t f = 0; ok && f < nf; f++) {
		if (sf[f].count != count) {
			fprintf(stderr, "chainsim conform merge: %s is shard %u/%u but %s is of %u\n",
				sf[f].file, sf[f].index, sf[f].count, sf[0].file, count);
			ok = false;
			break;
		}
		if (!same_selection(sel, json_array(sf[f].root, "selection"))) {
			fprintf(stderr, "chainsim conform merge: %s and %s selected different cases "
				"(other paths or --filter)\n", sf[0].file, sf[f].file);
			ok = false;
			break;
		}
		if (by_index[sf[f].index - 1]) {
			fprintf(stderr, "chainsim conform merge: shard %u/%u given twice (%s and %s)\n",
				sf[f].index, count, by_index[sf[f].index - 1], sf[f].file);
			ok = false;
			break;
		}
		by_index[sf[f].index - 1] = sf[f].file;
		*allow_unavailable &=
			cs_json_get_bool(cs_json_member(sf[f].root, "allow_unavailable"), false);
		*allow_unobservable &=
			cs_json_get_bool(cs_json_member(sf[f].root, "allow_unobservable"), false);
		const cs_json_value *ca = json_array(sf[f].root, "cases");
		for (size_t i = 0; ok && i < cs_json_length(ca); i++) {
			const cs_json_value *o = cs_json_at(ca, i);
			const char *p = cs_json_get_string(cs_json_member(o, "path"), NULL);
			conform_case *c = p ? case_at_path(sorted, nsel, p) : NULL;
			if (!c) {
				fprintf(stderr, "chainsim conform merge: %s: case %s is not in the "
					"selection\n", sf[f].file, p ? p : "(no path)");
				ok = false;
				break;
			}
			size_t at = (size_t)(c - cases);
			if (ran_in[at]) {
				fprintf(stderr, "chainsim conform merge: case %s ran twice (%s and %s)\n",
					p, ran_in[at], sf[f].file);
				ok = false;
				break;
			}
			ran_in[at] = sf[f].file;
			c->outcome = outcome_from_name(
				cs_json_get_string(cs_json_member(o, "outcome"), ""));
			c->exit_code = json_int(o, "exit", -1);
			c->signal = json_int(o, "signal", 0);
			c->seconds = cs_json_get_double(cs_json_member(o, "seconds"), 0);
			int64_t kib = cs_json_get_int(cs_json_member(o, "peak_rss_kib"), 0);
			c->peak_rss_kib = kib >= 0 && kib <= LONG_MAX ? (long)kib : 0;
			snprintf(c->reason, sizeof(c->reason), "%s",
				 cs_json_get_string(cs_json_member(o, "reason"), ""));
			if (c->outcome == CONFORM_PENDING) {
				fprintf(stderr, "chainsim conform merge: %s: case %s has no outcome\n",
					sf[f].file, p);
				ok = false;
			}
		}
	}
	for (unsigned k = 0; ok && k < count; k++) {
		if (!by_index[k]) {
			fprintf(stderr, "chainsim conform merge: shard %u/%u is missing\n", k + 1,
				count);
			ok = false;
		}
	}
	for (size_t i = 0; ok && i < nsel; i++) {
		if (!ran_in[i]) {
			fprintf(stderr, "chainsim conform merge: case %s was not run by any shard\n",
				cases[i].path);
			ok = false;
		}
	}
	free(sorted);
	free(by_index);
	free(ran_in);
	if (!ok) {
		free(cases);
		return rc != CS_EXIT_OK ? rc : CS_EXIT_INPUT;
	}
	*out = cases;
	*nout = nsel;
	return CS_EXIT_OK;
}

int conform_merge(const conform_merge_opts *o, char *const *files, size_t nf)
{
	const char *json_out = o->json_out, *junit_out = o->junit_out;
	bool allow_flag = o->allow_unavailable;
	int rc = CS_EXIT_INPUT;
	if (!nf) {
		fprintf(stderr, "chainsim conform merge: no result file given\n");
		return CS_EXIT_INPUT;
	}
	size_t from_stdin = 0;
	for (size_t i = 0; i < nf; i++)
		from_stdin += !strcmp(files[i], CS_FILE_STDIN);
	if (from_stdin > 1) {
		fprintf(stderr, "chainsim conform merge: standard input (-) holds one result file, "
			"not %zu\n", from_stdin);
		return CS_EXIT_INPUT;
	}
	shard_file *sf = calloc(nf, sizeof(*sf));
	if (!sf)
		return merge_out_of_memory("the shard files", nf, sizeof(*sf));
	int loaded = CS_EXIT_OK;
	for (size_t i = 0; loaded == CS_EXIT_OK && i < nf; i++)
		loaded = load_shard(files[i], &sf[i]);
	conform_case *cases = NULL;
	size_t n = 0;
	bool allow = false, allow_unobs = false;
	if (loaded == CS_EXIT_OK)
		loaded = join_shards(sf, nf, &cases, &n, &allow, &allow_unobs);
	if (loaded != CS_EXIT_OK)
		rc = loaded;
	bool ok = loaded == CS_EXIT_OK;
	if (ok && !n) {
		fprintf(stderr, "chainsim conform merge: the shards selected no case\n");
		ok = false;
	}
	if (ok) {
		allow |= allow_flag;
		allow_unobs |= o->allow_unobservable;
		for (size_t i = 0; i < n; i++)
			if (cases[i].outcome != CONFORM_PASS)
				fprintf(stdout, "%-7s %s: %s\n",
					cases[i].outcome == CONFORM_FAIL ? "FAIL"
					: cases[i].outcome == CONFORM_CRASHED ? "CRASH"
					: cases[i].outcome == CONFORM_TIMEOUT ? "TIMEOUT"
					: cases[i].outcome == CONFORM_UNOBSERVABLE ? "UNOBS"
										  : "UNAVAIL",
					cases[i].path, cases[i].reason);
		conform_summary s = conform_summarize(cases, n);
		conform_print_summary(stdout, &s);
		rc = conform_exit_status(&s, allow, allow_unobs);
		char err[256];
		conform_meta m = { .backend = cs_json_get_string(cs_json_member(sf[0].root,
										"backend"), "sim"),
				   .shard_index = 1, .shard_count = 1,
				   .allow_unavailable = allow, .allow_unobservable = allow_unobs };
		const cs_json_value *sel = json_array(sf[0].root, "selection");
		char **selv = json_out ? calloc(n, sizeof(*selv)) : NULL;
		for (size_t i = 0; selv && i < n; i++)
			selv[i] = (char *)cs_json_get_string(cs_json_at(sel, i), NULL);
		m.selection = selv;
		m.nselection = n;
		if (json_out && !selv)
			rc = merge_out_of_memory("the selection of --json", n, sizeof(*selv));
		else if (json_out && !conform_write_json(json_out, &m, cases, n, err, sizeof(err))) {
			fprintf(stderr, "chainsim conform merge: --json %s: %s\n", json_out, err);
			rc = CS_EXIT_INTERNAL;
		}
		if (junit_out && !conform_write_junit(junit_out, cases, n, err, sizeof(err))) {
			fprintf(stderr, "chainsim conform merge: --junit %s: %s\n", junit_out, err);
			rc = CS_EXIT_INTERNAL;
		}
		free(selv);
	}
	free(cases);
	for (size_t i = 0; sf && i < nf; i++)
		cs_json_free(sf[i].root);
	free(sf);
	return rc;
}
