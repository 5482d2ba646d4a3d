/* SPDX-License-Identifier: MIT */
/* The machine as NVIDIA's GSP-RM needs it: register files of any size, a hart
 * started in S-mode, a second image beside the first; the paging gap pinned. */
#include <criterion/criterion.h>
#include <string.h>

#include "chainsim/gsp.h"

/* A machine on `map_text` running the little-endian words `code` at 0x80000000. */
static cs_gsp *machine_on(const char *map_text, const uint32_t *code, size_t nwords, cs_gsp_image **img)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	cr_assert_eq(cs_gsp_map_parse(map_text, strlen(map_text), "test.map", &map, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_image_from_raw((const uint8_t *)code, nwords * 4, 0x80000000, img, &d), CS_OK, "%s", d.msg);
	cs_gsp *m = NULL;
	cr_assert_eq(cs_gsp_create(&map, *img, &m, &d), CS_OK, "%s", d.msg);
	return m;
}

static void set_reg(cs_gsp *m, const char *name, uint64_t v)
{
	unsigned regno;
	cr_assert(cs_gsp_reg_lookup(name, &regno));
	cr_assert_eq(cs_gsp_reg_write(m, regno, v, NULL), CS_OK);
}

static uint64_t reg(cs_gsp *m, const char *name)
{
	unsigned regno;
	uint64_t v = 0;
	cr_assert(cs_gsp_reg_lookup(name, &regno));
	cr_assert_eq(cs_gsp_reg_read(m, regno, &v, NULL), CS_OK);
	return v;
}

static const char big_regfile_map[] = "[ram]\nbase=0x80000000\nsize=0x10000\nkind=ram\n"
				      "[bar0]\nbase=0x2000000000000000\nsize=0x4000000\nkind=mmio\nmodel=regfile\n";

Test(gsp_boot, a_register_file_backs_all_of_its_region)
{
	/* sw a1, 0(a0); lw a2, 0(a0); ebreak */
	static const uint32_t code[] = { 0x00B52023, 0x00052603, 0x00100073 };
	cs_gsp_image *img;
	cs_gsp *m = machine_on(big_regfile_map, code, 3, &img);
	const uint64_t wpr2_lo = 0x20000000001fa824ull; /* far past the region's first page */
	set_reg(m, "a0", wpr2_lo);
	set_reg(m, "a1", 0x12345670);
	cs_gsp_stop st;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_continue(m, 100, &st, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(st.reason, CS_GSP_STOP_EBREAK, "%s", st.detail);
	cr_expect_eq(reg(m, "a2"), 0x12345670, "the firmware read back 0x%lx", (unsigned long)reg(m, "a2"));
	uint32_t seen = 0;
	cr_assert_eq(cs_gsp_mem_read(m, wpr2_lo, &seen, 4, NULL), CS_OK);
	cr_expect_eq(seen, 0x12345670);
	/* the debugger's own write to the region's last word reads back too */
	uint32_t last = 0xA5A5A5A5, back = 0;
	cr_assert_eq(cs_gsp_mem_write(m, 0x2000000003fffffcull, &last, 4, NULL), CS_OK);
	cr_assert_eq(cs_gsp_mem_read(m, 0x2000000003fffffcull, &back, 4, NULL), CS_OK);
	cr_expect_eq(back, last);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

Test(gsp_boot, starts_in_s_mode_with_a_second_image_beside_the_first)
{
	static const char map_text[] = "[ram]\nbase=0x80000000\nsize=0x10000\nkind=ram\n";
	static const uint32_t first[] = { 0x00000073 }; /* ecall */
	static const uint32_t second[] = { 0x00100073 }; /* ebreak: the trap vector */
	cs_gsp_image *img, *vector_img;
	cs_gsp *m = machine_on(map_text, first, 1, &img);
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_image_from_raw((const uint8_t *)second, 4, 0x80001000, &vector_img, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_load(m, vector_img, &d), CS_OK, "%s", d.msg);
	/* a third image on top of the first is refused */
	cs_gsp_image *clash;
	cr_assert_eq(cs_gsp_image_from_raw((const uint8_t *)second, 4, 0x80000000, &clash, &d), CS_OK, "%s", d.msg);
	cr_expect_eq(cs_gsp_load(m, clash, &d), CS_ERR_INPUT);
	set_reg(m, "priv", 1);
	set_reg(m, "mtvec", 0x80001000);
	cs_gsp_stop st;
	cr_assert_eq(cs_gsp_stepi(m, 1, &st, &d), CS_OK, "%s", d.msg);
	cr_expect_eq(cs_gsp_pc(m), 0x80001000);
	cr_expect_eq(reg(m, "mcause"), 9, "an ecall from S is cause 9, got %lu", (unsigned long)reg(m, "mcause"));
	uint32_t word = 0;
	cr_assert_eq(cs_gsp_mem_read(m, 0x80001000, &word, 4, NULL), CS_OK);
	cr_expect_eq(word, second[0]);
	cs_gsp_destroy(m);
	cs_gsp_image_free(clash);
	cs_gsp_image_free(vector_img);
	cs_gsp_image_free(img);
}

/* The gap: Unicorn 2.0.1 checks its map with the virtual address before the
 * page walk, so a fetch from a virtual page the map lacks stops as unmapped.
 * This fails the moment the model translates first (docs/gsp.md). */
Test(gsp_gaps, paging_checks_the_map_with_the_virtual_address)
{
	/* at virtual 0, physical 0x80000000: lw a2, 16(zero); ebreak; data at 16 */
	static const uint32_t code[] = { 0x01002603, 0x00100073, 0, 0, 0x5EED5EED };
	static const char map_text[] = "[ram]\nbase=0x80000000\nsize=0x10000\nkind=ram\n";
	cs_gsp_image *img;
	cs_gsp *m = machine_on(map_text, code, 5, &img);
	/* Sv39 root at 0x80002000: entry 0, a gigapage 0 -> 0x80000000 (V R W X A D) */
	uint64_t pte = (0x80000000ull >> 12) << 10 | 0xCF;
	cr_assert_eq(cs_gsp_mem_write(m, 0x80002000, &pte, 8, NULL), CS_OK);
	set_reg(m, "satp", 8ull << 60 | 0x80002000ull >> 12);
	set_reg(m, "pc", 0);
	set_reg(m, "priv", 1);
	cs_gsp_stop st;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_continue(m, 100, &st, &d), CS_OK, "%s", d.msg);
	cr_expect_eq(st.reason, CS_GSP_STOP_FAULT, "stopped (%d): %s", st.reason, st.detail);
	cr_expect(strstr(st.detail, "fetch of 2 bytes at 0x0: Invalid memory fetch"), "%s", st.detail);
	cr_expect_neq(reg(m, "a2"), 0x5EED5EED);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}
