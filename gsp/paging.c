/* SPDX-License-Identifier: MIT */
/* Sv39/Sv48 translation for the memory-map check. Unicorn 2.0.1 looks an
 * access up in its map with the virtual address before its own page walk
 * (cputlb.c, load_helper and store_helper): with paging on, an access to a
 * virtual page the map lacks stops as unmapped whatever it translates to.
 * The model walks the page table itself when that happens and, where the
 * physical page is in the map, maps the virtual page as a placeholder: a
 * device with no permissions, so that every access Unicorn checks there comes
 * back to the model (a protection event) and is walked again. Unicorn then
 * makes the access through its own walk, to the physical page. docs/gsp.md
 * says what is left. */
#include <inttypes.h>
#include <string.h>

#include "gsp_internal.h"

enum {
	PTE_V = 1 << 0,
	PTE_R = 1 << 1,
	PTE_W = 1 << 2,
	PTE_X = 1 << 3,
	PTE_U = 1 << 4,
};

#define MSTATUS_MPRV (1ull << 17)
#define MSTATUS_SUM (1ull << 18)
#define MSTATUS_MXR (1ull << 19)
#define PPN_MASK ((1ull << 44) - 1)

/* A page-table entry, read from a ram or rom region of the map. */
static bool read_pte(cs_gsp *m, uint64_t addr, uint64_t *pte)
{
	const cs_gsp_region *r = gsp_region_of(m, addr, 8);
	return r && r->kind != CS_GSP_MMIO && uc_mem_read(m->uc, addr, pte, 8) == UC_ERR_OK;
}

static bool leaf_permits(uint64_t pte, gsp_access acc, unsigned mode, uint64_t mstatus)
{
	if (mode == GSP_PRIV_U && !(pte & PTE_U))
		return false;
	if (mode == GSP_PRIV_S && (pte & PTE_U) && (acc == GSP_ACCESS_FETCH || !(mstatus & MSTATUS_SUM)))
		return false;
	switch (acc) {
	case GSP_ACCESS_FETCH:
		return pte & PTE_X;
	case GSP_ACCESS_WRITE:
		return pte & PTE_W;
	case GSP_ACCESS_READ:
		return (pte & PTE_R) || ((mstatus & MSTATUS_MXR) && (pte & PTE_X));
	}
	return false;
}

gsp_walk gsp_translate(cs_gsp *m, uint64_t va, gsp_access acc, uint64_t *pa)
{
	*pa = va;
	unsigned mode = gsp_priv(m);
	uint64_t mstatus = gsp_csr(m, UC_RISCV_REG_MSTATUS);
	if (acc != GSP_ACCESS_FETCH && mode == GSP_PRIV_M && (mstatus & MSTATUS_MPRV))
		mode = (unsigned)(mstatus >> 11) & 3;
	if (mode == GSP_PRIV_M)
		return GSP_WALK_BARE;
	uint64_t satp = gsp_csr(m, UC_RISCV_REG_SATP);
	int levels = satp >> 60 == 8 ? 3 : satp >> 60 == 9 ? 4 : 0;
	if (!levels)
		return GSP_WALK_BARE;
	unsigned va_bits = 12 + 9 * (unsigned)levels;
	if ((uint64_t)((int64_t)(va << (64 - va_bits)) >> (64 - va_bits)) != va)
		return GSP_WALK_PAGE_FAULT;
	uint64_t table = (satp & PPN_MASK) << 12;
	for (int level = levels - 1; level >= 0; level--) {
		uint64_t entry = table + ((va >> (12 + 9 * level)) & 511) * 8;
		uint64_t pte;
		if (!read_pte(m, entry, &pte)) {
			*pa = entry;
			return GSP_WALK_TABLE_UNMAPPED;
		}
		if (!(pte & PTE_V) || (!(pte & PTE_R) && (pte & PTE_W)))
			return GSP_WALK_PAGE_FAULT;
		uint64_t base = ((pte >> 10) & PPN_MASK) << 12;
		if (pte & (PTE_R | PTE_X)) {
			uint64_t span = 1ull << (12 + 9 * level);
			if ((base & (span - 1)) || !leaf_permits(pte, acc, mode, mstatus))
				return GSP_WALK_PAGE_FAULT;
			*pa = base | (va & (span - 1));
			return GSP_WALK_MAPPED;
		}
		table = base;
	}
	return GSP_WALK_PAGE_FAULT;
}

bool gsp_placeholder_at(const cs_gsp *m, uint64_t addr)
{
	return m->placeholders &&
	       g_hash_table_contains(m->placeholders, GSIZE_TO_POINTER((gsize)(addr >> 12)));
}

bool gsp_map_placeholder(cs_gsp *m, uint64_t va)
{
	uint64_t page = va & ~0xFFFull;
	if (!m->placeholders)
		m->placeholders = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (uc_mmio_map(m->uc, page, 0x1000, NULL, NULL, NULL, NULL) != UC_ERR_OK)
		return false;
	g_hash_table_add(m->placeholders, GSIZE_TO_POINTER((gsize)(page >> 12)));
	return true;
}

bool gsp_read_code(cs_gsp *m, uint64_t va, void *buf, size_t len)
{
	uint64_t pa;
	gsp_walk w = gsp_translate(m, va, GSP_ACCESS_FETCH, &pa);
	if (w != GSP_WALK_BARE && w != GSP_WALK_MAPPED)
		return false;
	/* an instruction may cross into the next page */
	size_t first = (size_t)MIN((uint64_t)len, 0x1000 - (va & 0xFFF));
	if (gsp_placeholder_at(m, pa) || uc_mem_read(m->uc, pa, buf, first) != UC_ERR_OK)
		return false;
	return first == len || gsp_read_code(m, va + first, (uint8_t *)buf + first, len - first);
}
