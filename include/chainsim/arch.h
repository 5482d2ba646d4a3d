/* SPDX-License-Identifier: MIT */
/* GPU generations and the classes each accepts: the one table (include/chainsim/arch.def,
 * base/classes.def) that the front end, the engines and the tools all read. */
#ifndef CHAINSIM_ARCH_H
#define CHAINSIM_ARCH_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_arch {
#define CS_ARCH(e, name, host, compute, copy, va) CS_ARCH_##e,
#include "chainsim/arch.def"
#undef CS_ARCH
	CS_ARCH_COUNT
} cs_arch;

typedef enum cs_class_kind {
	CS_CLASS_NONE = 0, /* not a class chainsim knows */
	CS_CLASS_HOST,
	CS_CLASS_COMPUTE,
	CS_CLASS_COPY,
	CS_CLASS_UNMODELLED, /* a real class (3D, 2D) the model does not execute */
} cs_class_kind;

/* What distinguishes one class from another of its kind (base/classes.def);
 * behaviour checks a flag, never a class id. */
typedef enum cs_class_feature {
	CS_CF_INLINE_QMD_SIZE = 1u << 1, /* SET_INLINE_QMD_ADDRESS_A INLINE_SIZE (384-byte QMD) */
	CS_CF_PAYLOAD_UPPER = 1u << 2,   /* copy semaphores take 64-bit payloads */
	CS_CF_SEM_OPS_PUBLIC = 1u << 3,  /* every SEM_EXECUTE OPERATION is in the public header */
	CS_CF_PCAS2_DEPENDENCE = 1u << 4,/* PCAS2 INCREMENT_DEPENDENCE / _CWD_REF_COUNTER */
} cs_class_feature;

typedef struct cs_arch_info {
	cs_arch arch;
	const char *name;
	uint32_t host_class;
	uint32_t compute_class; /* canonical compute class for `launch` */
	uint32_t copy_class;    /* canonical copy class for `copy` */
	unsigned va_bits;       /* 49 below Hopper, 57 from Hopper on */
} cs_arch_info;

CS_API const cs_arch_info *cs_arch_get(cs_arch arch);
/* Parse "ampere" etc.; false when unknown. */
CS_API bool cs_arch_from_name(const char *name, cs_arch *out);

/* The GPU an arch models (include/chainsim/gpu.def) and how many CTAs of one
 * kernel it holds at once: SMs times the CTAs one SM holds, the least of its
 * limits on CTAs, warps, registers (regs per thread, 0 when unknown: not
 * counted) and shared memory (the kernel's static bytes as nvcc counts them,
 * plus the dynamic, plus the system's reserve where they do not count it). */
typedef struct cs_gpu_info {
	const char *model;
	uint32_t sms, ctas_per_sm, threads_per_sm, regs_per_sm, shared_per_sm, shared_reserved;
	bool reserve_in_static;
} cs_gpu_info;
typedef struct cs_coresidency {
	uint32_t sms, ctas_per_sm;
	uint64_t ctas;           /* sms * ctas_per_sm */
	char bound[200];         /* the limit that sets ctas_per_sm, with its numbers */
} cs_coresidency;
CS_API const cs_gpu_info *cs_arch_gpu(cs_arch arch);
CS_API void cs_arch_coresident(cs_arch arch, uint32_t threads_per_cta, uint32_t regs_per_thread,
			       uint32_t shared_per_cta, cs_coresidency *out);

/* Class lookup: kind and name for any known class id (NULL/NONE when unknown). */
CS_API cs_class_kind cs_class_kind_of(uint32_t cls);
CS_API const char *cs_class_name(uint32_t cls);
/* The QMD major version a compute class reads (3 = V03_00, 4, 5); 0 for others. */
CS_API unsigned cs_class_qmd_major(uint32_t cls);
/* Whether the class has every feature in `features` (cs_class_feature flags). */
CS_API bool cs_class_has(uint32_t cls, unsigned features);
/* The QMD major version of the arch's canonical compute class. */
CS_API unsigned cs_arch_qmd_major(cs_arch arch);
/* Whether the generation accepts the class on a channel. */
CS_API bool cs_class_valid_for(uint32_t cls, cs_arch arch);
/* The classes of one kind valid for the arch, comma separated, for messages. */
CS_API void cs_class_list_for(cs_arch arch, cs_class_kind kind, char *buf, unsigned len);
CS_API const char *cs_class_kind_name(cs_class_kind kind);

#ifdef __cplusplus
}
#endif

#endif
