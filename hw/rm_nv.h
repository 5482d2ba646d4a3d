/* SPDX-License-Identifier: MIT */
/* The real RM layer (hw/rm_nv.c): the RM object sequence as ioctls of the open
 * kernel modules 580.x (hw/nv_abi.h). Every system call goes through the
 * small table below: on a GPU machine it is libc (hw/sys_linux.c); in CI the
 * fake driver (hwfake/fake_rm.c) stands there, decodes each request and
 * checks it, so every line of this layer above the raw syscall runs in CI. */
#ifndef CHAINSIM_HW_RM_NV_H
#define CHAINSIM_HW_RM_NV_H

#include "rm.h"

typedef struct cs_hw_nv_sys {
	int (*open)(void *sys, const char *path);             /* O_RDWR|O_CLOEXEC; -1, errno */
	int (*close)(void *sys, int fd);
	int (*ioctl)(void *sys, int fd, unsigned long request, void *arg); /* -1, errno */
	void *(*mmap)(void *sys, int fd, uint64_t len);       /* shared RW at offset 0; NULL */
	void (*munmap)(void *sys, void *addr, uint64_t len);
	/* A store to a mapped register (the doorbell). */
	void (*store32)(void *sys, volatile uint32_t *reg, uint32_t value);
	/* Let the GPU run a while; true when nothing more will happen (the fake). */
	bool (*pause)(void *sys);
	/* Optional (the fake): a capture's module, for a GPU that cannot run the
	 * SASS already in memory. NULL on a GPU machine. */
	cs_hw_rc (*module)(void *sys, const char *name, const uint8_t *file, uint64_t len,
			   const uint8_t *ptx, uint64_t nptx, char *why);
} cs_hw_nv_sys;

/* What the layer keeps per RM object it made for the replay. */
typedef struct cs_hw_nv_obj {
	uint32_t handle, cls;
	uint64_t dma_va;      /* MEMORY: its GPU VA mapping (NVOS46) */
	uint32_t dma_virtual; /* MEMORY: the virtual object it is mapped in */
	uint64_t linear;      /* mapped for the CPU: the RM's pLinearAddress, for NVOS34 */
} cs_hw_nv_obj;

typedef struct cs_hw_rm_nv {
	const cs_hw_nv_sys *sys;
	void *sys_ctx;
	const char *ctl_path; /* /dev/nvidiactl, or $CHAINSIM_HW_NVIDIACTL (tests) */
	int fd_ctl;
	int fd_dev;           /* /dev/nvidiaN, registered with fd_ctl, while the device lives */
	uint32_t minor;       /* N */
	uint32_t client;       /* the RM's handle of our root client */
	uint32_t client_alias; /* the handle the replay calls it by */
	uint32_t device;       /* the replay's device handle (NVOS33/46 want it) */
	bool trace;            /* $CHAINSIM_HW_TRACE: every request to stderr */
	cs_hw_nv_obj *objs;
	size_t nobjs, cap;
} cs_hw_rm_nv;

/* sys NULL: libc (chainsim-hw). */
void cs_hw_rm_nv_init(cs_hw_rm_nv *nv, const cs_hw_nv_sys *sys, void *sys_ctx);
extern const cs_hw_rm_ops cs_hw_rm_nv_ops;
extern const cs_hw_nv_sys cs_hw_nv_sys_linux;

#endif
