/* SPDX-License-Identifier: MIT */
/* The committed fixtures match their CUDA sources: rebuild them with
 * fixtures/kernels/build.sh into a temporary directory and compare every file
 * byte for byte (nvcc 13's output is deterministic for these: no paths, no
 * timestamps end up in cubins, PTX or fatbins, checked when they were made).
 *
 * Without nvcc this cannot be checked: the test says so and why, and fails
 * unless CHAINSIM_NO_CUDA_OK=1 says that is expected. Never a silent pass. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"

static const char *find_nvcc(void)
{
	/* $NVCC, when set, is the only candidate: it is how a person (or this
	 * test's own check) says which compiler to use, or that there is none */
	const char *env = getenv("NVCC");
	if (env && *env)
		return access(env, X_OK) == 0 ? env : NULL;
	static const char *cands[] = { "/usr/local/cuda/bin/nvcc", "/usr/bin/nvcc" };
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	const char *path = getenv("PATH");
	static char buf[4096];
	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		if (n && n + 6 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/nvcc", (int)n, path);
			if (access(buf, X_OK) == 0)
				return buf;
		}
		path += n + (colon ? 1 : 0);
	}
	return NULL;
}

static int cmp_files(const char *a, const char *b)
{
	size_t la, lb;
	uint8_t *x = (uint8_t *)test_read_file(a, &la), *y = (uint8_t *)test_read_file(b, &lb);
	int r = (!x || !y) ? -1 : (la != lb || memcmp(x, y, la) != 0);
	free(x);
	free(y);
	return r;
}

Test(fixtures, committed_outputs_match_sources, .timeout = 600)
{
	const char *nvcc = find_nvcc();
	if (!nvcc) {
		const char *ok = getenv("CHAINSIM_NO_CUDA_OK");
		const char *env = getenv("NVCC");
		if (env && *env)
			printf("fixtures-vs-sources: COULD NOT CHECK: $NVCC=%s is not an "
			       "executable; the committed fixtures/kernels/out were not compared "
			       "with their sources.\n",
			       env);
		else
			printf("fixtures-vs-sources: COULD NOT CHECK: nvcc not found (looked at "
			       "/usr/local/cuda/bin/nvcc, /usr/bin/nvcc and $PATH); the committed "
			       "fixtures/kernels/out were not compared with their sources.\n");
		if (ok && strcmp(ok, "1") == 0) {
			printf("fixtures-vs-sources: passing only because CHAINSIM_NO_CUDA_OK=1\n");
			return;
		}
		cr_assert_fail("nvcc not found: cannot check the fixtures against their sources "
			       "(set CHAINSIM_NO_CUDA_OK=1 to accept that)");
		return;
	}
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root, "CHAINSIM_SOURCE_ROOT unset");
	char tmpl[] = "/tmp/chainsim-fixtures-XXXXXX";
	cr_assert_not_null(mkdtemp(tmpl));
	/* seen as it starts (the test is verbose in meson): nvcc takes minutes */
	printf("fixtures-vs-sources: rebuilding every CUDA fixture with %s (each kernel for "
	       "sm_80, sm_90 and sm_100: minutes); meson test --no-suite fixtures leaves this out\n",
	       nvcc);
	fflush(stdout);
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "NVCC='%s' bash '%s/fixtures/kernels/build.sh' '%s' >'%s/log' 2>&1",
		 nvcc, root, tmpl, tmpl);
	int rc = system(cmd);
	if (rc != 0) {
		snprintf(cmd, sizeof(cmd), "cat '%s/log'", tmpl);
		if (system(cmd) != 0)
			printf("(no log)\n");
	}
	cr_assert_eq(rc, 0, "build.sh failed (rc %d)", rc);

	char outdir[1024];
	snprintf(outdir, sizeof(outdir), "%s/fixtures/kernels/out", root);
	DIR *dir = opendir(outdir);
	cr_assert_not_null(dir);
	unsigned same = 0, differ = 0, missing = 0;
	struct dirent *de;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		char a[1400], b[1400];
		snprintf(a, sizeof(a), "%s/%s", outdir, de->d_name);
		snprintf(b, sizeof(b), "%s/%s", tmpl, de->d_name);
		int r = cmp_files(a, b);
		if (r == 0) {
			same++;
		} else if (r < 0) {
			missing++;
			printf("fixtures-vs-sources: %s: committed but not rebuilt\n", de->d_name);
		} else {
			differ++;
			printf("fixtures-vs-sources: %s differs from a fresh build\n", de->d_name);
		}
		unlink(b);
	}
	closedir(dir);
	/* files the build makes that are not committed */
	unsigned extra = 0;
	dir = opendir(tmpl);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "log") == 0)
			continue;
		extra++;
		char b[1400];
		snprintf(b, sizeof(b), "%s/%s", tmpl, de->d_name);
		printf("fixtures-vs-sources: %s: built but not committed\n", de->d_name);
		unlink(b);
	}
	if (dir)
		closedir(dir);
	char logp[1400];
	snprintf(logp, sizeof(logp), "%s/log", tmpl);
	unlink(logp);
	rmdir(tmpl);
	printf("fixtures-vs-sources: nvcc %s: %u identical, %u differ, %u not rebuilt, %u not "
	       "committed\n",
	       nvcc, same, differ, missing, extra);
	cr_expect_eq(differ, 0);
	cr_expect_eq(missing, 0);
	cr_expect_eq(extra, 0);
	cr_expect_gt(same, 6 * 8);
}
