/* SPDX-License-Identifier: MIT */
/* Runs the built `chainsim` as a user would, for the suites that test a command
 * end to end: its exit status and both output streams. */
#ifndef CS_TESTS_CLI_H
#define CS_TESTS_CLI_H

typedef struct test_cli_out {
	int status;        /* the exit status */
	char *out, *err;   /* stdout and stderr (test_cli_free) */
} test_cli_out;

/* `chainsim CMD ARGS...` (args ends with NULL) run in dir; asserts that it
 * started and exited normally. Needs meson test's CHAINSIM_BUILD_ROOT. */
test_cli_out test_cli_run(const char *dir, const char *cmd, const char *const *args);
void test_cli_free(test_cli_out *o);

#endif
