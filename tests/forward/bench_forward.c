/* SPDX-License-Identifier: MIT */
/* What the host's view and the rewrite cost, against a baseline in the same
 * process:
 *   BENCH name=forward.span_one_view   baseline=mem.span        the device's memory
 *         port with no window (every front-end and engine access goes through it)
 *         against cs_mem_span on the same memory
 *   BENCH name=forward.span_two_views  baseline=mem.span        the same with windows
 *   BENCH name=forward.relocate        baseline=forward.identity  a scenario of 500
 *         host releases run with `map` + `rewrite relocate`, against the same
 *         scenario forwarded by identity (parse, execute, judge each time) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

enum { SPANS = 2000000, ROUNDS = 5, RUNS = 20, RELEASES = 500 };

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const cs_diag *d)
{
	fprintf(stderr, "bench_forward: %s: %s\n", what, d ? d->msg : "");
	exit(1);
}

static cs_device *new_dev(void)
{
	cs_diag d;
	cs_device_config cfg = { .arch = CS_ARCH_HOPPER };
	cs_device *dev = cs_device_new(&cfg, &d);
	if (!dev)
		die("device", &d);
	return dev;
}

/* ns per span over SPANS calls walking 64 KiB; sum keeps the loads alive */
static double span_ns(uint8_t *(*span)(void *, uint64_t, uint64_t), void *ctx, uint64_t base,
		      uint64_t *sum)
{
	double t0 = now_s();
	for (uint32_t i = 0; i < SPANS; i++) {
		uint8_t *p = span(ctx, base + ((uint64_t)i * 64u & 0xffffu), 8);
		if (!p)
			die("span", NULL);
		*sum += p[0];
	}
	return (now_s() - t0) * 1e9 / SPANS;
}

static uint8_t *mem_span(void *ctx, uint64_t va, uint64_t len)
{
	return cs_mem_span(ctx, va, len);
}

static double run_scenario(const char *text)
{
	double t0 = now_s();
	for (int r = 0; r < RUNS; r++) {
		cs_diag d;
		cs_scenario *s = cs_scenario_parse(text, strlen(text), "bench.chain", ".", &d);
		if (!s)
			die("parse", &d);
		cs_device *dev = new_dev();
		if (!cs_scenario_execute(s, dev, &d))
			die("execute", &d);
		cs_report *rep = cs_report_build(dev);
		if (!rep || rep->overall.first_break != CS_STAGE_NONE)
			die("the scenario did not complete", NULL);
		cs_report_free(rep);
		cs_device_free(dev);
		cs_scenario_free(s);
	}
	return (now_s() - t0) / RUNS;
}

int main(void)
{
	cs_diag d;
	uint64_t sum = 0;
	cs_device *dev = new_dev();
	uint64_t va;
	if (!cs_mem_alloc(cs_device_mem(dev), "buf", 0x10000, 4096, &va, &d))
		die("alloc", &d);
	uint8_t zero[0x10000] = { 0 };
	cs_mem_write(cs_device_mem(dev), va, zero, sizeof(zero), NULL);
	const cs_mem_port *port = &cs_device_bus(dev)->mem;
	/* alternated, best of ROUNDS each: the machine is shared */
	double base = 1e9, one = 1e9, two = 1e9;
	for (int r = 0; r < ROUNDS; r++) {
		double b = span_ns(mem_span, cs_device_mem(dev), va, &sum);
		double o = span_ns(port->span, port->ctx, va, &sum);
		base = b < base ? b : base;
		one = o < one ? o : one;
	}
	if (!cs_device_map_host(dev, va, 0x5000000000ull, 0x10000, &d))
		die("map", &d);
	for (int r = 0; r < ROUNDS; r++) {
		double t = span_ns(port->span, port->ctx, 0x5000000000ull, &sum);
		two = t < two ? t : two;
	}
	printf("BENCH name=mem.span value=%.2f unit=ns/span baseline=mem.span ratio=1.000\n", base);
	printf("BENCH name=forward.span_one_view value=%.2f unit=ns/span baseline=mem.span "
	       "ratio=%.3f\n", one, one / base);
	printf("BENCH name=forward.span_two_views value=%.2f unit=ns/span baseline=mem.span "
	       "ratio=%.3f\n", two, two / base);
	cs_device_free(dev);

	GString *body = g_string_new("push pb\n");
	for (int i = 0; i < RELEASES; i++)
		g_string_append_printf(body, "  release sem %d\n", i + 1);
	g_string_append_printf(body, "end\ngpfifo pb\nsubmit\nwait sem == %d\n", RELEASES);
	char *ident = g_strdup_printf("arch hopper\nalloc sem 16\n%s", body->str);
	char *reloc = g_strdup_printf("arch hopper\nalloc sem 16\n"
				      "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
				      "rewrite\n  relocate\nend\n%s", body->str);
	double t_ident = run_scenario(ident), t_reloc = run_scenario(reloc);
	printf("BENCH name=forward.identity value=%.3f unit=ms/run baseline=forward.identity "
	       "ratio=1.000\n", t_ident * 1e3);
	printf("BENCH name=forward.relocate value=%.3f unit=ms/run baseline=forward.identity "
	       "ratio=%.3f\n", t_reloc * 1e3, t_reloc / t_ident);
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sum);
	g_free(ident);
	g_free(reloc);
	g_string_free(body, TRUE);
	return 0;
}
