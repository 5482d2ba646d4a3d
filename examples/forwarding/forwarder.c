/* SPDX-License-Identifier: MIT */
/* The forwarding layer of forwarder.h: counts what passes, and lets the
 * rewrite library do the relocation. */
#include "forwarder.h"

#include <stdlib.h>

#include <chainsim/rewrite.h>

struct forwarder {
	cs_rewrite *rw;
	unsigned guest_entries;
	unsigned host_entries;
};

forwarder *forwarder_new(bool forget_i2m)
{
	forwarder *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->rw = cs_rewrite_new();
	if (!f->rw) {
		free(f);
		return NULL;
	}
	cs_rewrite_relocate(f->rw, true);
	if (forget_i2m)
		cs_rewrite_keep_guest(f->rw, "I2M_DST");
	return f;
}

void forwarder_free(forwarder *f)
{
	if (!f)
		return;
	cs_rewrite_free(f->rw);
	free(f);
}

/* The hook: one guest entry in, the library's host entries out. */
static bool forward(void *ctx, cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d)
{
	forwarder *f = ctx;
	uint32_t before = cs_forward_submitted(fw);
	bool ok = cs_rewrite_forward(f->rw, fw, lo, hi, d);
	f->guest_entries++;
	f->host_entries += cs_forward_submitted(fw) - before;
	return ok;
}

bool forwarder_attach(forwarder *f, cs_device *dev, uint64_t guest, uint64_t host, uint64_t size,
		      cs_diag *d)
{
	if (!cs_device_map_host(dev, guest, host, size, d))
		return false;
	cs_device_set_forward(dev, forward, f);
	return true;
}

unsigned forwarder_guest_entries(const forwarder *f)
{
	return f->guest_entries;
}

unsigned forwarder_host_entries(const forwarder *f)
{
	return f->host_entries;
}

bool forwarder_check(const forwarder *f, cs_diag *d)
{
	return cs_rewrite_check(f->rw, NULL, d);
}
