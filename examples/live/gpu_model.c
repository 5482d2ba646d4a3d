/* SPDX-License-Identifier: MIT */
/* The device model: chainsim behind a doorbell register. */
#include "gpu_model.h"

#include <stdio.h>
#include <string.h>

bool gpu_model_init(gpu_model *g, void *ram, uint64_t ram_bytes, uint64_t ram_base)
{
	memset(g, 0, sizeof(*g));
	cs_diag d;
	cs_live_config cfg = { .arch = CS_ARCH_HOPPER };
	g->lv = cs_live_new(&cfg, &d);
	if (!g->lv || !cs_live_map(g->lv, ram, ram_bytes, ram_base, "guest-ram", &d)) {
		fprintf(stderr, "gpu_model: %s\n", d.msg);
		cs_live_free(g->lv);
		g->lv = NULL;
		return false;
	}
	return true;
}

void gpu_model_fini(gpu_model *g)
{
	cs_live_free(g->lv);
	g->lv = NULL;
}

bool gpu_model_channel(gpu_model *g, uint64_t ring, uint32_t entries, uint64_t userd,
		       uint32_t token)
{
	cs_diag d;
	uint32_t ch;
	if (!cs_live_channel_new(g->lv, ring, entries, userd, token, &ch, &d)) {
		fprintf(stderr, "gpu_model: %s\n", d.msg);
		return false;
	}
	return true;
}

/* A stop becomes the status register and its verdict, as a real GPU's error
 * notifier would tell the driver; the emulator logs it as a guest error. */
static void note_stop(gpu_model *g, const char *what)
{
	cs_live_verdict v;
	cs_diag d;
	g->status = GPU_STATUS_STOPPED;
	if (cs_live_verdict_get(g->lv, &v, &d))
		snprintf(g->why, sizeof(g->why), "%s: stage %d (%s) [%s]: %s", what, (int)v.stage,
			 v.stage_name, v.cause, v.diagnosis);
	else
		snprintf(g->why, sizeof(g->why), "%s: %s", what, d.msg);
}

void gpu_model_mmio_write(gpu_model *g, uint64_t offset, uint32_t value)
{
	if (offset != GPU_REG_DOORBELL)
		return; /* other registers are read-only or absent: the write is dropped */
	cs_diag d;
	if (!cs_live_doorbell(g->lv, value, &d)) {
		snprintf(g->why, sizeof(g->why), "doorbell %u: %s", value, d.msg);
		g->status = GPU_STATUS_STOPPED;
		return;
	}
	cs_live_run_result r = cs_live_run(g->lv, 0);
	if (r.newly_stopped)
		note_stop(g, "a channel stopped");
}

uint32_t gpu_model_mmio_read(gpu_model *g, uint64_t offset)
{
	return offset == GPU_REG_STATUS ? g->status : 0;
}
