/* SPDX-License-Identifier: MIT */
/* The compute engine's launches, driven through the engine port with method
 * calls against a real cs_mem: both paths on each arch, every PCAS2 action,
 * QMD acceptance, dispatch outcomes, releases, dependents. The executor behind
 * the port is fake_exec (harness.c): it runs no code and answers the outcome
 * the test picks. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const cs_arch arches[] = { CS_ARCH_AMPERE, CS_ARCH_ADA, CS_ARCH_HOPPER,
				  CS_ARCH_BLACKWELL };

static unsigned qmd_dwords(cs_arch a) { return cs_qmd_size(cs_arch_qmd_major(a)) / 4; }

/* The kinds, in order, of every record from index `from`. */
static void expect_kinds(const h_env *h, size_t from, const cs_event_kind *k, size_t n)
{
	cr_assert_eq(h->tb.trace.n - from, n, "expected %zu records, got %zu", n, h->tb.trace.n - from);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(h->tb.trace.recs[from + i].ev.kind, k[i], "record %zu is %s, expected %s", i,
			     cs_event_kind_name((cs_event_kind)h->tb.trace.recs[from + i].ev.kind),
			     cs_event_kind_name(k[i]));
}

static const cs_event_kind full_launch[] = { CS_EV_QMD_INSTALL, CS_EV_QMD_SCHEDULE,
					     CS_EV_QMD_READ,    CS_EV_CTX_LOAD,
					     CS_EV_DISPATCH,    CS_EV_GRID_DONE,
					     CS_EV_SEM_RELEASE };

Test(gr_launch, pcas_path_on_each_arch)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		h_qmd_build(h, &q, 3, 0x1234);
		h_qmd_write(h, H_QMD_VA, &q);
		h->gp_entry = 5;
		cr_assert_eq(h_pcas(h, H_QMD_VA, CS_PCAS2_INVALIDATE_COPY_SCHEDULE), CS_ENGINE_OK,
			     "%s", h->why.msg);
		expect_kinds(h, 0, full_launch, 7);
		const cs_event *ins = &h->tb.trace.recs[0].ev;
		cr_expect_eq(ins->stage, CS_STAGE_QMD_INSTALL);
		cr_expect_eq(ins->addr, H_QMD_VA);
		cr_expect_eq(ins->value, qmd_dwords(arches[a]) * 4);
		cr_expect_eq(ins->aux, CS_GR_PATH_PCAS);
		cr_expect_eq(h->tb.trace.recs[1].ev.value, CS_PCAS2_INVALIDATE_COPY_SCHEDULE);
		cr_expect_eq(h->tb.trace.recs[2].ev.value, cs_arch_qmd_major(arches[a]));
		cr_expect_eq(h->tb.trace.recs[4].ev.value, 3);
		cr_expect_eq(h->tb.trace.recs[4].ev.addr, H_CODE_VA);
		cr_expect_eq(h->tb.trace.recs[5].ev.value, 3);
		cr_expect_eq(h->tb.trace.recs[5].ev.aux, 3 * 32 * 7);
		cr_expect_str_eq(h->tb.trace.recs[5].detail, "fake_kernel");
		const cs_event *rel = &h->tb.trace.recs[6].ev;
		cr_expect_eq(rel->stage, CS_STAGE_ENGINE_RELEASE);
		cr_expect_eq(rel->unit, CS_UNIT_COMPUTE);
		cr_expect_eq(rel->addr, H_SEM_VA);
		cr_expect_eq(rel->value, 0x1234);
		cr_expect_eq(rel->aux, 4);
		for (size_t i = 0; i < h->tb.trace.n; i++) {
			const cs_event *e = &h->tb.trace.recs[i].ev;
			cr_expect_eq(e->launch, 0);
			cr_expect_eq(e->channel, 0);
			cr_expect_eq(e->gp_entry, 5);
			cr_expect_eq(e->method_index, 1, "the SEND_SIGNALING_PCAS2_B call");
			cr_expect_eq(e->method, CS_GR_SEND_SIGNALING_PCAS2_B);
			cr_expect_eq(e->cls, cs_arch_get(arches[a])->compute_class);
		}
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x1234);
		cr_expect_eq(h->fx.calls, 1);
		cr_expect_eq(h->fx.last.grid[0], 3);
		cr_expect_eq(h->fx.last.block[0], 32);
		cr_expect_eq(h->fx.last.cbank_valid, 1);
		cr_expect_eq(h->fx.last.cbank_addr[0], H_CBANK_VA);
		cr_expect_eq(h->fx.last.cbank_size[0], 0x300);
		cr_expect_eq(h->fx.last.qmd_addr, H_QMD_VA);
		cr_expect_eq(h->tb.now, CS_GR_NS_PER_LAUNCH + 3 * CS_GR_NS_PER_CTA);
		cs_gr_counters k;
		cs_gr_counters_get(h->gr, &k);
		cr_expect_eq(k.launches, 1);
		cr_expect_eq(k.grids_executed, 1);
		cr_expect_eq(k.releases, 1);
		cr_expect_eq(k.qmds_rejected, 0);
		cr_expect_eq(k.ctas_executed, 3);
		cr_expect_eq(k.thread_instructions, 3 * 32 * 7);
		h_free(h);
	}
}

Test(gr_launch, inline_path_on_each_arch)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		h_qmd_build(h, &q, 2, 0x77);
		unsigned n = qmd_dwords(arches[a]);
		uint64_t va = H_QMD_VA + 0x400;
		cr_assert_eq(h_inline(h, va, &q, n - 1, n == 96), CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect_eq(h->tb.trace.n, 0, "nothing happens before the last dword");
		cr_assert_eq(h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * (n - 1), q.dw[n - 1]),
			     CS_ENGINE_OK, "%s", h->why.msg);
		cr_assert_eq(h->tb.trace.n, 8);
		cr_expect_eq(h->tb.trace.recs[0].ev.kind, CS_EV_ASSUMPTION);
		char want[64];
		snprintf(want, sizeof(want), "(LOAD_INLINE_QMD_DATA(%u))", n - 1);
		cr_expect_not_null(strstr(h->tb.trace.recs[0].detail, want), "%s", h->tb.trace.recs[0].detail);
		cr_expect_not_null(strstr(h->tb.trace.recs[0].detail, "assumed"));
		expect_kinds(h, 1, full_launch, 7);
		cr_expect_eq(h->tb.trace.recs[1].ev.aux, CS_GR_PATH_INLINE);
		cr_expect_eq(h->tb.trace.recs[1].ev.addr, va);
		/* Stage 6: the dwords are in memory at the QMD address. */
		for (unsigned i = 0; i < n; i++)
			cr_expect_eq(test_bus_read32(&h->tb, va + 4 * i), q.dw[i], "dword %u", i);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x77);
		cr_expect_eq(h->fx.last.grid[0], 2);
		h_free(h);
	}
}

Test(gr_launch, inline_256_bytes_on_hopper_reads_the_rest_from_memory)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cs_qmd q;
	h_qmd_build(h, &q, 2, 0x5);
	for (unsigned i = 64; i < 96; i++)
		test_bus_write32(&h->tb, H_QMD_VA + 4 * i, 0xabc00000u + i);
	cr_assert_eq(h_inline(h, H_QMD_VA, &q, 64, false), CS_ENGINE_OK, "%s", h->why.msg);
	cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 1);
	cr_expect_not_null(strstr(h_find(h, CS_EV_ASSUMPTION, 0)->detail,
				  "LOAD_INLINE_QMD_DATA(63)"));
	for (unsigned i = 64; i < 96; i++)
		cr_expect_eq(test_bus_read32(&h->tb, H_QMD_VA + 4 * i), 0xabc00000u + i);
	/* A dword beyond the announced 64 is refused. */
	cr_expect_eq(h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * 64, 0), CS_ENGINE_STOP);
	cr_expect_str_eq(h->why.msg, "LOAD_INLINE_QMD_DATA(64) is beyond the 64 dwords "
				     "SET_INLINE_QMD_ADDRESS_A INLINE_SIZE announces");
	h_free(h);
}

Test(gr_launch, inline_path_errors)
{
	h_env *h = h_new(CS_ARCH_ADA, true);
	cs_qmd q;
	h_qmd_build(h, &q, 1, 1);
	cr_expect_eq(h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * 64, 0), CS_ENGINE_STOP);
	cr_expect_str_eq(h->why.msg, "LOAD_INLINE_QMD_DATA(64) is beyond the 64 dwords of a "
				     "V03_00 QMD");
	/* No address. */
	for (unsigned i = 0; i < 63; i++)
		h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * i, q.dw[i]);
	cr_expect_eq(h_call(h, 1, CS_GR_LOAD_INLINE_QMD_DATA + 4 * 63, q.dw[63]), CS_ENGINE_STOP);
	cr_expect_not_null(strstr(h->why.msg, "never said where it goes"), "%s", h->why.msg);
	cr_expect_eq(h_find(h, CS_EV_CHANNEL_STOP, 1)->ev.stage, CS_STAGE_QMD_INSTALL);
	/* Unmapped destination: stage 6 fault, no launch id handed out. */
	size_t from = h->tb.trace.n;
	cr_expect_eq(h_inline(h, H_UNMAPPED_VA, &q, 64, false), CS_ENGINE_STOP);
	cr_assert_eq(h->tb.trace.n, from + 1);
	const cs_event *f = &h->tb.trace.recs[from].ev;
	cr_expect_eq(f->kind, CS_EV_FAULT);
	cr_expect_eq(f->stage, CS_STAGE_QMD_INSTALL);
	cr_expect_eq(f->addr, H_UNMAPPED_VA);
	cr_expect_eq(f->value, CS_ACCESS_WRITE);
	cr_expect_eq(f->launch, CS_NONE32);
	cr_expect_not_null(strstr(h->tb.trace.recs[from].detail, "LOAD_INLINE_QMD_DATA"));
	h_free(h);
}

Test(gr_launch, every_pcas2_action)
{
	for (uint32_t act = 0; act < 16; act++) {
		h_env *h = h_new(CS_ARCH_HOPPER, true);
		cs_qmd q;
		h_qmd_build(h, &q, 1, 0x99);
		h_qmd_write(h, H_QMD_VA, &q);
		cs_engine_result r = h_pcas(h, H_QMD_VA, act);
		cs_gr_counters k;
		cs_gr_counters_get(h->gr, &k);
		const char *name = cs_pcas2_action_name(act);
		if (cs_pcas2_action_schedules(act)) {
			cr_expect_eq(r, CS_ENGINE_OK, "action %u: %s", act, h->why.msg);
			cr_expect_eq(k.launches, 1, "action %u", act);
			cr_expect_eq(h_find(h, CS_EV_QMD_SCHEDULE, 0)->ev.value, act);
			cr_expect_not_null(strstr(h_find(h, CS_EV_QMD_SCHEDULE, 0)->detail, name));
			cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x99);
		} else if (!name) {
			cr_expect_eq(r, CS_ENGINE_STOP, "action %u", act);
			char want[96];
			snprintf(want, sizeof(want), "SEND_SIGNALING_PCAS2_B PCAS_ACTION=0x%x is reserved",
				 act);
			cr_expect_str_eq(h->why.msg, want);
			cr_expect_eq(h_count(h, CS_EV_CHANNEL_STOP), 1);
			cr_expect_eq(k.launches, 0);
		} else {
			cr_expect_eq(r, CS_ENGINE_OK, "action %u", act);
			cr_expect_eq(k.launches, 0, "action %u", act);
			cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0, "action %u released", act);
			if (act == CS_PCAS2_NOP) {
				cr_expect_eq(h->tb.trace.n, 0);
			} else if (act == CS_PCAS2_INVALIDATE) {
				cr_expect_eq(h_count(h, CS_EV_CACHE_INVALIDATE), 1);
				cr_expect_eq(h->tb.trace.n, 1);
			} else {
				const h_rec *as = h_find(h, CS_EV_ASSUMPTION, 0);
				cr_assert_not_null(as, "action %u", act);
				cr_expect_not_null(strstr(as->detail, name), "%s", as->detail);
				cr_expect_not_null(strstr(as->detail, "not scheduling"));
				cr_expect_eq(h->tb.trace.n, 1);
			}
		}
		h_free(h);
	}
	/* C6C0 has no INCREMENT_DEPENDENCE. */
	h_env *h = h_new(CS_ARCH_AMPERE, true);
	cr_expect_eq(h_pcas(h, H_QMD_VA, CS_PCAS2_INCREMENT_DEPENDENCE), CS_ENGINE_STOP);
	cr_expect_str_eq(h->why.msg,
			 "SEND_SIGNALING_PCAS2_B PCAS_ACTION=0xc is reserved on C6C0");
	h_free(h);
}

Test(gr_launch, send_signaling_pcas_b_bits)
{
	static const uint32_t data[] = { 0, 1, 2, 3 };
	for (size_t i = 0; i < 4; i++) {
		h_env *h = h_new(CS_ARCH_AMPERE, true);
		cs_qmd q;
		h_qmd_build(h, &q, 1, 1);
		h_qmd_write(h, H_QMD_VA, &q);
		h_call(h, 1, CS_GR_SEND_PCAS_A, (uint32_t)(H_QMD_VA >> 8));
		cr_expect_eq(h_call(h, 1, CS_GR_SEND_SIGNALING_PCAS_B, data[i]), CS_ENGINE_OK);
		cr_expect_eq(h_count(h, CS_EV_CACHE_INVALIDATE), data[i] & 1);
		cr_expect_eq(h_count(h, CS_EV_GRID_DONE), (data[i] >> 1) & 1);
		h_free(h);
	}
}

Test(gr_launch, pcas_errors_stop_the_channel)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cr_expect_eq(h_call(h, 1, CS_GR_SEND_SIGNALING_PCAS2_B, 3), CS_ENGINE_STOP);
	cr_expect_str_eq(h->why.msg, "SEND_SIGNALING_PCAS2_B INVALIDATE_COPY_SCHEDULE schedules a "
				     "QMD, but SEND_PCAS_A never named one");
	size_t from = h->tb.trace.n;
	cr_expect_eq(h_pcas(h, H_UNMAPPED_VA, 2), CS_ENGINE_STOP);
	cr_assert_eq(h->tb.trace.n, from + 1);
	cr_expect_eq(h->tb.trace.recs[from].ev.kind, CS_EV_FAULT);
	cr_expect_eq(h->tb.trace.recs[from].ev.stage, CS_STAGE_QMD_INSTALL);
	cr_expect_eq(h->tb.trace.recs[from].ev.addr, H_UNMAPPED_VA);
	cr_expect_eq(h->tb.trace.recs[from].ev.value, CS_ACCESS_READ);
	cr_expect_not_null(strstr(h->tb.trace.recs[from].detail, "no QMD is installed"));
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.launches, 0);
	h_free(h);
}

static void reject_case(cs_arch arch, const char *key, const char *value, const char *want)
{
	h_env *h = h_new(arch, true);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 1, 0x42);
	cr_assert(cs_qmd_set_key_text(&q, key, value, &d), "%s", d.msg);
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	const h_rec *rj = h_find(h, CS_EV_QMD_REJECT, 0);
	cr_assert_not_null(rj, "%s=%s not rejected", key, value);
	cr_expect_str_eq(rj->detail, want);
	cr_expect_eq(rj->ev.stage, CS_STAGE_QMD_READ);
	cr_expect_eq(rj->ev.launch, 0);
	cr_expect_eq(rj->ev.addr, H_QMD_VA);
	cr_expect_eq(h_count(h, CS_EV_CHANNEL_STOP), 1);
	cr_expect_eq(h_count(h, CS_EV_DISPATCH), 0);
	cr_expect_eq(h_count(h, CS_EV_QMD_READ), 0);
	cr_expect_eq(h->fx.calls, 0);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0, "a rejected QMD releases nothing");
	cr_expect_not_null(strstr(h->why.msg, want), "%s", h->why.msg);
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.qmds_rejected, 1);
	h_free(h);
}

Test(gr_launch, rejected_qmds_stop_before_dispatch)
{
	reject_case(CS_ARCH_HOPPER, "CTA_THREAD_DIMENSION0", "0", "block dim 0 = 0 (must be 1..1024)");
	reject_case(CS_ARCH_AMPERE, "GRID_WIDTH", "0", "grid width = 0 (must be 1..2147483647)");
	reject_case(CS_ARCH_BLACKWELL, "regs", "300", "register count = 300 (must be <= 255)");
	reject_case(CS_ARCH_ADA, "QMD_MAJOR_VERSION", "4",
		    "QMD major version = 4 (class C9C0 reads V03_00: 3)");
	reject_case(CS_ARCH_HOPPER, "cbank0", "0x7d0000000,0x100",
		    "constant buffer 0 at 0x7d0000000 size 0x100 is not mapped");
	reject_case(CS_ARCH_HOPPER, "program", "0x7d0000000",
		    "program address 0x7d0000000 is not mapped");
}

Test(gr_launch, the_qmd_is_read_at_launch_time_not_when_built)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd q;
		cs_diag d;
		h_qmd_build(h, &q, 2, 0x10);
		h_qmd_write(h, H_QMD_VA, &q);
		/* A driver patches the QMD in memory after building it. */
		cs_qmd patched = q;
		cr_assert(cs_qmd_set(&patched, "GRID_WIDTH", 9, &d));
		cr_assert(cs_qmd_set(&patched, "RELEASE0_PAYLOAD", 0x20, &d));
		for (unsigned i = 0; i < qmd_dwords(arches[a]); i++)
			if (patched.dw[i] != q.dw[i])
				test_bus_write32(&h->tb, H_QMD_VA + 4 * i, patched.dw[i]);
		cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect_eq(h->fx.last.grid[0], 9);
		cr_expect_eq(h_find(h, CS_EV_DISPATCH, 0)->ev.value, 9);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x20);
		h_free(h);
	}
}

static void release_case(cs_arch arch, unsigned words, uint64_t payload, unsigned want_bytes)
{
	h_env *h = h_new(arch, true);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 4, 0);
	char v[64];
	snprintf(v, sizeof(v), "0x%llx,0x%llx,%u", (unsigned long long)(H_SEM_VA + 0x40),
		 (unsigned long long)payload, words);
	cr_assert(cs_qmd_set_key_text(&q, "release1", v, &d), "%s", d.msg);
	h_qmd_write(h, H_QMD_VA, &q);
	for (unsigned i = 0; i < 8; i++)
		test_bus_write32(&h->tb, H_SEM_VA + 0x40 + 4 * i, 0xffffffffu);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK, "%s", h->why.msg);
	cr_assert_eq(h_count(h, CS_EV_SEM_RELEASE), 2, "release0 and release1");
	const cs_event *r = &h_find(h, CS_EV_SEM_RELEASE, 1)->ev;
	cr_expect_eq(r->addr, H_SEM_VA + 0x40);
	cr_expect_eq(r->aux, want_bytes, "%u words, payload 0x%llx", words,
		     (unsigned long long)payload);
	uint64_t t = CS_GR_NS_PER_LAUNCH + 4 * CS_GR_NS_PER_CTA;
	uint64_t lo = test_bus_read64(&h->tb, H_SEM_VA + 0x40), hi = test_bus_read64(&h->tb, H_SEM_VA + 0x48);
	switch (want_bytes) {
	case 4:
		cr_expect_eq(lo, 0xffffffff00000000ull | (payload & 0xffffffffu));
		cr_expect_eq(hi, UINT64_MAX);
		break;
	case 8:
		cr_expect_eq(lo, payload);
		cr_expect_eq(hi, UINT64_MAX);
		break;
	case 16:
		cr_expect_eq(lo, payload);
		cr_expect_eq(hi, t, "timestamp from the virtual clock");
		cr_expect_not_null(strstr(h_find(h, CS_EV_SEM_RELEASE, 1)->detail, "timestamp"));
		break;
	}
	cr_expect_eq(test_bus_read64(&h->tb, H_SEM_VA + 0x50), UINT64_MAX, "nothing beyond the structure");
	h_free(h);
}

Test(gr_launch, release_structures_and_payloads)
{
	for (size_t a = 0; a < 4; a++) {
		release_case(arches[a], 1, 0xabcd, 4);
		release_case(arches[a], 1, 0x1122334455667788ull, 8); /* PAYLOAD64B */
		release_case(arches[a], 2, 0xabcd, 8);
		release_case(arches[a], 2, 0x1122334455667788ull, 8);
		release_case(arches[a], 4, 0xabcd, 16);
		release_case(arches[a], 4, 0x1122334455667788ull, 16);
	}
}

Test(gr_launch, release_to_unmapped_faults_and_stops)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 1, 0);
	cr_assert(cs_qmd_set_key_text(&q, "release0", "0x7d0000000,5", &d));
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 1);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.stage, CS_STAGE_ENGINE_RELEASE);
	cr_expect_eq(f->ev.unit, CS_UNIT_COMPUTE);
	cr_expect_eq(f->ev.addr, H_UNMAPPED_VA);
	cr_expect_eq(f->ev.value, CS_ACCESS_WRITE);
	cr_expect_eq(f->ev.launch, 0);
	cr_expect_str_eq(f->detail, "QMD release 0 of launch 0: the 4-byte semaphore write to "
				    "0x7d0000000 faulted: 0x7d0000000 is not mapped");
	cr_expect_eq(h_count(h, CS_EV_SEM_RELEASE), 0);
	h_free(h);
}

Test(gr_launch, no_executor_dispatches_but_does_not_execute)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], false);
		cs_qmd q;
		h_qmd_build(h, &q, 2, 0x55);
		h_qmd_write(h, H_QMD_VA, &q);
		cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
		const h_rec *nr = h_find(h, CS_EV_GRID_NOT_RUN, 0);
		cr_assert_not_null(nr);
		cr_expect_str_eq(nr->detail, "dispatched, not executed: no executor for code at "
					     "0x200100000");
		cr_expect_eq(nr->ev.stage, CS_STAGE_GR_DISPATCH);
		cr_expect_eq(h_count(h, CS_EV_DISPATCH), 1);
		cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 0);
		cr_expect_eq(h_count(h, CS_EV_SEM_RELEASE), 0);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0, "only an engine-authored release proves "
						      "execution");
		cs_gr_counters k;
		cs_gr_counters_get(h->gr, &k);
		cr_expect_eq(k.grids_not_run, 1);
		cr_expect_eq(k.releases, 0);
		h_free(h);
	}
}

Test(gr_launch, executor_outcomes_other_than_executed)
{
	static const struct { cs_grid_outcome o; const char *want; } cases[] = {
		{ CS_GRID_UNKNOWN_CODE, "dispatched, not executed: unknown code for code at "
					"0x200100000: bytes match no kernel" },
		{ CS_GRID_ERROR, "dispatched, not executed: executor error for code at "
				 "0x200100000: bytes match no kernel" },
		{ CS_GRID_NO_EXECUTOR, "dispatched, not executed: no executor for code at "
				       "0x200100000: bytes match no kernel" },
	};
	for (size_t i = 0; i < 3; i++) {
		h_env *h = h_new(CS_ARCH_HOPPER, true);
		h->fx.outcome = cases[i].o;
		/* An executor's reason that repeats the verdict is not doubled. */
		h->fx.reason = i == 1 ? "dispatched, not executed: bytes match no kernel"
				      : "bytes match no kernel";
		cs_qmd q;
		h_qmd_build(h, &q, 2, 0x55);
		h_qmd_write(h, H_QMD_VA, &q);
		cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
		cr_expect_str_eq(h_find(h, CS_EV_GRID_NOT_RUN, 0)->detail, cases[i].want);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0);
		h_free(h);
	}
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	h->fx.outcome = CS_GRID_FAULT;
	h->fx.fault_va = 0xdead0000;
	h->fx.reason = "CTA 1 thread 3: ld.global at 0xdead0000 not mapped";
	cs_qmd q;
	h_qmd_build(h, &q, 2, 0x55);
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.unit, CS_UNIT_SM);
	cr_expect_eq(f->ev.stage, CS_STAGE_GR_DISPATCH);
	cr_expect_eq(f->ev.addr, 0xdead0000);
	cr_expect_not_null(strstr(f->detail, "CTA 1 thread 3"), "%s", f->detail);
	cr_expect_eq(h_count(h, CS_EV_SEM_RELEASE), 0);
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0);
	h_free(h);
}

Test(gr_launch, dependent_qmd_chains)
{
	for (size_t a = 0; a < 4; a++) {
		h_env *h = h_new(arches[a], true);
		cs_qmd qa, qb;
		cs_diag d;
		h_qmd_build(h, &qa, 1, 0xa);
		h_qmd_build(h, &qb, 3, 0xb);
		cr_assert(cs_qmd_set_key_text(&qa, "dependent", "0x200000400,SCHEDULE", &d));
		cr_assert(cs_qmd_set_key_text(&qb, "release0", "0x200300010,0xb", &d));
		h_qmd_write(h, H_QMD_VA, &qa);
		h_qmd_write(h, H_QMD_VA + 0x400, &qb);
		cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK, "%s", h->why.msg);
		cr_expect_eq(h_count(h, CS_EV_GRID_DONE), 2);
		const h_rec *dep = h_find(h, CS_EV_DEPENDENT_QMD, 0);
		cr_assert_not_null(dep);
		cr_expect_eq(dep->ev.addr, H_QMD_VA + 0x400);
		cr_expect_eq(dep->ev.aux, CS_DEP_SCHEDULE);
		cr_expect_eq(dep->ev.launch, 0);
		const cs_event *ins = &h_find(h, CS_EV_QMD_INSTALL, 1)->ev;
		cr_expect_eq(ins->launch, 1);
		cr_expect_eq(ins->aux, CS_GR_PATH_DEPENDENT);
		cr_expect_eq(ins->addr, H_QMD_VA + 0x400);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0xa);
		cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA + 0x10), 0xb);
		cr_expect_eq(h_find(h, CS_EV_GRID_DONE, 1)->ev.value, 3);
		cs_gr_counters k;
		cs_gr_counters_get(h->gr, &k);
		cr_expect_eq(k.launches, 2);
		cr_expect_eq(k.dependent_launches, 1);
		h_free(h);
	}
}

Test(gr_launch, dependent_qmd_edge_cases)
{
	/* A grid that did not execute does not chain. */
	h_env *h = h_new(CS_ARCH_HOPPER, false);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 1, 1);
	cr_assert(cs_qmd_set_key_text(&q, "dependent", "0x200000400,1", &d));
	h_qmd_write(h, H_QMD_VA, &q);
	h_qmd_write(h, H_QMD_VA + 0x400, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
	cr_expect_eq(h_count(h, CS_EV_DEPENDENT_QMD), 0);
	cr_expect_eq(h_count(h, CS_EV_QMD_INSTALL), 1);
	h_free(h);

	/* INCREMENT_PUT is recorded, not launched. */
	h = h_new(CS_ARCH_BLACKWELL, true);
	h_qmd_build(h, &q, 1, 1);
	cr_assert(cs_qmd_set_key_text(&q, "dependent", "0x200000400,INCREMENT_PUT", &d));
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
	cr_expect_eq(h_count(h, CS_EV_DEPENDENT_QMD), 1);
	cr_expect_eq(h_count(h, CS_EV_QMD_INSTALL), 1);
	cr_expect_not_null(strstr(h_find(h, CS_EV_ASSUMPTION, 0)->detail, "INCREMENT_PUT"));
	h_free(h);

	/* A QMD that depends on itself is a cycle the engine bounds. */
	h = h_new(CS_ARCH_AMPERE, true);
	h_qmd_build(h, &q, 1, 1);
	cr_assert(cs_qmd_set_key_text(&q, "dependent", "0x200000000,SCHEDULE", &d));
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	cr_expect_not_null(strstr(h->why.msg, "dependent QMD chain longer than 1024"), "%s",
			   h->why.msg);
	cs_gr_counters k;
	cs_gr_counters_get(h->gr, &k);
	cr_expect_eq(k.launches, 1024);
	h_free(h);

	/* A dependent pointer to unmapped memory faults at stage 6. */
	h = h_new(CS_ARCH_HOPPER, true);
	h_qmd_build(h, &q, 1, 1);
	cr_assert(cs_qmd_set_key_text(&q, "dependent", "0x7d0000000,SCHEDULE", &d));
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	const h_rec *f = h_find(h, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_expect_eq(f->ev.stage, CS_STAGE_QMD_INSTALL);
	cr_expect_eq(f->ev.addr, H_UNMAPPED_VA);
	h_free(h);
}

Test(gr_launch, context_local_memory)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 1, 1);
	h_qmd_write(h, H_QMD_VA, &q);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
	cr_expect_str_eq(h_find(h, CS_EV_CTX_LOAD, 0)->detail,
			 "compute object CBC0 bound on subchannel 1, local memory not set (the QMD "
			 "needs none)");
	cr_assert(cs_qmd_set(&q, "SHADER_LOCAL_MEMORY_LOW_SIZE", 0x40, &d));
	h_qmd_write(h, H_QMD_VA, &q);
	cr_expect_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_STOP);
	const h_rec *bad = h_find(h, CS_EV_CTX_BAD, 0);
	cr_assert_not_null(bad);
	cr_expect_eq(bad->ev.stage, CS_STAGE_CTX_LOAD);
	cr_expect_eq(bad->ev.launch, 1);
	cr_expect_str_eq(bad->detail,
			 "local memory: the QMD asks 64 bytes per thread but SET_SHADER_LOCAL_MEMORY_A/B "
			 "was never set on this channel (compute object CBC0)");
	cr_expect_eq(bad->ev.value, 64);
	cr_expect_not_null(strstr(h->why.msg, "local memory: the QMD asks 64 bytes per thread"),
			   "%s", h->why.msg);
	cr_expect_eq(h_count(h, CS_EV_DISPATCH), 1);
	h_call(h, 1, CS_GR_SET_SHADER_LOCAL_MEMORY_A, 0x2);
	h_call(h, 1, CS_GR_SET_SHADER_LOCAL_MEMORY_B, 0x10000000);
	h_call(h, 1, CS_GR_SET_SHADER_LOCAL_MEMORY_WINDOW_B, 0xff000000);
	h_call(h, 1, CS_GR_SET_SHADER_SHARED_MEMORY_WINDOW_B, 0xfe000000);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK, "%s", h->why.msg);
	cr_expect_str_eq(h_find(h, CS_EV_CTX_LOAD, 1)->detail,
			 "compute object CBC0 bound on subchannel 1, local memory at 0x210000000: the "
			 "QMD asks 64 bytes per thread, 32 threads, local window 0xff000000, shared "
			 "window 0xfe000000");
	cr_expect_eq(h_find(h, CS_EV_CTX_LOAD, 1)->ev.addr, 0x210000000ull);
	cr_expect_eq(h_find(h, CS_EV_CTX_LOAD, 1)->ev.value, 64);
	cr_expect_eq(h->fx.last.local_window, 0xff000000u);
	cr_expect_eq(h->fx.last.shared_window, 0xfe000000u);
	cr_expect_eq(h->fx.last.local_base, 0x210000000ull);
	cr_expect_eq(h->fx.last.local_bytes_per_thread, 0x40);
	h_free(h);
}

Test(gr_launch, launch_ids_count_across_channels_and_state_is_per_channel)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cs_qmd q;
	h_qmd_build(h, &q, 1, 1);
	h_qmd_write(h, H_QMD_VA, &q);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK);
	h->channel = 2;
	h_bind(h, 1, 0xCBC0);
	/* Channel 2 never saw SEND_PCAS_A. */
	cr_expect_eq(h_call(h, 1, CS_GR_SEND_SIGNALING_PCAS2_B, 3), CS_ENGINE_STOP);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 2), CS_ENGINE_OK, "%s", h->why.msg);
	const cs_event *ins = &h_find(h, CS_EV_QMD_INSTALL, 1)->ev;
	cr_expect_eq(ins->launch, 1);
	cr_expect_eq(ins->channel, 2);
	h_free(h);
}

Test(gr_launch, bind_serves_only_this_archs_engines)
{
	h_env *h = h_new(CS_ARCH_HOPPER, true);
	cr_expect_eq(h_bind(h, 2, 0xCB97), CS_ENGINE_STOP);
	cr_expect_not_null(strstr(h->why.msg, "class CB97 is not a compute or copy class of hopper"),
			   "%s", h->why.msg);
	cr_expect_not_null(strstr(h->why.msg, "CBC0"), "%s", h->why.msg);
	cr_expect_eq(h_bind(h, 2, 0xC6C0), CS_ENGINE_STOP);
	cr_expect_eq(h_bind(h, 2, 0xC8B5), CS_ENGINE_OK);
	cr_expect_eq(h_bind(h, 9, 0xC8B5), CS_ENGINE_STOP);
	h_free(h);
}

/* A constant bank that runs past mapped memory (tinygrad's size field asks
 * 0x1600 bytes of constant bank 0) is bound, dispatched and noted. */
Test(gr_launch, a_bank_past_mapped_memory_dispatches_with_an_assumption)
{
	h_env *h = h_new(CS_ARCH_ADA, true);
	cs_qmd q;
	cs_diag d;
	h_qmd_build(h, &q, 1, 0x42);
	cr_assert(cs_qmd_set_key_text(&q, "cbank0", "0x20020ff00,0x1600", &d), "%s", d.msg);
	h_qmd_write(h, H_QMD_VA, &q);
	cr_assert_eq(h_pcas(h, H_QMD_VA, 3), CS_ENGINE_OK, "%s", h->why.msg);
	cr_expect_eq(h_count(h, CS_EV_DISPATCH), 1);
	const h_rec *as = h_find(h, CS_EV_ASSUMPTION, 0);
	cr_assert_not_null(as);
	cr_expect_str_eq(as->detail, "constant buffer 0 at 0x20020ff00 size 0x1600 runs past "
				     "mapped memory at 0x200210000: bound as it is; a read past "
				     "that faults");
	cr_expect_eq(test_bus_read32(&h->tb, H_SEM_VA), 0x42);
	h_free(h);
}
