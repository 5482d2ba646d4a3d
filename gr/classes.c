/* SPDX-License-Identifier: MIT */
/* The compute and copy class tables, generated from include/chainsim/compute.def and
 * include/chainsim/copy.def, with the field decoders the printers and the REPL use;
 * one descriptor per compute or copy row of base/classes.def. */
#include <stddef.h>

#include "chainsim/gr.h"

#define NELEM(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* ---- value names (gr/fields.def) -------------------------------------------- */

#define CS_GV(vset, ...) static const char *const v_##vset[] = { __VA_ARGS__ };
#include "fields.def"
#undef CS_GV

/* ---- field decoders (gr/fields.def) ------------------------------------------ */

#define VALS_ENUM(v) v_##v, NELEM(v_##v)
#define VALS_FLAG(v) v_##v, NELEM(v_##v)
#define VALS_NUMBER(v) NULL, 0
#define VALS_COUNT(v) NULL, 0
#define CS_GF(fs, name, hi, lo, kind, v) { #name, hi, lo, VALS_##kind(v), CS_FIELD_##kind, NULL, 0 }
#define CS_GFA(fs, name, hi, lo, addr, shift) \
	{ #name, hi, lo, NULL, 0, CS_FIELD_ADDRESS, #addr, shift }
#define CS_GFS(fs, ...) static const cs_field_desc fld_##fs[] = { __VA_ARGS__ };
#include "fields.def"
#undef CS_GFS
/* A method row's field set: its table and length (`none`: no fields). */
#define fld_none NULL
#define CS_GFS(fs, ...) nf_##fs = NELEM(fld_##fs),
enum {
	nf_none = 0,
#include "fields.def"
};
#undef CS_GFS
#undef CS_GF
#undef CS_GFA

/* ---- method tables ------------------------------------------------------------ */

#define KEEP(...) __VA_ARGS__
#define DROP(...)
#define CS_GR_M(when, name, off, cnt, str, f) SEL_##when({ #name, off, cnt, str, fld_##f, nf_##f },)

/* C6C0, C7C0, C9C0 */
#define SEL_ALL KEEP
#define SEL_PRE_H KEEP
#define SEL_H_UP DROP
#define SEL_H_NEW DROP
static const cs_method_desc m_compute_v1[] = {
#include "chainsim/compute.def"
};
#undef SEL_PRE_H
#undef SEL_H_UP
#undef SEL_H_NEW

/* CBC0, CDC0, CEC0 */
#define SEL_PRE_H DROP
#define SEL_H_UP KEEP
#define SEL_H_NEW KEEP
static const cs_method_desc m_compute_v2[] = {
#include "chainsim/compute.def"
};
#undef SEL_PRE_H
#undef SEL_H_UP
#undef SEL_H_NEW

/* C6B5 */
#define SEL_C6 KEEP
#define SEL_C7_UP DROP
#define SEL_U17 KEEP
#define SEL_U25 DROP
static const cs_method_desc m_copy_v1[] = {
#include "chainsim/copy.def"
};
#undef SEL_C6
#undef SEL_C7_UP

/* C7B5 */
#define SEL_C6 DROP
#define SEL_C7_UP KEEP
static const cs_method_desc m_copy_v2[] = {
#include "chainsim/copy.def"
};
#undef SEL_U17
#undef SEL_U25

/* C8B5, C9B5 */
#define SEL_U17 DROP
#define SEL_U25 KEEP
static const cs_method_desc m_copy_v3[] = {
#include "chainsim/copy.def"
};
#undef SEL_C6
#undef SEL_C7_UP
#undef SEL_U17
#undef SEL_U25
#undef SEL_ALL
#undef CS_GR_M

/* A class's descriptor and its per-CTA shared memory limit in KiB (0 for copy
 * classes; every figure is assumed, base/classes.def says why). */
typedef struct gr_class_row {
	cs_class_desc desc;
	uint32_t shared_kib;
} gr_class_row;

/* One entry per row of base/classes.def whose methods column names a table of
 * this file (m_<methods>); host and unmodelled rows are not gr's. */
#define GR_OWNS_compute_v1 KEEP
#define GR_OWNS_compute_v2 KEEP
#define GR_OWNS_copy_v1 KEEP
#define GR_OWNS_copy_v2 KEEP
#define GR_OWNS_copy_v3 KEEP
#define GR_OWNS_host DROP
#define GR_OWNS_none DROP
#define CS_CLASS(id, name, kind, arch_mask, qmd_major, features, methods, header, kib)   \
	GR_OWNS_##methods({ { id, name, "NVIDIA/open-gpu-doc " header, m_##methods,        \
			      NELEM(m_##methods) }, kib },)
static const gr_class_row gr_classes[] = {
#include "../base/classes.def"
};
#undef CS_CLASS

static const gr_class_row *gr_class_row_of(uint32_t cls)
{
	for (unsigned i = 0; i < NELEM(gr_classes); i++)
		if (gr_classes[i].desc.id == cls)
			return &gr_classes[i];
	return NULL;
}

const cs_class_desc *cs_gr_class(uint32_t cls)
{
	const gr_class_row *r = gr_class_row_of(cls);
	return r ? &r->desc : NULL;
}

/* ---- names and limits ----------------------------------------------------------- */

const char *cs_pcas2_action_name(uint32_t action)
{
	return action < NELEM(v_pcas2_action) ? v_pcas2_action[action] : NULL;
}

bool cs_pcas2_action_valid(uint32_t cls, uint32_t action)
{
	if (!cs_pcas2_action_name(action))
		return false;
	/* clc6c0.h stops at 0xB; INCREMENT_DEPENDENCE and INCREMENT_CWD_REF_COUNTER
	 * appear from clc7c0.h on. */
	if (!cs_class_has(cls, CS_CF_PCAS2_DEPENDENCE) &&
	    action > CS_PCAS2_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING)
		return false;
	return true;
}

bool cs_pcas2_action_schedules(uint32_t action)
{
	switch (action) {
	case CS_PCAS2_SCHEDULE:
	case CS_PCAS2_INVALIDATE_COPY_SCHEDULE:
	case CS_PCAS2_PREFETCH_SCHEDULE:
	case CS_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE:
		return true;
	default:
		return false;
	}
}

const char *cs_dep_action_name(uint32_t action)
{
	switch (action) {
	case CS_DEP_INCREMENT_PUT: return "INCREMENT_PUT";
	case CS_DEP_SCHEDULE: return "SCHEDULE";
	case CS_DEP_INVALIDATE_COPY_SCHEDULE: return "INVALIDATE_COPY_SCHEDULE";
	case CS_DEP_DECREMENT_DEPENDENCE: return "DECREMENT_DEPENDENCE";
	default: return NULL;
	}
}

/* Per-CTA shared memory limits: the class row's (assumed) figure. */
uint32_t cs_gr_shared_limit(uint32_t cls, bool *assumed)
{
	const gr_class_row *r = gr_class_row_of(cls);
	uint32_t limit = r ? r->shared_kib * 1024u : 0;
	if (assumed)
		*assumed = limit != 0;
	return limit;
}

