/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

test_cli_out test_cli_run(const char *dir, const char *cmd, const char *const *args)
{
	return test_cli_run_opts(dir, NULL, cmd, args);
}

/* The environment opts ask for, or NULL for the test's own. */
static char **run_environ(const test_cli_opts *opts)
{
	if (!opts->env && !opts->unset)
		return NULL;
	char **envp = g_get_environ();
	for (const char *const *u = opts->unset; u && *u; u++)
		envp = g_environ_unsetenv(envp, *u);
	for (const char *const *e = opts->env; e && *e; e += 2)
		envp = g_environ_setenv(envp, e[0], e[1], TRUE);
	return envp;
}

test_cli_out test_cli_run_opts(const char *dir, const test_cli_opts *opts, const char *cmd,
			       const char *const *args)
{
	static const test_cli_opts plain = { 0 };
	if (!opts)
		opts = &plain;
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	cr_assert_not_null(build, "run through meson test");
	const char *program = opts->program ? opts->program : "tools/chainsim";
	char *exe = g_path_is_absolute(program) ? g_strdup(program)
						: g_build_filename(build, program, NULL);
	char *timeout = g_strdup_printf("%u", opts->timeout_s);
	GPtrArray *argv = g_ptr_array_new();
	if (opts->timeout_s) {
		g_ptr_array_add(argv, (gpointer) "timeout");
		g_ptr_array_add(argv, timeout);
	}
	g_ptr_array_add(argv, exe);
	if (cmd)
		g_ptr_array_add(argv, (gpointer)cmd);
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, (gpointer)*a);
	g_ptr_array_add(argv, NULL);
	char **envp = run_environ(opts);
	test_cli_out o = { 0 };
	int wait_status = 0;
	GError *err = NULL;
	cr_assert(g_spawn_sync(dir, (char **)argv->pdata, envp,
			       opts->timeout_s ? G_SPAWN_SEARCH_PATH : 0, NULL, NULL, &o.out, &o.err,
			       &wait_status, &err),
		  "cannot run %s: %s", exe, err ? err->message : "?");
	if (opts->any_exit && WIFSIGNALED(wait_status))
		o.status = 128 + WTERMSIG(wait_status);
	else {
		cr_assert(WIFEXITED(wait_status), "%s %s did not exit normally (signal %d)", exe,
			  cmd ? cmd : "", WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0);
		o.status = WEXITSTATUS(wait_status);
	}
	g_strfreev(envp);
	g_ptr_array_free(argv, TRUE);
	g_free(timeout);
	g_free(exe);
	return o;
}

void test_cli_free(test_cli_out *o)
{
	g_free(o->out);
	g_free(o->err);
}
