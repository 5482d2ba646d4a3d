/* SPDX-License-Identifier: MIT */
/* cs_zstd_decompress (ptxrun/module/zstd.c, libzstd's streaming decoder)
 * against frames the reference `zstd` CLI wrote (tests/module/data/zstd/make.sh):
 * multi-block text and binary, several levels, content checksums, raw
 * (incompressible) and run-length data, two frames back to back; its located
 * refusals; and the cap: not one byte is written past it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "module_internal.h"

static uint8_t *data_file(const char *name, size_t *len)
{
	char *p = test_source_file("tests/module/data/zstd", name);
	uint8_t *b = (uint8_t *)test_read_file(p, len);
	cr_assert_not_null(b, "cannot read %s", p);
	g_free(p);
	return b;
}

/* The fixtures make.sh concatenated, in its order. */
static uint8_t *concat_fixtures(const char *suffix, size_t *len)
{
	static const char *const kernels[] = { "attention", "ffn", "matmul", "reduce", "softmax",
					       "vadd" };
	static const unsigned sms[] = { 100, 80, 90 };
	uint8_t *all = NULL;
	size_t total = 0;
	for (size_t i = 0; i < 6; i++)
		for (size_t j = 0; j < 3; j++) {
			char name[64];
			snprintf(name, sizeof(name), "%s.sm_%u%s", kernels[i], sms[j], suffix);
			size_t l;
			uint8_t *b = (uint8_t *)test_read_kernel_fixture(name, &l);
			cr_assert_not_null(b, "cannot read %s", name);
			all = realloc(all, total + l);
			memcpy(all + total, b, l);
			total += l;
			free(b);
		}
	*len = total;
	return all;
}

static void expect_decodes_to(const char *zname, const uint8_t *want, size_t wlen)
{
	size_t zlen;
	uint8_t *z = data_file(zname, &zlen);
	uint8_t *out = malloc(wlen + 1);
	size_t got = 0;
	cs_diag d;
	cs_diag_clear(&d);
	bool ok = cs_zstd_decompress(z, zlen, 0, zname, out, wlen, &got, &d);
	char msg[700];
	cs_diag_format(&d, msg, sizeof(msg));
	cr_assert(ok, "%s: %s", zname, msg);
	cr_expect_eq(got, wlen, "%s: %zu bytes, want %zu", zname, got, wlen);
	cr_expect(got == wlen && memcmp(out, want, wlen) == 0, "%s: content differs", zname);
	free(out);
	free(z);
}

Test(zstd, multi_block_text_two_levels)
{
	size_t n;
	uint8_t *all = concat_fixtures(".ptx", &n);
	cr_assert_gt(n, 128 * 1024, "want more than one 128 KiB block, have %zu", n);
	expect_decodes_to("ptx_all.l19.zst", all, n);
	expect_decodes_to("ptx_all.l1.zst", all, n);
	free(all);
}

Test(zstd, binary_with_and_without_checksum)
{
	size_t n;
	uint8_t *all = concat_fixtures(".cubin", &n);
	expect_decodes_to("cubin_all.l3.zst", all, n);
	expect_decodes_to("cubin_all.nocheck.zst", all, n);
	free(all);
}

Test(zstd, incompressible_and_runs)
{
	size_t n;
	uint8_t *r = data_file("random.bin", &n);
	expect_decodes_to("random.zst", r, n);
	free(r);
	uint8_t *zeros = calloc(1, 300000);
	expect_decodes_to("zeros.zst", zeros, 300000);
	free(zeros);
}

Test(zstd, two_frames)
{
	size_t a, b;
	uint8_t *pa = (uint8_t *)test_read_kernel_fixture("vadd.sm_90.ptx", &a), *pb = (uint8_t *)test_read_kernel_fixture("matmul.sm_90.ptx", &b);
	uint8_t *both = malloc(a + b);
	memcpy(both, pa, a);
	memcpy(both + a, pb, b);
	expect_decodes_to("two_frames.zst", both, a + b);
	free(both);
	free(pa);
	free(pb);
}

static cs_diag decode_fail(const uint8_t *z, size_t zlen, size_t cap, uint64_t base)
{
	uint8_t *out = malloc(cap ? cap : 1);
	size_t got;
	cs_diag d;
	cs_diag_clear(&d);
	bool ok = cs_zstd_decompress(z, zlen, base, "z", out, cap, &got, &d);
	cr_expect_not(ok);
	cr_expect(d.has_offset);
	free(out);
	return d;
}

Test(zstd, refusals_are_located)
{
	size_t zlen;
	uint8_t *z = data_file("ptx_all.l19.zst", &zlen);
	/* the checksum is the last 4 bytes */
	z[zlen - 1] ^= 1;
	cs_diag d = decode_fail(z, zlen, 1 << 20, 0x1000);
	cr_expect(strstr(d.msg, "content checksum") != NULL, "%s", d.msg);
	cr_expect_eq(d.offset, 0x1000 + zlen - 4);
	z[zlen - 1] ^= 1;
	/* output capacity smaller than the content */
	d = decode_fail(z, zlen, 1000, 0);
	cr_expect(strstr(d.msg, "exceeds") != NULL || strstr(d.msg, "output") != NULL, "%s", d.msg);
	/* truncated */
	d = decode_fail(z, zlen / 2, 1 << 20, 0);
	cr_expect(d.offset < zlen / 2 + 1, "offset 0x%llx", (unsigned long long)d.offset);
	/* bad magic */
	z[0] ^= 0xff;
	d = decode_fail(z, zlen, 1 << 20, 0x40);
	cr_expect(strstr(d.msg, "magic") != NULL, "%s", d.msg);
	cr_expect_eq(d.offset, 0x40);
	z[0] ^= 0xff;
	/* reserved frame header bit */
	z[4] |= 0x08;
	d = decode_fail(z, zlen, 1 << 20, 0);
	cr_expect(strstr(d.msg, "reserved") != NULL, "%s", d.msg);
	cr_expect_eq(d.offset, 4);
	free(z);
}

/* 300000 zeros in a few bytes of run-length blocks, into room for 1000: refused
 * at the cap, and the bytes just past the buffer are untouched. */
Test(zstd, the_cap_holds_and_nothing_is_written_past_it)
{
	size_t zlen;
	uint8_t *z = data_file("zeros.zst", &zlen);
	enum { CAP = 1000, GUARD = 4096 };
	uint8_t *out = malloc(CAP + GUARD);
	memset(out, 0xa5, CAP + GUARD);
	size_t got = 7;
	cs_diag d;
	cs_diag_clear(&d);
	cr_expect_not(cs_zstd_decompress(z, zlen, 0x200, "zeros", out, CAP, &got, &d));
	cr_expect(strstr(d.msg, "exceeds the output capacity"), "%s", d.msg);
	cr_expect(d.has_offset && d.offset >= 0x200 && d.offset <= 0x200 + zlen);
	cr_expect_eq(got, 0);
	for (size_t i = CAP; i < CAP + GUARD; i++)
		cr_assert_eq(out[i], 0xa5, "byte %zu past the cap was written", i - CAP);
	free(out);
	free(z);
}

/* A header that asks for a 128 MiB window is refused before any allocation of
 * it: the window is bounded by the 64 MiB inflation limit. */
Test(zstd, a_window_above_the_inflation_limit_is_refused)
{
	/* magic, FHD 0 (a window descriptor follows), window 2^(10+17), then a
	 * last raw block of 0 bytes */
	const uint8_t f[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 17 << 3, 0x01, 0x00, 0x00 };
	uint8_t out[16];
	size_t got;
	cs_diag d;
	cs_diag_clear(&d);
	cr_expect_not(cs_zstd_decompress(f, sizeof(f), 0x10, "window", out, sizeof(out), &got, &d));
	cr_expect(strstr(d.msg, "the window is larger than 64 MiB"), "%s", d.msg);
	cr_expect_eq(d.offset, 0x14);
	/* 2^26 is allowed */
	const uint8_t g[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x00, 16 << 3, 0x01, 0x00, 0x00 };
	cr_expect(cs_zstd_decompress(g, sizeof(g), 0, "window", out, sizeof(out), &got, &d),
		  "%s", d.msg);
	cr_expect_eq(got, 0);
}

/* The XXH64 the checksum uses, against the published value for "" (seed 0),
 * seen through a frame: an empty raw block with the checksum of nothing. */
Test(zstd, empty_frame_checksum)
{
	/* magic, FHD 0x24 (single segment, checksum, 1-byte size), size 0,
	 * block header: last, raw, 0 bytes; checksum = low 32 bits of
	 * XXH64("") = 0xEF46DB3751D8E999 */
	const uint8_t f[] = { 0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x00, 0x01, 0x00, 0x00,
			      0x99, 0xe9, 0xd8, 0x51 };
	uint8_t out[1];
	size_t got = 7;
	cs_diag d;
	cr_expect(cs_zstd_decompress(f, sizeof(f), 0, "empty", out, 0, &got, &d), "%s", d.msg);
	cr_expect_eq(got, 0);
}

static uint64_t zs_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Fixed-seed mutations of the reference frames (multi-block, FSE-compressed
 * tables, four-stream Huffman literals, repeat modes, checksums): decoding
 * must end in output or a located error, never a crash (clean under ASan). */
Test(zstd, mutated_frames_never_crash)
{
	const char *names[] = { "ptx_all.l19.zst", "ptx_all.l1.zst", "cubin_all.l3.zst",
				"cubin_all.nocheck.zst", "random.zst", "zeros.zst", "two_frames.zst" };
	const size_t caps[] = { 1 << 20, 1 << 20, 1 << 20, 1 << 20, 20000, 300000, 1 << 16 };
	uint64_t seed = 0x13198a2e03707344ull;
	unsigned ok = 0, refused = 0;
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		size_t zlen;
		uint8_t *orig = data_file(names[f], &zlen);
		uint8_t *out = malloc(caps[f]);
		for (unsigned r = 0; r < 300; r++) {
			size_t n = zlen;
			uint8_t *z = malloc(n);
			memcpy(z, orig, n);
			unsigned k = 1 + (unsigned)(zs_next(&seed) % 6);
			for (unsigned i = 0; i < k; i++) {
				size_t at = zs_next(&seed) % n;
				switch (zs_next(&seed) % 3) {
				case 0: z[at] ^= (uint8_t)(1u << (zs_next(&seed) % 8)); break;
				case 1: z[at] = (uint8_t)zs_next(&seed); break;
				default: n = at ? at : 1; break; /* truncate */
				}
			}
			size_t got = 0;
			cs_diag d;
			cs_diag_clear(&d);
			if (cs_zstd_decompress(z, n, 0, names[f], out, caps[f], &got, &d)) {
				ok++;
				cr_assert_leq(got, caps[f]);
			} else {
				refused++;
				cr_assert(d.has_offset, "%s: no offset: %s", names[f], d.msg);
				cr_assert_leq(d.offset, n, "%s: offset 0x%llx past %zu: %s", names[f],
					      (unsigned long long)d.offset, n, d.msg);
			}
			free(z);
		}
		free(out);
		free(orig);
	}
	printf("zstd mutations: %u decoded, %u refused with a located error\n", ok, refused);
	cr_expect_gt(refused, 0);
}
