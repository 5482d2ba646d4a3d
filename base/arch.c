/* SPDX-License-Identifier: MIT */
#include "chainsim/arch.h"

#include <stdio.h>
#include <string.h>

static const cs_arch_info arch_table[CS_ARCH_COUNT] = {
#define CS_ARCH(e, nm, host, compute, copy, va) \
	[CS_ARCH_##e] = { CS_ARCH_##e, nm, host, compute, copy, va },
#include "chainsim/arch.def"
#undef CS_ARCH
};

static const cs_gpu_info gpu_table[CS_ARCH_COUNT] = {
#define CS_GPU(e, model, sms, ctas, threads, regs, shared, reserved, in_static) \
	[CS_ARCH_##e] = { model, sms, ctas, threads, regs, shared, reserved, in_static },
#include "chainsim/gpu.def"
#undef CS_GPU
};

typedef struct class_row {
	uint32_t id;
	const char *name;
	cs_class_kind kind;
	uint32_t arch_mask;
	unsigned qmd_major;
	unsigned features;
} class_row;

static const class_row class_table[] = {
/* the method table, header and shared-memory columns are the owning module's */
#define CS_CLASS(id, nm, kind, mask, qmd, features, methods, header, shared_kib) \
	{ id, nm, kind, mask, qmd, features },
#include "classes.def"
#undef CS_CLASS
};

enum { CLASS_ROWS = sizeof(class_table) / sizeof(class_table[0]) };

const cs_arch_info *cs_arch_get(cs_arch arch)
{
	if ((unsigned)arch >= CS_ARCH_COUNT)
		return NULL;
	return &arch_table[arch];
}

const cs_gpu_info *cs_arch_gpu(cs_arch arch)
{
	if ((unsigned)arch >= CS_ARCH_COUNT)
		return NULL;
	return &gpu_table[arch];
}

/* Registers go to warps in units of 256 (per thread, rounded up to 8), shared
 * memory to CTAs in units of 128 bytes: the CUDA occupancy calculator's
 * granularities for compute capability 8.0 to 10.0. */
void cs_arch_coresident(cs_arch arch, uint32_t threads_per_cta, uint32_t regs_per_thread,
			uint32_t shared_per_cta, cs_coresidency *out)
{
	const cs_gpu_info *g = cs_arch_gpu(arch);
	memset(out, 0, sizeof(*out));
	if (!g || threads_per_cta == 0)
		return;
	uint32_t warps = (threads_per_cta + 31) / 32, max_warps = g->threads_per_sm / 32;
	uint32_t n = g->ctas_per_sm;
	snprintf(out->bound, sizeof(out->bound), "an SM holds at most %u CTAs", g->ctas_per_sm);
	if (max_warps / warps < n) {
		n = max_warps / warps;
		snprintf(out->bound, sizeof(out->bound), "threads: %u warps per CTA of %u per SM",
			 warps, max_warps);
	}
	if (regs_per_thread) {
		uint32_t per_warp = (regs_per_thread + 7) / 8 * 8 * 32;
		uint32_t by_regs = g->regs_per_sm / per_warp / warps;
		if (by_regs < n) {
			n = by_regs;
			snprintf(out->bound, sizeof(out->bound),
				 "registers: %u per thread (%u per warp), %u warps per CTA, %u per SM",
				 regs_per_thread, per_warp, warps, g->regs_per_sm);
		}
	}
	uint64_t reserve = g->reserve_in_static ? 0 : g->shared_reserved;
	uint64_t per_cta = ((uint64_t)shared_per_cta + reserve + 127) / 128 * 128;
	if (g->shared_per_sm / per_cta < n) {
		n = (uint32_t)(g->shared_per_sm / per_cta);
		snprintf(out->bound, sizeof(out->bound),
			 "shared memory: %u bytes per CTA with the system's %u, %u per SM",
			 (uint32_t)per_cta, g->shared_reserved, g->shared_per_sm);
	}
	out->sms = g->sms;
	out->ctas_per_sm = n;
	out->ctas = (uint64_t)g->sms * n;
}

bool cs_arch_from_name(const char *name, cs_arch *out)
{
	for (unsigned i = 0; i < CS_ARCH_COUNT; i++) {
		if (strcmp(arch_table[i].name, name) == 0) {
			*out = (cs_arch)i;
			return true;
		}
	}
	return false;
}

static const class_row *find_class(uint32_t cls)
{
	for (unsigned i = 0; i < CLASS_ROWS; i++)
		if (class_table[i].id == cls)
			return &class_table[i];
	return NULL;
}

cs_class_kind cs_class_kind_of(uint32_t cls)
{
	const class_row *r = find_class(cls);
	return r ? r->kind : CS_CLASS_NONE;
}

const char *cs_class_name(uint32_t cls)
{
	const class_row *r = find_class(cls);
	return r ? r->name : NULL;
}

unsigned cs_class_qmd_major(uint32_t cls)
{
	const class_row *r = find_class(cls);
	return r ? r->qmd_major : 0;
}

bool cs_class_has(uint32_t cls, unsigned features)
{
	const class_row *r = find_class(cls);
	return r && (r->features & features) == features;
}

unsigned cs_arch_qmd_major(cs_arch arch)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	return ai ? cs_class_qmd_major(ai->compute_class) : 0;
}

bool cs_class_valid_for(uint32_t cls, cs_arch arch)
{
	const class_row *r = find_class(cls);
	return r && (r->arch_mask & (1u << arch));
}

void cs_class_list_for(cs_arch arch, cs_class_kind kind, char *buf, unsigned len)
{
	unsigned used = 0;
	if (len)
		buf[0] = '\0';
	for (unsigned i = 0; i < CLASS_ROWS && used < len; i++) {
		const class_row *r = &class_table[i];
		if (r->kind != kind || !(r->arch_mask & (1u << arch)))
			continue;
		int n = snprintf(buf + used, len - used, "%s%04X", used ? ", " : "", r->id);
		if (n < 0)
			break;
		used += (unsigned)n;
	}
}

const char *cs_class_kind_name(cs_class_kind kind)
{
	switch (kind) {
	case CS_CLASS_NONE: return "unknown";
	case CS_CLASS_HOST: return "host";
	case CS_CLASS_COMPUTE: return "compute";
	case CS_CLASS_COPY: return "copy";
	case CS_CLASS_UNMODELLED: return "not modelled";
	}
	return "?";
}
