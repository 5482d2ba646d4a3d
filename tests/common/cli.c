/* SPDX-License-Identifier: MIT */
#include "cli.h"

#include <criterion/criterion.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

test_cli_out test_cli_run(const char *dir, const char *cmd, const char *const *args)
{
	return test_cli_run_opts(dir, NULL, cmd, args);
}

/* A copy of b's bytes with a NUL after them; *len gets their count. */
static char *bytes_text(GBytes *b, size_t *len)
{
	size_t n = 0;
	const void *data = b ? g_bytes_get_data(b, &n) : NULL;
	char *text = g_malloc(n + 1);
	if (n)
		memcpy(text, data, n);
	text[n] = 0;
	if (len)
		*len = n;
	return text;
}

char *test_build_path(const char *rel)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	cr_assert_not_null(build, "run through meson test");
	return g_build_filename(build, rel, NULL);
}

test_cli_out test_cli_run_opts(const char *dir, const test_cli_opts *opts, const char *cmd,
			       const char *const *args)
{
	static const test_cli_opts plain = { 0 };
	if (!opts)
		opts = &plain;
	const char *program = opts->program ? opts->program : "tools/chainsim";
	char *exe = g_path_is_absolute(program) ? g_strdup(program) : test_build_path(program);
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
	GSubprocessLauncher *l = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE |
							   G_SUBPROCESS_FLAGS_STDERR_PIPE);
	if (dir)
		g_subprocess_launcher_set_cwd(l, dir);
	g_subprocess_launcher_set_stdin_file_path(l, opts->stdin_path ? opts->stdin_path
								 : "/dev/null");
	for (const char *const *u = opts->unset; u && *u; u++)
		g_subprocess_launcher_unsetenv(l, *u);
	for (const char *const *e = opts->env; e && *e; e += 2)
		g_subprocess_launcher_setenv(l, e[0], e[1], TRUE);
	GError *err = NULL;
	GSubprocess *p = g_subprocess_launcher_spawnv(l, (const char *const *)argv->pdata, &err);
	cr_assert(p, "cannot run %s: %s", exe, err ? err->message : "?");
	GBytes *out = NULL, *errs = NULL;
	cr_assert(g_subprocess_communicate(p, NULL, NULL, &out, &errs, &err),
		  "%s's output: %s", exe, err ? err->message : "?");
	test_cli_out o = { 0 };
	o.out = bytes_text(out, &o.out_len);
	o.err = bytes_text(errs, NULL);
	g_bytes_unref(out);
	g_bytes_unref(errs);
	if (opts->any_exit && g_subprocess_get_if_signaled(p)) {
		o.status = 128 + g_subprocess_get_term_sig(p);
	} else {
		cr_assert(g_subprocess_get_if_exited(p), "%s %s did not exit normally (signal %d)",
			  exe, cmd ? cmd : "",
			  g_subprocess_get_if_signaled(p) ? g_subprocess_get_term_sig(p) : 0);
		o.status = g_subprocess_get_exit_status(p);
	}
	g_object_unref(p);
	g_object_unref(l);
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
