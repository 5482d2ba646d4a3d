/* SPDX-License-Identifier: MIT */
/* A model of the NVIDIA RISC-V core's MPU, as the LibOS kernel of GSP-RM
 * programs it through custom CSRs (docs/gsp.md, "The MPU model"): what each
 * CSR means is read from the kernel's own writes, no public header names
 * them. An entry that maps a virtual range to other physical memory becomes
 * a second Unicorn mapping of the model's memory at the virtual address
 * (the hart runs with satp bare, so the virtual address is the one Unicorn
 * looks up); addresses no entry covers stay physical. */
#include <inttypes.h>
#include <string.h>

#include "gsp_internal.h"

enum {
	MPU_INDEX = 0x5ca,
	MPU_VA = 0x5cb,  /* virtual base | 1 valid */
	MPU_PA = 0x5cc,
	MPU_RANGE = 0x5ce,
	MPU_ATTR = 0x5cf,
	MPU_GROUP = 0x5d0, /* selects 64 entries for MPU_BITS */
	MPU_BITS = 0x5d1,  /* a bit an entry of the group: kept, no effect (docs/gsp.md) */
};

static gsp_mpu *mpu_of(cs_gsp *m)
{
	return &m->mon.part[m->mon.current].mpu;
}

static void unmap_entry(cs_gsp *m, gsp_mpu_entry *e)
{
	for (size_t i = 0; i < e->npieces; i++)
		uc_mem_unmap(m->uc, e->piece[i].va, e->piece[i].size);
	e->npieces = 0;
}

static uint64_t piece_read_cb(uc_engine *uc, uint64_t off, unsigned size, void *user)
{
	(void)uc;
	gsp_mpu_piece *p = user;
	return gsp_mmio_read(p->dev, p->delta + off, size);
}

static void piece_write_cb(uc_engine *uc, uint64_t off, unsigned size, uint64_t v, void *user)
{
	(void)uc;
	gsp_mpu_piece *p = user;
	gsp_mmio_write(p->dev, p->delta + off, size, v);
}

/* Maps entry e, if it is valid and names other memory: at the virtual
 * address of each part of [pa, pa + range) that a region of the map holds,
 * that part (parts of the range no region holds stay unmapped, as the map
 * has nothing there). False (with why) when a part cannot be mapped. */
static bool map_entry(cs_gsp *m, gsp_mpu_entry *e, char *why, size_t len)
{
	uint64_t va = e->va & ~1ull;
	if (!(e->va & 1) || va == e->pa || !e->range)
		return true;
	if ((va | e->pa | e->range) & 0xFFF) {
		snprintf(why, len, "MPU entry maps 0x%" PRIx64 "+0x%" PRIx64 " to 0x%" PRIx64 ": not whole 4 KiB pages", va,
			 e->range, e->pa);
		return false;
	}
	uint64_t end = e->pa + e->range < e->pa ? UINT64_MAX : e->pa + e->range;
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		uint64_t lo = MAX(r->base, e->pa), hi = MIN(r->base + r->size, end);
		if (lo >= hi)
			continue;
		if (e->npieces == GSP_MPU_PIECES) {
			snprintf(why, len, "MPU entry at 0x%" PRIx64 " covers more than %d regions", va, GSP_MPU_PIECES);
			return false;
		}
		gsp_mpu_piece *p = &e->piece[e->npieces];
		*p = (gsp_mpu_piece){ va + (lo - e->pa), hi - lo, NULL, lo - r->base };
		uc_err err;
		if (r->kind == CS_GSP_MMIO) {
			p->dev = gsp_mmio_of(m, r);
			err = uc_mmio_map(m->uc, p->va, p->size, piece_read_cb, p, piece_write_cb, p);
		} else {
			uint32_t perms;
			uint8_t *host = gsp_host_of(m, lo, hi - lo, &perms);
			err = uc_mem_map_ptr(m->uc, p->va, p->size, perms, host);
		}
		if (err != UC_ERR_OK) {
			snprintf(why, len, "MPU entry maps region '%s' at 0x%" PRIx64 "+0x%" PRIx64 ", which overlaps the map",
				 r->name, p->va, p->size);
			return false;
		}
		e->npieces++;
	}
	return true;
}

void gsp_mpu_leave(cs_gsp *m)
{
	gsp_mpu *u = mpu_of(m);
	for (size_t i = 0; i < GSP_MPU_ENTRIES; i++)
		unmap_entry(m, &u->entry[i]);
}

bool gsp_mpu_enter(cs_gsp *m, char *why, size_t len)
{
	gsp_mpu *u = mpu_of(m);
	for (size_t i = 0; i < GSP_MPU_ENTRIES; i++)
		if (!map_entry(m, &u->entry[i], why, len))
			return false;
	return true;
}

gsp_mpu_result gsp_mpu_csr(cs_gsp *m, unsigned csr, unsigned op, uint64_t operand, uint64_t *old, char *why,
			   size_t len)
{
	gsp_mpu *u = mpu_of(m);
	gsp_mpu_entry *e = &u->entry[u->index % GSP_MPU_ENTRIES];
	uint64_t *field;
	switch (csr) {
	case MPU_INDEX: field = &u->index; break;
	case MPU_VA: field = &e->va; break;
	case MPU_PA: field = &e->pa; break;
	case MPU_RANGE: field = &e->range; break;
	case MPU_ATTR: field = &e->attr; break;
	case MPU_GROUP: field = &u->group; break;
	case MPU_BITS: field = NULL; break;
	default: return GSP_MPU_NOT_MINE;
	}
	*old = field ? *field : u->bits[u->group % GSP_MPU_GROUPS];
	/* op: 1 write, 2 set, 3 clear (csrrw, csrrs, csrrc and their immediates) */
	uint64_t v = op == 1 ? operand : op == 2 ? *old | operand : *old & ~operand;
	if (op == 0 || (op != 1 && !operand))
		return GSP_MPU_DONE;
	if (!field) {
		u->bits[u->group % GSP_MPU_GROUPS] = v;
		return GSP_MPU_DONE;
	}
	if (field == &u->index || field == &u->group) {
		*field = v;
		return GSP_MPU_DONE;
	}
	unmap_entry(m, e);
	*field = v;
	return map_entry(m, e, why, len) ? GSP_MPU_DONE : GSP_MPU_REFUSED;
}
