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

char *test_kernel_fixture(const char *name)
{
	return test_source_file("fixtures/kernels/out", name);
}

char *test_read_kernel_fixture(const char *name, size_t *len)
{
	char *path = test_kernel_fixture(name);
	char *bytes = test_read_file(path, len);
	g_free(path);
	return bytes;
}

char *test_read_file(const char *path, size_t *len)
{
	char *text = NULL;
	gsize n = 0;
	if (!g_file_get_contents(path, &text, &n, NULL))
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

char *test_read_source(const char *rel, size_t *len)
{
	char *path = test_source_path(rel);
	char *text = test_read_file(path, len);
	g_free(path);
	return text;
}
