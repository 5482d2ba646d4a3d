/* SPDX-License-Identifier: MIT */
/* chainsim conform --costs FILE: each case's seconds from the run that last
 * ran it, read to take the longest cases first and written back after the
 * run (docs/conform.md, "Costs"). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "chainsim/file.h"

#include "conform.h"

#define COSTS_FORMAT "chainsim-conform-costs-1"

typedef struct cost_entry {
	const char *path; /* into text, or a case's path */
	double seconds;
	uint32_t line;    /* where the file gave it; 0 for this run's */
} cost_entry;

struct conform_costs {
	char *text; /* the file, its lines cut at each newline */
	cost_entry *e; /* sorted by path */
	size_t n;
};

static int by_entry_path(const void *a, const void *b)
{
	return strcmp(((const cost_entry *)a)->path, ((const cost_entry *)b)->path);
}

/* One line "SECONDS PATH" into *e; false with the reason in err. */
static bool parse_cost_line(char *l, uint32_t line, cost_entry *e, const char *file, char *err,
			    size_t errlen)
{
	char *end;
	size_t digits = strspn(l, "0123456789.eE+-");
	double s = l[0] >= '0' && l[0] <= '9' ? strtod(l, &end) : -1;
	if (s < 0 || !isfinite(s) || end != l + digits || *end != ' ' || !end[1]) {
		snprintf(err, errlen, "%s:%u: '%.80s' is not 'SECONDS PATH' (seconds a decimal "
			 "number, one space, the case's path)", file, line, l);
		return false;
	}
	*e = (cost_entry){ .path = end + 1, .seconds = s, .line = line };
	return true;
}

/* The lines of text (len bytes) into c->e, sorted; false with the reason. */
static bool parse_costs(conform_costs *c, size_t len, const char *file, char *err,
			size_t errlen)
{
	size_t lines = 0;
	for (size_t i = 0; i < len; i++) {
		if (!c->text[i]) {
			snprintf(err, errlen, "%s:%zu: a NUL byte: not a costs file", file,
				 lines + 1);
			return false;
		}
		lines += c->text[i] == '\n';
	}
	c->e = g_new(cost_entry, lines + 1);
	char *l = c->text, *eol = strchr(l, '\n');
	if (!eol || strncmp(l, COSTS_FORMAT "\n", strlen(COSTS_FORMAT) + 1) != 0) {
		snprintf(err, errlen, "%s:1: not a costs file (its first line is not '"
			 COSTS_FORMAT "')", file);
		return false;
	}
	for (uint32_t line = 2; (l = eol + 1) < c->text + len; line++) {
		eol = strchr(l, '\n');
		if (!eol) {
			snprintf(err, errlen, "%s:%u: the last line has no newline (a file cut "
				 "short?)", file, line);
			return false;
		}
		*eol = 0;
		if (!parse_cost_line(l, line, &c->e[c->n], file, err, errlen))
			return false;
		c->n++;
	}
	qsort(c->e, c->n, sizeof(*c->e), by_entry_path);
	for (size_t i = 1; i < c->n; i++)
		if (!strcmp(c->e[i - 1].path, c->e[i].path)) {
			uint32_t a = c->e[i - 1].line, b = c->e[i].line;
			snprintf(err, errlen, "%s:%u: case %.200s named again (first on line %u)",
				 file, a > b ? a : b, c->e[i].path, a < b ? a : b);
			return false;
		}
	return true;
}

bool conform_costs_read(const char *path, conform_costs **out, char *err, size_t errlen)
{
	conform_costs *c = g_new0(conform_costs, 1);
	*out = c;
	struct stat st;
	if (stat(path, &st) != 0 && errno == ENOENT)
		return true;
	cs_diag d;
	cs_diag_clear(&d);
	size_t len = 0;
	if (!cs_file_read(path, CS_FILE_MAX_TEXT, "the costs file", &c->text, &len, &d)) {
		char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 8];
		cs_diag_format(&d, msg, sizeof(msg));
		snprintf(err, errlen, "%s", msg);
		return false;
	}
	return parse_costs(c, len, path, err, errlen);
}

static const cost_entry *cost_of(const conform_costs *c, const char *path)
{
	cost_entry key = { .path = path };
	return c->n ? bsearch(&key, c->e, c->n, sizeof(*c->e), by_entry_path) : NULL;
}

typedef struct queued {
	double seconds; /* INFINITY: no cost known */
	uint32_t index;
} queued;

static int longest_first(const void *a, const void *b)
{
	const queued *x = a, *y = b;
	if (x->seconds != y->seconds)
		return x->seconds > y->seconds ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void conform_costs_order(const conform_costs *c, const conform_case *cases, size_t n,
			 uint32_t *order)
{
	queued *q = g_new(queued, n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		const cost_entry *e = cost_of(c, cases[i].path);
		q[i] = (queued){ .seconds = e ? e->seconds : INFINITY, .index = (uint32_t)i };
	}
	qsort(q, n, sizeof(*q), longest_first);
	for (size_t i = 0; i < n; i++)
		order[i] = q[i].index;
	g_free(q);
}

bool conform_costs_write(const char *path, const conform_costs *c, const conform_case *cases,
			 size_t n, char *err, size_t errlen)
{
	cost_entry *all = g_new(cost_entry, c->n + n + 1);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) /* standard input's case is no file to find again */
		if (strcmp(cases[i].path, CS_FILE_STDIN) && !strchr(cases[i].path, '\n'))
			all[m++] = (cost_entry){ .path = cases[i].path, .seconds = cases[i].seconds };
	qsort(all, m, sizeof(*all), by_entry_path);
	size_t ran = m;
	for (size_t i = 0; i < c->n; i++) /* the cases this run did not run keep their cost */
		if (!(ran && bsearch(&c->e[i], all, ran, sizeof(*all), by_entry_path)))
			all[m++] = c->e[i];
	qsort(all, m, sizeof(*all), by_entry_path);
	GString *text = g_string_new(COSTS_FORMAT "\n");
	for (size_t i = 0; i < m; i++)
		g_string_append_printf(text, "%.6f %s\n", all[i].seconds, all[i].path);
	bool ok = conform_write_atomically(path, text->str, err, errlen);
	g_string_free(text, TRUE);
	g_free(all);
	return ok;
}

void conform_costs_free(conform_costs *c)
{
	if (!c)
		return;
	g_free(c->e);
	free(c->text);
	g_free(c);
}
