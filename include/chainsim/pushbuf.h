/* SPDX-License-Identifier: MIT */
/* The pushbuffer method header and the GPFIFO entry: the one place their bit
 * layouts live (open-gpu-doc clc56f.h; docs/hardware.md). Tiny inline encoders and decoders, one per
 * header kind, in the manner of Mesa's nv_push.h. */
#ifndef CHAINSIM_PUSHBUF_H
#define CHAINSIM_PUSHBUF_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_secop {
	CS_SECOP_RESERVED0 = 0, /* legacy/reserved forms: diagnosed */
	CS_SECOP_INC = 1,
	CS_SECOP_RESERVED2 = 2,
	CS_SECOP_NONINC = 3,
	CS_SECOP_IMMD = 4,
	CS_SECOP_ONEINC = 5,
	CS_SECOP_RESERVED6 = 6,
	CS_SECOP_END_SEG = 7,
} cs_secop;

enum {
	CS_PB_MAX_COUNT = 0x1fff,  /* 13-bit count */
	CS_PB_MAX_IMMD = 0x1fff,   /* 13-bit immediate */
	CS_PB_MAX_METHOD = 0x3ffc, /* byte offset of the last method (12-bit dword address) */
	CS_PB_HOST_METHODS = 0x100 /* below this, methods go to the host class */
};

/* Header fields. method is a byte offset (a multiple of 4 up to 0x3ffc). */
static inline uint32_t cs_pb_header(cs_secop op, uint32_t count_or_imm, uint32_t subch,
				    uint32_t method)
{
	return ((uint32_t)op << 29) | ((count_or_imm & 0x1fffu) << 16) | ((subch & 7u) << 13) |
	       ((method >> 2) & 0xfffu);
}
static inline uint32_t cs_pb_inc(uint32_t subch, uint32_t method, uint32_t count)
{ return cs_pb_header(CS_SECOP_INC, count, subch, method); }
static inline uint32_t cs_pb_noninc(uint32_t subch, uint32_t method, uint32_t count)
{ return cs_pb_header(CS_SECOP_NONINC, count, subch, method); }
static inline uint32_t cs_pb_oneinc(uint32_t subch, uint32_t method, uint32_t count)
{ return cs_pb_header(CS_SECOP_ONEINC, count, subch, method); }
static inline uint32_t cs_pb_immd(uint32_t subch, uint32_t method, uint32_t value)
{ return cs_pb_header(CS_SECOP_IMMD, value, subch, method); }
static inline uint32_t cs_pb_end_seg(void)
{ return cs_pb_header(CS_SECOP_END_SEG, 0, 0, 0); }

static inline cs_secop cs_pb_secop(uint32_t h) { return (cs_secop)(h >> 29); }
static inline uint32_t cs_pb_count(uint32_t h) { return (h >> 16) & 0x1fffu; }
static inline uint32_t cs_pb_subch(uint32_t h) { return (h >> 13) & 7u; }
static inline uint32_t cs_pb_method(uint32_t h) { return (h & 0xfffu) << 2; }

/* GPFIFO entry: two dwords. */
typedef struct cs_gp_entry {
	uint64_t addr;     /* pushbuffer VA (bits 39:2), 0 for control entries */
	uint32_t length;   /* dwords; 0 = control entry */
	uint32_t opcode;   /* control entries: 0 NOP, 1 illegal, 2/3 CRC, 4 Hopper extended base */
	bool fetch_cond;   /* word 0 bit 0 */
	bool subroutine;   /* LEVEL bit */
	bool sync;         /* SYNC bit: wait for the previous entry's work */
} cs_gp_entry;

enum {
	CS_GP_MAX_LENGTH = 0x1fffff, /* 21 bits */
	CS_GP_OPCODE_NOP = 0,
	CS_GP_OPCODE_ILLEGAL = 1,
	CS_GP_OPCODE_GP_CRC = 2,
	CS_GP_OPCODE_PB_CRC = 3,
	CS_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE = 4,
};

static inline void cs_gp_encode(const cs_gp_entry *e, uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)(e->addr & 0xfffffffcu) | (e->fetch_cond ? 1u : 0u);
	uint32_t addr_hi = e->length ? (uint32_t)((e->addr >> 32) & 0xffu) : (e->opcode & 0xffu);
	*hi = addr_hi | (e->subroutine ? 1u << 9 : 0u) | ((e->length & 0x1fffffu) << 10) |
	      (e->sync ? 1u << 31 : 0u);
}

static inline cs_gp_entry cs_gp_decode(uint32_t lo, uint32_t hi)
{
	cs_gp_entry e;
	e.length = (hi >> 10) & 0x1fffffu;
	e.fetch_cond = lo & 1u;
	e.subroutine = (hi >> 9) & 1u;
	e.sync = hi >> 31;
	e.opcode = e.length ? 0 : (hi & 0xffu);
	e.addr = e.length ? (((uint64_t)(hi & 0xffu) << 32) | (lo & 0xfffffffcu)) : 0;
	return e;
}

/* USERD layout (512 bytes per channel). */
enum {
	CS_USERD_SIZE = 512,
	CS_USERD_PUT = 0x40,
	CS_USERD_GET = 0x44,
	CS_USERD_GP_GET = 0x88,
	CS_USERD_GP_PUT = 0x8c,
	CS_USERMODE_DOORBELL = 0x90, /* offset in the usermode (C461/C661) page */
};

#ifdef __cplusplus
}
#endif

#endif
