/* SPDX-License-Identifier: MIT */
#include "chainsim/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Backed pages live in an open-addressing hash keyed by page number; mapped
 * ranges are a sorted region array, with their names in a second hash (name
 * to VA) so that a scenario of many allocations costs no scan per name. A
 * one-entry cache serves the hot loops. */
typedef struct page_slot {
	uint64_t key; /* vpn + 1; 0 = empty */
	uint8_t *page;
} page_slot;

typedef struct name_slot {
	uint64_t va1; /* the region's VA + 1; 0 = empty */
	uint64_t hash;
} name_slot;

struct cs_mem {
	unsigned va_bits;
	cs_region *regions;
	size_t nregions, cap_regions;
	uint64_t mapped_bytes;
	/* [CS_MEM_ALLOC_BASE, packed_until) holds no gap: first fit starts above */
	uint64_t packed_until;
	name_slot *names;
	size_t nnames, cap_names;
	page_slot *slots;
	size_t nslots, used_slots;
	uint64_t last_vpn;
	uint8_t *last_page;
	uint64_t max_backed;
	bool backing_exhausted;
};

cs_mem *cs_mem_new(unsigned va_bits)
{
	if (va_bits < 32 || va_bits > 64)
		return NULL;
	cs_mem *mem = calloc(1, sizeof(*mem));
	if (!mem)
		return NULL;
	mem->va_bits = va_bits;
	mem->last_vpn = UINT64_MAX;
	mem->max_backed = CS_MEM_MAX_BACKED;
	mem->packed_until = CS_MEM_ALLOC_BASE;
	return mem;
}

void cs_mem_free(cs_mem *mem)
{
	if (!mem)
		return;
	for (size_t i = 0; i < mem->nslots; i++)
		free(mem->slots[i].page);
	free(mem->slots);
	free(mem->regions);
	free(mem->names);
	free(mem);
}

unsigned cs_mem_va_bits(const cs_mem *mem)
{
	return mem->va_bits;
}

static uint64_t va_limit(const cs_mem *mem)
{
	return mem->va_bits >= 64 ? UINT64_MAX : (1ull << mem->va_bits);
}

static uint64_t round_up(uint64_t v, uint64_t align)
{
	return (v + align - 1) & ~(align - 1);
}

/* Index of the first region whose end is above va. */
static size_t region_lower_bound(const cs_mem *mem, uint64_t va)
{
	size_t lo = 0, hi = mem->nregions;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const cs_region *r = &mem->regions[mid];
		if (r->va + round_up(r->size, CS_PAGE_SIZE) <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void name_put(name_slot *slots, size_t cap, uint64_t hash, uint64_t va1)
{
	size_t i = (size_t)hash & (cap - 1);
	while (slots[i].va1)
		i = (i + 1) & (cap - 1);
	slots[i] = (name_slot){ .va1 = va1, .hash = hash };
}

/* Makes room for one more name; false when memory ran out. */
static bool names_reserve(cs_mem *mem)
{
	if ((mem->nnames + 1) * 2 <= mem->cap_names)
		return true;
	size_t cap = mem->cap_names ? mem->cap_names * 2 : 64;
	name_slot *n = calloc(cap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < mem->cap_names; i++)
		if (mem->names[i].va1)
			name_put(n, cap, mem->names[i].hash, mem->names[i].va1);
	free(mem->names);
	mem->names = n;
	mem->cap_names = cap;
	return true;
}

/* Moves packed_until past the regions that continue it without a gap. */
static void advance_packed(cs_mem *mem)
{
	for (;;) {
		size_t i = region_lower_bound(mem, mem->packed_until);
		if (i >= mem->nregions || mem->regions[i].va > mem->packed_until)
			return;
		mem->packed_until = mem->regions[i].va + round_up(mem->regions[i].size, CS_PAGE_SIZE);
	}
}

static bool map_region(cs_mem *mem, const char *name, uint64_t va, uint64_t size, uint8_t *client,
		       cs_diag *d)
{
	if (size == 0) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot map 0 bytes at 0x%llx", (unsigned long long)va);
		return false;
	}
	if (va & (CS_PAGE_SIZE - 1)) {
		cs_diag_set(d, CS_ERR_INPUT, "address 0x%llx is not 4 KiB aligned",
			    (unsigned long long)va);
		return false;
	}
	uint64_t limit = va_limit(mem);
	if (size > limit - CS_PAGE_SIZE || va > limit - round_up(size, CS_PAGE_SIZE)) {
		cs_diag_set(d, CS_ERR_INPUT,
			    "0x%llx bytes at 0x%llx do not fit the %u-bit address space",
			    (unsigned long long)size, (unsigned long long)va, mem->va_bits);
		return false;
	}
	uint64_t span = round_up(size, CS_PAGE_SIZE);
	if (mem->mapped_bytes + span > CS_MEM_MAX_MAPPED) {
		cs_diag_set(d, CS_ERR_INPUT, "mapping 0x%llx bytes would pass the %llu GiB limit",
			    (unsigned long long)size, CS_MEM_MAX_MAPPED >> 30);
		return false;
	}
	size_t at = region_lower_bound(mem, va);
	if (at < mem->nregions && mem->regions[at].va < va + span) {
		const cs_region *o = &mem->regions[at];
		cs_diag_set(d, CS_ERR_INPUT, "0x%llx bytes at 0x%llx overlap region '%s' at 0x%llx",
			    (unsigned long long)size, (unsigned long long)va, o->name,
			    (unsigned long long)o->va);
		return false;
	}
	if (name && name[0] && cs_mem_region_named(mem, name)) {
		cs_diag_set(d, CS_ERR_INPUT, "a region named '%s' already exists", name);
		return false;
	}
	if (name && strlen(name) >= CS_REGION_NAME_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "region name longer than %d characters",
			    CS_REGION_NAME_MAX - 1);
		return false;
	}
	if (mem->nregions == mem->cap_regions) {
		size_t cap = mem->cap_regions ? mem->cap_regions * 2 : 16;
		cs_region *r = realloc(mem->regions, cap * sizeof(*r));
		if (!r) {
			cs_diag_set(d, CS_ERR_NOMEM, "out of memory mapping a region");
			return false;
		}
		mem->regions = r;
		mem->cap_regions = cap;
	}
	if (name && name[0] && !names_reserve(mem)) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory naming a region");
		return false;
	}
	memmove(&mem->regions[at + 1], &mem->regions[at],
		(mem->nregions - at) * sizeof(*mem->regions));
	cs_region *r = &mem->regions[at];
	memset(r, 0, sizeof(*r));
	if (name)
		strcpy(r->name, name);
	r->va = va;
	r->size = size;
	r->client = client;
	mem->nregions++;
	mem->mapped_bytes += span;
	if (name && name[0]) {
		name_put(mem->names, mem->cap_names, name_hash(name), va + 1);
		mem->nnames++;
	}
	advance_packed(mem);
	return true;
}

bool cs_mem_map(cs_mem *mem, const char *name, uint64_t va, uint64_t size, cs_diag *d)
{
	return map_region(mem, name, va, size, NULL, d);
}

bool cs_mem_map_client(cs_mem *mem, const char *name, uint64_t va, uint64_t size, void *host,
		       cs_diag *d)
{
	if (!host || ((uintptr_t)host & (CS_MEM_CLIENT_ALIGN - 1))) {
		cs_diag_set(d, CS_ERR_INPUT, "client memory at %p for 0x%llx: the host pointer must "
			    "be non-NULL and %u-byte aligned", host, (unsigned long long)va,
			    CS_MEM_CLIENT_ALIGN);
		return false;
	}
	if (size & (CS_PAGE_SIZE - 1)) {
		cs_diag_set(d, CS_ERR_INPUT, "client memory at 0x%llx: size 0x%llx is not a multiple "
			    "of 4 KiB", (unsigned long long)va, (unsigned long long)size);
		return false;
	}
	if ((uintptr_t)host + size < (uintptr_t)host) {
		cs_diag_set(d, CS_ERR_INPUT, "client memory at %p: 0x%llx bytes wrap the host's "
			    "address space", host, (unsigned long long)size);
		return false;
	}
	return map_region(mem, name, va, size, host, d);
}

/* Rebuilds the name index from the regions (after one is removed). */
static void names_rebuild(cs_mem *mem)
{
	if (!mem->cap_names)
		return;
	memset(mem->names, 0, mem->cap_names * sizeof(*mem->names));
	mem->nnames = 0;
	for (size_t i = 0; i < mem->nregions; i++) {
		const cs_region *r = &mem->regions[i];
		if (r->name[0]) {
			name_put(mem->names, mem->cap_names, name_hash(r->name), r->va + 1);
			mem->nnames++;
		}
	}
}

static bool pages_drop(cs_mem *mem, uint64_t vpn_lo, uint64_t vpn_hi);

bool cs_mem_unmap(cs_mem *mem, uint64_t va, uint64_t size, cs_diag *d)
{
	const cs_region *r = cs_mem_region_at(mem, va);
	if (!r || r->va != va || r->size != size) {
		if (r)
			cs_diag_set(d, CS_ERR_INPUT, "unmap 0x%llx size 0x%llx: the region there is "
				    "'%s' at 0x%llx size 0x%llx; only a whole region unmaps",
				    (unsigned long long)va, (unsigned long long)size, r->name,
				    (unsigned long long)r->va, (unsigned long long)r->size);
		else
			cs_diag_set(d, CS_ERR_INPUT, "unmap 0x%llx size 0x%llx: nothing is mapped there",
				    (unsigned long long)va, (unsigned long long)size);
		return false;
	}
	size_t at = (size_t)(r - mem->regions);
	uint64_t span = round_up(size, CS_PAGE_SIZE);
	if (!r->client && !pages_drop(mem, va >> CS_PAGE_SHIFT, (va + span) >> CS_PAGE_SHIFT)) {
		cs_diag_set(d, CS_ERR_NOMEM, "unmap 0x%llx: out of memory rehashing the pages",
			    (unsigned long long)va);
		return false;
	}
	memmove(&mem->regions[at], &mem->regions[at + 1],
		(mem->nregions - at - 1) * sizeof(*mem->regions));
	mem->nregions--;
	mem->mapped_bytes -= span;
	names_rebuild(mem);
	mem->last_vpn = UINT64_MAX;
	mem->last_page = NULL;
	mem->packed_until = CS_MEM_ALLOC_BASE;
	advance_packed(mem);
	return true;
}

bool cs_mem_alloc(cs_mem *mem, const char *name, uint64_t size, uint64_t align, uint64_t *va,
		  cs_diag *d)
{
	if (align == 0 || (align & (align - 1))) {
		cs_diag_set(d, CS_ERR_INPUT, "alignment 0x%llx is not a power of two",
			    (unsigned long long)align);
		return false;
	}
	if (align < CS_PAGE_SIZE)
		align = CS_PAGE_SIZE;
	if (size == 0 || size > CS_MEM_MAX_MAPPED) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot allocate 0x%llx bytes", (unsigned long long)size);
		return false;
	}
	uint64_t span = round_up(size, CS_PAGE_SIZE);
	uint64_t cand = round_up(CS_MEM_ALLOC_BASE, align);
	/* no gap below packed_until: first fit cannot land there */
	if (round_up(mem->packed_until, align) > cand)
		cand = round_up(mem->packed_until, align);
	for (size_t i = region_lower_bound(mem, cand); i < mem->nregions; i++) {
		const cs_region *r = &mem->regions[i];
		if (cand + span <= r->va)
			break;
		uint64_t end = r->va + round_up(r->size, CS_PAGE_SIZE);
		if (end > cand)
			cand = round_up(end, align);
	}
	if (!cs_mem_map(mem, name, cand, size, d))
		return false;
	*va = cand;
	return true;
}

size_t cs_mem_region_count(const cs_mem *mem)
{
	return mem->nregions;
}

const cs_region *cs_mem_region(const cs_mem *mem, size_t i)
{
	return i < mem->nregions ? &mem->regions[i] : NULL;
}

const cs_region *cs_mem_region_named(const cs_mem *mem, const char *name)
{
	if (!name[0]) {
		/* anonymous regions are not indexed */
		for (size_t i = 0; i < mem->nregions; i++)
			if (!mem->regions[i].name[0])
				return &mem->regions[i];
		return NULL;
	}
	if (!mem->cap_names)
		return NULL;
	uint64_t h = name_hash(name);
	for (size_t i = (size_t)h & (mem->cap_names - 1); mem->names[i].va1;
	     i = (i + 1) & (mem->cap_names - 1)) {
		if (mem->names[i].hash != h)
			continue;
		const cs_region *r = cs_mem_region_at(mem, mem->names[i].va1 - 1);
		if (r && r->va == mem->names[i].va1 - 1 && !strcmp(r->name, name))
			return r;
	}
	return NULL;
}

const cs_region *cs_mem_region_at(const cs_mem *mem, uint64_t va)
{
	size_t i = region_lower_bound(mem, va);
	if (i < mem->nregions && mem->regions[i].va <= va)
		return &mem->regions[i];
	return NULL;
}

/* Length of the mapped run starting at va, capped at len. */
static uint64_t mapped_run(const cs_mem *mem, uint64_t va, uint64_t len)
{
	uint64_t done = 0;
	while (done < len) {
		const cs_region *r = cs_mem_region_at(mem, va + done);
		if (!r)
			break;
		uint64_t end = r->va + round_up(r->size, CS_PAGE_SIZE);
		uint64_t here = end - (va + done);
		done += here < len - done ? here : len - done;
	}
	return done;
}

bool cs_mem_mapped(const cs_mem *mem, uint64_t va, uint64_t len)
{
	if (len == 0)
		return true;
	if (va + len < va)
		return false;
	return mapped_run(mem, va, len) == len;
}

static size_t slot_index(uint64_t vpn, size_t nslots)
{
	uint64_t h = vpn * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (nslots - 1);
}

static bool grow_slots(cs_mem *mem)
{
	size_t n = mem->nslots ? mem->nslots * 2 : 1024;
	page_slot *s = calloc(n, sizeof(*s));
	if (!s)
		return false;
	for (size_t i = 0; i < mem->nslots; i++) {
		if (!mem->slots[i].key)
			continue;
		size_t j = slot_index(mem->slots[i].key - 1, n);
		while (s[j].key)
			j = (j + 1) & (n - 1);
		s[j] = mem->slots[i];
	}
	free(mem->slots);
	mem->slots = s;
	mem->nslots = n;
	return true;
}

/* The client's bytes behind a vpn of a client region, else NULL. */
static uint8_t *client_page(cs_mem *mem, uint64_t vpn)
{
	const cs_region *r = cs_mem_region_at(mem, vpn << CS_PAGE_SHIFT);
	if (!r || !r->client)
		return NULL;
	mem->last_vpn = vpn;
	mem->last_page = r->client + ((vpn << CS_PAGE_SHIFT) - r->va);
	return mem->last_page;
}

/* The backing page of a vpn when it has one (a client's page always has). */
static uint8_t *page_find(cs_mem *mem, uint64_t vpn)
{
	if (vpn == mem->last_vpn)
		return mem->last_page;
	if (mem->nslots) {
		size_t j = slot_index(vpn, mem->nslots);
		while (mem->slots[j].key) {
			if (mem->slots[j].key == vpn + 1) {
				mem->last_vpn = vpn;
				mem->last_page = mem->slots[j].page;
				return mem->last_page;
			}
			j = (j + 1) & (mem->nslots - 1);
		}
	}
	return client_page(mem, vpn);
}

/* Frees the backed pages of [vpn_lo, vpn_hi) and rehashes the rest into a
 * new table; false (nothing changed) when that table cannot be allocated. */
static bool pages_drop(cs_mem *mem, uint64_t vpn_lo, uint64_t vpn_hi)
{
	if (!mem->nslots)
		return true;
	page_slot *n = calloc(mem->nslots, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < mem->nslots; i++) {
		page_slot *s = &mem->slots[i];
		if (!s->key)
			continue;
		if (s->key - 1 >= vpn_lo && s->key - 1 < vpn_hi) {
			free(s->page);
			mem->used_slots--;
			continue;
		}
		size_t j = slot_index(s->key - 1, mem->nslots);
		while (n[j].key)
			j = (j + 1) & (mem->nslots - 1);
		n[j] = *s;
	}
	free(mem->slots);
	mem->slots = n;
	return true;
}

/* The backing page of a mapped vpn, created zeroed on first touch. */
static uint8_t *page_of(cs_mem *mem, uint64_t vpn)
{
	uint8_t *found = page_find(mem, vpn);
	if (found)
		return found;
	if (!cs_mem_region_at(mem, vpn << CS_PAGE_SHIFT))
		return NULL;
	if ((uint64_t)(mem->used_slots + 1) * CS_PAGE_SIZE > mem->max_backed) {
		mem->backing_exhausted = true;
		return NULL;
	}
	if ((mem->used_slots + 1) * 2 > mem->nslots && !grow_slots(mem))
		return NULL;
	uint8_t *page = calloc(1, CS_PAGE_SIZE);
	if (!page)
		return NULL;
	size_t j = slot_index(vpn, mem->nslots);
	while (mem->slots[j].key)
		j = (j + 1) & (mem->nslots - 1);
	mem->slots[j].key = vpn + 1;
	mem->slots[j].page = page;
	mem->used_slots++;
	mem->last_vpn = vpn;
	mem->last_page = page;
	return page;
}

uint8_t *cs_mem_span(cs_mem *mem, uint64_t va, uint64_t len)
{
	uint64_t off = va & (CS_PAGE_SIZE - 1);
	if (len > CS_PAGE_SIZE - off)
		return NULL;
	uint8_t *page = page_of(mem, va >> CS_PAGE_SHIFT);
	return page ? page + off : NULL;
}

bool cs_mem_read(cs_mem *mem, uint64_t va, void *dst, size_t len, uint64_t *fault_va)
{
	if (va + len < va || !cs_mem_mapped(mem, va, len)) {
		if (fault_va)
			*fault_va = va + (va + len < va ? 0 : mapped_run(mem, va, len));
		return false;
	}
	uint8_t *out = dst;
	while (len) {
		uint64_t off = va & (CS_PAGE_SIZE - 1);
		size_t n = CS_PAGE_SIZE - off < len ? (size_t)(CS_PAGE_SIZE - off) : len;
		const uint8_t *page = page_find(mem, va >> CS_PAGE_SHIFT);
		if (page)
			memcpy(out, page + off, n);
		else
			memset(out, 0, n); /* mapped, never written */
		out += n;
		va += n;
		len -= n;
	}
	return true;
}

bool cs_mem_write(cs_mem *mem, uint64_t va, const void *src, size_t len, uint64_t *fault_va)
{
	if (va + len < va || !cs_mem_mapped(mem, va, len)) {
		if (fault_va)
			*fault_va = va + (va + len < va ? 0 : mapped_run(mem, va, len));
		return false;
	}
	const uint8_t *in = src;
	while (len) {
		uint64_t off = va & (CS_PAGE_SIZE - 1);
		size_t n = CS_PAGE_SIZE - off < len ? (size_t)(CS_PAGE_SIZE - off) : len;
		uint8_t *page = page_of(mem, va >> CS_PAGE_SHIFT);
		if (!page) {
			if (fault_va)
				*fault_va = va;
			return false;
		}
		memcpy(page + off, in, n);
		in += n;
		va += n;
		len -= n;
	}
	return true;
}

uint64_t cs_mem_pages_backed(const cs_mem *mem)
{
	return mem->used_slots;
}

void cs_mem_set_max_backed(cs_mem *mem, uint64_t bytes)
{
	mem->max_backed = bytes < CS_MEM_MAX_BACKED ? bytes : CS_MEM_MAX_BACKED;
}

bool cs_mem_backing_exhausted(const cs_mem *mem)
{
	return mem->backing_exhausted;
}

static uint8_t *port_span(void *ctx, uint64_t va, uint64_t len)
{
	return cs_mem_span(ctx, va, len);
}

static bool port_read(void *ctx, uint64_t va, void *dst, size_t len, uint64_t *fault_va)
{
	return cs_mem_read(ctx, va, dst, len, fault_va);
}

static bool port_write(void *ctx, uint64_t va, const void *src, size_t len, uint64_t *fault_va)
{
	return cs_mem_write(ctx, va, src, len, fault_va);
}

static bool port_mapped(void *ctx, uint64_t va, uint64_t len)
{
	return cs_mem_mapped(ctx, va, len);
}

cs_mem_port cs_mem_port_of(cs_mem *mem)
{
	return (cs_mem_port){ .ctx = mem, .span = port_span, .read = port_read,
			      .write = port_write, .mapped = port_mapped };
}
