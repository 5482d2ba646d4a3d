/* SPDX-License-Identifier: MIT */
/* A tiny forwarding layer, as a vGPU or API-remoting host has one: it relays a
 * guest's GPFIFO entries to the host and relocates every address from the
 * guest's view of GPU memory to the host's. Built on chainsim's rewrite
 * library (chainsim/rewrite.h) and forwarding hook (chainsim/device.h). */
#ifndef FORWARDER_H
#define FORWARDER_H

#include <stdbool.h>
#include <stdint.h>

#include <chainsim/device.h>

typedef struct forwarder forwarder;

/* A forwarder; forget_i2m leaves inline-to-memory targets in the guest's
 * view (the bug this example's tests catch). */
forwarder *forwarder_new(bool forget_i2m);
void forwarder_free(forwarder *f);
/* Map host [host, host + size) onto guest [guest, ...) and forward dev's
 * submissions through f from now on. */
bool forwarder_attach(forwarder *f, cs_device *dev, uint64_t guest, uint64_t host, uint64_t size,
		      cs_diag *d);
/* Entries the guest submitted, and entries the host put on its ring. */
unsigned forwarder_guest_entries(const forwarder *f);
unsigned forwarder_host_entries(const forwarder *f);
/* After a run: false, with d naming it, when an edit the forwarder asked
 * for changed nothing (its test would then test nothing). */
bool forwarder_check(const forwarder *f, cs_diag *d);

#endif
