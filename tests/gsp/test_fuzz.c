/* SPDX-License-Identifier: MIT */
/* Fixed-seed mutation of the ELF loader's and the GDB packet parser's inputs:
 * every mutant is accepted or refused with an error, never a crash (run under
 * ASan in CI). libFuzzer entry points: fuzz_elf.c, fuzz_gdb.c (clang only). */
#include <string.h>

#include "gsp_test_util.h"

static uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

Test(gsp_fuzz, elf_loader_mutations)
{
	size_t len = 0;
	char *orig = test_read_source("fixtures/firmware/gsp-fixture.elf", &len);
	cr_assert(orig, "cannot read fixtures/firmware/gsp-fixture.elf");
	uint8_t *buf = malloc(len);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int accepted = 0, refused = 0;
	for (int it = 0; it < 3000; it++) {
		memcpy(buf, orig, len);
		size_t n = len;
		int kind = (int)(rng_next(&seed) % 4);
		int flips = 1 + (int)(rng_next(&seed) % 8);
		for (int f = 0; f < flips; f++) {
			size_t at;
			if (kind == 0) /* ELF header */
				at = rng_next(&seed) % 64;
			else if (kind == 1) /* program and section headers */
				at = 64 + rng_next(&seed) % 128;
			else /* anywhere, section headers included */
				at = rng_next(&seed) % len;
			buf[at] = (uint8_t)rng_next(&seed);
		}
		if (kind == 3)
			n = rng_next(&seed) % len;
		cs_gsp_image *img = NULL;
		cs_diag d;
		cs_diag_clear(&d);
		cs_status st = cs_gsp_image_from_elf(buf, n, "mut", &img, &d);
		cr_assert(st == CS_OK || st == CS_ERR_INPUT, "iteration %d: status %d", it, st);
		if (st == CS_OK) {
			accepted++;
			cr_assert(img && img->nseg > 0);
			cs_gsp_image_free(img);
		} else {
			refused++;
			cr_assert_null(img);
			cr_assert(d.msg[0], "a refusal says why");
		}
	}
	cr_assert_gt(accepted, 0);
	cr_assert_gt(refused, 1000);
	free(buf);
	free(orig);
}

Test(gsp_fuzz, gdb_packet_mutations)
{
	static const char *const payloads[] = { "g", "m80000000,4", "Z0,80000194,2", "qSupported:xmlRegisters=i386",
						"p20", "M800f0000,2:abcd", "qXfer:features:read:target.xml:0,fff", "P5=0100000000000000",
						"Z2,90041010,4", "z0,80000194,2", "G" };
	enum { NSEEDS = sizeof(payloads) / sizeof(payloads[0]) + 2 };
	char *seeds[NSEEDS];
	for (size_t i = 0; i < NSEEDS - 2; i++) {
		unsigned sum = 0;
		for (const char *c = payloads[i]; *c; c++)
			sum = (sum + (unsigned char)*c) & 0xff;
		seeds[i] = g_strdup_printf("$%s#%02x", payloads[i], sum);
	}
	seeds[NSEEDS - 2] = g_strdup("+");
	seeds[NSEEDS - 1] = g_strdup("\x03");
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	uint64_t seed = 12345;
	char *out = malloc(CS_GDB_PACKET_MAX + 1);
	char *reply = malloc(2 * CS_GDB_PACKET_MAX + 64);
	uint8_t buf[256];
	int packets = 0, errors = 0;
	for (int it = 0; it < 20000; it++) {
		const char *s = seeds[rng_next(&seed) % NSEEDS];
		size_t n = strlen(s);
		memcpy(buf, s, n);
		int flips = (int)(rng_next(&seed) % 4);
		for (int f = 0; f < flips && n; f++)
			buf[rng_next(&seed) % n] = (uint8_t)rng_next(&seed);
		if (rng_next(&seed) % 3 == 0 && n < sizeof(buf) - 8) {
			size_t extra = rng_next(&seed) % 8;
			for (size_t k = 0; k < extra; k++)
				buf[n++] = (uint8_t)rng_next(&seed);
		}
		if (rng_next(&seed) % 4 == 0)
			n = rng_next(&seed) % (n + 1);
		size_t off = 0;
		while (off < n) {
			size_t used = 0, olen = 0;
			cs_gdb_pkt_kind k = cs_gdb_parse(buf + off, n - off, &used, out, &olen, NULL);
			if (k == CS_GDB_PKT_NONE)
				break;
			cr_assert(used > 0 && used <= n - off, "progress");
			off += used;
			if (k == CS_GDB_PKT_ERROR)
				errors++;
			if (k != CS_GDB_PKT_PACKET)
				continue;
			packets++;
			cr_assert_leq(olen, CS_GDB_PACKET_MAX);
			/* resume commands would run the firmware; everything else is handled */
			if (out[0] == 'c' || out[0] == 's' || out[0] == 'v' || out[0] == 'k' || out[0] == 'D')
				continue;
			cr_assert_eq(cs_gdb_handle(fx.m, out, olen, reply, 2 * CS_GDB_PACKET_MAX + 64, NULL), CS_OK);
		}
	}
	cr_assert_gt(packets, 1000);
	cr_assert_gt(errors, 1000);
	for (size_t i = 0; i < NSEEDS; i++)
		g_free(seeds[i]);
	free(out);
	free(reply);
	gsp_fx_close(&fx);
}

/* The typed print, casts and frame commands on mutated lines, stopped deep
 * in the firmware with outer frames to unwind: each line is answered or
 * refused as bad input, never a crash or an internal error. Lines that
 * would run the firmware are left out (the runs have their own tests). */
Test(gsp_fuzz, print_and_frame_mutations)
{
	static const char *const lines[] = {
		"print *(struct fw_state *)$a0", "print ((struct elem_header *)eh)->seq_num", "print (unsigned)count",
		"print (long long unsigned int)payload_len", "print *(unsigned short *)0x90041010", "print fw.objects[3]",
		"print &fw", "print *msgq.stat.write", "print (struct fw_state *)&fw", "frame 1", "up 2", "down",
		"info locals", "print $sp + 16", "print ((struct fw_state *)0x800009f0)->objects[2]", "x/2s &fw",
	};
	enum { NLINES = sizeof(lines) / sizeof(lines[0]) };
	static const char *const runs[] = { "c", "continue", "s", "step", "n", "next", "si", "stepi", "ni", "nexti",
					    "finish", "call", "rpc", "snapshot", "msgq", NULL };
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	g_free(gsp_cmd(&fx, "rpc init", CS_OK));
	g_free(gsp_cmd(&fx, "rpc post GET_GSP_STATIC_INFO 1", CS_OK));
	g_free(gsp_cmd(&fx, "break statq_free_slots", CS_OK));
	g_free(gsp_cmd(&fx, "continue", CS_OK));
	uint64_t seed = 4242;
	int ok = 0, refused = 0;
	FILE *null = fopen("/dev/null", "w");
	for (int it = 0; it < 4000; it++) {
		char buf[160];
		const char *s = lines[rng_next(&seed) % NLINES];
		size_t n = strlen(s);
		memcpy(buf, s, n);
		/* the command word stays: the mutants are for the expressions */
		size_t word = strcspn(s, " ") + 1;
		int flips = 1 + (int)(rng_next(&seed) % 3);
		for (int f = 0; f < flips && word < n; f++) {
			static const char alphabet[] = "()*&->[].$ 0123456789abcdefxstruc_";
			size_t at = word + rng_next(&seed) % (n - word);
			buf[at] = rng_next(&seed) % 4 ? alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)]
						      : (char)(rng_next(&seed) % 255 + 1);
		}
		if (rng_next(&seed) % 4 == 0 && word < n)
			n = word + rng_next(&seed) % (n - word + 1);
		buf[n] = 0;
		size_t w = strcspn(buf, " \t\n\v\f\r");
		bool run = false;
		for (size_t k = 0; runs[k]; k++)
			run |= strlen(runs[k]) == w && !strncmp(buf, runs[k], w);
		if (run)
			continue;
		cs_diag d;
		cs_diag_clear(&d);
		cs_status st = cs_gsp_dbg_exec(fx.m, buf, null, &d);
		cr_assert(st == CS_OK || st == CS_ERR_INPUT, "'%s': status %d (%s)", buf, st, d.msg);
		if (st == CS_OK)
			ok++;
		else
			refused++;
	}
	fclose(null);
	cr_assert_gt(ok, 250, "%d answered, %d refused", ok, refused);
	cr_assert_gt(refused, 1000, "%d answered, %d refused", ok, refused);
	cr_log_info("%d answered, %d refused", ok, refused);
	gsp_fx_close(&fx);
}
