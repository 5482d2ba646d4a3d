/* SPDX-License-Identifier: MIT */
/* A GPU device model for a machine emulator, on chainsim's live API: the
 * emulator's guest RAM is the GPU's memory (mapped in place at the guest's
 * physical addresses), the guest driver's GPFIFO rings live in that RAM, and a
 * write to the model's doorbell register runs the work. Built against the
 * installed libchainsim (check.sh). */
#ifndef GPU_MODEL_H
#define GPU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <chainsim/live.h>

/* The register block the guest sees (a BAR): one doorbell, as NVIDIA's
 * usermode NOTIFY_CHANNEL_PENDING at 0x90 takes a work-submit token. */
enum { GPU_REG_DOORBELL = 0x90, GPU_REG_STATUS = 0x94 };
enum { GPU_STATUS_OK = 0, GPU_STATUS_STOPPED = 1 };

typedef struct gpu_model {
	cs_live *lv;
	uint32_t status;
	char why[CS_DIAGNOSIS_MAX + 64]; /* the verdict of the last stop */
} gpu_model;

/* The model over guest RAM [ram, ram + ram_bytes) seen at guest address ram_base. */
bool gpu_model_init(gpu_model *g, void *ram, uint64_t ram_bytes, uint64_t ram_base);
void gpu_model_fini(gpu_model *g);
/* The guest driver creates a channel (a real driver's RM call does this). */
bool gpu_model_channel(gpu_model *g, uint64_t ring, uint32_t entries, uint64_t userd,
		       uint32_t token);
/* The emulator's MMIO write handler for the register block. */
void gpu_model_mmio_write(gpu_model *g, uint64_t offset, uint32_t value);
uint32_t gpu_model_mmio_read(gpu_model *g, uint64_t offset);

#endif
