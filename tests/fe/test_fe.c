/* SPDX-License-Identifier: MIT */
/* The front end: channels, fetch, routing, SET_OBJECT, faults, scheduling. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

static uint32_t reference_of(rig *r, uint32_t ch)
{
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	return info.reference;
}

static const char *stop_msg(rig *r, uint32_t ch)
{
	const cs_diag *d = cs_fe_channel_stop_diag(r->fe, ch);
	return d ? d->msg : "";
}

/* One entry, bound compute object, host and engine methods: the records and
 * the engine calls carry the whole context. */
Test(fe, basic_entry_records_and_engine_context)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 8);
	pbuf p = { 0 };
	pb_m(&p, 1, CS_FE_M_SET_OBJECT, 0xCBC0);      /* method 0, dwords 0-1 */
	pb_put(&p, cs_pb_immd(3, CS_FE_M_NOP, 5));     /* method 1, dword 2 */
	uint32_t d[2] = { 0x11, 0x22 };
	pb_inc(&p, 1, 0x2b4, 2, d);                    /* methods 2-3, dwords 4-5 */
	pb_m(&p, 5, CS_FE_M_SET_REFERENCE, 9);         /* method 4 */
	uint64_t va = rig_pb(r, p.dw, p.n);
	rig_push(r, ch, va, (uint32_t)p.n);
	cr_assert(rig_submit(r, ch));
	cs_fe_run_result rr = rig_run(r);
	cr_assert_eq(rr.end, CS_FE_RUN_QUIESCENT);
	cr_assert_eq(rr.entries, 1);
	cr_assert_eq(rr.idle, 1);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE);

	/* engine saw the bind and two methods with full context */
	cr_assert_eq(rec_count(&r->eng, REC_BIND), 1);
	cr_assert_eq(rec_nth(&r->eng, REC_BIND, 0)->cls, 0xCBC0);
	cr_assert_eq(rec_nth(&r->eng, REC_BIND, 0)->subch, 1);
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), 2);
	const rec_call *c = rec_nth(&r->eng, REC_METHOD, 1);
	cr_assert_eq(c->channel, ch);
	cr_assert_eq(c->subch, 1);
	cr_assert_eq(c->cls, 0xCBC0);
	cr_assert_eq(c->method, 0x2b8);
	cr_assert_eq(c->data, 0x22);
	cr_assert_eq(c->gp_entry, 0);
	cr_assert_eq(c->method_index, 3);
	cr_assert_eq(c->data_addr, va + 4 * 5);

	/* records */
	const rec_event *e = rig_nth(r, CS_EV_GP_FETCH, 0);
	cr_assert_not_null(e);
	cr_assert_eq(e->ev.stage, CS_STAGE_FE_FETCH);
	cr_assert_eq(e->ev.unit, CS_UNIT_FE);
	cr_assert_eq(e->ev.gp_entry, 0);
	cr_assert_eq(e->ev.addr, va);
	cr_assert_eq(e->ev.value, p.n);
	e = rig_nth(r, CS_EV_BIND, 0);
	cr_assert_eq(e->ev.subch, 1);
	cr_assert_eq(e->ev.cls, 0xCBC0);
	cr_assert_eq(e->ev.method, 0);
	cr_assert_eq(e->ev.method_index, 0);
	cr_assert_eq(e->ev.stage, CS_STAGE_FE_EXEC);
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 0,
		     "NOP and SET_REFERENCE are recorded only at ALL level");
	e = rig_nth(r, CS_EV_ENTRY_DONE, 0);
	cr_assert_eq(e->ev.gp_entry, 0);
	cr_assert_eq(e->ev.value, 5);
	cr_assert_eq(rig_count(r, CS_EV_METHOD), 0, "no METHOD records at CHAIN level");
	/* C86F's NOP and SET_REFERENCE are assumed: noted once each */
	cr_assert_eq(rig_count(r, CS_EV_ASSUMPTION), 2);

	cs_fe_channel_info info;
	cr_assert(cs_fe_channel_info_get(r->fe, ch, &info));
	cr_assert_eq(info.gp_get, 1);
	cr_assert_eq(info.gp_put, 1);
	cr_assert_eq(info.reference, 9);
	cr_assert_eq(info.bound[1], 0xCBC0);
	cr_assert_eq(info.counters.entries, 1);
	cr_assert_eq(info.counters.methods, 5);
	cr_assert_eq(info.counters.host_methods, 3);
	cr_assert_eq(info.counters.engine_methods, 2);
	cr_assert_eq(info.counters.dwords, p.n);
	cr_assert_eq(test_bus_read32(&r->tb, r->userd[ch] + CS_USERD_GP_GET), 1, "GP_GET written back");
	/* virtual time: one entry, five methods */
	cr_assert_eq(r->tb.now, CS_FE_NS_PER_ENTRY + 5 * CS_FE_NS_PER_METHOD);
	pb_free(&p);
	rig_free(r);
}

Test(fe, method_records_only_at_trace_all)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_ALL);
	uint32_t ch = rig_channel(r, 4);
	pbuf p = { 0 };
	pb_m(&p, 2, CS_FE_M_SET_OBJECT, 0xC6C0);
	pb_m(&p, 2, 0x400, 0xabc);
	uint64_t va = rig_pb(r, p.dw, p.n);
	rig_push(r, ch, va, (uint32_t)p.n);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(rig_count(r, CS_EV_METHOD), 2);
	const rec_event *e = rig_nth(r, CS_EV_METHOD, 1);
	cr_assert_eq(e->ev.method, 0x400);
	cr_assert_eq(e->ev.value, 0xabc);
	cr_assert_eq(e->ev.cls, 0xC6C0);
	cr_assert_eq(e->ev.subch, 2);
	cr_assert_eq(e->ev.addr, va + 12);
	cr_assert_eq(e->ev.method_index, 1);
	cr_assert_eq(e->ev.gp_entry, 0);
	e = rig_nth(r, CS_EV_METHOD, 0);
	cr_assert_eq(e->ev.cls, 0xC56F, "host methods carry the host class");
	cr_assert_eq(rig_count(r, CS_EV_ASSUMPTION), 0, "C56F needs no assumption");
	pb_free(&p);
	rig_free(r);
}

Test(fe, method_without_object_stops)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 4);
	pbuf p = { 0 };
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 1);
	pb_m(&p, 4, 0x300, 7);
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 2);
	uint64_t va = rig_pb(r, p.dw, p.n);
	rig_push(r, ch, va, (uint32_t)p.n);
	rig_submit(r, ch);
	cs_fe_run_result rr = rig_run(r);
	cr_assert_eq(rr.stopped, 1);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_STOPPED);
	const cs_diag *d = cs_fe_channel_stop_diag(r->fe, ch);
	cr_assert_not_null(d);
	cr_assert_not_null(strstr(d->msg, "subchannel 4, which has no object bound"), "%s", d->msg);
	cr_assert_not_null(strstr(d->msg, "method 1"), "%s", d->msg);
	cr_assert(d->has_offset);
	cr_assert_eq(d->offset, 12, "the data dword of the method");
	const rec_event *e = rig_nth(r, CS_EV_CHANNEL_STOP, 0);
	cr_assert_not_null(e);
	cr_assert_eq(e->ev.method_index, 1);
	cr_assert_eq(e->ev.method, 0x300);
	cr_assert_eq(e->ev.subch, 4);
	cr_assert_str_eq(e->detail, d->msg);
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), 0);
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.reference, 1, "the method after the stop never ran");
	cr_assert_eq(rig_count(r, CS_EV_ENTRY_DONE), 0);
	/* a stopped channel ignores the doorbell */
	cr_assert(!cs_fe_doorbell(r->fe, ch));
	pb_free(&p);
	rig_free(r);
}

/* SET_OBJECT class checks, per generation. */
Test(fe, set_object_class_checks_per_arch)
{
	struct {
		cs_arch arch;
		uint32_t cls;
		const char *phrase; /* NULL: accepted */
	} cases[] = {
		{ CS_ARCH_AMPERE, 0xC6C0, NULL },
		{ CS_ARCH_AMPERE, 0xC7B5, NULL },
		{ CS_ARCH_ADA, 0xC9C0, NULL },
		{ CS_ARCH_HOPPER, 0xCBC0, NULL },
		{ CS_ARCH_HOPPER, 0xC8B5, NULL },
		{ CS_ARCH_BLACKWELL, 0xCEC0, NULL },
		{ CS_ARCH_BLACKWELL, 0xC9B5, NULL },
		{ CS_ARCH_AMPERE, 0xCBC0, "belongs to another generation" },
		{ CS_ARCH_HOPPER, 0xC6C0, "belongs to another generation" },
		{ CS_ARCH_BLACKWELL, 0xC8B5, "belongs to another generation" },
		{ CS_ARCH_HOPPER, 0xB1C0, "is not a class chainsim knows" },
		{ CS_ARCH_HOPPER, 0xC86F, "host channel class" },
		{ CS_ARCH_AMPERE, 0xC56F, "host channel class" },
		{ CS_ARCH_AMPERE, 0xC697, "does not model" },
		{ CS_ARCH_HOPPER, 0xCB97, "does not model" },
		{ CS_ARCH_HOPPER, 0x902D, "does not model" },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rig *r = rig_new(cases[i].arch, CS_TRACE_CHAIN);
		uint32_t ch = rig_channel(r, 4);
		uint32_t pb[2] = { cs_pb_inc(1, 0, 1), cases[i].cls };
		rig_push(r, ch, rig_pb(r, pb, 2), 2);
		rig_submit(r, ch);
		rig_run(r);
		if (!cases[i].phrase) {
			cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "%04X: %s",
				     cases[i].cls, stop_msg(r, ch));
			cr_assert_eq(rig_count(r, CS_EV_BIND), 1);
			cr_assert_eq(rec_count(&r->eng, REC_BIND), 1);
		} else {
			cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_STOPPED, "%04X", cases[i].cls);
			const char *m = stop_msg(r, ch);
			cr_assert_not_null(strstr(m, cases[i].phrase), "%s", m);
			char cls[8];
			snprintf(cls, sizeof(cls), "%04X", cases[i].cls);
			cr_assert_not_null(strstr(m, cls), "names the class: %s", m);
			char valid[8];
			snprintf(valid, sizeof(valid), "%04X", cs_arch_get(cases[i].arch)->compute_class);
			cr_assert_not_null(strstr(m, valid), "lists the arch's classes: %s", m);
			cr_assert_eq(rig_count(r, CS_EV_BIND), 0);
			cr_assert_eq(rec_count(&r->eng, REC_BIND), 0, "the engine never saw it");
			cr_assert_eq(rig_count(r, CS_EV_CHANNEL_STOP), 1);
		}
		rig_free(r);
	}
}

Test(fe, engine_refusal_and_engine_stop)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	r->eng.refuse_class = 0xC8B5;
	uint32_t ch = rig_channel(r, 4);
	uint32_t pb[2] = { cs_pb_inc(4, 0, 1), 0xC8B5 };
	rig_push(r, ch, rig_pb(r, pb, 2), 2);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_not_null(strstr(stop_msg(r, ch), "recorder refuses class C8B5"), "%s", stop_msg(r, ch));
	rig_free(r);

	r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	r->eng.stop_method = 0x2b4;
	ch = rig_channel(r, 4);
	uint32_t pb2[6] = { cs_pb_inc(1, 0, 1), 0xCBC0, cs_pb_inc(1, 0x2b4, 1), 1, cs_pb_inc(1, 0x2b8, 1), 2 };
	rig_push(r, ch, rig_pb(r, pb2, 6), 6);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_STOPPED);
	cr_assert_not_null(strstr(stop_msg(r, ch), "recorder stops at method 0x2b4"), "%s", stop_msg(r, ch));
	cr_assert_eq(cs_fe_channel_stop_diag(r->fe, ch)->status, CS_ERR_FAULT);
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), 1);
	rig_free(r);
}

Test(fe, unmapped_pushbuffer_faults_then_stops)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 4);
	/* one page mapped, the entry runs 8 bytes into the next (unmapped) page */
	uint64_t va = rig_alloc(r, CS_PAGE_SIZE);
	uint64_t pbva = va + CS_PAGE_SIZE - 8;
	uint64_t bad = va + CS_PAGE_SIZE;
	uint64_t fva;
	uint32_t pb[2] = { cs_pb_inc(0, CS_FE_M_SET_REFERENCE, 1), 3 };
	cs_mem_write(r->tb.mem, pbva, pb, 8, &fva);
	cr_assert(!cs_mem_mapped(r->tb.mem, bad, 4));
	rig_push(r, ch, pbva, 4);
	rig_submit(r, ch);
	cs_fe_run_result rr = rig_run(r);
	cr_assert_eq(rr.stopped, 1);
	const rec_event *f = rig_nth(r, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_assert_eq(f->ev.unit, CS_UNIT_FE);
	cr_assert_eq(f->ev.value, CS_ACCESS_FETCH);
	cr_assert_eq(f->ev.addr, bad);
	cr_assert_eq(f->ev.gp_entry, 0);
	cr_assert_eq(f->ev.stage, CS_STAGE_FE_FETCH);
	const rec_event *s = rig_nth(r, CS_EV_CHANNEL_STOP, 0);
	cr_assert_not_null(s);
	cr_assert(s->ev.seq > f->ev.seq, "fault first, then the stop");
	cr_assert_eq(s->ev.gp_entry, 0);
	cr_assert_not_null(strstr(s->detail, "not mapped"), "%s", s->detail);
	cr_assert_eq(cs_fe_channel_stop_diag(r->fe, ch)->status, CS_ERR_FAULT);
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 0, "no method of the entry ran");
	rig_free(r);
}

Test(fe, unmapped_ring_faults_then_stops)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint64_t userd = rig_alloc(r, CS_USERD_SIZE);
	uint64_t ring = 0x7000000000ull; /* never mapped */
	uint32_t ch;
	cs_diag d;
	cr_assert(cs_fe_channel_new(r->fe, ring, 16, userd, &ch, &d), "%s", d.msg);
	test_bus_write32(&r->tb, userd + CS_USERD_GP_PUT, 1);
	cr_assert(cs_fe_doorbell(r->fe, ch));
	rig_run(r);
	const rec_event *f = rig_nth(r, CS_EV_FAULT, 0);
	cr_assert_not_null(f);
	cr_assert_eq(f->ev.value, CS_ACCESS_FETCH);
	cr_assert_eq(f->ev.addr, ring);
	cr_assert_eq(f->ev.gp_entry, 0);
	cr_assert_eq(rig_count(r, CS_EV_GP_FETCH), 0);
	cr_assert_eq(rig_count(r, CS_EV_CHANNEL_STOP), 1);
	cr_assert_eq(rig_nth(r, CS_EV_CHANNEL_STOP, 0)->ev.gp_entry, 0);
	cr_assert_not_null(strstr(stop_msg(r, ch), "ring is not mapped"), "%s", stop_msg(r, ch));
	cr_assert_not_null(strstr(stop_msg(r, ch), "GPFIFO entry 0"), "%s", stop_msg(r, ch));
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.gp_get, 0, "GP_GET did not advance");
	rig_free(r);
}

Test(fe, channel_creation_checks)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint64_t m = rig_alloc(r, CS_PAGE_SIZE);
	cs_diag d;
	uint32_t id;
	cr_assert(!cs_fe_channel_new(r->fe, m, 100, m + 0x800, &id, &d));
	cr_assert_not_null(strstr(d.msg, "power of two"), "%s", d.msg);
	cr_assert(!cs_fe_channel_new(r->fe, m, 1, m + 0x800, &id, &d));
	cr_assert(!cs_fe_channel_new(r->fe, m + 4, 4, m + 0x800, &id, &d));
	cr_assert(!cs_fe_channel_new(r->fe, m, 4, 0x7000000000ull, &id, &d));
	cr_assert_eq(d.status, CS_ERR_FAULT);
	cr_assert(!cs_fe_channel_new(r->fe, UINT64_MAX - 15, 4, m + 0x800, &id, &d));
	cr_assert(cs_fe_channel_new(r->fe, m, 4, m + 0x800, &id, &d), "%s", d.msg);
	cr_assert_eq(id, 0);
	cr_assert_eq(cs_fe_channel_count(r->fe), 1);
	/* GP_PUT outside the ring */
	test_bus_write32(&r->tb, m + 0x800 + CS_USERD_GP_PUT, 4);
	cr_assert(!cs_fe_doorbell(r->fe, id));
	cr_assert_not_null(strstr(cs_fe_channel_stop_diag(r->fe, id)->msg, "outside the ring"));
	cr_assert(!cs_fe_doorbell(r->fe, 99));
	cr_assert_eq(cs_fe_channel_state(r->fe, 99), CS_FE_CHAN_STOPPED);
	cr_assert(!cs_fe_channel_info_get(r->fe, 99, &(cs_fe_channel_info){ 0 }));
	rig_free(r);
}

Test(fe, control_entries)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 16);
	cs_gp_entry nop = { .length = 0, .opcode = CS_GP_OPCODE_NOP };
	cs_gp_entry crc = { .length = 0, .opcode = CS_GP_OPCODE_GP_CRC };
	uint32_t lo, hi;
	cs_gp_encode(&nop, &lo, &hi);
	rig_push_raw(r, ch, lo, hi);
	cs_gp_encode(&crc, &lo, &hi);
	rig_push_raw(r, ch, lo, hi);

	/* a pushbuffer above 2^40, reached through the extended base (Hopper on) */
	uint64_t high = 0x30000000000ull; /* bits 41:40 = 3 */
	cs_diag d;
	cr_assert(cs_mem_map(r->tb.mem, "high", high, CS_PAGE_SIZE, &d), "%s", d.msg);
	uint32_t pb[2] = { cs_pb_inc(0, CS_FE_M_SET_REFERENCE, 1), 0x77 };
	uint64_t fva;
	cs_mem_write(r->tb.mem, high + 0x40, pb, 8, &fva);
	cs_gp_entry ext = { .length = 0, .opcode = CS_GP_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE };
	cs_gp_encode(&ext, &lo, &hi);
	lo = 3u << 8; /* operand 24:8 */
	rig_push_raw(r, ch, lo, hi);
	rig_push(r, ch, (high & 0xffffffffffull) + 0x40, 2);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "%s", stop_msg(r, ch));
	cr_assert_eq(rig_count(r, CS_EV_GP_CONTROL), 3);
	cr_assert_eq(rig_nth(r, CS_EV_GP_CONTROL, 1)->ev.value, CS_GP_OPCODE_GP_CRC);
	cr_assert_eq(rig_nth(r, CS_EV_GP_CONTROL, 1)->ev.gp_entry, 1);
	cr_assert_eq(rig_count(r, CS_EV_ASSUMPTION), 2, "CRC unchecked, SET_REFERENCE assumed");
	cr_assert_eq(rig_nth(r, CS_EV_GP_FETCH, 0)->ev.addr, high + 0x40);
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.reference, 0x77);
	cr_assert_eq(info.pb_extended_base, 3ull << 40);
	cr_assert_eq(info.counters.entries, 4);
	cr_assert_eq(info.counters.control_entries, 3);

	/* ILLEGAL stops */
	cs_gp_entry ill = { .length = 0, .opcode = CS_GP_OPCODE_ILLEGAL };
	cs_gp_encode(&ill, &lo, &hi);
	rig_push_raw(r, ch, lo, hi);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_not_null(strstr(stop_msg(r, ch), "ILLEGAL control entry"), "%s", stop_msg(r, ch));
	rig_free(r);

	/* the extended base does not exist on Ampere; unknown opcodes stop */
	const struct {
		cs_arch arch;
		uint32_t op;
		const char *phrase;
	} bad[] = {
		{ CS_ARCH_AMPERE, 4, "exists from Hopper" },
		{ CS_ARCH_HOPPER, 9, "unknown control opcode 9" },
	};
	for (unsigned i = 0; i < 2; i++) {
		r = rig_new(bad[i].arch, CS_TRACE_CHAIN);
		ch = rig_channel(r, 4);
		rig_push_raw(r, ch, 0, bad[i].op);
		rig_submit(r, ch);
		rig_run(r);
		cr_assert_not_null(strstr(stop_msg(r, ch), bad[i].phrase), "%s", stop_msg(r, ch));
		rig_free(r);
	}
}

Test(fe, end_of_segment_mid_entry_skips_the_rest)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_ALL);
	uint32_t ch = rig_channel(r, 4);
	uint32_t pb[] = { cs_pb_inc(0, CS_FE_M_SET_REFERENCE, 1), 1, cs_pb_end_seg(),
			  cs_pb_inc(0, CS_FE_M_SET_REFERENCE, 1), 2, 0xdeadbeef };
	uint32_t pb2[] = { cs_pb_inc(0, CS_FE_M_NOP, 1), 3 };
	rig_push(r, ch, rig_pb(r, pb, 6), 6);
	rig_push(r, ch, rig_pb(r, pb2, 2), 2);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "%s", stop_msg(r, ch));
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.reference, 1);
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 2, "SET_REFERENCE 1 and the next entry's NOP");
	cr_assert_eq(rig_nth(r, CS_EV_ENTRY_DONE, 0)->ev.value, 1);
	cr_assert_eq(rig_nth(r, CS_EV_HOST_OP, 1)->ev.gp_entry, 1);
	cr_assert_eq(info.counters.dwords, 3 + 2);
	rig_free(r);
}

/* A header as an entry's last dword takes its data from the next entry. */
Test(fe, method_data_continues_into_next_entry)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 4);
	uint32_t a[] = { cs_pb_inc(2, 0, 1), 0xCBC0, cs_pb_inc(2, 0x400, 3), 10 };
	uint32_t b[] = { 11, 12, cs_pb_immd(0, CS_FE_M_SET_REFERENCE, 5) };
	uint64_t va = rig_pb(r, a, 4), vb = rig_pb(r, b, 3);
	rig_push(r, ch, va, 4);
	rig_push(r, ch, vb, 3);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE, "%s", stop_msg(r, ch));
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), 3);
	const rec_call *c = rec_nth(&r->eng, REC_METHOD, 0);
	cr_assert_eq(c->method, 0x400);
	cr_assert_eq(c->gp_entry, 0);
	cr_assert_eq(c->data_addr, va + 12);
	c = rec_nth(&r->eng, REC_METHOD, 1);
	cr_assert_eq(c->method, 0x404);
	cr_assert_eq(c->data, 11);
	cr_assert_eq(c->gp_entry, 1);
	cr_assert_eq(c->method_index, 0);
	cr_assert_eq(c->data_addr, vb);
	c = rec_nth(&r->eng, REC_METHOD, 2);
	cr_assert_eq(c->method, 0x408);
	cr_assert_eq(c->method_index, 1);
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.reference, 5);
	rig_free(r);
}

/* GP_PUT wraps around the ring many times: every method runs once, in order. */
Test(fe, gp_put_wraps_over_many_submissions)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 4);
	uint32_t bind[2] = { cs_pb_inc(1, 0, 1), 0xCBC0 };
	rig_push(r, ch, rig_pb(r, bind, 2), 2);
	rig_submit(r, ch);
	rig_run(r);
	uint32_t seq = 0, submissions = 0;
	/* batches of 1, 2 and 3 entries: 13 submissions, 26 entries > 4 */
	for (unsigned round = 0; round < 13; round++) {
		unsigned batch = 1 + round % 3;
		for (unsigned k = 0; k < batch; k++) {
			uint32_t pb[2] = { cs_pb_inc(1, 0x300, 1), seq++ };
			rig_push(r, ch, rig_pb(r, pb, 2), 2);
		}
		cr_assert(rig_submit(r, ch));
		submissions++;
		cs_fe_run_result rr = rig_run(r);
		cr_assert_eq(rr.entries, batch);
		cr_assert_eq(rr.idle, 1);
	}
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), seq);
	for (uint32_t i = 0; i < seq; i++) {
		const rec_call *c = rec_nth(&r->eng, REC_METHOD, i);
		cr_assert_eq(c->data, i);
		cr_assert_eq(c->gp_entry, (i + 1) % 4, "ring slot of the entry");
	}
	cs_fe_channel_info info;
	cs_fe_channel_info_get(r->fe, ch, &info);
	cr_assert_eq(info.counters.entries, seq + 1);
	cr_assert_eq(info.gp_get, (seq + 1) % 4);
	cr_assert_eq(test_bus_read32(&r->tb, r->userd[ch] + CS_USERD_GP_GET), (seq + 1) % 4);
	cr_assert(seq + 1 > 4 * 5);
	rig_free(r);
}

/* Two channels take turns, one entry each, in id order. */
Test(fe, two_channels_interleave_by_entry)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_CHAIN);
	uint32_t c0 = rig_channel(r, 8), c1 = rig_channel(r, 8);
	for (uint32_t ch = 0; ch < 2; ch++) {
		uint32_t bind[2] = { cs_pb_inc(1, 0, 1), 0xC6C0 };
		rig_push(r, ch, rig_pb(r, bind, 2), 2);
		for (uint32_t e = 0; e < 3; e++) {
			uint32_t pb[4] = { cs_pb_inc(1, 0x300, 1), ch * 100 + e * 10,
					   cs_pb_inc(1, 0x300, 1), ch * 100 + e * 10 + 1 };
			rig_push(r, ch, rig_pb(r, pb, 4), 4);
		}
	}
	/* channel 1 rings first: the order is still by id */
	rig_submit(r, c1);
	rig_submit(r, c0);
	cs_fe_run_result rr = rig_run(r);
	cr_assert_eq(rr.entries, 8);
	cr_assert_eq(rr.idle, 2);
	const uint32_t want[] = { 0, 1, 100, 101, 10, 11, 110, 111, 20, 21, 120, 121 };
	cr_assert_eq(rec_count(&r->eng, REC_METHOD), 12);
	for (unsigned i = 0; i < 12; i++)
		cr_assert_eq(rec_nth(&r->eng, REC_METHOD, i)->data, want[i], "call %u", i);
	/* the fetch records alternate too */
	for (unsigned i = 0; i < 8; i++)
		cr_assert_eq(rig_nth(r, CS_EV_GP_FETCH, i)->ev.channel, i % 2);
	rig_free(r);
}

Test(fe, budget_limits_entries)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_ALL);
	uint32_t ch = rig_channel(r, 8);
	for (int i = 0; i < 5; i++) {
		uint32_t pb[2] = { cs_pb_inc(0, CS_FE_M_NOP, 1), (uint32_t)i };
		rig_push(r, ch, rig_pb(r, pb, 2), 2);
	}
	rig_submit(r, ch);
	cs_fe_run_result rr = cs_fe_run(r->fe, 2);
	cr_assert_eq(rr.end, CS_FE_RUN_BUDGET);
	cr_assert_eq(rr.entries, 2);
	cr_assert_eq(rr.ready, 1);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_READY);
	rr = cs_fe_run(r->fe, 3);
	cr_assert_eq(rr.entries, 3);
	cr_assert_eq(rr.end, CS_FE_RUN_QUIESCENT, "budget exactly used, nothing left");
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 5);
	rig_free(r);
}

Test(fe, no_engine_wired)
{
	uint64_t now = 0;
	cs_mem *mem = cs_mem_new(57);
	cs_bus bus = { .mem = cs_mem_port_of(mem), .now_ns = &now };
	cs_fe *fe = cs_fe_new(CS_ARCH_HOPPER, &bus, NULL);
	cr_assert_not_null(fe);
	uint64_t ring, userd, pbva;
	cs_diag d;
	cr_assert(cs_mem_alloc(mem, "ring", 64, CS_PAGE_SIZE, &ring, &d), "%s", d.msg);
	cr_assert(cs_mem_alloc(mem, "userd", 512, CS_PAGE_SIZE, &userd, &d), "%s", d.msg);
	cr_assert(cs_mem_alloc(mem, "pb", 64, CS_PAGE_SIZE, &pbva, &d), "%s", d.msg);
	uint32_t pb[4] = { cs_pb_inc(1, 0, 1), 0xCBC0, cs_pb_inc(1, 0x300, 1), 1 };
	uint64_t fva;
	cs_mem_write(mem, pbva, pb, 16, &fva);
	cs_gp_entry e = { .addr = pbva, .length = 4 };
	uint32_t w[2];
	cs_gp_encode(&e, &w[0], &w[1]);
	cs_mem_write(mem, ring, w, 8, &fva);
	uint32_t put = 1;
	cs_mem_write(mem, userd + CS_USERD_GP_PUT, &put, 4, &fva);
	uint32_t ch;
	cr_assert(cs_fe_channel_new(fe, ring, 8, userd, &ch, &d));
	cr_assert(cs_fe_doorbell(fe, ch));
	cs_fe_run(fe, 0);
	cr_assert_not_null(strstr(cs_fe_channel_stop_diag(fe, ch)->msg, "no engine is wired"));
	cr_assert_null(cs_fe_new(CS_ARCH_COUNT, &bus, NULL));
	cs_fe_free(fe);
	cs_mem_free(mem);
}

Test(fe, step_one_unit_at_a_time)
{
	rig *r = rig_new(CS_ARCH_AMPERE, CS_TRACE_ALL);
	uint32_t ch = rig_channel(r, 4);
	uint64_t s = rig_alloc(r, 64);
	pbuf p = { 0 };
	pb_m(&p, 0, CS_FE_M_NOP, 1);
	pb_release(&p, s, 1, cs_fe_sem_execute(CS_FE_SEM_ACQUIRE, false, false, false, 0, false));
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 2);
	rig_push(r, ch, rig_pb(r, p.dw, p.n), (uint32_t)p.n);
	pb_free(&p);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_IDLE, "GP_PUT not yet read");
	rig_submit(r, ch);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_FETCHED);
	cr_assert_eq(rig_count(r, CS_EV_GP_FETCH), 1);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_METHOD);
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 1);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_METHOD, "SEM_ADDR_LO.. %d", i);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_BLOCKED, "SEM_EXECUTE blocks");
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_BLOCKED);
	test_bus_write32(&r->tb, s, 1);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_UNBLOCKED);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_METHOD);
	cr_assert_eq(reference_of(r, ch), 2);
	cr_assert_eq(rig_count(r, CS_EV_ENTRY_DONE), 0);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_ENTRY_DONE);
	cr_assert_eq(rig_count(r, CS_EV_ENTRY_DONE), 1);
	cr_assert_eq(rig_nth(r, CS_EV_ENTRY_DONE, 0)->ev.value, 7);
	cr_assert_eq(cs_fe_step(r->fe, ch), CS_FE_STEP_IDLE);
	cr_assert_eq(cs_fe_step(r->fe, 42), CS_FE_STEP_STOPPED);
	rig_free(r);
}

/* At ALL level NOP and SET_REFERENCE leave HOST_OP records with their context. */
Test(fe, nop_and_set_reference_records_at_all_level)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_ALL);
	uint32_t ch = rig_channel(r, 8);
	pbuf p = { 0 };
	pb_m(&p, 1, CS_FE_M_SET_OBJECT, 0xCBC0);      /* method 0, dwords 0-1 */
	pb_put(&p, cs_pb_immd(3, CS_FE_M_NOP, 5));     /* method 1, dword 2 */
	pb_m(&p, 5, CS_FE_M_SET_REFERENCE, 9);         /* method 2 */
	uint64_t va = rig_pb(r, p.dw, p.n);
	rig_push(r, ch, va, (uint32_t)p.n);
	cr_assert(rig_submit(r, ch));
	rig_run(r);
	cr_assert_eq(rig_count(r, CS_EV_HOST_OP), 2);
	const rec_event *e = rig_nth(r, CS_EV_HOST_OP, 0);
	cr_assert_eq(e->ev.method, CS_FE_M_NOP);
	cr_assert_eq(e->ev.value, 5);
	cr_assert_eq(e->ev.subch, 3);
	cr_assert_eq(e->ev.cls, 0xC86F);
	cr_assert_eq(e->ev.addr, va + 8);
	e = rig_nth(r, CS_EV_HOST_OP, 1);
	cr_assert_eq(e->ev.method, CS_FE_M_SET_REFERENCE);
	cr_assert_eq(e->ev.method_index, 2);
	cr_assert_eq(e->ev.value, 9);
	pb_free(&p);
	rig_free(r);
}

/* Known gaps, pinned: each passes today and fails when the gap closes.
 * - LEVEL=SUBROUTINE entries run like main-level ones (no subroutine state
 *   save/restore is modelled); only the GP_FETCH detail says "subroutine".
 * - SYNC and conditional FETCH have no effect (everything is synchronous).
 * - RELEASE_WFI and ACQUIRE_SWITCH_TSG have no effect.
 * - A 16-byte release with a 32-bit payload leaves bytes 4..7 untouched. */
Test(fe, known_gaps_pinned)
{
	rig *r = rig_new(CS_ARCH_HOPPER, CS_TRACE_CHAIN);
	uint32_t ch = rig_channel(r, 8);
	uint64_t s = rig_alloc(r, 64);
	test_bus_write64(&r->tb, s, 0xA5A5A5A5A5A5A5A5ull);
	pbuf p = { 0 };
	pb_m(&p, 0, CS_FE_M_SET_REFERENCE, 3);
	uint64_t sub = rig_pb(r, p.dw, p.n);
	pb_free(&p);
	pb_release(&p, s, 9, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, true, true, 0, false) |
				  CS_FE_PUT(sem_execute, ACQUIRE_SWITCH_TSG, 1));
	uint64_t main_pb = rig_pb(r, p.dw, p.n);
	cs_gp_entry e = { .addr = sub, .length = 2, .subroutine = true, .sync = true, .fetch_cond = true };
	uint32_t lo, hi;
	cs_gp_encode(&e, &lo, &hi);
	rig_push_raw(r, ch, lo, hi);
	rig_push(r, ch, main_pb, (uint32_t)p.n);
	pb_free(&p);
	rig_submit(r, ch);
	rig_run(r);
	cr_assert_eq(cs_fe_channel_state(r->fe, ch), CS_FE_CHAN_IDLE);
	const rec_event *f = rig_nth(r, CS_EV_GP_FETCH, 0);
	cr_assert_not_null(strstr(f->detail, "subroutine level"), "%s", f->detail);
	cr_assert_not_null(strstr(f->detail, "sync"), "%s", f->detail);
	cr_assert_not_null(strstr(f->detail, "conditional fetch"), "%s", f->detail);
	cr_assert_eq(reference_of(r, ch), 3, "the subroutine ran like a main entry");
	cr_assert_eq(test_bus_read32(&r->tb, s), 9);
	cr_assert_eq(test_bus_read32(&r->tb, s + 4), 0xA5A5A5A5u, "bytes 4..7 of a 16-byte release untouched");
	rig_free(r);
}
