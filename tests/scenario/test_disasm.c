/* SPDX-License-Identifier: MIT */
/* disasm: the malformed-pushbuffer corpus, the text of a known stream, and
 * the disasm -> asm round trip on many random streams (fixed seed) covering
 * every SEC_OP, bound and unbound subchannels. */
#include <stdio.h>

#include "chainsim/fe.h"
#include "chainsim/pushbuf.h"
#include "chainsim/registry.h"
#include "common.h"
#include "scn.h"

static char *disasm_ok(const uint32_t *w, size_t n, const cs_disasm_opts *o)
{
	uint8_t *b = g_malloc(4 * n + 1);
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 4; k++)
			b[4 * i + k] = (uint8_t)(w[i] >> (8 * k));
	cs_diag d;
	char *text = cs_scenario_disasm(b, 4 * n, o, &d);
	g_free(b);
	cr_assert_not_null(text, "disasm failed: %s", d.msg);
	return text;
}

/* Assemble disasm's text on a bare memory and return the push's dwords. */
static uint32_t *reassemble_named(const char *text, const char *name, size_t *n)
{
	cs_diag d;
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "rt.chain", ".", &d);
	if (!s) {
		char buf[1024];
		cs_diag_format(&d, buf, sizeof(buf));
		cr_assert_fail("disasm text does not parse: %s\n---\n%s", buf, text);
	}
	cs_mem *mem = cs_mem_new(57);
	if (!scn_assemble(s, mem, &d)) {
		char buf[1024];
		cs_diag_format(&d, buf, sizeof(buf));
		cr_assert_fail("disasm text does not assemble: %s\n---\n%s", buf, text);
	}
	uint64_t va, size;
	cr_assert(cs_scenario_symbol(s, name, &va, &size));
	*n = size / 4;
	uint32_t *w = g_new0(uint32_t, *n + 1);
	scn_read_dwords(mem, va, w, *n);
	cs_mem_free(mem);
	cs_scenario_free(s);
	return w;
}

static uint32_t *reassemble(const char *text, size_t *n)
{
	return reassemble_named(text, "pb", n);
}

/* ---- the corpus ------------------------------------------------------------- */

Test(malformed_pb, every_file_is_diagnosed_at_its_offset)
{
	char *dir = scn_test_path("malformed-pb");
	GDir *gd = g_dir_open(dir, 0, NULL);
	cr_assert(gd);
	const char *fn;
	unsigned n = 0;
	while ((fn = g_dir_read_name(gd))) {
		if (!g_str_has_suffix(fn, ".bin"))
			continue;
		char *path = g_build_filename(dir, fn, NULL);
		char *epath = g_strdup_printf("%.*s.expect", (int)strlen(path) - 4, path);
		gchar *bytes, *expect;
		gsize len, elen;
		cr_assert(g_file_get_contents(path, &bytes, &len, NULL));
		cr_assert(g_file_get_contents(epath, &expect, &elen, NULL), "%s has no .expect", fn);
		g_strchomp(expect);
		cs_disasm_opts o = { .arch = CS_ARCH_HOPPER, .file = path };
		cs_diag d;
		char *text = cs_scenario_disasm((const uint8_t *)bytes, len, &o, &d);
		cr_assert_null(text, "%s: disassembled without error", fn);
		char msg[1024];
		cs_diag_format(&d, msg, sizeof(msg));
		cr_assert_eq(d.status, CS_ERR_INPUT, "%s: %s", fn, msg);
		cr_assert(d.has_offset, "%s: no byte offset: %s", fn, msg);
		cr_assert(strstr(msg, expect), "%s: '%s' lacks '%s'", fn, msg, expect);
		cr_assert(g_str_has_prefix(msg, path), "%s: '%s' does not name the file", fn, msg);
		/* the same bytes later in a file: the offset counts from the file's start */
		o.base = 0x40;
		cr_assert_null(cs_scenario_disasm((const uint8_t *)bytes, len, &o, &d));
		cr_assert(d.has_offset);
		n++;
		g_free(bytes);
		g_free(expect);
		g_free(path);
		g_free(epath);
	}
	g_dir_close(gd);
	g_free(dir);
	cr_assert_geq(n, 8, "only %u malformed pushbuffers", n);
}

Test(malformed_pb, offsets_add_the_base)
{
	const uint8_t b[] = { 0, 0, 0, 0, 0, 0, 0, 0xc0 };
	cs_disasm_opts o = { .arch = CS_ARCH_AMPERE, .file = "x.bin", .base = 0x100 };
	cs_diag d;
	cr_assert_null(cs_scenario_disasm(b, sizeof(b), &o, &d));
	cr_assert_eq(d.offset, 0x104);
	char msg[512];
	cs_diag_format(&d, msg, sizeof(msg));
	cr_assert(g_str_has_prefix(msg, "x.bin: byte 0x104: malformed pushbuffer header 0xc0000000"),
		  "%s", msg);
}

/* ---- a known stream --------------------------------------------------------- */

Test(text, a_known_stream)
{
	const uint32_t w[] = {
		cs_pb_inc(1, 0, 1), 0xcbc0,
		cs_pb_inc(1, 0x2b4, 1), 0x2001,
		cs_pb_inc(1, 0x2c0, 1), 3,
		cs_pb_inc(0, 0x5c, 5), 0x1000, 2, 1, 0,
		cs_fe_sem_execute(CS_FE_SEM_RELEASE, true, false, true, 0, false),
		cs_pb_immd(0, 0x8, 5),
		cs_pb_noninc(2, 0x1b4, 2), 0xa, 0xb,
		cs_pb_oneinc(1, 0x320, 2), 1, 2,
		cs_pb_inc(0, 0x300, 1), 4,
		cs_pb_inc(3, 0x300, 0),
		0,
		cs_pb_end_seg(), 0x12345678,
		cs_pb_inc(4, 0x400, 3), 1, /* truncated: 2 of 3 dwords missing */
	};
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER, .name = "known", .file = "k.bin" };
	char *t = disasm_ok(w, sizeof(w) / 4, &o);
	const char *want[] = {
		"arch hopper\n",
		"push known\n",
		"  inc 1 SET_OBJECT 0xcbc0  # SET_OBJECT HOPPER_COMPUTE_A\n",
		"  inc 1 SEND_PCAS_A 0x2001  # SEND_PCAS_A: QMD_ADDRESS_SHIFTED8=0x2001\n",
		"  inc 1 SEND_SIGNALING_PCAS2_B 0x3  # SEND_SIGNALING_PCAS2_B: ",
		"=INVALIDATE_COPY_SCHEDULE",
		"  inc 0 SEM_ADDR_LO 0x1000 0x2 0x1 0x0 0x1100001  #",
		"SEM_EXECUTE: OPERATION=RELEASE",
		"  imm 0 NOP 0x5",
		"  ninc 2 LOAD_INLINE_DATA 0xa 0xb",
		"  once 1 LOAD_INLINE_QMD_DATA(0) 0x1 0x2",
		"  inc 0 0x300 0x4  # 0x300 (subchannel 0: no modelled class)",
		"  raw 0x200060c0  # INC subchannel 3 method 0x300 with count 0\n",
		"  raw 0x00000000  # DMA_NOP",
		"  raw 0xe0000000  # END_PB_SEGMENT",
		"  raw 0x12345678 0x20038100 0x00000001  # after END_PB_SEGMENT",
		"end\n",
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert(strstr(t, want[i]), "missing '%s' in\n%s", want[i], t);
	cr_assert_null(strstr(t, "OFFSET_IN_UPPER"), "dwords after END_PB_SEGMENT are not decoded:\n%s", t);
	size_t n;
	uint32_t *back = reassemble_named(t, "known", &n);
	cr_assert_eq(n, sizeof(w) / 4);
	cr_assert_eq(memcmp(back, w, sizeof(w)), 0);
	g_free(back);
	free(t);
}

Test(text, truncated_header_is_raw_and_bind_lines)
{
	const uint32_t w[] = { cs_pb_inc(4, 0x400, 3), 1 , cs_pb_inc(5, 0x300, 1)};
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER };
	o.bind[5] = 0xC8B5;
	o.bind[4] = 0xC8B5;
	char *t = disasm_ok(w, 2, &o);
	cr_assert(strstr(t, "  bind 4 0xc8b5  # --bind: HOPPER_DMA_COPY_A\n"), "%s", t);
	cr_assert(strstr(t, "  raw 0x20038100 0x00000001  # INC subchannel 4 method OFFSET_IN_UPPER "
			    "announces 3 data dwords; 1 follow in this buffer"), "%s", t);
	free(t);
	t = disasm_ok(w + 2, 1, &o);
	cr_assert(strstr(t, "  raw 0x2001a0c0  # INC subchannel 5 method LAUNCH_DMA announces 1 data"),
		  "%s", t);
	free(t);
	/* a complete method on a --bind subchannel uses the bound class's names */
	const uint32_t w2[] = { cs_pb_inc(5, 0x300, 1), 0x182 };
	t = disasm_ok(w2, 2, &o);
	cr_assert(strstr(t, "  inc 5 LAUNCH_DMA 0x182  # LAUNCH_DMA: "), "%s", t);
	size_t n;
	uint32_t *back = reassemble(t, &n);
	cr_assert_eq(n, 2);
	cr_assert_eq(memcmp(back, w2, sizeof(w2)), 0);
	g_free(back);
	free(t);
	/* without the binding, subchannel 5 has no names */
	memset(o.bind, 0, sizeof(o.bind));
	t = disasm_ok(w2, 2, &o);
	cr_assert(strstr(t, "  inc 5 0x300 0x182"), "%s", t);
	free(t);
}

/* ---- the round trip ----------------------------------------------------------- */

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t rnd(rng *r, uint32_t n)
{
	return (uint32_t)(cs_scenario_rand_next(&r->s) >> 32) % n;
}

static const uint32_t class_pool[] = { 0xC56F, 0xC86F, 0xC96F, 0xC6C0, 0xC7C0, 0xC9C0, 0xCBC0,
				       0xCDC0, 0xCEC0, 0xC6B5, 0xC7B5, 0xC8B5, 0xC9B5, 0xCB97,
				       0x902D, 0x1234, 0x0000 };
enum { NCLASSES = sizeof(class_pool) / sizeof(class_pool[0]) };

/* A method offset a stream might use: named ones often, any offset sometimes. */
static uint32_t rnd_method(rng *r)
{
	static const uint32_t named[] = { 0x0, 0x8, 0x5c, 0x60, 0x64, 0x68, 0x6c, 0x78, 0x110,
					  0x180, 0x184, 0x188, 0x18c, 0x1b0, 0x1b4, 0x2b4, 0x2bc,
					  0x2c0, 0x318, 0x31c, 0x320, 0x3a0, 0x47c, 0x240, 0x244,
					  0x248, 0x24c, 0x300, 0x400, 0x404, 0x408, 0x40c, 0x418,
					  0x41c, 0x1698, 0x1b00, 0x1b0c, 0x790, 0x7b0 };
	if (rnd(r, 4))
		return named[rnd(r, sizeof(named) / sizeof(named[0]))];
	return 4 * rnd(r, 0x1000);
}

/* A random stream of n dwords (at least), every SEC_OP form but the reserved. */
static size_t rnd_stream(rng *r, uint32_t *w, size_t cap, unsigned *seen)
{
	size_t n = 0;
	while (n + 16 < cap) {
		uint32_t subch = rnd(r, 8), m = rnd_method(r), kind = rnd(r, 12);
		uint32_t bit12 = rnd(r, 16) == 0 ? 1u << 12 : 0;
		if (kind == 0) { /* SET_OBJECT */
			w[n++] = cs_pb_inc(subch, 0, 1) | bit12;
			w[n++] = class_pool[rnd(r, NCLASSES)] | (rnd(r, 4) == 0 ? rnd(r, 32) << 16 : 0);
			seen[CS_SECOP_INC]++;
		} else if (kind <= 6) { /* INC, NONINC, ONEINC */
			static const cs_secop ops[] = { CS_SECOP_INC, CS_SECOP_NONINC, CS_SECOP_ONEINC };
			cs_secop op = ops[rnd(r, 3)];
			uint32_t count = rnd(r, 8) == 0 ? 0 : 1 + rnd(r, 6);
			if (op == CS_SECOP_INC && count && m + 4 * (count - 1) > CS_PB_MAX_METHOD)
				m = CS_PB_MAX_METHOD - 4 * (count - 1);
			if (op == CS_SECOP_ONEINC && count > 1 && m == CS_PB_MAX_METHOD)
				m -= 4;
			w[n++] = cs_pb_header(op, count, subch, m) | bit12;
			for (uint32_t i = 0; i < count; i++)
				w[n++] = rnd(r, 3) ? rnd(r, 0x10000) : (uint32_t)cs_scenario_rand_next(&r->s);
			seen[op]++;
		} else if (kind <= 8) {
			w[n++] = cs_pb_immd(subch, m, rnd(r, 0x2000)) | bit12;
			seen[CS_SECOP_IMMD]++;
		} else if (kind == 9) {
			w[n++] = 0; /* DMA_NOP */
			seen[CS_SECOP_RESERVED0]++;
		} else if (kind == 10 && rnd(r, 4) == 0) {
			/* END_SEG ends the stream's meaningful part; junk may follow */
			w[n++] = cs_pb_end_seg() | (rnd(r, 2) ? rnd(r, 0x2000) << 16 : 0);
			uint32_t junk = rnd(r, 5);
			for (uint32_t i = 0; i < junk; i++)
				w[n++] = (uint32_t)cs_scenario_rand_next(&r->s);
			seen[CS_SECOP_END_SEG]++;
			return n;
		} else if (kind == 11 && rnd(r, 3) == 0) {
			/* a header cut short by the end of the buffer */
			uint32_t count = 2 + rnd(r, 5);
			w[n++] = cs_pb_noninc(subch, m, count);
			uint32_t have = rnd(r, count);
			for (uint32_t i = 0; i < have; i++)
				w[n++] = rnd(r, 100);
			seen[CS_SECOP_NONINC]++;
			return n;
		}
	}
	return n;
}

Test(roundtrip, random_streams_assemble_back_to_the_same_bytes)
{
	rng r = { 0x5eed2026 };
	unsigned seen[8] = { 0 };
	unsigned bound_streams = 0, named = 0;
	uint32_t w[400];
	for (unsigned iter = 0; iter < 400; iter++) {
		size_t n = rnd_stream(&r, w, 120 + rnd(&r, 250), seen);
		cs_disasm_opts o = { .arch = (cs_arch)rnd(&r, CS_ARCH_COUNT), .name = "pb" };
		if (rnd(&r, 2)) {
			bound_streams++;
			for (unsigned k = 0; k < 1 + rnd(&r, 3); k++) {
				uint32_t c = class_pool[rnd(&r, NCLASSES - 1)];
				o.bind[rnd(&r, 8)] = c;
			}
		}
		char *t = disasm_ok(w, n, &o);
		for (const char *p = t; (p = strstr(p, "\n  inc ")); p++)
			named += p[9] >= 'A' && p[9] <= 'Z';
		size_t m;
		uint32_t *back = reassemble(t, &m);
		cr_assert_eq(m, n, "stream %u: %zu dwords back from %zu\n%s", iter, m, n, t);
		for (size_t i = 0; i < n; i++)
			cr_assert_eq(back[i], w[i], "stream %u dword %zu: 0x%08x back, 0x%08x in\n%s",
				     iter, i, back[i], w[i], t);
		g_free(back);
		free(t);
	}
	cr_assert_gt(seen[CS_SECOP_INC], 100);
	cr_assert_gt(seen[CS_SECOP_NONINC], 50);
	cr_assert_gt(seen[CS_SECOP_ONEINC], 50);
	cr_assert_gt(seen[CS_SECOP_IMMD], 50);
	cr_assert_gt(seen[CS_SECOP_END_SEG], 10);
	cr_assert_gt(seen[CS_SECOP_RESERVED0], 10);
	cr_assert_gt(bound_streams, 100);
	cr_assert_gt(named, 200, "only %u named methods: names are not exercised", named);
}

Test(roundtrip, reserved_sec_ops_in_random_streams_are_diagnosed_at_their_offset)
{
	rng r = { 77 };
	unsigned seen[8] = { 0 };
	uint32_t w[300];
	for (unsigned iter = 0; iter < 200; iter++) {
		size_t n = rnd_stream(&r, w, 200, seen);
		/* find header positions by decoding, then plant a reserved form at one */
		cs_pb_decoder dec;
		cs_pb_decoder_init(&dec, true);
		cs_pb_item items[700];
		size_t used;
		cs_diag d;
		size_t k = cs_pb_decode(&dec, w, n, items, 700, &used, &d);
		size_t heads[300], nh = 0;
		for (size_t i = 0; i < k; i++)
			if (items[i].kind == CS_PB_ITEM_HEADER && (i == 0 || items[i - 1].dword != items[i].dword))
				heads[nh++] = (size_t)items[i].dword;
		if (!nh)
			continue;
		size_t at = heads[rnd(&r, (uint32_t)nh)];
		static const uint32_t reserved[] = { 0x00000004, 0x40010000, 0xc0000000 };
		w[at] = reserved[iter % 3] | (rnd(&r, 8) << 13);
		uint8_t *b = g_malloc(4 * n);
		memcpy(b, w, 4 * n);
		cs_disasm_opts o = { .arch = CS_ARCH_HOPPER };
		char *t = cs_scenario_disasm(b, 4 * n, &o, &d);
		cr_assert_null(t, "iter %u: a reserved SEC_OP at dword %zu was accepted", iter, at);
		cr_assert_eq(d.offset, 4 * at, "iter %u: offset 0x%llx, expected 0x%zx (%s)", iter,
			     (unsigned long long)d.offset, 4 * at, d.msg);
		/* a partial dword after it does not hide the earlier error */
		g_free(b);
	}
}

Test(text, names_follow_set_object_in_the_stream)
{
	const uint32_t w[] = { cs_pb_inc(1, 0x300, 1), 0x182, /* compute on 1 by convention */
			       cs_pb_inc(1, 0, 1), 0xC8B5,   /* now copy */
			       cs_pb_inc(1, 0x300, 1), 0x182,
			       cs_pb_inc(3, 0, 1), 0xCBC0,   /* 2D by convention, now compute */
			       cs_pb_inc(3, 0x2b4, 1), 0x10 };
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER };
	char *t = disasm_ok(w, sizeof(w) / 4, &o);
	cr_assert(strstr(t, "  inc 1 0x300 0x182"), "%s", t);
	cr_assert(strstr(t, "  inc 1 SET_OBJECT 0xc8b5  # SET_OBJECT HOPPER_DMA_COPY_A\n"
			    "  inc 1 LAUNCH_DMA 0x182  # LAUNCH_DMA: "), "%s", t);
	cr_assert(strstr(t, "  inc 3 SEND_PCAS_A 0x10"), "%s", t);
	free(t);
}

/* A SET_OBJECT written raw (its header has bit 12 set) binds nothing when the
 * text is read back, so the methods after it are named by the binding before
 * it, and the text assembles back to the same dwords. */
Test(text, a_raw_set_object_binds_nothing)
{
	const uint32_t w[] = { cs_pb_inc(1, 0, 1) | (1u << 12), 0xC8B5,
			       cs_pb_inc(1, 0x400, 2), 1, 2, /* compute still: LOAD_INLINE_QMD_DATA */
			       cs_pb_inc(1, 0, 1), 0xC8B5,
			       cs_pb_inc(1, 0x400, 1), 3 }; /* copy now: OFFSET_IN_UPPER */
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER };
	char *t = disasm_ok(w, sizeof(w) / 4, &o);
	cr_assert(strstr(t, "  inc 1 LOAD_INLINE_QMD_DATA(56) 0x1 0x2"), "%s", t);
	cr_assert(strstr(t, "  inc 1 OFFSET_IN_UPPER 0x3"), "%s", t);
	size_t n;
	uint32_t *back = reassemble(t, &n);
	cr_assert_eq(n, sizeof(w) / 4);
	cr_assert_arr_eq(back, w, sizeof(w));
	g_free(back);
	free(t);
}

/* An inline QMD is decoded field by field under its LOAD_INLINE_QMD_DATA line
 * (each non-zero field with the dword it starts in), a long decode comment
 * goes on in comment lines instead of being cut, and the text still
 * assembles back to the same dwords. */
Test(text, inline_qmd_decoded_by_field_and_round_trips)
{
	static const char src[] = "arch hopper\nalloc code 256\nalloc cb 0x400 align=256\n"
				  "qmd Q program=code grid=2,3,1 block=32 cbank0=cb,0x400\n"
				  "push pb\n  inc 1 SET_OBJECT 0xCBC0\n"
				  "  inc 1 LOAD_INLINE_QMD_DATA(0) @Q\nend\n";
	size_t n;
	uint32_t *w = reassemble_named(src, "pb", &n);
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER, .name = "pb" };
	char *text = disasm_ok(w, n, &o);
	cr_expect(strstr(text, "# inline QMD V04_00, dwords 0..95; its non-zero fields:\n"), "%s", text);
	cr_expect(strstr(text, "GRID_WIDTH                           0x2\n"), "%s", text);
	cr_expect(strstr(text, "GRID_HEIGHT                          0x3\n"), "%s", text);
	cr_expect(strstr(text, "CTA_THREAD_DIMENSION0                0x20\n"), "%s", text);
	cr_expect(strstr(text, "...") == NULL, "a comment was cut: %s", text);
	size_t n2;
	uint32_t *w2 = reassemble(text, &n2);
	cr_assert_eq(n2, n);
	cr_expect(memcmp(w, w2, n * 4) == 0, "the round trip changed the dwords");
	g_free(w2);
	g_free(text);
	g_free(w);
}

/* A decode comment longer than a line goes on in comment lines, split between
 * its parts: nothing is cut, and the text assembles back. */
Test(text, long_decode_comments_wrap_between_parts)
{
	uint32_t w[1 + 12];
	w[0] = cs_pb_noninc(0, CS_FE_M_SEM_EXECUTE, 12);
	for (unsigned i = 0; i < 12; i++)
		w[1 + i] = cs_fe_sem_execute(CS_FE_SEM_RELEASE, i & 1, false, true, 0, false);
	cs_disasm_opts o = { .arch = CS_ARCH_HOPPER, .name = "pb" };
	char *text = disasm_ok(w, 13, &o);
	unsigned parts = 0, comment_lines = 0;
	for (const char *p = text; (p = strstr(p, "SEM_EXECUTE: ")); p++)
		parts++;
	cr_expect_eq(parts, 12, "every dword's decode is there:\n%s", text);
	gchar **lines = g_strsplit(text, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		if (g_str_has_prefix(*l, "  # SEM_EXECUTE"))
			comment_lines++;
		const char *c = strstr(*l, "# ");
		cr_expect(!c || strlen(c) < 2 + 160 + 80, "a comment line of %zu: %s", strlen(c), *l);
	}
	g_strfreev(lines);
	cr_expect_geq(comment_lines, 2, "the comment went on in comment lines:\n%s", text);
	size_t n2;
	uint32_t *w2 = reassemble(text, &n2);
	cr_assert_eq(n2, 13);
	cr_expect(memcmp(w, w2, sizeof(w)) == 0, "the round trip changed the dwords");
	g_free(w2);
	g_free(text);
}
