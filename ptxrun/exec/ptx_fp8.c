/* SPDX-License-Identifier: MIT */
/* The 8-bit floats of cvt (PTX ISA 8.x, sm_89 on): e4m3 (bias 7, no
 * infinity, NaN S.1111.111, largest 448) and e5m2 (bias 15, IEEE-like,
 * largest 57344). To them: round to nearest even, .satfinite (required):
 * |x| beyond the largest finite value, infinities included, gives that value
 * with x's sign; a NaN gives 0x7F, the value chainsim returns for NaN in both
 * (PTX says "canonical NaN" without the bits); .relu makes a negative 0. */
#include "ptx_int.h"

#include <math.h>

typedef struct fp8_format {
	int mbits, bias;
	float max;
	uint8_t max_code, nan_code;
} fp8_format;

static const fp8_format E4M3 = { 3, 7, 448.0f, 0x7e, 0x7f };
static const fp8_format E5M2 = { 2, 15, 57344.0f, 0x7b, 0x7f };

uint8_t ptx_f32_to_fp8(float f, bool e5m2, bool relu)
{
	const fp8_format *t = e5m2 ? &E5M2 : &E4M3;
	if (isnan(f))
		return t->nan_code;
	uint8_t sign = signbit(f) ? 0x80 : 0;
	if (relu && sign)
		return 0;
	double a = fabs((double)f);
	if (a >= t->max)
		return sign | t->max_code;
	int emin = 1 - t->bias;
	int e;
	frexp(a, &e); /* a = m * 2^e, m in [0.5, 1): its unit exponent is e - 1 */
	int q = (e - 1 < emin ? emin : e - 1) - t->mbits; /* the quantum's exponent */
	double r = nearbyint(ldexp(a, -q)); /* ties to even in the default mode */
	double v = ldexp(r, q);
	if (v >= t->max)
		return sign | t->max_code;
	if (v == 0)
		return sign;
	if (v < ldexp(1.0, emin)) /* subnormal: the mantissa counts quanta of 2^(emin-mbits) */
		return sign | (uint8_t)r;
	frexp(v, &e);
	int m = (int)(ldexp(v, t->mbits - (e - 1)) - ldexp(1.0, t->mbits));
	return sign | (uint8_t)(((e - 1 + t->bias) << t->mbits) | m);
}

float ptx_fp8_to_f32(uint8_t v, bool e5m2)
{
	const fp8_format *t = e5m2 ? &E5M2 : &E4M3;
	int exp = (v & 0x7f) >> t->mbits, man = v & ((1 << t->mbits) - 1);
	float s = (v & 0x80) ? -1.0f : 1.0f;
	int emax = (0x7f >> t->mbits);
	if (!e5m2 && exp == emax && man == (1 << t->mbits) - 1)
		return NAN;
	if (e5m2 && exp == emax)
		return man ? NAN : s * INFINITY;
	if (exp == 0)
		return s * (float)ldexp(man, 1 - t->bias - t->mbits);
	return s * (float)ldexp((1 << t->mbits) | man, exp - t->bias - t->mbits);
}
