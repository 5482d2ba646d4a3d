/* SPDX-License-Identifier: MIT */
/* Mutation fuzzing of the parser (and of the executor on what still parses):
 * the committed PTX samples under byte flips, truncations, token swaps, line
 * deletions and duplications, with a fixed seed. Every input must come back
 * cleanly: a program, or NULL with a diagnostic that has a location. Run under
 * ASan/UBSan in CI. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t next(rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (uint32_t)(r->s >> 11);
}

static size_t pick(rng *r, size_t n)
{
	return n ? next(r) % n : 0;
}

/* A token: a maximal run of non-space bytes. */
static bool token_at(const char *s, size_t len, size_t from, size_t *b, size_t *e)
{
	size_t i = from;
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
		i++;
	if (i >= len)
		return false;
	size_t j = i;
	while (j < len && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n'))
		j++;
	*b = i;
	*e = j;
	return true;
}

static size_t mutate(rng *r, const char *src, size_t len, char *dst, size_t cap)
{
	memcpy(dst, src, len);
	size_t n = len;
	int kind = (int)pick(r, 6);
	switch (kind) {
	case 0: /* flip a few bytes */
		for (int k = 0, m = 1 + (int)pick(r, 4); k < m; k++)
			dst[pick(r, n)] ^= (char)(1u << pick(r, 8));
		break;
	case 1: /* truncate */
		n = pick(r, n + 1);
		break;
	case 2: { /* swap two tokens */
		size_t b1, e1, b2, e2;
		size_t p1 = pick(r, n), p2 = pick(r, n);
		if (p1 > p2) {
			size_t t = p1;
			p1 = p2;
			p2 = t;
		}
		if (!token_at(dst, n, p1, &b1, &e1) || !token_at(dst, n, p2, &b2, &e2) || b2 < e1)
			break;
		char *tmp = malloc(n);
		size_t o = 0;
		memcpy(tmp + o, dst, b1);
		o += b1;
		memcpy(tmp + o, dst + b2, e2 - b2);
		o += e2 - b2;
		memcpy(tmp + o, dst + e1, b2 - e1);
		o += b2 - e1;
		memcpy(tmp + o, dst + b1, e1 - b1);
		o += e1 - b1;
		memcpy(tmp + o, dst + e2, n - e2);
		o += n - e2;
		memcpy(dst, tmp, o);
		free(tmp);
		break;
	}
	case 3: { /* delete a line */
		size_t p = pick(r, n);
		size_t b = p, e = p;
		while (b > 0 && dst[b - 1] != '\n')
			b--;
		while (e < n && dst[e] != '\n')
			e++;
		memmove(dst + b, dst + e, n - e);
		n -= e - b;
		break;
	}
	case 4: { /* duplicate a line */
		size_t p = pick(r, n);
		size_t b = p, e = p;
		while (b > 0 && dst[b - 1] != '\n')
			b--;
		while (e < n && dst[e] != '\n')
			e++;
		if (e < n)
			e++;
		if (n + (e - b) > cap)
			break;
		memmove(dst + e + (e - b), dst + e, n - e);
		memcpy(dst + e, dst + b, e - b);
		n += e - b;
		break;
	}
	default: { /* insert punctuation or a digit */
		static const char ins[] = "{}()[];,.%@!|<>-+0123456789\"\n";
		if (n + 1 > cap)
			break;
		size_t p = pick(r, n + 1);
		memmove(dst + p + 1, dst + p, n - p);
		dst[p] = ins[pick(r, sizeof(ins) - 1)];
		n++;
		break;
	}
	}
	return n;
}

/* Runs every entry of a mutated program that still parses, on a small grid
 * with a small budget: it must finish with some outcome, never crash. */
static void try_run(const cs_ptx_program *p, h_env *e, uint64_t buf)
{
	for (size_t k = 0; k < cs_ptx_entry_count(p); k++) {
		uint8_t params[256];
		uint32_t pb = cs_ptx_param_bytes(p, k);
		if (pb > sizeof(params))
			continue;
		/* every 8-byte slot a pointer to the buffer, 4-byte slots a small n */
		memset(params, 0, sizeof(params));
		for (size_t i = 0; i < cs_ptx_param_count(p, k); i++) {
			cs_ptx_param pi;
			cs_ptx_param_info(p, k, i, &pi);
			uint64_t v = pi.size == 8 ? buf : 16;
			memcpy(params + pi.offset, &v, pi.size < 8 ? pi.size : 8);
		}
		cs_ptx_launch l;
		memset(&l, 0, sizeof(l));
		l.grid[0] = 2;
		l.grid[1] = l.grid[2] = 1;
		l.block[0] = 48;
		l.block[1] = l.block[2] = 1;
		l.dynamic_shared_bytes = 256;
		l.params = params;
		l.param_bytes = pb;
		l.max_thread_instructions = 200000;
		cs_grid_result r;
		cs_ptx_run(p, k, &l, &e->tb.bus, &r);
		cr_assert(r.outcome == CS_GRID_EXECUTED || r.outcome == CS_GRID_FAULT ||
			  r.outcome == CS_GRID_ERROR || r.outcome == CS_GRID_UNSUPPORTED);
		if (r.outcome != CS_GRID_EXECUTED)
			cr_assert(r.diag.msg[0], "an outcome without a diagnosis");
	}
}

Test(fuzz, mutated_samples_return_cleanly, .timeout = 300)
{
	static const char *files[] = { "tests/ptxrun/ptx/samples_sm90.ptx",
				       "tests/ptxrun/ptx/samples_sm80.ptx",
				       "fixtures/kernels/out/wmma.sm_80.ptx",
				       "fixtures/kernels/out/tcgemm.sm_90.ptx" };
	rng r = { 0x9e3779b97f4a7c15ull };
	size_t parsed = 0, rejected = 0;
	h_env e;
	h_init(&e);
	uint64_t buf = h_alloc(&e, 1 << 16);
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t len;
		char *src = test_read_source(files[f], &len);
		cr_assert(src, "cannot read %s", files[f]);
		size_t cap = len * 2 + 64;
		char *dst = malloc(cap);
		for (int i = 0; i < 1500; i++) {
			size_t n = mutate(&r, src, len, dst, cap);
			/* the parser gets exactly n bytes: a malloc'd copy so ASan sees overreads */
			char *exact = malloc(n ? n : 1);
			memcpy(exact, dst, n);
			cs_diag d;
			cs_ptx_program *p = cs_ptx_parse(exact, n, "fuzz.ptx", &d);
			if (p) {
				parsed++;
				if (i % 8 == 0)
					try_run(p, &e, buf);
				cs_ptx_program_free(p);
			} else {
				rejected++;
				cr_assert_neq(d.status, CS_OK);
				cr_assert(d.msg[0]);
				cr_assert(d.line > 0 || d.status == CS_ERR_NOMEM,
					  "an error without a line: %s", d.msg);
			}
			free(exact);
		}
		free(dst);
		free(src);
	}
	/* both outcomes must be exercised, or the mutations are not reaching the parser */
	cr_expect_gt(parsed, 100);
	cr_expect_gt(rejected, 100);
	fprintf(stderr, "fuzz: %zu parsed, %zu rejected\n", parsed, rejected);
	h_fini(&e);
}
