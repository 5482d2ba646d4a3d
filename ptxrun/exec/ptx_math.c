/* SPDX-License-Identifier: MIT */
/* Half-precision conversions, round to nearest even (IEEE 754 binary16 and
 * bfloat16). */
#include "ptx_int.h"

#include <math.h>
#include <string.h>

float ptx_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31;
	uint32_t exp = (h >> 10) & 0x1f;
	uint32_t man = h & 0x3ff;
	uint32_t bits;
	if (exp == 0x1f) {
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp == 0) {
		if (man == 0) {
			bits = sign;
		} else {
			/* subnormal: value = man * 2^-24 */
			float f = (float)man * 0x1p-24f;
			memcpy(&bits, &f, 4);
			bits |= sign;
		}
	} else {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	}
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t ptx_float_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u) /* inf or nan */
		return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 | ((ax >> 13) & 0x3ff) : 0));
	if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
		return (uint16_t)(sign | 0x7c00);
	if (ax < 0x38800000u) {
		/* subnormal half (or zero): round ax * 2^24 to an integer, ties to even */
		float a;
		memcpy(&a, &ax, 4);
		float scaled = a * 0x1p24f; /* exact: a power-of-two scale */
		float r = nearbyintf(scaled);
		return (uint16_t)(sign | (uint16_t)r);
	}
	uint32_t man = ax & 0x7fffff;
	uint32_t exp = (ax >> 23) - 112;
	uint32_t h = (exp << 10) | (man >> 13);
	uint32_t rest = man & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

float ptx_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t ptx_float_to_bf16(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40);
	uint32_t lsb = (x >> 16) & 1;
	x += 0x7fff + lsb;
	return (uint16_t)(x >> 16);
}
