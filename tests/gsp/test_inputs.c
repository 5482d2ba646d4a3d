/* SPDX-License-Identifier: MIT */
/* Bad inputs get clear errors: ELF files, memory maps, GDB packets. */
#include <string.h>

#include "gsp_test_util.h"

static uint8_t *fixture_bytes(size_t *len)
{
	char *buf = test_read_source("fixtures/firmware/gsp-fixture.elf", len);
	cr_assert(buf, "cannot read fixtures/firmware/gsp-fixture.elf");
	return (uint8_t *)buf;
}

static void elf_fails(const uint8_t *buf, size_t len, const char *want)
{
	cs_gsp_image *img = (cs_gsp_image *)1;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_image_from_elf(buf, len, "t.elf", &img, &d), CS_ERR_INPUT, "expected: %s", want);
	cr_assert_null(img);
	cr_assert(strstr(d.msg, want), "'%s' not in '%s'", want, d.msg);
	cr_assert(d.has_offset, "the error names a byte offset");
}

Test(gsp_inputs, fixture_elf_loads)
{
	size_t len;
	uint8_t *b = fixture_bytes(&len);
	cs_gsp_image *img;
	cr_assert_eq(cs_gsp_image_from_elf(b, len, "f", &img, NULL), CS_OK);
	cr_assert_eq(img->entry, 0x80000000);
	cr_assert_eq(img->nseg, 1);
	const cs_gsp_symbol *s = cs_gsp_image_symbol(img, "busy_loop");
	cr_assert(s && s->func && s->size > 0);
	cr_assert_eq(cs_gsp_image_symbolize(img, s->addr + 4), s);
	cs_gsp_image_free(img);
	free(b);
}

Test(gsp_inputs, malformed_elfs)
{
	size_t len;
	uint8_t *b = fixture_bytes(&len);
	uint8_t *c = g_memdup2(b, len);
	elf_fails(b, 40, "not an ELF file");
	memcpy(c, b, len);
	c[0] = 0x7e;
	elf_fails(c, len, "bad magic");
	memcpy(c, b, len);
	c[4] = 1;
	elf_fails(c, len, "expected ELFCLASS64");
	memcpy(c, b, len);
	c[5] = 2;
	elf_fails(c, len, "expected little-endian");
	memcpy(c, b, len);
	c[18] = 62; /* x86-64 */
	elf_fails(c, len, "ELF machine 62: expected RISC-V (243)");
	memcpy(c, b, len);
	c[16] = 3; /* ET_DYN */
	elf_fails(c, len, "expected an executable");
	memcpy(c, b, len);
	memset(c + 32, 0x7f, 8); /* e_phoff far away */
	elf_fails(c, len, "program headers");
	memcpy(c, b, len);
	elf_fails(c, 0x1100, "do not fit"); /* truncated: section headers are at the end */
	/* a segment whose bytes run past the end of the file */
	memcpy(c, b, len);
	uint64_t phoff;
	memcpy(&phoff, c + 32, 8);
	uint64_t huge = 0x7fffffffffffull;
	memcpy(c + phoff + 32, &huge, 8); /* p_filesz */
	memcpy(c + phoff + 40, &huge, 8); /* p_memsz */
	elf_fails(c, len, "run past the end of the file");
	memcpy(c, b, len);
	uint64_t big = 0x100, small = 0x10;
	memcpy(c + phoff + 32, &big, 8);
	memcpy(c + phoff + 40, &small, 8);
	elf_fails(c, len, "exceeds memory size");
	g_free(c);
	free(b);
}

Test(gsp_inputs, segment_outside_the_map)
{
	uint8_t code[8] = { 0x13, 0, 0, 0, 0x13, 0, 0, 0 };
	cs_gsp_image *img;
	cr_assert_eq(cs_gsp_image_from_raw(code, sizeof(code), 0x70000000, &img, NULL), CS_OK);
	cs_gsp_map map;
	cs_gsp_map_default(&map);
	cs_gsp *m = NULL;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_create(&map, img, &m, &d), CS_ERR_INPUT);
	cr_assert(strstr(d.msg, "not inside one ram/rom region"), "%s", d.msg);
	cs_gsp_image_free(img);
	cr_assert_eq(cs_gsp_image_from_raw(code, sizeof(code), 0x80000000, &img, NULL), CS_OK);
	cr_assert_eq(cs_gsp_create(&map, img, &m, &d), CS_OK, "%s", d.msg);
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_stepi(m, 2, &st, NULL), CS_OK);
	cr_assert_eq(cs_gsp_pc(m), 0x80000008);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

static void map_fails(const char *text, const char *want, uint32_t line)
{
	cs_gsp_map map;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_map_parse(text, strlen(text), "t.map", &map, &d), CS_ERR_INPUT, "expected: %s", want);
	cr_assert(strstr(d.msg, want), "'%s' not in '%s'", want, d.msg);
	cr_assert_str_eq(d.file, "t.map");
	if (line)
		cr_assert_eq(d.line, line, "line %u, expected %u (%s)", d.line, line, d.msg);
}

Test(gsp_inputs, memory_maps)
{
	char *p = gsp_fixture("gsp-fixture.map");
	cs_gsp_map file, def;
	cr_assert_eq(cs_gsp_map_load(p, &file, NULL), CS_OK);
	g_free(p);
	cs_gsp_map_default(&def);
	cr_assert_eq(file.count, def.count);
	for (size_t i = 0; i < def.count; i++) {
		const cs_gsp_region *r = cs_gsp_map_find(&file, def.region[i].name);
		cr_assert(r);
		cr_assert(r->base == def.region[i].base && r->size == def.region[i].size &&
			  r->kind == def.region[i].kind && r->model == def.region[i].model);
	}
	map_fails("[a]\nbase=0x1000\nsize=0x2000\nkind=ram\n[b]\nbase=0x2000\nsize=0x1000\nkind=ram\n",
		  "region 'b' [0x2000, 0x3000) overlaps region 'a' [0x1000, 0x3000)", 5);
	map_fails("[a]\nbase=0x1000\nsize=0x1000\n", "missing key 'kind'", 1);
	map_fails("[a]\nbase=0x1000\nsize=0x1000\nkind=flash\n", "kind 'flash'", 4);
	map_fails("[a]\nbase=zz\nsize=0x1000\nkind=ram\n", "base 'zz' is not a number", 2);
	map_fails("[a]\nbase=0x1000\nsize=-1\nkind=ram\n", "size '-1' is not a number", 3);
	map_fails("[a]\nbase=0x1001\nsize=0x1000\nkind=ram\n", "multiples of 4 KiB", 1);
	map_fails("[a]\nbase=0xfffffffffffff000\nsize=0x2000\nkind=ram\n", "wraps", 1);
	map_fails("[a]\nbase=0x1000\nsize=0x1000\nkind=mmio\n", "needs a model", 1);
	map_fails("[a]\nbase=0x1000\nsize=0x1000\nkind=mmio\nmodel=uart\n", "model 'uart'", 5);
	/* "none" is what a region without a model key has; it is not written */
	map_fails("[a]\nbase=0x1000\nsize=0x1000\nkind=rom\nmodel=none\n", "model 'none'", 5);
	map_fails("[a]\nbase=0x1000\nsize=0x1000\nkind=ram\ncolour=red\n", "unknown key 'colour'", 5);
	map_fails("this is not a key file\n", "not a key file", 0);
	map_fails("# only a comment\n", "no regions", 1);
}

/* ---- GDB packets ---- */

static cs_gdb_pkt_kind parse(const char *s, size_t *used, char *out, cs_diag *d)
{
	size_t ol;
	return cs_gdb_parse((const uint8_t *)s, strlen(s), used, out, &ol, d);
}

Test(gsp_inputs, gdb_packets)
{
	char out[CS_GDB_PACKET_MAX + 1];
	size_t used;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(parse("$g#67", &used, out, &d), CS_GDB_PKT_PACKET);
	cr_assert_str_eq(out, "g");
	cr_assert_eq(used, 5);
	cr_assert_eq(parse("$g#68", &used, out, &d), CS_GDB_PKT_ERROR);
	cr_assert(strstr(d.msg, "checksum 0x68, computed 0x67"), "%s", d.msg);
	cr_assert_eq(parse("$g#6", &used, out, &d), CS_GDB_PKT_NONE, "truncated: wait for more");
	cr_assert_eq(parse("$m0,4", &used, out, &d), CS_GDB_PKT_NONE);
	cr_assert_eq(parse("$m0,4$g#67", &used, out, &d), CS_GDB_PKT_ERROR);
	cr_assert(strstr(d.msg, "truncated"), "%s", d.msg);
	cr_assert_eq(used, 5);
	cr_assert_eq(parse("$g#zz", &used, out, &d), CS_GDB_PKT_ERROR);
	cr_assert(strstr(d.msg, "not hex"));
	cr_assert_eq(parse("junk$g#67", &used, out, &d), CS_GDB_PKT_ERROR);
	cr_assert_eq(used, 4);
	cr_assert_eq(parse("\x03", &used, out, &d), CS_GDB_PKT_INTERRUPT);
	cr_assert_eq(parse("+", &used, out, &d), CS_GDB_PKT_ACK);
	/* an escaped '}' payload byte: "}]" is '}' ^ 0x20 ... decodes to '}' */
	cr_assert_eq(parse("$X}]#32", &used, out, &d), CS_GDB_PKT_PACKET, "%s", d.msg);
	cr_assert_str_eq(out, "X}");
	/* huge: more than the packet limit */
	GString *g = g_string_new("$");
	for (int i = 0; i < CS_GDB_PACKET_MAX + 10; i++)
		g_string_append_c(g, 'a');
	g_string_append(g, "#00");
	cr_assert_eq(parse(g->str, &used, out, &d), CS_GDB_PKT_ERROR);
	cr_assert(strstr(d.msg, "longer than"), "%s", d.msg);
	cr_assert_eq(used, g->len);
	g_string_free(g, TRUE);
}

Test(gsp_inputs, gdb_commands)
{
	gsp_fx fx;
	gsp_fx_open(&fx, "gsp-fixture.elf");
	char reply[2 * CS_GDB_PACKET_MAX + 64];
	cs_gsp *m = fx.m;
#define H(s) cr_assert_eq(cs_gdb_handle(m, s, strlen(s), reply, sizeof(reply), NULL), CS_OK)
	H("g");
	cr_assert_eq(strlen(reply), 33 * 16);
	cr_assert_str_eq(reply + 32 * 16, "0000008000000000", "pc little-endian");
	H("p20");
	cr_assert_str_eq(reply, "0000008000000000");
	H("p341"); /* 65 + 0x300 = mstatus */
	cr_assert_eq(strlen(reply), 16);
	H("P5=7856341200000000");
	cr_assert_str_eq(reply, "OK");
	H("p5");
	cr_assert_str_eq(reply, "7856341200000000");
	H("P5=zz");
	cr_assert_str_eq(reply, "E01");
	H("m80000000,4");
	cr_assert_str_eq(reply, "17011000");
	H("m80000000,ffffffff");
	cr_assert_str_eq(reply, "E03");
	H("m40000000,4");
	cr_assert_str_eq(reply, "E14");
	H("mzz");
	cr_assert_str_eq(reply, "E01");
	H("M800f0000,2:abcd");
	cr_assert_str_eq(reply, "OK");
	H("M800f0000,4:abcd");
	cr_assert_str_eq(reply, "E01", "length and data disagree");
	H("qXfer:features:read:target.xml:0,7fff");
	cr_assert(reply[0] == 'l' && strstr(reply, "org.gnu.gdb.riscv.cpu") && strstr(reply, "org.gnu.gdb.riscv.csr"));
	H("qXfer:features:read:other.xml:0,fff");
	cr_assert_str_eq(reply, "E00");
	H("qSupported:multiprocess+");
	cr_assert(strstr(reply, "qXfer:features:read+"));
	H("vCont?");
	cr_assert_str_eq(reply, "vCont;c;C;s;S");
	H("Z0,80000194,2");
	cr_assert_str_eq(reply, "OK");
	H("c");
	cr_assert_str_eq(reply, "T05swbreak:;");
	H("p20");
	cr_assert_str_eq(reply, "9401008000000000");
	H("z0,80000194,2");
	cr_assert_str_eq(reply, "OK");
	H("z0,80000194,2");
	cr_assert_str_eq(reply, "E01");
	H("s");
	cr_assert_str_eq(reply, "S05");
	H("Z2,90041010,4");
	H("vCont;c");
	cr_assert_str_eq(reply, "T05watch:90041010;");
	H("Z2,0,0");
	cr_assert_str_eq(reply, "E01");
	H("Z9,0,1");
	cr_assert_str_eq(reply, "");
	H("?");
	cr_assert_str_eq(reply, "S05");
#undef H
	gsp_fx_close(&fx);
}
