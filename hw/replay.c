/* SPDX-License-Identifier: MIT */
/* The replay above the ioctl layer: the RM object sequence, memory at the
 * capture's addresses, ring entries, GP_PUT and the doorbell, polled waits
 * with deadlines, read-backs, and the release of every object on every path.
 * libc only. The only state is the session below, on the caller's stack. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hw.h"

enum { MAX_OBJECTS = 4096, PAGE = 4096 };

typedef struct hw_obj {
	uint32_t parent, handle, cls;
	void *cpu;      /* mapped, when not NULL */
	uint64_t size;
} hw_obj;

typedef struct hw_channel {
	uint32_t handle, token, put, entries;
	uint8_t *cpu;   /* ring, then USERD */
	uint8_t *notify;/* the error notifier (its own memory object) */
	uint64_t userd_off;
} hw_channel;

typedef struct hw_region {
	uint64_t va, size;
	uint8_t *cpu;
} hw_region;

typedef struct hw_session {
	const cs_hw_rm_ops *ops;
	void *rm;
	const cs_capture *cap;
	const cs_hw_limits *lim;
	cs_results *res;
	char *why;
	hw_obj *objs;
	size_t nobjs;
	uint32_t next_handle;
	uint32_t client, device, subdevice, usermode, vaspace, virtual, group, ctxshare;
	volatile uint8_t *usermode_cpu;
	hw_channel ch[CS_CAPTURE_MAX_CHANNELS];
	uint32_t nch;
	hw_region *regions;
	size_t nregions;
	uint64_t next_va;  /* where the replay places its own rings */
	uint64_t t_end;    /* the overall deadline */
	sigset_t sigs;
	int signal;
	bool broken;       /* a wait unmet or a channel error */
} hw_session;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A signal that arrived while blocked, or the overall deadline passed: the
 * replay stops and releases what it holds. */
static bool must_stop(hw_session *s)
{
	sigset_t pending;
	if (!s->signal && sigpending(&pending) == 0)
		for (int sig = 1; sig < NSIG; sig++)
			if (sigismember(&s->sigs, sig) && sigismember(&pending, sig)) {
				s->signal = sig;
				snprintf(s->why, CS_HW_WHY_MAX, "stopped by signal %d", sig);
				break;
			}
	if (!s->signal && now_ns() > s->t_end) {
		snprintf(s->why, CS_HW_WHY_MAX, "the replay passed its overall timeout");
		return true;
	}
	return s->signal != 0;
}

/* ---- objects ------------------------------------------------------------------ */

static int rc_exit(cs_hw_rc rc)
{
	return rc == CS_HW_UNAVAILABLE ? CS_HW_EXIT_UNAVAILABLE : CS_HW_EXIT_INTERNAL;
}

/* Allocate and remember (for release in reverse order). 0 or an exit status. */
static int obj_alloc(hw_session *s, uint32_t parent, uint32_t cls, const cs_hw_alloc_args *a,
		     uint32_t *handle)
{
	if (s->nobjs == MAX_OBJECTS) {
		snprintf(s->why, CS_HW_WHY_MAX, "more than %d RM objects", MAX_OBJECTS);
		return CS_HW_EXIT_INTERNAL;
	}
	uint32_t h = s->next_handle++;
	cs_hw_alloc_args none = { 0 };
	cs_hw_rc rc = s->ops->alloc(s->rm, parent, h, cls, a ? a : &none, s->why);
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	s->objs[s->nobjs++] = (hw_obj){ .parent = parent, .handle = h, .cls = cls };
	*handle = h;
	return 0;
}

static int obj_map(hw_session *s, uint32_t handle, uint64_t size, void **cpu)
{
	void *p = NULL;
	cs_hw_rc rc = s->ops->map(s->rm, handle, size, &p, s->why);
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	for (size_t i = 0; i < s->nobjs; i++)
		if (s->objs[i].handle == handle) {
			s->objs[i].cpu = p;
			s->objs[i].size = size;
		}
	*cpu = p;
	return 0;
}

static void release_all(hw_session *s)
{
	char why[CS_HW_WHY_MAX];
	while (s->nobjs) {
		hw_obj *o = &s->objs[--s->nobjs];
		if (o->cpu)
			s->ops->unmap(s->rm, o->handle, o->cpu, o->size);
		s->ops->free(s->rm, o->parent, o->handle, why);
	}
}

static uint64_t round_page(uint64_t n)
{
	return (n + PAGE - 1) & ~(uint64_t)(PAGE - 1);
}

/* A VA for the replay's own memory that no capture region uses. */
static uint64_t free_va(hw_session *s, uint64_t size)
{
	for (;;) {
		uint64_t va = s->next_va;
		bool clash = false;
		for (size_t i = 0; i < s->cap->nitems; i++) {
			const cs_capture_item *it = &s->cap->items[i];
			if (it->type == CS_CAP_REGION && va < it->host_va + it->size &&
			    it->host_va < va + size) {
				s->next_va = round_page(it->host_va + it->size);
				clash = true;
			}
		}
		if (!clash) {
			s->next_va = va + round_page(size);
			return va;
		}
	}
}

/* ---- setup -------------------------------------------------------------------- */

static int setup_device(hw_session *s)
{
	int e;
	uint32_t um_class;
	cs_hw_alloc_args vas = { 0 };
	if ((e = obj_alloc(s, 0, CS_HW_ROOT_CLIENT, NULL, &s->client)) ||
	    (e = obj_alloc(s, s->client, CS_HW_DEVICE, NULL, &s->device)) ||
	    (e = obj_alloc(s, s->device, CS_HW_SUBDEVICE, NULL, &s->subdevice)))
		return e;
	const uint32_t need[] = { s->cap->host_class, s->cap->compute_class, s->cap->copy_class };
	cs_hw_rc rc = s->ops->classes(s->rm, s->device, need, 3, &um_class, s->why);
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	void *um;
	if ((e = obj_alloc(s, s->subdevice, um_class, NULL, &s->usermode)) ||
	    (e = obj_map(s, s->usermode, CS_HW_USERMODE_SIZE, &um)))
		return e;
	s->usermode_cpu = um;
	if ((e = obj_alloc(s, s->device, CS_HW_VASPACE, NULL, &s->vaspace)))
		return e;
	vas.h_vaspace = s->vaspace;
	if ((e = obj_alloc(s, s->device, CS_HW_VIRTUAL, &vas, &s->virtual)) ||
	    (e = obj_alloc(s, s->device, CS_HW_CHANNEL_GROUP, &vas, &s->group)) ||
	    (e = obj_alloc(s, s->group, CS_HW_CONTEXT_SHARE, &vas, &s->ctxshare)))
		return e;
	return 0;
}

/* GPU-visible memory at va, mapped for the CPU and zeroed. */
static int memory(hw_session *s, uint64_t size, uint64_t va, uint32_t *mem, uint8_t **cpu)
{
	cs_hw_alloc_args m = { .size = size, .gpu_va = va, .h_virtual = s->virtual };
	void *p;
	int e;
	if ((e = obj_alloc(s, s->device, CS_HW_MEMORY, &m, mem)) || (e = obj_map(s, *mem, size, &p)))
		return e;
	memset(p, 0, size);
	*cpu = p;
	return 0;
}

static int setup_channel(hw_session *s, const cs_capture_item *it)
{
	hw_channel *ch = &s->ch[it->channel];
	if (it->entries & (it->entries - 1)) { /* the GPU takes the ring's size as its log2 */
		snprintf(s->why, CS_HW_WHY_MAX, "channel %u: a ring of %u entries; a GPU's ring is a "
			 "power of two (docs/scenario.md)", it->channel, it->entries);
		return CS_HW_EXIT_INPUT;
	}
	ch->entries = it->entries;
	ch->userd_off = round_page((uint64_t)it->entries * 8);
	uint64_t size = round_page(ch->userd_off + CS_HW_USERD_SIZE);
	uint32_t mem, error, obj;
	uint64_t ring_va = free_va(s, size);
	int e;
	if ((e = memory(s, size, ring_va, &mem, &ch->cpu)) ||
	    (e = memory(s, PAGE, free_va(s, PAGE), &error, &ch->notify)))
		return e;
	cs_hw_alloc_args a = { .h_ctxshare = s->ctxshare, .h_memory = mem, .h_error = error,
			       .ring_va = ring_va, .entries = it->entries,
			       .userd_offset = ch->userd_off };
	if ((e = obj_alloc(s, s->group, s->cap->host_class, &a, &ch->handle)) ||
	    (e = obj_alloc(s, ch->handle, s->cap->compute_class, NULL, &obj)) ||
	    (e = obj_alloc(s, ch->handle, s->cap->copy_class, NULL, &obj)))
		return e;
	uint32_t token = 0;
	cs_hw_rc rc = s->ops->control(s->rm, ch->handle, CS_HW_CTRL_WORK_SUBMIT_TOKEN, &token,
				      sizeof(token), s->why);
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	ch->token = token;
	s->nch++;
	return 0;
}

static int setup_region(hw_session *s, const cs_capture_item *it)
{
	uint32_t mem;
	uint8_t *cpu;
	int e;
	if ((e = memory(s, round_page(it->size), it->host_va, &mem, &cpu)))
		return e;
	memcpy(cpu, it->bytes, it->nbytes);
	hw_region *nr = realloc(s->regions, (s->nregions + 1) * sizeof(*nr));
	if (!nr) {
		snprintf(s->why, CS_HW_WHY_MAX, "out of memory");
		return CS_HW_EXIT_INTERNAL;
	}
	s->regions = nr;
	s->regions[s->nregions++] = (hw_region){ it->va, it->size, cpu };
	return 0;
}

/* The CPU view of [va, va + len) in one region, or NULL. */
static uint8_t *cpu_at(hw_session *s, uint64_t va, uint64_t len)
{
	for (size_t i = 0; i < s->nregions; i++) {
		hw_region *r = &s->regions[i];
		if (va >= r->va && len <= r->size && va - r->va <= r->size - len)
			return r->cpu + (va - r->va);
	}
	return NULL;
}

/* ---- actions ------------------------------------------------------------------ */

static uint32_t load32(const volatile uint8_t *p)
{
	uint32_t v;
	memcpy(&v, (const void *)p, 4);
	return v;
}

static void store32(volatile uint8_t *p, uint32_t v)
{
	memcpy((void *)p, &v, 4);
}

static void gpfifo(hw_session *s, const cs_capture_item *it)
{
	hw_channel *ch = &s->ch[it->channel];
	volatile uint8_t *slot = ch->cpu + (uint64_t)(ch->put % ch->entries) * 8;
	store32(slot, it->lo);
	store32(slot + 4, it->hi);
	ch->put++;
}

static bool gpget_observable(const cs_capture *c)
{
	/* docs/hardware.md: hardware newer than Ampere refreshes it only
	 * periodically (Blackwell never): observable on Ampere (arch code 1) only */
	return cs_capture_arch_code(c->arch) == 1;
}

static int submit(hw_session *s, const cs_capture_item *it)
{
	hw_channel *ch = &s->ch[it->channel];
	uint32_t put = ch->put % ch->entries;
	/* the ring entries before GP_PUT, GP_PUT before the doorbell */
	atomic_thread_fence(memory_order_seq_cst);
	store32(ch->cpu + ch->userd_off + CS_HW_USERD_GP_PUT, put);
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t t0 = now_ns();
	s->ops->doorbell(s->rm, s->usermode_cpu, ch->token);
	s->res->ran++;
	/* Let it run: until GP_GET reaches GP_PUT where the GPU shows it, else
	 * for the settle time (or until the layer knows it is idle). */
	uint64_t until = t0 + s->lim->settle_ns;
	bool settled = false;
	while (!settled && now_ns() < until && !must_stop(s)) {
		if (gpget_observable(s->cap) &&
		    load32(ch->cpu + ch->userd_off + CS_HW_USERD_GP_GET) == put)
			break;
		settled = s->ops->pause(s->rm);
	}
	if (s->signal)
		return CS_HW_EXIT_INTERNAL;
	int64_t get = gpget_observable(s->cap)
			      ? (int64_t)load32(ch->cpu + ch->userd_off + CS_HW_USERD_GP_GET)
			      : CS_RESULTS_NOT_OBSERVABLE;
	cs_results_rec r = { .kind = CS_RES_SUBMIT, .a = it->channel, .b = put, .c = get,
			     .ns = now_ns() - t0 };
	return cs_results_add(s->res, &r, NULL) ? 0 : CS_HW_EXIT_INTERNAL;
}

static uint64_t load_width(const volatile uint8_t *p, uint64_t width)
{
	uint64_t v = 0;
	memcpy(&v, (const void *)p, width);
	return v;
}

static bool wait_met(const cs_capture_item *it, uint64_t seen)
{
	return it->aux == CS_CAP_WAIT_GEQ ? seen >= it->value : seen == it->value;
}

static int wait(hw_session *s, const cs_capture_item *it)
{
	volatile uint8_t *p = cpu_at(s, it->va, it->size);
	uint64_t until = now_ns() + s->lim->wait_ns;
	bool met = false;
	while (p) {
		atomic_thread_fence(memory_order_seq_cst);
		if ((met = wait_met(it, load_width(p, it->size))))
			break;
		if (now_ns() > until || must_stop(s))
			break;
		if (s->ops->pause(s->rm)) { /* nothing more will happen: one last look */
			atomic_thread_fence(memory_order_seq_cst);
			met = wait_met(it, load_width(p, it->size));
			break;
		}
	}
	if (s->signal)
		return CS_HW_EXIT_INTERNAL;
	if (!met)
		s->broken = true;
	cs_results_rec r = { .kind = CS_RES_WAIT, .va = it->va, .a = it->size, .b = it->value,
			     .c = p ? (int64_t)load_width(p, it->size) : 0, .met = met };
	return cs_results_add(s->res, &r, NULL) ? 0 : CS_HW_EXIT_INTERNAL;
}

static int finish(hw_session *s)
{
	atomic_thread_fence(memory_order_seq_cst);
	for (uint32_t i = 0; i < s->nch; i++) {
		const uint8_t *n = s->ch[i].notify;
		uint16_t status;
		memcpy(&status, n + CS_HW_NOTIFY_STATUS, 2);
		if (!status)
			continue;
		s->broken = true;
		cs_results_rec r = { .kind = CS_RES_ERROR, .a = i, .b = load32(n + CS_HW_NOTIFY_INFO32) };
		if (!cs_results_add(s->res, &r, NULL))
			return CS_HW_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < s->cap->nitems; i++) {
		const cs_capture_item *it = &s->cap->items[i];
		if (it->type != CS_CAP_READBACK)
			continue;
		cs_results_rec r = { .kind = CS_RES_READ, .va = it->va, .a = it->size, .b = it->aux };
		if (!cs_results_add(s->res, &r, cpu_at(s, it->va, it->size)))
			return CS_HW_EXIT_INTERNAL;
	}
	return 0;
}

static int run_items(hw_session *s)
{
	int e = setup_device(s);
	/* channels first: the group is scheduled once, with all of them in it */
	for (size_t i = 0; !e && i < s->cap->nitems; i++)
		if (s->cap->items[i].type == CS_CAP_CHANNEL)
			e = setup_channel(s, &s->cap->items[i]);
	if (e)
		return e;
	uint32_t enable = 1;
	cs_hw_rc rc = s->ops->control(s->rm, s->group, CS_HW_CTRL_GPFIFO_SCHEDULE, &enable,
				      sizeof(enable), s->why);
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	for (size_t i = 0; i < s->cap->nitems; i++) {
		const cs_capture_item *it = &s->cap->items[i];
		if (must_stop(s))
			return CS_HW_EXIT_INTERNAL;
		uint8_t *dst;
		switch (it->type) {
		case CS_CAP_REGION:
			e = setup_region(s, it);
			break;
		case CS_CAP_WRITE:
			if ((dst = cpu_at(s, it->va, it->nbytes)))
				memcpy(dst, it->bytes, it->nbytes);
			break;
		case CS_CAP_GPFIFO:
			gpfifo(s, it);
			break;
		case CS_CAP_SUBMIT:
			e = submit(s, it);
			break;
		case CS_CAP_WAIT:
			e = wait(s, it);
			break;
		case CS_CAP_MODULE:
			if (s->ops->module) {
				cs_hw_rc rc = s->ops->module(s->rm, it->name, it->bytes, it->nbytes,
							     it->ptx, it->nptx, s->why);
				e = rc == CS_HW_OK ? 0 : rc_exit(rc);
			}
			break;
		default: /* channel (done), build (the simulator's), read-back (at the end) */
			break;
		}
		if (e)
			return e;
	}
	return finish(s);
}

/* A GPU gives a cooperative grid its workspace (%envreg1/%envreg2) only
 * through the driver's cooperative launch, which is not public and which
 * submitting the capture's ring entries does not make: replayed as a plain
 * launch, the grid's this_grid().sync() would trap (docs/cooperative.md). */
static int refuse_cooperative(const cs_capture *c, char *why)
{
	for (size_t i = 0; i < c->nitems; i++) {
		const cs_capture_item *it = &c->items[i];
		if (it->type != CS_CAP_COOPERATIVE)
			continue;
		snprintf(why, CS_HW_WHY_MAX,
			 "byte 0x%llx: a cooperative launch (QMD 0x%llx) cannot be replayed: a GPU "
			 "gives its grid the workspace only through the driver's cooperative launch, "
			 "not through ring entries; nothing ran",
			 (unsigned long long)it->offset, (unsigned long long)it->va);
		return CS_HW_EXIT_INPUT;
	}
	return 0;
}

int cs_hw_replay(const cs_capture *c, const cs_hw_rm_ops *ops, void *rm,
		 const cs_hw_limits *lim, cs_results *res, int *signal_out, char *why)
{
	char version[64] = "";
	why[0] = 0;
	*signal_out = 0;
	int refused = refuse_cooperative(c, why);
	if (refused) {
		cs_results_init(res, ops->name, version, c->crc, cs_capture_arch_code(c->arch));
		return refused;
	}
	cs_hw_rc rc = ops->open(rm, cs_capture_arch_code(c->arch), version, sizeof(version), why);
	cs_results_init(res, ops->name, version, c->crc, cs_capture_arch_code(c->arch));
	if (rc != CS_HW_OK)
		return rc_exit(rc);
	hw_session s = { .ops = ops, .rm = rm, .cap = c, .lim = lim, .res = res, .why = why,
			 .next_handle = 0xc5000001u, .next_va = 0x100000000ull,
			 .t_end = now_ns() + lim->total_ns };
	sigemptyset(&s.sigs);
	sigaddset(&s.sigs, SIGINT);
	sigaddset(&s.sigs, SIGTERM);
	sigaddset(&s.sigs, SIGHUP);
	sigaddset(&s.sigs, SIGQUIT);
	s.objs = calloc(MAX_OBJECTS, sizeof(*s.objs));
	int e = s.objs ? run_items(&s) : CS_HW_EXIT_INTERNAL;
	if (!s.objs)
		snprintf(why, CS_HW_WHY_MAX, "out of memory");
	if (s.objs)
		release_all(&s);
	free(s.objs);
	free(s.regions);
	ops->close(rm);
	*signal_out = s.signal;
	if (!e && s.broken)
		e = CS_HW_EXIT_BROKEN;
	return e;
}
