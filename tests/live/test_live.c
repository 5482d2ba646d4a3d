/* SPDX-License-Identifier: MIT */
/* The live API against a hostile client: client memory between guard pages
 * (an access outside a mapping would crash, and ASan watches the rest), rings
 * and USERDs that are wrong in every way the header names, unmaps under a
 * channel, a second thread; and a cubin's kernel launched from the client's
 * own upload. */
#include <criterion/criterion.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chainsim/gr.h"
#include "chainsim/live.h"
#include "chainsim/ptxrun.h"
#include "source.h"

#define PAGE 4096u
#define ARENA_VA 0x10000000ull
#define ARENA_BYTES (64u * PAGE)

/* Client memory with an inaccessible page on either side. */
typedef struct guarded {
	uint8_t *base; /* the first guard page */
	uint8_t *bytes;
	size_t len;
} guarded;

static guarded guarded_new(size_t len)
{
	guarded g = { .len = len };
	g.base = mmap(NULL, len + 2 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(g.base, MAP_FAILED);
	g.bytes = g.base + PAGE;
	cr_assert_eq(mprotect(g.bytes, len, PROT_READ | PROT_WRITE), 0);
	return g;
}

static void guarded_free(guarded *g)
{
	munmap(g->base, g->len + 2 * PAGE);
}

typedef struct client {
	cs_live *lv;
	guarded mem;
	uint64_t ring, userd, next;
	uint32_t entries, put, ch;
} client;

static uint8_t *at(client *c, uint64_t va)
{
	cr_assert(va >= ARENA_VA && va < ARENA_VA + c->mem.len);
	return c->mem.bytes + (va - ARENA_VA);
}

static uint64_t take(client *c, size_t n)
{
	uint64_t va = ARENA_VA + c->next;
	c->next = (c->next + n + 255) & ~(uint64_t)255;
	cr_assert(c->next <= c->mem.len);
	return va;
}

static void client_new(client *c, cs_arch arch)
{
	memset(c, 0, sizeof(*c));
	cs_diag d;
	cs_live_config cfg = { .arch = arch, .trace_window = 4096 };
	c->lv = cs_live_new(&cfg, &d);
	cr_assert_not_null(c->lv, "%s", d.msg);
	c->mem = guarded_new(ARENA_BYTES);
	cr_assert(cs_live_map(c->lv, c->mem.bytes, ARENA_BYTES, ARENA_VA, "arena", &d), "%s", d.msg);
	c->entries = 16;
	c->ring = take(c, PAGE);
	c->userd = take(c, PAGE);
	c->next = (c->next + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	cr_assert(cs_live_channel_new(c->lv, c->ring, c->entries, c->userd, 7, &c->ch, &d), "%s",
		  d.msg);
}

static void client_free(client *c)
{
	cs_live_free(c->lv);
	guarded_free(&c->mem);
}

static uint32_t inc(uint32_t subch, uint32_t method, uint32_t count)
{
	return (1u << 29) | (count << 16) | (subch << 13) | (method >> 2);
}

/* Puts an entry for [va, va + 4 * ndw) on the ring, writes GP_PUT, rings. */
static bool submit_entry(client *c, uint64_t va, uint32_t ndw, cs_diag *d)
{
	uint64_t e = (va & 0xfffffffffcull) | ((uint64_t)ndw << 42);
	memcpy(at(c, c->ring + 8u * c->put), &e, 8);
	c->put = (c->put + 1) % c->entries;
	memcpy(at(c, c->userd + CS_USERD_GP_PUT), &c->put, 4);
	return cs_live_doorbell(c->lv, 7, d);
}

static uint64_t submit_words(client *c, const uint32_t *w, uint32_t n)
{
	uint64_t va = take(c, 4u * n);
	memcpy(at(c, va), w, 4u * n);
	cs_diag d;
	cr_assert(submit_entry(c, va, n, &d), "%s", d.msg);
	return va;
}

/* A host release of value to sem (64-bit payload). */
static uint64_t submit_release(client *c, uint64_t sem, uint64_t value)
{
	uint32_t w[6] = { inc(0, CS_FE_M_SEM_ADDR_LO, 5), (uint32_t)sem, (uint32_t)(sem >> 32),
			  (uint32_t)value, (uint32_t)(value >> 32),
			  cs_fe_sem_execute(CS_FE_SEM_RELEASE, true, false, true, 0, false) };
	return submit_words(c, w, 6);
}

static cs_live_verdict verdict(client *c)
{
	cs_live_verdict v;
	cs_diag d;
	cr_assert(cs_live_verdict_get(c->lv, &v, &d), "%s", d.msg);
	return v;
}

Test(live, a_release_lands_in_the_clients_memory_and_gp_get_in_its_userd)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	uint64_t sem = take(&c, 16);
	submit_release(&c, sem, 0x1122334455667788ull);
	cr_expect(cs_live_busy(c.lv));
	cs_live_run_result r = cs_live_run(c.lv, 0);
	cr_expect_eq(r.end, CS_LIVE_QUIESCENT);
	cr_expect_eq(r.entries, 1);
	cr_expect_not(cs_live_busy(c.lv));
	uint64_t v;
	memcpy(&v, at(&c, sem), 8);
	cr_expect_eq(v, 0x1122334455667788ull);
	uint32_t get;
	memcpy(&get, at(&c, c.userd + CS_USERD_GP_GET), 4);
	cr_expect_eq(get, 1);
	cs_live_channel_state st;
	cr_assert(cs_live_channel_get(c.lv, c.ch, &st));
	cr_expect_eq(st.state, CS_FE_CHAN_IDLE);
	cr_expect_eq(st.token, 7);
	cr_expect(cs_live_wait(c.lv, sem, 0x1122334455667788ull, true, NULL));
	cs_live_verdict vd = verdict(&c);
	cr_expect_not(vd.broken, "%s", vd.diagnosis);
	client_free(&c);
}

/* cs_live_wait is a >= wait (a timeline semaphore): one that cannot resolve is
 * judged, and recorded, as the >= it is, never as == on some value. */
Test(live, an_unresolved_wait_is_judged_as_the_geq_it_is)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	uint64_t sem = take(&c, 16);
	submit_release(&c, sem, 3);
	cs_live_run(c.lv, 0);
	cr_expect(cs_live_wait(c.lv, sem, 2, true, NULL), "3 reaches 2");
	cs_live_verdict vd;
	cr_expect_not(cs_live_wait(c.lv, sem, 5, true, &vd));
	cr_expect(vd.broken);
	cr_expect_str_eq(vd.cause, "wait-unmet");
	cr_expect(strstr(vd.diagnosis, "] >= 5 but the value is 3"), "%s", vd.diagnosis);
	cr_expect_null(strstr(vd.diagnosis, "=="), "%s", vd.diagnosis);
	client_free(&c);
}

Test(live, maps_that_overlap_wrap_or_misalign_are_refused)
{
	client c;
	client_new(&c, CS_ARCH_HOPPER);
	guarded g = guarded_new(4 * PAGE);
	cs_diag d;
	struct {
		void *host;
		uint64_t size, va;
		const char *why;
	} bad[] = {
		{ g.bytes, PAGE, ARENA_VA + PAGE, "overlap" },
		{ g.bytes, PAGE, 0x20000800, "aligned" },
		{ g.bytes, PAGE + 1, 0x20000000, "multiple of 4 KiB" },
		{ g.bytes + 8, PAGE, 0x20000000, "16-byte aligned" },
		{ NULL, PAGE, 0x20000000, "non-NULL" },
		{ g.bytes, 2 * PAGE, (1ull << 57) - PAGE, "address space" },
		{ g.bytes, UINT64_MAX & ~(uint64_t)(PAGE - 1), 0x20000000, "wrap" },
		{ g.bytes, 0, 0x20000000, "0 bytes" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_not(cs_live_map(c.lv, bad[i].host, bad[i].size, bad[i].va, NULL, &d),
			      "case %zu accepted", i);
		cr_expect(strstr(d.msg, bad[i].why), "case %zu: %s", i, d.msg);
	}
	cr_expect_not(cs_live_unmap(c.lv, ARENA_VA, PAGE, &d));
	cr_expect(strstr(d.msg, "only a whole region unmaps"), "%s", d.msg);
	guarded_free(&g);
	client_free(&c);
}

Test(live, rings_and_userds_that_are_wrong_are_refused)
{
	client c;
	client_new(&c, CS_ARCH_AMPERE);
	cs_diag d;
	uint32_t ch;
	uint64_t ring = take(&c, PAGE), userd = take(&c, PAGE);
	cr_expect_not(cs_live_channel_new(c.lv, ring, 12, userd, 1, &ch, &d));
	cr_expect(strstr(d.msg, "power of two"), "%s", d.msg);
	cr_expect_not(cs_live_channel_new(c.lv, ring, 1u << 21, userd, 1, &ch, &d));
	cr_expect(strstr(d.msg, "power of two"), "%s", d.msg);
	cr_expect_not(cs_live_channel_new(c.lv, 0x7d0000000ull, 16, userd, 1, &ch, &d));
	cr_expect(strstr(d.msg, "ring of 16 entries at 0x7d0000000 is not mapped"), "%s", d.msg);
	cr_expect_not(cs_live_channel_new(c.lv, ARENA_VA + ARENA_BYTES - 64, 16, userd, 1, &ch, &d),
		      "a ring that runs off the end of its mapping");
	cr_expect_not(cs_live_channel_new(c.lv, ring + 4, 16, userd, 1, &ch, &d));
	cr_expect_not(cs_live_channel_new(c.lv, ring, 16, ARENA_VA + ARENA_BYTES - 0x80, 1, &ch, &d));
	cr_expect(strstr(d.msg, "USERD"), "%s", d.msg);
	cr_expect_not(cs_live_channel_new(c.lv, ring, 16, userd, 7, &ch, &d));
	cr_expect(strstr(d.msg, "token 7 exists"), "%s", d.msg);
	cr_expect_not(cs_live_doorbell(c.lv, 99, &d));
	cr_expect(strstr(d.msg, "no channel has that token"), "%s", d.msg);
	client_free(&c);
}

Test(live, entries_outside_every_map_fault_and_stop_with_the_verdict)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	cs_diag d;
	/* right past the arena: the guard page behind it must never be read */
	cr_assert(submit_entry(&c, ARENA_VA + ARENA_BYTES - 8, 16, &d), "%s", d.msg);
	cs_live_run_result r = cs_live_run(c.lv, 0);
	cr_expect_eq(r.newly_stopped, 1);
	cs_live_verdict v = verdict(&c);
	cr_expect(v.broken);
	cr_expect_eq(v.stage, CS_STAGE_FE_FETCH);
	cr_expect_str_eq(v.cause, "pb-unmapped");
	cr_expect(strstr(v.diagnosis, "0x10040000"), "%s", v.diagnosis);
	cs_live_channel_state st;
	cs_live_channel_get(c.lv, c.ch, &st);
	cr_expect_eq(st.state, CS_FE_CHAN_STOPPED);
	cr_expect_neq(st.stop[0], '\0');
	char *text = cs_live_report_text(c.lv, &d);
	cr_assert_not_null(text, "%s", d.msg);
	cr_expect(strstr(text, "break at stage 4 (fe-fetch) [pb-unmapped]"), "%s", text);
	free(text);
	client_free(&c);
}

Test(live, gp_put_outside_the_ring_and_an_unmapped_userd_stop_the_channel)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	cs_diag d;
	uint32_t put = 40;
	memcpy(at(&c, c.userd + CS_USERD_GP_PUT), &put, 4);
	cr_expect_not(cs_live_doorbell(c.lv, 7, &d));
	cr_expect(strstr(d.msg, "GP_PUT 40 is outside its ring of 16"), "%s", d.msg);
	cs_live_channel_state st;
	cs_live_channel_get(c.lv, c.ch, &st);
	cr_expect_eq(st.state, CS_FE_CHAN_STOPPED);

	/* a second channel whose USERD is unmapped after it was made */
	guarded g = guarded_new(2 * PAGE);
	cr_assert(cs_live_map(c.lv, g.bytes, 2 * PAGE, 0x40000000, "late", &d), "%s", d.msg);
	uint32_t ch2;
	cr_assert(cs_live_channel_new(c.lv, 0x40000000, 16, 0x40001000, 8, &ch2, &d), "%s", d.msg);
	cr_assert(cs_live_unmap(c.lv, 0x40000000, 2 * PAGE, &d), "%s", d.msg);
	guarded_free(&g); /* the device must never touch it again */
	cr_expect_not(cs_live_doorbell(c.lv, 8, &d));
	cr_expect(strstr(d.msg, "faulted"), "%s", d.msg);
	cs_live_channel_get(c.lv, ch2, &st);
	cr_expect_eq(st.state, CS_FE_CHAN_STOPPED);
	cs_live_run(c.lv, 0);
	client_free(&c);
}

Test(live, an_unmap_under_a_submitted_entry_faults_at_the_fetch)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	cs_diag d;
	guarded g = guarded_new(PAGE);
	cr_assert(cs_live_map(c.lv, g.bytes, PAGE, 0x40000000, "pb2", &d), "%s", d.msg);
	uint64_t sem = take(&c, 16);
	uint32_t w[6] = { inc(0, CS_FE_M_SEM_ADDR_LO, 5), (uint32_t)sem, 0, 1, 0,
			  cs_fe_sem_execute(CS_FE_SEM_RELEASE, false, false, true, 0, false) };
	memcpy(g.bytes, w, sizeof(w));
	cr_assert(submit_entry(&c, 0x40000000, 6, &d), "%s", d.msg);
	cr_assert(cs_live_unmap(c.lv, 0x40000000, PAGE, &d), "%s", d.msg);
	guarded_free(&g);
	cs_live_run(c.lv, 0);
	cs_live_verdict v = verdict(&c);
	cr_expect_str_eq(v.cause, "pb-unmapped");
	uint32_t got;
	memcpy(&got, at(&c, sem), 4);
	cr_expect_eq(got, 0, "nothing ran from the unmapped pushbuffer");
	client_free(&c);
}

Test(live, the_trace_is_a_window_and_launch_counters_keep_counting)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	uint64_t sem = take(&c, 16);
	uint64_t mark = c.next;
	for (uint32_t i = 0; i < 3000; i++) {
		c.next = mark;
		submit_release(&c, sem, i);
		cs_live_run(c.lv, 0);
	}
	cs_live_counters k;
	cs_live_counters_get(c.lv, &k);
	cr_expect_eq(k.entries, 3000);
	cr_expect_eq(k.doorbells, 3000);
	cr_expect_leq(k.records, 4096);
	cr_expect_gt(k.records_dropped, 4096);
	cs_live_verdict v = verdict(&c);
	cr_expect_not(v.broken, "%s", v.diagnosis);
	client_free(&c);
}

/* ---- a second thread --------------------------------------------------------------- */

typedef struct hold {
	atomic_int phase; /* 1: the run is inside the hook; 2: the other thread is done */
} hold;

static void hold_in_hook(void *ctx, const cs_method_call *call)
{
	(void)call;
	hold *h = ctx;
	if (atomic_load(&h->phase) != 0)
		return;
	atomic_store(&h->phase, 1);
	while (atomic_load(&h->phase) != 2)
		usleep(100);
}

typedef struct other_args {
	cs_live *lv;
	hold *h;
	bool refused;
	char msg[CS_DIAG_MSG_MAX];
} other_args;

static void *other_thread(void *p)
{
	other_args *a = p;
	while (atomic_load(&a->h->phase) != 1)
		usleep(100);
	cs_diag d;
	a->refused = !cs_live_doorbell(a->lv, 7, &d);
	snprintf(a->msg, sizeof(a->msg), "%s", d.msg);
	cs_live_run_result r = cs_live_run(a->lv, 0);
	a->refused = a->refused && r.entries == 0;
	atomic_store(&a->h->phase, 2);
	return NULL;
}

Test(live, a_call_from_a_second_thread_during_a_run_is_refused)
{
	client c;
	client_new(&c, CS_ARCH_ADA);
	hold h = { 0 };
	cs_device_set_method_hook(cs_live_device(c.lv), hold_in_hook, &h);
	uint64_t sem = take(&c, 16);
	submit_release(&c, sem, 5);
	other_args a = { .lv = c.lv, .h = &h };
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, other_thread, &a), 0);
	cs_live_run(c.lv, 0);
	pthread_join(t, NULL);
	cr_expect(a.refused);
	cr_expect(strstr(a.msg, "cs_live_doorbell called from a second thread"), "%s", a.msg);
	uint64_t v;
	memcpy(&v, at(&c, sem), 8);
	cr_expect_eq(v, 5, "the first thread's run finished its work");
	client_free(&c);
}

/* ---- a cubin's kernel from the client's own upload ------------------------------------ */

Test(live, a_fatbins_kernel_runs_from_the_code_the_client_uploaded)
{
	client c;
	client_new(&c, CS_ARCH_HOPPER);
	size_t len;
	uint8_t *fb = (uint8_t *)test_read_kernel_fixture("vadd.nocompress.fatbin", &len);
	cr_assert_not_null(fb, "cannot read the fixture vadd.nocompress.fatbin");
	cs_diag d;
	cr_assert(cs_live_module_load(c.lv, fb, len, "vadd", &d), "%s", d.msg);
	cs_module *m = cs_module_load_bytes(fb, len, "vadd", CS_ARCH_HOPPER, &d);
	cr_assert_not_null(m, "%s", d.msg);
	const cs_kernel_info *k = cs_module_kernel_named(m, "vadd");
	cr_assert_not_null(k);

	enum { N = 200 };
	uint64_t code = take(&c, k->code_size), a = take(&c, 4 * N), b = take(&c, 4 * N),
		 out = take(&c, 4 * N), cb = take(&c, 0x1000), sem = take(&c, 16),
		 qmdva = take(&c, 0x200);
	memcpy(at(&c, code), k->code, k->code_size);
	for (int i = 0; i < N; i++) {
		float x = (float)i, y = 2.0f * (float)i;
		memcpy(at(&c, a + 4u * i), &x, 4);
		memcpy(at(&c, b + 4u * i), &y, 4);
	}
	uint64_t args[3] = { a, b, out };
	uint32_t n = N;
	memcpy(at(&c, cb + k->param_base), args, sizeof(args));
	memcpy(at(&c, cb + k->param_base + 24), &n, 4);

	cs_qmd q;
	char v[64];
	cr_assert(cs_qmd_init(&q, 4, &d), "%s", d.msg);
	snprintf(v, sizeof(v), "0x%llx", (unsigned long long)code);
	cr_assert(cs_qmd_set_key_text(&q, "program", v, &d), "%s", d.msg);
	snprintf(v, sizeof(v), "0x%llx,0x%x", (unsigned long long)cb, k->cbank0_size);
	cr_assert(cs_qmd_set_key_text(&q, "cbank0", v, &d), "%s", d.msg);
	snprintf(v, sizeof(v), "0x%llx,1", (unsigned long long)sem);
	cr_assert(cs_qmd_set_key_text(&q, "release0", v, &d), "%s", d.msg);
	cr_assert(cs_qmd_set_key_text(&q, "grid", "2", &d), "%s", d.msg);
	cr_assert(cs_qmd_set_key_text(&q, "block", "128", &d), "%s", d.msg);
	cr_assert(cs_qmd_set_key_text(&q, "shared", "1024", &d), "%s", d.msg);
	memcpy(at(&c, qmdva), q.dw, cs_qmd_size(4));

	uint32_t w[6] = { inc(1, 0, 1), 0xCBC0, inc(1, 0x2b4, 1), (uint32_t)(qmdva >> 8),
			  inc(1, 0x2c0, 1), 9 };
	submit_words(&c, w, 6);
	cs_live_verdict vd;
	cr_assert(cs_live_wait(c.lv, sem, 1, false, &vd), "%s", vd.diagnosis);
	for (int i = 0; i < N; i++) {
		float got;
		memcpy(&got, at(&c, out + 4u * i), 4);
		cr_expect_float_eq(got, 3.0f * (float)i, 0.0f, "element %d", i);
	}
	cs_module_free(m);
	free(fb);
	client_free(&c);
}
