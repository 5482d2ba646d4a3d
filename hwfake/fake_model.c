/* SPDX-License-Identifier: MIT */
/* The fake GPU's object model (hwfake/fake_model.h): RM objects over the
 * simulator. It refuses what a real RM would refuse (an unknown parent, a
 * handle used twice, freeing a parent before its children) so the replay's
 * object discipline is tested too; the fake driver (fake_rm.c) above it
 * checks the ioctls that carry each call. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/ptxrun.h"
#include "chainsim/run.h"

#include "fake_model.h"
#include "nv_abi.h"

enum { MAX_OBJ = 4096, TOKEN_BASE = 0x1000 };

typedef struct fake_obj {
	bool live;
	uint32_t parent, handle, cls;
	uint8_t *buf;       /* MEMORY: the CPU view */
	uint64_t size, va;
	bool in_sim;        /* MEMORY: mirrored into the simulator */
	int channel;        /* a channel object: its capture id; else -1 */
} fake_obj;

typedef struct fake_chan {
	bool used;
	uint8_t *cpu;       /* ring, then USERD (the channel's memory object) */
	uint8_t *notify;    /* the error notifier (its own memory object) */
	uint32_t entries, pushed;
	uint64_t userd_off;
} fake_chan;

struct cs_fake_model {
	cs_fake_rm_config cfg;
	cs_device *dev;
	fake_obj obj[MAX_OBJ];
	size_t nobj, allocs;
	fake_chan ch[CS_CAPTURE_MAX_CHANNELS];
	uint32_t channels_made;
	uint8_t usermode[CS_HW_USERMODE_SIZE];
	size_t events_seen;
};

static fake_obj *find(cs_fake_model *f, uint32_t h)
{
	for (size_t i = 0; i < f->nobj; i++)
		if (f->obj[i].live && f->obj[i].handle == h)
			return &f->obj[i];
	return NULL;
}

static cs_hw_rc fail(char *why, const char *fmt, uint32_t a, uint32_t b)
{
	snprintf(why, CS_HW_WHY_MAX, fmt, a, b);
	return CS_HW_FAILED;
}

static cs_hw_rc fake_open(void *ctx, unsigned arch_code, char *version, size_t vlen, char *why)
{
	cs_fake_model *f = ctx;
	if (f->cfg.absent) {
		snprintf(why, CS_HW_WHY_MAX, "/dev/nvidiactl: no such device (fake RM told to be absent)");
		return CS_HW_UNAVAILABLE;
	}
	cs_arch arch = CS_ARCH_COUNT;
	for (int a = 0; a < CS_ARCH_COUNT; a++)
		if (cs_capture_arch_code((cs_arch)a) == arch_code)
			arch = (cs_arch)a;
	cs_diag d;
	cs_diag_clear(&d);
	cs_run_opts exec = { .no_exec = f->cfg.no_executor };
	if (arch == CS_ARCH_COUNT || !(f->dev = cs_run_device(arch, &exec, &d))) {
		snprintf(why, CS_HW_WHY_MAX, "fake RM: no simulated %u device: %.160s", arch_code, d.msg);
		return CS_HW_UNAVAILABLE;
	}
	snprintf(version, vlen, "chainsim-%s", "sim");
	return CS_HW_OK;
}

static uint32_t usermode_class(cs_arch a)
{
	return a == CS_ARCH_BLACKWELL ? CS_HW_USERMODE_BLACKWELL
	       : a == CS_ARCH_HOPPER  ? CS_HW_USERMODE_HOPPER
				      : CS_HW_USERMODE_AMPERE;
}

static cs_hw_rc fake_alloc(void *ctx, uint32_t parent, uint32_t handle, uint32_t cls,
			   const cs_hw_alloc_args *a, char *why)
{
	cs_fake_model *f = ctx;
	f->allocs++;
	if (f->cfg.fail_alloc && f->allocs == f->cfg.fail_alloc)
		return fail(why, "fake RM: allocation %u (class 0x%x) fails as told", (uint32_t)f->allocs,
			    cls);
	if (find(f, handle))
		return fail(why, "fake RM: handle 0x%x is in use (class 0x%x)", handle, cls);
	if (cls != CS_HW_ROOT_CLIENT && !find(f, parent))
		return fail(why, "fake RM: parent 0x%x of class 0x%x does not exist", parent, cls);
	if (f->nobj == MAX_OBJ)
		return fail(why, "fake RM: more than %u objects (class 0x%x)", MAX_OBJ, cls);
	fake_obj *o = &f->obj[f->nobj++];
	*o = (fake_obj){ .live = true, .parent = parent, .handle = handle, .cls = cls, .channel = -1 };
	if (cls == CS_HW_MEMORY) {
		if (!a->size || a->size > CS_CAPTURE_MAX_REGION || !(o->buf = calloc(1, a->size))) {
			o->live = false;
			return fail(why, "fake RM: memory of %u KiB refused (class 0x%x)",
				    (uint32_t)(a->size >> 10), cls);
		}
		o->size = a->size;
		o->va = a->gpu_va;
	} else if (cls == cs_arch_get(cs_device_arch(f->dev))->host_class) {
		fake_obj *m = find(f, a->h_memory), *n = find(f, a->h_error);
		uint32_t id, want = f->channels_made;
		cs_diag d;
		cs_diag_clear(&d);
		if (!m || m->cls != CS_HW_MEMORY || !n || n->cls != CS_HW_MEMORY ||
		    n->size < CS_HW_NOTIFY_SIZE || want >= CS_CAPTURE_MAX_CHANNELS ||
		    a->ring_va != m->va || a->userd_offset + CS_HW_USERD_SIZE > m->size ||
		    (uint64_t)a->entries * 8 > a->userd_offset) {
			o->live = false;
			return fail(why, "fake RM: channel %u: bad ring/USERD memory 0x%x", want,
				    a->h_memory);
		}
		char name[32];
		snprintf(name, sizeof(name), want ? "hw%u" : "default", want);
		if (!cs_device_channel(f->dev, name, a->entries, &id, &d) || id != want) {
			o->live = false;
			return fail(why, "fake RM: the simulator made channel %u for %u", id, want);
		}
		f->channels_made++;
		o->channel = (int)id;
		f->ch[id] = (fake_chan){ .used = true, .cpu = m->buf, .notify = n->buf,
					 .entries = a->entries, .userd_off = a->userd_offset };
	}
	return CS_HW_OK;
}

static cs_hw_rc fake_control(void *ctx, uint32_t object, uint32_t cmd, void *params, uint32_t size,
			     char *why)
{
	cs_fake_model *f = ctx;
	fake_obj *o = find(f, object);
	if (!o)
		return fail(why, "fake RM: control 0x%x on unknown object 0x%x", cmd, object);
	if (cmd == CS_HW_CTRL_WORK_SUBMIT_TOKEN && o->channel >= 0 && size == 4) {
		uint32_t token = TOKEN_BASE + (uint32_t)o->channel;
		memcpy(params, &token, 4);
		return CS_HW_OK;
	}
	if (cmd == CS_HW_CTRL_GPFIFO_SCHEDULE && o->cls == CS_HW_CHANNEL_GROUP && size == 4)
		return CS_HW_OK;
	return fail(why, "fake RM: control 0x%x unknown on object 0x%x", cmd, object);
}

static cs_hw_rc fake_free(void *ctx, uint32_t parent, uint32_t handle, char *why)
{
	cs_fake_model *f = ctx;
	fake_obj *o = find(f, handle);
	if (!o || o->parent != parent)
		return fail(why, "fake RM: free of unknown object 0x%x (parent 0x%x)", handle, parent);
	for (size_t i = 0; i < f->nobj; i++)
		if (f->obj[i].live && f->obj[i].parent == handle && f->obj[i].cls != CS_HW_ROOT_CLIENT)
			return fail(why, "fake RM: 0x%x freed before its child 0x%x", handle,
				    f->obj[i].handle);
	if (o->channel >= 0)
		f->ch[o->channel].used = false;
	free(o->buf);
	o->buf = NULL;
	o->live = false;
	return CS_HW_OK;
}

static cs_hw_rc fake_map(void *ctx, uint32_t handle, uint64_t size, void **cpu, char *why)
{
	cs_fake_model *f = ctx;
	fake_obj *o = find(f, handle);
	if (o && o->cls == CS_HW_MEMORY && size <= o->size)
		*cpu = o->buf;
	else if (o && o->cls == usermode_class(cs_device_arch(f->dev)) && size <= sizeof(f->usermode))
		*cpu = f->usermode;
	else
		return fail(why, "fake RM: cannot map object 0x%x (%u bytes)", handle, (uint32_t)size);
	return CS_HW_OK;
}

/* ---- the simulator behind it ------------------------------------------------- */

static bool is_channel_memory(cs_fake_model *f, const fake_obj *o)
{
	for (int i = 0; i < CS_CAPTURE_MAX_CHANNELS; i++)
		if (f->ch[i].used && (f->ch[i].cpu == o->buf || f->ch[i].notify == o->buf))
			return true;
	return false;
}

/* The CPU's writes become visible to the GPU (the replay fenced them). Rings
 * and USERD stay the replay's: the simulator has its own. */
static void to_device(cs_fake_model *f)
{
	cs_mem *mem = cs_device_mem(f->dev);
	for (size_t i = 0; i < f->nobj; i++) {
		fake_obj *o = &f->obj[i];
		if (!o->live || o->cls != CS_HW_MEMORY || !o->va || is_channel_memory(f, o))
			continue;
		uint64_t fault;
		if (!o->in_sim) {
			cs_diag d;
			cs_diag_clear(&d);
			o->in_sim = cs_mem_map(mem, "", o->va, o->size, &d);
		}
		if (o->in_sim)
			cs_mem_write(mem, o->va, o->buf, o->size, &fault);
	}
}

/* What the GPU wrote becomes visible to the CPU: memory, GP_GET, errors. */
static void from_device(cs_fake_model *f)
{
	cs_mem *mem = cs_device_mem(f->dev);
	for (size_t i = 0; i < f->nobj; i++) {
		fake_obj *o = &f->obj[i];
		uint64_t fault;
		if (o->live && o->in_sim)
			cs_mem_read(mem, o->va, o->buf, o->size, &fault);
	}
	for (uint32_t c = 0; c < CS_CAPTURE_MAX_CHANNELS; c++) {
		fake_chan *ch = &f->ch[c];
		cs_device_chan_view v;
		uint32_t get;
		if (ch->used && cs_device_channel_view(f->dev, c, &v) &&
		    cs_device_peek(f->dev, v.userd_va + CS_HW_USERD_GP_GET, &get, 4))
			memcpy(ch->cpu + ch->userd_off + CS_HW_USERD_GP_GET, &get, 4);
	}
	size_t n;
	const cs_event *ev = cs_device_events(f->dev, &n);
	for (; f->events_seen < n; f->events_seen++) {
		const cs_event *e = &ev[f->events_seen];
		if (e->kind != CS_EV_CHANNEL_STOP || e->channel >= CS_CAPTURE_MAX_CHANNELS ||
		    !f->ch[e->channel].used)
			continue;
		uint8_t *nt = f->ch[e->channel].notify;
		uint16_t status;
		memcpy(&status, nt + CS_HW_NOTIFY_STATUS, 2);
		if (status)
			continue; /* the notifier keeps the first error */
		uint32_t rc = cs_capture_rc_for_stop(e);
		status = 0xffff;
		memcpy(nt + CS_HW_NOTIFY_INFO32, &rc, 4);
		memcpy(nt + CS_HW_NOTIFY_STATUS, &status, 2);
	}
}

static void fake_doorbell(void *ctx, volatile uint8_t *usermode, uint32_t token)
{
	cs_fake_model *f = ctx;
	uint32_t c = token - TOKEN_BASE;
	memcpy((uint8_t *)usermode + NVC361_NOTIFY_CHANNEL_PENDING, &token, 4);
	if (f->cfg.hang || c >= CS_CAPTURE_MAX_CHANNELS || !f->ch[c].used)
		return;
	fake_chan *ch = &f->ch[c];
	uint32_t put;
	memcpy(&put, ch->cpu + ch->userd_off + CS_HW_USERD_GP_PUT, 4);
	cs_diag d;
	while (ch->pushed % ch->entries != put % ch->entries) {
		uint32_t w[2];
		memcpy(w, ch->cpu + (uint64_t)(ch->pushed % ch->entries) * 8, 8);
		cs_diag_clear(&d);
		if (!cs_device_gpfifo_push(f->dev, c, w[0], w[1], &d))
			break;
		ch->pushed++;
	}
	to_device(f);
	cs_diag_clear(&d);
	cs_device_submit(f->dev, c, &d);
	from_device(f);
}

static bool fake_pause(void *ctx)
{
	cs_fake_model *f = ctx;
	if (f->cfg.hang) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		return false;
	}
	to_device(f);
	cs_device_run(f->dev);
	from_device(f);
	return true; /* the simulator ran until idle or blocked: nothing more comes */
}

static void fake_close(void *ctx)
{
	cs_fake_model *f = ctx;
	/* the replay released what it holds before closing: say what is left */
	fprintf(stderr, "fake-rm: %zu allocations, %zu objects still allocated\n", f->allocs,
		cs_fake_model_live(f));
	cs_device_free(f->dev);
	f->dev = NULL;
}

static cs_hw_rc fake_module(void *ctx, const char *name, const uint8_t *file, uint64_t len,
			    const uint8_t *ptx, uint64_t nptx, char *why)
{
	cs_fake_model *f = ctx;
	struct cs_ptx_runtime *rt = cs_device_ptx(f->dev);
	if (!rt)
		return CS_HW_OK;
	cs_diag d;
	cs_diag_clear(&d);
	cs_module *m = cs_module_load_bytes(file, len, name, cs_device_arch(f->dev), &d);
	bool ok = m && (!ptx || cs_module_attach_ptx(m, (const char *)ptx, nptx, &d)) &&
		  cs_ptx_runtime_add(rt, m, &d);
	cs_module_free(m);
	if (!ok) {
		snprintf(why, CS_HW_WHY_MAX, "fake RM: module '%.40s': %.160s", name, d.msg);
		return CS_HW_FAILED;
	}
	return CS_HW_OK;
}

cs_fake_model *cs_fake_model_new(const cs_fake_rm_config *cfg)
{
	cs_fake_model *f = calloc(1, sizeof(*f));
	if (f)
		f->cfg = *cfg;
	return f;
}

size_t cs_fake_model_live(const cs_fake_model *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->nobj; i++)
		n += f->obj[i].live;
	return n;
}

size_t cs_fake_model_allocs(const cs_fake_model *f)
{
	return f->allocs;
}

bool cs_fake_model_object(const cs_fake_model *f, uint32_t handle, uint32_t *cls, uint64_t *size,
			  uint64_t *va)
{
	const fake_obj *o = find((cs_fake_model *)f, handle);
	if (o) {
		*cls = o->cls;
		*size = o->size;
		*va = o->va;
	}
	return o != NULL;
}

bool cs_fake_model_set_va(cs_fake_model *f, uint32_t handle, uint64_t va)
{
	fake_obj *o = find(f, handle);
	if (!o || o->cls != CS_HW_MEMORY || o->in_sim)
		return false;
	o->va = va;
	return true;
}

size_t cs_fake_model_class_list(const cs_fake_model *f, uint32_t *out, size_t max)
{
	cs_arch a = cs_device_arch(f->dev);
	size_t n = 0;
	for (uint32_t cls = 0xc000; cls <= 0xcfff && n < max; cls++)
		if (cs_class_valid_for(cls, a) && cls != f->cfg.lacks_class)
			out[n++] = cls;
	if (n < max)
		out[n++] = usermode_class(a);
	return n;
}

void cs_fake_model_free(cs_fake_model *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nobj; i++)
		free(f->obj[i].buf);
	cs_device_free(f->dev);
	free(f);
}

const cs_hw_rm_ops cs_fake_model_ops = {
	.name = "fake-rm",
	.open = fake_open,
	.alloc = fake_alloc,
	.control = fake_control,
	.free = fake_free,
	.map = fake_map,
	.doorbell = fake_doorbell,
	.pause = fake_pause,
	.close = fake_close,
	.module = fake_module,
};
