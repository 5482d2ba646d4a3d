/* SPDX-License-Identifier: MIT */
/* The acceptance battery (README's main job): guest clients run through the
 * whole chain on the simulator, their results checked against CPU references
 * computed here in C. `chainsim battery` (tools/cmd_battery.c) drives it. */
#ifndef CHAINSIM_TOOLS_BATTERY_H
#define CHAINSIM_TOOLS_BATTERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/arch.h"
#include "chainsim/run.h"

/* ---- CPU references (tools/battery/ref.c): pure functions, no device ---- */

/* c = a + b. */
void cs_battery_ref_vadd(const float *a, const float *b, float *c, size_t n);
/* C = A B (n x n, row-major), summed in k order with fmaf like the kernel. */
void cs_battery_ref_matmul(const float *a, const float *b, float *c, size_t n);
/* Per element, the sum of |a_ik b_kj| (the scale of a dot product's rounding). */
void cs_battery_ref_matmul_absdot(const float *a, const float *b, float *s, size_t n);
/* out = softmax(Q K^T scale) V for seq x dh, in double, rounded once. */
void cs_battery_ref_attention(const float *q, const float *k, const float *v, float *out,
			      size_t seq, size_t dh, float scale);
/* One FFN layer: y = x + gelu(x W1 + b1) W2 + b2, in the kernels' order
 * (fmaf, float), tanhf from libm. h is scratch of tokens x dff. */
void cs_battery_ref_ffn_layer(const float *x, const float *w1, const float *b1, const float *w2,
			      const float *b2, float *h, float *y, size_t tokens, size_t d,
			      size_t dff);
/* gelu, tanh form, as the fixture kernel writes it. */
float cs_battery_ref_gelu(float x);

/* Elements where |got - want| > abs_tol + rel_tol * scale (scale = |want|,
 * or scale[i] when given); NaN anywhere counts as bad. */
size_t cs_battery_count_bad(const float *got, const float *want, const float *scale, size_t n,
			    double abs_tol, double rel_tol);

/* ---- the driver (tools/battery/battery.c) ------------------------------ */

typedef struct cs_battery_opts {
	cs_arch arch;
	const char *dir;    /* fixtures/battery; NULL = find it */
	bool verbose;       /* tolerances, worst errors and chain details on stderr */
	const char *only;   /* run only the client whose label starts with this */
	cs_run_opts exec;   /* the executor's options each client runs with */
} cs_battery_opts;

/* Runs every client, prints one line each and the verdict to out; details and
 * errors to err. Returns the exit status: 0 STATUS OK, 1 STATUS FAIL, 2 usage. */
int cs_battery_run(const cs_battery_opts *o, FILE *out, FILE *err);

#endif
