/* SPDX-License-Identifier: MIT */
/* Evidence from memory: what a stopped channel never ran, and what the guest
 * built against what the stream names. */
#include <stdlib.h>
#include <string.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "judge.h"

/* ---- what never reached the engine ----------------------------------------------------- */



static const char *launchlike(uint32_t cls, uint32_t method, uint32_t data)
{
	cs_class_kind k = cs_class_kind_of(cls);
	if (k == CS_CLASS_COMPUTE) {
		if (method == CS_GR_SEND_PCAS_A || method == CS_GR_SET_INLINE_QMD_ADDRESS_A ||
		    method == CS_GR_SET_INLINE_QMD_ADDRESS_B)
			return "launch";
		if (method == CS_GR_SEND_SIGNALING_PCAS2_B && cs_pcas2_action_schedules(cs_gr_pcas2_action(data)))
			return "launch";
		if (method == CS_GR_LAUNCH_DMA)
			return "inline-to-memory write";
		if (method == CS_GR_SET_REPORT_SEMAPHORE_D)
			return "report semaphore release";
	} else if (k == CS_CLASS_COPY) {
		if (method == CS_CE_LAUNCH_DMA)
			return "copy";
	} else if (method == CS_FE_M_SEM_EXECUTE) {
		return CS_FE_GET(sem_execute, OPERATION, data) == CS_FE_SEM_RELEASE ? "semaphore release" : "semaphore acquire";
	}
	return NULL;
}

static void scan_entry(const judge *j, uint32_t bound[8], uint64_t pb, uint32_t len,
		       uint32_t entry, uint32_t after, bool same_entry, unreached *u)
{
	uint32_t *dw = cs_device_pb_read(j->in->dev, pb, len, NULL);
	if (!dw)
		return;
	cs_pb_walk w;
	cs_pb_step st;
	cs_pb_walk_begin(&w, dw, len, false, bound);
	while (cs_pb_walk_next(&w, &st)) {
		const cs_pb_item *it = &st.item;
		if (it->kind != CS_PB_ITEM_METHOD || (same_entry && st.index <= after))
			continue;
		u->methods++;
		uint32_t cls = it->method < CS_PB_HOST_METHODS ? 0 : st.cls;
		const char *what = launchlike(cls, it->method, it->data);
		if (what && !u->found) {
			u->found = true;
			u->host = it->method < CS_PB_HOST_METHODS;
			if (same_entry)
				snprintf(u->what, sizeof(u->what), "the %s at method %u", what, st.index);
			else
				snprintf(u->what, sizeof(u->what), "the %s at method %u of entry %u",
					 what, st.index, entry);
		}
	}
	memcpy(bound, w.bound, sizeof(w.bound));
	free(dw);
}

/* What a channel stopped at (entry, method) never ran. */
void jg_find_unreached(const judge *j, uint32_t ch, uint32_t entry, uint32_t method,
			   size_t upto, unreached *u)
{
	memset(u, 0, sizeof(*u));
	if (!j->in->dev || entry == CS_NONE32)
		return;
	/* The classes bound on the channel when it stopped: BIND records, with the
	 * conventional compute and copy subchannels as the fallback. */
	uint32_t bound[8] = { 0 };
	const cs_arch_info *ai = cs_arch_get(j->in->arch);
	if (ai) {
		bound[1] = ai->compute_class;
		bound[2] = ai->compute_class;
		bound[4] = ai->copy_class;
	}
	uint64_t pb = 0;
	uint32_t len = 0;
	bool have = false;
	for (size_t i = 0; i < upto && i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->channel != ch)
			continue;
		if (e->kind == CS_EV_BIND && e->subch < 8)
			bound[e->subch] = e->cls;
		if (e->kind == CS_EV_GP_FETCH && e->gp_entry == entry) {
			pb = e->addr;
			len = (uint32_t)e->value;
			have = true;
		}
	}
	if (have)
		scan_entry(j, bound, pb, len, entry, method == CS_NONE32 ? 0 : method, method != CS_NONE32, u);
	cs_device_chan_view v;
	if (!cs_device_channel_view(j->in->dev, ch, &v) || !v.entries)
		return;
	for (uint32_t slot = (entry + 1u) & (v.entries - 1u); slot != v.submitted_put;
	     slot = (slot + 1u) & (v.entries - 1u)) {
		uint32_t w[2];
		if (!cs_device_peek(j->in->dev, v.ring_va + (uint64_t)slot * 8u, w, 8))
			break;
		cs_gp_entry ge = cs_gp_decode(w[0], w[1]);
		if (ge.length)
			scan_entry(j, bound, ge.addr, ge.length, slot, 0, false, u);
	}
}

void jg_unreached_sentence(const unreached *u, char *buf, size_t len)
{
	if (u->found)
		snprintf(buf, len, "%s never %s", u->what,
			 u->host ? "ran" : "reached the engine");
	else if (u->methods)
		snprintf(buf, len, "the %llu method(s) after it never ran", JG_U(u->methods));
	else
		snprintf(buf, len, "nothing after it ran");
}

/* ---- what the guest built, against what the stream names ----------------------------------- */

/* The guest's build record of a QMD (qmd) or pushbuffer nearest to addr; JG_NONE
 * when it built none. *inside: addr lies within that object. */
size_t jg_nearest_build(const judge *j, bool qmd, uint64_t addr, bool *inside)
{
	size_t best = JG_NONE;
	uint64_t best_d = UINT64_MAX;
	*inside = false;
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind != CS_EV_GUEST_BUILD || (e->aux != 0) != qmd)
			continue;
		uint64_t bytes = qmd ? e->value : 4 * e->value;
		if (addr >= e->addr && addr - e->addr < (bytes ? bytes : 1)) {
			*inside = true;
			return i;
		}
		uint64_t d = addr > e->addr ? addr - e->addr : e->addr - addr;
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

/* The first fetched entry that lies in no pushbuffer the guest built, when the
 * guest built one that no entry fetched; JG_NONE otherwise. */
size_t jg_stray_entry(const judge *j)
{
	size_t stray = JG_NONE;
	for (size_t i = 0; i < j->n && stray == JG_NONE; i++) {
		bool inside;
		if (j->ev[i].kind == CS_EV_GP_FETCH &&
		    jg_nearest_build(j, false, j->ev[i].addr, &inside) != JG_NONE && !inside)
			stray = i;
	}
	for (size_t i = 0; stray != JG_NONE && i < j->n; i++) {
		const cs_event *b = &j->ev[i];
		if (b->kind != CS_EV_GUEST_BUILD || b->aux)
			continue;
		bool fetched = false;
		for (size_t k = 0; k < j->n && !fetched; k++)
			fetched = j->ev[k].kind == CS_EV_GP_FETCH && j->ev[k].addr >= b->addr &&
				  j->ev[k].addr < b->addr + 4 * b->value;
		if (!fetched)
			return stray;
	}
	return JG_NONE;
}

/* "3 pages above", "0x40 bytes below": how far an address is from another. */
void jg_distance_words(uint64_t from, uint64_t to, char *buf, size_t len)
{
	uint64_t d = from > to ? from - to : to - from;
	if (d % CS_PAGE_SIZE == 0)
		snprintf(buf, len, "%llu page%s %s", JG_U(d / CS_PAGE_SIZE),
			 d == CS_PAGE_SIZE ? "" : "s", to > from ? "above" : "below");
	else
		snprintf(buf, len, "0x%llx bytes %s", JG_U(d), to > from ? "above" : "below");
}
