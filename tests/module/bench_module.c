/* SPDX-License-Identifier: MIT */
/* Benchmarks of the module loader, the zstd decoder and the runtime's launch
 * path (meson test --benchmark). Prints BENCH lines; asserts nothing timed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/mem.h"
#include "chainsim/ptxrun.h"
#include "fixtures.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_load(const char *file, unsigned rounds)
{
	size_t len;
	uint8_t *b = (uint8_t *)test_read_kernel_fixture(file, &len);
	if (!b) {
		fprintf(stderr, "bench: cannot read %s\n", file);
		return 1;
	}
	size_t ptx_bytes = 0;
	double t0 = now_s();
	for (unsigned i = 0; i < rounds; i++) {
		cs_diag d;
		cs_module *m = cs_module_load_bytes(b, len, file, CS_ARCH_HOPPER, &d);
		if (!m) {
			fprintf(stderr, "bench: %s: %s\n", file, d.msg);
			free(b);
			return 1;
		}
		size_t pl = 0;
		cs_module_ptx(m, &pl);
		ptx_bytes += pl;
		cs_module_free(m);
	}
	double dt = now_s() - t0;
	/* the baseline: copying the same bytes as often, in this process */
	uint8_t *copy = malloc(len);
	double c0 = now_s();
	for (unsigned i = 0; i < rounds; i++) {
		memcpy(copy, b, len);
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
	double ct = now_s() - c0;
	free(copy);
	printf("BENCH name=module.load.%s value=%.0f unit=bytes/s baseline=memcpy ratio=%.4f "
	       "(%.1f us/load, %zu PTX bytes out)\n",
	       file, (double)len * rounds / dt, ct / dt, dt * 1e6 / rounds, ptx_bytes / rounds);
	free(b);
	return 0;
}

/* The runtime's dispatch path: code match (11.5 KB compared), parameter
 * marshalling and a one-warp attention grid whose parameters are all zero
 * (seq = dh = 0, so the threads do almost nothing): the per-launch overhead. */
static int bench_dispatch(unsigned rounds)
{
	cs_diag d;
	char *p = test_kernel_fixture("attention.nocompress.fatbin");
	cs_module *m = cs_module_load_file(p, CS_ARCH_HOPPER, &d);
	g_free(p);
	if (!m)
		return 1;
	cs_ptx_runtime *rt = cs_ptx_runtime_new(CS_ARCH_HOPPER);
	if (!cs_ptx_runtime_add(rt, m, &d))
		return 1;
	const cs_kernel_info *k = cs_module_kernel(m, 0);
	cs_mem *mem = cs_mem_new(57);
	uint64_t t = 0, f;
	cs_bus bus = { .mem = cs_mem_port_of(mem), .now_ns = &t };
	cs_mem_map(mem, "code", 0x200000000ull, k->code_size, &d);
	cs_mem_write(mem, 0x200000000ull, k->code, k->code_size, &f);
	cs_mem_map(mem, "cb", 0x300000000ull, 0x1000, &d);
	cs_grid_launch g = { .program = 0x200000000ull, .grid = { 1, 1, 1 }, .block = { 32, 1, 1 },
			     .shared_bytes = k->shared_static, .cbank_valid = 1,
			     .cbank_addr = { 0x300000000ull }, .cbank_size = { 0x1000 } };
	cs_exec_port port = cs_ptx_runtime_port(rt);
	double t0 = now_s();
	unsigned ok = 0;
	for (unsigned i = 0; i < rounds; i++) {
		cs_grid_result res;
		port.run_grid(port.ctx, &bus, &g, &res);
		ok += res.outcome == CS_GRID_EXECUTED;
	}
	double dt = now_s() - t0;
	/* the baseline: the code comparison alone, as often */
	uint8_t *code = malloc(k->code_size);
	cs_mem_read(mem, 0x200000000ull, code, k->code_size, &f);
	unsigned same = 0;
	double c0 = now_s();
	for (unsigned i = 0; i < rounds; i++) {
		same += memcmp(code, k->code, k->code_size) == 0;
		__asm__ volatile("" : : "r"(code) : "memory");
	}
	double ct = now_s() - c0;
	free(code);
	printf("BENCH name=module.dispatch value=%.0f unit=launches/s baseline=memcmp_code "
	       "ratio=%.4f (attention, %zu code bytes, %u of %u executed, %u compared equal)\n",
	       rounds / dt, ct / dt, k->code_size, ok, rounds, same);
	cs_ptx_runtime_free(rt);
	cs_module_free(m);
	cs_mem_free(mem);
	return 0;
}

int main(void)
{
	int rc = 0;
	rc |= bench_load("matmul.sm_90.cubin", 2000);
	rc |= bench_load("attention.nocompress.fatbin", 1000);
	rc |= bench_load("attention.fatbin", 1000); /* zstd PTX */
	rc |= bench_load("softmax.fatbin", 1000);
	rc |= bench_dispatch(2000);
	return rc;
}
