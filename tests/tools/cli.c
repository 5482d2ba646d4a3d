/* SPDX-License-Identifier: MIT */
/* tests/tools/cli.h */
#include "cli.h"

#include <criterion/criterion.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *bytes_text(GBytes *b, size_t *len)
{
	size_t n = 0;
	const void *data = g_bytes_get_data(b, &n);
	char *text = g_malloc(n + 1);
	if (n)
		memcpy(text, data, n);
	text[n] = 0;
	if (len)
		*len = n;
	return text;
}

cli_result cli_run(const char *stdin_path, const char *const *args)
{
	return cli_run_in("tests/conformance", stdin_path, args);
}

cli_result cli_run_in(const char *folder, const char *stdin_path, const char *const *args)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	cr_assert(build && getenv("CHAINSIM_SOURCE_ROOT"), "run through meson test");
	GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_build_filename(build, "tools", "chainsim", NULL));
	for (const char *const *a = args; *a; a++)
		g_ptr_array_add(argv, g_strdup(*a));
	g_ptr_array_add(argv, NULL);
	GSubprocessLauncher *l = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE |
							   G_SUBPROCESS_FLAGS_STDERR_PIPE);
	char *dir = cli_source_path(folder);
	g_subprocess_launcher_set_cwd(l, dir);
	g_subprocess_launcher_set_stdin_file_path(l, stdin_path ? stdin_path : "/dev/null");
	GError *err = NULL;
	GSubprocess *p = g_subprocess_launcher_spawnv(l, (const char *const *)argv->pdata, &err);
	cr_assert(p, "cannot start chainsim: %s", err ? err->message : "?");
	cli_result r = { 0 };
	GBytes *out = NULL, *errs = NULL;
	cr_assert(g_subprocess_communicate(p, NULL, NULL, &out, &errs, &err),
		  "chainsim's output: %s", err ? err->message : "?");
	/* bytes, a capture on stdout among them, with a NUL after them */
	r.out = bytes_text(out, &r.out_len);
	r.err = bytes_text(errs, NULL);
	g_bytes_unref(out);
	g_bytes_unref(errs);
	cr_assert(g_subprocess_get_if_exited(p), "chainsim did not exit normally");
	r.status = g_subprocess_get_exit_status(p);
	g_object_unref(p);
	g_object_unref(l);
	g_free(dir);
	g_ptr_array_free(argv, TRUE);
	return r;
}

void cli_result_free(cli_result *r)
{
	g_free(r->out);
	g_free(r->err);
}

char *cli_source_path(const char *relative)
{
	return g_build_filename(getenv("CHAINSIM_SOURCE_ROOT"), relative, NULL);
}

char *cli_tmp_path(const char *suffix)
{
	static unsigned serial;
	return g_strdup_printf("%s/chainsim-cli-%d-%u%s", g_get_tmp_dir(), (int)getpid(),
			       serial++, suffix);
}
