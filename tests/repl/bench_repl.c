/* SPDX-License-Identifier: MIT */
/* BENCH repl.step: methods per second through `chainsim repl --script` with
 * one `step 1` per method, against `chainsim run` of the same stream (whole
 * processes, best of five each). Two streams: launches (vadd through the
 * pcas path, executed) and host methods only (the REPL's worst case: nothing
 * but stops). Prints
 *   BENCH name=repl.step.<stream> value=<methods/s> unit=methods/s
 *         baseline=chainsim-run baseline_value=<methods/s> ratio=<r> methods=<n>
 *         cpu_ratio=<r>
 * ratio is by wall-clock time; cpu_ratio by the processes' own CPU time (user
 * and system), which a machine shared with other work leaves steadier. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double children_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Best wall-clock seconds of five runs; *cpu: the best CPU seconds. */
static double run_best(char **argv, const char *dir, double *cpu)
{
	double best = 1e30;
	*cpu = 1e30;
	for (int i = 0; i < 5; i++) {
		double c0 = children_cpu_s();
		gint64 t0 = g_get_monotonic_time();
		int status = 0;
		GError *err = NULL;
		if (!g_spawn_sync(dir, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL,
				  &status, &err)) {
			fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], err ? err->message : "?");
			exit(1);
		}
		double s = (double)(g_get_monotonic_time() - t0) / 1e6;
		double c = children_cpu_s() - c0;
		if (c < *cpu)
			*cpu = c;
		if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
			fprintf(stderr, "bench: %s %s exited %d\n", argv[0], argv[1], WEXITSTATUS(status));
			exit(1);
		}
		if (s < best)
			best = s;
	}
	return best;
}

/* Writes the scenario and a script of `steps` x "step 1"; returns the
 * scenario's path. */
static char *write_stream(const char *dir, const char *name, GString *body, unsigned steps,
			  char **script)
{
	char *path = g_strdup_printf("%s/%s.chain", dir, name);
	g_file_set_contents(path, body->str, -1, NULL);
	GString *sc = g_string_new("");
	for (unsigned i = 0; i < steps; i++)
		g_string_append(sc, "step 1\n");
	*script = g_strdup_printf("%s/%s.script", dir, name);
	g_file_set_contents(*script, sc->str, -1, NULL);
	g_string_free(sc, TRUE);
	return path;
}

static void bench(const char *exe, const char *dir, const char *name, GString *body,
		  unsigned methods)
{
	char *script = NULL;
	char *chain = write_stream(dir, name, body, methods, &script);
	char *run_argv[] = { (char *)exe, "run", chain, NULL };
	char *repl_argv[] = { (char *)exe, "repl", chain, "--script", script, NULL };
	double c_run, c_repl;
	double t_run = run_best(run_argv, dir, &c_run);
	double t_repl = run_best(repl_argv, dir, &c_repl);
	double v_run = methods / t_run, v_repl = methods / t_repl;
	printf("BENCH name=repl.step.%s value=%.0f unit=methods/s baseline=chainsim-run "
	       "baseline_value=%.0f ratio=%.3f methods=%u cpu_ratio=%.3f\n",
	       name, v_repl, v_run, v_repl / v_run, methods, c_run / c_repl);
	g_unlink(chain);
	g_unlink(script);
	g_free(chain);
	g_free(script);
}

int main(void)
{
	const char *build = getenv("CHAINSIM_BUILD_ROOT");
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	if (!build || !src) {
		fprintf(stderr, "bench: run through meson test --benchmark\n");
		return 1;
	}
	char *exe = g_build_filename(build, "tools", "chainsim", NULL);
	char *dir = g_dir_make_tmp("chainsim-bench-repl-XXXXXX", NULL);
	char *fatbin = g_build_filename(src, "fixtures", "kernels", "out", "vadd.nocompress.fatbin", NULL);

	/* 64 launches: 4 methods each (SET_OBJECT, cache invalidate, SEND_PCAS_A,
	 * SEND_SIGNALING_PCAS2_B) */
	enum { LAUNCHES = 64, RELEASES = 2000 };
	GString *b = g_string_new("arch hopper\n");
	g_string_append_printf(b, "module m %s\nalloc a 256\nalloc b 256\nalloc c 256\npush pb\n", fatbin);
	for (int i = 0; i < LAUNCHES; i++)
		g_string_append_printf(b, "  launch m.vadd grid=1 block=32 args=a,b,c,4 path=pcas name=L%d\n", i);
	g_string_append_printf(b, "end\ngpfifo pb\nsubmit\nwait L%d.sem == 1\n", LAUNCHES - 1);
	bench(exe, dir, "launches", b, LAUNCHES * 4);
	g_string_free(b, TRUE);

	/* host releases only: 5 methods each */
	b = g_string_new("arch hopper\nalloc s 16\npush pb\n");
	for (int i = 0; i < RELEASES; i++)
		g_string_append_printf(b, "  release s %d\n", i + 1);
	g_string_append_printf(b, "end\ngpfifo pb\nsubmit\nwait s == %d\n", RELEASES);
	bench(exe, dir, "host", b, RELEASES * 5);
	g_string_free(b, TRUE);

	g_rmdir(dir);
	g_free(dir);
	g_free(fatbin);
	g_free(exe);
	return 0;
}
