/* SPDX-License-Identifier: MIT */
/* Forwarding: a break whose faulting address is one the guest built at but the
 * host's view does not map was caused by the host, which forwarded the
 * address without relocating it (cause forward-unrelocated). The windows come
 * from the CS_EV_VIEW_MAP records; without them nothing here applies. */
#include <stdio.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/fe.h"
#include "judge.h"

/* Whether the host's view maps va: a window's host range, the channel area
 * or the host's own memory (judged only where windows exist). */
static bool host_maps(const judge *j, uint64_t va)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_VIEW_MAP && va - e->aux < e->value)
			return true;
	}
	if (va >= CS_DEVICE_CHANNEL_BASE &&
	    va - CS_DEVICE_CHANNEL_BASE < (uint64_t)CS_FE_MAX_CHANNELS * CS_DEVICE_CHANNEL_STRIDE)
		return true;
	return va >= CS_DEVICE_HOST_BASE;
}

/* The host address a window gives guest address va; false when none does. */
static bool guest_window(const judge *j, uint64_t va, uint64_t *host)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		if (e->kind == CS_EV_VIEW_MAP && va - e->addr < e->value) {
			*host = e->aux + (va - e->addr);
			return true;
		}
	}
	return false;
}

/* Whether a buffer of the guest holds va (the guest's view maps it), its
 * name into name; false without a device or where no named buffer is. */
static bool guest_buffer(const judge *j, uint64_t va, char *name, size_t len)
{
	if (!j->in->dev)
		return false;
	cs_device_addr_name(j->in->dev, va, name, len);
	return strncmp(name, "0x", 2) != 0;
}

/* What a fault or rejection record shows was being accessed. */
static const char *fault_subject(const cs_event *e)
{
	if (e->kind == CS_EV_QMD_REJECT) /* gr/launch.c names a constant bank first */
		return e->cause == CS_CAUSE_CODE_UNMAPPED ? "QMD's program address"
							  : "QMD's constant bank address";
	if (e->unit == CS_UNIT_FE && e->value == CS_ACCESS_FETCH)
		return "pushbuffer";
	if (e->stage == CS_STAGE_QMD_INSTALL || e->stage == CS_STAGE_QMD_READ)
		return "QMD address";
	if (e->stage == CS_STAGE_ENGINE_RELEASE)
		return "release address";
	if (e->unit == CS_UNIT_SM)
		return "kernel's memory access";
	if (e->unit == CS_UNIT_COMPUTE && e->stage == CS_STAGE_FE_EXEC)
		return "inline-to-memory write";
	if (e->unit == CS_UNIT_COPY)
		return "copy address";
	if (e->unit == CS_UNIT_FE)
		return "semaphore address";
	return "address";
}

/* The address a record shows the engines could not reach: a fault's, or the
 * program or constant bank a rejected QMD names; 0 for other records. */
static uint64_t unreached_addr(const cs_event *e)
{
	if (e->kind == CS_EV_FAULT)
		return e->addr;
	if (e->kind == CS_EV_QMD_REJECT)
		return e->aux;
	return 0;
}

/* The first such record at an address only the guest's view maps (for a
 * launch chain, one of that launch or of no launch), or JG_NONE. */
static size_t unrelocated_fault(const judge *j, uint32_t launch)
{
	for (size_t i = 0; i < j->n; i++) {
		const cs_event *e = &j->ev[i];
		uint64_t host, at = unreached_addr(e);
		char name[64];
		if (!at || (launch != CS_NONE32 && e->launch != CS_NONE32 && e->launch != launch))
			continue;
		if (!host_maps(j, at) &&
		    (guest_window(j, at, &host) || guest_buffer(j, at, name, sizeof(name))))
			return i;
	}
	return JG_NONE;
}

static void attribute(const judge *j, cs_chain *c)
{
	if (c->first_break == CS_STAGE_NONE || c->first_break < CS_STAGE_FE_FETCH)
		return;
	size_t f = unrelocated_fault(j, c->launch);
	if (f == JG_NONE)
		return;
	const cs_event *e = &j->ev[f];
	uint64_t host = 0, at = unreached_addr(e);
	bool windowed = guest_window(j, at, &host);
	char entry[48] = "the stream";
	if (e->gp_entry != CS_NONE32)
		snprintf(entry, sizeof(entry), "entry %u", e->gp_entry);
	else if (e->launch != CS_NONE32)
		snprintf(entry, sizeof(entry), "launch %u", e->launch);
	char name[64], guest[96], where[64];
	if (guest_buffer(j, at, name, sizeof(name)))
		snprintf(guest, sizeof(guest), "guest 0x%llx (%s)", JG_U(at), name);
	else
		snprintf(guest, sizeof(guest), "guest 0x%llx", JG_U(at));
	if (windowed)
		snprintf(where, sizeof(where), "its window holds it at 0x%llx", JG_U(host));
	else
		snprintf(where, sizeof(where), "no window holds it");
	char was[CS_DIAGNOSIS_MAX];
	snprintf(was, sizeof(was), "%s", c->diagnosis);
	/* the judge's own words first; the engine's account follows, cut to fit */
	if (e->kind == CS_EV_FAULT && e->unit == CS_UNIT_SM)
		/* a kernel's pointers are data: no rewrite relocates them, so the buffer
		 * must be where the kernel looks in the host's view too */
		snprintf(c->diagnosis, sizeof(c->diagnosis),
			 "%s's kernel accessed %s, an address only the guest's view maps: the host's "
			 "view does not (%s), and a kernel's pointer parameters are data no "
			 "relocation reaches (map the buffer at the same address in both views), so "
			 "%.600s", entry, guest, where, was);
	else
		snprintf(c->diagnosis, sizeof(c->diagnosis),
			 "%s's %s at %s was forwarded unrelocated, left in the guest's view: the "
			 "host's view does not map it (%s), so %.600s", entry, fault_subject(e),
			 guest, where, was);
	c->cause = CS_CAUSE_FORWARD_UNRELOCATED;
	c->break_event = f;
}

void jg_attribute_forwarding(const judge *j, cs_report *r)
{
	bool windows = false;
	for (size_t i = 0; i < j->n && !windows; i++)
		windows = j->ev[i].kind == CS_EV_VIEW_MAP;
	if (!windows)
		return;
	attribute(j, &r->overall);
	for (size_t k = 0; k < r->nlaunches; k++)
		attribute(j, &r->launches[k]);
}
