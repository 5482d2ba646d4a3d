/* SPDX-License-Identifier: MIT */
/* gr/ private declarations shared by its files. */
#ifndef CHAINSIM_GR_INTERNAL_H
#define CHAINSIM_GR_INTERNAL_H

#include <stdarg.h>

#include "chainsim/gr.h"

/* The modelled QMD fields, in table order (gr/qmd_fields.def). */
typedef enum gr_qf {
#define CS_QMD_ID(id, kind, addr) GR_QF_##id,
#include "qmd_fields.def"
#undef CS_QMD_ID
	GR_QF_COUNT
} gr_qf;

/* Each field's cs_field_kind, by id: GR_QK_PROGRAM_ADDRESS... */
enum {
#define CS_QMD_ID(id, kind, addr) GR_QK_##id = CS_FIELD_##kind,
#include "qmd_fields.def"
#undef CS_QMD_ID
};

/* Each method field's bit range, by field set and name (gr/fields.def):
 * GR_F_<fset>_<NAME>_HI and _LO, and an address part's _SHIFT. */
enum {
#define CS_GF(fs, name, hi, lo, kind, v) GR_F_##fs##_##name##_HI = hi, GR_F_##fs##_##name##_LO = lo
#define CS_GFA(fs, name, hi, lo, addr, shift) \
	CS_GF(fs, name, hi, lo, ADDRESS, none), GR_F_##fs##_##name##_SHIFT = shift
#define CS_GFS(fs, ...) __VA_ARGS__,
#include "fields.def"
#undef CS_GFS
#undef CS_GFA
#undef CS_GF
};

/* Field NAME of field set fs in a method's data dword, and value v as that
 * field's bits (OR the puts of one dword together). */
#define GR_GET(fs, name, data) CS_BITS_GET(data, GR_F_##fs##_##name##_HI, GR_F_##fs##_##name##_LO)
#define GR_PUT(fs, name, v) CS_BITS_PUT(GR_F_##fs##_##name##_HI, GR_F_##fs##_##name##_LO, v)
/* Address part NAME of fs: the part of GPU virtual address addr it carries,
 * as that field's bits; and the address bits a data dword's part stands for. */
#define GR_ADDR_PUT(fs, name, addr) GR_PUT(fs, name, (uint64_t)(addr) >> GR_F_##fs##_##name##_SHIFT)
#define GR_ADDR_GET(fs, name, data) ((uint64_t)GR_GET(fs, name, data) << GR_F_##fs##_##name##_SHIFT)

/* The field of a layout by id; NULL when the version lacks it. */
static inline const cs_qmd_field *gr_qmd_f(const cs_qmd_layout *l, gr_qf id)
{
	unsigned row = (unsigned)id < GR_QF_COUNT ? l->row_of_id[id] : 0;
	return row ? &l->fields[row - 1] : NULL;
}

/* The address bits a method's data carries, read through the class table's
 * address field (upper widths differ per class); 0 when it carries none. */
static inline uint64_t gr_addr_bits(uint32_t cls, uint32_t method, uint32_t data)
{
	const cs_class_desc *d = cs_gr_class(cls);
	const cs_method_desc *m = d ? cs_class_method_at(d, method, NULL) : NULL;
	const cs_field_desc *f = cs_method_addr_field(m);
	return f ? cs_field_addr_bits(f, data) : 0;
}

/* addr with the part a method's data carries replaced by data's (an address
 * latched from its parts); addr unchanged when the method carries none. */
static inline uint64_t gr_addr_latch(uint32_t cls, uint32_t method, uint64_t addr, uint32_t data)
{
	const cs_class_desc *d = cs_gr_class(cls);
	const cs_method_desc *m = d ? cs_class_method_at(d, method, NULL) : NULL;
	const cs_field_desc *f = cs_method_addr_field(m);
	return f ? cs_field_addr_merge(f, addr, data) : addr;
}

/* Raw bit access across a dword array (no bounds beyond the layout's size). */
uint64_t gr_bits_get(const uint32_t *dw, unsigned hi, unsigned lo);
void gr_bits_set(uint32_t *dw, unsigned hi, unsigned lo, uint64_t v);

#endif

/* ---- the engine ---------------------------------------------------------------- */

enum {
	GR_SUBCH = 8,
	GR_DEP_CHAIN_MAX = 1024, /* launches one dependent-QMD chain may start */
	GR_DETAIL_MAX = 384,
};

typedef struct gr_compute {
	/* inline-to-memory */
	uint32_t line_length, line_count, pitch_out;
	uint32_t offset_out_upper, offset_out;
	bool i2m_active;
	uint64_t i2m_dst;
	uint64_t i2m_total, i2m_done;
	uint32_t i2m_line_length, i2m_pitch;
	/* launches */
	uint32_t pcas_a;
	bool pcas_a_set;
	uint32_t inline_a, inline_b;
	bool inline_b_set;
	uint32_t inline_dw[CS_QMD_MAX_DWORDS];
	uint8_t inline_have[CS_QMD_MAX_DWORDS];
	/* What only the end of the stream reveals (gr_finish): an inline QMD begun
	 * and never completed, a QMD SEND_PCAS_A named that nothing scheduled. */
	bool inline_open;
	cs_method_call inline_origin;   /* its SET_INLINE_QMD_ADDRESS_B */
	bool pcas_pending;
	cs_method_call pcas_origin;     /* its SEND_PCAS_A */
	bool pcas_have_action;
	uint32_t pcas_last_action;      /* the last non-scheduling PCAS2_B action */
	/* report semaphore */
	uint32_t report_a, report_b, report_c;
	/* context */
	uint64_t local_addr; /* SET_SHADER_LOCAL_MEMORY_A/B's parts, as latched */
	bool local_set;
	uint64_t local_window, shared_window; /* the windows' parts, as latched */
} gr_compute;

typedef struct gr_copy {
	uint32_t in_upper, in_lower, out_upper, out_lower;
	uint32_t pitch_in, pitch_out, line_length, line_count;
	uint32_t sem_a, sem_b, payload, payload_upper;
} gr_copy;

typedef struct gr_subch {
	uint32_t cls; /* 0 until bound */
	gr_compute c;
	gr_copy ce;
} gr_subch;

typedef struct gr_channel {
	uint32_t id;
	gr_subch sub[GR_SUBCH];
} gr_channel;

struct cs_gr {
	cs_arch arch;
	const cs_bus *bus;
	cs_exec_port exec;
	bool has_exec;
	gr_channel **ch;
	size_t nch, cap;
	uint32_t next_launch;
	cs_gr_counters counters;
	char detail[GR_DETAIL_MAX];
};

/* A record with the causing method's context filled in. */
static inline cs_event gr_event(cs_event_kind kind, cs_stage stage, cs_unit unit,
				const cs_method_call *c, uint32_t launch)
{
	cs_event ev = cs_event_make(kind, stage, unit, c->channel);
	ev.launch = launch;
	ev.gp_entry = c->gp_entry;
	ev.method_index = c->method_index;
	ev.subch = c->subch;
	ev.cls = c->cls;
	ev.method = c->method;
	return ev;
}

void gr_emit(cs_gr *gr, cs_event *ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Emit CS_EV_CHANNEL_STOP with the detail, copy it to *why, return STOP. */
cs_engine_result gr_stop(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			 uint32_t launch, cs_status st, cs_diag *why, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
/* The same, for a stop whose cause the judge must know (cause.def). */
cs_engine_result gr_stop_for(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			     uint32_t launch, cs_cause cause, cs_status st, cs_diag *why,
			     const char *fmt, ...) __attribute__((format(printf, 9, 10)));
/* Emit CS_EV_FAULT (addr = va, value = access), copy the detail to *why, STOP. */
cs_engine_result gr_fault(cs_gr *gr, const cs_method_call *c, cs_stage stage, cs_unit unit,
			  uint32_t launch, uint64_t va, cs_access acc, cs_diag *why,
			  const char *fmt, ...) __attribute__((format(printf, 9, 10)));

uint64_t gr_now(const cs_gr *gr);
void gr_advance(cs_gr *gr, uint64_t ns);
/* The first unmapped byte of [va, va + len), for fault records. */
uint64_t gr_first_unmapped(const cs_gr *gr, uint64_t va, uint64_t len);

/* An engine semaphore write (stage 10): bytes 4 (low 32 bits of payload), 8
 * (payload) or 16 (payload, then the timestamp). A CS_EV_SEM_RELEASE record on
 * success; a fault naming the address and stopping the channel otherwise. */
cs_engine_result gr_release(cs_gr *gr, const cs_method_call *c, cs_unit unit, uint32_t launch,
			    uint64_t addr, uint64_t payload, unsigned bytes, const char *what,
			    cs_diag *why);

/* gr/launch.c: install, read, accept, context, dispatch, release, dependents. */
cs_engine_result gr_launch(cs_gr *gr, gr_subch *s, const cs_method_call *c, uint64_t qmd_va,
			   cs_gr_launch_path path, uint32_t action, const char *how,
			   cs_diag *why);
cs_engine_result gr_compute_method(cs_gr *gr, gr_subch *s, const cs_method_call *c,
				   cs_diag *why);
/* The guest program ended: record what the channel's compute state left open. */
void gr_finish(cs_gr *gr, gr_channel *ch);
/* gr/copy.c */
cs_engine_result gr_copy_method(cs_gr *gr, gr_subch *s, const cs_method_call *c, cs_diag *why);
