/* SPDX-License-Identifier: MIT */
/* Sparse GPU virtual address spaces: 4 KiB pages backed on first touch, named
 * regions, the arch's address width enforced. An access to an unmapped address
 * fails and names the address; it never touches host memory. */
#ifndef CHAINSIM_MEM_H
#define CHAINSIM_MEM_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/diag.h"
#include "chainsim/ports.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cs_mem cs_mem;

enum { CS_REGION_NAME_MAX = 64 };

typedef struct cs_region {
	char name[CS_REGION_NAME_MAX];
	uint64_t va;
	uint64_t size; /* bytes as asked; the mapping covers whole pages */
	/* the client's own bytes behind a region mapped with cs_mem_map_client
	 * (read and written in place); NULL when chainsim backs the region */
	uint8_t *client;
} cs_region;

/* Where `alloc` without at= starts placing regions. */
#define CS_MEM_ALLOC_BASE 0x200000000ull
/* The most a VA space maps in all, and the most host memory it backs (pages
 * written to), so a hostile scenario or stream cannot exhaust the host. */
#define CS_MEM_MAX_MAPPED (64ull << 30)
#define CS_MEM_MAX_BACKED (8ull << 30)

CS_API cs_mem *cs_mem_new(unsigned va_bits);
CS_API void cs_mem_free(cs_mem *mem);
CS_API unsigned cs_mem_va_bits(const cs_mem *mem);

/* Map [va, va + size) under a name (may be "" for anonymous). va must be 4 KiB
 * aligned, size > 0; the range must fit the address width and overlap nothing. */
CS_API bool cs_mem_map(cs_mem *mem, const char *name, uint64_t va, uint64_t size, cs_diag *d);
/* Map [va, va + size) onto the client's memory at host: every access to the
 * range reads or writes host[va' - va] in place, and nothing outside
 * [host, host + size) is ever touched. va and size are multiples of 4 KiB
 * (so no page's tail lies beyond the client's bytes), host is 16-byte aligned
 * (the widest access the device makes); the range obeys cs_mem_map's rules.
 * The bytes must stay valid until the region is unmapped. */
#define CS_MEM_CLIENT_ALIGN 16u
CS_API bool cs_mem_map_client(cs_mem *mem, const char *name, uint64_t va, uint64_t size,
			      void *host, cs_diag *d);
/* Unmap the region mapped at exactly [va, va + size) (the size as mapped):
 * its chainsim-backed pages are freed, a client's bytes are left alone and
 * never touched again. A range that is not one whole region is refused. */
CS_API bool cs_mem_unmap(cs_mem *mem, uint64_t va, uint64_t size, cs_diag *d);
/* Place a region at the next free address aligned to align (a power of two; at
 * least 4 KiB is used) at or above CS_MEM_ALLOC_BASE. */
CS_API bool cs_mem_alloc(cs_mem *mem, const char *name, uint64_t size, uint64_t align, uint64_t *va,
		  cs_diag *d);

CS_API size_t cs_mem_region_count(const cs_mem *mem);
CS_API const cs_region *cs_mem_region(const cs_mem *mem, size_t i); /* sorted by va */
CS_API const cs_region *cs_mem_region_named(const cs_mem *mem, const char *name);
CS_API const cs_region *cs_mem_region_at(const cs_mem *mem, uint64_t va); /* containing va */

CS_API bool cs_mem_mapped(const cs_mem *mem, uint64_t va, uint64_t len);
CS_API bool cs_mem_read(cs_mem *mem, uint64_t va, void *dst, size_t len, uint64_t *fault_va);
CS_API bool cs_mem_write(cs_mem *mem, uint64_t va, const void *src, size_t len, uint64_t *fault_va);
/* Host pointer to [va, va + len) inside one mapped page, else NULL (also when
 * backing the page would pass CS_MEM_MAX_BACKED). Reads of never-written pages
 * through cs_mem_read see zeros and back nothing. */
CS_API uint8_t *cs_mem_span(cs_mem *mem, uint64_t va, uint64_t len);

CS_API uint64_t cs_mem_pages_backed(const cs_mem *mem);
/* Whether a write failed because CS_MEM_MAX_BACKED was reached (sticky). Such a
 * failure reports the address like a fault; callers that own the run turn this
 * into a limit error instead of blaming the guest. */
CS_API bool cs_mem_backing_exhausted(const cs_mem *mem);
/* Lower the backing limit (tests; never above CS_MEM_MAX_BACKED). */
CS_API void cs_mem_set_max_backed(cs_mem *mem, uint64_t bytes);

/* The port view of this address space (ctx = mem). */
CS_API cs_mem_port cs_mem_port_of(cs_mem *mem);

#ifdef __cplusplus
}
#endif

#endif
