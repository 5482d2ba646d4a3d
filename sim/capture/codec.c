/* SPDX-License-Identifier: MIT */
/* The capture codec (docs/capture.md). libc only: chainsim-hw links it on a
 * GPU machine. The reader treats the file as hostile: every length is checked
 * against what is left before it is used, every record carries a CRC-32 over
 * its type, length and payload, and the answer to bad input is a diagnosis at
 * a byte offset, never a crash. */
#include "chainsim/capture.h"
#include "chainsim/file.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- little-endian fields and CRC-32 (IEEE 802.3, reflected) ------------- */

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* crc_table[n]: the CRC of byte n, polynomial 0xEDB88320 (reflected). */
static const uint32_t crc_table[256] = {
	0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
	0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
	0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
	0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
	0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
	0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
	0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
	0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
	0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
	0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
	0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
	0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
	0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
	0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
	0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
	0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
	0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
	0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
	0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
	0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
	0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
	0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
	0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
	0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
	0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
	0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
	0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
	0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
	0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
	0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
	0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
	0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
	0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
	0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
	0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
	0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
	0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
	0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
	0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
	0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
	0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
	0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
	0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

uint32_t cs_capture_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	crc = ~crc;
	for (size_t i = 0; i < len; i++)
		crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* A record's checksum covers its type and length too: a flipped type that
 * happens to fit another record's layout is still refused. */
static uint32_t record_crc(const uint8_t *hdr, const uint8_t *payload, uint32_t len)
{
	return cs_capture_crc32(cs_capture_crc32(0, hdr, 8), payload, len);
}

uint32_t cs_capture_arch_code(cs_arch arch)
{
	switch (arch) {
	case CS_ARCH_AMPERE: return 1;
	case CS_ARCH_ADA: return 2;
	case CS_ARCH_HOPPER: return 3;
	case CS_ARCH_BLACKWELL: return 4;
	default: return 0;
	}
}

static bool arch_from_code(uint32_t code, cs_arch *out)
{
	for (int a = 0; a < CS_ARCH_COUNT; a++)
		if (cs_capture_arch_code((cs_arch)a) == code) {
			*out = (cs_arch)a;
			return true;
		}
	return false;
}

const char *cs_capture_rec_name(cs_capture_rec t)
{
	static const char *const names[] = { "?", "channel", "region", "write", "build", "module",
					     "gpfifo", "submit", "wait", "readback", "end",
					     "cooperative", "ptx-name" };
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "?";
}

const char *cs_capture_rb_kind_name(cs_capture_rb_kind k)
{
	switch (k) {
	case CS_CAP_RB_WAIT: return "wait";
	case CS_CAP_RB_RELEASE: return "release";
	case CS_CAP_RB_HOST_SEM: return "host-semaphore";
	case CS_CAP_RB_MEMORY: return "memory";
	default: return "?";
	}
}

/* Fixed payload sizes; the variable part (bytes, PTX, detail) follows. */
enum {
	NAME_FIELD = 64,
	SZ_CHANNEL = 8 + NAME_FIELD,
	SZ_REGION = 24 + NAME_FIELD,
	SZ_WRITE = 8,
	SZ_BUILD = 32,
	SZ_MODULE = NAME_FIELD + 8,
	SZ_GPFIFO = 12,
	SZ_SUBMIT = 4,
	SZ_WAIT = 20,
	SZ_READBACK = 16 + NAME_FIELD,
	SZ_END = 4,
	SZ_COOPERATIVE = 16,
	SZ_PTX_NAME = NAME_FIELD,
	COOPERATIVE_WORKSPACE = 8, /* u32 size, u32 barrier word */
	BUILD_DETAIL_MAX = 255,
};

/* ---- reading --------------------------------------------------------------- */

typedef struct reader {
	const char *name;
	cs_diag *d;
	cs_capture *c;
	unsigned va_bits;
	uint32_t nchannels;
	char chan_names[CS_CAPTURE_MAX_CHANNELS][CS_CAPTURE_NAME_MAX + 1];
	size_t cap_items;
	uint64_t readback_bytes, readbacks; /* the read-backs so far */
	/* the regions so far, by guest VA and by host VA: trees of span, which
	 * never overlap one another (an overlap is refused) */
	void *by_guest, *by_host;
} reader;

/* A region's range on one side; item indexes c->items, which may move. */
typedef struct span {
	uint64_t va, size;
	size_t item;
} span;

/* Disjoint spans in address order; two that overlap compare equal, so a
 * lookup of any range finds a span it overlaps. */
static int span_order(const void *a, const void *b)
{
	const span *x = a, *y = b;
	if (x->va + x->size <= y->va)
		return -1;
	if (y->va + y->size <= x->va)
		return 1;
	return 0;
}

/* The span of tree that overlaps [va, va + size), or NULL. */
static const span *span_overlapping(void *const *tree, uint64_t va, uint64_t size)
{
	span key = { .va = va, .size = size };
	void *hit = tfind(&key, tree, span_order);
	return hit ? *(const span **)hit : NULL;
}

/* Adds [va, va + size) of item to tree; false when out of memory. */
static bool span_add(void **tree, uint64_t va, uint64_t size, size_t item)
{
	span *s = malloc(sizeof(*s));
	if (!s)
		return false;
	*s = (span){ .va = va, .size = size, .item = item };
	void *at = tsearch(s, tree, span_order);
	if (!at || *(span **)at != s) {
		free(s);
		return false;
	}
	return true;
}

#define BAD(r, off, ...) (cs_diag_at_offset((r)->d, CS_ERR_INPUT, (r)->name, (off), __VA_ARGS__), false)

/* A NUL-terminated name in a 64-byte field, zero after the NUL. */
static bool get_name(reader *r, const uint8_t *p, uint64_t off, bool empty_ok, char *out)
{
	const uint8_t *nul = memchr(p, 0, NAME_FIELD);
	if (!nul)
		return BAD(r, off, "name field is not NUL-terminated within its %d bytes", NAME_FIELD);
	size_t n = (size_t)(nul - p);
	for (size_t i = n; i < NAME_FIELD; i++)
		if (p[i])
			return BAD(r, off + i, "name field has bytes after its NUL");
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return BAD(r, off + i, "name has control byte 0x%02x", p[i]);
	if (!n && !empty_ok)
		return BAD(r, off, "name is empty");
	memcpy(out, p, n);
	out[n] = 0;
	return true;
}

static bool range_ok(reader *r, uint64_t off, const char *what, uint64_t va, uint64_t size)
{
	if (va & 0xfff)
		return BAD(r, off, "%s 0x%llx is not 4 KiB aligned", what, (unsigned long long)va);
	if (size == 0 || size > CS_CAPTURE_MAX_REGION)
		return BAD(r, off, "region size %llu out of range (1..%llu)", (unsigned long long)size,
			   (unsigned long long)CS_CAPTURE_MAX_REGION);
	uint64_t limit = r->va_bits >= 64 ? UINT64_MAX : (1ull << r->va_bits);
	if (va >= limit || size > limit - va)
		return BAD(r, off, "%s 0x%llx + 0x%llx passes the arch's %u-bit address space", what,
			   (unsigned long long)va, (unsigned long long)size, r->va_bits);
	return true;
}

/* The region before this record containing [va, va + len), or NULL. */
static const cs_capture_item *region_of(const reader *r, uint64_t va, uint64_t len)
{
	const span *s = span_overlapping(&r->by_guest, va, 1);
	if (!s)
		return NULL;
	const cs_capture_item *it = &r->c->items[s->item];
	return len <= it->size && va - it->va <= it->size - len ? it : NULL;
}

static bool channel_known(reader *r, uint64_t off, uint32_t ch)
{
	if (ch >= r->nchannels)
		return BAD(r, off, "channel %u has no channel record before it", ch);
	return true;
}

static bool read_module(reader *r, cs_capture_item *it, const uint8_t *p, uint32_t len, uint64_t poff)
{
	if (!get_name(r, p, poff, false, it->name))
		return false;
	uint64_t flen = get64(p + NAME_FIELD);
	if (flen == 0 || flen > len - SZ_MODULE)
		return BAD(r, poff + NAME_FIELD, "module file of %llu bytes; the record holds %u",
			   (unsigned long long)flen, len - SZ_MODULE);
	it->bytes = p + SZ_MODULE;
	it->nbytes = flen;
	it->nptx = len - SZ_MODULE - flen;
	it->ptx = it->nptx ? it->bytes + flen : NULL;
	return true;
}

/* off: the record's; the name names the PTX of the module record before it. */
static bool read_ptx_name(reader *r, cs_capture_item *it, const uint8_t *p, uint64_t off)
{
	const cs_capture *c = r->c;
	const cs_capture_item *before = c->nitems ? &c->items[c->nitems - 1] : NULL;
	if (!before || before->type != CS_CAP_MODULE || !before->nptx)
		return BAD(r, off, "a ptx-name record follows a module record that holds PTX; "
			   "this one follows %s", before ? cs_capture_rec_name(before->type) : "nothing");
	return get_name(r, p, off + CS_CAPTURE_RECORD_HEADER, false, it->name);
}

static bool read_cooperative(reader *r, cs_capture_item *it, const uint8_t *p, uint64_t poff)
{
	it->va = get64(p);
	it->value = get64(p + 8);
	if (it->va & 0xff || !region_of(r, it->va, 1))
		return BAD(r, poff, "cooperative launch's QMD at 0x%llx: expected a 256-byte aligned "
			   "address inside one region", (unsigned long long)it->va);
	if (it->value & 3 || !region_of(r, it->value, COOPERATIVE_WORKSPACE))
		return BAD(r, poff + 8, "grid workspace at 0x%llx: expected %d bytes, 4-byte aligned, "
			   "inside one region", (unsigned long long)it->value, COOPERATIVE_WORKSPACE);
	return true;
}

static bool read_record(reader *r, cs_capture_item *it, const uint8_t *p, uint32_t len, uint64_t off)
{
	cs_capture *c = r->c;
	uint64_t poff = off + CS_CAPTURE_RECORD_HEADER; /* offset of the payload */
	static const uint32_t fixed[] = { 0, SZ_CHANNEL, SZ_REGION, SZ_WRITE, SZ_BUILD, SZ_MODULE,
					  SZ_GPFIFO, SZ_SUBMIT, SZ_WAIT, SZ_READBACK, SZ_END,
					  SZ_COOPERATIVE, SZ_PTX_NAME };
	bool variable = it->type == CS_CAP_REGION || it->type == CS_CAP_WRITE ||
			it->type == CS_CAP_BUILD || it->type == CS_CAP_MODULE;
	if (variable ? len < fixed[it->type] : len != fixed[it->type])
		return BAD(r, off + 4, "%s record length %u; expected %s%u", cs_capture_rec_name(it->type),
			   len, variable ? "at least " : "", fixed[it->type]);
	switch (it->type) {
	case CS_CAP_CHANNEL: {
		it->channel = get32(p);
		it->entries = get32(p + 4);
		if (it->channel != r->nchannels || it->channel >= CS_CAPTURE_MAX_CHANNELS)
			return BAD(r, poff, "channel id %u; expected %u (ids are dense, in order, below %d)",
				   it->channel, r->nchannels, CS_CAPTURE_MAX_CHANNELS);
		if (it->entries < 2 || it->entries > 65536)
			return BAD(r, poff + 4, "ring of %u entries out of range (2..65536)", it->entries);
		if (!get_name(r, p + 8, poff + 8, false, it->name))
			return false;
		for (uint32_t i = 0; i < r->nchannels; i++)
			if (!strcmp(r->chan_names[i], it->name))
				return BAD(r, poff + 8, "channel name '%s' is used twice", it->name);
		memcpy(r->chan_names[r->nchannels++], it->name, sizeof(it->name));
		return true;
	}
	case CS_CAP_REGION:
		it->va = get64(p);
		it->host_va = get64(p + 8);
		it->size = get64(p + 16);
		if (!range_ok(r, poff, "guest VA", it->va, it->size) ||
		    !range_ok(r, poff + 8, "host VA", it->host_va, it->size) ||
		    !get_name(r, p + 24, poff + 24, true, it->name))
			return false;
		it->bytes = p + SZ_REGION;
		it->nbytes = len - SZ_REGION;
		if (it->nbytes > it->size)
			return BAD(r, poff + SZ_REGION, "%llu initial bytes for a region of %llu",
				   (unsigned long long)it->nbytes, (unsigned long long)it->size);
		const span *o = span_overlapping(&r->by_guest, it->va, it->size);
		if (o)
			return BAD(r, poff, "region 0x%llx+0x%llx overlaps the region at 0x%llx "
				   "(record at byte 0x%llx)", (unsigned long long)it->va,
				   (unsigned long long)it->size, (unsigned long long)o->va,
				   (unsigned long long)c->items[o->item].offset);
		o = span_overlapping(&r->by_host, it->host_va, it->size);
		if (o)
			return BAD(r, poff + 8, "host VA 0x%llx+0x%llx overlaps the region at host "
				   "0x%llx", (unsigned long long)it->host_va,
				   (unsigned long long)it->size, (unsigned long long)o->va);
		if (!span_add(&r->by_guest, it->va, it->size, c->nitems) ||
		    !span_add(&r->by_host, it->host_va, it->size, c->nitems)) {
			cs_diag_set(r->d, CS_ERR_NOMEM, "out of memory reading the capture's regions");
			return false;
		}
		return true;
	case CS_CAP_WRITE:
		it->va = get64(p);
		it->bytes = p + SZ_WRITE;
		it->nbytes = len - SZ_WRITE;
		if (!it->nbytes)
			return BAD(r, off + 4, "write of no bytes");
		if (!region_of(r, it->va, it->nbytes))
			return BAD(r, poff, "write of %llu bytes at 0x%llx is not inside one region",
				   (unsigned long long)it->nbytes, (unsigned long long)it->va);
		return true;
	case CS_CAP_BUILD:
		it->channel = get32(p);
		it->va = get64(p + 8);
		it->value = get64(p + 16);
		it->aux = get64(p + 24);
		it->bytes = p + SZ_BUILD;
		it->nbytes = len - SZ_BUILD;
		if (get32(p + 4))
			return BAD(r, poff + 4, "reserved field is not zero");
		if (!channel_known(r, poff, it->channel))
			return false;
		if (it->nbytes > BUILD_DETAIL_MAX || memchr(it->bytes, 0, it->nbytes))
			return BAD(r, poff + SZ_BUILD, "build detail: at most %d bytes, no NUL",
				   BUILD_DETAIL_MAX);
		return true;
	case CS_CAP_MODULE:
		return read_module(r, it, p, len, poff);
	case CS_CAP_GPFIFO:
		it->channel = get32(p);
		it->lo = get32(p + 4);
		it->hi = get32(p + 8);
		return channel_known(r, poff, it->channel);
	case CS_CAP_SUBMIT:
		it->channel = get32(p);
		return channel_known(r, poff, it->channel);
	case CS_CAP_WAIT:
		it->va = get64(p);
		it->value = get64(p + 8);
		it->size = get16(p + 16);
		it->aux = get16(p + 18);
		if (it->size != 4 && it->size != 8)
			return BAD(r, poff + 16, "wait width %llu; expected 4 or 8",
				   (unsigned long long)it->size);
		if (it->aux != CS_CAP_WAIT_EQ && it->aux != CS_CAP_WAIT_GEQ)
			return BAD(r, poff + 18, "wait comparison %llu; expected 0 (==) or 1 (>=)",
				   (unsigned long long)it->aux);
		if (it->size == 4 && it->value > 0xffffffffull)
			return BAD(r, poff + 8, "value 0x%llx does not fit a 32-bit wait",
				   (unsigned long long)it->value);
		if (it->va & (it->size - 1))
			return BAD(r, poff, "wait address 0x%llx is not %llu-byte aligned",
				   (unsigned long long)it->va, (unsigned long long)it->size);
		return true;
	case CS_CAP_READBACK:
		it->va = get64(p);
		it->size = get32(p + 8);
		it->aux = get32(p + 12);
		if (it->aux < CS_CAP_RB_WAIT || it->aux > CS_CAP_RB_MEMORY)
			return BAD(r, poff + 12, "read-back kind %llu unknown (1..4)",
				   (unsigned long long)it->aux);
		if (it->size == 0 || it->size > CS_CAPTURE_MAX_READBACK)
			return BAD(r, poff + 8, "read-back of %llu bytes out of range (1..%u)",
				   (unsigned long long)it->size, CS_CAPTURE_MAX_READBACK);
		if (!region_of(r, it->va, it->size))
			return BAD(r, poff, "read-back of %llu bytes at 0x%llx is not inside one region",
				   (unsigned long long)it->size, (unsigned long long)it->va);
		if (it->size > CS_CAPTURE_MAX_READBACK_TOTAL - r->readback_bytes)
			return BAD(r, poff + 8, "read-back of %llu bytes brings the read-backs to %llu "
				   "bytes in %llu, more than the %u a capture may read back",
				   (unsigned long long)it->size,
				   (unsigned long long)(r->readback_bytes + it->size),
				   (unsigned long long)r->readbacks + 1, CS_CAPTURE_MAX_READBACK_TOTAL);
		r->readback_bytes += it->size;
		r->readbacks++;
		return get_name(r, p + 16, poff + 16, true, it->name);
	case CS_CAP_COOPERATIVE:
		return read_cooperative(r, it, p, poff);
	case CS_CAP_PTX_NAME:
		return read_ptx_name(r, it, p, off);
	default:
		return BAD(r, off, "record type %u unknown", it->type);
	}
}

static bool read_header(reader *r, const uint8_t *b, size_t len)
{
	cs_capture *c = r->c;
	if (len < CS_CAPTURE_HEADER_SIZE)
		return BAD(r, len, "truncated: %zu bytes, the header alone is %d", len,
			   CS_CAPTURE_HEADER_SIZE);
	if (memcmp(b, CS_CAPTURE_MAGIC, 8))
		return BAD(r, 0, "not a chainsim capture (magic '%s' missing)", CS_CAPTURE_MAGIC);
	uint32_t crc = cs_capture_crc32(0, b, 28);
	if (get32(b + 28) != crc)
		return BAD(r, 28, "header checksum 0x%08x does not match its bytes (0x%08x)",
			   get32(b + 28), crc);
	unsigned version = (unsigned)(b[8] | b[9] << 8);
	if (version != CS_CAPTURE_VERSION)
		return BAD(r, 8, "capture version %u; this reader knows %d", version,
			   CS_CAPTURE_VERSION);
	if ((b[10] | b[11] << 8) != CS_CAPTURE_HEADER_SIZE)
		return BAD(r, 10, "header size %u; expected %d", b[10] | b[11] << 8,
			   CS_CAPTURE_HEADER_SIZE);
	if (!arch_from_code(get32(b + 12), &c->arch))
		return BAD(r, 12, "arch code %u unknown (1 ampere, 2 ada, 3 hopper, 4 blackwell)",
			   get32(b + 12));
	const cs_arch_info *ai = cs_arch_get(c->arch);
	c->host_class = get32(b + 16);
	c->compute_class = get32(b + 20);
	c->copy_class = get32(b + 24);
	if (c->host_class != ai->host_class)
		return BAD(r, 16, "host class 0x%x is not %s's 0x%x", c->host_class, ai->name,
			   ai->host_class);
	if (!cs_class_valid_for(c->compute_class, c->arch) ||
	    cs_class_kind_of(c->compute_class) != CS_CLASS_COMPUTE)
		return BAD(r, 20, "compute class 0x%x is not one %s accepts", c->compute_class, ai->name);
	if (!cs_class_valid_for(c->copy_class, c->arch) ||
	    cs_class_kind_of(c->copy_class) != CS_CLASS_COPY)
		return BAD(r, 24, "copy class 0x%x is not one %s accepts", c->copy_class, ai->name);
	r->va_bits = ai->va_bits;
	return true;
}

static bool read_all(reader *r)
{
	cs_capture *c = r->c;
	const uint8_t *b = c->image;
	size_t len = c->size;
	if (len > CS_CAPTURE_MAX_FILE)
		return BAD(r, CS_CAPTURE_MAX_FILE, "file larger than %llu bytes",
			   (unsigned long long)CS_CAPTURE_MAX_FILE);
	if (!read_header(r, b, len))
		return false;
	size_t off = CS_CAPTURE_HEADER_SIZE;
	for (;;) {
		if (off == len)
			return BAD(r, off, "truncated: no end record after %zu records", c->nitems);
		if (len - off < CS_CAPTURE_RECORD_HEADER)
			return BAD(r, off, "truncated: %zu bytes left, a record header is %d", len - off,
				   CS_CAPTURE_RECORD_HEADER);
		uint32_t type = get32(b + off), rlen = get32(b + off + 4);
		if (rlen > len - off - CS_CAPTURE_RECORD_HEADER)
			return BAD(r, off + 4, "truncated: record of %u bytes, %zu left", rlen,
				   len - off - CS_CAPTURE_RECORD_HEADER);
		const uint8_t *p = b + off + CS_CAPTURE_RECORD_HEADER;
		uint32_t crc = record_crc(b + off, p, rlen);
		if (get32(b + off + 8) != crc)
			return BAD(r, off + 8, "record checksum 0x%08x does not match its bytes (0x%08x)",
				   get32(b + off + 8), crc);
		if (type == CS_CAP_END) {
			if (rlen != SZ_END)
				return BAD(r, off + 4, "end record length %u; expected %d", rlen, SZ_END);
			if (get32(p) != c->nitems)
				return BAD(r, off + 12, "end record counts %u records; the file has %zu",
					   get32(p), c->nitems);
			if (off + CS_CAPTURE_RECORD_HEADER + SZ_END != len)
				return BAD(r, off + CS_CAPTURE_RECORD_HEADER + SZ_END,
					   "%zu bytes after the end record",
					   len - off - CS_CAPTURE_RECORD_HEADER - SZ_END);
			return true;
		}
		if (c->nitems >= CS_CAPTURE_MAX_RECORDS)
			return BAD(r, off, "more than %u records", CS_CAPTURE_MAX_RECORDS);
		if (c->nitems == r->cap_items) {
			size_t n = r->cap_items ? r->cap_items * 2 : 64;
			cs_capture_item *ni = realloc(c->items, n * sizeof(*ni));
			if (!ni) {
				cs_diag_set(r->d, CS_ERR_NOMEM, "out of memory reading the capture");
				return false;
			}
			c->items = ni;
			r->cap_items = n;
		}
		cs_capture_item *it = &c->items[c->nitems];
		memset(it, 0, sizeof(*it));
		it->type = (cs_capture_rec)type;
		it->offset = off;
		if (type < CS_CAP_CHANNEL || type > CS_CAP_PTX_NAME)
			return BAD(r, off, "record type %u unknown", type);
		if (!read_record(r, it, p, rlen, off))
			return false;
		if (c->nitems == 0 && (it->type != CS_CAP_CHANNEL))
			return BAD(r, off, "the first record is %s; expected channel 0",
				   cs_capture_rec_name(it->type));
		c->nitems++;
		off += CS_CAPTURE_RECORD_HEADER + (size_t)rlen;
	}
}

cs_capture *cs_capture_parse(const uint8_t *bytes, size_t len, const char *name, cs_diag *d)
{
	cs_capture *c = calloc(1, sizeof(*c));
	reader *r = calloc(1, sizeof(*r));
	if (!c || !r || !(c->image = malloc(len ? len : 1))) {
		free(c);
		free(r);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory reading the capture");
		return NULL;
	}
	if (len)
		memcpy(c->image, bytes, len);
	c->size = len;
	c->crc = cs_capture_crc32(0, bytes, len);
	r->name = name;
	r->d = d;
	r->c = c;
	bool ok = read_all(r);
	tdestroy(r->by_guest, free);
	tdestroy(r->by_host, free);
	free(r);
	if (!ok) {
		cs_capture_free(c);
		return NULL;
	}
	return c;
}

cs_capture *cs_capture_load(const char *path, cs_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	if (!cs_file_read(path, CS_CAPTURE_MAX_FILE, "the capture", &buf, &len, d))
		return NULL;
	cs_capture *c = cs_capture_parse((const uint8_t *)buf, len, cs_file_name(path), d);
	free(buf);
	return c;
}

void cs_capture_free(cs_capture *c)
{
	if (!c)
		return;
	free(c->items);
	free(c->image);
	free(c);
}

bool cs_capture_is_capture(const char *path)
{
	/* a FIFO must not block the look (the reader then refuses it) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	char m[8];
	bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, m, 8) == 8 &&
		   !memcmp(m, CS_CAPTURE_MAGIC, 8);
	close(fd);
	return yes;
}

/* ---- writing --------------------------------------------------------------- */

struct cs_capture_writer {
	uint8_t *buf;
	size_t len, cap;
	uint32_t count;
	uint64_t readback_bytes, readbacks;
	bool failed;
};

static uint8_t *grow(cs_capture_writer *w, size_t n)
{
	if (w->failed)
		return NULL;
	if (n > w->cap - w->len) {
		size_t nc = w->cap ? w->cap : 4096;
		while (nc - w->len < n)
			nc *= 2;
		uint8_t *nb = realloc(w->buf, nc);
		if (!nb) {
			w->failed = true;
			return NULL;
		}
		w->buf = nb;
		w->cap = nc;
	}
	uint8_t *p = w->buf + w->len;
	memset(p, 0, n);
	w->len += n;
	return p;
}

cs_capture_writer *cs_capture_writer_new(cs_arch arch)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	cs_capture_writer *w = calloc(1, sizeof(*w));
	if (!w || !ai)
		return free(w), NULL;
	uint8_t *h = grow(w, CS_CAPTURE_HEADER_SIZE);
	if (!h)
		return cs_capture_writer_free(w), NULL;
	memcpy(h, CS_CAPTURE_MAGIC, 8);
	h[8] = CS_CAPTURE_VERSION;
	h[10] = CS_CAPTURE_HEADER_SIZE;
	put32(h + 12, cs_capture_arch_code(arch));
	put32(h + 16, ai->host_class);
	put32(h + 20, ai->compute_class);
	put32(h + 24, ai->copy_class);
	put32(h + 28, cs_capture_crc32(0, h, 28));
	return w;
}

void cs_capture_writer_free(cs_capture_writer *w)
{
	if (w) {
		free(w->buf);
		free(w);
	}
}

/* memcpy, with n == 0 allowed for a NULL src (an item without bytes). */
static void put_bytes(uint8_t *dst, const uint8_t *src, uint64_t n)
{
	if (n)
		memcpy(dst, src, n);
}

static bool put_name(uint8_t *p, const char *name, cs_diag *d)
{
	size_t n = strlen(name);
	if (n > CS_CAPTURE_NAME_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "name '%s' is longer than %d bytes", name,
			    CS_CAPTURE_NAME_MAX);
		return false;
	}
	memcpy(p, name, n);
	return true;
}

bool cs_capture_writer_add(cs_capture_writer *w, const cs_capture_item *it, cs_diag *d)
{
	uint64_t fixed, var = 0;
	switch (it->type) {
	case CS_CAP_CHANNEL: fixed = SZ_CHANNEL; break;
	case CS_CAP_REGION: fixed = SZ_REGION; var = it->nbytes; break;
	case CS_CAP_WRITE: fixed = SZ_WRITE; var = it->nbytes; break;
	case CS_CAP_BUILD: fixed = SZ_BUILD; var = it->nbytes; break;
	case CS_CAP_MODULE: fixed = SZ_MODULE; var = it->nbytes + it->nptx; break;
	case CS_CAP_GPFIFO: fixed = SZ_GPFIFO; break;
	case CS_CAP_SUBMIT: fixed = SZ_SUBMIT; break;
	case CS_CAP_WAIT: fixed = SZ_WAIT; break;
	case CS_CAP_COOPERATIVE: fixed = SZ_COOPERATIVE; break;
	case CS_CAP_PTX_NAME: fixed = SZ_PTX_NAME; break;
	case CS_CAP_READBACK:
		fixed = SZ_READBACK;
		if (it->size > CS_CAPTURE_MAX_READBACK_TOTAL - w->readback_bytes) {
			cs_diag_set(d, CS_ERR_INPUT, "read-back %s of %llu bytes brings the read-backs "
				    "to %llu bytes in %llu, more than the %u a capture may read back",
				    it->name, (unsigned long long)it->size,
				    (unsigned long long)(w->readback_bytes + it->size),
				    (unsigned long long)w->readbacks + 1, CS_CAPTURE_MAX_READBACK_TOTAL);
			return false;
		}
		break;
	default:
		cs_diag_set(d, CS_ERR_INTERNAL, "record type %u cannot be written", it->type);
		return false;
	}
	if (var > UINT32_MAX - fixed || w->len + fixed + var > CS_CAPTURE_MAX_FILE) {
		cs_diag_set(d, CS_ERR_INPUT, "%s record too large for a capture",
			    cs_capture_rec_name(it->type));
		return false;
	}
	size_t at = w->len;
	uint8_t *h = grow(w, CS_CAPTURE_RECORD_HEADER + fixed + var);
	if (!h) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory writing the capture");
		return false;
	}
	uint8_t *p = h + CS_CAPTURE_RECORD_HEADER;
	bool ok = true;
	switch (it->type) {
	case CS_CAP_CHANNEL:
		put32(p, it->channel);
		put32(p + 4, it->entries);
		ok = put_name(p + 8, it->name, d);
		break;
	case CS_CAP_REGION:
		put64(p, it->va);
		put64(p + 8, it->host_va);
		put64(p + 16, it->size);
		ok = put_name(p + 24, it->name, d);
		put_bytes(p + SZ_REGION, it->bytes, it->nbytes);
		break;
	case CS_CAP_WRITE:
		put64(p, it->va);
		put_bytes(p + SZ_WRITE, it->bytes, it->nbytes);
		break;
	case CS_CAP_BUILD:
		put32(p, it->channel);
		put64(p + 8, it->va);
		put64(p + 16, it->value);
		put64(p + 24, it->aux);
		put_bytes(p + SZ_BUILD, it->bytes, it->nbytes);
		break;
	case CS_CAP_MODULE:
		ok = put_name(p, it->name, d);
		put64(p + NAME_FIELD, it->nbytes);
		put_bytes(p + SZ_MODULE, it->bytes, it->nbytes);
		put_bytes(p + SZ_MODULE + it->nbytes, it->ptx, it->nptx);
		break;
	case CS_CAP_GPFIFO:
		put32(p, it->channel);
		put32(p + 4, it->lo);
		put32(p + 8, it->hi);
		break;
	case CS_CAP_SUBMIT:
		put32(p, it->channel);
		break;
	case CS_CAP_WAIT:
		put64(p, it->va);
		put64(p + 8, it->value);
		put16(p + 16, (uint16_t)it->size);
		put16(p + 18, (uint16_t)it->aux);
		break;
	case CS_CAP_READBACK:
		put64(p, it->va);
		put32(p + 8, (uint32_t)it->size);
		put32(p + 12, (uint32_t)it->aux);
		ok = put_name(p + 16, it->name, d);
		break;
	case CS_CAP_COOPERATIVE:
		put64(p, it->va);
		put64(p + 8, it->value);
		break;
	case CS_CAP_PTX_NAME:
		ok = put_name(p, it->name, d);
		break;
	default:
		break;
	}
	if (!ok) {
		w->len = at;
		return false;
	}
	put32(h, it->type);
	put32(h + 4, (uint32_t)(fixed + var));
	put32(h + 8, record_crc(h, p, (uint32_t)(fixed + var)));
	w->count++;
	if (it->type == CS_CAP_READBACK) {
		w->readback_bytes += it->size;
		w->readbacks++;
	}
	return true;
}

const uint8_t *cs_capture_writer_finish(cs_capture_writer *w, size_t *len)
{
	uint8_t *h = grow(w, CS_CAPTURE_RECORD_HEADER + SZ_END);
	if (!h)
		return NULL;
	put32(h, CS_CAP_END);
	put32(h + 4, SZ_END);
	put32(h + 12, w->count);
	put32(h + 8, record_crc(h, h + 12, SZ_END));
	*len = w->len;
	return w->buf;
}
