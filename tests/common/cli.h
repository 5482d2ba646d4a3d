/* SPDX-License-Identifier: MIT */
/* Runs the built `chainsim` (or another built program) as a user would, for the
 * suites that test a command end to end: its exit status and both output
 * streams. Standard input is /dev/null or a file. */
#ifndef CS_TESTS_CLI_H
#define CS_TESTS_CLI_H

#include <stdbool.h>

#include <stddef.h>

typedef struct test_cli_out {
	int status;        /* the exit status */
	char *out, *err;   /* stdout and stderr, each with a NUL after it (test_cli_free) */
	size_t out_len;    /* stdout's bytes: a capture on stdout may hold NULs */
} test_cli_out;

/* How test_cli_run_opts runs a program; a zeroed struct is test_cli_run. */
typedef struct test_cli_opts {
	const char *program;      /* NULL: tools/chainsim; else a path under the build
				   * root (tests/gsp/gsp-cli) or an absolute one */
	const char *const *env;   /* NAME, VALUE pairs, then NULL: set for the run */
	const char *const *unset; /* names taken out of the run's environment, then NULL */
	const char *stdin_path;   /* the file on standard input; NULL: /dev/null */
	unsigned timeout_s;       /* not 0: run under timeout(1), killed after that long */
	bool any_exit;            /* a death by signal N is status 128 + N, not a failure */
} test_cli_opts;

/* rel under the build root (g_free it); asserts that meson test's
 * CHAINSIM_BUILD_ROOT is set. */
char *test_build_path(const char *rel);

/* `chainsim CMD ARGS...` (args ends with NULL) run in dir (NULL: the test's
 * own); asserts that it started and exited normally. Needs meson test's
 * CHAINSIM_BUILD_ROOT. */
test_cli_out test_cli_run(const char *dir, const char *cmd, const char *const *args);
/* The same as opts say (NULL: as test_cli_run); cmd NULL: args alone. */
test_cli_out test_cli_run_opts(const char *dir, const test_cli_opts *opts, const char *cmd,
			       const char *const *args);
void test_cli_free(test_cli_out *o);

#endif
