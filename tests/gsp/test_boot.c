/* SPDX-License-Identifier: MIT */
/* The machine as NVIDIA's GSP-RM needs it: register files of any size, a hart
 * started in S-mode, a second image beside the first, paging that translates
 * before the map check. */
#include <criterion/criterion.h>
#include <stdlib.h>
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

/* A machine on a map of RAM at 0x80000000 (and ROM at 0x90000000) with
 * Sv39 on in S-mode: the root table at 0x80002000 maps virtual gigapage 0 to
 * `gigapage` with pte_flags; pc at virtual 0. */
static const char paging_map[] = "[ram]\nbase=0x80000000\nsize=0x10000\nkind=ram\n"
				 "[rom]\nbase=0x90000000\nsize=0x1000\nkind=rom\n";

static cs_gsp *paging_machine(const uint32_t *code, size_t nwords, uint64_t gigapage, uint64_t pte_flags,
			      cs_gsp_image **img)
{
	cs_gsp *m = machine_on(paging_map, code, nwords, img);
	uint64_t pte = (gigapage >> 12) << 10 | pte_flags;
	cr_assert_eq(cs_gsp_mem_write(m, 0x80002000, &pte, 8, NULL), CS_OK);
	set_reg(m, "satp", 8ull << 60 | 0x80002000ull >> 12);
	set_reg(m, "pc", 0);
	set_reg(m, "priv", 1);
	return m;
}

static cs_gsp_stop run_paged(cs_gsp *m)
{
	cs_gsp_stop st;
	cs_diag d;
	cs_diag_clear(&d);
	cr_assert_eq(cs_gsp_continue(m, 100, &st, &d), CS_OK, "%s", d.msg);
	return st;
}

/* Virtual page 0 is in no region of the map; its physical page is. */
Test(gsp_boot, paging_translates_before_the_map_check)
{
	/* at virtual 0, physical 0x80000000: lw a2, 16(zero); sw a2, 20(zero); ebreak; data at 16 */
	static const uint32_t code[] = { 0x01002603, 0x00C02A23, 0x00100073, 0, 0x5EED5EED, 0 };
	cs_gsp_image *img;
	cs_gsp *m = paging_machine(code, 6, 0x80000000, 0xCF, &img); /* V R W X A D */
	cs_gsp_stop st = run_paged(m);
	cr_expect_eq(st.reason, CS_GSP_STOP_EBREAK, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(st.pc, 8);
	cr_expect_eq(reg(m, "a2"), 0x5EED5EED);
	uint32_t stored = 0;
	cr_assert_eq(cs_gsp_mem_read(m, 0x80000014, &stored, 4, NULL), CS_OK);
	cr_expect_eq(stored, 0x5EED5EED, "the store reached physical 0x80000014: 0x%x", stored);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

/* Runs `code` (three words, its load or store through a0 at the
 * virtual address its lui makes) with the root table's entry `root_index`
 * a gigapage at `gigapage`; it stops as a fault whose detail holds `detail`. */
static void expect_paged_fault(const uint32_t *code, unsigned root_index, uint64_t gigapage, const char *detail)
{
	cs_gsp_image *img;
	cs_gsp *m = paging_machine(code, 3, 0x80000000, 0xCF, &img);
	uint64_t pte = (gigapage >> 12) << 10 | 0xCF;
	cr_assert_eq(cs_gsp_mem_write(m, 0x80002000 + 8 * root_index, &pte, 8, NULL), CS_OK);
	cs_gsp_stop st = run_paged(m);
	cr_expect_eq(st.reason, CS_GSP_STOP_FAULT, "stopped (%d): %s", st.reason, st.detail);
	cr_expect_eq(st.pc, 4);
	cr_expect(strstr(st.detail, detail), "%s", st.detail);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

/* The translation names a physical page the map lacks: a fault stop that
 * says so, as for an unmapped access with paging off. */
Test(gsp_boot, paging_to_a_physical_page_outside_the_map_stops)
{
	/* lui a0, 0x40000 (virtual 0x40000000, gigapage 1 -> physical 0xC0000000); lw a2, 0(a0); ebreak */
	static const uint32_t code[] = { 0x40000537, 0x00052603, 0x00100073 };
	expect_paged_fault(code, 1, 0xC0000000, "load of 4 bytes at 0x40000000: physical 0xc0000000 is not in the map");
}

/* A store through a writable mapping of ROM is refused as the map says. */
Test(gsp_boot, paging_keeps_the_physical_regions_permissions)
{
	/* lui a0, 0x40000; sw a0, 0(a0); ebreak: virtual 0x40000000 -> the ROM at 0x90000000 */
	static const uint32_t code[] = { 0x40000537, 0x00A52023, 0x00100073 };
	cs_gsp_image *img;
	cs_gsp *m = paging_machine(code, 3, 0x80000000, 0xCF, &img);
	/* a gigapage must be 1 GiB aligned: a table for gigapage 1, its entry 128 a megapage at 0x90000000 */
	uint64_t table = (0x80003000ull >> 12) << 10 | 0x1;
	uint64_t mega = (0x90000000ull >> 12) << 10 | 0xCF;
	cr_assert_eq(cs_gsp_mem_write(m, 0x80002008, &table, 8, NULL), CS_OK);
	cr_assert_eq(cs_gsp_mem_write(m, 0x80003000, &mega, 8, NULL), CS_OK);
	cs_gsp_stop st = run_paged(m);
	cr_expect_eq(st.reason, CS_GSP_STOP_FAULT, "stopped (%d): %s", st.reason, st.detail);
	cr_expect(strstr(st.detail, "store of 4 bytes at 0x40000000: physical 0x90000000 does not allow it"), "%s",
		  st.detail);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

/* The gap: a virtual page whose address is itself in the map passes
 * Unicorn's check with that region, and the model never sees the access:
 * its physical page is not checked against the map. Unicorn raises a load
 * page fault (13) for the physical page it lacks, where the hardware raises
 * an access fault (5) and the model, seeing it, stops (docs/gsp.md). */
Test(gsp_gaps, paging_from_a_mapped_virtual_page_is_not_checked)
{
	/* lui a0, 0x80008 (virtual 0x80008000, inside the RAM region's own addresses; gigapage 2
	 * -> 0xC0000000, outside the map); lw a2, 0(a0); ebreak */
	static const uint32_t code[] = { 0x80008537, 0x00052603, 0x00100073 };
	expect_paged_fault(code, 2, 0xC0000000, "trap (cause 13) at 0x4 with no trap vector");
}

/* ---- --boot ga10x: the boot data ---- */

static uint64_t u64_at(cs_gsp *m, uint64_t addr)
{
	uint64_t v = 0;
	cr_assert_eq(cs_gsp_mem_read(m, addr, &v, 8, NULL), CS_OK, "read 0x%lx", (unsigned long)addr);
	return v;
}

static uint32_t u32_at(cs_gsp *m, uint64_t addr)
{
	uint32_t v = 0;
	cr_assert_eq(cs_gsp_mem_read(m, addr, &v, 4, NULL), CS_OK, "read 0x%lx", (unsigned long)addr);
	return v;
}

/* A machine booted as --boot ga10x does it, with an image of `size` bytes. */
static cs_gsp *booted(uint64_t size, cs_gsp_image **img)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	uint64_t base;
	cr_assert_eq(cs_gsp_boot_map("ga10x", size, &map, &base, &d), CS_OK, "%s", d.msg);
	uint8_t *bytes = calloc(1, size);
	cr_assert_eq(cs_gsp_image_from_raw(bytes, size, base, img, &d), CS_OK, "%s", d.msg);
	free(bytes);
	cs_gsp *m = NULL;
	cr_assert_eq(cs_gsp_create(&map, *img, &m, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_boot(m, "ga10x", size, &d), CS_OK, "%s", d.msg);
	return m;
}

/* What the image checks before its first monitor call: the metadata at a2
 * (magic, revision, Booter's verified mark), its WPR2 start equal to the
 * one NV_PFB_PRI_MMU_WPR2_ADDR_LO gives, a heap of 82-276 MiB, the chip in
 * NV_PMC_BOOT_42; and the hart at the image's first byte in S-mode. */
Test(gsp_boot, ga10x_boot_data_passes_the_images_checks)
{
	const uint64_t size = 0x2477000; /* gsp_ga10x.bin 535.261.03's .fwimage */
	cs_gsp_image *img;
	cs_gsp *m = booted(size, &img);
	uint64_t meta = reg(m, "a2");
	cr_expect_eq(u64_at(m, meta), 0xdc3aae21371a60b3ull);
	cr_expect_eq(u64_at(m, meta + 8), 1);
	cr_expect_eq(u64_at(m, meta + 248), 0xa0a0a0a0a0a0a0a0ull);
	uint64_t wpr_start = u64_at(m, meta + 112);
	uint32_t wpr2_lo = u32_at(m, 0x20000000001fa824ull);
	cr_expect_eq((uint64_t)(wpr2_lo >> 4) << 12, wpr_start, "WPR2_ADDR_LO 0x%x, gspFwWprStart 0x%lx", wpr2_lo,
		     (unsigned long)wpr_start);
	cr_expect_eq(meta, 0x6060000000000000ull + wpr_start, "the metadata lies at the start of WPR2 in FB");
	uint64_t heap = u64_at(m, meta + 128);
	cr_expect(heap >= (82ull << 20) && heap <= (276ull << 20), "heap of %lu MiB", (unsigned long)(heap >> 20));
	cr_expect_eq(u64_at(m, meta + 120), wpr_start + (1 << 20), "the heap follows the metadata's MiB");
	uint64_t elf = u64_at(m, meta + 136);
	cr_expect_eq(reg(m, "pc"), 0x6060000000000000ull + elf, "the hart starts at the image's first byte in FB");
	cr_expect_geq(u64_at(m, meta + 144), elf + size, "the image ends before the boot binary");
	cr_expect_eq(u32_at(m, 0x2000000000000a00ull) >> 24, 0x17, "NV_PMC_BOOT_42: Ampere");
	cr_expect_eq(u32_at(m, 0x1280118) & 2, 2, "NV_PFALCON_FALCON_DMATRFCMD: idle");
	cr_expect_eq(reg(m, "priv"), 1);
	cr_expect_eq(reg(m, "a0"), 0);
	cr_expect_eq(reg(m, "a1"), 1);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

/* The mailbox holds the LibOS arguments' address; they name LOGINIT,
 * LOGINTR, LOGRM and RMARGS; RMARGS names the queues; the command queue
 * holds SET_SYSTEM_INFO (72) and SET_REGISTRY (73). */
Test(gsp_boot, ga10x_boot_data_leads_from_the_mailbox_to_the_queues)
{
	cs_gsp_image *img;
	cs_gsp *m = booted(0x100000, &img);
	const uint64_t sysmem = 0x8060000000000000ull;
	uint64_t libos = (uint64_t)u32_at(m, 0x1280044) << 32 | u32_at(m, 0x1280040);
	static const char *const ids[] = { "LOGINIT", "LOGINTR", "LOGRM", "RMARGS" };
	uint64_t rmargs = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t id8 = u64_at(m, sysmem + libos + 32 * i), want = 0;
		for (const char *c = ids[i]; *c; c++)
			want = want << 8 | (uint8_t)*c;
		cr_expect_eq(id8, want, "region %d", i);
		uint64_t kind_loc = u64_at(m, sysmem + libos + 32 * i + 24);
		cr_expect_eq(kind_loc & 0xFFFF, 0x0101, "contiguous, in sysmem");
		if (i < 3) {
			uint64_t pa = u64_at(m, sysmem + libos + 32 * i + 8);
			cr_expect_eq(u64_at(m, sysmem + pa), 0, "the put pointer starts at 0");
			cr_expect_eq(u64_at(m, sysmem + pa + 8), pa, "the first page's address");
			cr_expect_eq(u64_at(m, sysmem + pa + 16), pa + 0x1000, "the second page's address");
		} else
			rmargs = u64_at(m, sysmem + libos + 32 * i + 8);
	}
	uint64_t shm = u64_at(m, sysmem + rmargs);
	cr_expect_eq(u32_at(m, sysmem + rmargs + 8), 129, "page-table entries");
	cr_expect_eq(u64_at(m, sysmem + rmargs + 16), 0x1000, "cmdQueueOffset");
	cr_expect_eq(u64_at(m, sysmem + rmargs + 24), 0x41000, "statQueueOffset");
	cr_expect_eq(u64_at(m, sysmem + rmargs + 32), 0, "no lockless command queue");
	cr_expect_eq(u64_at(m, sysmem + shm), shm, "the page table holds DMA addresses");
	uint64_t cmdq = sysmem + shm + 0x1000;
	cr_expect_eq(u32_at(m, cmdq + 0x10), 2, "two messages queued");
	cr_expect_eq(u32_at(m, cmdq + 0x1000 + 48 + 12), 72, "SET_SYSTEM_INFO");
	cr_expect_eq(u32_at(m, cmdq + 0x1000 + 48 + 8), 32 + 664, "with a GspSystemInfo");
	cr_expect_eq(u32_at(m, cmdq + 0x2000 + 48 + 12), 73, "SET_REGISTRY");
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
}

Test(gsp_boot, boot_refuses_other_targets_and_images_too_large)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	uint64_t base;
	cr_expect_eq(cs_gsp_boot_map("gh100", 0x1000, &map, &base, &d), CS_ERR_INPUT);
	cr_expect(strstr(d.msg, "ga10x only"), "%s", d.msg);
	cs_diag_clear(&d);
	cr_expect_eq(cs_gsp_boot_map("ga10x", 0x20000000, &map, &base, &d), CS_ERR_INPUT);
	cr_expect(strstr(d.msg, "does not fit"), "%s", d.msg);
}
