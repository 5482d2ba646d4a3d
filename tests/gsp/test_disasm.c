/* SPDX-License-Identifier: MIT */
/* Every line of objdump -d of the fixture ELFs (instructions, and data and
 * ISA regions by their mapping symbols) disassembles as binutils objdump
 * prints it (mnemonic and operands; objdump's <sym> and # comments dropped). */
#include <string.h>

#include "gsp_test_util.h"

static char *normalize(const char *s)
{
	GString *g = g_string_new(NULL);
	for (const char *p = s; *p; p++) {
		if (*p == '#')
			break;
		if (*p == '<') {
			while (*p && *p != '>')
				p++;
			if (!*p)
				break;
			continue;
		}
		if (*p == '\t' || *p == ' ') {
			if (g->len && g->str[g->len - 1] != ' ')
				g_string_append_c(g, ' ');
			continue;
		}
		g_string_append_c(g, *p);
	}
	while (g->len && g->str[g->len - 1] == ' ')
		g_string_truncate(g, g->len - 1);
	return g_string_free(g, FALSE);
}

static size_t compare_with_objdump(const char *elf)
{
	char *path = gsp_fixture(elf);
	char *argv[] = { "riscv64-unknown-elf-objdump", "-d", path, NULL };
	gchar *out = NULL, *err = NULL;
	gint status = 0;
	GError *ge = NULL;
	gboolean ok = g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status, &ge);
	cr_assert(ok, "cannot run riscv64-unknown-elf-objdump (scripts/setup.sh installs "
		      "binutils-riscv64-unknown-elf): %s", ge ? ge->message : "?");
	cr_assert_eq(status, 0, "objdump failed: %s", err);
	cs_gsp_image *img;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_image_load(path, 0, &img, &d), CS_OK, "%s", d.msg);
	const cs_gsp_segment *seg = &img->seg[0];
	size_t n = 0, mismatches = 0;
	GString *report = g_string_new(NULL);
	gchar **lines = g_strsplit(out, "\n", -1);
	for (gchar **l = lines; *l; l++) {
		/* "    80000000:\t00100117          \tauipc\tsp,0x100" */
		char *colon = strchr(*l, ':');
		if (!colon || (*l)[0] != ' ' || colon[1] != '\t')
			continue;
		uint64_t addr = g_ascii_strtoull(*l, NULL, 16);
		char *tab2 = strchr(colon + 2, '\t');
		if (!tab2)
			continue;
		char *theirs = normalize(tab2 + 1);
		cr_assert(addr >= seg->addr && addr - seg->addr < seg->filesz, "0x%lx outside the segment", (unsigned long)addr);
		cs_rv_insn in;
		char txt[160];
		cs_rv_decode_in(img, seg->data + (addr - seg->addr), seg->filesz - (addr - seg->addr), addr, &in);
		cs_rv_format(&in, txt, sizeof(txt));
		char *mine = normalize(txt);
		if (strcmp(mine, theirs)) {
			mismatches++;
			if (mismatches <= 20)
				g_string_append_printf(report, "  0x%lx: ours '%s', objdump '%s'\n", (unsigned long)addr, mine, theirs);
		}
		g_free(mine);
		g_free(theirs);
		n++;
	}
	cr_assert_eq(mismatches, 0, "%s: %zu of %zu instructions differ:\n%s", elf, mismatches, n, report->str);
	g_string_free(report, TRUE);
	g_strfreev(lines);
	cs_gsp_image_free(img);
	g_free(out);
	g_free(err);
	g_free(path);
	return n;
}

Test(gsp_disasm, fixture_matches_objdump)
{
	cr_assert_gt(compare_with_objdump("gsp-fixture.elf"), 600);
}

Test(gsp_disasm, defect_fixture_matches_objdump)
{
	cr_assert_gt(compare_with_objdump("gsp-fixture-defect.elf"), 600);
}

Test(gsp_disasm, coverage_fixture_matches_objdump)
{
	/* rv64gc-coverage.S: every RV64GC instruction class, aliases included */
	cr_assert_gt(compare_with_objdump("rv64gc-coverage.elf"), 150);
}

Test(gsp_disasm, decoder_facts)
{
	cs_rv_insn in;
	const uint8_t ret[2] = { 0x82, 0x80 };
	cr_assert(cs_rv_decode(ret, 2, 0, &in) && in.is_ret && in.len == 2);
	const uint8_t jal[4] = { 0xef, 0x00, 0x00, 0x01 }; /* jal ra, +16 */
	cr_assert(cs_rv_decode(jal, 4, 0x100, &in) && in.is_call && in.has_target && in.target == 0x110);
	const uint8_t lw[2] = { 0x08, 0x53 }; /* lw a0,32(a4) */
	cr_assert(cs_rv_decode(lw, 2, 0, &in));
	cr_assert(in.memop == CS_RV_MEM_LOAD && in.mem_base == 14 && in.mem_imm == 32 && in.mem_size == 4);
	const uint8_t zero[2] = { 0, 0 };
	cr_assert_not(cs_rv_decode(zero, 2, 0, &in), "all-zero halfword is illegal");
	cr_assert_not(cs_rv_decode(jal, 3, 0, &in), "truncated 32-bit instruction");
}
