/* SPDX-License-Identifier: MIT */
/* The compute and copy engines (gr/): class tables, QMD codecs, the canonical
 * launch and copy method sequences, and the engine behind a cs_engine_port.
 *
 * gr/ sees only base and the ports (docs/architecture.md). Everything here hangs
 * off an object or is a constant table: no global mutable state. */
#ifndef CHAINSIM_GR_H
#define CHAINSIM_GR_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/cause.h"
#include "chainsim/classdesc.h"
#include "chainsim/diag.h"
#include "chainsim/ports.h"
#include "chainsim/pushbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Class tables (include/chainsim/compute.def, include/chainsim/copy.def)
 * ====================================================================== */

/* The method table of a compute (C6C0, C7C0, C9C0, CBC0, CDC0, CEC0) or copy
 * (C6B5, C7B5, C8B5, C9B5) class; NULL for any other id. */
CS_API const cs_class_desc *cs_gr_class(uint32_t cls);

/* Method byte offsets, generated from the class tables: CS_GR_<NAME> from
 * include/chainsim/compute.def, CS_CE_<NAME> from include/chainsim/copy.def.
 * A method has one offset in every class that has it, so the rows that only
 * narrow a field for later classes (H_UP, C7_UP's LAUNCH_DMA, U25) add no
 * constant of their own. */
#define CS_GR_KEEP_(...) __VA_ARGS__
#define CS_GR_DROP_(...)
#define CS_GR_M(when, name, off, cnt, str, f) CS_GR_IN_##when(CS_GR_##name = off,)
#define CS_GR_IN_ALL CS_GR_KEEP_
#define CS_GR_IN_PRE_H CS_GR_KEEP_
#define CS_GR_IN_H_UP CS_GR_DROP_
#define CS_GR_IN_H_NEW CS_GR_KEEP_
enum {
#include "chainsim/compute.def"
};
#undef CS_GR_M
#define CS_GR_M(when, name, off, cnt, str, f) CS_GR_IN_##when(CS_CE_##name = off,)
#define CS_GR_IN_C6 CS_GR_DROP_
#define CS_GR_IN_C7_UP CS_GR_KEEP_
#define CS_GR_IN_U17 CS_GR_KEEP_
#define CS_GR_IN_U25 CS_GR_DROP_
enum {
#include "chainsim/copy.def"
};
#undef CS_GR_M
#undef CS_GR_IN_ALL
#undef CS_GR_IN_PRE_H
#undef CS_GR_IN_H_UP
#undef CS_GR_IN_H_NEW
#undef CS_GR_IN_C6
#undef CS_GR_IN_C7_UP
#undef CS_GR_IN_U17
#undef CS_GR_IN_U25
#undef CS_GR_KEEP_
#undef CS_GR_DROP_

/* SEND_SIGNALING_PCAS2_B action (bits 3:0). */
typedef enum cs_pcas2_action {
	CS_PCAS2_NOP = 0,
	CS_PCAS2_INVALIDATE = 1,
	CS_PCAS2_SCHEDULE = 2,
	CS_PCAS2_INVALIDATE_COPY_SCHEDULE = 3,
	CS_PCAS2_INCREMENT_PUT = 6,
	CS_PCAS2_DECREMENT_DEPENDENCE = 7,
	CS_PCAS2_PREFETCH = 8,
	CS_PCAS2_PREFETCH_SCHEDULE = 9,
	CS_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE = 0xa,
	CS_PCAS2_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING = 0xb,
	CS_PCAS2_INCREMENT_DEPENDENCE = 0xc,      /* C7C0 and later */
	CS_PCAS2_INCREMENT_CWD_REF_COUNTER = 0xd, /* C7C0 and later */
} cs_pcas2_action;

/* "INVALIDATE_COPY_SCHEDULE"; NULL for a reserved action (4, 5, 0xE, 0xF). */
CS_API const char *cs_pcas2_action_name(uint32_t action);
/* Whether the compute class defines the action (C6C0 lacks 0xC and 0xD). */
CS_API bool cs_pcas2_action_valid(uint32_t cls, uint32_t action);
/* Whether the action schedules the QMD (2, 3, 9, 0xA). */
CS_API bool cs_pcas2_action_schedules(uint32_t action);
/* The PCAS_ACTION field of a SEND_SIGNALING_PCAS2_B data dword. */
CS_API uint32_t cs_gr_pcas2_action(uint32_t data);

/* Dependent-QMD action (QMD field DEPENDENT_QMD0_ACTION). */
typedef enum cs_dep_action {
	CS_DEP_INCREMENT_PUT = 0,
	CS_DEP_SCHEDULE = 1,
	CS_DEP_INVALIDATE_COPY_SCHEDULE = 3,
	CS_DEP_DECREMENT_DEPENDENCE = 4,
} cs_dep_action;
CS_API const char *cs_dep_action_name(uint32_t action); /* NULL when reserved */

/* The per-CTA shared memory limit of a compute class, in bytes (0 when the
 * class is not a compute class). *assumed is set when the public headers do
 * not settle the figure (see gr/classes.c). */
CS_API uint32_t cs_gr_shared_limit(uint32_t cls, bool *assumed);

/* How a compute class reads SET_INLINE_QMD_ADDRESS_A: the dwords the inline
 * QMD takes (64; from CBC0 on, 96 when INLINE_SIZE, bit 30, says 384 bytes),
 * and the upper address bits (all of A before CBC0, bits 8:0 from CBC0 on);
 * the QMD is at ((upper << 32) | B) << 8. */
CS_API unsigned cs_gr_inline_qmd_dwords(uint32_t cls, uint32_t addr_a);
CS_API uint32_t cs_gr_inline_qmd_upper(uint32_t cls, uint32_t addr_a);

/* ======================================================================
 * QMD codecs (gr/qmd_v03.def, gr/qmd_v04.def, gr/qmd_v05.def)
 * ====================================================================== */

enum {
	CS_QMD_MAX_BYTES = 384,
	CS_QMD_MAX_DWORDS = CS_QMD_MAX_BYTES / 4,
	CS_QMD_RELEASES = 2,     /* release semaphores modelled: RELEASE0, RELEASE1 */
	CS_QMD_QMD_TYPE_GRID = 2 /* QMD_TYPE value of a grid CTA launch (V04_00, V05_00) */
};

/* Field names are the same in every version (gr/qmd_fields.def): NVIDIA's names
 * where they agree, GRID_WIDTH for V03_00's CTA_RASTER_WIDTH, and one field for
 * each LOWER/UPPER pair (PROGRAM_ADDRESS, CONSTANT_BUFFER_ADDR(i),
 * RELEASE0_ADDRESS, RELEASE0_PAYLOAD...). Lookups ignore case.
 *
 * One QMD field: bits hi..lo across the descriptor (bit 0 = bit 0 of dword 0).
 * A field may be an array: element i sits at (hi, lo) + i * stride bits. The
 * value of a field stored shifted (>> shift) is given and returned unshifted:
 * get returns stored << shift, set wants a multiple of 1 << shift. */
typedef struct cs_qmd_field {
	const char *name;  /* "CTA_THREAD_DIMENSION0", "CONSTANT_BUFFER_VALID" */
	uint16_t hi, lo;
	uint8_t shift;     /* 0, or N for a field stored >> N */
	uint8_t count;     /* 1, or the number of array elements */
	uint16_t stride;   /* bits between array elements */
	cs_field_kind kind;/* CS_FIELD_ADDRESS: the whole GPU virtual address `addr` */
	const char *addr;  /* "PROGRAM", "CONSTANT_BUFFER", "RELEASE0", "RELEASE1",
			      "DEPENDENT_QMD"; NULL unless an address */
} cs_qmd_field;

typedef struct cs_qmd_layout {
	unsigned major;    /* 3, 4, 5 */
	unsigned minor;    /* the minor version a new QMD gets */
	const char *name;  /* "V04_00" */
	unsigned bytes;    /* 256 or 384 */
	const char *source;/* the public header the table was written from */
	const cs_qmd_field *fields;
	unsigned nfields;
	const uint8_t *row_of_id; /* gr's own: its field ids' rows + 1, 0 when absent */
} cs_qmd_layout;

/* The layout of QMD major version 3, 4 or 5; NULL otherwise. */
CS_API const cs_qmd_layout *cs_qmd_layout_of(unsigned major);
/* The address fields of a layout, in table order: fills up to max of out and
 * returns how many there are (each may be an array: CONSTANT_BUFFER_ADDR(i)). */
CS_API unsigned cs_qmd_addr_fields(const cs_qmd_layout *l, const cs_qmd_field **out,
				   unsigned max);
/* Size in bytes of a major version's QMD (0 when unknown). */
CS_API unsigned cs_qmd_size(unsigned major);
/* A field by name, "NAME" or "NAME(i)" for an array element (*index gets i). */
CS_API const cs_qmd_field *cs_qmd_field_named(const cs_qmd_layout *l, const char *name,
				       unsigned *index);
/* The field names of a layout, in table order: i < l->nfields. */
static inline const char *cs_qmd_field_name(const cs_qmd_layout *l, unsigned i)
{
	return i < l->nfields ? l->fields[i].name : NULL;
}

/* A QMD image of one version. dw beyond the layout's size stay zero. */
typedef struct cs_qmd {
	const cs_qmd_layout *layout;
	uint32_t dw[CS_QMD_MAX_DWORDS];
} cs_qmd;

/* A new QMD with the version's defaults: major/minor version fields, QMD type
 * GRID_CTA where the field exists, grid 1,1,1, block 1,1,1,
 * API_VISIBLE_CALL_LIMIT no-check; false when major is unknown. */
CS_API bool cs_qmd_init(cs_qmd *q, unsigned major, cs_diag *d);
/* A QMD image from bytes (at least the layout's size). */
CS_API bool cs_qmd_from_bytes(cs_qmd *q, unsigned major, const void *bytes, size_t len, cs_diag *d);
/* Read a QMD of the given major version from memory; false (and *fault_va) when
 * any byte is unmapped. */
CS_API bool cs_qmd_read_mem(cs_qmd *q, unsigned major, const cs_mem_port *mem, uint64_t va,
		     uint64_t *fault_va);

/* Raw field access (value unshifted, see cs_qmd_field). set fails when the value
 * does not fit or is not a multiple of 1 << shift, or index >= count. */
CS_API uint64_t cs_qmd_field_get(const cs_qmd *q, const cs_qmd_field *f, unsigned index);
CS_API bool cs_qmd_field_set(cs_qmd *q, const cs_qmd_field *f, unsigned index, uint64_t value,
		      cs_diag *d);
/* By name ("NAME" or "NAME(i)"); unknown names are a diag listing the version. */
CS_API bool cs_qmd_get(const cs_qmd *q, const char *name, uint64_t *value, cs_diag *d);
CS_API bool cs_qmd_set(cs_qmd *q, const char *name, uint64_t value, cs_diag *d);

/* The `qmd NAME key=value...` keys, with the value already evaluated into
 * numbers (the comma-separated parts, in order):
 *   program=ADDR            grid=X[,Y[,Z]]      block=X[,Y[,Z]]
 *   shared=BYTES            regs=N              barriers=N
 *   cbankI=ADDR,SIZE        (I = 0..7; also sets the bank valid)
 *   releaseI=ADDR,PAYLOAD[,WORDS]  (I = 0..1; WORDS 1, 2 or 4, default 1; sets the
 *                           release enable, and payload64 when PAYLOAD > 32 bits)
 *   dependent=ADDR,ACTION   (ACTION a number or cs_dep_action; also enables it)
 *   any field name (or NAME(i)) = one value.
 * Missing Y/Z of grid and block are 1. */
CS_API bool cs_qmd_set_key(cs_qmd *q, const char *key, const uint64_t *vals, unsigned nvals,
		    cs_diag *d);
/* The same with the value as text: numbers (decimal or 0x) separated by commas;
 * ACTION may also be a cs_dep_action name. */
CS_API bool cs_qmd_set_key_text(cs_qmd *q, const char *key, const char *value, cs_diag *d);

/* A QMD decoded into what the engine needs, version independent. */
typedef struct cs_qmd_release {
	bool enable;
	uint64_t addr;
	uint64_t payload;
	bool payload64;
	unsigned words;        /* 1, 2 or 4 (from the structure size field) */
	unsigned structure;    /* the raw structure size field */
} cs_qmd_release;

typedef struct cs_qmd_info {
	unsigned major;
	unsigned minor;
	bool has_qmd_type;
	unsigned qmd_type;
	uint64_t program;
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared_bytes;
	uint32_t regs;
	uint32_t barriers;
	uint32_t cbank_valid;  /* bit i */
	uint64_t cbank_addr[CS_CBANK_COUNT];
	uint32_t cbank_size[CS_CBANK_COUNT];
	cs_qmd_release release[CS_QMD_RELEASES];
	bool dependent_enable;
	uint64_t dependent_addr;
	unsigned dependent_action;
	uint64_t local_bytes_per_thread; /* SHADER_LOCAL_MEMORY_LOW_SIZE + HIGH_SIZE */
} cs_qmd_info;

CS_API void cs_qmd_decode(const cs_qmd *q, cs_qmd_info *out);

/* Stage 7 acceptance of a decoded QMD for a compute class: version against the
 * class, QMD type, grid, block, shared memory, registers, reserved release
 * structure or dependent action, constant bank 0 valid, every valid bank
 * nonempty and mapped, program mapped (mem may be NULL to skip the mapping
 * checks).
 * Returns CS_CAUSE_NONE when it accepts; on refusal the cause (code-unmapped for
 * the program, qmd-rejected for any other field) and a reason naming the field
 * and its value, e.g. "block dim 0 = 0 (must be 1..1024)". */
CS_API cs_cause cs_qmd_check(const cs_qmd_info *info, uint32_t cls, const cs_mem_port *mem,
		      char *why, size_t why_len);

/* ======================================================================
 * Canonical method sequences, for the scenario assembler
 * ====================================================================== */

enum { CS_GR_SEQ_MAX_CMDS = 24, CS_GR_SEQ_MAX_DATA = 160 };

/* One method header and its data dwords (data[first .. first + count)). */
typedef struct cs_gr_cmd {
	uint32_t subch;
	uint32_t method;   /* byte offset */
	cs_secop op;       /* INC, NONINC, ONEINC or IMMD (then count is 1) */
	uint32_t first;
	uint32_t count;
} cs_gr_cmd;

typedef struct cs_gr_seq {
	cs_gr_cmd cmds[CS_GR_SEQ_MAX_CMDS];
	unsigned ncmds;
	uint32_t data[CS_GR_SEQ_MAX_DATA];
	unsigned ndata;
} cs_gr_seq;

/* Encode a sequence as pushbuffer dwords (headers and data). Returns the dword
 * count, or 0 with a diag when out does not hold it. */
CS_API size_t cs_gr_seq_encode(const cs_gr_seq *seq, uint32_t *out, size_t cap, cs_diag *d);

/* The path a launch took; CS_EV_QMD_INSTALL and CS_EV_QMD_SCHEDULE carry it in
 * aux. Note the numbering: trace.h documents aux 0 = inline, 1 = SEND_PCAS;
 * gr/ also uses 2 for a launch started by a dependent QMD. */
typedef enum cs_gr_launch_path {
	CS_GR_PATH_INLINE = 0,    /* SET_INLINE_QMD_ADDRESS_A/B, LOAD_INLINE_QMD_DATA */
	CS_GR_PATH_PCAS = 1,      /* QMD in memory, SEND_PCAS_A, SEND_SIGNALING_PCAS(2)_B */
	CS_GR_PATH_DEPENDENT = 2, /* a completed QMD's dependent-QMD field */
} cs_gr_launch_path;

typedef struct cs_gr_launch_opts {
	cs_arch arch;
	uint32_t cls;          /* 0: the arch's canonical compute class */
	uint32_t subch;        /* the compute subchannel (Mesa: 1) */
	cs_gr_launch_path path;
	uint64_t qmd_addr;     /* 256-byte aligned */
	const cs_qmd *qmd;     /* the dwords for the inline path (ignored by PCAS) */
	uint32_t pcas_action;  /* PCAS path: 0 means INVALIDATE_COPY_SCHEDULE (Mesa NVK) */
	bool invalidate_caches;/* first INVALIDATE_SHADER_CACHES_NO_WFI (see gr/seq.c) */
	uint64_t local_addr;   /* not 0: SET_SHADER_LOCAL_MEMORY_A/B = this first (the
				  channel's local-memory region, for a QMD with a
				  local size); 0: nothing, as before */
} cs_gr_launch_opts;

/* The canonical launch: [SET_SHADER_LOCAL_MEMORY_A/B when local_addr]
 * [INVALIDATE_SHADER_CACHES_NO_WFI] then, PCAS path,
 * SEND_PCAS_A = qmd_addr >> 8 and SEND_SIGNALING_PCAS2_B = action; inline path,
 * SET_INLINE_QMD_ADDRESS_A/B and LOAD_INLINE_QMD_DATA with every QMD dword. */
CS_API bool cs_gr_launch_methods(const cs_gr_launch_opts *o, cs_gr_seq *out, cs_diag *d);

typedef struct cs_gr_copy_opts {
	cs_arch arch;
	uint32_t cls;          /* 0: the arch's canonical copy class */
	uint32_t subch;        /* the copy subchannel (Mesa: 4) */
	uint64_t dst, src;
	uint32_t len;          /* bytes, one line */
	bool release;          /* a semaphore release after the copy */
	uint64_t sem_addr;
	uint64_t sem_payload;  /* > 32 bits needs C7B5+ (PAYLOAD_UPPER) */
	bool sem_timestamp;    /* four-word release with timestamp */
} cs_gr_copy_opts;
/* Note: the public headers give SET_SEMAPHORE_PAYLOAD_UPPER (and LAUNCH_DMA
 * SEMAPHORE_PAYLOAD_SIZE) to C7B5 already, not only C8B5; the tables follow them. */

/* OFFSET_IN/OUT, LINE_LENGTH_IN, LINE_COUNT = 1, [SET_SEMAPHORE_A/B/PAYLOAD],
 * LAUNCH_DMA (pitch in and out, one line, non-pipelined, flush when releasing). */
CS_API bool cs_gr_copy_methods(const cs_gr_copy_opts *o, cs_gr_seq *out, cs_diag *d);

/* Inline-to-memory through the compute class: LINE_LENGTH_IN, LINE_COUNT = 1,
 * OFFSET_OUT_UPPER/OFFSET_OUT, LAUNCH_DMA (pitch), LOAD_INLINE_DATA x n. */
CS_API bool cs_gr_i2m_methods(cs_arch arch, uint32_t subch, uint64_t dst, const uint32_t *words,
		       unsigned n, cs_gr_seq *out, cs_diag *d);

/* ======================================================================
 * The engine
 * ====================================================================== */

/* Virtual time each operation costs (added to *bus->now_ns). */
enum {
	CS_GR_NS_PER_LAUNCH = 1000, /* per scheduled launch, whatever its outcome */
	CS_GR_NS_PER_CTA = 100,     /* per CTA the executor ran */
	CS_GR_NS_PER_COPY = 200,    /* per copy-engine LAUNCH_DMA or I2M transfer */
	CS_GR_BYTES_PER_NS = 16,    /* copied / inline bytes per ns (rounded up) */
};
/* What a transfer of `bytes` (copy-engine LAUNCH_DMA or I2M) and a grid of
 * `ctas` executed CTAs cost; the engine advances the clock by these right
 * after their record, and the Perfetto writer draws them as slices. */
static inline uint64_t cs_gr_transfer_ns(uint64_t bytes)
{
	return CS_GR_NS_PER_COPY + (bytes + CS_GR_BYTES_PER_NS - 1) / CS_GR_BYTES_PER_NS;
}
static inline uint64_t cs_gr_grid_ns(uint64_t ctas)
{
	return ctas * CS_GR_NS_PER_CTA;
}

/* What the engine records (every record carries the causing method's channel,
 * gp_entry, method_index, subch, cls and method; launch ids count from 0 per
 * engine in order of installation, CS_NONE32 outside a launch):
 *   stage 6  CS_EV_QMD_INSTALL, CS_EV_QMD_SCHEDULE (aux = cs_gr_launch_path),
 *            CS_EV_ASSUMPTION for the inline path's schedule point and for PCAS2
 *            or dependent actions modelled as not launching, CS_EV_DEPENDENT_QMD
 *   stage 7  CS_EV_QMD_READ or CS_EV_QMD_REJECT (detail names field and value)
 *   stage 8  CS_EV_CTX_LOAD or CS_EV_CTX_BAD
 *   stage 9  CS_EV_DISPATCH, then CS_EV_GRID_DONE, CS_EV_GRID_NOT_RUN, or a
 *            CS_EV_FAULT of unit SM
 *   stage 10 CS_EV_SEM_RELEASE (unit COMPUTE or COPY), only after an executed grid
 *            for QMD releases; report and copy semaphores when their method runs
 *   stage 5  CS_EV_I2M_WRITE, CS_EV_COPY, CS_EV_HOST_OP (WAIT_FOR_IDLE)
 *   none     CS_EV_CACHE_INVALIDATE, CS_EV_ASSUMPTION for unknown methods
 * A method that stops the channel emits CS_EV_FAULT (unmapped address, with
 * the unit and access) or CS_EV_CHANNEL_STOP (anything else) and returns
 * CS_ENGINE_STOP with the same text in *why. */
typedef struct cs_gr cs_gr;

typedef struct cs_gr_counters {
	uint64_t launches;          /* launches scheduled (ids handed out) */
	uint64_t qmds_rejected;     /* stage 7 refusals */
	uint64_t grids_executed;
	uint64_t grids_not_run;     /* no executor, unknown code, executor error */
	uint64_t grid_faults;
	uint64_t dependent_launches;/* launches started by a dependent QMD */
	uint64_t copies;            /* copy-engine transfers */
	uint64_t bytes_copied;
	uint64_t releases;          /* engine semaphore writes (QMD, report, copy) */
	uint64_t i2m_writes;        /* I2M transfers completed */
	uint64_t i2m_bytes;
	uint64_t cache_invalidates;
	uint64_t ctas_executed;     /* summed over executed grids */
	uint64_t thread_instructions;
} cs_gr_counters;

/* bus is borrowed and must outlive the engine; exec is copied (NULL = no
 * executor: every grid is dispatched, not executed). NULL on allocation failure
 * or an unknown arch. */
CS_API cs_gr *cs_gr_new(cs_arch arch, const cs_bus *bus, const cs_exec_port *exec);
CS_API void cs_gr_free(cs_gr *gr);
/* Serves every compute and copy class of the arch, on any channel and
 * subchannel it was bound to (per-channel, per-subchannel state). */
CS_API cs_engine_port cs_gr_engine_port(cs_gr *gr);
CS_API void cs_gr_counters_get(const cs_gr *gr, cs_gr_counters *out);

#ifdef __cplusplus
}
#endif

#endif
