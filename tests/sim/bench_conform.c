/* SPDX-License-Identifier: MIT */
/* `chainsim conform` with one child at a time and with two, best of ROUNDS
 * each, interleaved, on two corpora; each pair must print the same SUMMARY
 * line, or the figure means nothing. Both take their cases by --costs, as a
 * user's repeated runs would: one run writes the file, every run reads and
 * writes it again.
 *
 * The large corpus (tests/conformance, tests/outside and the fixture kernels'
 * battery scenarios on each generation their fatbins carry code for: sm_80,
 * sm_90 and sm_100, fixtures/kernels/build.sh) measures the speed-up; its
 * serial run takes over a second. Its longest case, which no number of jobs
 * divides, bounds it, and the bench prints that bound. The battery scenarios
 * name `arch hopper` and carry no expect line, so the bench runs copies of
 * them with the arch line rewritten (as `chainsim battery --arch` does),
 * `expect complete` and one host thread (`# run: --threads=1`: a --jobs 1
 * case may otherwise take both cores). The bench also prints the --jobs 2
 * run without --costs (path order), for what the order gives.
 *
 * The small corpus (tests/conformance and tests/outside, tens of
 * milliseconds) measures the runner's efficiency: one --jobs 2 run against
 * two whole --jobs 1 runs at once, which share nothing (the throughput two
 * cores give this workload, start-up included).
 *
 * BENCH name=conform.serial value=<s> unit=s
 * BENCH name=conform.jobs2 value=<s> unit=s baseline=conform.serial ratio=<serial/jobs2>
 * BENCH name=conform.small.jobs2 value=<s> unit=s baseline=conform.small.two_serial_at_once
 *       ratio=<efficiency: (two runs' time / 2) / jobs2>
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { ROUNDS = 5, MAX_PATHS = 8 };

static const char *const small[] = { "tests/conformance", "tests/outside", NULL };
static const char *const battery[] = { "vadd", "matmul", "ffn4", "attention", NULL };
/* the generations of sm_80, sm_90 and sm_100, whose code each fatbin carries */
static const char *const battery_arch[] = { "ampere", "hopper", "blackwell", NULL };

/* One run, with --costs costs unless it is NULL; its SUMMARY line into
 * summary (g_free), its longest case's seconds into *longest (when not NULL),
 * and its wall time. */
static double run_conform(const char *jobs, const char *costs, const char *const *paths,
			  char **summary, double *longest)
{
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	const char *argv[MAX_PATHS + 8] = { exe, "conform", "--no-progress", "--jobs", jobs };
	size_t a = 5;
	if (costs) {
		argv[a++] = "--costs";
		argv[a++] = costs;
	}
	for (size_t i = 0; paths[i] && i < MAX_PATHS; i++)
		argv[a++] = paths[i];
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
	if (longest) {
		*longest = 0;
		for (const char *p = strstr(out, " ("); p; p = strstr(p + 2, " (")) {
			double t = strtod(p + 2, NULL);
			*longest = t > *longest ? t : *longest;
		}
	}
	g_free(out);
	g_free(exe);
	return s;
}

static void write_or_exit(const char *path, const char *text)
{
	if (!g_file_set_contents(path, text, -1, NULL)) {
		fprintf(stderr, "bench_conform: cannot write %s\n", path);
		exit(1);
	}
}

/* Copies of the battery scenarios in dir, NAME-ARCH.chain, each a conform
 * case: on each arch of battery_arch, the module path made absolute, one host
 * thread, `expect complete`. */
static void write_battery_cases(const char *dir)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char *kernels = g_strconcat(root, "/fixtures/kernels/out/", NULL);
	for (size_t i = 0; battery[i]; i++) {
		char *name = g_strdup_printf("%s.chain", battery[i]);
		char *src = g_build_filename(root, "fixtures", "battery", name, NULL);
		char *text = NULL;
		if (!g_file_get_contents(src, &text, NULL, NULL)) {
			fprintf(stderr, "bench_conform: cannot read %s\n", src);
			exit(1);
		}
		char **parts = g_strsplit(text, "../kernels/out/", -1);
		char *body = g_strjoinv(kernels, parts);
		char **halves = g_strsplit(body, "\narch hopper\n", -1);
		if (g_strv_length(halves) != 2) {
			fprintf(stderr, "bench_conform: %s has no one line 'arch hopper'\n", src);
			exit(1);
		}
		for (size_t a = 0; battery_arch[a]; a++) {
			char *out = g_strdup_printf("# run: --threads=1\n%s\narch %s\n%s\nexpect "
						    "complete\n", halves[0], battery_arch[a],
						    halves[1]);
			char *file = g_strdup_printf("%s/%s-%s.chain", dir, battery[i],
						     battery_arch[a]);
			write_or_exit(file, out);
			g_free(file);
			g_free(out);
		}
		g_strfreev(halves);
		g_free(body);
		g_strfreev(parts);
		g_free(text);
		g_free(src);
		g_free(name);
	}
	g_free(kernels);
}

typedef struct corpus_times {
	double serial, jobs2;     /* --jobs 1 and --jobs 2, both with --costs */
	double jobs2_path_order;  /* --jobs 2 without --costs (when asked for) */
	double longest;           /* the longest case of the fastest serial run */
} corpus_times;

/* Best of ROUNDS of each run, interleaved, on paths, after one run that
 * writes the costs file as a user's last run would have (every run with
 * --costs writes it again); the same SUMMARY line from every run, or the
 * bench stops. */
static corpus_times time_corpus(const char *const *paths, const char *costs,
				bool path_order_too)
{
	corpus_times t = { 1e9, 1e9, 1e9, 0 };
	char *first = NULL;
	run_conform("2", costs, paths, &first, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		char *sum[3] = { NULL, NULL, NULL };
		double l = 0, t1 = run_conform("1", costs, paths, &sum[0], &l);
		double t2 = run_conform("2", costs, paths, &sum[1], NULL);
		double t3 = path_order_too ? run_conform("2", NULL, paths, &sum[2], NULL) : 1e9;
		if (t1 < t.serial) {
			t.serial = t1;
			t.longest = l;
		}
		t.jobs2 = t2 < t.jobs2 ? t2 : t.jobs2;
		t.jobs2_path_order = t3 < t.jobs2_path_order ? t3 : t.jobs2_path_order;
		for (int i = 0; i < 3; i++) {
			if (sum[i] && strcmp(sum[i], first) != 0) {
				fprintf(stderr, "bench_conform: SUMMARY lines differ:\n%s%s", first,
					sum[i]);
				exit(1);
			}
			g_free(sum[i]);
		}
	}
	printf("%s", first);
	g_free(first);
	return t;
}

/* Two whole --jobs 1 runs of paths at once: what two cores give this workload
 * (start-up included) when nothing is shared between the runs. */
static double two_runs_at_once(const char *const *paths)
{
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	const char *argv[MAX_PATHS + 6] = { exe, "conform", "--no-progress", "--jobs", "1" };
	for (size_t i = 0; paths[i] && i < MAX_PATHS; i++)
		argv[5 + i] = paths[i];
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
	double load[1] = { 0 };
	if (getloadavg(load, 1) == 1) /* other work on the cores shows in the ratios */
		printf("# load average %.2f on %ld cores\n", load[0], sysconf(_SC_NPROCESSORS_ONLN));

	char *dir = g_dir_make_tmp("chainsim-bench-conform-XXXXXX", NULL);
	if (!dir) {
		fprintf(stderr, "bench_conform: no temporary folder\n");
		return 1;
	}
	write_battery_cases(dir);
	char *large_costs = g_build_filename(dir, "large.costs", NULL);
	char *small_costs = g_build_filename(dir, "small.costs", NULL);
	const char *const large[] = { dir, small[0], small[1], NULL };
	corpus_times lt = time_corpus(large, large_costs, true);
	printf("# large corpus: longest case %.2f s; with it the most two jobs can give is "
	       "%.2f\n", lt.longest,
	       lt.serial / (lt.longest > lt.serial / 2 ? lt.longest : lt.serial / 2));
	printf("# large corpus in path order (no --costs): --jobs 2 %.3f s, %.2f times "
	       "--jobs 1\n", lt.jobs2_path_order, lt.serial / lt.jobs2_path_order);

	corpus_times st = time_corpus(small, small_costs, false);
	double both = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double t = two_runs_at_once(small);
		both = t < both ? t : both;
	}
	printf("# small corpus: --jobs 1 %.3f s; two whole --jobs 1 runs at once %.3f s, %.2f "
	       "times one run's throughput\n", st.serial, both, 2 * st.serial / both);
	double one = spin_children(1), two = spin_children(2);
	printf("# parallelism available now: %.2f (a fixed loop: %.3f s alone, %.3f s as two)\n",
	       2 * one / two, one, two);
	printf("BENCH name=conform.serial value=%.3f unit=s\n", lt.serial);
	printf("BENCH name=conform.jobs2 value=%.3f unit=s baseline=conform.serial ratio=%.2f\n",
	       lt.jobs2, lt.serial / lt.jobs2);
	printf("BENCH name=conform.small.jobs2 value=%.3f unit=s "
	       "baseline=conform.small.two_serial_at_once ratio=%.2f\n",
	       st.jobs2, both / (2 * st.jobs2));
	for (size_t i = 0; battery[i]; i++)
		for (size_t a = 0; battery_arch[a]; a++) {
			char *name = g_strdup_printf("%s/%s-%s.chain", dir, battery[i],
						     battery_arch[a]);
			g_unlink(name);
			g_free(name);
		}
	g_unlink(large_costs);
	g_unlink(small_costs);
	g_free(large_costs);
	g_free(small_costs);
	g_rmdir(dir);
	g_free(dir);
	return 0;
}
