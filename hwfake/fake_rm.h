/* A fake RM on libchainsim, behind chainsim-hw's ops table (hw/rm.h), so the
 * replay above the ioctl layer runs in CI: memory objects are host buffers
 * mirrored into a simulated device at the points a GPU would see them (a
 * doorbell, a poll), ring entries go to the simulator's channels, GP_GET and
 * the error notifier come back the way a GPU writes them. Everything hangs
 * off the cs_fake_rm object. */
#ifndef CHAINSIM_HWFAKE_FAKE_RM_H
#define CHAINSIM_HWFAKE_FAKE_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rm.h"

typedef struct cs_fake_rm cs_fake_rm;

typedef struct cs_fake_rm_config {
	bool absent;          /* open answers "no device" (the exit-3 path) */
	bool hang;            /* the GPU never runs: polls end at their deadlines */
	uint32_t fail_alloc;  /* the Nth allocation (1-based) fails; 0 = none */
	bool no_executor;     /* grids are dispatched, not executed */
	uint32_t lacks_class; /* the class list lacks this class (a GPU without it) */
} cs_fake_rm_config;

cs_fake_rm *cs_fake_rm_new(const cs_fake_rm_config *cfg);
/* Objects still allocated (a replay must leave none), and allocations made. */
size_t cs_fake_rm_live(const cs_fake_rm *f);
size_t cs_fake_rm_allocs(const cs_fake_rm *f);
void cs_fake_rm_free(cs_fake_rm *f);

extern const cs_hw_rm_ops cs_fake_rm_ops;

#endif
