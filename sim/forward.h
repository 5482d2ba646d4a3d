/* SPDX-License-Identifier: MIT */
/* The forwarding path, stage 3 (sim/forward.c): what the device hands it at a
 * doorbell, and the one question it asks the device back. Private to sim/. */
#ifndef CHAINSIM_SIM_FORWARD_H
#define CHAINSIM_SIM_FORWARD_H

#include <stdbool.h>
#include <stdint.h>

#include "chainsim/device.h"

/* A channel's ring as the forwarding sees it. */
typedef struct forward_ring {
	const char *name;     /* the channel's, for diagnostics */
	uint32_t fe_id;       /* the front end's channel id */
	uint64_t ring_va;
	uint32_t entries;     /* a power of two */
	uint32_t from, to;    /* the guest's new entries: slots [from, to) */
} forward_ring;

/* Hands the guest's new entries to fn one by one and puts what it submits in
 * their place on the ring, from slot r->from on: *put is then the slot after
 * the host's last entry and *edits the notes fn made. False (d set) when fn
 * fails or the ring has no room: the ring and *put are left as they were. */
bool forward_entries(cs_device *dev, cs_forward_fn fn, void *ctx, const forward_ring *r,
		     uint32_t *put, uint32_t *edits, cs_diag *d);

/* The stage-3 record of one doorbell: guest_entries forwarded as host_entries,
 * by a hook (hooked) that made edits notes, or as they are. */
void forward_record(cs_device *dev, uint32_t fe_id, uint32_t guest_entries,
		    uint32_t host_entries, bool hooked, uint32_t edits);

/* sim/device.c's: whether some window of the host's view shows guest address
 * guest at host address host (a guest page may be seen through several). */
bool device_window_shows(const cs_device *dev, uint64_t guest, uint64_t host);

#endif
