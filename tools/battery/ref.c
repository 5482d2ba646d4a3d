/* SPDX-License-Identifier: MIT */
/* CPU references for the acceptance battery. Written from the CUDA sources in
 * fixtures/kernels/, not from the PTX: what the kernel means, not what it does. */
#include <math.h>

#include "battery.h"

void cs_battery_ref_vadd(const float *a, const float *b, float *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c[i] = a[i] + b[i];
}

void cs_battery_ref_matmul(const float *a, const float *b, float *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			float acc = 0.0f;
			for (size_t k = 0; k < n; k++)
				acc = fmaf(a[i * n + k], b[k * n + j], acc);
			c[i * n + j] = acc;
		}
}

void cs_battery_ref_matmul_absdot(const float *a, const float *b, float *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			double acc = 0.0;
			for (size_t k = 0; k < n; k++)
				acc += fabs((double)a[i * n + k] * (double)b[k * n + j]);
			s[i * n + j] = (float)acc;
		}
}

void cs_battery_ref_attention(const float *q, const float *k, const float *v, float *out,
			      size_t seq, size_t dh, float scale)
{
	double p[256];
	for (size_t i = 0; i < seq && seq <= 256; i++) {
		double m = -INFINITY, sum = 0.0;
		for (size_t j = 0; j < seq; j++) {
			double acc = 0.0;
			for (size_t d = 0; d < dh; d++)
				acc += (double)q[i * dh + d] * (double)k[j * dh + d];
			p[j] = acc * (double)scale;
			if (p[j] > m)
				m = p[j];
		}
		for (size_t j = 0; j < seq; j++) {
			p[j] = exp(p[j] - m);
			sum += p[j];
		}
		for (size_t d = 0; d < dh; d++) {
			double acc = 0.0;
			for (size_t j = 0; j < seq; j++)
				acc += p[j] / sum * (double)v[j * dh + d];
			out[i * dh + d] = (float)acc;
		}
	}
}

float cs_battery_ref_gelu(float x)
{
	return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

void cs_battery_ref_ffn_layer(const float *x, const float *w1, const float *b1, const float *w2,
			      const float *b2, float *h, float *y, size_t tokens, size_t d,
			      size_t dff)
{
	for (size_t t = 0; t < tokens; t++)
		for (size_t j = 0; j < dff; j++) {
			float acc = b1[j];
			for (size_t k = 0; k < d; k++)
				acc = fmaf(x[t * d + k], w1[k * dff + j], acc);
			h[t * dff + j] = cs_battery_ref_gelu(acc);
		}
	for (size_t t = 0; t < tokens; t++)
		for (size_t j = 0; j < d; j++) {
			float acc = b2[j];
			for (size_t k = 0; k < dff; k++)
				acc = fmaf(h[t * dff + k], w2[k * d + j], acc);
			y[t * d + j] = x[t * d + j] + acc;
		}
}

size_t cs_battery_count_bad(const float *got, const float *want, const float *scale, size_t n,
			    double abs_tol, double rel_tol)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		double g = got[i], w = want[i];
		double s = scale ? fabs((double)scale[i]) : fabs(w);
		if (isnan(g) || isnan(w) || !(fabs(g - w) <= abs_tol + rel_tol * s))
			bad++;
	}
	return bad;
}
