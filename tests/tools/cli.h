/* SPDX-License-Identifier: MIT */
/* Running the built chainsim for the command-line tests, through the shared
 * runner: arguments, an optional file on standard input, the exit status and
 * both outputs; and the paths the tests use. */
#ifndef CHAINSIM_TESTS_TOOLS_CLI_H
#define CHAINSIM_TESTS_TOOLS_CLI_H

#include "../common/cli.h"

/* The shared runner's result (tests/common/cli.h): status, out (with out_len
 * bytes, NULs among them), err. */
typedef test_cli_out cli_result;

/* Runs chainsim with args (NULL-terminated) in the folder tests/conformance
 * of the source tree, standard input from stdin_path (NULL: /dev/null). */
cli_result cli_run(const char *stdin_path, const char *const *args);
/* The same in folder, a path under the source tree. */
cli_result cli_run_in(const char *folder, const char *stdin_path, const char *const *args);
#define cli_result_free test_cli_free

/* The path of a file under the source tree; g_free it. */
char *cli_source_path(const char *relative);
/* A fresh temporary file name ending in suffix; g_free it, unlink the file. */
char *cli_tmp_path(const char *suffix);

#endif
