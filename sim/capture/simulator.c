/* SPDX-License-Identifier: MIT */
/* Captures on the simulator: export a scenario's guest actions, and replay a
 * capture on a device with the observables a GPU would show (docs/capture.md).
 * The exporter watches the scenario through its tap and compares memory with
 * a shadow at each device action, so guest writes between submissions become
 * write records and device writes never do. */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "chainsim/capture.h"
#include "chainsim/file.h"
#include "chainsim/device.h"
#include "chainsim/ptxrun.h"
#include "chainsim/results.h"
#include "chainsim/scenario.h"

/* The device's own regions (ring, USERD) are the backend's, not the guest's. */
static bool device_owned(const cs_region *r)
{
	return !strncmp(r->name, "chainsim.", 9);
}

typedef struct shadow_region {
	uint64_t va, size;
	uint8_t *bytes;
} shadow_region;

typedef struct exporter {
	cs_device *dev;
	cs_capture_writer *w;
	cs_diag *d;
	bool failed;
	GArray *shadow;     /* shadow_region, what the guest last saw */
	GArray *waits;      /* cs_capture_item READBACK of wait addresses */
	GArray *expects;    /* cs_capture_item READBACK of expect mem ranges */
	uint32_t nchannels; /* channel records written */
	uint8_t *buf;       /* scratch for region bytes */
	size_t buf_cap;
} exporter;

static void add(exporter *e, const cs_capture_item *it)
{
	if (!e->failed && !cs_capture_writer_add(e->w, it, e->d))
		e->failed = true;
}

static uint8_t *scratch(exporter *e, size_t n)
{
	if (n > e->buf_cap) {
		uint8_t *nb = realloc(e->buf, n);
		if (!nb) {
			cs_diag_set(e->d, CS_ERR_NOMEM, "out of memory exporting");
			e->failed = true;
			return NULL;
		}
		e->buf = nb;
		e->buf_cap = n;
	}
	return e->buf;
}

static shadow_region *shadow_of(exporter *e, uint64_t va)
{
	for (guint i = 0; i < e->shadow->len; i++) {
		shadow_region *s = &g_array_index(e->shadow, shadow_region, i);
		if (s->va == va)
			return s;
	}
	return NULL;
}

/* Runs of changed bytes closer than this are written as one record. */
enum { WRITE_GAP = 16 };

/* The guest acted between the last device action and now: new regions with
 * their bytes, and writes into old ones. */
static void sync_guest(exporter *e)
{
	cs_mem *mem = cs_device_mem(e->dev);
	for (size_t i = 0; i < cs_mem_region_count(mem) && !e->failed; i++) {
		const cs_region *r = cs_mem_region(mem, i);
		if (device_owned(r))
			continue;
		uint8_t *now = scratch(e, r->size);
		uint64_t fault;
		if (!now)
			return;
		if (!cs_mem_read(mem, r->va, now, r->size, &fault))
			memset(now, 0, r->size);
		shadow_region *s = shadow_of(e, r->va);
		if (!s) {
			uint64_t n = r->size;
			while (n && !now[n - 1])
				n--;
			cs_capture_item it = { .type = CS_CAP_REGION, .va = r->va, .host_va = r->va,
					       .size = r->size, .bytes = now, .nbytes = n };
			snprintf(it.name, sizeof(it.name), "%s", r->name);
			add(e, &it);
			shadow_region ns = { r->va, r->size, g_memdup2(now, r->size) };
			g_array_append_val(e->shadow, ns);
			continue;
		}
		for (uint64_t k = 0; k < s->size;) {
			if (now[k] == s->bytes[k]) {
				k++;
				continue;
			}
			uint64_t end = k + 1, same = 0;
			for (uint64_t j = k + 1; j < s->size && same < WRITE_GAP; j++) {
				if (now[j] != s->bytes[j]) {
					end = j + 1;
					same = 0;
				} else {
					same++;
				}
			}
			cs_capture_item it = { .type = CS_CAP_WRITE, .va = s->va + k, .bytes = now + k,
					       .nbytes = end - k };
			add(e, &it);
			memcpy(s->bytes + k, now + k, end - k);
			k = end;
		}
	}
}

/* After the device ran: what it wrote is not the guest's doing. */
static void tap_ran(void *ctx)
{
	exporter *e = ctx;
	cs_mem *mem = cs_device_mem(e->dev);
	for (guint i = 0; i < e->shadow->len; i++) {
		shadow_region *s = &g_array_index(e->shadow, shadow_region, i);
		uint64_t fault;
		cs_mem_read(mem, s->va, s->bytes, s->size, &fault);
	}
}

static void channel_record(exporter *e, uint32_t id)
{
	while (e->nchannels <= id) {
		cs_device_chan_view v;
		cs_capture_item it = { .type = CS_CAP_CHANNEL, .channel = e->nchannels };
		if (!cs_device_channel_view(e->dev, e->nchannels, &v))
			return;
		it.entries = v.entries;
		snprintf(it.name, sizeof(it.name), "%s", cs_device_channel_name(e->dev, e->nchannels));
		add(e, &it);
		e->nchannels++;
	}
}

static void tap_channel(void *ctx, const char *name, uint32_t id)
{
	(void)name;
	channel_record(ctx, id);
}

static void tap_gpfifo(void *ctx, uint32_t ch, uint32_t lo, uint32_t hi)
{
	exporter *e = ctx;
	sync_guest(e);
	cs_capture_item it = { .type = CS_CAP_GPFIFO, .channel = ch, .lo = lo, .hi = hi };
	add(e, &it);
}

static void tap_submit(void *ctx, uint32_t ch)
{
	exporter *e = ctx;
	sync_guest(e);
	cs_capture_item it = { .type = CS_CAP_SUBMIT, .channel = ch };
	add(e, &it);
}

static void tap_wait(void *ctx, uint64_t addr, uint64_t value, bool is64, cs_wait_cmp cmp)
{
	exporter *e = ctx;
	sync_guest(e);
	cs_capture_item it = { .type = CS_CAP_WAIT, .va = addr, .value = value,
			       .size = is64 ? 8 : 4,
			       .aux = cmp == CS_WAIT_GEQ ? CS_CAP_WAIT_GEQ : CS_CAP_WAIT_EQ };
	add(e, &it);
	cs_capture_item rb = { .type = CS_CAP_READBACK, .va = addr, .size = is64 ? 8 : 4,
			       .aux = CS_CAP_RB_WAIT };
	g_array_append_val(e->waits, rb);
}

static void tap_record(void *ctx, const cs_event *ev)
{
	exporter *e = ctx;
	sync_guest(e);
	const char *det = ev->detail ? ev->detail : "";
	cs_capture_item it = { .type = CS_CAP_BUILD, .channel = ev->channel, .va = ev->addr,
			       .value = ev->value, .aux = ev->aux, .bytes = (const uint8_t *)det,
			       .nbytes = strnlen(det, 255) };
	add(e, &it);
}

static void tap_module(void *ctx, const char *path, const char *ptx_path)
{
	exporter *e = ctx;
	char *file = NULL, *ptx = NULL;
	size_t flen = 0, plen = 0;
	if (!cs_file_read(path, CS_FILE_MAX_BINARY, "the module", &file, &flen, e->d) ||
	    (ptx_path && !cs_file_read(ptx_path, CS_FILE_MAX_PTX, "the PTX", &ptx, &plen, e->d))) {
		e->failed = true;
	} else {
		cs_capture_item it = { .type = CS_CAP_MODULE, .bytes = (uint8_t *)file, .nbytes = flen,
				       .ptx = (uint8_t *)ptx, .nptx = plen };
		const char *base = strrchr(path, '/');
		snprintf(it.name, sizeof(it.name), "%.63s", base ? base + 1 : path);
		add(e, &it);
		if (ptx_path && plen) {
			/* the file's last component: its folder is the exporting machine's */
			cs_capture_item named = { .type = CS_CAP_PTX_NAME };
			base = strrchr(ptx_path, '/');
			snprintf(named.name, sizeof(named.name), "%.63s", base ? base + 1 : ptx_path);
			add(e, &named);
		}
	}
	free(file);
	free(ptx);
}

static void tap_cooperative(void *ctx, uint64_t qmd_va, uint64_t workspace_va)
{
	exporter *e = ctx;
	sync_guest(e); /* the QMD's and the workspace's regions come first */
	cs_capture_item it = { .type = CS_CAP_COOPERATIVE, .va = qmd_va, .value = workspace_va };
	add(e, &it);
}

static void tap_expect_mem(void *ctx, uint64_t va, uint64_t len)
{
	exporter *e = ctx;
	cs_capture_item rb = { .type = CS_CAP_READBACK, .va = va, .size = len,
			       .aux = CS_CAP_RB_MEMORY };
	g_array_append_val(e->expects, rb);
}

static bool in_guest_region(cs_device *dev, uint64_t va, uint64_t len)
{
	const cs_region *r = cs_mem_region_at(cs_device_mem(dev), va);
	return r && !device_owned(r) && len <= r->size && va - r->va <= r->size - len &&
	       len <= CS_CAPTURE_MAX_READBACK;
}

/* Read-backs: waits, the releases the run wrote (payload only: the timestamp
 * of a four-word release differs on every run), the expected memory. */
static void add_readbacks(exporter *e)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(cs_capture_item));
	size_t n;
	const cs_event *ev = cs_device_events(e->dev, &n);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind != CS_EV_SEM_RELEASE)
			continue;
		cs_capture_item rb = { .type = CS_CAP_READBACK, .va = ev[i].addr,
				       .size = (ev[i].aux & 0xff) == 8 ? 8 : 4,
				       .aux = ev[i].unit == CS_UNIT_FE ? CS_CAP_RB_HOST_SEM
								       : CS_CAP_RB_RELEASE };
		g_array_append_val(all, rb);
	}
	/* after the releases: a wait on a release's address reads it once, as
	 * the release (stage 10; the wait record itself stands for stage 11) */
	g_array_append_vals(all, e->waits->data, e->waits->len);
	g_array_append_vals(all, e->expects->data, e->expects->len);
	for (guint i = 0; i < all->len; i++) {
		cs_capture_item *rb = &g_array_index(all, cs_capture_item, i);
		bool dup = false;
		for (guint j = 0; j < i && !dup; j++) {
			cs_capture_item *o = &g_array_index(all, cs_capture_item, j);
			dup = o->va == rb->va && o->size == rb->size;
		}
		if (dup || !in_guest_region(e->dev, rb->va, rb->size))
			continue;
		cs_device_addr_name(e->dev, rb->va, rb->name, sizeof(rb->name));
		add(e, rb);
	}
	g_array_free(all, TRUE);
}

/* Whole named regions, as memory read-backs. */
static void add_region_reads(exporter *e, const char *const *reads, size_t nreads)
{
	for (size_t i = 0; i < nreads && !e->failed; i++) {
		const cs_region *r = cs_mem_region_named(cs_device_mem(e->dev), reads[i]);
		if (!r || device_owned(r)) {
			cs_diag_set(e->d, CS_ERR_INPUT, "--read %s: the scenario has no region of that "
				    "name", reads[i]);
			e->failed = true;
			return;
		}
		for (uint64_t off = 0; off < r->size; off += CS_CAPTURE_MAX_READBACK) {
			uint64_t n = r->size - off;
			cs_capture_item rb = { .type = CS_CAP_READBACK, .va = r->va + off,
					       .size = n < CS_CAPTURE_MAX_READBACK ? n : CS_CAPTURE_MAX_READBACK,
					       .aux = CS_CAP_RB_MEMORY };
			snprintf(rb.name, sizeof(rb.name), "%.40s+0x%llx", r->name, (unsigned long long)off);
			add(e, &rb);
		}
	}
}

bool cs_capture_export(cs_scenario *s, cs_device *dev, cs_capture_writer *w, cs_diag *d)
{
	return cs_capture_export_reading(s, dev, w, NULL, 0, d);
}

bool cs_capture_export_reading(cs_scenario *s, cs_device *dev, cs_capture_writer *w,
			       const char *const *reads, size_t nreads, cs_diag *d)
{
	exporter e = { .dev = dev, .w = w, .d = d };
	e.shadow = g_array_new(FALSE, FALSE, sizeof(shadow_region));
	e.waits = g_array_new(FALSE, FALSE, sizeof(cs_capture_item));
	e.expects = g_array_new(FALSE, FALSE, sizeof(cs_capture_item));
	cs_scenario_tap tap = { .ctx = &e, .channel = tap_channel, .gpfifo = tap_gpfifo,
				.submit = tap_submit, .wait = tap_wait, .ran = tap_ran,
				.record = tap_record, .module = tap_module,
				.cooperative = tap_cooperative, .expect_mem = tap_expect_mem };
	channel_record(&e, 0); /* the default channel exists from the start */
	cs_diag sd;
	cs_diag_clear(&sd);
	bool ok = cs_scenario_execute_tapped(s, dev, &tap, &sd);
	if (!ok && !e.failed)
		*d = sd;
	/* A capture holds the guest's memory and entries only: what a host view
	 * and a forwarding's edits made of them would be lost, so it is refused. */
	size_t nev;
	const cs_event *ev = cs_device_events(dev, &nev);
	bool edited = false;
	for (size_t i = 0; i < nev && !edited; i++)
		edited = ev[i].kind == CS_EV_HOST_EDIT;
	if (ok && !e.failed && (cs_device_window_count(dev) || edited)) {
		cs_diag_set(d, CS_ERR_INPUT, "%s: the scenario %s; a capture holds only the guest's "
			    "view and its entries, so it cannot be exported", cs_scenario_name(s),
			    edited ? "rewrites what the host forwards (rewrite)"
				   : "maps a host view (map, alloc host=)");
		ok = false;
	}
	if (ok && !e.failed) {
		sync_guest(&e); /* the guest's last writes, after its last action */
		add_readbacks(&e);
		add_region_reads(&e, reads, nreads);
	}
	for (guint i = 0; i < e.shadow->len; i++)
		g_free(g_array_index(e.shadow, shadow_region, i).bytes);
	g_array_free(e.shadow, TRUE);
	g_array_free(e.waits, TRUE);
	g_array_free(e.expects, TRUE);
	free(e.buf);
	return ok && !e.failed;
}

/* ---- replay ------------------------------------------------------------------ */

/* *Assumed* (nverror.h's Xid numbers; no public table maps stop reasons to
 * them): a fault is 31 (FIFO MMU fault), an engine's stop 13 (GR exception),
 * anything else the front end stopped on 32 (PBDMA error). */
uint32_t cs_capture_rc_for_stop(const cs_event *stop)
{
	if (stop->cause == CS_CAUSE_PB_UNMAPPED || stop->cause == CS_CAUSE_EARLIER_FAULT ||
	    stop->cause == CS_CAUSE_QMD_ADDR_UNMAPPED ||
	    (stop->detail && strstr(stop->detail, "fault")))
		return 31;
	if (stop->unit == CS_UNIT_COMPUTE || stop->unit == CS_UNIT_COPY || stop->unit == CS_UNIT_SM)
		return 13;
	return 32;
}

/* ptx_name: the ptx= file's name a ptx-name record after the module gives, or NULL. */
static bool replay_module(const cs_capture_item *it, const char *ptx_name, cs_device *dev, cs_diag *d)
{
	struct cs_ptx_runtime *rt = cs_device_ptx(dev);
	if (!rt)
		return true; /* no executor: grids are dispatched, not executed */
	cs_module *m = cs_module_load_bytes(it->bytes, it->nbytes, it->name, cs_device_arch(dev), d);
	if (!m)
		return false;
	bool ok = (!it->ptx || cs_module_attach_ptx_file(m, (const char *)it->ptx, it->nptx, ptx_name, d)) &&
		  cs_ptx_runtime_add(rt, m, d);
	cs_module_free(m);
	return ok;
}

static bool replay_cooperative(const cs_capture_item *it, cs_device *dev, cs_diag *d)
{
	struct cs_ptx_runtime *rt = cs_device_ptx(dev);
	return !rt || cs_ptx_runtime_cooperative(rt, it->va, it->value, d);
}

static bool replay_region(const cs_capture_item *it, cs_device *dev, cs_diag *d)
{
	cs_mem *mem = cs_device_mem(dev);
	uint64_t fault;
	if (!cs_mem_map(mem, it->name, it->va, it->size, d))
		return false;
	if (it->nbytes && !cs_mem_write(mem, it->va, it->bytes, it->nbytes, &fault)) {
		cs_diag_set(d, CS_ERR_INPUT, "region '%s': cannot write its bytes at 0x%llx",
			    it->name, (unsigned long long)fault);
		return false;
	}
	return true;
}

/* The results below return false (and say so in d) when a record cannot be
 * stored: a results file with a record missing would read as what the run
 * showed. */
static bool results_out_of_memory(cs_diag *d, const char *what)
{
	cs_diag_set(d, CS_ERR_NOMEM, "out of memory for the results: %s", what);
	return false;
}

static bool results_submit(cs_device *dev, uint32_t ch, uint64_t t0, cs_results *res, cs_diag *d)
{
	cs_device_chan_view v;
	if (!cs_device_channel_view(dev, ch, &v))
		return true;
	uint32_t get = 0;
	bool seen = cs_device_peek(dev, v.userd_va + 0x88, &get, 4);
	cs_results_rec rec = { .kind = CS_RES_SUBMIT, .a = ch, .b = v.submitted_put,
			       .c = seen ? (int64_t)get : CS_RESULTS_NOT_OBSERVABLE,
			       .ns = cs_device_now(dev) - t0 };
	if (!cs_results_add(res, &rec, NULL))
		return results_out_of_memory(d, "a submission");
	res->ran++;
	return true;
}

static bool results_wait(cs_device *dev, const cs_capture_item *it, bool met, cs_results *res,
			 cs_diag *d)
{
	uint64_t seen = 0;
	cs_device_peek(dev, it->va, &seen, it->size);
	cs_results_rec rec = { .kind = CS_RES_WAIT, .va = it->va, .a = it->size, .b = it->value,
			       .c = (int64_t)seen, .met = met };
	return cs_results_add(res, &rec, NULL) || results_out_of_memory(d, "a wait");
}

static bool results_end(const cs_capture *c, cs_device *dev, cs_results *res, cs_diag *d)
{
	/* one error per channel, in channel order: a GPU's error notifier keeps
	 * the first */
	size_t n;
	const cs_event *ev = cs_device_events(dev, &n);
	for (uint32_t ch = 0; ch < cs_device_channel_count(dev); ch++)
		for (size_t i = 0; i < n; i++)
			if (ev[i].kind == CS_EV_CHANNEL_STOP && ev[i].channel == ch) {
				cs_results_rec rec = { .kind = CS_RES_ERROR, .a = ch,
						       .b = cs_capture_rc_for_stop(&ev[i]) };
				if (!cs_results_add(res, &rec, NULL))
					return results_out_of_memory(d, "a channel error");
				break;
			}
	for (size_t i = 0; i < c->nitems; i++) {
		const cs_capture_item *it = &c->items[i];
		if (it->type != CS_CAP_READBACK)
			continue;
		uint8_t *b = malloc(it->size);
		if (!b)
			return results_out_of_memory(d, it->name[0] ? it->name : "a read-back");
		bool mapped = cs_device_peek(dev, it->va, b, it->size);
		cs_results_rec rec = { .kind = CS_RES_READ, .va = it->va, .a = it->size, .b = it->aux };
		bool stored = cs_results_add(res, &rec, mapped ? b : NULL);
		free(b);
		if (!stored)
			return results_out_of_memory(d, it->name[0] ? it->name : "a read-back");
	}
	return true;
}

bool cs_capture_replay(const cs_capture *c, cs_device *dev, cs_results *res, cs_diag *d)
{
	if (cs_device_arch(dev) != c->arch) {
		cs_diag_set(d, CS_ERR_INPUT, "the device is a %s; the capture is for %s",
			    cs_arch_get(cs_device_arch(dev))->name, cs_arch_get(c->arch)->name);
		return false;
	}
	for (size_t i = 0; i < c->nitems; i++) {
		const cs_capture_item *it = &c->items[i];
		cs_diag dd;
		cs_diag_clear(&dd);
		bool ok = true;
		uint64_t fault, t0 = cs_device_now(dev);
		uint32_t id;
		switch (it->type) {
		case CS_CAP_CHANNEL:
			ok = cs_device_channel(dev, it->name, it->entries, &id, &dd);
			if (ok && id != it->channel)
				cs_diag_set(&dd, CS_ERR_INPUT, "channel '%s' became id %u, not %u",
					    it->name, id, it->channel), ok = false;
			break;
		case CS_CAP_REGION:
			ok = replay_region(it, dev, &dd);
			break;
		case CS_CAP_WRITE:
			ok = cs_mem_write(cs_device_mem(dev), it->va, it->bytes, it->nbytes, &fault);
			if (!ok)
				cs_diag_set(&dd, CS_ERR_INPUT, "write faulted at 0x%llx",
					    (unsigned long long)fault);
			break;
		case CS_CAP_BUILD: {
			char det[256];
			snprintf(det, sizeof(det), "%.*s", (int)it->nbytes, (const char *)it->bytes);
			cs_event ev = cs_event_make(CS_EV_GUEST_BUILD, CS_STAGE_GUEST_BUILD,
						    CS_UNIT_GUEST, it->channel);
			ev.addr = it->va;
			ev.value = it->value;
			ev.aux = it->aux;
			ev.detail = det;
			cs_device_record(dev, &ev);
			break;
		}
		case CS_CAP_MODULE: {
			const cs_capture_item *next = i + 1 < c->nitems ? &c->items[i + 1] : NULL;
			ok = replay_module(it, next && next->type == CS_CAP_PTX_NAME ? next->name : NULL, dev, &dd);
			break;
		}
		case CS_CAP_PTX_NAME: /* taken with its module */
			break;
		case CS_CAP_COOPERATIVE:
			ok = replay_cooperative(it, dev, &dd);
			break;
		case CS_CAP_GPFIFO:
			ok = cs_device_gpfifo_push(dev, it->channel, it->lo, it->hi, &dd);
			break;
		case CS_CAP_SUBMIT:
			ok = cs_device_submit(dev, it->channel, &dd) || dd.status == CS_OK;
			if (ok && res)
				ok = results_submit(dev, it->channel, t0, res, &dd);
			break;
		case CS_CAP_WAIT: {
			bool met = cs_device_wait_cmp(dev, it->va, it->value, it->size == 8,
						      it->aux == CS_CAP_WAIT_GEQ ? CS_WAIT_GEQ
										 : CS_WAIT_EQ);
			if (res)
				ok = results_wait(dev, it, met, res, &dd);
			break;
		}
		case CS_CAP_READBACK:
		case CS_CAP_END:
			break;
		}
		if (!ok) {
			char m[CS_DIAG_MSG_MAX];
			snprintf(m, sizeof(m), "%s", dd.msg);
			cs_diag_at_offset(d, dd.status ? dd.status : CS_ERR_INPUT, NULL, it->offset,
					  "%s record: %s", cs_capture_rec_name(it->type), m);
			return false;
		}
	}
	cs_device_finish(dev);
	return !res || results_end(c, dev, res, d);
}
