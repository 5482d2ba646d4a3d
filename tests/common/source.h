/* SPDX-License-Identifier: MIT */
/* The source tree as the suites read it: paths under CHAINSIM_SOURCE_ROOT
 * (set by meson test) and whole files read from it. */
#ifndef CS_TESTS_SOURCE_H
#define CS_TESTS_SOURCE_H

#include <stddef.h>

/* rel under the source root (g_free it); "." stands for the root when
 * CHAINSIM_SOURCE_ROOT is not set. */
char *test_source_path(const char *rel);
/* name in the folder dir, a path under the source root (g_free it). */
char *test_source_file(const char *dir, const char *name);
/* A built fixture kernel, fixtures/kernels/out/NAME (g_free it). */
char *test_kernel_fixture(const char *name);
/* That fixture's bytes, as test_read_file reads them. */
char *test_read_kernel_fixture(const char *name, size_t *len);
/* The file at path with a NUL after its bytes (free it), its length in *len
 * (when len is not NULL); NULL when it cannot be read. */
char *test_read_file(const char *path, size_t *len);
/* The file rel under the source root with a NUL after its bytes (free it),
 * its length in *len (when len is not NULL); NULL when it cannot be read. */
char *test_read_source(const char *rel, size_t *len);

#endif
