/* SPDX-License-Identifier: MIT */
/* The host class descriptors, generated from include/chainsim/hostclass.def. */
#include "chainsim/fe.h"

#include <stddef.h>

#define CS_LEN(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* value names */
#define CS_HV(set, ...) static const char *const hv_##set[] = { __VA_ARGS__ };
#include "chainsim/hostclass.def"
#undef CS_HV

/* field sets */
#define CS_F(fset, name, hi, lo, kind, vset) \
	{ #name, hi, lo, hv_##vset, CS_LEN(hv_##vset), CS_FIELD_##kind, NULL, 0 }
#define CS_FA(fset, name, hi, lo, addr, shift) \
	{ #name, hi, lo, hv_none, CS_LEN(hv_none), CS_FIELD_ADDRESS, #addr, shift }
#define CS_HFS(fset, ...) static const cs_field_desc hf_##fset[] = { __VA_ARGS__ };
#include "chainsim/hostclass.def"
#undef CS_HFS
#undef CS_F
#undef CS_FA

/* methods, filtered per class by the Y/A/N columns */
#define CS_IF_Y(...) __VA_ARGS__
#define CS_IF_A(...) __VA_ARGS__
#define CS_IF_N(...)
#define CS_MDESC(NAME, off, n, stride, fset) { #NAME, off, n, stride, hf_##fset, CS_LEN(hf_##fset) },

#define CS_HM(NAME, off, n, stride, fset, c56, c86, c96) CS_IF_##c56(CS_MDESC(NAME, off, n, stride, fset))
static const cs_method_desc hm_c56f[] = {
#include "chainsim/hostclass.def"
};
#undef CS_HM

#define CS_HM(NAME, off, n, stride, fset, c56, c86, c96) CS_IF_##c86(CS_MDESC(NAME, off, n, stride, fset))
static const cs_method_desc hm_c86f[] = {
#include "chainsim/hostclass.def"
};
#undef CS_HM

#define CS_HM(NAME, off, n, stride, fset, c56, c86, c96) CS_IF_##c96(CS_MDESC(NAME, off, n, stride, fset))
static const cs_method_desc hm_c96f[] = {
#include "chainsim/hostclass.def"
};
#undef CS_HM

/* which rows are assumed, per class */
#define CS_ASSUMED_Y 0
#define CS_ASSUMED_A 1
#define CS_ASSUMED_N 0
typedef struct host_row_basis {
	uint32_t offset;
	uint8_t assumed[3]; /* C56F, C86F, C96F */
} host_row_basis;
#define CS_HM(NAME, off, n, stride, fset, c56, c86, c96) \
	{ off, { CS_ASSUMED_##c56, CS_ASSUMED_##c86, CS_ASSUMED_##c96 } },
static const host_row_basis host_basis[] = {
#include "chainsim/hostclass.def"
};
#undef CS_HM

static const cs_class_desc host_classes[] = {
	{ 0xC56F, "AMPERE_CHANNEL_GPFIFO_A", "NVIDIA/open-gpu-doc classes/host/clc56f.h",
	  hm_c56f, CS_LEN(hm_c56f) },
	{ 0xC86F, "HOPPER_CHANNEL_GPFIFO_A",
	  "NVIDIA/open-gpu-kernel-modules src/common/sdk/nvidia/inc/class/clc86f.h; NOP, "
	  "NON_STALL_INTERRUPT, SET_REFERENCE and SEM_EXECUTE's acquire kinds, reductions and "
	  "timestamp assumed from clc56f.h",
	  hm_c86f, CS_LEN(hm_c86f) },
	{ 0xC96F, "BLACKWELL_CHANNEL_GPFIFO_A",
	  "NVIDIA/open-gpu-kernel-modules src/common/sdk/nvidia/inc/class/clc96f.h; NOP, "
	  "NON_STALL_INTERRUPT, SET_REFERENCE, WFI and SEM_EXECUTE's acquire kinds, reductions "
	  "and timestamp assumed from clc56f.h",
	  hm_c96f, CS_LEN(hm_c96f) },
};

const cs_class_desc *cs_fe_host_class(uint32_t cls)
{
	for (unsigned i = 0; i < CS_LEN(host_classes); i++)
		if (host_classes[i].id == cls)
			return &host_classes[i];
	return NULL;
}

bool cs_fe_host_method_assumed(uint32_t cls, uint32_t offset)
{
	/* host_classes[] is in the .def's column order: C56F, C86F, C96F */
	const cs_class_desc *d = cs_fe_host_class(cls);
	if (!d)
		return false;
	unsigned col = (unsigned)(d - host_classes);
	for (unsigned i = 0; i < CS_LEN(host_basis); i++)
		if (host_basis[i].offset == offset && host_basis[i].assumed[col])
			return true;
	return false;
}

const char *cs_fe_sem_op_name(uint32_t op)
{
	return op < CS_LEN(hv_sem_operation) ? hv_sem_operation[op] : "?";
}

const char *cs_fe_semd_op_name(uint32_t code)
{
	return code < CS_LEN(hv_semd_operation) && hv_semd_operation[code] ? hv_semd_operation[code]
									    : "?";
}

const char *cs_fe_red_op_name(uint32_t op)
{
	return op < CS_LEN(hv_reduction) ? hv_reduction[op] : "?";
}

const char *cs_fe_secop_name(uint32_t op)
{
	switch (op) {
	case CS_SECOP_RESERVED0: return "GRP0_USE_TERT";
	case CS_SECOP_INC: return "INC";
	case CS_SECOP_RESERVED2: return "GRP2_USE_TERT";
	case CS_SECOP_NONINC: return "NONINC";
	case CS_SECOP_IMMD: return "IMMD";
	case CS_SECOP_ONEINC: return "ONEINC";
	case CS_SECOP_RESERVED6: return "RESERVED6";
	case CS_SECOP_END_SEG: return "END_SEG";
	}
	return "?";
}
