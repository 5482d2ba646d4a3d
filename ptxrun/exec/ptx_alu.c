/* SPDX-License-Identifier: MIT */
/* Per-lane semantics of the generic integer and float operations,
 * conversions and comparisons, as the PTX ISA defines them.
 *
 * Choices where PTX leaves the result machine-specific (modelled on what the
 * hardware's division sequence produces): integer division by zero gives all
 * ones (-1 signed), remainder by zero gives the dividend; INT_MIN / -1 gives
 * INT_MIN and INT_MIN % -1 gives 0. */
#include "ptx_alu.h"

#include <fenv.h>
#include <float.h>
#include <limits.h>
#include <math.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

static unsigned width(ptx_type t)
{
	return ptx_type_bytes(t) * 8;
}

static uint64_t wmask(unsigned w)
{
	return w >= 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
}

/* Value of a slot read as integer type t, sign- or zero-extended to 64 bits. */
static int64_t sx(uint64_t v, unsigned w)
{
	if (w >= 64)
		return (int64_t)v;
	uint64_t m = (uint64_t)1 << (w - 1);
	v &= wmask(w);
	return (int64_t)((v ^ m) - m);
}

uint64_t ptx_alu_norm(uint64_t v, ptx_type t)
{
	unsigned w = width(t);
	if (w >= 64 || w == 0)
		return v;
	if (ptx_type_signed(t) && w < 32)
		return (uint64_t)sx(v, w);
	return v & wmask(w);
}

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 s128;

static uint64_t mulhi_u64(uint64_t a, uint64_t b)
{
	return (uint64_t)(((u128)a * b) >> 64);
}

static uint64_t mulhi_s64(int64_t a, int64_t b)
{
	return (uint64_t)(((s128)a * b) >> 64);
}

static uint64_t brev(uint64_t v, unsigned w)
{
	uint64_t r = 0;
	for (unsigned i = 0; i < w; i++)
		r |= ((v >> i) & 1) << (w - 1 - i);
	return r;
}

static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
	uint64_t x = ((uint64_t)b << 32) | a;
	uint8_t byte[8];
	for (int i = 0; i < 8; i++)
		byte[i] = (uint8_t)(x >> (8 * i));
	uint32_t r = 0;
	if (mode == 0) {
		for (int i = 0; i < 4; i++) {
			unsigned sel = (c >> (4 * i)) & 0xf;
			uint8_t v = byte[sel & 7];
			if (sel & 8)
				v = (v & 0x80) ? 0xff : 0;
			r |= (uint32_t)v << (8 * i);
		}
		return r;
	}
	unsigned s = c & 3;
	static const uint8_t tab[6][4][4] = {
		/* f4e */ { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },
		/* b4e */ { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },
		/* rc8 */ { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },
		/* ecl */ { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },
		/* ecr */ { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },
		/* rc16 */ { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },
	};
	for (int i = 0; i < 4; i++)
		r |= (uint32_t)byte[tab[mode - 1][s][i]] << (8 * i);
	return r;
}

/* fns: the position of the |offset|-th set bit of mask counted from base
 * upward (offset > 0) or downward (offset < 0), base itself when offset is 0
 * and that bit is set; 0xffffffff when there is none. The PTX ISA leaves a
 * base above 31 undefined: chainsim finds no bit there (0xffffffff). */
static uint32_t fns(uint32_t mask, uint32_t base, int32_t offset)
{
	if (base > 31)
		return 0xffffffffu;
	if (offset == 0)
		return (mask >> base) & 1 ? base : 0xffffffffu;
	int step = offset > 0 ? 1 : -1;
	uint32_t left = offset > 0 ? (uint32_t)offset : 0u - (uint32_t)offset;
	for (int pos = (int)base; pos >= 0 && pos < 32; pos += step)
		if ((mask >> pos) & 1 && --left == 0)
			return (uint32_t)pos;
	return 0xffffffffu;
}

/* lop3: bit i of the result is bit (a_i b_i c_i, read as a 3-bit number) of
 * the truth table lut. */
static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, uint8_t lut)
{
	uint32_t r = 0;
	for (unsigned k = 0; k < 8; k++) {
		if (!((lut >> k) & 1))
			continue;
		r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
	}
	return r;
}

/* Element i of width bits of v, sign- or zero-extended. */
static int64_t elem(uint32_t v, unsigned i, unsigned bits, bool sgn)
{
	uint32_t x = (v >> (i * bits)) & (uint32_t)wmask(bits);
	return sgn ? sx(x, bits) : (int64_t)x;
}

/* dp4a: c plus the four byte products; dp2a: c plus a's two halfwords times
 * b's low (.lo) or high (.hi) two bytes. 32-bit wrapping sums. */
static uint32_t dot_product(const ptx_ins *in, uint32_t a, uint32_t b, uint32_t c)
{
	bool as = in->aux2 & DP_A_SIGNED, bs = in->aux2 & DP_B_SIGNED;
	uint64_t d = c;
	if (in->aux == IO_DP4A) {
		for (unsigned i = 0; i < 4; i++)
			d += (uint64_t)(elem(a, i, 8, as) * elem(b, i, 8, bs));
	} else {
		unsigned first = (in->aux2 & DP_HI) ? 2 : 0;
		for (unsigned i = 0; i < 2; i++)
			d += (uint64_t)(elem(a, i, 16, as) * elem(b, first + i, 8, bs));
	}
	return (uint32_t)d;
}

/* cvt.pack.sat: a and b (s32) clamped to the converted type, b in the low
 * field and a above it; below 16 bits the rest of d comes from c's low bits. */
static uint32_t cvt_pack(uint8_t form, uint32_t a, uint32_t b, uint32_t c)
{
	unsigned bits = form & CVP_WIDTH;
	int64_t lo = (form & CVP_SIGNED) ? -((int64_t)1 << (bits - 1)) : 0;
	int64_t hi = (form & CVP_SIGNED) ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
	int64_t ta = (int32_t)a, tb = (int32_t)b;
	ta = ta < lo ? lo : ta > hi ? hi : ta;
	tb = tb < lo ? lo : tb > hi ? hi : tb;
	uint32_t field = (uint32_t)wmask(bits);
	uint32_t d = ((uint32_t)tb & field) | (((uint32_t)ta & field) << bits);
	if (bits < 16)
		d |= c << (2 * bits);
	return d;
}

/* The high w bits of the 2w-bit product of a and b (sa, sb sign-extended;
 * ua, ub zero-extended). */
static uint64_t mul_hi(int64_t sa, int64_t sb, uint64_t ua, uint64_t ub, unsigned w, bool sgn)
{
	if (w == 64)
		return sgn ? mulhi_s64(sa, sb) : mulhi_u64(ua, ub);
	return sgn ? (uint64_t)((sa * sb) >> w) : (ua * ub) >> w;
}

/* bfe: len bits of the w-bit a from pos, the rest of the result the sign bit
 * of the field (sgn) or 0; positions past w read as that bit too. */
static uint64_t bfe(uint64_t ua, unsigned pos, unsigned len, unsigned w, bool sgn)
{
	uint64_t v = 0;
	unsigned msb = pos + len - 1 < w - 1 ? pos + len - 1 : w - 1;
	bool sbit = sgn ? (len == 0 ? false : ((ua >> msb) & 1)) : false;
	for (unsigned i = 0; i < w; i++) {
		uint64_t bit;
		if (i < len && pos + i <= w - 1)
			bit = (ua >> (pos + i)) & 1;
		else
			bit = sbit;
		v |= bit << i;
	}
	return v;
}

/* bfi: the low len bits of a into b at pos (bits past w dropped). */
static uint64_t bfi(uint64_t ua, uint64_t ub, unsigned pos, unsigned len, unsigned w)
{
	uint64_t v = ub;
	for (unsigned i = 0; i < len && pos + i < w; i++)
		v = (v & ~((uint64_t)1 << (pos + i))) | (((ua >> i) & 1) << (pos + i));
	return v;
}

/* The PTX ISA's bmsk: width b from position a, 0 past bit 31. */
static uint64_t bmsk(uint32_t a, uint32_t b, bool clamp)
{
	uint32_t a1 = a & 31, b1 = b & 31;
	uint64_t mask0 = (0xffffffffull << a1) & 0xffffffffu;
	if (clamp && a >= 32)
		mask0 = 0;
	bool over = a1 + b1 >= 32 || (clamp && (a >= 32 || b >= 32));
	uint64_t mask1 = over ? 0 : b1 == 0 ? 0xffffffffu : (0xffffffffull << (a1 + b1)) & 0xffffffffu;
	return mask0 & ~mask1 & 0xffffffffu;
}

/* szext: the low b bits of a, sign- (sgn) or zero-extended; b 0 gives 0. */
static uint32_t szext(uint32_t a, uint32_t b, bool clamp, bool sgn)
{
	uint32_t b1 = b & 31;
	bool too_large = clamp && b >= 32;
	uint32_t mask = too_large ? 0 : 0xffffffffu << b1;
	bool sign = b1 != 0 && !too_large && sgn && ((a >> ((b1 - 1) & 31)) & 1);
	return (a & ~mask) | (sign ? mask : 0);
}

uint64_t ptx_alu_int(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
	ptx_type t = (ptx_type)in->t1;
	unsigned w = width(t);
	bool sgn = ptx_type_signed(t);
	uint64_t m = wmask(w);
	int64_t sa = sx(a, w), sb = sx(b, w), sc = sx(c, w);
	uint64_t ua = a & m, ub = b & m, uc = c & m;
	uint64_t r = 0;
	switch (in->aux) {
	case IO_ADD: r = ua + ub; break;
	case IO_SUB: r = ua - ub; break;
	case IO_ADDSAT:
	case IO_SUBSAT: {
		int64_t v = in->aux == IO_ADDSAT ? sa + sb : sa - sb; /* s32 only */
		if (w != 32)
			r = in->aux == IO_ADDSAT ? ua + ub : ua - ub;
		else
			r = (uint64_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
		break;
	}
	case IO_MULLO: r = ua * ub; break;
	case IO_MULHI: r = mul_hi(sa, sb, ua, ub, w, sgn); break;
	case IO_MULWIDE:
		r = sgn ? (uint64_t)(sa * sb) : ua * ub;
		return ptx_alu_norm(r, w == 16 ? (sgn ? T_S32 : T_U32) : T_U64);
	case IO_MADLO: r = ua * ub + uc; break;
	case IO_MADHI: {
		uint64_t hi = mul_hi(sa, sb, ua, ub, w, sgn);
		if (in->flags & F_SAT) {
			int64_t v = sx(hi, w) + sc;
			r = (uint64_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
		} else {
			r = hi + uc;
		}
		break;
	}
	case IO_MADWIDE: {
		uint64_t p = sgn ? (uint64_t)(sa * sb) : ua * ub;
		return ptx_alu_norm(p + c, w == 16 ? (sgn ? T_S32 : T_U32) : T_U64);
	}
	case IO_DIV:
		if (ub == 0)
			r = m;
		else if (sgn && sb == -1)
			r = (uint64_t)0 - ua; /* INT_MIN / -1 wraps to INT_MIN */
		else
			r = sgn ? (uint64_t)(sa / sb) : ua / ub;
		break;
	case IO_REM:
		if (ub == 0)
			r = ua;
		else if (sgn && sb == -1)
			r = 0;
		else
			r = sgn ? (uint64_t)(sa % sb) : ua % ub;
		break;
	case IO_ABS: r = sa < 0 ? (uint64_t)0 - (uint64_t)sa : (uint64_t)sa; break;
	case IO_NEG: r = (uint64_t)0 - ua; break;
	case IO_MIN: r = sgn ? (uint64_t)(sa < sb ? sa : sb) : (ua < ub ? ua : ub); break;
	case IO_MAX: r = sgn ? (uint64_t)(sa > sb ? sa : sb) : (ua > ub ? ua : ub); break;
	case IO_POPC: return (uint64_t)__builtin_popcountll(ua);
	case IO_CLZ: return ua ? (uint64_t)(__builtin_clzll(ua) - (64 - (int)w)) : w;
	case IO_BREV: r = brev(ua, w); break;
	case IO_BFIND: {
		/* position of the most significant non-sign bit; 0xffffffff if none */
		uint64_t v = sgn && sa < 0 ? ~ua & m : ua;
		if (v == 0)
			return 0xffffffffu;
		unsigned pos = 63u - (unsigned)__builtin_clzll(v);
		return (in->flags & F_HI) ? (uint64_t)(w - 1 - pos) : pos;
	}
	case IO_BFE: r = bfe(ua, (unsigned)(b & 0xff), (unsigned)(c & 0xff), w, sgn); break;
	case IO_BFI: r = bfi(ua, ub, (unsigned)(c & 0xff), (unsigned)(e & 0xff), w); break;
	case IO_PRMT:
		return prmt((uint32_t)a, (uint32_t)b, (uint32_t)c, in->aux2);
	case IO_SHF: {
		/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: {b:a} shifted by c, the
		 * high word (left) or the low word (right) */
		uint32_t n = (uint32_t)c;
		n = (in->aux2 & SHF_CLAMP) ? (n > 32 ? 32 : n) : (n & 31);
		uint64_t pair = ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
		return (in->aux2 & SHF_RIGHT) ? (uint32_t)(pair >> n) : (uint32_t)((pair << n) >> 32);
	}
	case IO_MUL24:
	case IO_MAD24: {
		/* the low 24 bits of each (sign-extended for .s32): a 48-bit product */
		int64_t p = sgn ? sx(a, 24) * sx(b, 24) : (int64_t)((a & 0xffffff) * (b & 0xffffff));
		r = (in->flags & F_HI) ? (uint64_t)(p >> 16) : (uint64_t)p;
		if (in->aux == IO_MAD24)
			r += uc;
		break;
	}
	case IO_SHL: {
		uint32_t n = (uint32_t)b;
		r = n >= w ? 0 : ua << n;
		break;
	}
	case IO_SHR: {
		uint32_t n = (uint32_t)b;
		if (sgn)
			r = (uint64_t)(sa >> (n >= w ? w - 1 : n));
		else
			r = n >= w ? 0 : ua >> n;
		break;
	}
	case IO_AND: r = ua & ub; break;
	case IO_OR: r = ua | ub; break;
	case IO_XOR: r = ua ^ ub; break;
	case IO_NOT: r = ~ua; break;
	case IO_CNOT: r = ua == 0 ? 1 : 0; break;
	case IO_BMSK: return bmsk((uint32_t)ua, (uint32_t)ub, in->aux2 == 1);
	case IO_SZEXT: return ptx_alu_norm(szext((uint32_t)ua, (uint32_t)ub, in->aux2 == 1, sgn), t);
	case IO_FNS: return fns((uint32_t)a, (uint32_t)b, (int32_t)(uint32_t)c);
	case IO_LOP3: return lop3((uint32_t)a, (uint32_t)b, (uint32_t)c, in->aux2);
	case IO_DP4A:
	case IO_DP2A: return dot_product(in, (uint32_t)a, (uint32_t)b, (uint32_t)c);
	case IO_CVT_PACK: return cvt_pack(in->aux2, (uint32_t)a, (uint32_t)b, (uint32_t)c);
	case IO_SAD: r = (sgn ? (uint64_t)(sa > sb ? sa - sb : sb - sa) : (ua > ub ? ua - ub : ub - ua)) + uc; break;
	default: r = 0;
	}
	return ptx_alu_norm(r & m, t);
}

/* ---- floats ---------------------------------------------------------------- */

static float ftz32(float f)
{
	if (fpclassify(f) == FP_SUBNORMAL)
		return copysignf(0.0f, f);
	return f;
}

static float sat32(float f)
{
	if (isnan(f))
		return 0.0f;
	return f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f;
}

static double sat64(double f)
{
	if (isnan(f))
		return 0.0;
	return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

/* PTX min/max: a NaN operand yields the other; -0 < +0. */
static double fmin_ptx(double a, double b, bool nan_prop)
{
	if (isnan(a) || isnan(b)) {
		if (nan_prop || (isnan(a) && isnan(b)))
			return NAN;
		return isnan(a) ? b : a;
	}
	if (a == b)
		return signbit(a) ? a : b;
	return a < b ? a : b;
}

static double fmax_ptx(double a, double b, bool nan_prop)
{
	if (isnan(a) || isnan(b)) {
		if (nan_prop || (isnan(a) && isnan(b)))
			return NAN;
		return isnan(a) ? b : a;
	}
	if (a == b)
		return signbit(a) ? b : a;
	return a > b ? a : b;
}

int ptx_alu_fenv_mode(const ptx_ins *in)
{
	/* only the rounded arithmetic takes a mode (aux2 means other things for
	 * min/max and testp) */
	if (in->aux != FO_ADD && in->aux != FO_SUB && in->aux != FO_MUL && in->aux != FO_FMA &&
	    in->aux != FO_DIV && in->aux != FO_RCP && in->aux != FO_SQRT)
		return -1;
	switch (in->aux2) {
	case RND_RZ: return FE_TOWARDZERO;
	case RND_RM: return FE_DOWNWARD;
	case RND_RP: return FE_UPWARD;
	default: return -1;
	}
}

static uint64_t flt32(const ptx_ins *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
	bool ftz = in->flags & F_FTZ;
	float a = ptx_f32(ra), b = ptx_f32(rb), c = ptx_f32(rc);
	if (ftz) {
		a = ftz32(a);
		b = ftz32(b);
		c = ftz32(c);
	}
	float r;
	switch (in->aux) {
	case FO_ADD: r = a + b; break;
	case FO_SUB: r = a - b; break;
	case FO_MUL: r = a * b; break;
	case FO_FMA: r = fmaf(a, b, c); break;
	/* The approximate forms are evaluated in single precision (libm's float
	 * functions, within 1 ulp; tanhf within 2), inside every bound the PTX
	 * ISA states; ptx_alu_approx_edge gives the bound's edge instead. */
	case FO_DIV: r = a / b; break;
	case FO_RCP: r = 1.0f / a; break;
	case FO_SQRT: r = sqrtf(a); break;
	case FO_RSQRT: r = 1.0f / sqrtf(a); break;
	case FO_EX2: r = exp2f(a); break;
	case FO_LG2: r = log2f(a); break;
	case FO_SIN: r = sinf(a); break;
	case FO_COS: r = cosf(a); break;
	case FO_TANH: r = tanhf(a); break;
	case FO_MIN: r = (float)fmin_ptx(a, b, in->aux2 == 1); break;
	case FO_MAX: r = (float)fmax_ptx(a, b, in->aux2 == 1); break;
	case FO_ABS: r = fabsf(a); break;
	case FO_NEG: r = -a; break;
	case FO_COPYSIGN: r = copysignf(b, a); break;
	default: r = 0;
	}
	if (in->aux == FO_ABS || in->aux == FO_NEG || in->aux == FO_COPYSIGN)
		return ptx_bits32(ftz ? ftz32(r) : r); /* bit operations keep NaN payloads */
	if (isnan(r))
		return 0x7fffffffu; /* canonical NaN */
	if (in->flags & F_SAT)
		r = sat32(r);
	if (ftz)
		r = ftz32(r);
	return ptx_bits32(r);
}

static uint64_t flt64(const ptx_ins *in, uint64_t ra, uint64_t rb, uint64_t rc)
{
	double a = ptx_f64(ra), b = ptx_f64(rb), c = ptx_f64(rc);
	double r;
	switch (in->aux) {
	case FO_ADD: r = a + b; break;
	case FO_SUB: r = a - b; break;
	case FO_MUL: r = a * b; break;
	case FO_FMA: r = fma(a, b, c); break;
	case FO_DIV: r = a / b; break;
	case FO_RCP: r = 1.0 / a; break;
	case FO_SQRT: r = sqrt(a); break;
	case FO_RSQRT: r = 1.0 / sqrt(a); break;
	case FO_EX2: r = exp2(a); break;
	case FO_LG2: r = log2(a); break;
	case FO_SIN: r = sin(a); break;
	case FO_COS: r = cos(a); break;
	case FO_TANH: r = tanh(a); break;
	case FO_MIN: r = fmin_ptx(a, b, in->aux2 == 1); break;
	case FO_MAX: r = fmax_ptx(a, b, in->aux2 == 1); break;
	case FO_ABS: return ra & 0x7fffffffffffffffull;
	case FO_NEG: return ra ^ 0x8000000000000000ull;
	case FO_COPYSIGN: return (rb & 0x7fffffffffffffffull) | (ra & 0x8000000000000000ull);
	default: r = 0;
	}
	if (isnan(r))
		return 0x7fffffffffffffffull;
	if (in->flags & F_SAT)
		r = sat64(r);
	return ptx_bits64(r);
}

static bool testp(int m, double v, bool is32)
{
	switch (m) {
	case 0: return isfinite(v);
	case 1: return isinf(v);
	case 2: return !isnan(v);
	case 3: return isnan(v);
	case 4: return is32 ? isnormal((float)v) : isnormal(v);
	case 5: return is32 ? fpclassify((float)v) == FP_SUBNORMAL : fpclassify(v) == FP_SUBNORMAL;
	default: return false;
	}
}

uint64_t ptx_alu_flt(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c)
{
	ptx_type t = (ptx_type)in->t1;
	if (in->aux == FO_TESTP)
		return t == T_F32 ? testp(in->aux2, ptx_f32(a), true) : testp(in->aux2, ptx_f64(a), false);
	if (t == T_F32)
		return flt32(in, a, b, c);
	if (t == T_F64)
		return flt64(in, a, b, c);
	if (t == T_F16X2 || t == T_BF16X2) {
		/* each half on its own */
		ptx_ins h = *in;
		h.t1 = t == T_F16X2 ? T_F16 : T_BF16;
		uint64_t lo = ptx_alu_flt(&h, a & 0xffff, b & 0xffff, c & 0xffff);
		uint64_t hi = ptx_alu_flt(&h, (a >> 16) & 0xffff, (b >> 16) & 0xffff, (c >> 16) & 0xffff);
		return (hi << 16) | lo;
	}
	/* f16 / bf16: computed in f32, rounded once to the half type (exact for
	 * add, sub and mul: their f32 result is exact or already rounded beyond any
	 * half midpoint; fma may round twice) */
	bool h = t == T_F16;
	float fa = h ? ptx_half_to_float((uint16_t)a) : ptx_bf16_to_float((uint16_t)a);
	float fb = h ? ptx_half_to_float((uint16_t)b) : ptx_bf16_to_float((uint16_t)b);
	float fc = h ? ptx_half_to_float((uint16_t)c) : ptx_bf16_to_float((uint16_t)c);
	ptx_ins tmp = *in;
	tmp.t1 = T_F32;
	tmp.flags &= (uint16_t)~F_FTZ;
	float r = ptx_f32(flt32(&tmp, ptx_bits32(fa), ptx_bits32(fb), ptx_bits32(fc)));
	return h ? ptx_float_to_half(r) : ptx_float_to_bf16(r);
}

/* ---- conversions ----------------------------------------------------------- */

static double to_double(uint64_t v, ptx_type t)
{
	switch (t) {
	case T_F32: return ptx_f32(v);
	case T_F64: return ptx_f64(v);
	case T_F16: return ptx_half_to_float((uint16_t)v);
	case T_BF16: return ptx_bf16_to_float((uint16_t)v);
	default: return 0;
	}
}

static double round_int(double x, int rnd)
{
	switch (rnd) {
	case RND_RNI: case RND_RN: return nearbyint(x);
	case RND_RMI: case RND_RM: return floor(x);
	case RND_RPI: case RND_RP: return ceil(x);
	case RND_RNA: return round(x);
	default: return trunc(x);
	}
}

/* f64 (or exact long double) -> f32 with a directed rounding mode. */
static float narrow_f32(long double x, int rnd)
{
	float f = (float)x; /* round to nearest */
	if (isnan(f) || (long double)f == x)
		return f;
	switch (rnd) {
	case RND_RZ:
		if (fabsl((long double)f) > fabsl(x))
			f = nextafterf(f, 0.0f);
		break;
	case RND_RM:
		if ((long double)f > x)
			f = nextafterf(f, -INFINITY);
		break;
	case RND_RP:
		if ((long double)f < x)
			f = nextafterf(f, INFINITY);
		break;
	default:
		break;
	}
	return f;
}

static double narrow_f64(long double x, int rnd)
{
	double f = (double)x;
	if (isnan(f) || (long double)f == x)
		return f;
	switch (rnd) {
	case RND_RZ:
		if (fabsl((long double)f) > fabsl(x))
			f = nextafter(f, 0.0);
		break;
	case RND_RM:
		if ((long double)f > x)
			f = nextafter(f, -INFINITY);
		break;
	case RND_RP:
		if ((long double)f < x)
			f = nextafter(f, INFINITY);
		break;
	default:
		break;
	}
	return f;
}

uint64_t ptx_alu_cvt(const ptx_ins *in, uint64_t a)
{
	ptx_type dt = (ptx_type)in->t1, st = (ptx_type)in->t2;
	bool df = ptx_type_float(dt), sf = ptx_type_float(st);
	bool ftz = in->flags & F_FTZ, sat = in->flags & F_SAT;
	int rnd = in->aux2;
	if (!df && !sf) {
		/* integer -> integer: extend per source, then clamp (.sat) or wrap */
		unsigned sw = width(st), dw = width(dt);
		int64_t sv = ptx_type_signed(st) ? sx(a, sw) : (int64_t)(a & wmask(sw));
		bool uns_src_big = !ptx_type_signed(st) && sw == 64 && (a >> 63);
		if (sat) {
			if (ptx_type_signed(dt)) {
				int64_t hi = dw >= 64 ? INT64_MAX : (int64_t)(wmask(dw - 1));
				int64_t lo = -hi - 1;
				if (uns_src_big)
					sv = hi;
				else
					sv = sv > hi ? hi : sv < lo ? lo : sv;
			} else {
				uint64_t hi = wmask(dw);
				if (sv < 0 && !uns_src_big)
					sv = 0;
				else if (!uns_src_big && (uint64_t)sv > hi)
					sv = (int64_t)hi;
				else if (uns_src_big && dw < 64)
					sv = (int64_t)hi;
			}
		}
		return ptx_alu_norm((uint64_t)sv, dt);
	}
	if (!df && sf) {
		/* float -> integer: round, clamp to the range, NaN -> 0 */
		double x = to_double(a, st);
		if (ftz && st == T_F32 && fpclassify((float)x) == FP_SUBNORMAL)
			x = 0;
		if (isnan(x))
			return 0;
		x = round_int(x, rnd);
		unsigned dw = width(dt);
		if (ptx_type_signed(dt)) {
			double hi = ldexp(1.0, (int)dw - 1);
			int64_t v;
			if (x >= hi)
				v = dw >= 64 ? INT64_MAX : (int64_t)wmask(dw - 1);
			else if (x < -hi)
				v = dw >= 64 ? INT64_MIN : -(int64_t)wmask(dw - 1) - 1;
			else
				v = (int64_t)x;
			return ptx_alu_norm((uint64_t)v, dt);
		}
		double hi = ldexp(1.0, (int)dw);
		uint64_t v;
		if (x <= 0)
			v = 0;
		else if (x >= hi)
			v = wmask(dw);
		else
			v = (uint64_t)x;
		return ptx_alu_norm(v, dt);
	}
	if (df && !sf) {
		/* integer -> float: exact in long double (64-bit mantissa), then rounded */
		unsigned sw = width(st);
		long double x = ptx_type_signed(st) ? (long double)sx(a, sw)
						    : (long double)(a & wmask(sw));
		int r = rnd == RND_NONE ? RND_RN : rnd;
		uint64_t out;
		if (dt == T_F64) {
			double f = narrow_f64(x, r);
			if (sat)
				f = sat64(f);
			out = ptx_bits64(f);
		} else {
			float f = narrow_f32(x, r);
			if (sat)
				f = sat32(f);
			if (dt == T_F32)
				out = ptx_bits32(f);
			else
				out = dt == T_F16 ? ptx_float_to_half(f) : ptx_float_to_bf16(f);
		}
		return out;
	}
	/* float -> float */
	double x = to_double(a, st);
	if (ftz && st == T_F32 && fpclassify((float)x) == FP_SUBNORMAL)
		x = copysign(0.0, x);
	if (rnd >= RND_RNI && rnd <= RND_RPI)
		x = round_int(x, rnd);
	if (dt == T_F64) {
		if (sat)
			x = sat64(x); /* .sat also turns NaN into +0 */
		if (isnan(x))
			return 0x7fffffffffffffffull;
		return ptx_bits64(x);
	}
	if (dt == T_F32) {
		float f;
		if (sat && isnan(x))
			return 0;
		if (isnan(x))
			return 0x7fffffffu;
		if (st == T_F64 && rnd != RND_NONE && rnd < RND_RNI)
			f = narrow_f32((long double)x, rnd);
		else
			f = (float)x;
		if (sat)
			f = sat32(f);
		if (ftz)
			f = ftz32(f);
		return ptx_bits32(f);
	}
	float f = (float)x;
	if (sat)
		f = sat32(f);
	return dt == T_F16 ? ptx_float_to_half(f) : ptx_float_to_bf16(f);
}

/* ---- comparisons ----------------------------------------------------------- */

bool ptx_alu_cmp(int cmp, ptx_type t, bool ftz, uint64_t a, uint64_t b)
{
	if (ptx_type_float(t)) {
		double x, y;
		if (t == T_F32) {
			float fa = ptx_f32(a), fb = ptx_f32(b);
			if (ftz) {
				fa = ftz32(fa);
				fb = ftz32(fb);
			}
			x = fa;
			y = fb;
		} else {
			x = to_double(a, t);
			y = to_double(b, t);
		}
		bool un = isnan(x) || isnan(y);
		switch (cmp) {
		case CMP_EQ: return !un && x == y;
		case CMP_NE: return !un && x != y;
		case CMP_LT: return !un && x < y;
		case CMP_LE: return !un && x <= y;
		case CMP_GT: return !un && x > y;
		case CMP_GE: return !un && x >= y;
		case CMP_EQU: return un || x == y;
		case CMP_NEU: return un || x != y;
		case CMP_LTU: return un || x < y;
		case CMP_LEU: return un || x <= y;
		case CMP_GTU: return un || x > y;
		case CMP_GEU: return un || x >= y;
		case CMP_NUM: return !un;
		case CMP_NAN: return un;
		default: return false;
		}
	}
	unsigned w = width(t);
	int64_t sa = sx(a, w), sb = sx(b, w);
	uint64_t ua = a & wmask(w), ub = b & wmask(w);
	bool s = ptx_type_signed(t);
	switch (cmp) {
	case CMP_EQ: return ua == ub;
	case CMP_NE: return ua != ub;
	case CMP_LT: return s ? sa < sb : ua < ub;
	case CMP_LE: return s ? sa <= sb : ua <= ub;
	case CMP_GT: return s ? sa > sb : ua > ub;
	case CMP_GE: return s ? sa >= sb : ua >= ub;
	case CMP_LO: return ua < ub;
	case CMP_LS: return ua <= ub;
	case CMP_HI: return ua > ub;
	case CMP_HS: return ua >= ub;
	default: return false;
	}
}

uint64_t ptx_alu_carry(const ptx_ins *in, uint64_t a, uint64_t b, uint64_t c, unsigned cin,
		       unsigned *cout)
{
	ptx_type t = (ptx_type)in->t1;
	unsigned w = width(t);
	uint64_t m = wmask(w);
	uint64_t ua = a & m, ub = b & m, uc = c & m;
	u128 sum;
	switch (in->aux) {
	case CA_SUB: {
		/* the flag is a borrow: a - (b + cin) below zero */
		u128 sub = (u128)ub + cin;
		*cout = (u128)ua < sub;
		return (uint64_t)((u128)ua - sub) & m;
	}
	case CA_MADLO:
		sum = (u128)((ua * ub) & m) + uc + cin;
		break;
	case CA_MADHI: {
		uint64_t hi;
		if (w == 64)
			hi = ptx_type_signed(t) ? mulhi_s64((int64_t)ua, (int64_t)ub) : mulhi_u64(ua, ub);
		else
			hi = ptx_type_signed(t) ? (uint64_t)((sx(ua, w) * sx(ub, w)) >> w) : (ua * ub) >> w;
		sum = (u128)(hi & m) + uc + cin;
		break;
	}
	default:
		sum = (u128)ua + ub + cin;
		break;
	}
	*cout = (unsigned)((sum >> w) & 1);
	return (uint64_t)sum & m;
}

bool ptx_alu_is_approx(const ptx_ins *in)
{
	if (in->op != OP_FLT || in->t1 != T_F32)
		return false;
	switch (in->aux) {
	case FO_EX2: case FO_LG2: case FO_SIN: case FO_COS: case FO_TANH: case FO_RSQRT:
		return true;
	case FO_DIV: case FO_RCP: case FO_SQRT:
		return in->flags & F_APPROX;
	default:
		return false;
	}
}

/* The largest error the PTX ISA allows an approximate f32 result whose exact
 * value is exact (input a): ex2 2 ulp; lg2 2^-22 absolute (relative where
 * |result| > 1); sin and cos 2^-20.5 absolute for |a| <= 2 pi, 2^-14.7 beyond
 * (the ISA states it to 100 pi; the model keeps it past that); tanh 2^-11
 * relative; rsqrt 2^-22.9 relative; sqrt.approx 2^-23 relative; rcp.approx
 * 1 ulp; div.approx and div.full 2 ulp. */
static double approx_bound(const ptx_ins *in, double a, double exact)
{
	const double two_pi = 6.283185307179586;
	/* one ulp of the f32 result (subnormals: the smallest step) */
	double ulp = ldexp(1.0, ilogb(exact) - 23 < -149 ? -149 : ilogb(exact) - 23);
	switch (in->aux) {
	case FO_EX2: return 2 * ulp;
	case FO_LG2: return exp2(-22.0) * fmax(1.0, fabs(exact));
	case FO_SIN:
	case FO_COS: return fabs(a) <= two_pi ? exp2(-20.5) : exp2(-14.7);
	case FO_TANH: return exp2(-11.0) * fabs(exact);
	case FO_RSQRT: return exp2(-22.9) * fabs(exact);
	case FO_SQRT: return exp2(-23.0) * fabs(exact);
	case FO_RCP: return ulp;
	default: return 2 * ulp; /* FO_DIV */
	}
}

uint64_t ptx_alu_approx_edge(const ptx_ins *in, uint64_t ra, uint64_t rb)
{
	bool ftz = in->flags & F_FTZ;
	float fa = ptx_f32(ra), fb = ptx_f32(rb);
	if (ftz) {
		fa = ftz32(fa);
		fb = ftz32(fb);
	}
	double a = fa, b = fb, exact;
	switch (in->aux) {
	case FO_EX2: exact = exp2(a); break;
	case FO_LG2: exact = log2(a); break;
	case FO_SIN: exact = sin(a); break;
	case FO_COS: exact = cos(a); break;
	case FO_TANH: exact = tanh(a); break;
	case FO_RSQRT: exact = 1.0 / sqrt(a); break;
	case FO_SQRT: exact = sqrt(a); break;
	case FO_RCP: exact = 1.0 / a; break;
	default: exact = a / b; break;
	}
	/* zeros, infinities and NaNs keep their exact value: the bounds speak
	 * of finite results */
	if (!isfinite(exact) || exact == 0.0 || fabs(exact) > FLT_MAX)
		return flt32(in, ra, rb, 0);
	double bound = approx_bound(in, a, exact);
	/* away from zero, then back toward the exact value while the f32
	 * rounding overshoots the bound */
	float r = (float)(exact + copysign(bound, exact));
	while (fabs((double)r - exact) > bound)
		r = nextafterf(r, (float)exact);
	if (ftz)
		r = ftz32(r);
	return ptx_bits32(r);
}
