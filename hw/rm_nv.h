/* The real RM layer (hw/rm_nv.c): ioctls on /dev/nvidiactl. */
#ifndef CHAINSIM_HW_RM_NV_H
#define CHAINSIM_HW_RM_NV_H

#include "rm.h"

typedef struct cs_hw_rm_nv {
	const char *ctl_path; /* /dev/nvidiactl, or $CHAINSIM_HW_NVIDIACTL (tests) */
	const char *uvm_path;
	int fd_ctl;
	uint32_t client;       /* the RM's handle of our root client */
	uint32_t client_alias; /* the handle the replay calls it by */
} cs_hw_rm_nv;

void cs_hw_rm_nv_init(cs_hw_rm_nv *nv);
extern const cs_hw_rm_ops cs_hw_rm_nv_ops;

#endif
