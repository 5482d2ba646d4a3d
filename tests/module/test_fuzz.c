/* SPDX-License-Identifier: MIT */
/* Fixed-seed mutations of every committed cubin and fatbin: the loader must
 * answer each with a module or a located error, never crash (this suite also
 * runs under ASan+UBSan). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/ptxrun.h"
#include "fixtures.h"

static uint64_t next(uint64_t *s)
{
	/* xorshift64*: deterministic, no libc rand state */
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

enum { ROUNDS = 2000 };

static void mutate(uint8_t *b, size_t *len, uint64_t *seed)
{
	size_t n = *len;
	switch (next(seed) % 6) {
	case 0: /* flip a few random bits anywhere */
		for (unsigned i = 0, k = 1 + next(seed) % 8; i < k; i++)
			b[next(seed) % n] ^= (uint8_t)(1u << (next(seed) % 8));
		break;
	case 1: /* random bytes in the first 512: ELF, section and entry headers */
		for (unsigned i = 0, k = 1 + next(seed) % 4; i < k; i++)
			b[next(seed) % (n < 512 ? n : 512)] = (uint8_t)next(seed);
		break;
	case 2: /* truncate */
		*len = next(seed) % n;
		break;
	case 3: /* a random 8-byte word set to an extreme */
		if (n >= 8) {
			size_t at = (next(seed) % (n - 7)) & ~(size_t)3;
			uint64_t v = (next(seed) & 1) ? UINT64_MAX : (uint64_t)1 << (next(seed) % 64);
			memcpy(b + at, &v, 8);
		}
		break;
	case 4: /* overwrite a run with 0xff or 0 */
		{
			size_t at = next(seed) % n, k = 1 + next(seed) % 64;
			if (k > n - at)
				k = n - at;
			memset(b + at, (next(seed) & 1) ? 0xff : 0, k);
		}
		break;
	default: /* copy one region over another (duplicate headers, records) */
		{
			size_t k = 1 + next(seed) % 128;
			if (k < n) {
				size_t from = next(seed) % (n - k), to = next(seed) % (n - k);
				memmove(b + to, b + from, k);
			}
		}
		break;
	}
}

Test(fuzz, mutated_fixtures_never_crash)
{
	const char *kinds[] = { "sm_80.cubin", "sm_90.cubin", "sm_100.cubin", "fatbin",
				"nocompress.fatbin" };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned loaded = 0, refused = 0;
	for (size_t s = 0; s < fx_nsources; s++)
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			char name[64];
			snprintf(name, sizeof(name), "%s.%s", fx_sources[s], kinds[k]);
			size_t len;
			uint8_t *orig = (uint8_t *)test_read_kernel_fixture(name, &len);
			cr_assert_not_null(orig, "cannot read %s", name);
			uint8_t *b = malloc(len);
			cr_assert_not_null(b);
			for (unsigned r = 0; r < ROUNDS; r++) {
				memcpy(b, orig, len);
				size_t n = len;
				for (unsigned m = 0, nm = 1 + (unsigned)(next(&seed) % 3); m < nm && n; m++)
					mutate(b, &n, &seed);
				cs_diag d;
				cs_diag_clear(&d);
				/* exact-size copy, so ASan sees any read past the end */
				uint8_t *exact = malloc(n ? n : 1);
				cr_assert_not_null(exact);
				memcpy(exact, b, n);
				cs_module *mod = cs_module_load_bytes(exact, n, name, CS_ARCH_HOPPER, &d);
				free(exact);
				if (mod) {
					loaded++;
					/* touch everything a user would */
					for (size_t i = 0; i < cs_module_kernel_count(mod); i++) {
						const cs_kernel_info *ki = cs_module_kernel(mod, i);
						volatile uint8_t sink = 0;
						for (size_t j = 0; j < ki->code_size; j++)
							sink ^= ki->code[j];
						for (size_t j = 0; j < ki->nparams; j++)
							cr_assert_leq((uint64_t)ki->params[j].offset +
									      ki->params[j].size,
								      ki->param_bytes);
						(void)sink;
					}
					cs_module_free(mod);
				} else {
					refused++;
					cr_assert_neq(d.status, CS_OK, "%s round %u: NULL without a status",
						      name, r);
					cr_assert(d.msg[0], "%s round %u: empty message", name, r);
					cr_assert(d.has_offset || d.status == CS_ERR_NOMEM,
						  "%s round %u: error without a byte offset: %s", name, r,
						  d.msg);
				}
			}
			free(b);
			free(orig);
		}
	printf("fuzz: %u mutated inputs loaded, %u refused with a located error\n", loaded,
	       refused);
	cr_expect_gt(refused, 0);
	cr_expect_gt(loaded, 0);
}

/* Mutations aimed at the zstd frames: bytes inside the compressed PTX entry
 * the loader decompresses for hopper (sm_90). */
Test(fuzz, mutated_zstd_frames_never_crash)
{
	uint64_t seed = 0x243f6a8885a308d3ull;
	unsigned loaded = 0, refused = 0;
	for (size_t s = 0; s < fx_nsources; s++) {
		char name[64];
		snprintf(name, sizeof(name), "%s.fatbin", fx_sources[s]);
		size_t len;
		uint8_t *orig = (uint8_t *)test_read_kernel_fixture(name, &len);
		cr_assert_not_null(orig);
		/* find the sm_90 PTX entry's payload */
		size_t e = 16, start = 0, size = 0;
		while (e + 0x40 <= len) {
			uint32_t hs = (uint32_t)orig[e + 4] | (uint32_t)orig[e + 5] << 8;
			uint64_t ps = 0;
			for (int i = 7; i >= 0; i--)
				ps = (ps << 8) | orig[e + 8 + i];
			if (orig[e] == 1 && orig[e + 0x1c] == 90) {
				start = e + hs;
				size = (size_t)ps;
				break;
			}
			e += hs + ps;
		}
		cr_assert(size > 16, "%s: no sm_90 PTX entry", name);
		uint8_t *b = malloc(len);
		for (unsigned r = 0; r < ROUNDS; r++) {
			memcpy(b, orig, len);
			unsigned k = 1 + (unsigned)(next(&seed) % 4);
			for (unsigned i = 0; i < k; i++) {
				size_t at = start + next(&seed) % size;
				if (next(&seed) & 1)
					b[at] ^= (uint8_t)(1u << (next(&seed) % 8));
				else
					b[at] = (uint8_t)next(&seed);
			}
			cs_diag d;
			cs_diag_clear(&d);
			cs_module *m = cs_module_load_bytes(b, len, name, CS_ARCH_HOPPER, &d);
			if (m) {
				loaded++;
				cs_module_free(m);
			} else {
				refused++;
				cr_assert(d.has_offset, "%s: error without offset: %s", name, d.msg);
				cr_assert(d.offset >= start - 0x50 && d.offset < start + size,
					  "%s: offset 0x%llx outside the entry [0x%zx, +0x%zx): %s", name,
					  (unsigned long long)d.offset, start, size, d.msg);
			}
		}
		free(b);
		free(orig);
	}
	printf("zstd fuzz: %u mutated frames decoded, %u refused with a located error\n", loaded,
	       refused);
	cr_expect_gt(refused, 0);
}
