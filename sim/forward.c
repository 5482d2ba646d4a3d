/* SPDX-License-Identifier: MIT */
/* The forwarding path, stage 3 (sim/forward.h): a doorbell's new guest
 * entries through the host's hook onto the ring, each edit the hook notes
 * recorded as evidence, and the record of what was forwarded. */
#include "forward.h"

#include <stdio.h>
#include <stdlib.h>

#include "chainsim/fe.h"

struct cs_forward {
	cs_device *dev;
	const forward_ring *r;
	uint32_t guest_slot;
	uint32_t remaining;     /* guest entries of this submission after this one */
	uint32_t *out;          /* the host's entries, (lo, hi) pairs */
	uint32_t nout, room;
	uint32_t edits;
};

const char *cs_forward_edit_name(cs_forward_edit e)
{
	switch (e) {
	case CS_EDIT_RELOCATE: return "relocate";
	case CS_EDIT_DROP: return "drop";
	case CS_EDIT_INSERT: return "insert";
	case CS_EDIT_REPLACE: return "replace";
	case CS_EDIT_PATCH: return "patch";
	case CS_EDIT_SPLIT: return "split";
	case CS_EDIT_MERGE: return "merge";
	case CS_EDIT_COPY: return "copy";
	}
	return "?";
}

cs_device *cs_forward_device(cs_forward *fw)
{
	return fw->dev;
}

uint32_t cs_forward_channel(const cs_forward *fw)
{
	return fw->r->fe_id;
}

uint32_t cs_forward_remaining(const cs_forward *fw)
{
	return fw->remaining;
}

uint32_t cs_forward_submitted(const cs_forward *fw)
{
	return fw->nout;
}

bool cs_forward_submit(cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d)
{
	if (fw->nout == fw->room) {
		cs_diag_set(d, CS_ERR_INPUT, "channel '%s': the forwarding submitted more than the %u "
			    "entries its ring has room for", fw->r->name, fw->room);
		return false;
	}
	fw->out[2 * fw->nout] = lo;
	fw->out[2 * fw->nout + 1] = hi;
	fw->nout++;
	return true;
}

/* What an edit changed, as detail's opening names it ("entry 0's
 * RELEASE0_ADDRESS in QMD L.qmd"): two runs' edits of the same target are
 * the same edit, made or not, alike or not (sim/diff.c). */
static int edit_target(const cs_device *dev, const cs_forward *fw, const cs_forward_note_in *n,
		       const char *what, char *buf, size_t len)
{
	char guest[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(dev, n->guest, guest, sizeof(guest));
	switch (n->edit) {
	case CS_EDIT_DROP:
	case CS_EDIT_REPLACE:
		return snprintf(buf, len, "entry %u's %s at %s", fw->guest_slot, what, guest);
	case CS_EDIT_PATCH:
		return snprintf(buf, len, "entry %u's %s in QMD %s", fw->guest_slot, what, guest);
	case CS_EDIT_SPLIT:
	case CS_EDIT_MERGE:
		if (!n->what)
			return snprintf(buf, len, "entry %u", fw->guest_slot);
		break;
	default:
		break;
	}
	return snprintf(buf, len, "entry %u's %s", fw->guest_slot, what);
}

void cs_forward_note(cs_forward *fw, const cs_forward_note_in *n)
{
	cs_device *dev = fw->dev;
	char text[256];
	const char *what = n->what ? n->what : cs_forward_edit_name(n->edit);
	cs_event ev = cs_event_make(CS_EV_HOST_EDIT, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST, fw->r->fe_id);
	ev.subch = (uint32_t)n->edit;
	ev.gp_entry = fw->guest_slot;
	ev.addr = n->guest;
	ev.aux = n->host;
	ev.value = n->value;
	ev.method = n->method;
	int t = edit_target(dev, fw, n, what, text, sizeof(text));
	size_t at = t < 0 ? 0 : (size_t)t < sizeof(text) ? (size_t)t : sizeof(text) - 1;
	ev.target_len = (uint16_t)at;
	char *rest = text + at;
	size_t room = sizeof(text) - at;
	char guest[CS_REGION_NAME_MAX + 32], host[CS_REGION_NAME_MAX + 32];
	cs_device_addr_name(dev, n->guest, guest, sizeof(guest));
	cs_device_addr_name(dev, n->host, host, sizeof(host));
	uint64_t want;
	switch (n->edit) {
	case CS_EDIT_RELOCATE:
		if (cs_device_guest_to_host(dev, n->guest, &want) &&
		    !device_window_shows(dev, n->guest, n->host)) {
			ev.cause = CS_CAUSE_FORWARD_MISRELOCATED;
			snprintf(rest, room, " at guest %s was relocated to %s, but the host's view "
				 "holds it at 0x%llx", guest, host, (unsigned long long)want);
		} else {
			snprintf(rest, room, ": guest %s -> host %s", guest, host);
		}
		break;
	case CS_EDIT_DROP:
		snprintf(rest, room, ": dropped");
		break;
	case CS_EDIT_INSERT:
		snprintf(rest, room, ": %llu dword%s inserted at host %s", (unsigned long long)n->value,
			 n->value == 1 ? "" : "s", host);
		break;
	case CS_EDIT_REPLACE:
		snprintf(rest, room, ": data replaced by 0x%llx", (unsigned long long)n->value);
		break;
	case CS_EDIT_PATCH:
		snprintf(rest, room, " = 0x%llx", (unsigned long long)n->value);
		break;
	case CS_EDIT_COPY:
		snprintf(rest, room, ": %s (%llu bytes) rewritten into host memory at %s", guest,
			 (unsigned long long)n->value, host);
		break;
	case CS_EDIT_SPLIT:
		snprintf(rest, room, ": split into %llu host entr%s", (unsigned long long)n->value,
			 n->value == 1 ? "y" : "ies");
		break;
	case CS_EDIT_MERGE:
		snprintf(rest, room, ": %llu guest entr%s merged at host %s",
			 (unsigned long long)n->value, n->value == 1 ? "y" : "ies", host);
		break;
	default:
		snprintf(rest, room, " (%llu)", (unsigned long long)n->value);
		break;
	}
	ev.detail = text;
	cs_device_record(dev, &ev);
	fw->edits++;
}

bool forward_entries(cs_device *dev, cs_forward_fn fn, void *ctx, const forward_ring *r,
		     uint32_t *put, uint32_t *edits, cs_diag *d)
{
	uint32_t mask = r->entries - 1u;
	uint32_t n = (r->to - r->from) & mask;
	cs_fe_channel_info info;
	if (!cs_fe_channel_info_get(cs_device_fe(dev), r->fe_id, &info)) {
		cs_diag_set(d, CS_ERR_INTERNAL, "the front end lost channel '%s'", r->name);
		return false;
	}
	/* the ring holds entries - 1; the front end still owns [GP_GET, from) */
	uint32_t room = mask - ((r->from - info.gp_get) & mask);
	uint32_t *in = malloc(((size_t)n + 1) * 8);
	uint32_t *out = malloc(((size_t)room + 1) * 8);
	if (!in || !out) {
		free(in);
		free(out);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory forwarding %u entries", n);
		return false;
	}
	cs_mem *mem = cs_device_mem(dev);
	for (uint32_t k = 0; k < n; k++)
		cs_mem_read(mem, r->ring_va + (uint64_t)((r->from + k) & mask) * 8u, &in[2 * k], 8,
			    NULL);
	cs_forward fw = { .dev = dev, .r = r, .out = out, .room = room };
	bool ok = true;
	for (uint32_t k = 0; k < n && ok; k++) {
		fw.guest_slot = (r->from + k) & mask;
		fw.remaining = n - 1 - k;
		ok = fn(ctx, &fw, in[2 * k], in[2 * k + 1], d);
	}
	if (ok) {
		for (uint32_t k = 0; k < fw.nout; k++)
			cs_mem_write(mem, r->ring_va + (uint64_t)((r->from + k) & mask) * 8u,
				     &out[2 * k], 8, NULL);
		*put = (r->from + fw.nout) & mask;
		*edits = fw.edits;
	}
	free(in);
	free(out);
	return ok;
}

void forward_record(cs_device *dev, uint32_t fe_id, uint32_t guest_entries,
		    uint32_t host_entries, bool hooked, uint32_t edits)
{
	char text[128];
	cs_event ev = cs_event_make(CS_EV_HOST_FORWARD, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST, fe_id);
	ev.value = host_entries;
	ev.aux = CS_HOST_FORWARD_RING;
	if (hooked) {
		snprintf(text, sizeof(text), "forwarded %u guest entr%s as %u host entr%s, %u edit%s",
			 guest_entries, guest_entries == 1 ? "y" : "ies", host_entries,
			 host_entries == 1 ? "y" : "ies", edits, edits == 1 ? "" : "s");
		ev.detail = text;
	} else {
		ev.detail = "identity (no rewrite)";
	}
	cs_device_record(dev, &ev);
}
