/* SPDX-License-Identifier: MIT */
/* Launches per second through the whole chain (front end, compute engine, QMD
 * read and accept, dispatch, release, trace store) for a minimal grid, against
 * the front end's own methods per second on the same stream in the same
 * process. The executor is a FAKE one, named as such in its kernel name: it
 * runs no code, so this measures the chain, not PTX execution.
 *
 * BENCH name=gr.launches value=<launches/s> unit=launches/s baseline=fe.methods ratio=<r>
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/device.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"
#include "chainsim/report.h"

enum {
	LAUNCHES_PER_ENTRY = 1000,
	ENTRIES_PER_ROUND = 10,
	ROUNDS = 5,
	DWORDS_PER_LAUNCH = 4,
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The fake executor: claims every CTA ran, and says it is fake. */
static void fake_run_grid(void *ctx, const cs_bus *bus, const cs_grid_launch *g,
			  cs_grid_result *out)
{
	(void)ctx;
	(void)bus;
	memset(out, 0, sizeof(*out));
	out->outcome = CS_GRID_EXECUTED;
	out->ctas_executed = (uint64_t)g->grid[0] * g->grid[1] * g->grid[2];
	snprintf(out->kernel, sizeof(out->kernel), "fake-executor (bench: runs no code)");
}

static void die(const char *what, const cs_diag *d)
{
	fprintf(stderr, "bench_sim: %s: %s\n", what, d ? d->msg : "");
	exit(1);
}

/* One pushbuffer of LAUNCHES_PER_ENTRY PCAS launches of the QMD at qmd. */
static uint32_t *launch_stream(uint64_t qmd, uint32_t *ndw)
{
	uint32_t n = 2 + LAUNCHES_PER_ENTRY * DWORDS_PER_LAUNCH;
	uint32_t *dw = malloc((size_t)n * 4);
	if (!dw)
		die("out of memory", NULL);
	uint32_t k = 0;
	dw[k++] = cs_pb_inc(1, 0, 1);
	dw[k++] = 0xCBC0;
	for (uint32_t i = 0; i < LAUNCHES_PER_ENTRY; i++) {
		dw[k++] = cs_pb_inc(1, CS_GR_SEND_PCAS_A, 1);
		dw[k++] = (uint32_t)(qmd >> 8);
		dw[k++] = cs_pb_inc(1, CS_GR_SEND_SIGNALING_PCAS2_B, 1);
		dw[k++] = CS_PCAS2_INVALIDATE_COPY_SCHEDULE;
	}
	*ndw = k;
	return dw;
}

static uint64_t map_bytes(cs_mem *mem, const void *src, size_t len, uint64_t align)
{
	uint64_t va;
	cs_diag d;
	if (!cs_mem_alloc(mem, "", len, align, &va, &d))
		die("alloc", &d);
	if (src && !cs_mem_write(mem, va, src, len, NULL))
		die("write", NULL);
	return va;
}

/* A device with the QMD, code and constant bank mapped; returns the QMD VA.
 * With a kernel, its SASS is the code (the runtime recognises it) and its
 * parameters are zero: vadd with n = 0, every thread returns at once. */
static uint64_t setup(cs_device *dev, const cs_kernel_info *k)
{
	cs_mem *mem = cs_device_mem(dev);
	uint64_t code = k ? map_bytes(mem, k->code, k->code_size, 256) : map_bytes(mem, NULL, 256, 256);
	uint64_t cb = map_bytes(mem, NULL, 0x400, 256);
	uint64_t sem = map_bytes(mem, NULL, 16, 16);
	cs_qmd q;
	cs_diag d;
	const uint64_t grid[3] = { 1, 1, 1 }, block[3] = { 32, 1, 1 };
	const uint64_t cbv[2] = { cb, 0x400 }, rel[2] = { sem, 1 };
	if (!cs_qmd_init(&q, 4, &d) || !cs_qmd_set_key(&q, "program", &code, 1, &d) ||
	    !cs_qmd_set_key(&q, "grid", grid, 3, &d) || !cs_qmd_set_key(&q, "block", block, 3, &d) ||
	    !cs_qmd_set_key(&q, "cbank0", cbv, 2, &d) || !cs_qmd_set_key(&q, "release0", rel, 2, &d))
		die("qmd", &d);
	return map_bytes(mem, q.dw, q.layout->bytes, 256);
}

static uint64_t push_entry(cs_device *dev, uint64_t pb, uint32_t ndw)
{
	cs_gp_entry e = { .addr = pb, .length = ndw };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	cs_diag d;
	if (!cs_device_gpfifo_push(dev, 0, lo, hi, &d))
		die("gpfifo", &d);
	return 0;
}

/* The whole chain: launches/s. module NULL: the fake executor; else the PTX
 * runtime with the module's first kernel. */
static double bench_chain(cs_module *module, uint64_t *launched)
{
	cs_exec_port fake = { .ctx = NULL, .run_grid = fake_run_grid };
	double total = 0;
	*launched = 0;
	for (int r = 0; r < ROUNDS; r++) {
		cs_device_config cfg = { .arch = CS_ARCH_HOPPER,
					 .exec_override = module ? NULL : &fake };
		cs_diag d;
		cs_device *dev = cs_device_new(&cfg, &d);
		if (!dev)
			die("device", &d);
		const cs_kernel_info *k = NULL;
		if (module) {
			if (!cs_ptx_runtime_add(cs_device_ptx(dev), module, &d))
				die("runtime", &d);
			k = cs_module_kernel(module, 0);
		}
		uint64_t qmd = setup(dev, k);
		uint32_t ndw;
		uint32_t *dw = launch_stream(qmd, &ndw);
		uint64_t pb = map_bytes(cs_device_mem(dev), dw, (size_t)ndw * 4, 4096);
		free(dw);
		double t0 = now_s();
		for (int e = 0; e < ENTRIES_PER_ROUND; e++)
			push_entry(dev, pb, ndw);
		if (!cs_device_submit(dev, 0, &d))
			die("submit", &d);
		total += now_s() - t0;
		cs_report *rep = cs_report_build(dev);
		uint64_t n = 0, ctas = 0;
		cs_report_counter(rep, "launches", &n);
		cs_report_counter(rep, "ctas", &ctas);
		if (n != (uint64_t)LAUNCHES_PER_ENTRY * ENTRIES_PER_ROUND || ctas != n) {
			fprintf(stderr, "bench_sim: %llu launches, %llu CTAs (break %d: %s)\n",
				(unsigned long long)n, (unsigned long long)ctas,
				rep->overall.first_break, rep->overall.diagnosis);
			exit(1);
		}
		*launched += n;
		cs_report_free(rep);
		cs_device_free(dev);
	}
	return (double)*launched / total;
}

/* The baseline: the front end alone on the same stream, its engine port a sink. */
static cs_engine_result sink_bind(void *ctx, uint32_t ch, uint32_t subch, uint32_t cls, cs_diag *why)
{
	(void)ctx; (void)ch; (void)subch; (void)cls; (void)why;
	return CS_ENGINE_OK;
}

static cs_engine_result sink_method(void *ctx, const cs_method_call *c, cs_diag *why)
{
	(void)why;
	*(uint64_t *)ctx += c->data;
	return CS_ENGINE_OK;
}

static double bench_fe(uint64_t *methods)
{
	double total = 0;
	*methods = 0;
	for (int r = 0; r < ROUNDS; r++) {
		cs_mem *mem = cs_mem_new(57);
		uint64_t now = 0, sum = 0;
		cs_bus bus = { .mem = cs_mem_port_of(mem), .trace = { 0 }, .now_ns = &now };
		cs_engine_port sink = { .ctx = &sum, .bind = sink_bind, .method = sink_method };
		cs_fe *fe = cs_fe_new(CS_ARCH_HOPPER, &bus, &sink);
		uint64_t ring = map_bytes(mem, NULL, 1024 * 8, 4096);
		uint64_t userd = map_bytes(mem, NULL, CS_USERD_SIZE, 4096);
		uint32_t ch;
		cs_diag d;
		if (!fe || !cs_fe_channel_new(fe, ring, 1024, userd, &ch, &d))
			die("fe", &d);
		uint32_t ndw;
		uint32_t *dw = launch_stream(0x200000000, &ndw);
		uint64_t pb = map_bytes(mem, dw, (size_t)ndw * 4, 4096);
		free(dw);
		double t0 = now_s();
		for (uint32_t e = 0; e < ENTRIES_PER_ROUND; e++) {
			cs_gp_entry ge = { .addr = pb, .length = ndw };
			uint32_t w[2];
			cs_gp_encode(&ge, &w[0], &w[1]);
			cs_mem_write(mem, ring + 8ull * e, w, 8, NULL);
		}
		uint32_t put = ENTRIES_PER_ROUND;
		cs_mem_write(mem, userd + CS_USERD_GP_PUT, &put, 4, NULL);
		cs_fe_doorbell(fe, ch);
		cs_fe_run(fe, 0);
		total += now_s() - t0;
		cs_fe_counters c = cs_fe_counters_total(fe);
		if (c.methods != (uint64_t)ndw / 2 * ENTRIES_PER_ROUND) {
			fprintf(stderr, "bench_sim: the front end ran %llu methods\n",
				(unsigned long long)c.methods);
			exit(1);
		}
		*methods += c.methods;
		cs_fe_free(fe);
		cs_mem_free(mem);
	}
	return (double)*methods / total;
}

int main(void)
{
	uint64_t launched, methods;
	double fe_rate = bench_fe(&methods);
	double rate = bench_chain(NULL, &launched);
	printf("# fake executor (runs no code); %llu launches through the chain, %llu methods "
	       "through the front end alone\n",
	       (unsigned long long)launched, (unsigned long long)methods);
	printf("BENCH name=fe.methods value=%.0f unit=methods/s baseline=fe.methods ratio=1.000\n",
	       fe_rate);
	printf("BENCH name=gr.launches value=%.0f unit=launches/s baseline=fe.methods ratio=%.4f\n",
	       rate, rate / fe_rate);

	/* The same stream with the real PTX runtime and vadd (n = 0: the smallest
	 * real kernel), when the fixture is there. */
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	if (!root) {
		printf("# gr.launches_ptx not measured: CHAINSIM_SOURCE_ROOT is not set\n");
		return 0;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/fixtures/kernels/out/vadd.nocompress.fatbin", root);
	cs_diag d;
	cs_module *m = cs_module_load_file(path, CS_ARCH_HOPPER, &d);
	if (!m)
		die(path, &d);
	double prate = bench_chain(m, &launched);
	cs_module_free(m);
	printf("# PTX runtime, vadd with n = 0 (1 CTA x 32 threads); %llu launches\n",
	       (unsigned long long)launched);
	printf("BENCH name=gr.launches_ptx value=%.0f unit=launches/s baseline=fe.methods "
	       "ratio=%.4f\n", prate, prate / fe_rate);
	return 0;
}
