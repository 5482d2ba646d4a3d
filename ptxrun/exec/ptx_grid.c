/* SPDX-License-Identifier: MIT */
/* The CTA and grid threading: a CTA's warps in rounds (cooperative or not),
 * the workers that run a grid's CTAs in parallel and commit them in CTA order,
 * and cs_ptx_run, which sets a grid up and gives its result. */
#include "ptx_run.h"

#include "chainsim/trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sysinfo.h>

/* With the default thread count, the caller's thread runs a grid alone for
 * its first SPAWN_AFTER_NS, and starts the other workers only if CTAs are
 * left then: a small grid never pays for threads (in the conformance corpus,
 * where most grids take well under a millisecond, starting them at once made
 * the serial run a third slower). An explicit --threads starts them at once. */
enum { SPAWN_AFTER_NS = 200000 };

static uint64_t ns_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - t->tv_sec) * 1000000000u + (uint64_t)now.tv_nsec -
	       (uint64_t)t->tv_nsec;
}

static bool atomic_adds_floats(const ptx_ins *in)
{
	ptx_type t = (ptx_type)in->t1;
	return in->aux2 == AO_ADD && (t == T_F32 || t == T_F64 || t == T_F16 || t == T_BF16 ||
				      t == T_F16X2 || t == T_BF16X2);
}

/* Atomics outside shared memory whose effect depends on the order CTAs run
 * in: float additions (not associative), inc/dec with a bound, and those whose
 * old value the kernel reads (exch and cas always). nvcc writes atom with a
 * destination it never reads for a plain atomicAdd: a destination register no
 * other instruction names is taken as unread (an operand that merely equals
 * its number counts as a read, erring toward the note). NULL when none. */
static uint64_t *atomic_order_table(const cs_ptx_program *p, bool *ok)
{
	uint8_t *named = calloc(p->nslots + 1, 1);
	uint64_t *t = malloc((p->ncode ? p->ncode : 1) * sizeof(uint64_t));
	bool any = false;
	for (uint32_t pc = 0; named && pc < p->ncode; pc++) {
		const ptx_ins *in = &p->code[pc];
		for (unsigned k = 0; k < 6; k++)
			if (in->o[k] < p->nslots && !(in->op == OP_ATOM && k == 1))
				named[in->o[k]] = 1;
	}
	for (uint32_t pc = 0; named && t && pc < p->ncode; pc++) {
		const ptx_ins *in = &p->code[pc];
		bool atomic = (in->op == OP_ATOM || in->op == OP_RED) && in->aux != SP_SHARED;
		bool reads_old = in->op == OP_ATOM && in->o[1] < p->nslots && named[in->o[1]];
		bool matters = atomic && (atomic_adds_floats(in) || in->aux2 == AO_INC ||
					  in->aux2 == AO_DEC || in->aux2 == AO_CAS ||
					  in->aux2 == AO_EXCH || reads_old);
		t[pc] = matters ? ATOM_NO_CTA : ATOM_ORDER_FREE;
		any |= matters;
	}
	*ok = named && t;
	free(named);
	if (!*ok || !any) {
		free(t);
		return NULL;
	}
	return t;
}

static size_t page_hash(uint64_t vpn)
{
	return (size_t)((vpn * 0x9e3779b97f4a7c15ull) >> 20) & (PAGES_N - 1);
}

/* The caller's memory port for workers sharing it (the simulator's memory
 * creates pages on first touch): a page already in G->pages without the lock,
 * else through the port behind the lock, noting a whole page it returns. */
static uint8_t *locked_span(void *ctx, uint64_t va, uint64_t len)
{
	grid *G = ctx;
	uint64_t vpn = va >> CS_PAGE_SHIFT, off = va & (CS_PAGE_SIZE - 1);
	size_t h = page_hash(vpn);
	if (len <= CS_PAGE_SIZE - off) {
		for (unsigned i = 0; i < PAGES_PROBE; i++) {
			page_slot *s = &G->pages[(h + i) & (PAGES_N - 1)];
			uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
			if (tag == vpn + 1)
				return s->base + off;
			if (!tag)
				break;
		}
	}
	pthread_mutex_lock(&G->mem_lock);
	uint8_t *q = G->bus->mem.span(G->bus->mem.ctx, va, len);
	if (q && len == CS_PAGE_SIZE) {
		for (unsigned i = 0; i < PAGES_PROBE; i++) {
			page_slot *s = &G->pages[(h + i) & (PAGES_N - 1)];
			uint64_t tag = atomic_load_explicit(&s->tag, memory_order_relaxed);
			if (tag == vpn + 1)
				break;
			if (!tag) {
				s->base = q;
				atomic_store_explicit(&s->tag, vpn + 1, memory_order_release);
				break;
			}
		}
	}
	pthread_mutex_unlock(&G->mem_lock);
	return q;
}

static bool locked_read(void *ctx, uint64_t va, void *dst, size_t len, uint64_t *fault_va)
{
	grid *G = ctx;
	pthread_mutex_lock(&G->mem_lock);
	bool ok = G->bus->mem.read(G->bus->mem.ctx, va, dst, len, fault_va);
	pthread_mutex_unlock(&G->mem_lock);
	return ok;
}

static bool locked_write(void *ctx, uint64_t va, const void *src, size_t len, uint64_t *fault_va)
{
	grid *G = ctx;
	pthread_mutex_lock(&G->mem_lock);
	bool ok = G->bus->mem.write(G->bus->mem.ctx, va, src, len, fault_va);
	pthread_mutex_unlock(&G->mem_lock);
	return ok;
}

static bool locked_mapped(void *ctx, uint64_t va, uint64_t len)
{
	grid *G = ctx;
	pthread_mutex_lock(&G->mem_lock);
	bool ok = G->bus->mem.mapped(G->bus->mem.ctx, va, len);
	pthread_mutex_unlock(&G->mem_lock);
	return ok;
}

/* The worker's trace sink: records wait with their CTA until it commits. */
static void hold_event(void *ctx, const cs_event *ev)
{
	run *R = ctx;
	held_events *h = &R->held;
	if (h->n == h->cap) {
		size_t ncap = h->cap ? 2 * h->cap : 16;
		held_event *nv = realloc(h->v, ncap * sizeof(*nv));
		if (!nv) {
			h->lost = true;
			return;
		}
		h->v = nv;
		h->cap = ncap;
	}
	char *detail = ev->detail ? strdup(ev->detail) : NULL;
	if (ev->detail && !detail) {
		h->lost = true;
		return;
	}
	h->v[h->n].ev = *ev;
	h->v[h->n].ev.detail = NULL;
	h->v[h->n].detail = detail;
	h->n++;
}

static void held_free(held_events *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].detail);
	free(h->v);
	*h = (held_events){ 0 };
}

/* ---- CTA and grid -------------------------------------------------------- */

static void warp_start(run *R, warp *w)
{
	uint32_t first = w->id * PTX_WARP;
	uint32_t n = R->nthreads - first < PTX_WARP ? R->nthreads - first : PTX_WARP;
	uint32_t live = n == PTX_WARP ? PTX_FULL : ((1u << n) - 1);
	w->live = live;
	w->sp = 0;
	w->state = W_READY;
	w->stk[0].pc = R->f->start;
	w->stk[0].rpc = PTX_NONE;
	w->stk[0].mask = live;
	w->stk[0].call = PTX_NONE;
	w->sp = 1;
	w->ncopies = 0;
	memset(w->groups, 0, sizeof(w->groups));
}


/* Warp w's bar.red waiting at barrier id (its pending instruction is the one
 * before its pc), or NULL. */
static const ptx_ins *pending_bar_red(const run *R, const warp *w, uint32_t id)
{
	if (w->state != W_BARRIER || w->bar_id != id)
		return NULL;
	const ptx_ins *in = &R->p->code[w->stk[w->sp - 1].pc - 1];
	return in->op == OP_BAR_RED ? in : NULL;
}

static void bar_red_finish(run *R, uint32_t id)
{
	/* bar.red: every waiting warp's pending instruction is the one before its pc */
	uint32_t popc = 0, all = 1, any = 0;
	const ptx_ins *first = NULL;
	for (uint32_t i = 0; i < R->nwarps; i++) {
		warp *w = &R->warps[i];
		const ptx_ins *in = pending_bar_red(R, w, id);
		if (!in)
			continue;
		first = in;
		uint32_t c = w->pr[in->o[3]];
		if (in->flags & F_NEG_C)
			c = ~c;
		c &= w->stk[w->sp - 1].mask;
		popc += lane_count(c);
		if (c != w->stk[w->sp - 1].mask)
			all = 0;
		if (c)
			any = 1;
	}
	if (!first)
		return;
	for (uint32_t i = 0; i < R->nwarps; i++) {
		warp *w = &R->warps[i];
		const ptx_ins *in = pending_bar_red(R, w, id);
		if (!in)
			continue;
		uint32_t m = w->stk[w->sp - 1].mask;
		if (in->aux2 == 0) {
			uint64_t *D = w->r + (size_t)in->o[0] * PTX_WARP;
			FOR_LANES(m, D[l] = popc);
		} else {
			uint32_t v = (in->aux2 == 1 ? all : any) ? PTX_FULL : 0;
			w->pr[in->o[0]] = (w->pr[in->o[0]] & ~m) | (v & m);
		}
	}
}

/* The order the warps run in: in index order or reversed, set once per worker. */
static void schedule_fixed(run *R)
{
	uint32_t n = R->nwarps;
	for (uint32_t i = 0; i < n; i++)
		R->order[i] = R->schedule == CS_PTX_SCHEDULE_REVERSE ? n - 1 - i : i;
}

/* The order the warps run in this round (between two barrier releases): a
 * random schedule draws one each round. */
static void schedule_round(run *R)
{
	uint32_t n = R->nwarps;
	if (R->schedule == CS_PTX_SCHEDULE_RANDOM) {
		for (uint32_t i = 0; i < n; i++)
			R->order[i] = i;
		/* Fisher-Yates from a splitmix64 stream of seed, CTA and round */
		uint64_t x = R->schedule_seed ^ ((uint64_t)R->cta[0] << 40) ^
			     ((uint64_t)R->cta[1] << 20) ^ R->cta[2] ^ ((uint64_t)R->round << 52);
		for (uint32_t i = n; i > 1; i--) {
			x += 0x9e3779b97f4a7c15ull;
			uint64_t z = x;
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			z ^= z >> 31;
			uint32_t j = (uint32_t)(z % i), t = R->order[i - 1];
			R->order[i - 1] = R->order[j];
			R->order[j] = t;
		}
	}
	R->round++;
}

/* A round in which every warp that ran waited on an mbarrier and no object
 * changed: after MBAR_STALL_ROUNDS of them in a row the CTA is deadlocked (no
 * warp left to arrive), an error naming the first waiting warp's object. */
static bool mbar_progress(run *R)
{
	if (++R->mbar_stall < MBAR_STALL_ROUNDS)
		return true;
	for (uint32_t i = 0; i < R->nwarps; i++) {
		warp *w = &R->warps[i];
		if (w->state != W_READY || !w->mbar_wait)
			continue;
		uint64_t v;
		memcpy(&v, R->shared + w->mbar_at, sizeof(v));
		ptx_set_error(R, w, w->stk[w->sp - 1].pc - 1,
			  "mbarrier deadlock: warp %u waits on the mbarrier at shared offset 0x%x "
			  "(current phase parity %u, %u of %u arrivals pending, tx-count %d), and no mbarrier "
			  "of the CTA changed in %u rounds", w->id, w->mbar_at, (unsigned)(v >> 63),
			  mbar_pending(v), mbar_expected(v), mbar_tx(v), MBAR_STALL_ROUNDS);
		break;
	}
	return false;
}

static void cta_start(run *R)
{
	R->nlive = 0;
	for (uint32_t i = 0; i < R->nwarps; i++) {
		warp_start(R, &R->warps[i]);
		R->nlive += lane_count(R->warps[i].live);
	}
	memset(R->arrive, 0, sizeof(R->arrive));
	R->epoch++;
	R->mbar_stall = 0;
}

/* One round: each ready warp runs until it waits, yields or ends, then the
 * barriers whose count is met open. False once the CTA has ended, R->status
 * saying how. */
static bool cta_round(run *R)
{
	bool ran = false, all_waited = true;
	uint64_t changes = R->mbar_changes;
	schedule_round(R);
	for (uint32_t k = 0; k < R->nwarps; k++) {
		warp *w = &R->warps[R->order[k]];
		if (w->state != W_READY)
			continue;
		ran = true;
		ptx_warp_run(R, w);
		if (R->status != R_OK)
			return false;
		all_waited &= w->mbar_wait;
	}
	if (!ran || !all_waited || changes != R->mbar_changes)
		R->mbar_stall = 0;
	else if (!mbar_progress(R))
		return false;
	/* open the barriers whose thread count is met */
	uint32_t live = R->nlive;
	uint32_t arrived[NBAR] = { 0 }, want[NBAR] = { 0 };
	bool red[NBAR] = { false }; /* a bar.red waits at it */
	bool any_wait = false, any_ready = false;
	for (uint32_t i = 0; i < R->nwarps; i++) {
		warp *w = &R->warps[i];
		if (w->state == W_READY)
			any_ready = true;
		if (w->state != W_BARRIER)
			continue;
		any_wait = true;
		if (w->bar_id >= NBAR) {
			ptx_set_error(R, w, w->stk[w->sp - 1].pc - 1, "barrier %u is out of range (0..15)",
				  w->bar_id);
			return false;
		}
		arrived[w->bar_id] += lane_count(w->live);
		const ptx_ins *in = &R->p->code[w->stk[w->sp - 1].pc - 1];
		uint32_t cnt_slot = in->op == OP_BAR ? in->o[1] : in->o[2];
		red[w->bar_id] |= in->op == OP_BAR_RED;
		if (cnt_slot != PTX_NONE) {
			uint32_t c = (uint32_t)w->r[(size_t)cnt_slot * PTX_WARP +
						 (unsigned)__builtin_ctz(w->stk[w->sp - 1].mask | 1)];
			want[w->bar_id] = c;
		}
	}
	if (!any_wait) {
		return any_ready;
	}
	bool opened = false;
	for (uint32_t b = 0; b < NBAR; b++) {
		if (!arrived[b])
			continue;
		uint32_t need = want[b] ? want[b] : live;
		if (arrived[b] + R->arrive[b] >= need) {
			R->arrive[b] = 0;
			R->epoch++;
			if (red[b])
				bar_red_finish(R, b);
			for (uint32_t i = 0; i < R->nwarps; i++) {
				warp *w = &R->warps[i];
				if (w->state == W_BARRIER && w->bar_id == b)
					w->state = W_READY;
			}
			opened = true;
		}
	}
	if (!opened && !any_ready) {
		warp *w0 = NULL;
		for (uint32_t i = 0; i < R->nwarps && !w0; i++)
			if (R->warps[i].state == W_BARRIER)
				w0 = &R->warps[i];
		ptx_set_error(R, w0, w0 ? w0->stk[w0->sp - 1].pc - 1 : 0,
			  "barrier deadlock: %u of %u live threads wait at barrier %u",
			  arrived[w0 ? w0->bar_id : 0], live, w0 ? w0->bar_id : 0);
		return false;
	}
	return true;
}

static int cta_run(run *R)
{
	cta_start(R);
	while (cta_round(R))
		;
	return R->status;
}

static void fill_slots(run *R)
{
	const cs_ptx_program *p = R->p;
	const cs_ptx_launch *l = R->l;
	for (uint32_t wi = 0; wi < R->nwarps; wi++) {
		warp *w = &R->warps[wi];
		uint64_t *r = w->r;
		for (size_t i = 0; i < p->nconsts; i++) {
			const ptx_const *c = &p->consts[i];
			uint64_t v = c->value;
			if (c->var == -2)
				v += R->dyn_base;
			else if (c->var == PTX_CONST_ENVREG_HI)
				v = l->grid_workspace >> 32;
			else if (c->var == PTX_CONST_ENVREG_LO)
				v = l->grid_workspace & PTX_LOW32;
			else if (c->var >= 0)
				v += (l->var_va && (size_t)c->var < l->var_count)
					     ? l->var_va[c->var]
					     : R->mwin + p->vars[c->var].offset;
			uint64_t *s = PTX_REG(p->const_base + i);
			for (unsigned k = 0; k < PTX_WARP; k++)
				s[k] = v;
		}
		for (unsigned k = 0; k < PTX_WARP; k++) {
			uint32_t t = wi * PTX_WARP + k;
			uint32_t bx = l->block[0], by = l->block[1];
			PTX_REG(SR_TID_X)[k] = t % bx;
			PTX_REG(SR_TID_Y)[k] = (t / bx) % by;
			PTX_REG(SR_TID_Z)[k] = t / (bx * by);
			PTX_REG(SR_NTID_X)[k] = l->block[0];
			PTX_REG(SR_NTID_Y)[k] = l->block[1];
			PTX_REG(SR_NTID_Z)[k] = l->block[2];
			PTX_REG(SR_NCTAID_X)[k] = l->grid[0];
			PTX_REG(SR_NCTAID_Y)[k] = l->grid[1];
			PTX_REG(SR_NCTAID_Z)[k] = l->grid[2];
			PTX_REG(SR_LANEID)[k] = k;
			PTX_REG(SR_WARPID)[k] = wi;
			PTX_REG(SR_NWARPID)[k] = R->nwarps;
			PTX_REG(SR_LANEMASK_EQ)[k] = 1u << k;
			PTX_REG(SR_LANEMASK_LT)[k] = (1u << k) - 1;
			PTX_REG(SR_LANEMASK_LE)[k] = (uint32_t)(((uint64_t)2 << k) - 1);
			PTX_REG(SR_LANEMASK_GT)[k] = ~(uint32_t)(((uint64_t)2 << k) - 1);
			PTX_REG(SR_LANEMASK_GE)[k] = ~((1u << k) - 1);
			PTX_REG(SR_SMID)[k] = 0;
			PTX_REG(SR_NSMID)[k] = 1;
			PTX_REG(SR_GRIDID)[k] = l->launch;
			PTX_REG(SR_DYN_SMEM)[k] = l->dynamic_shared_bytes;
			PTX_REG(SR_TOTAL_SMEM)[k] = (uint32_t)R->shared_size;
			PTX_REG(SR_ZERO)[k] = 0;
		}
	}
}

static void set_cta(run *R)
{
	for (uint32_t wi = 0; wi < R->nwarps; wi++) {
		uint64_t *r = R->warps[wi].r;
		for (unsigned k = 0; k < PTX_WARP; k++) {
			PTX_REG(SR_CTAID_X)[k] = R->cta[0];
			PTX_REG(SR_CTAID_Y)[k] = R->cta[1];
			PTX_REG(SR_CTAID_Z)[k] = R->cta[2];
		}
	}
}

static void emit_range(const run *R, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	cs_event ev = cs_event_make(CS_EV_CTA_RANGE, CS_STAGE_GR_DISPATCH, CS_UNIT_SM,
				    R->l->channel);
	ev.launch = R->l->launch;
	ev.value = lo;
	ev.aux = hi;
	ev.detail = R->f->name;
	cs_trace_emit(&R->bus->trace, &ev);
}

static void free_run(run *R)
{
	if (R->warps) {
		for (uint32_t i = 0; i < R->nwarps; i++) {
			free(R->warps[i].r);
			free(R->warps[i].pr);
			free(R->warps[i].stk);
			free(R->warps[i].copies);
		}
	}
	free(R->warps);
	free(R->order);
	free(R->shadow);
	free(R->gcells);
	free(R->shared);
	free(R->local);
	held_free(&R->held);
}

/* From now on other workers run too: the caller's memory port through the
 * grid's lock and page table. */
static void share_memory(run *R, grid *G)
{
	R->shared_memory = true;
	R->wbus.mem = (cs_mem_port){ .ctx = G,
				     .span = G->bus->mem.span ? locked_span : NULL,
				     .read = G->bus->mem.read ? locked_read : NULL,
				     .write = G->bus->mem.write ? locked_write : NULL,
				     .mapped = G->bus->mem.mapped ? locked_mapped : NULL };
}

/* n zeroed bytes from a cache line's start: a vector access to a register row
 * (256 bytes), or to shared memory at an aligned offset, then never spans two
 * lines. NULL when out of memory. */
static void *zeroed_lines(size_t n)
{
	size_t size = (n + 63) & ~(size_t)63;
	void *b = aligned_alloc(64, size);
	if (b)
		memset(b, 0, size);
	return b;
}

/* A worker's own CTA state, modelled on proto (the launch's checked sizes). */
static bool worker_init(run *R, const run *proto, grid *G, bool shared_memory)
{
	*R = *proto;
	R->g = G;
	R->shared_memory = false;
	R->wbus = *G->bus;
	if (shared_memory)
		share_memory(R, G);
	R->wbus.trace = (cs_trace_sink){ .ctx = R, .emit = hold_event, .level = G->bus->trace.level };
	R->bus = &R->wbus;
	R->shared = zeroed_lines(R->shared_size ? R->shared_size : 1);
	R->local = calloc((size_t)R->local_size * R->nwarps * PTX_WARP + 1, 1);
	R->warps = calloc(R->nwarps, sizeof(warp));
	R->order = calloc(R->nwarps, sizeof(uint32_t));
	if (R->order)
		schedule_fixed(R);
	if (R->races != CS_PTX_RACES_OFF && R->shared_size)
		R->shadow = calloc(R->shared_size, sizeof(race_cell));
	bool ok = R->shared && R->local && R->warps && R->order &&
		  (R->races == CS_PTX_RACES_OFF || !R->shared_size || R->shadow);
	for (uint32_t i = 0; ok && i < R->nwarps; i++) {
		warp *w = &R->warps[i];
		w->id = i;
		w->r = zeroed_lines((size_t)R->p->nslots * PTX_WARP * sizeof(uint64_t));
		w->pr = calloc(R->p->npreds + 1, sizeof(uint32_t));
		w->stk = malloc(16 * sizeof(sentry));
		w->cap = 16;
		/* mappings do not change during a run: the translations stay valid */
		memset(w->tlb_tag, 0xff, sizeof(w->tlb_tag));
		ok = w->r && w->pr && w->stk;
	}
	if (ok) /* the special and constant slots: no instruction writes them */
		fill_slots(R);
	return ok;
}

/* CTA `index`, from zeroed registers, shared and local memory when fresh
 * (the special and constant slots keep what fill_slots put there). */
static void cta_begin(run *R, uint64_t index, bool fresh)
{
	const cs_ptx_launch *l = R->l;
	R->cta_index = index;
	R->cta[0] = (uint32_t)(index % l->grid[0]);
	R->cta[1] = (uint32_t)(index / l->grid[0] % l->grid[1]);
	R->cta[2] = (uint32_t)(index / ((uint64_t)l->grid[0] * l->grid[1]));
	for (uint32_t i = 0; i < R->nwarps; i++)
		R->warps[i].clock = 0;
	R->round = 0; /* a random schedule follows the CTA, not the worker's history */
	if (fresh) {
		size_t regs = (size_t)(R->p->const_base - SR_COUNT) * PTX_WARP;
		for (uint32_t i = 0; i < R->nwarps; i++) {
			memset(R->warps[i].r + (size_t)SR_COUNT * PTX_WARP, 0, regs * sizeof(uint64_t));
			memset(R->warps[i].pr, 0, (R->p->npreds + 1) * sizeof(uint32_t));
		}
		memset(R->shared, 0, R->shared_size);
		memset(R->local, 0, (size_t)R->local_size * R->nwarps * PTX_WARP);
	}
	set_cta(R);
	R->status = R_OK;
	R->why[0] = '\0';
	R->tinstr = 0;
	R->budget = BUDGET_STEP < R->cta_budget ? BUDGET_STEP : R->cta_budget;
}

static void slot_take(cta_slot *s, run *R)
{
	s->status = R->status;
	if (R->held.lost && s->status == R_OK) {
		s->status = R_ERROR;
		snprintf(R->why, sizeof(R->why), "out of memory holding the CTA's trace records");
	}
	s->tinstr = R->tinstr;
	memcpy(s->cta, R->cta, sizeof(s->cta));
	s->fault_va = R->fault_va;
	s->fault_access = R->fault_access;
	s->fault_warp = R->fault_warp;
	s->fault_lane = R->fault_lane;
	s->fault_pc = R->fault_pc;
	memcpy(s->why, R->why, sizeof(s->why));
	s->held = R->held;
	R->held = (held_events){ 0 };
}

/* No CTA from v on starts; those running stop at their next budget check. */
static void end_lower(grid *G, uint64_t v)
{
	uint64_t end = atomic_load(&G->end);
	while (v < end && !atomic_compare_exchange_weak(&G->end, &end, v))
		;
}

static void grid_end_at(grid *G, const cta_slot *s)
{
	G->final = *s;
	G->final.held = (held_events){ 0 };
	G->finished = true;
	end_lower(G, G->commit);
}

/* Commits the finished CTAs that follow the committed ones (G->lock held). */
static void commit_ready(grid *G)
{
	while (!G->finished && G->commit < G->nctas) {
		cta_slot *s = &G->window[G->commit % WINDOW];
		if (!s->ready) {
			if (G->commit >= atomic_load(&G->end) && G->wall_stop) {
				/* claims stopped at the wall-time budget: the grid ends here */
				const uint32_t *gd = G->l->grid;
				cta_slot stop = { .status = R_BUDGET, .fault_pc = G->f->start,
						  .cta = { (uint32_t)(G->commit % gd[0]),
							   (uint32_t)(G->commit / gd[0] % gd[1]),
							   (uint32_t)(G->commit / ((uint64_t)gd[0] * gd[1])) } };
				snprintf(stop.why, sizeof(stop.why),
					 "stopped by its wall-time budget of %.3g s after %" PRIu64
					 " of %" PRIu64 " CTAs", (double)(G->l->max_wall_ns ? G->l->max_wall_ns
						: CS_PTX_WALL_DEFAULT_NS) / 1e9, G->commit, G->nctas);
				grid_end_at(G, &stop);
			}
			break;
		}
		for (size_t i = 0; i < s->held.n; i++) {
			held_event *h = &s->held.v[i];
			if (h->ev.kind == CS_EV_RACE &&
			    !ptx_race_pair_new(G->race_pairs, &G->nrace_pairs, (uint32_t)(h->ev.aux >> 32),
					   (uint32_t)h->ev.aux))
				continue;
			if (h->ev.kind == CS_EV_ASSUMPTION &&
			    !ptx_race_pair_new(G->undef_pairs, &G->nundef_pairs, (uint32_t)(h->ev.aux >> 32),
					   (uint32_t)h->ev.aux))
				continue;
			h->ev.detail = h->detail;
			cs_trace_emit(&G->bus->trace, &h->ev);
		}
		held_free(&s->held);
		s->ready = false;
		G->tinstr += s->tinstr;
		if (s->status != R_OK) {
			grid_end_at(G, s);
			break;
		}
		G->done++;
		G->commit++;
		if (G->tinstr > G->budget) {
			cta_slot stop = *s;
			stop.status = R_BUDGET;
			stop.fault_warp = 0;
			stop.fault_lane = 0;
			stop.fault_pc = G->f->start;
			snprintf(stop.why, sizeof(stop.why),
				 "ran past its budget of %" PRIu64 " thread-instructions", G->budget);
			grid_end_at(G, &stop);
		}
	}
	if (G->commit == G->nctas)
		G->finished = true;
}

/* A worker: claims a chunk of CTAs while the window has room, runs them and
 * commits what it can. */
static void spawn_workers(grid *G);

static void *worker_main(void *arg)
{
	run *R = arg;
	grid *G = R->g;
	pthread_mutex_lock(&G->lock);
	for (;;) {
		if (R == G->workers && G->started < G->nworkers && !G->finished &&
		    atomic_load(&G->end) - G->next >= 2 * G->chunk &&
		    (G->l->threads || ns_since(&G->began) >= SPAWN_AFTER_NS))
			spawn_workers(G);
		while (!G->finished && G->next < atomic_load(&G->end) &&
		       G->next + G->chunk > G->commit + WINDOW)
			pthread_cond_wait(&G->moved, &G->lock);
		if (G->finished || G->next >= atomic_load(&G->end))
			break;
		if (past_deadline(G)) {
			G->wall_stop = true;
			end_lower(G, G->next);
			commit_ready(G);
			pthread_cond_broadcast(&G->moved);
			break;
		}
		uint64_t first = G->next;
		uint64_t count = G->nctas - first < G->chunk ? G->nctas - first : G->chunk;
		G->next += count;
		pthread_mutex_unlock(&G->lock);
		uint64_t taken = 0;
		for (uint64_t c = first; c < first + count; c++) {
			if (c >= atomic_load(&G->end))
				break;
			cta_begin(R, c, c == first);
			cta_run(R);
			if (R->status == R_ABANDONED) {
				held_free(&R->held);
				break;
			}
			slot_take(&G->window[c % WINDOW], R);
			taken++;
			if (R->status != R_OK) {
				end_lower(G, c + 1);
				break;
			}
		}
		pthread_mutex_lock(&G->lock);
		for (uint64_t i = 0; i < taken; i++)
			G->window[(first + i) % WINDOW].ready = true;
		commit_ready(G);
		pthread_cond_broadcast(&G->moved);
	}
	pthread_mutex_unlock(&G->lock);
	return NULL;
}

/* The cores this process may run on (its affinity mask: taskset, a Slurm
 * allocation, a cgroup's cpuset), read once: asking costs a file read of
 * /sys per call, and a stream launches thousands of grids. */
static unsigned usable_cores(void)
{
	static atomic_uint cores;
	unsigned n = atomic_load_explicit(&cores, memory_order_relaxed);
	if (!n) {
		cpu_set_t set;
		int c = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : get_nprocs();
		n = c > 0 ? (unsigned)c : 1;
		atomic_store_explicit(&cores, n, memory_order_relaxed);
	}
	return n;
}

/* Workers for a grid: one per usable core unless the launch says, never more
 * than CTAs; one when the global race detector must see the CTAs in order. */
static unsigned worker_count(const cs_ptx_launch *l, uint64_t nctas, uint64_t regfile)
{
	unsigned n = l->threads ? l->threads : usable_cores();
	if (n > CS_PTX_THREADS_MAX)
		n = CS_PTX_THREADS_MAX;
	if (n > nctas)
		n = (unsigned)nctas;
	if (l->races != CS_PTX_RACES_OFF && l->races_global)
		n = 1;
	/* every worker holds a CTA's register file */
	uint64_t by_memory = regfile ? CS_PTX_REGFILE_MAX / regfile : n;
	if (n > by_memory)
		n = by_memory ? (unsigned)by_memory : 1;
	return n ? n : 1;
}

/* One finding per atomic instruction that CTAs raced on: its result depends
 * on the order the CTAs ran in, which --threads changes. */
static void emit_order_notes(const grid *G)
{
	if (!G->atom_cta)
		return;
	for (uint32_t pc = 0; pc < G->p->ncode; pc++) {
		if (G->atom_cta[pc] != ATOM_SEVERAL_CTAS)
			continue;
		const ptx_ins *in = &G->p->code[pc];
		bool flt = atomic_adds_floats(in);
		char detail[CS_DIAG_MSG_MAX];
		snprintf(detail, sizeof(detail),
			 "%s: the %s at PTX line %u ran in several CTAs and %s, so the result "
			 "depends on the order the CTAs run in (CTAs run in parallel; --threads 1 "
			 "runs them in CTA order)", G->f->name, in->op == OP_ATOM ? "atom" : "red",
			 G->p->lines[pc], flt ? "adds floats (not associative)"
			 : in->op == OP_ATOM ? "returns the old value to each thread"
					     : "increments or decrements with a bound");
		cs_event ev = cs_event_make(CS_EV_ATOMIC_ORDER, CS_STAGE_GR_DISPATCH, CS_UNIT_SM,
					    G->l->channel);
		ev.launch = G->l->launch;
		ev.value = 0;
		ev.aux = G->p->lines[pc];
		ev.detail = detail;
		cs_trace_emit(&G->bus->trace, &ev);
	}
}

static void fail(cs_grid_result *out, cs_grid_outcome oc, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void fail(cs_grid_result *out, cs_grid_outcome oc, const char *name, const char *fmt, ...)
{
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	out->outcome = oc;
	cs_diag_at_text(&out->diag, oc == CS_GRID_FAULT ? CS_ERR_FAULT : CS_ERR_UNSUPPORTED, name, 0,
			0, "%s", msg);
}

/* Runs the grid's CTAs on the workers; the outcome is in G. */
/* Starts the workers after the caller's (worker 0), under G->lock, between
 * two of worker 0's chunks; those that cannot be set up or started are left
 * out: fewer suffice. */
static void spawn_workers(grid *G)
{
	unsigned from = G->started;
	G->started = G->nworkers; /* once, whatever happens */
	G->pages = calloc(PAGES_N, sizeof(page_slot));
	if (!G->pages) {
		G->started = from;
		return;
	}
	share_memory(&G->workers[0], G);
	for (unsigned i = from; i < G->nworkers; i++) {
		if (!worker_init(&G->workers[i], G->proto, G, true)) {
			free_run(&G->workers[i]);
			G->started = i;
			return;
		}
		if (pthread_create(&G->tids[i], NULL, worker_main, &G->workers[i]) != 0) {
			free_run(&G->workers[i]);
			G->started = i;
			return;
		}
	}
}

static bool run_workers(grid *G, const run *proto, unsigned nworkers)
{
	G->workers = calloc(nworkers, sizeof(run));
	G->tids = calloc(nworkers, sizeof(pthread_t));
	G->proto = proto;
	G->nworkers = nworkers;
	bool ok = G->workers && G->tids &&
		  worker_init(&G->workers[0], proto, G, false);
	if (ok) {
		G->started = 1;
		clock_gettime(CLOCK_MONOTONIC, &G->began);
		/* the caller's thread is worker 0; it starts the others */
		worker_main(&G->workers[0]);
		for (unsigned i = 1; i < G->started; i++)
			pthread_join(G->tids[i], NULL);
	}
	for (unsigned i = 0; G->workers && i < (ok ? G->started : 1); i++)
		free_run(&G->workers[i]);
	free(G->workers);
	free(G->tids);
	return ok;
}

/* A cooperative grid: every CTA resident at once, each with its own warps and
 * memory, taking rounds in CTA order on the caller's thread until all have
 * ended or one failed; then they commit in CTA order, as run_workers' do:
 * those that ended before the first CTA that did not, then the failed one. */
static bool run_cooperative(grid *G, const run *proto)
{
	uint64_t n = G->nctas, inited = 0;
	run *ctas = calloc(n, sizeof(run));
	bool *ended = calloc(n, sizeof(bool));
	bool ok = ctas && ended;
	for (; ok && inited < n; inited++) {
		if (!worker_init(&ctas[inited], proto, G, false)) {
			free_run(&ctas[inited]);
			ok = false;
			break;
		}
		cta_begin(&ctas[inited], inited, true);
		cta_start(&ctas[inited]);
	}
	uint64_t failed = n, left = n;
	while (ok && left && failed == n) {
		for (uint64_t c = 0; c < n && failed == n; c++) {
			if (ended[c] || cta_round(&ctas[c]))
				continue;
			ended[c] = true;
			left--;
			if (ctas[c].status != R_OK)
				failed = c;
		}
	}
	G->started = 1;
	for (uint64_t c = 0; ok && c < n && !G->finished; c++) {
		uint64_t take = c < failed && ended[c] ? c : failed;
		cta_slot *s = &G->window[G->commit % WINDOW];
		slot_take(s, &ctas[take]);
		s->ready = true;
		commit_ready(G);
	}
	for (uint64_t c = 0; ctas && c < inited; c++)
		free_run(&ctas[c]);
	free(ctas);
	free(ended);
	return ok;
}

/* The CTAs a launch's grid holds. */
static uint64_t grid_ctas(const cs_ptx_launch *l)
{
	return (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
}

/* Checks the launch against the entry and the model's limits and fills in
 * R's sizes and options; false (out says why) when it cannot run. */
static bool launch_setup(run *R, const cs_ptx_launch *l, cs_grid_result *out,
			 uint64_t *regfile_out)
{
	const cs_ptx_program *p = R->p;
	uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	uint64_t ctas = grid_ctas(l);
	if (threads == 0 || threads > 1024 || ctas == 0) {
		fail(out, CS_GRID_ERROR, p->name,
		     "launch of %s: block %ux%ux%u and grid %ux%ux%u (a block holds 1..1024 threads, "
		     "a grid at least one CTA)", R->f->name, l->block[0], l->block[1], l->block[2],
		     l->grid[0], l->grid[1], l->grid[2]);
		return false;
	}
	if (l->param_bytes < R->f->param_bytes || (R->f->param_bytes && !l->params)) {
		fail(out, CS_GRID_ERROR, p->name, "launch of %s: %zu parameter bytes, the entry takes %u",
		     R->f->name, l->param_bytes, R->f->param_bytes);
		return false;
	}
	R->shwin = l->shared_window ? l->shared_window : CS_PTX_SHARED_WINDOW_DEFAULT;
	R->lwin = l->local_window ? l->local_window : CS_PTX_LOCAL_WINDOW_DEFAULT;
	R->mwin = l->module_window ? l->module_window : CS_PTX_MODULE_WINDOW_DEFAULT;
	if ((R->mwin & (CS_PAGE_SIZE - 1)) || (l->var_va && l->var_count < p->nvars)) {
		fail(out, CS_GRID_ERROR, p->name, "launch of %s: module window not page aligned, or "
		     "%zu variable addresses for %zu variables", R->f->name, l->var_count, p->nvars);
		return false;
	}
	R->nthreads = (uint32_t)threads;
	R->nwarps = (R->nthreads + PTX_WARP - 1) / PTX_WARP;
	uint32_t dalign = p->shared_dyn_align ? p->shared_dyn_align : 16;
	R->dyn_base = (p->shared_static + dalign - 1) & ~(dalign - 1);
	R->shared_size = (uint64_t)R->dyn_base + l->dynamic_shared_bytes;
	R->local_size = p->local_bytes;
	R->params = l->params;
	R->param_bytes = l->param_bytes;
	R->cta_budget = l->max_thread_instructions ? l->max_thread_instructions : CS_PTX_BUDGET_DEFAULT;
	R->hw_fma = ptx_cpu_has_fma();
	R->approx_max = l->approx == CS_PTX_APPROX_MAX;
	/* far above any GPU's (228 KiB shared per CTA, 512 KiB local per thread),
	 * low enough that a hostile launch cannot exhaust the host */
	if (R->shared_size > CS_PTX_SHARED_MAX || R->local_size > CS_PTX_LOCAL_MAX) {
		fail(out, CS_GRID_ERROR, p->name,
		     "launch of %s: %" PRIu64 " bytes of shared memory per CTA and %u of local "
		     "memory per thread (the model allows %u and %u)", R->f->name, R->shared_size,
		     R->local_size, CS_PTX_SHARED_MAX, CS_PTX_LOCAL_MAX);
		return false;
	}
	uint64_t regfile = (uint64_t)p->nslots * PTX_WARP * sizeof(uint64_t) * R->nwarps;
	if (regfile > CS_PTX_REGFILE_MAX) {
		fail(out, CS_GRID_ERROR, p->name,
		     "launch of %s: %u register slots for %u warps need %" PRIu64
		     " bytes of register file (the model allows %u)", R->f->name, p->nslots, R->nwarps,
		     regfile, CS_PTX_REGFILE_MAX);
		return false;
	}
	if (l->cooperative && !l->grid_workspace) {
		fail(out, CS_GRID_ERROR, p->name, "cooperative launch of %s without a grid workspace",
		     R->f->name);
		return false;
	}
	uint64_t cta_state = regfile + R->shared_size + (uint64_t)R->local_size * R->nthreads;
	if (l->cooperative && cta_state * ctas > CS_PTX_COOPERATIVE_STATE_MAX) {
		fail(out, CS_GRID_ERROR, p->name,
		     "cooperative launch of %s: %" PRIu64 " resident CTAs of %" PRIu64 " bytes of "
		     "registers and memory each (the model allows %llu bytes in all)", R->f->name, ctas,
		     cta_state, CS_PTX_COOPERATIVE_STATE_MAX);
		return false;
	}
	R->cooperative = l->cooperative;
	R->races = l->races;
	R->schedule = l->schedule;
	R->schedule_seed = l->schedule_seed;
	R->races_global = R->races != CS_PTX_RACES_OFF && l->races_global;
	R->race_on = (R->races != CS_PTX_RACES_OFF && R->shared_size) || R->races_global;

	*regfile_out = regfile;
	return true;
}

/* The grid's outcome in out, from its final CTA slot; a fault also traced. */
static void grid_report(const grid *G, cs_grid_result *out)
{
	const cs_ptx_program *p = G->p;
	const cs_ptx_launch *l = G->l;
	const cta_slot *s = &G->final;
	if (!G->finished) {
		fail(out, CS_GRID_ERROR, p->name, "internal: %s ended with %" PRIu64 " of %" PRIu64
		     " CTAs committed", G->f->name, G->commit, G->nctas);
		return;
	}
	if (s->status == R_OK) {
		out->outcome = CS_GRID_EXECUTED;
		return;
	}
	uint32_t t = s->fault_warp * PTX_WARP + s->fault_lane;
	uint32_t bx = l->block[0], by = l->block[1];
	uint32_t line = s->fault_pc < p->ncode ? p->lines[s->fault_pc] : 0;
	char msg[CS_DIAG_MSG_MAX];
	snprintf(msg, sizeof(msg), "%s: CTA (%u,%u,%u) thread (%u,%u,%u) at PTX line %u: %s",
		 G->f->name, s->cta[0], s->cta[1], s->cta[2], t % bx, (t / bx) % by, t / (bx * by),
		 line, s->why);
	out->outcome = s->status == R_FAULT ? CS_GRID_FAULT
		     : s->status == R_BUDGET ? CS_GRID_BUDGET : CS_GRID_ERROR;
	cs_diag_at_text(&out->diag, s->status == R_FAULT ? CS_ERR_FAULT : CS_ERR_UNSUPPORTED, p->name,
			line, 1, "%s", msg);
	if (s->status == R_FAULT) {
		out->fault_va = s->fault_va;
		cs_event ev = cs_event_make(CS_EV_FAULT, CS_STAGE_GR_DISPATCH, CS_UNIT_SM, l->channel);
		ev.launch = l->launch;
		ev.addr = s->fault_va;
		ev.value = (uint64_t)s->fault_access;
		ev.detail = msg;
		cs_trace_emit(&G->bus->trace, &ev);
	}
}

void cs_ptx_run(const cs_ptx_program *p, size_t entry, const cs_ptx_launch *l,
		const cs_bus *bus, cs_grid_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!p || !l || !bus || entry >= p->nentries) {
		fail(out, CS_GRID_ERROR, p ? p->name : "", "no such entry (%zu)", entry);
		return;
	}
	run R;
	memset(&R, 0, sizeof(R));
	R.p = p;
	R.f = &p->funcs[p->entries[entry]];
	R.l = l;
	R.bus = bus;
	snprintf(out->kernel, sizeof(out->kernel), "%s", R.f->name);
	if (R.f->refusal) {
		/* valid PTX the executor cannot run is its limit, not the guest's fault */
		out->outcome = R.f->refusal->status == CS_ERR_UNSUPPORTED ? CS_GRID_UNSUPPORTED
									   : CS_GRID_ERROR;
		out->diag = *R.f->refusal;
		char where[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 32];
		cs_diag_format(R.f->refusal, where, sizeof(where));
		snprintf(out->diag.msg, sizeof(out->diag.msg),
			 "dispatched, not executed: the executor refuses %.60s: %.380s", R.f->name, where);
		return;
	}
	uint64_t regfile;
	if (!launch_setup(&R, l, out, &regfile))
		return;
	uint64_t ctas = grid_ctas(l);
	grid G;
	memset(&G, 0, sizeof(G));
	G.p = p;
	G.f = R.f;
	G.l = l;
	G.bus = bus;
	G.nctas = ctas;
	G.budget = R.cta_budget;
	G.chunk = ctas / 64 < 1 ? 1 : ctas / 64 > CHUNK_MAX ? CHUNK_MAX : ctas / 64;
	atomic_init(&G.end, ctas);
	uint64_t wall = l->max_wall_ns ? l->max_wall_ns : CS_PTX_WALL_DEFAULT_NS;
	clock_gettime(CLOCK_MONOTONIC, &G.deadline);
	G.deadline.tv_sec += (time_t)(wall / 1000000000u);
	G.deadline.tv_nsec += (long)(wall % 1000000000u);
	if (G.deadline.tv_nsec >= 1000000000L) {
		G.deadline.tv_sec++;
		G.deadline.tv_nsec -= 1000000000L;
	}
	unsigned nworkers = worker_count(l, ctas, regfile);
	G.window = calloc(WINDOW, sizeof(cta_slot));
	bool ok = G.window != NULL;
	/* a cooperative grid's CTAs take turns in one fixed order, whatever the threads */
	if (ok && ctas > 1 && !l->cooperative)
		G.atom_cta = atomic_order_table(p, &ok);
	if (ok && !l->var_va && p->module_bytes) {
		G.module_size = ((uint64_t)p->module_bytes + CS_PAGE_SIZE - 1) & ~(uint64_t)(CS_PAGE_SIZE - 1);
		G.module = aligned_alloc(CS_PAGE_SIZE, G.module_size);
		ok = G.module != NULL;
		if (ok) {
			memset(G.module, 0, G.module_size);
			for (size_t i = 0; i < p->nvars; i++)
				memcpy(G.module + p->vars[i].offset, p->vars[i].init, p->vars[i].size);
		}
	}
	R.module = G.module;
	R.module_size = G.module_size;
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&G.mem_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_mutex_init(&G.lock, NULL);
	pthread_cond_init(&G.moved, NULL);
	if (ok)
		ok = l->cooperative ? run_cooperative(&G, &R) : run_workers(&G, &R, nworkers);
	for (uint32_t i = 0; G.window && i < WINDOW; i++)
		held_free(&G.window[i].held);
	free(G.window);
	free(G.pages);
	pthread_cond_destroy(&G.moved);
	pthread_mutex_destroy(&G.lock);
	pthread_mutex_destroy(&G.mem_lock);
	if (!ok) {
		free(G.atom_cta);
		free(G.module);
		fail(out, CS_GRID_ERROR, p->name, "launch of %s: out of memory", R.f->name);
		return;
	}
	emit_range(&R, 0, G.done);
	emit_order_notes(&G);
	free(G.atom_cta);
	free(G.module);
	out->ctas_executed = G.done;
	out->thread_instructions = G.tinstr;
	out->host_threads = G.started;
	grid_report(&G, out);
}
