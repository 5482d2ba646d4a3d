/* SPDX-License-Identifier: MIT */
/* tests/tools/cli.h */
#include "cli.h"

#include <glib.h>
#include <stdlib.h>
#include <unistd.h>

cli_result cli_run(const char *stdin_path, const char *const *args)
{
	return cli_run_in("tests/conformance", stdin_path, args);
}

cli_result cli_run_in(const char *folder, const char *stdin_path, const char *const *args)
{
	char *dir = cli_source_path(folder);
	test_cli_opts opts = { .stdin_path = stdin_path };
	cli_result r = test_cli_run_opts(dir, &opts, NULL, args);
	g_free(dir);
	return r;
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
