/* SPDX-License-Identifier: MIT */
/* The executor's options from their table (tools/exec_options.h). */
#include "exec_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/ptx.h"

_Static_assert(CS_PTX_THREADS_MAX == 256, "exec_options.def's --threads says 1 to 256");

bool cs_opt_count(const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char *end;
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return false;
	*out = n;
	return true;
}

bool cs_opt_seconds(const char *v, uint64_t *ns)
{
	char *end;
	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	double s = strtod(v, &end);
	if (errno || *end || !(s > 0) || s > 1e6)
		return false;
	*ns = (uint64_t)(s * 1e9);
	return *ns > 0;
}

/* ---- each row's value ------------------------------------------------------ */

static bool take_no_exec(const char *v, cs_run_opts *o)
{
	(void)v;
	o->no_exec = true;
	return true;
}

static bool take_trace_methods(const char *v, cs_run_opts *o)
{
	(void)v;
	o->trace_methods = true;
	return true;
}

static bool take_approx(const char *v, cs_run_opts *o)
{
	if (strcmp(v, "max"))
		return false;
	o->approx = CS_PTX_APPROX_MAX;
	return true;
}

static bool take_races(const char *v, cs_run_opts *o)
{
	static const char *const names[] = { [CS_RUN_RACES_SHARED] = "shared",
					     [CS_RUN_RACES_GLOBAL] = "global",
					     [CS_RUN_RACES_ERROR] = "error",
					     [CS_RUN_RACES_OFF] = "off" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i])) {
			o->races = (cs_run_races)i;
			return true;
		}
	return false;
}

static bool take_schedule(const char *v, cs_run_opts *o)
{
	char *end;
	if (!strcmp(v, "in-order")) {
		o->schedule = CS_PTX_SCHEDULE_IN_ORDER;
	} else if (!strcmp(v, "reverse")) {
		o->schedule = CS_PTX_SCHEDULE_REVERSE;
	} else if (!strncmp(v, "random:", 7) && v[7]) {
		o->schedule = CS_PTX_SCHEDULE_RANDOM;
		o->schedule_seed = strtoull(v + 7, &end, 0);
		return *end == 0;
	} else {
		return false;
	}
	return true;
}

static bool take_threads(const char *v, cs_run_opts *o)
{
	uint64_t n;
	if (!cs_opt_count(v, 1, CS_PTX_THREADS_MAX, &n))
		return false;
	o->threads = (unsigned)n;
	return true;
}

static bool take_budget_instructions(const char *v, cs_run_opts *o)
{
	return cs_opt_count(v, 1, UINT64_MAX, &o->budget_instructions);
}

static bool take_budget_seconds(const char *v, cs_run_opts *o)
{
	return cs_opt_seconds(v, &o->budget_ns);
}

/* ---- the table ------------------------------------------------------------- */

const cs_exec_option cs_exec_options[CS_EXEC_COUNT] = {
#define X(id, name, has_arg, value, where, parse, expected, example, help)                 \
	[CS_EXEC_##id] = { name, value, where, parse, expected, example, help },
#include "exec_options.def"
#undef X
};

const cs_exec_option *cs_exec_option_of(int c)
{
	int i = c - CS_EXEC_GETOPT_VALUE;
	return i >= 0 && i < CS_EXEC_COUNT ? &cs_exec_options[i] : NULL;
}

bool cs_exec_option_take(const char *cmd, const cs_exec_option *row, const char *v,
			 cs_run_opts *o)
{
	if (row->parse(v, o))
		return true;
	fprintf(stderr, "chainsim %s: --%s=%s: expected %s\n", cmd, row->name, v, row->expected);
	return false;
}

bool cs_exec_option_word(const char *word, cs_run_opts *o)
{
	if (strncmp(word, "--", 2))
		return false;
	const char *name = word + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		const cs_exec_option *row = &cs_exec_options[i];
		if (strlen(row->name) == n && !strncmp(name, row->name, n))
			return !eq == !row->value && row->parse(eq ? eq + 1 : NULL, o);
	}
	return false;
}

/* "--races=MODE", "--no-exec" */
static void spell(const cs_exec_option *row, char *buf, size_t len)
{
	snprintf(buf, len, "--%s%s%s", row->name, row->value ? "=" : "",
		 row->value ? row->value : "");
}

void cs_exec_options_list(char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (size_t i = 0; i < CS_EXEC_COUNT && at < len; i++) {
		char word[64];
		spell(&cs_exec_options[i], word, sizeof(word));
		int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", word);
		at += w > 0 ? (size_t)w : 0;
	}
}

/* The synopsis wraps before a word that would end past this column: run's
 * usage lines, with the most options, as they are laid out. */
enum { SYNOPSIS_WIDTH = 85 };

void cs_exec_options_synopsis(FILE *out, const char *head, size_t indent)
{
	size_t col = strlen(head);
	fputs(head, out);
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		char word[64];
		spell(&cs_exec_options[i], word, sizeof(word));
		size_t w = strlen(word) + 2;
		if (col + 1 + w > SYNOPSIS_WIDTH) {
			fprintf(out, "\n%*s[%s]", (int)indent, "", word);
			col = indent + w;
		} else {
			fprintf(out, " [%s]", word);
			col += 1 + w;
		}
	}
	fputc('\n', out);
}

/* Each row as "  --NAME=V  help", the help in a column from 19, its later
 * lines there too. */
void cs_exec_options_help(FILE *out)
{
	for (size_t i = 0; i < CS_EXEC_COUNT; i++) {
		char word[64];
		spell(&cs_exec_options[i], word, sizeof(word));
		fprintf(out, "  %-16s%s", word, strlen(word) > 16 ? "  " : " ");
		for (const char *l = cs_exec_options[i].help; *l;) {
			size_t n = strcspn(l, "\n");
			fprintf(out, "%.*s\n", (int)n, l);
			l += n;
			if (*l && *++l)
				fprintf(out, "%19s", "");
		}
	}
}
