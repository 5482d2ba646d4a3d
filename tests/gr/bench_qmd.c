/* SPDX-License-Identifier: MIT */
/* BENCH gr.qmd_read: QMD read + decode + stage 7 acceptance per second, per
 * version, against a plain 384-byte memcpy loop run in the same process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/gr.h"
#include "chainsim/mem.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { BATCH = 1024 };
static const double RUN_S = 0.3;

static double bench_memcpy(void)
{
	static uint8_t src[384], dst[384];
	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)i;
	volatile uint8_t sink = 0;
	uint64_t n = 0;
	double t0 = now_s(), t;
	do {
		for (unsigned i = 0; i < BATCH; i++) {
			src[i % sizeof(src)] ^= 1; /* defeat hoisting the copy out of the loop */
			memcpy(dst, src, sizeof(dst));
			sink ^= dst[i % sizeof(dst)];
		}
		n += BATCH;
		t = now_s() - t0;
	} while (t < RUN_S);
	(void)sink;
	return (double)n / t;
}

static double bench_qmd(unsigned major, uint32_t cls, unsigned *accepted)
{
	cs_diag d;
	cs_mem *mem = cs_mem_new(57);
	if (!cs_mem_map(mem, "all", 0x200000000ull, 0x10000, &d))
		abort();
	cs_mem_port port = cs_mem_port_of(mem);
	cs_qmd q;
	if (!cs_qmd_init(&q, major, &d) || !cs_qmd_set_key_text(&q, "program", "0x200001000", &d) ||
	    !cs_qmd_set_key_text(&q, "grid", "128,2", &d) ||
	    !cs_qmd_set_key_text(&q, "block", "256", &d) ||
	    !cs_qmd_set_key_text(&q, "cbank0", "0x200002000,0x300", &d) ||
	    !cs_qmd_set_key_text(&q, "release0", "0x200003000,1,4", &d)) {
		fprintf(stderr, "bench setup: %s\n", d.msg);
		abort();
	}
	uint64_t f;
	cs_mem_write(mem, 0x200000000ull, q.dw, q.layout->bytes, &f);
	uint64_t n = 0;
	unsigned ok = 0;
	char why[256];
	double t0 = now_s(), t;
	do {
		for (unsigned i = 0; i < BATCH; i++) {
			cs_qmd r;
			cs_qmd_info in;
			if (!cs_qmd_read_mem(&r, major, &port, 0x200000000ull, &f))
				abort();
			cs_qmd_decode(&r, &in);
			ok += cs_qmd_check(&in, cls, &port, why, sizeof(why)) == CS_CAUSE_NONE;
		}
		n += BATCH;
		t = now_s() - t0;
	} while (t < RUN_S);
	cs_mem_free(mem);
	*accepted = ok == n;
	return (double)n / t;
}

int main(void)
{
	double base = bench_memcpy();
	printf("BENCH name=gr.qmd_read.baseline_memcpy384 value=%.0f unit=copies/s "
	       "baseline=memcpy384 ratio=1.000\n", base);
	static const struct { unsigned major; uint32_t cls; const char *name; } v[] = {
		{ 3, 0xC9C0, "v03_00" }, { 4, 0xCBC0, "v04_00" }, { 5, 0xCEC0, "v05_00" },
	};
	int rc = 0;
	for (size_t i = 0; i < 3; i++) {
		unsigned all_ok = 0;
		double r = bench_qmd(v[i].major, v[i].cls, &all_ok);
		if (!all_ok) {
			fprintf(stderr, "%s: the benchmark QMD was refused\n", v[i].name);
			rc = 1;
		}
		printf("BENCH name=gr.qmd_read.%s value=%.0f unit=qmd/s baseline=memcpy384 "
		       "ratio=%.4f\n", v[i].name, r, r / base);
	}
	return rc;
}
