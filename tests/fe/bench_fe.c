/* SPDX-License-Identifier: MIT */
/* Benchmark: decode and execute a generated 64 MiB pushbuffer of mixed
 * methods, against a plain memcpy of the same bytes in the same process.
 * One line per figure:
 *   BENCH name=fe.<what> value=<n> unit=<u> baseline=memcpy ratio=<r>
 * ratio = this figure's bytes-per-second over memcpy's (the inverse of the
 * time ratio), so the decode target (>= 25% of memcpy) reads as ratio >= 0.25.
 * Optional argument: the size in MiB (default 64). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/fe.h"
#include "chainsim/mem.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct gen {
	uint32_t *dw;
	size_t n, cap;
	uint64_t methods;
} gen;

static void put(gen *g, uint32_t v)
{
	if (g->n < g->cap)
		g->dw[g->n++] = v;
}

static void sem(gen *g, uint64_t addr, uint32_t payload, uint32_t exec)
{
	put(g, cs_pb_inc(0, CS_FE_M_SEM_ADDR_LO, 5));
	put(g, (uint32_t)addr);
	put(g, (uint32_t)(addr >> 32));
	put(g, payload);
	put(g, 0);
	put(g, exec);
	g->methods += 5;
}

/* Mixed: host NOP, SET_REFERENCE, releases, satisfied acquires, and engine
 * methods (INC, NONINC, IMMD) on a compute object bound on subchannel 1. */
static void generate(gen *g, uint64_t sem_va, bool host_only)
{
	uint32_t v = 0;
	put(g, cs_pb_inc(1, CS_FE_M_SET_OBJECT, 1));
	put(g, 0xCBC0);
	g->methods++;
	while (g->n + 80 < g->cap) {
		put(g, cs_pb_inc(0, CS_FE_M_NOP, 1));
		put(g, v);
		put(g, cs_pb_immd(0, CS_FE_M_SET_REFERENCE, v & 0x1fff));
		g->methods += 2;
		v++;
		sem(g, sem_va, v, cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, false, 0, false));
		sem(g, sem_va, v, cs_fe_sem_execute(CS_FE_SEM_ACQ_STRICT_GEQ, false, false, false, 0, false));
		if (host_only) {
			for (int i = 0; i < 8; i++) {
				put(g, cs_pb_immd(0, CS_FE_M_NOP, (uint32_t)i));
				g->methods++;
			}
			continue;
		}
		put(g, cs_pb_inc(1, 0x200, 16));
		for (uint32_t i = 0; i < 16; i++)
			put(g, v + i);
		put(g, cs_pb_noninc(1, 0x1b4, 32));
		for (uint32_t i = 0; i < 32; i++)
			put(g, v ^ i);
		put(g, cs_pb_immd(1, 0x300, v & 0x1fff));
		g->methods += 49;
	}
	while (g->n < g->cap) {
		put(g, cs_pb_immd(0, CS_FE_M_NOP, 0));
		g->methods++;
	}
}

/* ---- a null engine and an in-memory ring sink ---------------------------- */

static cs_engine_result null_bind(void *ctx, uint32_t ch, uint32_t sub, uint32_t cls, cs_diag *why)
{
	(void)ctx, (void)ch, (void)sub, (void)cls, (void)why;
	return CS_ENGINE_OK;
}

static cs_engine_result null_method(void *ctx, const cs_method_call *call, cs_diag *why)
{
	(void)why;
	*(uint64_t *)ctx += call->data;
	return CS_ENGINE_OK;
}

enum { SINK_SLOTS = 1 << 16, SINK_DETAIL = 96 };

typedef struct ring_sink {
	cs_event *ev;
	char (*detail)[SINK_DETAIL];
	uint64_t n;
	uint64_t *now;
} ring_sink;

static void sink_emit(void *ctx, const cs_event *ev)
{
	ring_sink *s = ctx;
	size_t i = s->n++ & (SINK_SLOTS - 1);
	s->ev[i] = *ev;
	s->ev[i].seq = s->n;
	s->ev[i].time_ns = *s->now;
	if (ev->detail) {
		size_t len = strnlen(ev->detail, SINK_DETAIL - 1);
		memcpy(s->detail[i], ev->detail, len);
		s->detail[i][len] = '\0';
		s->ev[i].detail = s->detail[i];
	}
}

typedef struct exec_result {
	double seconds;
	uint64_t methods, dwords, records;
	bool ok;
} exec_result;

static exec_result execute(const uint32_t *dw, size_t ndw, int level /* -1: no sink */)
{
	exec_result res = { 0 };
	cs_mem *mem = cs_mem_new(57);
	cs_diag d;
	uint64_t pb_va, ring_va, userd_va, sem_va = 0x100000000ull;
	if (!cs_mem_map(mem, "sem", sem_va, CS_PAGE_SIZE, &d) ||
	    !cs_mem_alloc(mem, "pb", 4ull * ndw, CS_PAGE_SIZE, &pb_va, &d) ||
	    !cs_mem_alloc(mem, "ring", 64 * 8, CS_PAGE_SIZE, &ring_va, &d) ||
	    !cs_mem_alloc(mem, "userd", CS_USERD_SIZE, CS_PAGE_SIZE, &userd_va, &d)) {
		fprintf(stderr, "bench: %s\n", d.msg);
		cs_mem_free(mem);
		return res;
	}
	uint64_t fva;
	cs_mem_write(mem, pb_va, dw, 4ull * ndw, &fva);
	/* entries of at most CS_GP_MAX_LENGTH dwords: methods cross entry boundaries */
	uint32_t nent = 0;
	for (size_t pos = 0; pos < ndw; nent++) {
		size_t len = ndw - pos > CS_GP_MAX_LENGTH ? CS_GP_MAX_LENGTH : ndw - pos;
		cs_gp_entry e = { .addr = pb_va + 4 * pos, .length = (uint32_t)len };
		uint32_t w[2];
		cs_gp_encode(&e, &w[0], &w[1]);
		cs_mem_write(mem, ring_va + 8ull * nent, w, 8, &fva);
		pos += len;
	}
	cs_mem_write(mem, userd_va + CS_USERD_GP_PUT, &nent, 4, &fva);

	uint64_t now = 0, sum = 0;
	ring_sink sink = { calloc(SINK_SLOTS, sizeof(cs_event)), calloc(SINK_SLOTS, SINK_DETAIL), 0, &now };
	cs_bus bus = { .mem = cs_mem_port_of(mem), .now_ns = &now };
	if (level >= 0) {
		bus.trace.ctx = &sink;
		bus.trace.emit = sink_emit;
		bus.trace.level = (cs_trace_level)level;
	}
	cs_engine_port eng = { .ctx = &sum, .bind = null_bind, .method = null_method };
	cs_fe *fe = cs_fe_new(CS_ARCH_HOPPER, &bus, &eng);
	uint32_t ch;
	if (!fe || !cs_fe_channel_new(fe, ring_va, 64, userd_va, &ch, &d) || !cs_fe_doorbell(fe, ch)) {
		fprintf(stderr, "bench: front end setup failed\n");
	} else {
		double t0 = now_s();
		cs_fe_run_result rr = cs_fe_run(fe, 0);
		res.seconds = now_s() - t0;
		cs_fe_counters c = cs_fe_counters_total(fe);
		res.methods = c.methods;
		res.dwords = c.dwords;
		res.records = sink.n;
		res.ok = rr.idle == 1 && c.dwords == ndw;
		if (!res.ok) {
			const cs_diag *sd = cs_fe_channel_stop_diag(fe, ch);
			fprintf(stderr, "bench: run did not complete: %s\n", sd ? sd->msg : "(not stopped)");
		}
	}
	cs_fe_free(fe);
	free(sink.ev);
	free(sink.detail);
	cs_mem_free(mem);
	return res;
}

static void line(const char *name, double value, const char *unit, double ratio)
{
	printf("BENCH name=fe.%s value=%.0f unit=%s baseline=memcpy ratio=%.3f\n", name, value, unit, ratio);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	if (mib == 0 || mib > 1024)
		mib = 64;
	size_t bytes = mib << 20, ndw = bytes / 4;
	gen g = { malloc(bytes), 0, ndw, 0 };
	gen gh = { malloc(bytes), 0, ndw, 0 };
	uint32_t *dst = malloc(bytes);
	if (!g.dw || !gh.dw || !dst) {
		fprintf(stderr, "bench: out of memory\n");
		return 1;
	}
	generate(&g, 0x100000000ull, false);
	generate(&gh, 0x100000000ull, true);

	/* memcpy and decode-only, interleaved so that load on the machine hits
	 * both alike: best of 7 each */
	double t_copy = 1e9, t_dec = 1e9;
	uint64_t dec_methods = 0, check = 0;
	cs_pb_item *items = malloc(512 * sizeof(*items));
	for (int rep = 0; rep < 7; rep++) {
		double t0 = now_s();
		memcpy(dst, g.dw, bytes);
		double t = now_s() - t0;
		if (t < t_copy)
			t_copy = t;
		check += dst[(size_t)rep * 4099 % ndw];

		cs_pb_decoder dec;
		cs_pb_decoder_init(&dec, false);
		uint64_t m = 0;
		t0 = now_s();
		for (size_t pos = 0; pos < ndw;) {
			size_t used;
			size_t k = cs_pb_decode(&dec, g.dw + pos, ndw - pos, items, 512, &used, NULL);
			for (size_t q = 0; q < k; q++)
				check += items[q].data;
			m += k;
			pos += used;
			if (dec.failed)
				break;
		}
		t = now_s() - t0;
		if (t < t_dec)
			t_dec = t;
		dec_methods = m;
	}
	free(items);
	double copy_rate = (double)ndw / t_copy;
	line("memcpy", copy_rate, "dwords/s", 1.0);
	if (dec_methods != g.methods)
		fprintf(stderr, "bench: decoded %llu methods, generated %llu\n",
			(unsigned long long)dec_methods, (unsigned long long)g.methods);
	line("decode", (double)ndw / t_dec, "dwords/s", t_copy / t_dec);
	line("decode_methods", (double)dec_methods / t_dec, "methods/s", t_copy / t_dec);

	struct {
		const char *name;
		int level;
		gen *src;
	} runs[] = {
		{ "exec_chain", CS_TRACE_CHAIN, &g },
		{ "exec_all", CS_TRACE_ALL, &g },
		{ "exec_host_chain", CS_TRACE_CHAIN, &gh },
		{ "exec_host_notrace", -1, &gh },
	};
	int rc = 0;
	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		/* best of 3, each on a fresh front end and memory */
		exec_result r = { 0 };
		for (int rep = 0; rep < 3; rep++) {
			exec_result x = execute(runs[i].src->dw, ndw, runs[i].level);
			if (rep == 0 || !x.ok || x.seconds < r.seconds)
				r = x;
			if (!x.ok)
				break;
		}
		if (!r.ok || r.methods != runs[i].src->methods) {
			fprintf(stderr, "bench: %s executed %llu methods of %llu\n", runs[i].name,
				(unsigned long long)r.methods, (unsigned long long)runs[i].src->methods);
			rc = 1;
			continue;
		}
		char name[64];
		line(runs[i].name, (double)ndw / r.seconds, "dwords/s", t_copy / r.seconds);
		snprintf(name, sizeof(name), "%s_methods", runs[i].name);
		line(name, (double)r.methods / r.seconds, "methods/s", t_copy / r.seconds);
		fprintf(stderr, "%s: %.3f s, %llu methods, %llu records\n", runs[i].name, r.seconds,
			(unsigned long long)r.methods, (unsigned long long)r.records);
	}
	fprintf(stderr, "checksum %llu\n", (unsigned long long)check);
	free(g.dw);
	free(gh.dw);
	free(dst);
	return rc;
}
