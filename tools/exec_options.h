/* SPDX-License-Identifier: MIT */
/* The executor's options of every command that runs a scenario, read from
 * their one table (tools/exec_options.def) into a cs_run_opts: on the
 * command line through getopt_long, and in conform's `# run:` lines. */
#ifndef CHAINSIM_TOOLS_EXEC_OPTIONS_H
#define CHAINSIM_TOOLS_EXEC_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/run.h"

/* The inputs an option applies to (a row's where). */
enum { CS_EXEC_SCENARIO = 1, CS_EXEC_CAPTURE = 2 };

typedef enum cs_exec_id {
#define X(id, name, has_arg, value, where, parse, expected, example, help) CS_EXEC_##id,
#include "exec_options.def"
#undef X
	CS_EXEC_COUNT
} cs_exec_id;

typedef struct cs_exec_option {
	const char *name;     /* without the dashes */
	const char *value;    /* the value's placeholder; NULL: a flag */
	unsigned where;       /* CS_EXEC_SCENARIO | CS_EXEC_CAPTURE */
	bool (*parse)(const char *v, cs_run_opts *o);
	const char *expected; /* what a bad value is told */
	const char *example;  /* a valid value (tests) */
	const char *help;     /* usage lines */
} cs_exec_option;

extern const cs_exec_option cs_exec_options[CS_EXEC_COUNT];

/* getopt_long's value for a row, above every command's own. A command's
 * option array takes the rows with
 *   #define X CS_EXEC_LONG_OPTION
 *   #include "exec_options.def"
 *   #undef X */
enum { CS_EXEC_GETOPT_VALUE = 0x400 };
#define CS_EXEC_LONG_OPTION(id, name, has_arg, ...)                                        \
	{ name, has_arg, NULL, CS_EXEC_GETOPT_VALUE + CS_EXEC_##id },

/* The row getopt_long's c names; NULL when c is not an executor option. */
const cs_exec_option *cs_exec_option_of(int c);

/* Takes row's value v (optarg; NULL for a flag) into o. False after
 * "chainsim CMD: --NAME=V: expected ..." on stderr. */
bool cs_exec_option_take(const char *cmd, const cs_exec_option *row, const char *v,
			 cs_run_opts *o);

/* One word of a `# run:` line, "--NAME" or "--NAME=V", into o; false when it
 * names no row or its value is bad. */
bool cs_exec_option_word(const char *word, cs_run_opts *o);

/* "--no-exec, --trace-methods, --approx-ulp=max, ..." in buf. */
void cs_exec_options_list(char *buf, size_t len);

/* Usage: head, then every row as [--NAME=V], wrapped with indent spaces; and
 * the rows' help lines. */
void cs_exec_options_synopsis(FILE *out, const char *head, size_t indent);
void cs_exec_options_help(FILE *out);

/* Values: a whole decimal number in [lo, hi]; seconds above 0 (at most 1e6)
 * as nanoseconds. */
bool cs_opt_count(const char *v, uint64_t lo, uint64_t hi, uint64_t *out);
bool cs_opt_seconds(const char *v, uint64_t *ns);

#endif
