/* SPDX-License-Identifier: MIT */
/* The fake GPU's object model (hwfake/fake_model.c), under the fake driver
 * (fake_rm.c): RM objects in version-neutral form (hw/rm.h) over a simulated
 * device. Memory objects are host buffers mirrored into the simulator at the
 * points a GPU would see them (a doorbell, a poll); ring entries up to GP_PUT
 * go to the simulator's channel at the doorbell; GP_GET and the error
 * notifier come back the way a GPU writes them. */
#ifndef CHAINSIM_HWFAKE_FAKE_MODEL_H
#define CHAINSIM_HWFAKE_FAKE_MODEL_H

#include "fake_rm.h"

typedef struct cs_fake_model cs_fake_model;

cs_fake_model *cs_fake_model_new(const cs_fake_rm_config *cfg);
void cs_fake_model_free(cs_fake_model *f);
size_t cs_fake_model_live(const cs_fake_model *f);
size_t cs_fake_model_allocs(const cs_fake_model *f);
/* An object's class, and for memory its size and GPU VA (0 until mapped). */
bool cs_fake_model_object(const cs_fake_model *f, uint32_t handle, uint32_t *cls, uint64_t *size,
			  uint64_t *va);
/* A memory object's GPU VA (NVOS46); false for another object or too late. */
bool cs_fake_model_set_va(cs_fake_model *f, uint32_t handle, uint64_t va);
/* The classes the simulated GPU offers (after open), at most max. */
size_t cs_fake_model_class_list(const cs_fake_model *f, uint32_t *out, size_t max);

/* open (creates the simulated GPU), alloc, control (token and schedule as a
 * u32), free, map, doorbell, pause, close, module. */
extern const cs_hw_rm_ops cs_fake_model_ops;

#endif
