#include "harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void record(void *ctx, const cs_event *ev)
{
	h_env *e = ctx;
	if (e->nevents >= H_MAX_EVENTS)
		return;
	e->events[e->nevents] = *ev;
	snprintf(e->details[e->nevents], sizeof(e->details[0]), "%s", ev->detail ? ev->detail : "");
	e->events[e->nevents].detail = e->details[e->nevents];
	e->nevents++;
}

void h_init(h_env *e)
{
	memset(e, 0, sizeof(*e));
	e->mem = cs_mem_new(49);
	cr_assert(e->mem);
	e->bus.mem = cs_mem_port_of(e->mem);
	e->bus.trace.ctx = e;
	e->bus.trace.emit = record;
	e->bus.trace.level = CS_TRACE_CHAIN;
	e->bus.now_ns = &e->now;
}

void h_fini(h_env *e)
{
	cs_mem_free(e->mem);
}

uint64_t h_alloc(h_env *e, uint64_t size)
{
	uint64_t va = 0;
	cs_diag d;
	cr_assert(cs_mem_alloc(e->mem, "", size, 4096, &va, &d), "%s", d.msg);
	return va;
}

void h_write(h_env *e, uint64_t va, const void *src, size_t len)
{
	uint64_t f;
	cr_assert(cs_mem_write(e->mem, va, src, len, &f));
}

void h_read(h_env *e, uint64_t va, void *dst, size_t len)
{
	uint64_t f;
	cr_assert(cs_mem_read(e->mem, va, dst, len, &f));
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

char *h_read_source(const char *relpath, size_t *len)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", root ? root : ".", relpath);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		if (len)
			*len = (size_t)n;
	}
	return buf;
}

/* Every mapped byte of e's memory, region by region (NULL: out of memory). */
static uint8_t *snapshot(h_env *e, size_t *len)
{
	size_t n = 0;
	for (size_t i = 0; i < cs_mem_region_count(e->mem); i++)
		n += cs_mem_region(e->mem, i)->size;
	uint8_t *b = malloc(n ? n : 1), *q = b;
	for (size_t i = 0; b && i < cs_mem_region_count(e->mem); i++) {
		const cs_region *r = cs_mem_region(e->mem, i);
		h_read(e, r->va, q, r->size);
		q += r->size;
	}
	*len = n;
	return b;
}

static void restore(h_env *e, const uint8_t *b)
{
	for (size_t i = 0; i < cs_mem_region_count(e->mem); i++) {
		const cs_region *r = cs_mem_region(e->mem, i);
		h_write(e, r->va, b, r->size);
		b += r->size;
	}
}

static bool noted_atomic_order(const h_env *e, size_t from)
{
	for (size_t i = from; i < e->nevents; i++)
		if (e->events[i].kind == CS_EV_ATOMIC_ORDER)
			return true;
	return false;
}

/* The launch on 4, 2 and then 1 host threads from the same memory: results,
 * counts, outcome and trace records must be equal byte for byte, unless the
 * run says the order of its atomics matters (then each must say so). What
 * stays is the run on one thread. */
static cs_grid_result run_threads_alike(h_env *e, const cs_ptx_program *p, size_t entry,
					cs_ptx_launch *l, const char *name)
{
	static const unsigned counts[] = { 4, 2, 1 };
	size_t len, first = e->nevents;
	uint8_t *before = snapshot(e, &len), *after[3] = { NULL };
	cr_assert(before);
	cs_grid_result out[3];
	size_t nev[3];
	cs_event ev[3][H_MAX_EVENTS];
	char det[3][H_MAX_EVENTS][256];
	for (unsigned k = 0; k < 3; k++) {
		if (k)
			restore(e, before);
		e->nevents = first;
		l->threads = counts[k];
		cs_ptx_run(p, entry, l, &e->bus, &out[k]);
		size_t n;
		after[k] = snapshot(e, &n);
		cr_assert(after[k]);
		nev[k] = e->nevents;
		memcpy(ev[k], e->events, sizeof(ev[k]));
		memcpy(det[k], e->details, sizeof(det[k]));
	}
	bool noted = noted_atomic_order(e, first);
	for (unsigned k = 0; k < 2; k++) {
		cr_assert_eq(out[k].outcome, out[2].outcome, "%s on %u threads: outcome %d, on 1: %d (%s)",
			     name, counts[k], out[k].outcome, out[2].outcome, out[k].diag.msg);
		if (noted) {
			bool also = false;
			for (size_t i = first; i < nev[k]; i++)
				also |= ev[k][i].kind == CS_EV_ATOMIC_ORDER;
			cr_assert(also, "%s: the atomic-order note on 1 thread, not on %u", name, counts[k]);
			continue;
		}
		cr_assert_eq(out[k].ctas_executed, out[2].ctas_executed, "%s on %u threads: CTAs", name,
			     counts[k]);
		cr_assert_eq(out[k].thread_instructions, out[2].thread_instructions,
			     "%s on %u threads: thread-instructions", name, counts[k]);
		cr_assert_str_eq(out[k].diag.msg, out[2].diag.msg, "%s on %u threads", name, counts[k]);
		cr_assert_eq(out[k].fault_va, out[2].fault_va);
		cr_assert(memcmp(after[k], after[2], len) == 0,
			  "%s on %u threads left other bytes in memory than on 1", name, counts[k]);
		cr_assert_eq(nev[k], nev[2], "%s on %u threads: %zu trace records, on 1: %zu", name,
			     counts[k], nev[k], nev[2]);
		for (size_t i = first; i < nev[k]; i++) {
			const cs_event *a = &ev[k][i], *b = &ev[2][i];
			cr_assert(a->kind == b->kind && a->addr == b->addr && a->value == b->value &&
				  a->aux == b->aux && !strcmp(det[k][i], det[2][i]),
				  "%s on %u threads: trace record %zu differs: %s / %s", name, counts[k], i,
				  det[k][i], det[2][i]);
		}
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
	cs_grid_result out;
	if (e->threads) {
		l.threads = e->threads;
		cs_ptx_run(p, entry, &l, &e->bus, &out);
		return out;
	}
	return run_threads_alike(e, p, entry, &l, name);
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
