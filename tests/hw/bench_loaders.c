/* SPDX-License-Identifier: MIT */
/* The capture and results loaders at the format's limits, each against the
 * same input at a sixteenth of its size, measured in this process: the ratio
 * is the time per record at the limit over the time per record at a
 * sixteenth (1 for a loader linear in its records, 16 for a quadratic one).
 *
 * BENCH name=capture.load_regions value=<s> unit=s baseline=<n/16 records>
 *       baseline_value=<s> ratio=<per-record ratio>
 *   regions, each with a write and a read-back in it: 2^20 records
 * BENCH name=diff.hw_results value=<s> ... ratio=<per-record ratio>
 *   `chainsim diff --hw-results` of a capture of 1-byte read-backs and the
 *   results of its run, as many as a 16 MiB results file holds
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "chainsim/capture.h"

#include "limit_captures.h"

enum { ROUNDS = 3 };

_Noreturn static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_loaders: %s: %s\n", what, msg ? msg : "");
	exit(1);
}

static double parse_seconds(const uint8_t *img, size_t len)
{
	double best = 1e9;
	for (int round = 0; round < ROUNDS; round++) {
		cs_diag d;
		gint64 t0 = g_get_monotonic_time();
		cs_capture *c = cs_capture_parse(img, len, "bench.cap", &d);
		double s = (double)(g_get_monotonic_time() - t0) / 1e6;
		if (!c)
			die("the capture is refused", d.msg);
		cs_capture_free(c);
		best = s < best ? s : best;
	}
	return best;
}

static void bench_capture(void)
{
	size_t full = (CS_CAPTURE_MAX_RECORDS - 1) / 3, len_full, len_part;
	cs_diag d;
	uint8_t *img_full = limit_regions_capture(full, &len_full, &d);
	uint8_t *img_part = img_full ? limit_regions_capture(full / 16, &len_part, &d) : NULL;
	if (!img_part)
		die("writing the capture", d.msg);
	double part = parse_seconds(img_part, len_part), whole = parse_seconds(img_full, len_full);
	printf("BENCH name=capture.load_regions value=%.3f unit=s baseline=%zu-records "
	       "baseline_value=%.4f ratio=%.2f\n",
	       whole, 1 + full / 16 * 3, part, whole / (double)full / (part / (double)(full / 16)));
	printf("capture: %zu records (%zu regions) load in %.3f s\n", 1 + full * 3, full, whole);
	g_free(img_full);
	g_free(img_part);
}

/* Runs chainsim with args, returning its wall time; dies unless it exits
 * with the status wanted. */
static double run_chainsim(const char *exe, int want, const char *const *args)
{
	GPtrArray *argv = g_ptr_array_new();
	g_ptr_array_add(argv, (gpointer)exe);
	for (; *args; args++)
		g_ptr_array_add(argv, (gpointer)*args);
	g_ptr_array_add(argv, NULL);
	char *out = NULL, *err = NULL;
	int ws = 0;
	gint64 t0 = g_get_monotonic_time();
	GError *ge = NULL;
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
			  &ws, &ge))
		die("spawning chainsim", ge->message);
	double s = (double)(g_get_monotonic_time() - t0) / 1e6;
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != want)
		die(g_strjoinv(" ", (char **)argv->pdata), err);
	g_free(out);
	g_free(err);
	g_ptr_array_free(argv, TRUE);
	return s;
}

/* The best of ROUNDS diffs of a capture of n 1-byte read-backs against the
 * results of its own run. */
static double diff_seconds(const char *exe, const char *dir, size_t n)
{
	size_t len;
	cs_diag d;
	uint8_t *img = limit_readbacks_capture(n, &len, &d);
	if (!img)
		die("writing the capture", d.msg);
	char *cap = g_strdup_printf("%s/rb-%zu.cap", dir, n), *res = g_strdup_printf("%s/rb-%zu.res", dir, n);
	if (!g_file_set_contents(cap, (const char *)img, (gssize)len, NULL))
		die("writing", cap);
	g_free(img);
	/* exit 1: a capture with no submission is a chain that never starts */
	run_chainsim(exe, 1, (const char *const[]){ "run", cap, "--results", res, NULL });
	double best = 1e9;
	for (int round = 0; round < ROUNDS; round++) {
		double s = run_chainsim(exe, 0, (const char *const[]){ "diff", "--hw-results", res,
								      cap, NULL });
		best = s < best ? s : best;
	}
	g_unlink(cap);
	g_unlink(res);
	g_free(cap);
	g_free(res);
	return best;
}

static void bench_diff(const char *build)
{
	char *exe = g_build_filename(build, "tools", "chainsim", NULL);
	char *dir = g_dir_make_tmp("bench-loaders-XXXXXX", NULL);
	if (!dir)
		die("a temporary folder", NULL);
	size_t full = LIMIT_RESULTS_READBACKS;
	double part = diff_seconds(exe, dir, full / 16), whole = diff_seconds(exe, dir, full);
	printf("BENCH name=diff.hw_results value=%.3f unit=s baseline=%zu-read-backs "
	       "baseline_value=%.4f ratio=%.2f\n",
	       whole, full / 16, part, whole / (double)full / (part / (double)(full / 16)));
	printf("diff --hw-results: %zu read-backs in %.3f s\n", full, whole);
	g_rmdir(dir);
	g_free(dir);
	g_free(exe);
}

int main(void)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	if (!build)
		die("run through meson test --benchmark", NULL);
	bench_capture();
	bench_diff(build);
	return 0;
}
