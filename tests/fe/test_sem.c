/* SPDX-License-Identifier: MIT */
/* Host semaphores: releases, timestamps, reductions, acquires, blocking,
 * deadlock records, legacy SEMAPHORED. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

#define CANARY 0xA5A5A5A5A5A5A5A5ull

/* Run one entry: a semaphore operation on addr, then SET_REFERENCE 1. */
static void run_sem(rig *r, uint32_t ch, uint64_t addr, uint64_t payload, uint32_t exec)
{
	pbuf p = { 0 };
	pb_release(&p, addr, payload, exec);
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 1);
	rig_push(r, ch, rig_pb(r, p.dw, p.n), (uint32_t)p.n);
	rig_submit(r, ch);
	rig_run(r);
	pb_free(&p);
}

static uint32_t reference(rig *r, uint32_t ch)
{
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	return info.reference;
}

Test(sem, release_32_and_64)
{
	for (int is64 = 0; is64 < 2; is64++) {
		rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint64_t s = rig_alloc(r, 64);
		test_bus_write64(&r->tb, s, CANARY);
		test_bus_write64(&r->tb, s + 8, CANARY);
		uint64_t pay = 0x1122334455667788ull;
		run_sem(r, ch, s, pay, cs_fe_sem_execute(CS_FE_SEM_RELEASE, is64, false, false, 0, false));
		cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE);
		if (is64) {
			cr_assert_eq(test_bus_read64(&r->tb, s), pay);
		} else {
			cr_assert_eq(test_bus_read32(&r->tb, s), 0x55667788u);
			cr_assert_eq(test_bus_read32(&r->tb, s + 4), 0xA5A5A5A5u, "a 32-bit release writes 4 bytes");
		}
		cr_assert_eq(test_bus_read64(&r->tb, s + 8), CANARY, "no timestamp asked");
		const rec_event *e = rig_nth(r, CS_EV_SEM_RELEASE, 0);
		cr_assert_not_null(e);
		cr_assert_eq(e->ev.unit, CS_UNIT_FE);
		cr_assert_eq(e->ev.stage, CS_STAGE_FE_EXEC);
		cr_assert_eq(e->ev.addr, s);
		cr_assert_eq(e->ev.value, is64 ? pay : 0x55667788u);
		cr_assert_eq(e->ev.aux, is64 ? 8 : 4);
		cr_assert_eq(e->ev.method, CS_FE_M_SEM_EXECUTE);
		cr_assert_eq(e->ev.method_index, 4);
		cr_assert_eq(e->ev.gp_entry, 0);
		cr_assert_not_null(strstr(e->detail, "operation=RELEASE"), "%s", e->detail);
		cr_assert_eq(reference(r, ch), 1);
		cs_fe_channel_info info;
		cs_fe_channel_info_get(r->fe, ch, &info);
		cr_assert_eq(info.counters.releases, 1);
		rig_free(r);
	}
}

Test(sem, release_with_timestamp_in_virtual_time)
{
	for (int is64 = 0; is64 < 2; is64++) {
		rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint64_t s = rig_alloc(r, 64);
		test_bus_write64(&r->tb, s, CANARY);
		r->tb.now = 1000;
		run_sem(r, ch, s + 16, 7, cs_fe_sem_execute(CS_FE_SEM_RELEASE, is64, true, true, 0, false));
		/* the release is the fifth method of the first entry */
		uint64_t at = 1000 + CS_FE_NS_PER_ENTRY + 5 * CS_FE_NS_PER_METHOD;
		cr_assert_eq(test_bus_read64(&r->tb, s + 24), at);
		if (is64)
			cr_assert_eq(test_bus_read64(&r->tb, s + 16), 7);
		else
			cr_assert_eq(test_bus_read32(&r->tb, s + 16), 7);
		const rec_event *e = rig_nth(r, CS_EV_SEM_RELEASE, 0);
		cr_assert_eq(e->ev.aux, 16 | CS_SEM_RELEASE_AFTER_WFI); /* release_wfi was set */
		cr_assert_not_null(strstr(e->detail, "timestamp"), "%s", e->detail);
		cr_assert_eq(test_bus_read64(&r->tb, s), CANARY);
		rig_free(r);
	}
}

typedef struct red_case {
	uint32_t red;
	bool is_signed, is64;
	uint64_t cur, pay, want;
} red_case;

Test(sem, reductions_every_op_signed_unsigned_32_64)
{
	const red_case cases[] = {
		{ CS_FE_RED_IMIN, true, false, 0xFFFFFFFFu, 5, 0xFFFFFFFFu },
		{ CS_FE_RED_IMIN, false, false, 0xFFFFFFFFu, 5, 5 },
		{ CS_FE_RED_IMIN, true, false, 0x80000000u, 0x7fffffffu, 0x80000000u },
		{ CS_FE_RED_IMIN, true, true, 0x80000000u, 0x7fffffffu, 0x7fffffffu },
		{ CS_FE_RED_IMIN, true, true, UINT64_MAX, 5, UINT64_MAX },
		{ CS_FE_RED_IMIN, false, true, UINT64_MAX, 5, 5 },
		{ CS_FE_RED_IMAX, true, false, 0xFFFFFFFFu, 5, 5 },
		{ CS_FE_RED_IMAX, false, false, 0xFFFFFFFFu, 5, 0xFFFFFFFFu },
		{ CS_FE_RED_IMAX, true, true, UINT64_MAX, 5, 5 },
		{ CS_FE_RED_IMAX, false, true, UINT64_MAX, 5, UINT64_MAX },
		{ CS_FE_RED_IXOR, false, false, 0xF0F0, 0xFF00, 0x0FF0 },
		{ CS_FE_RED_IXOR, true, true, 0xF0F0ull << 40, 0xFF00ull << 40, 0x0FF0ull << 40 },
		{ CS_FE_RED_IAND, false, false, 0xF0F0, 0xFF00, 0xF000 },
		{ CS_FE_RED_IAND, false, true, 0xF0F0ull << 40, 0xFF00ull << 40, 0xF000ull << 40 },
		{ CS_FE_RED_IOR, true, false, 0xF0F0, 0xFF00, 0xFFF0 },
		{ CS_FE_RED_IOR, false, true, 0xF0F0ull << 40, 0xFF00ull << 40, 0xFFF0ull << 40 },
		{ CS_FE_RED_IADD, false, false, 0xFFFFFFFFu, 2, 1 },
		{ CS_FE_RED_IADD, true, false, 0xFFFFFFFFu, 2, 1 },
		{ CS_FE_RED_IADD, false, true, 0xFFFFFFFFu, 2, 0x100000001ull },
		{ CS_FE_RED_IADD, true, true, UINT64_MAX, 2, 1 },
		{ CS_FE_RED_INC, false, false, 3, 5, 4 },
		{ CS_FE_RED_INC, false, false, 5, 5, 0 },
		{ CS_FE_RED_INC, false, false, 7, 5, 0 },
		{ CS_FE_RED_INC, true, false, 0xFFFFFFFEu, 5, 0xFFFFFFFFu },
		{ CS_FE_RED_INC, false, false, 0xFFFFFFFEu, 5, 0 },
		{ CS_FE_RED_INC, false, true, 0xFFFFFFFFu, 0x100000000ull, 0x100000000ull },
		{ CS_FE_RED_INC, true, true, UINT64_MAX - 1, 5, UINT64_MAX },
		{ CS_FE_RED_DEC, false, false, 0, 5, 5 },
		{ CS_FE_RED_DEC, false, false, 3, 5, 2 },
		{ CS_FE_RED_DEC, false, false, 9, 5, 5 },
		{ CS_FE_RED_DEC, true, false, 0xFFFFFFFFu, 5, 0xFFFFFFFEu },
		{ CS_FE_RED_DEC, false, false, 0xFFFFFFFFu, 5, 5 },
		{ CS_FE_RED_DEC, false, true, 0x100000000ull, 0x200000000ull, 0xFFFFFFFFull },
		{ CS_FE_RED_DEC, true, true, UINT64_MAX, 5, UINT64_MAX - 1 },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const red_case *k = &cases[i];
		rig *r = rig_new(i % 2 ? CS_ARCH_HOPPER : CS_ARCH_AMPERE, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint64_t s = rig_alloc(r, 64);
		test_bus_write64(&r->tb, s, CANARY);
		if (k->is64)
			test_bus_write64(&r->tb, s, k->cur);
		else
			test_bus_write32(&r->tb, s, (uint32_t)k->cur);
		run_sem(r, ch, s, k->pay,
			cs_fe_sem_execute(CS_FE_SEM_REDUCTION, k->is64, false, false, k->red, !k->is_signed));
		cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "case %u: %s", i,
			     cs_fe_channel_stop_diag(r->fe, ch) ? cs_fe_channel_stop_diag(r->fe, ch)->msg : "");
		if (k->is64) {
			cr_assert_eq(test_bus_read64(&r->tb, s), k->want, "case %u (%s %s 64): 0x%llx", i,
				     cs_fe_red_op_name(k->red), k->is_signed ? "signed" : "unsigned",
				     (unsigned long long)test_bus_read64(&r->tb, s));
		} else {
			cr_assert_eq(test_bus_read32(&r->tb, s), (uint32_t)k->want, "case %u (%s %s 32): 0x%x", i,
				     cs_fe_red_op_name(k->red), k->is_signed ? "signed" : "unsigned",
				     test_bus_read32(&r->tb, s));
			cr_assert_eq(test_bus_read32(&r->tb, s + 4), 0xA5A5A5A5u, "case %u: 4 bytes only", i);
		}
		const rec_event *e = rig_nth(r, CS_EV_SEM_RELEASE, 0);
		cr_assert_eq(e->ev.value, k->want, "case %u: the record has the value written", i);
		cr_assert_not_null(strstr(e->detail, cs_fe_red_op_name(k->red)), "%s", e->detail);
		cr_assert_not_null(strstr(e->detail, k->is_signed ? " signed" : "unsigned"), "%s", e->detail);
		/* Hopper's header lists no REDUCTION: the model says it assumed it */
		cr_assert_eq(rig_count(r, CS_EV_ASSUMPTION), i % 2 ? 2u : 0u, "case %u", i);
		rig_free(r);
	}
}

Test(sem, reduction_with_timestamp)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 4);
	uint64_t s = rig_alloc(r, 64);
	test_bus_write32(&r->tb, s, 40);
	run_sem(r, ch, s, 2, cs_fe_sem_execute(CS_FE_SEM_REDUCTION, false, true, false, CS_FE_RED_IADD, true));
	cr_assert_eq(test_bus_read32(&r->tb, s), 42);
	cr_assert_eq(test_bus_read64(&r->tb, s + 8), CS_FE_NS_PER_ENTRY + 5 * CS_FE_NS_PER_METHOD);
	cr_assert_eq(rig_nth(r, CS_EV_SEM_RELEASE, 0)->ev.aux, 16);
	rig_free(r);
}

typedef struct acq_case {
	uint32_t op;
	bool is64;
	uint64_t cur, want;
	bool met;
	uint64_t fix; /* a value that satisfies it */
} acq_case;

static const acq_case acq_cases[] = {
	{ CS_FE_SEM_ACQUIRE, false, 5, 5, true, 5 },
	{ CS_FE_SEM_ACQUIRE, false, 4, 5, false, 5 },
	{ CS_FE_SEM_ACQUIRE, false, 0x100000005ull, 5, true, 5 },
	{ CS_FE_SEM_ACQUIRE, true, 0x100000005ull, 5, false, 5 },
	{ CS_FE_SEM_ACQUIRE, true, 0x100000005ull, 0x100000005ull, true, 0 },
	{ CS_FE_SEM_ACQ_STRICT_GEQ, false, 6, 5, true, 0 },
	{ CS_FE_SEM_ACQ_STRICT_GEQ, false, 4, 5, false, 5 },
	{ CS_FE_SEM_ACQ_STRICT_GEQ, false, 0xFFFFFFFFu, 5, true, 0 },
	{ CS_FE_SEM_ACQ_STRICT_GEQ, false, 1, 0xFFFFFFFFu, false, 0xFFFFFFFFu },
	{ CS_FE_SEM_ACQ_STRICT_GEQ, true, 0xFFFFFFFFu, 0x100000000ull, false, 0x100000001ull },
	{ CS_FE_SEM_ACQ_CIRC_GEQ, false, 1, 0xFFFFFFFFu, true, 0 },
	{ CS_FE_SEM_ACQ_CIRC_GEQ, false, 0x80000005u, 5, false, 6 },
	{ CS_FE_SEM_ACQ_CIRC_GEQ, false, 4, 5, false, 5 },
	{ CS_FE_SEM_ACQ_CIRC_GEQ, true, 1, UINT64_MAX, true, 0 },
	{ CS_FE_SEM_ACQ_CIRC_GEQ, true, 1, 0xFFFFFFFFu, false, 0x1FFFFFFFFull },
	{ CS_FE_SEM_ACQ_AND, false, 0xA, 0x2, true, 0 },
	{ CS_FE_SEM_ACQ_AND, false, 0xA, 0x5, false, 0x4 },
	{ CS_FE_SEM_ACQ_AND, true, 1ull << 40, 1ull << 40, true, 0 },
	{ CS_FE_SEM_ACQ_AND, false, 1ull << 40, (1ull << 40) | 1, false, 1 },
	{ CS_FE_SEM_ACQ_NOR, false, 0, 0, true, 0 },
	{ CS_FE_SEM_ACQ_NOR, false, 0xFFFF0000u, 0x0000FFFFu, false, 0x7FFF0000u },
	{ CS_FE_SEM_ACQ_NOR, true, 0xFFFF0000u, 0x0000FFFFu, true, 0 },
	{ CS_FE_SEM_ACQ_NOR, true, UINT64_MAX, 0, false, 0 },
};

Test(sem, acquires_every_kind_block_and_unblock)
{
	for (unsigned i = 0; i < sizeof(acq_cases) / sizeof(acq_cases[0]); i++) {
		const acq_case *k = &acq_cases[i];
		rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint64_t s = rig_alloc(r, 64);
		test_bus_write64(&r->tb, s, k->cur);
		run_sem(r, ch, s, k->want, cs_fe_sem_execute(k->op, k->is64, false, false, 0, false));
		uint64_t want = k->is64 ? k->want : (uint32_t)k->want; /* a 32-bit acquire ignores PAYLOAD_HI */
		if (k->met) {
			cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "case %u", i);
			cr_assert_eq(reference(r, ch), 1, "case %u", i);
			const rec_event *e = rig_nth(r, CS_EV_SEM_ACQUIRE, 0);
			cr_assert_not_null(e, "case %u", i);
			cr_assert_eq(e->ev.addr, s);
			cr_assert_eq(e->ev.value, want);
			cr_assert_eq(e->ev.aux, k->op);
			cr_assert_not_null(strstr(e->detail, cs_fe_sem_op_name(k->op)), "%s", e->detail);
			cr_assert_eq(rig_count(r, CS_EV_SEM_BLOCK), 0);
			rig_free(r);
			continue;
		}
		cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_BLOCKED, "case %u", i);
		cr_assert_eq(reference(r, ch), 0, "case %u: nothing after the acquire ran", i);
		const rec_event *b = rig_nth(r, CS_EV_SEM_BLOCK, 0);
		cr_assert_not_null(b, "case %u", i);
		cr_assert_eq(b->ev.addr, s);
		cr_assert_eq(b->ev.value, want);
		uint64_t cur = k->is64 ? k->cur : (uint32_t)k->cur;
		cr_assert_eq(b->ev.aux, cur, "case %u", i);
		cr_assert_eq(b->ev.method_index, 4);
		cs_fe_channel_info info;
		cs_fe_channel_info_get(r->fe, ch, &info);
		cr_assert_eq(info.block.addr, s);
		cr_assert_eq(info.block.wanted, want);
		cr_assert_eq(info.block.current, cur);
		cr_assert_eq(info.block.op, k->op);
		cr_assert_eq(info.block.is64, k->is64);
		cr_assert_eq(info.block.gp_entry, 0);
		cr_assert_eq(info.block.method_index, 4);
		/* running again without a change: still blocked, no new record */
		cs_fe_run_result rr = rig_run(r);
		cr_assert_eq(rr.blocked, 1);
		cr_assert_eq(rig_count(r, CS_EV_SEM_BLOCK), 1);
		/* the guest writes memory: the next run unblocks it */
		if (k->is64)
			test_bus_write64(&r->tb, s, k->fix);
		else
			test_bus_write32(&r->tb, s, (uint32_t)k->fix);
		rr = rig_run(r);
		cr_assert_eq(rr.idle, 1, "case %u", i);
		cr_assert_eq(reference(r, ch), 1, "case %u", i);
		const rec_event *a = rig_nth(r, CS_EV_SEM_ACQUIRE, 0);
		cr_assert_not_null(a, "case %u", i);
		cr_assert_eq(a->ev.method_index, 4);
		cr_assert_eq(a->ev.gp_entry, 0);
		cr_assert_eq(a->ev.value, want);
		cr_assert(a->ev.seq > b->ev.seq);
		cr_assert_eq(rig_count(r, CS_EV_ENTRY_DONE), 1);
		rig_free(r);
	}
}

Test(sem, deadlock_records)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t c0 = rig_channel(r, 4), c1 = rig_channel(r, 4), c2 = rig_channel(r, 4);
	uint64_t s = rig_alloc(r, 64);
	test_bus_write32(&r->tb, s, 3);
	test_bus_write32(&r->tb, s + 8, 0);
	run_sem(r, c0, s, 5, cs_fe_sem_execute(CS_FE_SEM_ACQ_STRICT_GEQ, false, false, false, 0, false));
	run_sem(r, c2, s + 8, 1, cs_fe_sem_execute(CS_FE_SEM_ACQUIRE, false, false, false, 0, false));
	(void)c1; /* idle: no record */
	cr_assert_eq(cs_fe_channel_state(r->fe, c0), CS_FE_CHAN_BLOCKED);
	cr_assert_eq(cs_fe_channel_state(r->fe, c2), CS_FE_CHAN_BLOCKED);
	test_bus_write32(&r->tb, s, 4); /* changed but still short */
	cr_assert_eq(cs_fe_report_deadlocks(r->fe), 2);
	cr_assert_eq(rig_count(r, CS_EV_DEADLOCK), 2);
	const rec_event *d = rig_nth(r, CS_EV_DEADLOCK, 0);
	cr_assert_eq(d->ev.channel, c0);
	cr_assert_eq(d->ev.unit, CS_UNIT_FE);
	cr_assert_eq(d->ev.addr, s);
	cr_assert_eq(d->ev.value, 5);
	cr_assert_eq(d->ev.aux, 4, "the current value is re-read");
	cr_assert_eq(d->ev.gp_entry, 0);
	cr_assert_eq(d->ev.method_index, 4);
	cr_assert_not_null(strstr(d->detail, "ACQ_STRICT_GEQ"), "%s", d->detail);
	cr_assert_not_null(strstr(d->detail, "channel 0"), "%s", d->detail);
	char addr[32];
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)s);
	cr_assert_not_null(strstr(d->detail, addr), "%s", d->detail);
	d = rig_nth(r, CS_EV_DEADLOCK, 1);
	cr_assert_eq(d->ev.channel, c2);
	cr_assert_eq(d->ev.addr, s + 8);
	cr_assert_eq(d->ev.value, 1);
	cr_assert_eq(d->ev.aux, 0);
	rig_free(r);
}

/* One channel releases what another waits for: it resumes in the same run. */
Test(sem, release_on_one_channel_unblocks_another)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint32_t c0 = rig_channel(r, 4), c1 = rig_channel(r, 4);
	uint64_t s = rig_alloc(r, 64);
	pbuf p = { 0 };
	pb_release(&p, s, 1, cs_fe_sem_execute(CS_FE_SEM_ACQUIRE, false, false, false, 0, false));
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 1);
	rig_push(r, c0, rig_pb(r, p.dw, p.n), (uint32_t)p.n);
	pb_free(&p);
	pb_release(&p, s, 1, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, false, 0, false));
	rig_push(r, c1, rig_pb(r, p.dw, p.n), (uint32_t)p.n);
	pb_free(&p);
	rig_submit(r, c0);
	rig_submit(r, c1);
	cs_fe_run_result rr = rig_run(r);
	cr_assert_eq(rr.idle, 2);
	cr_assert_eq(reference(r, c0), 1);
	const rec_event *b = rig_nth(r, CS_EV_SEM_BLOCK, 0);
	const rec_event *rel = rig_nth(r, CS_EV_SEM_RELEASE, 0);
	const rec_event *a = rig_nth(r, CS_EV_SEM_ACQUIRE, 0);
	cr_assert(b && rel && a);
	cr_assert(b->ev.seq < rel->ev.seq && rel->ev.seq < a->ev.seq);
	cr_assert_eq(a->ev.channel, c0);
	cr_assert_eq(rel->ev.channel, c1);
	rig_free(r);
}

Test(sem, faults_and_bad_operations)
{
	struct {
		uint64_t addr; /* 0: the mapped scratch page */
		uint64_t addr_off;
		uint32_t exec;
		cs_access acc; /* 0: no fault record */
		const char *phrase;
	} cases[] = {
		{ 0x6000000000ull, 0, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, false, 0, false),
		  CS_ACCESS_WRITE, "release of 4 bytes" },
		{ 0x6000000000ull, 0, cs_fe_sem_execute(CS_FE_SEM_REDUCTION, true, false, false, 5, false),
		  CS_ACCESS_ATOMIC, "reduction of 8 bytes" },
		{ 0x6000000000ull, 0, cs_fe_sem_execute(CS_FE_SEM_ACQUIRE, false, false, false, 0, false),
		  CS_ACCESS_READ, "acquire at 0x6000000000 faulted" },
		{ 0, 4, cs_fe_sem_execute(CS_FE_SEM_RELEASE, true, false, false, 0, false), 0,
		  "not 8-byte aligned" },
		{ 0, 4, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, true, false, 0, false), 0,
		  "not 8-byte aligned" },
		{ 0, 0, 7, 0, "operation 7 is not defined" },
		{ 0, 0, cs_fe_sem_execute(CS_FE_SEM_REDUCTION, false, false, false, 0, false) | (9u << 27), 0,
		  "reduction 9 is not defined" },
		/* the 16-byte release runs off the end of the page */
		{ 0, CS_PAGE_SIZE - 8, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, true, false, 0, false),
		  CS_ACCESS_WRITE, "release of 16 bytes" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		/* a page with nothing mapped after it */
		uint64_t s = 0x5000000000ull;
		cs_diag md;
		cr_assert(cs_mem_map(r->tb.mem, "sem", s, CS_PAGE_SIZE, &md), "%s", md.msg);
		uint64_t addr = (cases[i].addr ? cases[i].addr : s) + cases[i].addr_off;
		test_bus_write64(&r->tb, s + CS_PAGE_SIZE - 8, CANARY);
		run_sem(r, ch, addr, 1, cases[i].exec);
		cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_STOPPED, "case %u", i);
		const cs_diag *d = cs_fe_channel_stop_diag(r->fe, ch);
		cr_assert_not_null(strstr(d->msg, cases[i].phrase), "case %u: %s", i, d->msg);
		cr_assert_eq(reference(r, ch), 0);
		if (cases[i].acc) {
			const rec_event *f = rig_nth(r, CS_EV_FAULT, 0);
			cr_assert_not_null(f, "case %u", i);
			cr_assert_eq(f->ev.value, cases[i].acc, "case %u", i);
			cr_assert_eq(f->ev.method, CS_FE_M_SEM_EXECUTE);
			cr_assert_eq(f->ev.stage, CS_STAGE_FE_EXEC);
			cr_assert_eq(d->status, CS_ERR_FAULT);
		} else {
			cr_assert_eq(rig_count(r, CS_EV_FAULT), 0, "case %u", i);
		}
		cr_assert_eq(test_bus_read64(&r->tb, s + CS_PAGE_SIZE - 8), CANARY, "case %u: nothing written", i);
		rig_free(r);
	}
}

Test(sem, legacy_semaphored_on_ampere_only)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 8);
	uint64_t s = rig_alloc(r, 64);
	test_bus_write64(&r->tb, s, CANARY);
	test_bus_write64(&r->tb, s + 8, CANARY);
	uint32_t d4[4] = { (uint32_t)(s >> 32), (uint32_t)s, 0x1234, 2u | (1u << 24) };
	uint32_t pb[5] = { cs_pb_inc(0, CS_FE_M_SEMAPHOREA, 4), d4[0], d4[1], d4[2], d4[3] };
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(test_bus_read32(&r->tb, s), 0x1234);
	cr_assert_eq(test_bus_read32(&r->tb, s + 4), 0xA5A5A5A5u);
	/* RELEASE_WFI is bit 20 and inverted on SEMAPHORED: 0 is EN */
	cr_assert_eq(rig_nth(r, CS_EV_SEM_RELEASE, 0)->ev.aux, 4 | CS_SEM_RELEASE_AFTER_WFI);
	/* 16-byte form: payload and timestamp */
	pb[4] = 2u;
	pb[3] = 0x99;
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(test_bus_read32(&r->tb, s), 0x99);
	cr_assert_eq(test_bus_read64(&r->tb, s + 8), r->tb.now);
	cr_assert_eq(rig_nth(r, CS_EV_SEM_RELEASE, 1)->ev.aux, 16 | CS_SEM_RELEASE_AFTER_WFI);
	/* acquire (equal) blocks, then resumes */
	pb[3] = 0x100;
	pb[4] = 1u;
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_BLOCKED);
	cr_assert_eq(cs_fe_report_deadlocks(r->fe), 1);
	cr_assert_not_null(strstr(rig_nth(r, CS_EV_DEADLOCK, 0)->detail, "SEMAPHORED"));
	test_bus_write32(&r->tb, s, 0x100);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE);
	/* ACQ_GEQ compares circularly */
	pb[3] = 0xFFFFFFFFu;
	pb[4] = 4u;
	test_bus_write32(&r->tb, s, 1);
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE);
	/* an operation that is not one bit */
	pb[4] = 3u;
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_not_null(strstr(cs_fe_channel_stop_diag(r->fe, ch)->msg, "SEMAPHORED operation 0x3"));
	rig_free(r);

	r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	ch = rig_channel(r, 4);
	rig_push(r, ch, rig_pb(r, pb, 5), 5);
	rig_submit(r, ch);
	rig_run(r);
	const cs_diag *d = cs_fe_channel_stop_diag(r->fe, ch);
	cr_assert_not_null(d);
	cr_assert_not_null(strstr(d->msg, "host method 0x010 is not a method of C86F"), "%s", d->msg);
	rig_free(r);
}

Test(sem, sem_addr_hi_width_per_class)
{
	/* C56F keeps SEM_ADDR_HI bits 7:0: bit 8 is dropped; C86F keeps 24:0 */
	const cs_arch archs[] = { CS_ARCH_AMPERE, CS_ARCH_HOPPER };
	for (unsigned i = 0; i < 2; i++) {
		rig *r = rig_new(archs[i], CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint64_t s = rig_alloc(r, 64);
		uint64_t wide = s | (1ull << 40);
		run_sem(r, ch, wide, 1, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, false, 0, false));
		const rec_event *e = i == 0 ? rig_nth(r, CS_EV_SEM_RELEASE, 0) : rig_nth(r, CS_EV_FAULT, 0);
		cr_assert_not_null(e, "arch %u", i);
		cr_assert_eq(e->ev.addr, i == 0 ? s : wide);
		rig_free(r);
	}
}
