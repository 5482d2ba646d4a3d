/* SPDX-License-Identifier: MIT */
/* The cubin/fatbin loader against the committed nvcc 13 fixtures
 * (fixtures/kernels/out), and against malformed inputs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/ptxrun.h"
#include "fixtures.h"

/* What the CUDA sources say about each kernel: parameter sizes in order (the
 * ABI puts each at the next multiple of its size) and static __shared__ bytes. */
typedef struct expect_kernel {
	const char *source, *name;
	unsigned nparams;
	unsigned sizes[8];
	unsigned shared; /* the kernel's own __shared__ variables, or RESERVED_ONLY */
	unsigned barriers; /* 1 when it calls __syncthreads */
	unsigned max_threads; /* __launch_bounds__, 0 when none */
	unsigned local_bytes; /* the stack frame per thread, 0 when none */
	unsigned aligns[8]; /* parameter alignments where they differ from the size
			       (structs by value), else 0 */
} expect_kernel;

/* No __shared__ variables of its own, and still nvcc 13 gives the kernel the
 * 1 KiB reserved from sm_90 (seen in a module whose other kernels use dynamic
 * shared memory and cooperative groups). */
#define RESERVED_ONLY 0xffffffffu

static const expect_kernel kernels[] = {
	{ "vadd", "vadd", 4, { 8, 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "matmul", "matmul", 4, { 8, 8, 8, 4 }, 2 * 16 * 16 * 4, 1, 0, 0, { 0 } },
	{ "softmax", "softmax_rows", 4, { 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "attention", "attention", 7, { 8, 8, 8, 8, 4, 4, 4 }, (256 + 64) * 4, 1, 0, 0, { 0 } },
	{ "ffn", "ffn_up", 7, { 8, 8, 8, 8, 4, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "ffn", "ffn_down", 8, { 8, 8, 8, 8, 8, 4, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "reduce", "reduce_sum", 3, { 8, 8, 4 }, 256 * 4, 1, 0, 0, { 0 } },
	{ "reduce", "reduce_u32", 4, { 8, 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "bounds", "scale_bounded", 3, { 8, 4, 4 }, 0, 0, 128, 0, { 0 } },
	{ "local", "local_scan", 4, { 8, 8, 4, 4 }, 0, 0, 0, 64 * 4, { 0 } },
	{ "noparams", "noop", 0, { 0 }, 0, 0, 0, 0, { 0 } },
	{ "mixed", "mixed_scale", 3, { 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "mixed", "mixed_texture_sum", 3, { 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "mixed", "mixed_offset", 3, { 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "bf16", "bf16_gelu_forward", 3, { 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "bf16", "bf16_residual_forward", 4, { 8, 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "warpsize", "row_sum_warpsize", 4, { 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "warpsize", "row_max_cg", 4, { 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "intops", "hash_rotate", 3, { 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "intops", "wide_mac", 5, { 8, 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "intops", "pointer_spaces", 2, { 8, 8 }, 32 * 4, 1, 0, 4 * 4, { 0 } },
	{ "intops", "match_keys", 3, { 8, 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "intops", "half_warp_ops", 2, { 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "halfatomic", "bias_grad_half2", 4, { 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "halfatomic", "bias_grad_bf162", 4, { 8, 8, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "halfatomic", "scatter_add_half", 4, { 8, 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "halfatomic", "scatter_add_bf16", 4, { 8, 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "structparam", "adamw_struct", 4, { 40, 8, 8, 8 }, 0, 0, 0, 0, { 8 } },
	{ "structparam", "shape_fill", 3, { 12, 5, 8 }, 0, 0, 0, 8, { 4, 1 } },
	{ "approx", "fast_math", 3, { 8, 8, 4 }, 0, 0, 0, 0, { 0 } },
	{ "deviceio", "block_summary", 3, { 8, 4, 4 }, 0, 0, 0, 32, { 0 } },
	{ "deviceio", "format_zoo", 2, { 8, 8 }, 0, 0, 0, 88, { 0 } },
	{ "racy", "softmax_shared_slot", 3, { 8, 8, 4 }, 32 * 4, 1, 0, 0, { 0 } },
	{ "tensorcore", "mma_f16_tile", 4, { 8, 8, 8, 8 }, 16 * 16 * 2 + 8 * 16 * 2, 0, 0, 0, { 0 } },
	{ "tensorcore", "mma_bf16_tile", 3, { 8, 8, 8 }, 16 * 16 * 2 + 8 * 16 * 2, 0, 0, 0, { 0 } },
	{ "tensorcore", "mma_tf32_tile", 3, { 8, 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "wmma", "wmma_f16_f32", 7, { 8, 8, 8, 8, 4, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "wmma", "wmma_f16_f16", 6, { 8, 8, 8, 4, 4, 4 }, 16 * 16 * 2, 0, 0, 0, { 0 } },
	{ "wmma", "wmma_bf16_f32", 7, { 8, 8, 8, 4, 4, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "wmma", "wmma_tf32_f32", 6, { 8, 8, 8, 4, 4, 4 }, 0, 0, 0, 0, { 0 } },
	{ "tcgemm", "tc_gemm_pipelined", 6, { 8, 8, 8, 4, 4, 4 }, 2 * 32 * 16 * 2 + 2 * 16 * 16 * 2, 1, 0, 0, { 0 } },
	{ "tcgemm", "cp_async_small", 6, { 8, 8, 4, 8, 8, 8 }, 64 * 4 + 16 * 8 * 2 + 8 * 8 * 2, 0, 0, 0, { 0 } },
	{ "idioms", "scale_float4", 4, { 8, 8, 4, 4 }, RESERVED_ONLY, 0, 0, 0, { 0 } },
	{ "idioms", "block_sum_dynamic", 3, { 8, 8, 4 }, RESERVED_ONLY, 1, 0, 0, { 0 } },
	{ "idioms", "early_exit_rows", 4, { 8, 8, 4, 4 }, 8 * 4, 1, 0, 0, { 0 } },
	{ "idioms", "layernorm_forward", 8, { 8, 8, 8, 8, 8, 8, 4, 4 }, RESERVED_ONLY, 0, 0, 0, { 0 } },
	{ "warpmask", "warp16_max", 2, { 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "warpmask", "bucket_max", 2, { 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "warpmask", "half_reduce", 2, { 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "cubblock", "radix_sort_block", 2, { 8, 8 }, 2336, 1, 0, 0, { 0 } },
	{ "cubblock", "histogram_block", 2, { 8, 8 }, 2336 + 1024, 1, 0, 0, { 0 } },
	{ "cubblock", "load_store_transpose", 2, { 8, 8 }, 1040, 1, 0, 0, { 0 } },
	{ "asyncbar", "barrier_reverse", 2, { 8, 8 }, 256 * 4 + 8, 1, 0, 0, { 0 } },
	{ "coopgrid", "grid_reduce", 4, { 8, 8, 8, 4 }, 128 * 4, 1, 0, 0, { 0 } },
	{ "coopgrid", "grid_stencil", 4, { 8, 8, 4, 4 }, 0, 1, 0, 0, { 0 } },
	{ "asyncbar", "barrier_rounds", 3, { 8, 8, 4 }, 8 * 4 + 8, 1, 0, 0, { 0 } },
	/* pipeline_shared_state<block, 2>: two barriers per stage, a 4-byte count */
	{ "asyncbar", "pipeline_sum", 3, { 8, 8, 4 }, 2 * 128 * 4 + 4 * 8 + 8, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_direct", 3, { 8, 8, 4 }, 0, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_striped", 3, { 8, 8, 4 }, 0, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_vectorize", 3, { 8, 8, 4 }, 0, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_transpose_all", 3, { 8, 8, 4 }, 1040, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_warp_transpose", 3, { 8, 8, 4 }, 1040, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_timesliced", 3, { 8, 8, 4 }, 528, 1, 0, 0, { 0 } },
	{ "cubload", "load_store_vectorize_full", 2, { 8, 8 }, 0, 0, 0, 0, { 0 } },
	{ "cubload", "radix_sort_pairs_desc", 3, { 8, 8, 8 }, 2336, 1, 0, 0, { 0 } },
	{ "cubload", "histogram_atomic", 2, { 8, 8 }, 1024, 1, 0, 0, { 0 } },
	{ "cubload", "atomic_refs", 3, { 8, 8, 8 }, 4, 1, 0, 0, { 0 } },
};

/* Where nvcc 13 puts the parameters in constant bank 0, per target (checked
 * here so a toolkit that moves them is noticed). */
static unsigned param_base_for(unsigned sm)
{
	return sm == 80 ? 0x160 : sm == 90 ? 0x210 : 0x380;
}

static cs_module *load_fixture(const char *file, cs_arch arch)
{
	char *p = test_kernel_fixture(file);
	cs_diag d;
	cs_diag_clear(&d);
	cs_module *m = cs_module_load_file(p, arch, &d);
	char msg[700];
	cs_diag_format(&d, msg, sizeof(msg));
	cr_assert_not_null(m, "%s: %s", file, msg);
	g_free(p);
	return m;
}

static void check_kernel(const cs_module *m, const expect_kernel *e, unsigned sm, const char *file)
{
	const cs_kernel_info *k = cs_module_kernel_named(m, e->name);
	cr_assert_not_null(k, "%s: no kernel %s", file, e->name);
	cr_expect_str_eq(k->name, e->name);
	cr_expect_eq(k->sm, sm, "%s %s: sm %u", file, e->name, k->sm);
	cr_expect_gt(k->code_size, 0);
	cr_expect_eq(k->code_size % 16, 0, "%s %s: SASS is 16-byte instructions", file, e->name);
	cr_assert_eq(k->nparams, e->nparams, "%s %s: %zu params", file, e->name, k->nparams);
	unsigned off = 0;
	for (unsigned i = 0; i < e->nparams; i++) {
		unsigned sz = e->sizes[i], al = e->aligns[i] ? e->aligns[i] : sz;
		off = (off + al - 1) / al * al;
		cr_expect_eq(k->params[i].ordinal, i);
		cr_expect_eq(k->params[i].offset, off, "%s %s param %u offset 0x%x", file, e->name, i,
			     k->params[i].offset);
		cr_expect_eq(k->params[i].size, sz, "%s %s param %u size %u", file, e->name, i,
			     k->params[i].size);
		off += sz;
	}
	cr_expect_eq(k->param_bytes, off, "%s %s: param bytes 0x%x, want 0x%x", file, e->name,
		     k->param_bytes, off);
	cr_expect_eq(k->param_base, param_base_for(sm), "%s %s: param base 0x%x", file, e->name,
		     k->param_base);
	cr_expect_eq(k->cbank0_size, k->param_base + k->param_bytes, "%s %s: cbank0 0x%x", file,
		     e->name, k->cbank0_size);
	unsigned shared = e->shared == RESERVED_ONLY ? 0 : e->shared;
	if (sm >= 90 && (shared || e->shared == RESERVED_ONLY))
		shared += 0x400; /* the reserved first KiB nvcc counts from sm_90 */
	cr_expect_eq(k->shared_static, shared, "%s %s: shared 0x%x, want 0x%x", file, e->name,
		     k->shared_static, shared);
	cr_expect(k->regs > 0 && k->regs <= 255, "%s %s: %u registers", file, e->name, k->regs);
	cr_expect_eq(k->barriers, e->barriers, "%s %s: %u barriers", file, e->name, k->barriers);
	cr_expect_eq(k->code_relocs, 0, "%s %s: %u relocations", file, e->name, k->code_relocs);
	cr_expect_eq(k->local_bytes, e->local_bytes, "%s %s: %u bytes of local memory", file,
		     e->name, k->local_bytes);
	unsigned mt[3] = { e->max_threads, e->max_threads ? 1 : 0, e->max_threads ? 1 : 0 };
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(k->max_threads[i], mt[i], "%s %s: max threads[%d] %u", file, e->name, i,
			     k->max_threads[i]);
		cr_expect_eq(k->reqntid[i], 0, "%s %s: reqntid", file, e->name);
	}
}

Test(loader, every_cubin_kernel_layout)
{
	unsigned checked = 0;
	for (size_t s = 0; s < fx_nsources; s++)
		for (size_t a = 0; a < fx_nsms; a++) {
			char file[64];
			snprintf(file, sizeof(file), "%s.sm_%u.cubin", fx_sources[s], fx_sms[a]);
			cs_module *m = load_fixture(file, fx_arch_for_sm(fx_sms[a]));
			size_t want = 0;
			for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); k++)
				if (strcmp(kernels[k].source, fx_sources[s]) == 0) {
					check_kernel(m, &kernels[k], fx_sms[a], file);
					want++;
					checked++;
				}
			cr_expect_eq(cs_module_kernel_count(m), want, "%s: %zu kernels", file,
				     cs_module_kernel_count(m));
			cr_expect_not(cs_module_is_fatbin(m));
			cr_expect_null(cs_module_ptx(m, NULL));
			cr_expect_not_null(cs_module_ptx_note(m));
			for (size_t k = 0; k < cs_module_kernel_count(m); k++)
				cr_expect_not(cs_module_kernel(m, k)->has_ptx);
			cs_module_free(m);
		}
	cr_expect_eq(checked, (unsigned)(sizeof(kernels) / sizeof(kernels[0])) * 3);
}

Test(loader, fatbin_entries_both_variants)
{
	for (size_t s = 0; s < fx_nsources; s++)
		for (int nc = 0; nc < 2; nc++) {
			char file[64];
			snprintf(file, sizeof(file), "%s%s.fatbin", fx_sources[s],
				 nc ? ".nocompress" : "");
			cs_module *m = load_fixture(file, CS_ARCH_HOPPER);
			cr_expect(cs_module_is_fatbin(m));
			cr_assert_eq(cs_module_fatbin_entry_count(m), 6, "%s: %zu entries", file,
				     cs_module_fatbin_entry_count(m));
			unsigned seen_elf = 0, seen_ptx = 0, selected = 0;
			for (size_t i = 0; i < 6; i++) {
				const cs_fatbin_entry *e = cs_module_fatbin_entry(m, i);
				unsigned bit = e->sm == 80 ? 1 : e->sm == 90 ? 2 : e->sm == 100 ? 4 : 8;
				if (e->kind == CS_FATBIN_ELF) {
					seen_elf |= bit;
					/* nvcc 13 leaves SASS uncompressed even by default */
					cr_expect_not(e->compressed, "%s: ELF sm_%u compressed", file,
						      e->sm);
				} else {
					cr_expect_eq(e->kind, CS_FATBIN_PTX);
					seen_ptx |= bit;
					cr_expect_eq(e->compressed, !nc, "%s: PTX sm_%u compressed=%d",
						     file, e->sm, e->compressed);
					/* noop's 254 bytes of PTX do not shrink */
					if (e->compressed && e->size > 1024)
						cr_expect_gt(e->size, e->payload_size);
				}
				/* the loader decompresses what it uses */
				cr_expect_eq(e->decompressed, e->compressed && e->selected,
					     "%s: sm_%u kind %d decompressed=%d", file, e->sm, e->kind,
					     e->decompressed);
				if (e->selected) {
					selected++;
					cr_expect_eq(e->sm, 90);
				}
			}
			cr_expect_eq(seen_elf, 7, "%s: ELF sms mask %u", file, seen_elf);
			cr_expect_eq(seen_ptx, 7, "%s: PTX sms mask %u", file, seen_ptx);
			cr_expect_eq(selected, 2, "%s: %u selected", file, selected);
			cs_module_free(m);
		}
}

/* The SASS nvcc puts in a fatbin is the cubin -cubin writes, byte for byte. */
Test(loader, fatbin_sass_equals_cubin)
{
	for (size_t s = 0; s < fx_nsources; s++)
		for (size_t a = 0; a < fx_nsms; a++) {
			char cf[64], ff[64];
			cs_arch arch = fx_arch_for_sm(fx_sms[a]);
			snprintf(cf, sizeof(cf), "%s.sm_%u.cubin", fx_sources[s], fx_sms[a]);
			snprintf(ff, sizeof(ff), "%s.fatbin", fx_sources[s]);
			cs_module *c = load_fixture(cf, arch), *f = load_fixture(ff, arch);
			cr_assert_eq(cs_module_kernel_count(c), cs_module_kernel_count(f));
			for (size_t k = 0; k < cs_module_kernel_count(c); k++) {
				const cs_kernel_info *kc = cs_module_kernel(c, k);
				const cs_kernel_info *kf = cs_module_kernel_named(f, kc->name);
				cr_assert_not_null(kf, "%s: %s missing", ff, kc->name);
				cr_expect_eq(kc->code_size, kf->code_size);
				cr_expect(memcmp(kc->code, kf->code, kc->code_size) == 0,
					  "%s %s sm_%u: SASS differs", ff, kc->name, fx_sms[a]);
				cr_expect_eq(kc->param_base, kf->param_base);
				cr_expect_eq(kc->shared_static, kf->shared_static);
			}
			cs_module_free(c);
			cs_module_free(f);
		}
}

/* nvcc 13 zstd-compresses the PTX entries by default: decompressed, they are
 * the text --no-compress stores, byte for byte, for every source and arch. */
Test(loader, zstd_ptx_equals_uncompressed_ptx)
{
	const cs_arch arches[] = { CS_ARCH_AMPERE, CS_ARCH_HOPPER, CS_ARCH_BLACKWELL };
	for (size_t s = 0; s < fx_nsources; s++)
		for (size_t a = 0; a < 3; a++) {
			char cf[64], nf[64];
			snprintf(cf, sizeof(cf), "%s.fatbin", fx_sources[s]);
			snprintf(nf, sizeof(nf), "%s.nocompress.fatbin", fx_sources[s]);
			cs_module *c = load_fixture(cf, arches[a]), *n = load_fixture(nf, arches[a]);
			size_t lc = 0, ln = 0;
			const char *pc = cs_module_ptx(c, &lc), *pn = cs_module_ptx(n, &ln);
			cr_assert_not_null(pc, "%s: %s", cf, cs_module_ptx_note(c));
			cr_assert_not_null(pn);
			cr_expect_eq(lc, ln, "%s: %zu vs %zu bytes", cf, lc, ln);
			cr_expect(lc == ln && memcmp(pc, pn, lc) == 0, "%s: PTX differs", cf);
			/* nvcc stores the PTX with comments and indentation stripped, so it
			 * is not the -ptx file; it is for the target, though */
			char tgt[32];
			snprintf(tgt, sizeof(tgt), ".target sm_%u\n", cs_arch_sm(arches[a]));
			cr_expect(strstr(pc, tgt) != NULL, "%s: no %s", cf, tgt);
			for (size_t k = 0; k < cs_module_kernel_count(c); k++)
				cr_expect(cs_module_kernel(c, k)->has_ptx);
			cs_module_free(c);
			cs_module_free(n);
		}
}

Test(loader, nocompress_fatbin_has_ptx_for_the_arch)
{
	struct { cs_arch arch; const char *target; unsigned sass; } cases[] = {
		{ CS_ARCH_AMPERE, ".target sm_80", 80 },
		{ CS_ARCH_ADA, ".target sm_80", 80 }, /* sm_89 runs sm_80 SASS and JITs sm_80 PTX */
		{ CS_ARCH_HOPPER, ".target sm_90", 90 },
		{ CS_ARCH_BLACKWELL, ".target sm_100", 100 },
	};
	for (size_t i = 0; i < 4; i++) {
		cs_module *m = load_fixture("ffn.nocompress.fatbin", cases[i].arch);
		size_t len = 0;
		const char *ptx = cs_module_ptx(m, &len);
		cr_assert_not_null(ptx);
		cr_expect_eq(strlen(ptx), len);
		cr_expect(strstr(ptx, cases[i].target) != NULL, "want %s", cases[i].target);
		cr_expect_null(cs_module_ptx_note(m));
		cr_assert_eq(cs_module_kernel_count(m), 2);
		for (size_t k = 0; k < 2; k++) {
			cr_expect(cs_module_kernel(m, k)->has_ptx);
			cr_expect_eq(cs_module_kernel(m, k)->sm, cases[i].sass);
		}
		cs_module_free(m);
	}
}

Test(loader, attach_ptx_to_cubin)
{
	cs_module *m = load_fixture("reduce.sm_90.cubin", CS_ARCH_HOPPER);
	size_t len;
	uint8_t *ptx = (uint8_t *)test_read_kernel_fixture("reduce.sm_90.ptx", &len);
	cr_assert_not_null(ptx);
	cs_diag d;
	cr_assert(cs_module_attach_ptx(m, (const char *)ptx, len, &d));
	cr_expect(cs_module_kernel_named(m, "reduce_sum")->has_ptx);
	cr_expect(cs_module_kernel_named(m, "reduce_u32")->has_ptx);
	/* PTX of another module: its entries do not name these kernels */
	uint8_t *other = (uint8_t *)test_read_kernel_fixture("vadd.sm_90.ptx", &len);
	cr_assert(cs_module_attach_ptx(m, (const char *)other, len, &d));
	cr_expect_not(cs_module_kernel_named(m, "reduce_sum")->has_ptx);
	free(ptx);
	free(other);
	cs_module_free(m);
}

Test(loader, refcount_outlives_caller)
{
	cs_module *m = load_fixture("vadd.sm_90.cubin", CS_ARCH_HOPPER);
	cs_module *r = cs_module_ref(m);
	cs_module_free(m);
	cr_expect_str_eq(cs_module_kernel(r, 0)->name, "vadd");
	cs_module_free(r);
}

Test(loader, arch_mismatch_is_refused)
{
	char *p = test_kernel_fixture("vadd.sm_100.cubin");
	cs_diag d;
	cs_module *m = cs_module_load_file(p, CS_ARCH_HOPPER, &d);
	cr_expect_null(m);
	cr_expect_eq(d.status, CS_ERR_UNSUPPORTED);
	cr_expect(d.has_offset && d.offset == 0x30, "offset 0x%llx", (unsigned long long)d.offset);
	cr_expect(strstr(d.msg, "sm_100") != NULL, "%s", d.msg);
	g_free(p);
	/* sm_90 SASS on ampere: newer than the device */
	p = test_kernel_fixture("vadd.fatbin");
	m = cs_module_load_file(p, CS_ARCH_AMPERE, &d);
	cr_assert_not_null(m, "%s", d.msg);
	cr_expect_eq(cs_module_kernel(m, 0)->sm, 80);
	cs_module_free(m);
	g_free(p);
}

/* ---- malformed input: every error located ------------------------------ */

static uint8_t *fixture_copy(const char *name, size_t *len)
{
	uint8_t *b = (uint8_t *)test_read_kernel_fixture(name, len);
	cr_assert_not_null(b, "cannot read %s", name);
	return b;
}

static void expect_error(const uint8_t *b, size_t len, cs_status st, uint64_t offset,
			 const char *needle)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_module *m = cs_module_load_bytes(b, len, "bad", CS_ARCH_HOPPER, &d);
	char msg[700];
	cs_diag_format(&d, msg, sizeof(msg));
	cr_assert_null(m, "loaded, expected: %s", needle);
	cr_expect_eq(d.status, st, "status %s: %s", cs_status_name(d.status), msg);
	cr_expect(d.has_offset, "no offset: %s", msg);
	cr_expect_eq(d.offset, offset, "offset 0x%llx, want 0x%llx: %s",
		     (unsigned long long)d.offset, (unsigned long long)offset, msg);
	cr_expect(strstr(d.msg, needle) != NULL, "'%s' not in: %s", needle, msg);
	cr_expect(strncmp(msg, "bad: byte 0x", 12) == 0, "format: %s", msg);
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

Test(malformed, truncated_elf)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.sm_90.cubin", &len);
	expect_error(b, 40, CS_ERR_INPUT, 40, "truncated ELF");
	/* header intact, section table cut off */
	expect_error(b, 1000, CS_ERR_INPUT, 0x28, "section header table");
	free(b);
}

Test(malformed, wrong_machine)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.sm_90.cubin", &len);
	put16(b + 0x12, 62); /* EM_X86_64 */
	expect_error(b, len, CS_ERR_INPUT, 0x12, "not EM_CUDA");
	free(b);
}

Test(malformed, not_64bit)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.sm_90.cubin", &len);
	b[4] = 1;
	expect_error(b, len, CS_ERR_INPUT, 4, "64-bit");
	free(b);
}

Test(malformed, section_out_of_bounds)
{
	size_t len;
	uint8_t *b = fixture_copy("matmul.sm_90.cubin", &len);
	uint64_t shoff = get64(b + 0x28);
	uint64_t sh = shoff + 13 * 64; /* section 13, .text.matmul */
	put64(b + sh + 0x18, len - 8);
	expect_error(b, len, CS_ERR_INPUT, sh + 0x18, "runs past the end");
	/* an overflowing size */
	put64(b + sh + 0x18, 0x100);
	put64(b + sh + 0x20, UINT64_MAX - 0x80);
	expect_error(b, len, CS_ERR_INPUT, sh + 0x18, "runs past the end");
	free(b);
}

Test(malformed, bad_shstrndx)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.sm_90.cubin", &len);
	put16(b + 0x3e, 200);
	expect_error(b, len, CS_ERR_INPUT, 0x3e, "name table index");
	free(b);
}

Test(malformed, nvinfo_record_past_section)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.sm_90.cubin", &len);
	uint64_t shoff = get64(b + 0x28);
	uint64_t sh = shoff + 9 * 64; /* .nv.info.vadd */
	uint64_t off = get64(b + sh + 0x18);
	/* first record: 04 37 04 00 (CUDA_API_VERSION); claim 0x4000 bytes */
	cr_assert_eq(b[off], 4);
	cr_assert_eq(b[off + 1], 0x37);
	put16(b + off + 2, 0x4000);
	expect_error(b, len, CS_ERR_INPUT, off + 2, "claims 16384 bytes");
	b[off] = 9;
	expect_error(b, len, CS_ERR_INPUT, off, "format 9");
	free(b);
}

Test(malformed, neither_format)
{
	uint8_t junk[64] = { 'h', 'e', 'l', 'l', 'o' };
	expect_error(junk, sizeof(junk), CS_ERR_INPUT, 0, "neither a cubin");
	expect_error(junk, 0, CS_ERR_INPUT, 0, "neither a cubin");
}

Test(malformed, bad_fatbin_header)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	put16(b + 4, 7);
	expect_error(b, len, CS_ERR_UNSUPPORTED, 4, "version 7");
	put16(b + 4, 1);
	put16(b + 6, 4);
	expect_error(b, len, CS_ERR_INPUT, 6, "header size 4");
	put16(b + 6, 16);
	/* the container claims more than the file holds */
	expect_error(b, len - 100, CS_ERR_INPUT, 8, "only");
	expect_error(b, 10, CS_ERR_INPUT, 0, "truncated fatbin header");
	free(b);
}

Test(malformed, fatbin_entry_past_end)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	/* first entry at 0x10; its payload size at +8 */
	put64(b + 0x18, (uint64_t)len);
	expect_error(b, len, CS_ERR_INPUT, 0x18, "runs past the container");
	put64(b + 0x18, UINT64_MAX);
	expect_error(b, len, CS_ERR_INPUT, 0x18, "runs past the container");
	free(b);
}

Test(malformed, fatbin_entry_bad_kind_and_header_size)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	put16(b + 0x10, 5);
	expect_error(b, len, CS_ERR_INPUT, 0x10, "kind 5");
	put16(b + 0x10, 2);
	put32(b + 0x14, 8);
	expect_error(b, len, CS_ERR_INPUT, 0x14, "header size 0x8");
	free(b);
}

Test(malformed, fatbin_embedded_cubin_offsets_are_file_offsets)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	/* entry 0 is ELF sm_80, header 0x40: the cubin starts at 0x50. Find the
	 * sm_90 ELF entry and break its machine field. */
	uint64_t e = 0x10;
	uint64_t elf = 0;
	while (e < len) {
		uint32_t hs = (uint32_t)(b[e + 4] | b[e + 5] << 8);
		uint64_t ps = get64(b + e + 8);
		if (b[e] == 2 && b[e + 0x1c] == 90) {
			elf = e + hs;
			break;
		}
		e += hs + ps;
	}
	cr_assert_neq(elf, 0);
	put16(b + elf + 0x12, 3);
	expect_error(b, len, CS_ERR_INPUT, elf + 0x12, "in the SASS entry at byte");
	free(b);
}

Test(malformed, compressed_sass_lz_refused_zstd_checked)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	uint64_t e = 0x10;
	while (e < len) {
		uint32_t hs = (uint32_t)(b[e + 4] | b[e + 5] << 8);
		uint64_t ps = get64(b + e + 8);
		if (b[e] == 2 && b[e + 0x1c] == 90)
			break;
		e += hs + ps;
	}
	cr_assert_lt(e, len);
	b[e + 0x29] |= 0x20; /* flags |= 0x2000: nvcc 12's LZ scheme */
	expect_error(b, len, CS_ERR_UNSUPPORTED, e + 0x28, "--no-compress");
	/* flagged zstd, but the bytes are a plain cubin: not a zstd frame */
	b[e + 0x29] = (uint8_t)((b[e + 0x29] & ~0x20) | 0x80);
	b[e + 0x38] = 0x10; /* a decompressed size */
	uint32_t hs = (uint32_t)(b[e + 4] | b[e + 5] << 8);
	expect_error(b, len, CS_ERR_INPUT, e + hs, "bad frame magic");
	free(b);
}

/* A compressed entry may not declare more than 1 MiB + 64x its compressed
 * bytes: refused at its size field before any memory is taken for it. */
Test(malformed, decompression_is_capped)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.fatbin", &len);
	uint64_t e = 0x10, found = 0;
	while (e + 0x40 <= len) {
		uint32_t hs = (uint32_t)(b[e + 4] | b[e + 5] << 8);
		uint64_t ps = get64(b + e + 8);
		if (b[e] == 1 && b[e + 0x1c] == 90 && (b[e + 0x29] & 0x80))
			found = e;
		e += hs + ps;
	}
	cr_assert_neq(found, 0, "no zstd PTX entry for sm_90 in vadd.fatbin");
	put64(b + found + 0x38, 200u << 20); /* 200 MiB from a few KB */
	expect_error(b, len, CS_ERR_INPUT, found + 0x38, "above the inflation cap");
	free(b);
}

Test(malformed, missing_sass_for_arch)
{
	size_t len;
	uint8_t *b = fixture_copy("vadd.nocompress.fatbin", &len);
	uint64_t e = 0x10;
	while (e < len) {
		uint32_t hs = (uint32_t)(b[e + 4] | b[e + 5] << 8);
		uint64_t ps = get64(b + e + 8);
		if (b[e] == 2 && b[e + 0x1c] == 90)
			b[e + 0x1c] = 91; /* now only 80, 91, 100 */
		e += hs + ps;
	}
	expect_error(b, len, CS_ERR_UNSUPPORTED, 0, "no SASS for hopper");
	free(b);
}

/* ---- .nv.info semantics: records that parse but do not add up ----------- */

/* Section [off, size) of the named section in a cubin (the tests' own tiny
 * reader, independent of the loader). */
static bool test_section(const uint8_t *b, const char *name, uint64_t *off, uint64_t *size)
{
	uint64_t shoff = get64(b + 0x28);
	unsigned shnum = (unsigned)(b[0x3c] | b[0x3d] << 8), shstr = (unsigned)(b[0x3e] | b[0x3f] << 8);
	uint64_t stroff = get64(b + shoff + shstr * 64 + 0x18);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = b + shoff + i * 64;
		uint32_t nm = (uint32_t)(sh[0] | sh[1] << 8 | sh[2] << 16 | (uint32_t)sh[3] << 24);
		if (strcmp((const char *)b + stroff + nm, name) == 0) {
			*off = get64(sh + 0x18);
			*size = get64(sh + 0x20);
			return true;
		}
	}
	return false;
}

/* File offset of the n-th record with attribute attr in .nv.info.vadd. */
static uint64_t vadd_record(const uint8_t *b, uint8_t attr, unsigned nth)
{
	uint64_t off, size;
	cr_assert(test_section(b, ".nv.info.vadd", &off, &size));
	for (uint64_t o = 0; o < size;) {
		uint8_t fmt = b[off + o], at = b[off + o + 1];
		if (at == attr && nth-- == 0)
			return off + o;
		o += fmt == 4 ? 4u + (unsigned)(b[off + o + 2] | b[off + o + 3] << 8) : 4u;
	}
	cr_assert_fail("no record 0x%x", attr);
	return 0;
}

Test(malformed, nvinfo_semantics)
{
	size_t len;
	uint8_t *orig = fixture_copy("vadd.sm_90.cubin", &len);
	uint8_t *b = malloc(len);
	uint64_t info_off, info_size;
	cr_assert(test_section(orig, ".nv.info.vadd", &info_off, &info_size));

	/* no PARAM_CBANK: where do the parameters live? */
	memcpy(b, orig, len);
	b[vadd_record(orig, 0x0a, 0) + 1] = 0x7e;
	expect_error(b, len, CS_ERR_INPUT, info_off, "no EIATTR_PARAM_CBANK");

	/* KPARAM_INFO records are listed last parameter first: the first is
	 * ordinal 3 at 0x18; move it to 0x1c, past the 0x1c parameter bytes */
	memcpy(b, orig, len);
	uint64_t k3 = vadd_record(orig, 0x17, 0);
	cr_assert_eq(b[k3 + 8], 3);
	b[k3 + 10] = 0x1c;
	expect_error(b, len, CS_ERR_INPUT, k3, "does not fit");

	/* two parameters with ordinal 1 */
	memcpy(b, orig, len);
	uint64_t k2 = vadd_record(orig, 0x17, 1);
	b[k2 + 8] = 1;
	expect_error(b, len, CS_ERR_INPUT, vadd_record(orig, 0x17, 2), "ordinal 1 twice");

	/* CBANK_PARAM_SIZE grown past .nv.constant0.vadd */
	memcpy(b, orig, len);
	uint64_t ps = vadd_record(orig, 0x19, 0);
	b[ps + 2] = 0x00;
	b[ps + 3] = 0x01;
	expect_error(b, len, CS_ERR_INPUT, vadd_record(orig, 0x0a, 0), "run past .nv.constant0");

	/* PARAM_CBANK as a short SVAL */
	memcpy(b, orig, len);
	uint64_t cb = vadd_record(orig, 0x0a, 0);
	b[cb] = 3; /* HVAL */
	expect_error(b, len, CS_ERR_INPUT, cb, "expected SVAL");
	free(b);
	free(orig);
}

/* A kernel whose code carries relocations: point matmul's (empty)
 * .rela.text.matmul at the 0x18 bytes of .nv.merc.rela.text.matmul, one
 * Elf64_Rela. */
Test(loader, code_relocations_are_counted)
{
	size_t len;
	uint8_t *b = fixture_copy("matmul.sm_100.cubin", &len);
	uint64_t shoff = get64(b + 0x28);
	unsigned shnum = (unsigned)(b[0x3c] | b[0x3d] << 8), shstr = (unsigned)(b[0x3e] | b[0x3f] << 8);
	uint64_t stroff = get64(b + shoff + shstr * 64 + 0x18);
	uint8_t *rela = NULL, *merc = NULL;
	for (unsigned i = 0; i < shnum; i++) {
		uint8_t *sh = b + shoff + i * 64;
		uint32_t nm = (uint32_t)(sh[0] | sh[1] << 8 | sh[2] << 16 | (uint32_t)sh[3] << 24);
		const char *n = (const char *)b + stroff + nm;
		if (strcmp(n, ".rela.text.matmul") == 0)
			rela = sh;
		if (strcmp(n, ".nv.merc.rela.text.matmul") == 0)
			merc = sh;
	}
	cr_assert(rela && merc);
	memcpy(rela + 0x18, merc + 0x18, 16); /* sh_offset, sh_size */
	cs_diag d;
	cs_module *m = cs_module_load_bytes(b, len, "reloc", CS_ARCH_BLACKWELL, &d);
	cr_assert_not_null(m, "%s", d.msg);
	cr_expect_eq(cs_module_kernel(m, 0)->code_relocs, 1);
	cs_module_free(m);
	free(b);
}
