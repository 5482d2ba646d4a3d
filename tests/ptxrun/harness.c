/* SPDX-License-Identifier: MIT */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void h_init(h_env *e)
{
	memset(e, 0, sizeof(*e));
	test_bus_init(&e->tb, 49, CS_TRACE_CHAIN);
}

void h_fini(h_env *e)
{
	test_bus_fini(&e->tb);
}

uint64_t h_alloc(h_env *e, uint64_t size)
{
	uint64_t va = 0;
	cs_diag d;
	cr_assert(cs_mem_alloc(e->tb.mem, "", size, 4096, &va, &d), "%s", d.msg);
	return va;
}

void h_write(h_env *e, uint64_t va, const void *src, size_t len)
{
	uint64_t f;
	cr_assert(cs_mem_write(e->tb.mem, va, src, len, &f));
}

void h_read(h_env *e, uint64_t va, void *dst, size_t len)
{
	uint64_t f;
	cr_assert(cs_mem_read(e->tb.mem, va, dst, len, &f));
}

cs_ptx_program *h_parse(const char *text, cs_diag *d)
{
	cs_ptx_program *p = cs_ptx_parse(text, strlen(text), "test.ptx", d);
	if (!p) {
		char buf[1024];
		cs_diag_format(d, buf, sizeof(buf));
		fprintf(stderr, "parse: %s\n", buf);
	}
	return p;
}


cs_ptx_program *h_load_fixture(const char *kernel, const char *arch)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "fixtures/kernels/out/%s.%s.ptx", kernel, arch);
	size_t len;
	char *text = test_read_source(rel, &len);
	cr_assert(text, "cannot read %s", rel);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(text, len, rel, &d);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert(p, "%s", buf);
	free(text);
	return p;
}

uint64_t h_put(h_env *e, const void *src, size_t bytes)
{
	uint64_t va = h_alloc(e, bytes);
	h_write(e, va, src, bytes);
	return va;
}

float h_frand(uint32_t *state)
{
	*state = *state * 1664525u + 1013904223u;
	return (float)((*state >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* Every mapped byte of e's memory, region by region. */
static uint8_t *snapshot(h_env *e, size_t *len)
{
	cs_mem *mem = e->tb.mem;
	size_t n = 0;
	for (size_t i = 0; i < cs_mem_region_count(mem); i++)
		n += cs_mem_region(mem, i)->size;
	uint8_t *b = malloc(n ? n : 1), *q = b;
	cr_assert(b);
	for (size_t i = 0; i < cs_mem_region_count(mem); i++) {
		const cs_region *r = cs_mem_region(mem, i);
		h_read(e, r->va, q, r->size);
		q += r->size;
	}
	*len = n;
	return b;
}

static void restore(h_env *e, const uint8_t *b)
{
	for (size_t i = 0; i < cs_mem_region_count(e->tb.mem); i++) {
		const cs_region *r = cs_mem_region(e->tb.mem, i);
		h_write(e, r->va, b, r->size);
		b += r->size;
	}
}

/* Forgets the records from index `from` on. */
static void forget_records(test_trace *t, size_t from)
{
	for (size_t i = from; i < t->n; i++)
		free(t->recs[i].detail);
	t->n = from;
}

static bool same_record(const test_record *a, const test_record *b)
{
	return a->ev.kind == b->ev.kind && a->ev.addr == b->ev.addr &&
	       a->ev.value == b->ev.value && a->ev.aux == b->ev.aux &&
	       !strcmp(a->detail ? a->detail : "", b->detail ? b->detail : "");
}

/* The launch on 4, 2 and then 1 host threads from the same memory: results,
 * counts, outcome and trace records must be equal byte for byte, unless the
 * run on 1 says the order of its atomics matters (then each must say so).
 * What stays is the run on one thread. */
static cs_grid_result run_threads_alike(h_env *e, const cs_ptx_program *p, size_t entry,
					cs_ptx_launch *l, const char *name)
{
	static const unsigned counts[] = { 4, 2, 1 };
	test_trace *t = &e->tb.trace;
	size_t len, first = t->n;
	uint8_t *before = snapshot(e, &len), *after[3];
	cs_grid_result out[3];
	test_record *recs[2] = { NULL, NULL };
	size_t nrec[3];
	for (unsigned k = 0; k < 3; k++) {
		if (k)
			restore(e, before);
		l->threads = counts[k];
		cs_ptx_run(p, entry, l, &e->tb.bus, &out[k]);
		size_t n;
		after[k] = snapshot(e, &n);
		nrec[k] = t->n - first;
		if (k < 2) { /* keep a copy, then forget them */
			recs[k] = calloc(nrec[k] + 1, sizeof(test_record));
			cr_assert(recs[k]);
			for (size_t i = 0; i < nrec[k]; i++) {
				recs[k][i] = t->recs[first + i];
				recs[k][i].detail = t->recs[first + i].detail
							    ? strdup(t->recs[first + i].detail) : NULL;
			}
			forget_records(t, first);
		}
	}
	bool noted = false;
	for (size_t i = first; i < t->n; i++)
		noted |= t->recs[i].ev.kind == CS_EV_ATOMIC_ORDER;
	for (unsigned k = 0; k < 2; k++) {
		cr_assert_eq(out[k].outcome, out[2].outcome, "%s on %u threads: outcome %d, on 1: %d (%s)",
			     name, counts[k], out[k].outcome, out[2].outcome, out[k].diag.msg);
		if (noted) {
			bool also = false;
			for (size_t i = 0; i < nrec[k]; i++)
				also |= recs[k][i].ev.kind == CS_EV_ATOMIC_ORDER;
			cr_assert(also, "%s: the atomic-order note on 1 thread, not on %u", name, counts[k]);
			continue;
		}
		cr_assert_eq(out[k].ctas_executed, out[2].ctas_executed, "%s on %u threads: CTAs", name,
			     counts[k]);
		cr_assert_eq(out[k].thread_instructions, out[2].thread_instructions,
			     "%s on %u threads: thread-instructions", name, counts[k]);
		cr_assert_str_eq(out[k].diag.msg, out[2].diag.msg, "%s on %u threads", name, counts[k]);
		cr_assert_eq(out[k].fault_va, out[2].fault_va);
		/* a grid that stopped (fault, error, budget) is compared up to its record:
		 * CTAs after the one that stopped it may have run on other threads, as
		 * they do on a GPU, and their stores stay (docs/architecture.md) */
		if (out[2].outcome == CS_GRID_EXECUTED)
			cr_assert(memcmp(after[k], after[2], len) == 0,
				  "%s on %u threads left other bytes in memory than on 1", name,
				  counts[k]);
		cr_assert_eq(nrec[k], nrec[2], "%s on %u threads: %zu trace records, on 1: %zu", name,
			     counts[k], nrec[k], nrec[2]);
		for (size_t i = 0; i < nrec[k]; i++)
			cr_assert(same_record(&recs[k][i], &t->recs[first + i]),
				  "%s on %u threads: trace record %zu differs: %s / %s", name, counts[k], i,
				  recs[k][i].detail ? recs[k][i].detail : "",
				  t->recs[first + i].detail ? t->recs[first + i].detail : "");
	}
	for (unsigned k = 0; k < 2; k++) {
		for (size_t i = 0; i < nrec[k]; i++)
			free(recs[k][i].detail);
		free(recs[k]);
	}
	free(before);
	for (unsigned k = 0; k < 3; k++)
		free(after[k]);
	return out[2];
}

cs_grid_result h_run(h_env *e, const cs_ptx_program *p, const char *name, const uint32_t grid[3],
		     const uint32_t block[3], uint32_t dyn_shared, const uint64_t *args, size_t nargs)
{
	size_t entry;
	cr_assert(cs_ptx_entry_find(p, name, &entry), "no entry %s", name);
	uint8_t params[4096] = { 0 };
	cr_assert_eq(cs_ptx_param_count(p, entry), nargs, "entry %s takes %zu params", name,
		     cs_ptx_param_count(p, entry));
	for (size_t i = 0; i < nargs; i++) {
		cs_ptx_param pi;
		cr_assert(cs_ptx_param_info(p, entry, i, &pi));
		cr_assert(pi.offset + pi.size <= sizeof(params));
		memcpy(params + pi.offset, &args[i], pi.size < 8 ? pi.size : 8);
	}
	cs_ptx_launch l;
	memset(&l, 0, sizeof(l));
	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	l.dynamic_shared_bytes = dyn_shared;
	l.params = params;
	l.param_bytes = cs_ptx_param_bytes(p, entry);
	l.channel = 1;
	l.launch = 7;
	l.approx = e->approx;
	l.races = e->races;
	l.races_global = e->races_global;
	l.schedule = e->schedule;
	l.schedule_seed = e->schedule_seed;
	l.cooperative = e->cooperative;
	l.grid_workspace = e->grid_workspace;
	/* the suite's time limit bounds it: a loaded or sanitizer build must not
	 * turn a slow launch into a budget stop */
	l.max_wall_ns = 600ull * 1000 * 1000 * 1000;
	cs_grid_result out;
	if (e->threads) {
		l.threads = e->threads;
		cs_ptx_run(p, entry, &l, &e->tb.bus, &out);
		return out;
	}
	return run_threads_alike(e, p, entry, &l, name);
}

void h_expect_f32(h_env *e, uint64_t va, const float *want, size_t n, const char *what)
{
	float *got = calloc(n ? n : 1, sizeof(float));
	cr_assert(got);
	h_read(e, va, got, n * sizeof(float));
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(got[i], want[i], "%s [%zu]: %g, want %g", what, i, (double)got[i],
			     (double)want[i]);
	free(got);
}

char *h_kernel(const char *decls, const char *body)
{
	const char *head = ".version 9.0\n.target sm_90\n.address_size 64\n%s\n"
			   ".visible .entry k(\n\t.param .u64 k_out,\n\t.param .u64 k_in,\n"
			   "\t.param .u32 k_n\n)\n{\n"
			   "\t.reg .pred %%p<16>;\n\t.reg .b16 %%rs<16>;\n\t.reg .b32 %%r<64>;\n"
			   "\t.reg .f32 %%f<64>;\n\t.reg .b64 %%rd<64>;\n\t.reg .f64 %%fd<16>;\n"
			   "\tld.param.u64 %%rd1, [k_out];\n\tld.param.u64 %%rd2, [k_in];\n"
			   "\tld.param.u32 %%r1, [k_n];\n\tmov.u32 %%r2, %%tid.x;\n"
			   "\tmul.wide.u32 %%rd3, %%r2, 4;\n\tadd.s64 %%rd4, %%rd1, %%rd3;\n"
			   "\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
			   "%s\n\tret;\n}\n";
	size_t n = strlen(head) + strlen(decls) + strlen(body) + 16;
	char *s = malloc(n);
	snprintf(s, n, head, decls, body);
	return s;
}

cs_ptx_program *h_parse_kernel(const char *decls, const char *body)
{
	char *src = h_kernel(decls, body);
	cs_diag d;
	cs_ptx_program *p = h_parse(src, &d);
	cr_assert(p, "parse failed: %s\n%s", d.msg, src);
	free(src);
	return p;
}

cs_grid_result h_run_body(const char *decls, const char *body, uint32_t threads, const void *in,
			  size_t in_bytes, void *out, size_t out_bytes)
{
	char *src = h_kernel(decls, body);
	cs_diag d;
	cs_ptx_program *p = cs_ptx_parse(src, strlen(src), "body.ptx", &d);
	char buf[1024];
	cs_diag_format(&d, buf, sizeof(buf));
	cr_assert(p, "parse failed: %s\n%s", buf, src);
	free(src);
	h_env e;
	h_init(&e);
	uint64_t vin = h_alloc(&e, in_bytes ? in_bytes : 1), vout = h_alloc(&e, out_bytes ? out_bytes : 1);
	if (in_bytes)
		h_write(&e, vin, in, in_bytes);
	uint64_t args[] = { vout, vin, threads };
	cs_grid_result r = h_run(&e, p, "k", (uint32_t[]){ 1, 1, 1 }, (uint32_t[]){ threads, 1, 1 }, 0,
				 args, 3);
	if (out_bytes)
		h_read(&e, vout, out, out_bytes);
	h_fini(&e);
	cs_ptx_program_free(p);
	return r;
}

void h_pairs32(const char *ops, const uint32_t *a, const uint32_t *b, uint32_t *out, size_t n)
{
	char body[4096];
	snprintf(body, sizeof(body),
		 "\tmul.wide.u32 %%rd6, %%r2, 8;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.v2.u32 {%%r3, %%r4}, [%%rd7];\n%s\n"
		 "\tst.global.u32 [%%rd4], %%r5;\n", ops);
	uint32_t in[256][2];
	cr_assert(n <= 256);
	for (size_t i = 0; i < n; i++) {
		in[i][0] = a[i];
		in[i][1] = b[i];
	}
	cs_grid_result r = h_run_body("", body, (uint32_t)n, in, n * 8, out, n * 4);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", ops, r.diag.msg);
}

void h_pairs64(const char *ops, const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
	char body[4096];
	snprintf(body, sizeof(body),
		 "\tmul.wide.u32 %%rd6, %%r2, 16;\n\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
		 "\tld.global.v2.u64 {%%rd8, %%rd9}, [%%rd7];\n%s\n"
		 "\tmul.wide.u32 %%rd11, %%r2, 8;\n\tadd.s64 %%rd12, %%rd1, %%rd11;\n"
		 "\tst.global.u64 [%%rd12], %%rd10;\n", ops);
	uint64_t in[256][2];
	cr_assert(n <= 256);
	for (size_t i = 0; i < n; i++) {
		in[i][0] = a[i];
		in[i][1] = b[i];
	}
	cs_grid_result r = h_run_body("", body, (uint32_t)n, in, n * 16, out, n * 8);
	cr_assert_eq(r.outcome, CS_GRID_EXECUTED, "%s: %s", ops, r.diag.msg);
}

float h_f(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint32_t h_b(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

double h_d(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, 8);
	return d;
}

uint64_t h_bd(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

__extension__ typedef _Float16 host_f16;

uint16_t h_f16_bits(float x)
{
	host_f16 h = (host_f16)x;
	uint16_t b;
	memcpy(&b, &h, 2);
	return b;
}

float h_f16_round(float x) { return (float)(host_f16)x; }

float h_f16_value(uint16_t bits)
{
	host_f16 h;
	memcpy(&h, &bits, 2);
	return (float)h;
}

uint16_t h_bf16_bits(float x)
{
	uint32_t u;
	memcpy(&u, &x, 4);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

float h_bf16_value(uint16_t bits)
{
	uint32_t u = (uint32_t)bits << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

float h_bf16_round(float x) { return h_bf16_value(h_bf16_bits(x)); }
