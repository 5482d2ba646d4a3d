/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/wait.h>

test_cli_out test_cli_run(const char *dir, const char *cmd, const char *const *args)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	cr_assert_not_null(build, "run through meson test");
	char *exe = g_build_filename(build, "tools", "chainsim", NULL);
	GPtrArray *argv = g_ptr_array_new();
	g_ptr_array_add(argv, exe);
	g_ptr_array_add(argv, (gpointer)cmd);
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, (gpointer)*a);
	g_ptr_array_add(argv, NULL);
	test_cli_out o = { 0 };
	int wait_status = 0;
	GError *err = NULL;
	cr_assert(g_spawn_sync(dir, (char **)argv->pdata, NULL, 0, NULL, NULL, &o.out, &o.err,
			       &wait_status, &err),
		  "cannot run %s: %s", exe, err ? err->message : "?");
	cr_assert(WIFEXITED(wait_status), "chainsim %s did not exit normally", cmd);
	o.status = WEXITSTATUS(wait_status);
	g_ptr_array_free(argv, TRUE);
	g_free(exe);
	return o;
}

void test_cli_free(test_cli_out *o)
{
	g_free(o->out);
	g_free(o->err);
}
