/* SPDX-License-Identifier: MIT */
/* reduce on the generated 10,000-method stream (reduce_stream.h): the
 * simulator runs it needs against the lines it started from, and its wall time
 * against one run of the whole stream, both measured here, best of ROUNDS.
 *
 * BENCH name=reduce.runs value=<runs> unit=runs baseline=lines ratio=<runs/lines>
 * BENCH name=reduce.seconds value=<s> unit=s baseline=one-run ratio=<s/one run>
 * BENCH name=reduce.seconds_per_run value=<s> unit=s baseline=one-run ratio=<..>
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/reduce.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

#include "reduce_stream.h"

enum { ROUNDS = 3 };

static double one_run(const char *text, const char *base_dir)
{
	cs_diag d;
	gint64 t0 = g_get_monotonic_time();
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "stream", base_dir, &d);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = s ? cs_device_new(&cfg, &d) : NULL;
	bool ok = dev && cs_scenario_execute(s, dev, &d);
	cs_report *r = ok ? cs_report_build(dev) : NULL;
	double sec = (double)(g_get_monotonic_time() - t0) / 1e6;
	if (!r || r->overall.cause != CS_CAUSE_EARLIER_FAULT) {
		fprintf(stderr, "bench_reduce: the stream does not break as generated: %s\n", d.msg);
		exit(1);
	}
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	return sec;
}

int main(void)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	if (!src) {
		fprintf(stderr, "bench_reduce: run through meson test --benchmark\n");
		return 1;
	}
	char *fatbin = g_build_filename(src, "fixtures", "kernels", "out", "vadd.nocompress.fatbin",
					NULL);
	char *text = reduce_stream_text(fatbin);
	double base = 1e9, best = 1e9;
	size_t runs = 0, before = 0, after = 0;
	for (int round = 0; round < ROUNDS; round++) {
		double b = one_run(text, src);
		base = b < base ? b : base;
		cs_reduce_opts o = { .name = "stream", .base_dir = src,
				     .goal = { .cause = CS_CAUSE_EARLIER_FAULT } };
		cs_reduce_result r;
		cs_diag d;
		gint64 t0 = g_get_monotonic_time();
		if (!cs_reduce_scenario(text, strlen(text), &o, &r, &d) || !r.held) {
			fprintf(stderr, "bench_reduce: reduce failed: %s\n", d.msg);
			return 1;
		}
		double sec = (double)(g_get_monotonic_time() - t0) / 1e6;
		best = sec < best ? sec : best;
		runs = r.runs;
		before = r.units_before;
		after = r.units_after;
		cs_reduce_result_clear(&r);
	}
	printf("reduce: %zu of %zu lines kept\n", after, before);
	printf("BENCH name=reduce.runs value=%zu unit=runs baseline=lines ratio=%.4f\n", runs,
	       (double)runs / (double)before);
	printf("BENCH name=reduce.seconds value=%.3f unit=s baseline=one-run ratio=%.1f\n", best,
	       best / base);
	printf("BENCH name=reduce.seconds_per_run value=%.5f unit=s baseline=one-run ratio=%.3f\n",
	       best / (double)runs, best / (double)runs / base);
	g_free(text);
	g_free(fatbin);
	return 0;
}
