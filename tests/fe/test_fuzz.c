/* SPDX-License-Identifier: MIT */
/* Fuzz-style: random dwords (fixed seeds) through the decoder and the front
 * end must never crash, hang or break an invariant (run clean under ASan and
 * UBSan in CI). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t next(rng *g)
{
	uint64_t x = g->s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return g->s = x;
}

static uint32_t below(rng *g, uint32_t n) { return (uint32_t)(next(g) % n); }

/* Mostly plausible dwords, so that the fuzz reaches past the header check. */
static uint32_t biased_dword(rng *g)
{
	switch (below(g, 8)) {
	case 0: return (uint32_t)next(g);
	case 1: return 0;
	case 2: return cs_pb_immd(below(g, 8), below(g, 0x40) * 4, below(g, 8192));
	case 3: return cs_pb_inc(below(g, 8), below(g, 0x40) * 4, below(g, 6));
	case 4: return cs_pb_noninc(below(g, 8), below(g, 0x1000) * 4, below(g, 6));
	case 5: return cs_pb_oneinc(below(g, 8), below(g, 0x1000) * 4, below(g, 6));
	case 6: return below(g, 8) == 0 ? cs_pb_end_seg() : (uint32_t)below(g, 16);
	default: {
		static const uint32_t classes[] = { 0xC6C0, 0xCBC0, 0xC8B5, 0xC86F, 0xC997, 0x1234, 0xCEC0 };
		return below(g, 2) ? classes[below(g, 7)] : cs_fe_sem_execute(below(g, 8), below(g, 2), below(g, 2), 0, below(g, 9), below(g, 2));
	}
	}
}

/* A chunk of up to 8 dwords: mostly well-formed methods of every kind, with
 * random classes, semaphore operations and some garbage. Returns its length. */
static size_t fuzz_chunk(rng *g, uint32_t *o, uint64_t sems, cs_arch arch)
{
	static const uint32_t classes[] = { 0xC6C0, 0xC7C0, 0xC9C0, 0xCBC0, 0xCEC0, 0xC6B5,
					    0xC8B5, 0xC9B5, 0xC86F, 0xC997, 0x902D, 0xB1C0 };
	static const uint32_t host[] = { 0x000, 0x004, 0x008, 0x010, 0x014, 0x018, 0x01c, 0x020,
					 0x024, 0x028, 0x034, 0x050, 0x05c, 0x06c, 0x078, 0x080,
					 0x084, 0x0f0 };
	static const uint32_t common[] = { 0x008, 0x020, 0x028, 0x02c, 0x030, 0x034, 0x050, 0x078 };
	uint32_t sub = below(g, 8);
	uint32_t pick = below(g, 64);
	if (pick == 0) {
		o[0] = (uint32_t)next(g); /* garbage */
		return 1;
	}
	switch (pick % 10) {
	case 0:
		o[0] = cs_pb_inc(sub, 0, 1);
		o[1] = below(g, 4) ? (below(g, 2) ? cs_arch_get(arch)->compute_class
						  : cs_arch_get(arch)->copy_class)
				   : classes[below(g, sizeof(classes) / 4)];
		return 2;
	case 1:
	case 2: {
		uint64_t a = below(g, 16) == 0 ? 0x7000000000ull + below(g, 64)
			     : below(g, 16) == 0 ? sems + 4ull * below(g, 16) : sems + 16ull * below(g, 4);
		o[0] = cs_pb_inc(sub, CS_FE_M_SEM_ADDR_LO, 5);
		o[1] = (uint32_t)a;
		o[2] = (uint32_t)(a >> 32);
		o[3] = below(g, 4);
		o[4] = below(g, 8) == 0 ? (uint32_t)next(g) : 0;
		o[5] = cs_fe_sem_execute(below(g, 16) ? below(g, 7) : 7, below(g, 3) == 0, below(g, 3) == 0,
					 below(g, 2), below(g, 16) ? below(g, 8) : 9, below(g, 2));
		return 6;
	}
	case 3:
		o[0] = cs_pb_inc(sub, below(g, 8) ? common[below(g, sizeof(common) / 4)]
						  : host[below(g, sizeof(host) / 4)], 1);
		o[1] = below(g, 2) ? (uint32_t)next(g) : below(g, 32);
		return 2;
	case 4:
	case 5: {
		uint32_t cnt = below(g, 6);
		uint32_t kind = below(g, 3);
		uint32_t m = 0x100 + below(g, 0x300) * 4;
		o[0] = kind == 0 ? cs_pb_inc(sub, m, cnt) : kind == 1 ? cs_pb_noninc(sub, m, cnt)
							       : cs_pb_oneinc(sub, m, cnt);
		for (uint32_t i = 0; i < cnt; i++)
			o[1 + i] = (uint32_t)next(g);
		return 1 + cnt;
	}
	case 6:
		o[0] = cs_pb_immd(sub, below(g, 2) ? host[below(g, sizeof(host) / 4)] : below(g, 0x1000) * 4,
				  below(g, 8192));
		return 1;
	case 7:
		o[0] = below(g, 4) == 0 ? cs_pb_end_seg() : 0;
		return 1;
	case 8:
		o[0] = below(g, 8) == 0 ? biased_dword(g) : cs_pb_immd(sub, CS_FE_M_NOP, 1);
		return 1;
	default:
		o[0] = below(g, 8) == 0 ? (uint32_t)next(g) : cs_pb_inc(sub, 0x300, 1);
		o[1] = (uint32_t)next(g);
		return 2;
	}
}

Test(fuzz, decoder_random_dwords_any_slicing)
{
	rng g = { 0x9E3779B97F4A7C15ull };
	enum { N = 4096 };
	uint32_t *dw = malloc(N * 4);
	cs_pb_item items[64];
	for (int round = 0; round < 300; round++) {
		for (int i = 0; i < N; i++)
			dw[i] = round % 3 == 0 ? (uint32_t)next(&g) : biased_dword(&g);
		cs_pb_decoder dec;
		cs_pb_decoder_init(&dec, below(&g, 2));
		size_t pos = 0;
		uint64_t last = 0;
		while (pos < N && !dec.failed) {
			size_t len = 1 + below(&g, 300);
			if (len > N - pos)
				len = N - pos;
			size_t cap = 2 + below(&g, 62);
			size_t used = 0;
			cs_diag d;
			size_t k = cs_pb_decode(&dec, dw + pos, len, items, cap, &used, &d);
			cr_assert(k <= cap);
			cr_assert(used <= len);
			for (size_t j = 0; j < k; j++) {
				cr_assert(items[j].subch < 8);
				cr_assert(items[j].method <= CS_PB_MAX_METHOD);
				cr_assert(items[j].dword >= last);
				cr_assert(items[j].dword < pos + used + (dec.failed ? 1 : 0));
				last = items[j].dword;
			}
			if (dec.failed) {
				cr_assert(d.has_offset);
				cr_assert_eq(d.offset, 4 * (pos + used));
				break;
			}
			if (k == 0 && used == 0)
				cs_pb_decoder_segment(&dec); /* stopped at END_SEG earlier: a new segment */
			else if (below(&g, 4) == 0)
				cs_pb_decoder_segment(&dec);
			pos += used;
		}
	}
	free(dw);
}

Test(fuzz, front_end_random_streams)
{
	rng g = { 0xD1B54A32D192ED03ull };
	uint64_t methods = 0, releases = 0, binds = 0, blocks = 0, stops = 0;
	for (int round = 0; round < 200; round++) {
		cs_arch arch = (cs_arch)below(&g, CS_ARCH_COUNT);
		rig *r = rig_new(arch, below(&g, 2) ? CS_TRACE_ALL : CS_TRACE_CHAIN);
		if (below(&g, 3) == 0)
			r->eng.stop_method = 0x100 + below(&g, 0x40) * 4;
		uint32_t nch = 1 + below(&g, 3);
		for (uint32_t c = 0; c < nch; c++)
			rig_channel(r, 8u << below(&g, 3));
		/* a pushbuffer region of plausible chunks with some garbage, and a
		 * semaphore page that acquires and releases hit */
		enum { PB_DW = 16384 };
		uint64_t sems = rig_alloc(r, CS_PAGE_SIZE);
		uint32_t *pb = malloc(PB_DW * 4);
		uint32_t *starts = malloc(PB_DW * 4);
		size_t n = 0, nstarts = 0;
		/* a prologue that binds every subchannel */
		for (uint32_t sub = 0; sub < 8; sub++) {
			pb[n++] = cs_pb_inc(sub, 0, 1);
			pb[n++] = sub < 4 ? cs_arch_get(arch)->compute_class : cs_arch_get(arch)->copy_class;
		}
		while (n + 8 < PB_DW) {
			starts[nstarts++] = (uint32_t)n;
			n += fuzz_chunk(&g, pb + n, sems, arch);
		}
		while (n < PB_DW)
			pb[n++] = 0;
		uint64_t base = rig_pb(r, pb, PB_DW);
		for (uint32_t c = 0; c < nch; c++)
			rig_push(r, c, base, 16);
		for (int step = 0; step < 6; step++) {
			for (uint32_t c = 0; c < nch; c++) {
				uint32_t n = below(&g, 6);
				for (uint32_t k = 0; k < n; k++) {
					if (below(&g, 40) == 0) {
						rig_push_raw(r, c, (uint32_t)next(&g), (uint32_t)next(&g));
						continue;
					}
					/* mostly whole chunks, sometimes cut anywhere */
					uint32_t si = below(&g, (uint32_t)nstarts - 1);
					uint32_t sj = si + 1 + below(&g, 40);
					if (sj >= nstarts)
						sj = (uint32_t)nstarts - 1;
					uint32_t off = starts[si], len = starts[sj] - starts[si];
					if (below(&g, 12) == 0) {
						off = below(&g, PB_DW);
						len = below(&g, 600);
					}
					if (below(&g, 40) == 0)
						len += PB_DW; /* runs off the end: a fetch fault */
					rig_push(r, c, base + 4ull * off, len);
				}
				if (below(&g, 30) == 0)
					test_bus_write32(&r->tb, r->userd[c] + CS_USERD_GP_PUT, (uint32_t)next(&g));
				else
					test_bus_write32(&r->tb, r->userd[c] + CS_USERD_GP_PUT, r->put[c]);
				cs_fe_doorbell(r->fe, c);
			}
			for (uint32_t k = below(&g, 40); k > 0; k--) {
				cs_fe_step_result sr = cs_fe_step(r->fe, below(&g, nch + 1));
				cr_assert(sr <= CS_FE_STEP_STOPPED);
			}
			cs_fe_run_result rr = cs_fe_run(r->fe, 1 + below(&g, 64));
			cr_assert_eq(rr.idle + rr.ready + rr.blocked + rr.stopped, nch);
			/* the guest scribbles over its memory between runs */
			for (int k = 0; k < 2; k++)
				test_bus_write32(&r->tb, base + 4ull * below(&g, PB_DW), biased_dword(&g));
			for (int k = 0; k < 4; k++)
				test_bus_write32(&r->tb, sems + 8ull * below(&g, 8), below(&g, 4));
		}
		cs_fe_report_deadlocks(r->fe);
		cs_fe_counters t = cs_fe_counters_total(r->fe);
		cr_assert(t.host_methods + t.engine_methods <= t.methods);
		cr_assert(t.control_entries <= t.entries);
		methods += t.methods;
		releases += t.releases;
		blocks += t.blocks;
		binds += rig_count(r, CS_EV_BIND);
		stops += rig_count(r, CS_EV_CHANNEL_STOP);
		for (uint32_t c = 0; c < nch; c++) {
			cs_fe_channel_info info;
			cr_assert(cs_fe_channel_info_get(r->fe, c, &info));
			cr_assert(info.gp_get < info.ring_entries);
			if (info.state == CS_FE_CHAN_STOPPED)
				cr_assert(info.stop.msg[0] != '\0');
		}
		/* every record the fe emitted names a known kind and its channel */
		for (size_t i = 0; i < r->tb.trace.n; i++) {
			cr_assert(r->tb.trace.recs[i].ev.kind > 0 && r->tb.trace.recs[i].ev.kind < CS_EV_KIND_COUNT);
			cr_assert(r->tb.trace.recs[i].ev.channel < nch);
			cr_assert_eq(r->tb.trace.recs[i].ev.unit, CS_UNIT_FE);
		}
		free(pb);
		free(starts);
		rig_free(r);
	}
	/* the fuzz must reach execution, not only the header checks */
	cr_log_info("fuzz: %llu methods, %llu releases, %llu binds, %llu blocks, %llu stops",
		    (unsigned long long)methods, (unsigned long long)releases,
		    (unsigned long long)binds, (unsigned long long)blocks, (unsigned long long)stops);
	cr_assert(methods > 10000, "%llu methods", (unsigned long long)methods);
	cr_assert(releases > 50 && binds > 1000 && blocks > 50 && stops > 100);
}
