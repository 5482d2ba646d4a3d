/* SPDX-License-Identifier: MIT */
/* A fake RM on libchainsim for CI: chainsim-hw's real RM layer (hw/rm_nv.c)
 * over a fake kernel driver (hwfake/fake_rm.c) that decodes every ioctl,
 * mmap and doorbell store the layer issues, checks it against the 580.x
 * layouts (hw/nv_abi.h) and the object sequence a real driver accepts, and
 * carries it out on a simulated GPU of the capture's generation
 * (hwfake/fake_model.c). So every line of chainsim-hw above the raw system
 * call runs in CI. Everything hangs off the cs_fake_rm object. */
#ifndef CHAINSIM_HWFAKE_FAKE_RM_H
#define CHAINSIM_HWFAKE_FAKE_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rm.h"

typedef struct cs_fake_rm cs_fake_rm;

typedef struct cs_fake_rm_config {
	bool absent;          /* /dev/nvidiactl is not there (the exit-3 path) */
	bool hang;            /* the GPU never runs: polls end at their deadlines */
	uint32_t fail_alloc;  /* the Nth RM allocation (1-based) fails; 0 = none */
	bool no_executor;     /* grids are dispatched, not executed */
	uint32_t lacks_class; /* the class list lacks this class (a GPU without it) */
	const char *driver_version; /* what the version query answers; NULL: 580.126.09 */
} cs_fake_rm_config;

cs_fake_rm *cs_fake_rm_new(const cs_fake_rm_config *cfg);
/* What a replay must leave none of: RM objects, CPU and GPU mappings, open
 * file descriptors. */
size_t cs_fake_rm_live(const cs_fake_rm *f);
/* RM allocations made (RM_ALLOC requests carried out or failed as told). */
size_t cs_fake_rm_allocs(const cs_fake_rm *f);
/* Requests the driver refused (each also printed to stderr): 0 when the
 * layer spoke the interface as the driver expects. */
size_t cs_fake_rm_refusals(const cs_fake_rm *f);
/* The requests in order, one line each ("RM_ALLOC 0x0080", "mmap", ...). */
const char *cs_fake_rm_log(const cs_fake_rm *f);
void cs_fake_rm_free(cs_fake_rm *f);

/* The fake driver's system-call table and its context, for tests that speak
 * to it directly (malformed requests). */
const struct cs_hw_nv_sys *cs_fake_rm_sys(cs_fake_rm *f, void **ctx);

/* The real layer's ops (name "fake-rm") over the fake driver. */
extern const cs_hw_rm_ops cs_fake_rm_ops;

#endif
