/* SPDX-License-Identifier: MIT */
/* Benchmarks (best of several runs of each, on a shared machine):
 * thread-instructions per second for vector add (n = 2^20) and the
 * tiled shared-memory matmul (n = 256) of fixtures/kernels (sm_90 PTX) on one
 * host thread, each against a plain C implementation of the same computation
 * timed in this process; and the matmul's 256 CTAs on two host threads against
 * one, the grid repeated for at least 100 ms (ptx.threads2, the speedup; the
 * results must be equal byte for byte).
 * Prints one BENCH line per figure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/mem.h"
#include "chainsim/ptx.h"
#include "source.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process: on a loaded machine the wall-time speedup
 * of two threads is capped by the CPU share, the CPU time shows the work. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


static cs_ptx_program *load(const char *rel)
{
	size_t len;
	char *text = test_read_source(rel, &len);
	if (!text) {
		fprintf(stderr, "cannot read %s\n", rel);
		return NULL;
	}
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, rel, &d);
	free(text);
	if (!p)
		fprintf(stderr, "%s: %s\n", rel, d.msg);
	return p;
}

static void noop_emit(void *ctx, const cs_event *ev)
{
	(void)ctx;
	(void)ev;
}

static uint64_t alloc(cs_mem *m, uint64_t size)
{
	uint64_t va;
	cs_diag d;
	if (!cs_mem_alloc(m, "", size, 4096, &va, &d)) {
		fprintf(stderr, "alloc: %s\n", d.msg);
		exit(1);
	}
	return va;
}

static int run(const cs_ptx_program *p, const char *name, const cs_bus *bus, unsigned threads,
	       uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, const uint64_t *args,
	       size_t nargs, cs_grid_result *out)
{
	size_t e;
	if (!cs_ptx_entry_find(p, name, &e))
		return 1;
	uint8_t params[256] = { 0 };
	for (size_t i = 0; i < nargs; i++) {
		cs_ptx_param pi;
		cs_ptx_param_info(p, e, i, &pi);
		memcpy(params + pi.offset, &args[i], pi.size < 8 ? pi.size : 8);
	}
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	l.grid[0] = gx;
	l.grid[1] = gy;
	l.grid[2] = 1;
	l.block[0] = bx;
	l.block[1] = by;
	l.block[2] = 1;
	l.params = params;
	l.param_bytes = cs_ptx_param_bytes(p, e);
	l.threads = threads;
	cs_ptx_run(p, e, &l, bus, out);
	if (out->outcome != CS_GRID_EXECUTED) {
		fprintf(stderr, "%s: %s\n", name, out->diag.msg);
		return 1;
	}
	return 0;
}

static void vadd_native(const float *a, const float *b, float *c, int n)
{
	for (int i = 0; i < n; i++)
		c[i] = a[i] + b[i];
}

static void matmul_native(const float *A, const float *B, float *C, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float acc = 0.0f;
			for (int k = 0; k < n; k++)
				acc += A[i * n + k] * B[k * n + j];
			C[i * n + j] = acc;
		}
}

int main(void)
{
	/* the acceptance battery's kernels, as nvcc 13 writes them for sm_90 */
	cs_ptx_program *pv = load("fixtures/kernels/out/vadd.sm_90.ptx");
	cs_ptx_program *pm = load("fixtures/kernels/out/matmul.sm_90.ptx");
	if (!pv || !pm)
		return 1;
	cs_mem *mem = cs_mem_new(49);
	cs_bus bus;
	memset(&bus, 0, sizeof(bus));
	uint64_t now = 0;
	bus.mem = cs_mem_port_of(mem);
	bus.trace.emit = noop_emit;
	bus.now_ns = &now;
	int rc = 0;

	/* vector add, n = 2^20 */
	{
		enum { N = 1 << 20 };
		float *a = malloc(N * 4), *b = malloc(N * 4), *c = malloc(N * 4), *g = malloc(N * 4);
		for (int i = 0; i < N; i++) {
			a[i] = (float)i;
			b[i] = (float)(N - i) * 0.5f;
		}
		uint64_t va = alloc(mem, N * 4), vb = alloc(mem, N * 4), vc = alloc(mem, N * 4);
		uint64_t f;
		cs_mem_write(mem, va, a, N * 4, &f);
		cs_mem_write(mem, vb, b, N * 4, &f);
		cs_mem_write(mem, vc, c, N * 4, &f); /* back the pages before timing */
		uint64_t args[] = { va, vb, vc, N };
		cs_grid_result out;
		double sim = 1e30, nat = 1e30;
		for (int r = 0; r < 5; r++) {
			double t0 = now_s();
			rc |= run(pv, "vadd", &bus, 1, N / 256, 1, 256, 1, args, 4, &out);
			double t1 = now_s();
			sim = t1 - t0 < sim ? t1 - t0 : sim;
		}
		for (int r = 0; r < 20; r++) {
			double n0 = now_s();
			vadd_native(a, b, c, N);
			__asm__ volatile("" : : "r"(c) : "memory");
			double n1 = now_s();
			nat = n1 - n0 < nat ? n1 - n0 : nat;
		}
		cs_mem_read(mem, vc, g, N * 4, &f);
		if (memcmp(g, c, N * 4)) {
			fprintf(stderr, "vadd: results differ from native\n");
			rc = 1;
		}
		printf("BENCH name=ptx.vadd value=%.0f unit=thread-instr/s baseline=native ratio=%.1f\n",
		       (double)out.thread_instructions / sim, sim / nat);
		free(a);
		free(b);
		free(c);
		free(g);
	}
	/* tiled matmul, n = 256 */
	{
		enum { N = 256 };
		float *A = malloc(N * N * 4), *B = malloc(N * N * 4), *C = malloc(N * N * 4),
		      *G = malloc(N * N * 4);
		for (int i = 0; i < N * N; i++) {
			A[i] = (float)((i * 7) % 13) - 6.0f;
			B[i] = (float)((i * 5) % 11) * 0.25f;
		}
		uint64_t va = alloc(mem, N * N * 4), vb = alloc(mem, N * N * 4), vc = alloc(mem, N * N * 4);
		uint64_t f;
		cs_mem_write(mem, va, A, N * N * 4, &f);
		cs_mem_write(mem, vb, B, N * N * 4, &f);
		cs_mem_write(mem, vc, C, N * N * 4, &f);
		uint64_t args[] = { va, vb, vc, N };
		cs_grid_result out;
		double sim = 1e30, nat = 1e30;
		/* best of 10 each: one run is about 10 ms, which one interrupt can
		 * spoil; interleaved, so that a core slowed for a while (a busy
		 * neighbour on a virtual machine) slows both alike */
		for (int r = 0; r < 10; r++) {
			double t0 = now_s();
			rc |= run(pm, "matmul", &bus, 1, N / 16, N / 16, 16, 16, args, 4, &out);
			double t1 = now_s();
			sim = t1 - t0 < sim ? t1 - t0 : sim;
			double n0 = now_s();
			matmul_native(A, B, C, N);
			__asm__ volatile("" : : "r"(C) : "memory");
			double n1 = now_s();
			nat = n1 - n0 < nat ? n1 - n0 : nat;
		}
		cs_mem_read(mem, vc, G, N * N * 4, &f);
		/* the inputs are small integers and quarters: every sum is exact either way */
		if (memcmp(G, C, N * N * 4)) {
			fprintf(stderr, "matmul: results differ from native\n");
			rc = 1;
		}
		fprintf(stderr, "matmul256: sim %.3f s, native %.4f s, %llu thread-instructions\n", sim, nat,
			(unsigned long long)out.thread_instructions);
		printf("BENCH name=ptx.matmul256 value=%.0f unit=thread-instr/s baseline=native ratio=%.2f\n",
		       (double)out.thread_instructions / sim, sim / nat);

		/* the same grid on one and on two host threads, interleaved so that
		 * load from elsewhere on the machine hits both alike; each figure
		 * repeats the grid for at least 100 ms on one thread, so starting the
		 * threads and the first touches weigh little against the work */
		double t0 = now_s();
		rc |= run(pm, "matmul", &bus, 1, N / 16, N / 16, 16, 16, args, 4, &out);
		double once = now_s() - t0;
		int reps = once >= 0.1 ? 1 : (int)(0.1 / once) + 1;
		double one = 1e30, two = 1e30, cpu_one = 0, cpu_two = 0;
		float *G2 = calloc(N * N, 4);
		for (int r = 0; r < 5 && G2; r++) {
			double c0 = cpu_s();
			t0 = now_s();
			for (int k = 0; k < reps; k++)
				rc |= run(pm, "matmul", &bus, 1, N / 16, N / 16, 16, 16, args, 4, &out);
			double t1 = now_s();
			cpu_one += cpu_s() - c0;
			cs_mem_read(mem, vc, G, N * N * 4, &f);
			/* zero the output: the next runs must write all of it again */
			memset(G2, 0, N * N * 4);
			cs_mem_write(mem, vc, G2, N * N * 4, &f);
			double c2 = cpu_s(), t2 = now_s();
			for (int k = 0; k < reps; k++)
				rc |= run(pm, "matmul", &bus, 2, N / 16, N / 16, 16, 16, args, 4, &out);
			double t3 = now_s();
			cpu_two += cpu_s() - c2;
			one = t1 - t0 < one ? t1 - t0 : one;
			two = t3 - t2 < two ? t3 - t2 : two;
			cs_mem_read(mem, vc, G2, N * N * 4, &f);
			if (memcmp(G, G2, N * N * 4)) {
				fprintf(stderr, "matmul: two threads computed other bytes than one\n");
				rc = 1;
			}
		}
		if (!G2)
			rc = 1;
		free(G2);
		fprintf(stderr, "matmul256 x%d on 1 thread %.3f s, on 2 threads %.3f s (CPU time of 5 "
			"runs: %.3f s and %.3f s)\n", reps, one, two, cpu_one, cpu_two);
		printf("BENCH name=ptx.threads2 value=%.3f unit=s baseline=ptx.threads1 ratio=%.2f\n",
		       two, one / two);
		free(A);
		free(B);
		free(C);
		free(G);
	}
	cs_mem_free(mem);
	cs_ptx_program_free(pv);
	cs_ptx_program_free(pm);
	return rc;
}
