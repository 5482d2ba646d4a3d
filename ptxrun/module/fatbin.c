/* SPDX-License-Identifier: MIT */
/* Fatbin containers as nvcc -fatbin writes them.
 *
 * Container header (16 bytes): u32 magic 0xBA55ED50, u16 version (1), u16 header
 * size (16), u64 size of the entries that follow. Several containers may follow
 * one another. Entry header (at least 0x40 bytes, little-endian):
 *   0x00 u16 kind (1 PTX, 2 ELF)   0x02 u16 version      0x04 u32 header size
 *   0x08 u64 payload size (padded) 0x10 u32 compressed size (0 when plain)
 *   0x18 u32 PTX ISA / ELF version 0x1c u32 SM (90 for sm_90)
 *   0x28 u64 flags: 0x1 64-bit, 0x2 debug, 0x10 linux, 0x2000 compressed (nvcc up
 *        to 12), 0x8000 compressed as a zstd frame (nvcc 13, PTX entries only
 *        by default)
 *   0x38 u64 size after decompression
 * The payload follows the entry header. Checked against nvcc 13.0's output in
 * tests/module (fixtures/kernels/out).
 *
 * zstd-compressed payloads (flag 0x8000) are decompressed (zstd.c, RFC 8878);
 * the older LZ scheme (flag 0x2000) is recognised and refused with how to
 * rebuild (--no-compress) when the entry the arch needs uses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

static const char *compression_name(uint64_t flags)
{
	if (flags & CS_FATBIN_FLAG_COMPRESS_ZSTD)
		return "zstd";
	if (flags & CS_FATBIN_FLAG_COMPRESS_LZ)
		return "nvcc's LZ";
	return NULL;
}

static bool push_entry(cs_module *m, const cs_fatbin_entry *e, cs_diag *d)
{
	cs_fatbin_entry *ne = realloc(m->entries, (m->nentries + 1) * sizeof(*ne));
	if (!ne) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	m->entries = ne;
	ne[m->nentries++] = *e;
	return true;
}

/* Walk every container and entry, checking each header against the bytes. */
static bool walk(cs_module *m, cs_diag *d)
{
	const uint8_t *b = m->file;
	size_t len = m->file_len;
	uint64_t off = 0;
	unsigned containers = 0;
	while (off < len) {
		/* trailing zero padding after the last container is allowed */
		if (containers) {
			uint64_t z = off;
			while (z < len && b[z] == 0)
				z++;
			if (z == len)
				break;
		}
		if (!cs_range_ok(off, CS_FATBIN_HDR_SIZE, len)) {
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, off,
					  "truncated fatbin header: %llu bytes left, need %d",
					  (unsigned long long)(len - off), CS_FATBIN_HDR_SIZE);
			return false;
		}
		uint32_t magic = cs_rd32(b + off);
		if (magic != CS_FATBIN_MAGIC) {
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, off,
					  "bad fatbin magic 0x%08x, expected 0x%08x", magic,
					  (unsigned)CS_FATBIN_MAGIC);
			return false;
		}
		uint16_t version = cs_rd16(b + off + 4);
		uint16_t hsize = cs_rd16(b + off + 6);
		uint64_t fsize = cs_rd64(b + off + 8);
		if (version != 1) {
			cs_diag_at_offset(d, CS_ERR_UNSUPPORTED, m->name, off + 4,
					  "fatbin version %u, this loader knows version 1", version);
			return false;
		}
		if (hsize < CS_FATBIN_HDR_SIZE || !cs_range_ok(off, hsize, len)) {
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, off + 6,
					  "fatbin header size %u is below %d or past the end", hsize,
					  CS_FATBIN_HDR_SIZE);
			return false;
		}
		uint64_t start = off + hsize;
		if (!cs_range_ok(start, fsize, len)) {
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, off + 8,
					  "fatbin says 0x%llx bytes of entries, only 0x%llx follow",
					  (unsigned long long)fsize, (unsigned long long)(len - start));
			return false;
		}
		uint64_t end = start + fsize, e = start;
		while (e < end) {
			if (end - e < CS_FATBIN_ENTRY_MIN) {
				cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e,
						  "truncated fatbin entry header: %llu bytes left, "
						  "need %d",
						  (unsigned long long)(end - e), CS_FATBIN_ENTRY_MIN);
				return false;
			}
			const uint8_t *h = b + e;
			cs_fatbin_entry fe = { 0 };
			uint16_t kind = cs_rd16(h);
			uint32_t ehs = cs_rd32(h + 4);
			uint64_t psize = cs_rd64(h + 8);
			if (kind != CS_FATBIN_PTX && kind != CS_FATBIN_ELF) {
				cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e,
						  "fatbin entry kind %u is neither 1 (PTX) nor 2 (ELF)",
						  kind);
				return false;
			}
			if (ehs < CS_FATBIN_ENTRY_MIN || ehs > end - e) {
				cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e + 4,
						  "fatbin entry header size 0x%x is below 0x%x or past "
						  "the container's end",
						  ehs, (unsigned)CS_FATBIN_ENTRY_MIN);
				return false;
			}
			if (!cs_range_ok(e + ehs, psize, end)) {
				cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e + 8,
						  "fatbin entry payload of 0x%llx bytes runs past the "
						  "container's end (0x%llx bytes left)",
						  (unsigned long long)psize,
						  (unsigned long long)(end - e - ehs));
				return false;
			}
			fe.kind = (cs_fatbin_kind)kind;
			fe.offset = e;
			fe.payload_size = psize;
			fe.sm = cs_rd32(h + 0x1c);
			uint64_t flags = cs_rd64(h + 0x28);
			fe.flags = (uint32_t)flags;
			fe.compressed = compression_name(flags) != NULL;
			fe.size = fe.compressed ? cs_rd64(h + 0x38) : psize;
			if (fe.compressed) {
				uint32_t csize = cs_rd32(h + 0x10);
				if (csize > psize) {
					cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e + 0x10,
							  "compressed size 0x%x exceeds the payload "
							  "(0x%llx bytes)",
							  csize, (unsigned long long)psize);
					return false;
				}
			}
			if (!push_entry(m, &fe, d))
				return false;
			e += ehs + psize;
		}
		containers++;
		off = end;
	}
	if (!m->nentries) {
		cs_diag_at_offset(d, CS_ERR_INPUT, m->name, 0, "the fatbin holds no entries");
		return false;
	}
	return true;
}

static uint64_t payload_off(const cs_module *m, const cs_fatbin_entry *e)
{
	return e->offset + cs_rd32(m->file + e->offset + 4);
}

/* SASS: the exact SM, else the highest SM of the same major below it (binary
 * compatibility within a major). PTX: the highest SM not above the target. */
static size_t pick(const cs_module *m, cs_fatbin_kind kind, unsigned want)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < m->nentries; i++) {
		const cs_fatbin_entry *e = &m->entries[i];
		if (e->kind != kind || e->sm > want)
			continue;
		if (kind == CS_FATBIN_ELF && e->sm / 10 != want / 10)
			continue;
		if (best == SIZE_MAX || e->sm > m->entries[best].sm)
			best = i;
	}
	return best;
}

static void list_sms(const cs_module *m, cs_fatbin_kind kind, char *buf, size_t len)
{
	size_t w = 0;
	buf[0] = 0;
	for (size_t i = 0; i < m->nentries && w < len; i++)
		if (m->entries[i].kind == kind)
			w += (size_t)snprintf(buf + w, len - w, "%ssm_%u", w ? ", " : "",
					      m->entries[i].sm);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The bytes of an entry: the payload itself, or its zstd frames decoded into
 * m->inflated[slot]. *where says what error offsets inside it count in. */
enum { CS_FATBIN_MAX_INFLATE = 64u << 20 };

static bool entry_bytes(cs_module *m, cs_fatbin_entry *e, int slot, const uint8_t **out,
			size_t *len, uint64_t *base, char *where, size_t wlen, cs_diag *d)
{
	uint64_t poff = payload_off(m, e);
	where[0] = 0;
	if (!e->compressed) {
		*out = m->file + poff;
		*len = (size_t)e->payload_size;
		*base = poff;
		snprintf(where, wlen, " (in the %s entry at byte 0x%llx)",
			 e->kind == CS_FATBIN_ELF ? "SASS" : "PTX", (unsigned long long)e->offset);
		return true;
	}
	if (!(e->flags & CS_FATBIN_FLAG_COMPRESS_ZSTD)) {
		cs_diag_at_offset(d, CS_ERR_UNSUPPORTED, m->name, e->offset + 0x28,
				  "the %s entry for sm_%u is compressed with %s, which chainsim "
				  "does not decompress (it reads zstd): rebuild with nvcc "
				  "--no-compress",
				  e->kind == CS_FATBIN_ELF ? "SASS" : "PTX", e->sm,
				  compression_name(e->flags));
		return false;
	}
	uint32_t csize = cs_rd32(m->file + e->offset + 0x10);
	size_t stored = csize ? csize : (size_t)e->payload_size;
	/* A few KB of zstd RLE blocks can declare hundreds of MiB: an entry may
	 * inflate to 1 MiB plus 64 times its compressed bytes, and never past
	 * 64 MiB (nvcc's own entries inflate about 3-7 times). */
	uint64_t cap = (1u << 20) + 64 * (uint64_t)stored;
	if (cap > CS_FATBIN_MAX_INFLATE)
		cap = CS_FATBIN_MAX_INFLATE;
	if (e->size == 0 || e->size > cap) {
		cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e->offset + 0x38,
				  "decompressed size 0x%llx is 0 or above the inflation cap of "
				  "0x%llx bytes for 0x%zx compressed bytes (1 MiB + 64x, at most "
				  "64 MiB)",
				  (unsigned long long)e->size, (unsigned long long)cap, stored);
		return false;
	}
	uint8_t *buf = malloc((size_t)e->size);
	if (!buf) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	size_t got = 0;
	if (!cs_zstd_decompress(m->file + poff, stored, poff, m->name, buf, (size_t)e->size, &got,
				d)) {
		free(buf);
		return false;
	}
	if (got != e->size) {
		free(buf);
		cs_diag_at_offset(d, CS_ERR_INPUT, m->name, e->offset + 0x38,
				  "entry says 0x%llx bytes decompressed, the frames gave 0x%zx",
				  (unsigned long long)e->size, got);
		return false;
	}
	free(m->inflated[slot]);
	m->inflated[slot] = buf;
	e->decompressed = true;
	*out = buf;
	*len = got;
	*base = 0;
	snprintf(where, wlen,
		 " (offset inside the zstd-decompressed %s entry at byte 0x%llx of the file)",
		 e->kind == CS_FATBIN_ELF ? "SASS" : "PTX", (unsigned long long)e->offset);
	return true;
}

bool cs_fatbin_parse(cs_module *m, cs_diag *d)
{
	if (!walk(m, d))
		return false;
	unsigned want = cs_arch_sm(m->arch);
	char have[160], where[160];
	size_t s = pick(m, CS_FATBIN_ELF, want);
	if (s == SIZE_MAX) {
		list_sms(m, CS_FATBIN_ELF, have, sizeof(have));
		cs_diag_at_offset(d, CS_ERR_UNSUPPORTED, m->name, 0,
				  "the fatbin has no SASS for %s (sm_%u); its SASS entries: %s. "
				  "chainsim matches launches by their SASS bytes, so rebuild with "
				  "-gencode arch=compute_%u,code=sm_%u",
				  cs_arch_get(m->arch)->name, want, have, want, want);
		return false;
	}
	cs_fatbin_entry *se = &m->entries[s];
	se->selected = true;
	const uint8_t *bytes;
	size_t len;
	uint64_t base;
	if (!entry_bytes(m, se, 0, &bytes, &len, &base, where, sizeof(where), d) ||
	    !cs_cubin_parse(m, bytes, len, base, where, d))
		return false;

	size_t p = pick(m, CS_FATBIN_PTX, want);
	if (p == SIZE_MAX) {
		list_sms(m, CS_FATBIN_PTX, have, sizeof(have));
		snprintf(m->ptx_note, sizeof(m->ptx_note),
			 "the fatbin has no PTX entry at or below sm_%u (PTX entries: %s)", want,
			 have);
		return true;
	}
	cs_fatbin_entry *pe = &m->entries[p];
	pe->selected = true;
	if (!entry_bytes(m, pe, 1, &bytes, &len, &base, where, sizeof(where), d))
		return false;
	/* the text is NUL-padded */
	while (len && bytes[len - 1] == 0)
		len--;
	if (memchr(bytes, 0, len)) {
		size_t at = (size_t)((const uint8_t *)memchr(bytes, 0, len) - bytes);
		if (pe->decompressed)
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, payload_off(m, pe),
					  "NUL byte at offset 0x%zx of the PTX text this zstd entry "
					  "decompresses to",
					  at);
		else
			cs_diag_at_offset(d, CS_ERR_INPUT, m->name, base + at,
					  "NUL byte inside PTX text%s", where);
		return false;
	}
	return cs_module_attach_ptx(m, (const char *)bytes, len, d);
}
