/* SPDX-License-Identifier: MIT */
/* The corpus (tests/conformance and tests/outside) through `chainsim conform`
 * with one child at a time and with two, best of ROUNDS each, interleaved.
 * Both must print the same SUMMARY line, or the figure means nothing. Three
 * comments bound the ratio: one case alone (what the command costs to start
 * and end, which no number of jobs divides), two whole serial runs at once
 * (what two cores give this workload), and a fixed loop in two processes
 * (whether the second core is free at all).
 *
 * BENCH name=conform.serial value=<s> unit=s
 * BENCH name=conform.jobs2 value=<s> unit=s baseline=conform.serial ratio=<serial/jobs2>
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ROUNDS = 9 };

/* The corpus, or one case alone (what starting and ending the command costs,
 * which no number of jobs divides). */
static const char *const corpus[] = { "tests/conformance", "tests/outside", NULL };
static const char *const one_case[] = { "tests/conformance/no-methods.chain", NULL };

/* One run; its SUMMARY line into summary (g_free) and its wall time. */
static double run_conform(const char *jobs, const char *const *paths, char **summary)
{
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	const char *argv[16] = { exe, "conform", "--no-progress", "--jobs", jobs };
	for (size_t i = 0; paths[i] && i < 10; i++)
		argv[5 + i] = paths[i];
	char *out = NULL;
	int ws = 0;
	gint64 t0 = g_get_monotonic_time();
	if (!g_spawn_sync(getenv("CHAINSIM_SOURCE_ROOT"), (char **)argv, NULL, 0, NULL, NULL, &out,
			  NULL, &ws, NULL) ||
	    !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		fprintf(stderr, "bench_conform: chainsim conform --jobs %s failed\n%s", jobs,
			out ? out : "");
		exit(1);
	}
	double s = (double)(g_get_monotonic_time() - t0) / 1e6;
	const char *sum = strstr(out, "SUMMARY: ");
	*summary = g_strdup(sum ? sum : "(none)");
	g_free(out);
	g_free(exe);
	return s;
}

/* Two whole --jobs 1 runs of the corpus at once: what two cores give this
 * workload (start-up included) when nothing is shared between the runs. No
 * runner can beat twice one run's time divided by this. */
static double two_runs_at_once(void)
{
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	const char *argv[] = { exe, "conform", "--no-progress", "--jobs", "1", corpus[0],
			       corpus[1], NULL };
	gint64 t0 = g_get_monotonic_time();
	GPid pid[2];
	int ok = 1;
	for (int i = 0; i < 2; i++)
		ok &= g_spawn_async(getenv("CHAINSIM_SOURCE_ROOT"), (char **)argv, NULL,
				    G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
				    NULL, &pid[i], NULL);
	for (int i = 0; ok && i < 2; i++) {
		int ws = 0;
		ok &= waitpid(pid[i], &ws, 0) == pid[i] && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
	}
	if (!ok) {
		fprintf(stderr, "bench_conform: two runs at once failed\n");
		exit(1);
	}
	g_free(exe);
	return (double)(g_get_monotonic_time() - t0) / 1e6;
}

/* What two cores give right now: a fixed loop in one child, then in two at
 * once (1.0 = only one core is free to us; 2.0 = both). The ratio above can
 * not beat it. */
static void spin(void)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < 200000000ul; i++)
		x += i;
}

static double spin_children(int n)
{
	gint64 t0 = g_get_monotonic_time();
	for (int i = 0; i < n; i++)
		if (fork() == 0) {
			spin();
			_exit(0);
		}
	for (int i = 0; i < n; i++)
		wait(NULL);
	return (double)(g_get_monotonic_time() - t0) / 1e6;
}

int main(void)
{
	if (!getenv("CHAINSIM_BUILD_ROOT") || !getenv("CHAINSIM_SOURCE_ROOT")) {
		fprintf(stderr, "bench_conform: run through meson test --benchmark\n");
		return 1;
	}
	double best1 = 1e9, best2 = 1e9;
	char *sum1 = NULL, *sum2 = NULL;
	for (int r = 0; r < ROUNDS; r++) {
		char *a = NULL, *b = NULL;
		double t1 = run_conform("1", corpus, &a), t2 = run_conform("2", corpus, &b);
		best1 = t1 < best1 ? t1 : best1;
		best2 = t2 < best2 ? t2 : best2;
		if (strcmp(a, b) != 0 || (sum1 && strcmp(a, sum1) != 0)) {
			fprintf(stderr, "bench_conform: SUMMARY lines differ:\n%s%s", a, b);
			return 1;
		}
		g_free(sum1);
		g_free(b);
		sum1 = a;
	}
	sum2 = sum1;
	printf("%s", sum2);
	double load[1] = { 0 };
	if (getloadavg(load, 1) == 1) /* other work on the cores shows in the ratio */
		printf("# load average %.2f on %ld cores\n", load[0], sysconf(_SC_NPROCESSORS_ONLN));
	double fixed = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		char *c = NULL;
		double t = run_conform("1", one_case, &c);
		fixed = t < fixed ? t : fixed;
		g_free(c);
	}
	/* Amdahl: the fixed part runs once whatever the jobs */
	printf("# one case alone: %.3f s (start-up and teardown); with it the most two jobs "
	       "can give on this corpus is %.2f\n", fixed, best1 / (fixed + (best1 - fixed) / 2));
	double both = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double t = two_runs_at_once();
		both = t < both ? t : both;
	}
	printf("# two whole --jobs 1 runs at once: %.3f s, %.2f times one run's throughput "
	       "(what two cores give this workload)\n", both, 2 * best1 / both);
	double one = spin_children(1), two = spin_children(2);
	printf("# parallelism available now: %.2f (a fixed loop: %.3f s alone, %.3f s as two)\n",
	       2 * one / two, one, two);
	printf("BENCH name=conform.serial value=%.3f unit=s\n", best1);
	printf("BENCH name=conform.jobs2 value=%.3f unit=s baseline=conform.serial ratio=%.2f\n",
	       best2, best1 / best2);
	g_free(sum1);
	return 0;
}
