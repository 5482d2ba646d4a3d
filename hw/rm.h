/* SPDX-License-Identifier: MIT */
/* chainsim-hw's RM layer: the kernel driver's resource manager behind an ops
 * table, so the replay above it (hw/replay.c) runs unchanged on a real GPU
 * (hw/rm_nv.c: ioctls on /dev/nvidiactl) and in CI on the simulator
 * (hwfake/fake_rm.c). libc only. The object sequence is the one that works
 * from user space (docs/capture.md "RM facts", with sources): root client,
 * device, subdevice, usermode, VA space, a virtual range over it, channel
 * group, context share, GPFIFO channel, compute and copy objects, work-submit
 * token, schedule. Each call
 * takes version-neutral arguments; the layer writes the layout its driver
 * version needs (they change between versions). */
#ifndef CHAINSIM_HW_RM_H
#define CHAINSIM_HW_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Classes and controls the replay names (public RM class numbers). */
enum {
	CS_HW_ROOT_CLIENT = 0x0041,     /* NV01_ROOT_CLIENT */
	CS_HW_DEVICE = 0x0080,          /* NV01_DEVICE_0 */
	CS_HW_SUBDEVICE = 0x2080,       /* NV20_SUBDEVICE_0 */
	CS_HW_MEMORY = 0x003e,          /* NV01_MEMORY_SYSTEM: CPU-visible, mapped at a GPU VA */
	CS_HW_VASPACE = 0x90f1,         /* FERMI_VASPACE_A */
	CS_HW_VIRTUAL = 0x0070,         /* NV01_MEMORY_VIRTUAL: the VA space's range, for mappings */
	CS_HW_CHANNEL_GROUP = 0xa06c,   /* KEPLER_CHANNEL_GROUP_A */
	CS_HW_CONTEXT_SHARE = 0x9067,   /* FERMI_CONTEXT_SHARE_A */
	CS_HW_USERMODE_TURING = 0xc461, /* TURING_USERMODE_A */
	CS_HW_USERMODE_AMPERE = 0xc561, /* AMPERE_USERMODE_A */
	CS_HW_USERMODE_HOPPER = 0xc661, /* HOPPER_USERMODE_A */
	CS_HW_USERMODE_BLACKWELL = 0xc761, /* BLACKWELL_USERMODE_A */
	CS_HW_USERMODE_SIZE = 0x10000,  /* clc361.h NVC361_NV_USERMODE__SIZE: mapped whole */
};
#define CS_HW_CTRL_WORK_SUBMIT_TOKEN 0xC36F0108u /* NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN */
#define CS_HW_CTRL_GPFIFO_SCHEDULE 0xA06C0101u   /* NVA06C_CTRL_CMD_GPFIFO_SCHEDULE */

/* USERD fields the replay reads and writes (docs/hardware.md). */
enum { CS_HW_USERD_GP_GET = 0x88, CS_HW_USERD_GP_PUT = 0x8C, CS_HW_USERD_SIZE = 0x200 };
/* A channel's error notifier (NvNotification): status nonzero after an
 * error, info32 the RC code. */
enum { CS_HW_NOTIFY_INFO32 = 8, CS_HW_NOTIFY_STATUS = 14, CS_HW_NOTIFY_SIZE = 16 };

/* What a call reports: ok, the device or driver is not there (exit 3), or an
 * RM error (the call and its status are in why). */
typedef enum cs_hw_rc { CS_HW_OK = 0, CS_HW_UNAVAILABLE, CS_HW_FAILED } cs_hw_rc;

enum { CS_HW_WHY_MAX = 256 };

/* Version-neutral arguments of an allocation; which fields count depends on
 * the class. */
typedef struct cs_hw_alloc_args {
	uint64_t size;         /* MEMORY: bytes */
	uint64_t gpu_va;       /* MEMORY: where the GPU sees it (fixed: the capture's host VA) */
	uint32_t h_virtual;    /* MEMORY: the VIRTUAL range it is mapped in */
	uint32_t h_vaspace;    /* VIRTUAL, CONTEXT_SHARE, CHANNEL_GROUP */
	uint32_t h_ctxshare;   /* channel */
	uint32_t h_memory;     /* channel: the memory holding the ring, then USERD */
	uint32_t h_error;      /* channel: the memory holding its error notifier at 0 */
	uint64_t ring_va;      /* channel: GPU VA of the ring (h_memory's start) */
	uint32_t entries;      /* channel: ring entries */
	uint64_t userd_offset; /* channel: USERD's offset in h_memory */
} cs_hw_alloc_args;

typedef struct cs_hw_rm_ops {
	const char *name; /* "nvidia", "fake-rm": the results file's backend */
	/* Open the driver and read its version first (layouts depend on it).
	 * CS_HW_UNAVAILABLE names what is missing: the device node, a driver
	 * version the layer does not know. */
	cs_hw_rc (*open)(void *rm, unsigned arch_code, char *version, size_t vlen, char *why);
	/* After the device: whether the GPU offers every class in need (the
	 * capture's host, compute and copy classes; CS_HW_UNAVAILABLE names the
	 * first it lacks), and the newest usermode class it offers. */
	cs_hw_rc (*classes)(void *rm, uint32_t device, const uint32_t *need, size_t nneed,
			    uint32_t *usermode, char *why);
	cs_hw_rc (*alloc)(void *rm, uint32_t parent, uint32_t handle, uint32_t cls,
			  const cs_hw_alloc_args *args, char *why);
	cs_hw_rc (*control)(void *rm, uint32_t object, uint32_t cmd, void *params, uint32_t size,
			    char *why);
	cs_hw_rc (*free)(void *rm, uint32_t parent, uint32_t handle, char *why);
	/* CPU view of a memory or usermode object. */
	cs_hw_rc (*map)(void *rm, uint32_t handle, uint64_t size, void **cpu, char *why);
	void (*unmap)(void *rm, uint32_t handle, void *cpu, uint64_t size);
	/* Ring the doorbell: write token to the usermode page's doorbell
	 * register (after the store fence the replay issued). */
	void (*doorbell)(void *rm, volatile uint8_t *usermode, uint32_t token);
	/* Let the GPU run a while during a poll. True when the layer knows nothing
	 * more will happen (the fake: the simulator is idle); hardware never knows
	 * and answers false, so a poll ends at its deadline. */
	bool (*pause)(void *rm);
	void (*close)(void *rm);
	/* Optional (NULL on a GPU): a capture's module record, for a layer that
	 * cannot run the SASS already in memory (the fake RM's simulator runs the
	 * module's PTX). */
	cs_hw_rc (*module)(void *rm, const char *name, const uint8_t *file, uint64_t len,
			   const uint8_t *ptx, uint64_t nptx, char *why);
} cs_hw_rm_ops;

#endif
