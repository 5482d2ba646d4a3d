/* SPDX-License-Identifier: MIT */
/* tests/common/source.h */
#include "source.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

char *test_source_path(const char *rel)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	return g_build_filename(root ? root : ".", rel, NULL);
}

char *test_source_file(const char *dir, const char *name)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	return g_build_filename(root ? root : ".", dir, name, NULL);
}

char *test_read_source(const char *rel, size_t *len)
{
	char *path = test_source_path(rel), *text = NULL;
	gsize n = 0;
	gboolean ok = g_file_get_contents(path, &text, &n, NULL);
	g_free(path);
	if (!ok)
		return NULL;
	char *out = malloc(n + 1);
	if (out) {
		memcpy(out, text, n);
		out[n] = 0;
		if (len)
			*len = n;
	}
	g_free(text);
	return out;
}
