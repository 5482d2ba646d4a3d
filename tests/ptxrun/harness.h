/* SPDX-License-Identifier: MIT */
/* Test harness for the ptxrun suite: the suites' shared bus (tests/common: a
 * memory, the trace recorder), PTX loading and kernel launches with packed
 * parameters. */
#ifndef CS_TEST_PTX_HARNESS_H
#define CS_TEST_PTX_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "source.h"
#include "chainsim/ptx.h"

typedef struct h_env {
	test_bus tb; /* memory, clock and the records (tb.trace) */
	/* what h_run launches with (h_init: single precision, no race detector,
	 * warps in order) */
	cs_ptx_approx approx;
	cs_ptx_races races;
	bool races_global;
	cs_ptx_schedule schedule;
	uint64_t schedule_seed;
	/* host threads; 0: h_run runs on 4, 2 and 1 and asserts the same results */
	unsigned threads;
	/* a cooperative launch with this grid workspace (h_init: neither) */
	bool cooperative;
	uint64_t grid_workspace;
} h_env;

void h_init(h_env *e);
void h_fini(h_env *e);
/* Maps a fresh region and returns its VA. */
uint64_t h_alloc(h_env *e, uint64_t size);
void h_write(h_env *e, uint64_t va, const void *src, size_t len);
void h_read(h_env *e, uint64_t va, void *dst, size_t len);

/* Parses PTX text; on failure prints the diagnostic and returns NULL. */
cs_ptx_program *h_parse(const char *text, cs_diag *d);
/* Parses fixtures/kernels/out/<kernel>.<arch>.ptx; asserts it reads and parses. */
cs_ptx_program *h_load_fixture(const char *kernel, const char *arch);
/* Expects the n floats at va to equal want exactly; what names them. */
void h_expect_f32(h_env *e, uint64_t va, const float *want, size_t n, const char *what);
/* A fresh region holding a copy of src; its VA. */
uint64_t h_put(h_env *e, const void *src, size_t bytes);
/* The next of a fixed pseudo-random sequence in [-1, 1), steps of 1/32768. */
float h_frand(uint32_t *state);

/* Runs entry `name` with grid/block and parameters packed per the entry's
 * layout from `args` (one uint64_t per parameter, truncated to its size). */
cs_grid_result h_run(h_env *e, const cs_ptx_program *p, const char *name, const uint32_t grid[3],
		     const uint32_t block[3], uint32_t dyn_shared, const uint64_t *args, size_t nargs);

/* A one-entry kernel named k built around a body, with params
 * (.u64 out, .u64 in, .u32 n) and registers declared generously. */
char *h_kernel(const char *decls, const char *body);
/* h_kernel(decls, body) parsed; asserts it parses. */
cs_ptx_program *h_parse_kernel(const char *decls, const char *body);



/* Builds h_kernel(decls, body), runs one CTA of `threads` threads with the input
 * buffer holding in (in_bytes) and a zeroed output buffer of out_bytes, copies
 * the output back. Asserts the kernel parses. */
cs_grid_result h_run_body(const char *decls, const char *body, uint32_t threads, const void *in,
			  size_t in_bytes, void *out, size_t out_bytes);

/* Runs `ops` per thread t with %r3 = a[t], %r4 = b[t] (%rd8/%rd9 in the 64-bit
 * form), storing %r5 (%rd10) into out[t]. n <= 256. */
void h_pairs32(const char *ops, const uint32_t *a, const uint32_t *b, uint32_t *out, size_t n);
void h_pairs64(const char *ops, const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n);
/* Half-type references independent of the executor's conversions: the host
 * compiler's IEEE binary16, and bfloat16 as an f32's high half rounded to
 * nearest even. _bits give the encoding, _round the value it stands for. */
uint16_t h_f16_bits(float x);
float h_f16_round(float x);
float h_f16_value(uint16_t bits);
uint16_t h_bf16_bits(float x);
float h_bf16_round(float x);
float h_bf16_value(uint16_t bits);
float h_f(uint32_t bits);
uint32_t h_b(float f);
double h_d(uint64_t bits);
uint64_t h_bd(double d);
#endif
