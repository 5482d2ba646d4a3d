/* SPDX-License-Identifier: MIT */
/* The NVIDIA kernel driver's user-space interface as chainsim-hw uses it: ioctl
 * numbers, parameter layouts and constants of the open kernel modules 580.x
 * (NVIDIA/open-gpu-kernel-modules tag 580.126.09; each layout names the header
 * it was written from). One source of truth: the real RM layer (hw/rm_nv.c)
 * builds its requests with it and the fake driver (hwfake/fake_rm.c) decodes
 * them with it. The static asserts pin sizes and offsets worked out by hand
 * from those headers, so a slip in a field shows at compile time. libc only. */
#ifndef CHAINSIM_HW_NV_ABI_H
#define CHAINSIM_HW_NV_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* ---- escapes: _IOWR('F', nr, size) -------------------------------------------- */

#define NV_IOCTL_MAGIC 'F'            /* kernel-open/common/inc/nv-ioctl-numbers.h */
#define NV_IOCTL_BASE 200
#define NV_ESC_CARD_INFO (NV_IOCTL_BASE + 0)
#define NV_ESC_REGISTER_FD (NV_IOCTL_BASE + 1)
#define NV_ESC_CHECK_VERSION_STR (NV_IOCTL_BASE + 10)
#define NV_ESC_RM_FREE 0x29           /* src/nvidia/arch/nvalloc/unix/include/nv_escape.h */
#define NV_ESC_RM_CONTROL 0x2A
#define NV_ESC_RM_ALLOC 0x2B
#define NV_ESC_RM_MAP_MEMORY 0x4E
#define NV_ESC_RM_UNMAP_MEMORY 0x4F
#define NV_ESC_RM_MAP_MEMORY_DMA 0x57
#define NV_ESC_RM_UNMAP_MEMORY_DMA 0x58

#define NV_IOWR_SIZE(nr, size) _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, (nr), (size))
#define NV_IOWR(nr, type) NV_IOWR_SIZE(nr, sizeof(type))

/* ---- usermode (its class numbers and size are in hw/rm.h) ---------------------- */

#define NVC361_NOTIFY_CHANNEL_PENDING 0x90 /* class/clc361.h: the doorbell */

/* ---- controls ----------------------------------------------------------------- */

#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2 0x205u     /* ctrl/ctrl0000/ctrl0000gpu.h */
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2 0x800292u /* ctrl/ctrl0080/ctrl0080gpu.h */
#define NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE 200
#define NVA06C_CTRL_CMD_GPFIFO_SCHEDULE 0xa06c0101u   /* ctrl/ctrla06c.h */
#define NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN 0xc36f0108u /* ctrl/ctrlc36f.h */

/* ---- constants (src/common/sdk/nvidia/inc/nvos.h unless named) ----------------- */

#define NV_RM_API_VERSION_CMD_QUERY '2'                     /* nv-ioctl.h */
#define NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES 2u
#define NV2080_ENGINE_TYPE_GRAPHICS 1u                      /* class/cl2080_notification.h */
#define NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC 1u    /* bits 1:0 */
#define NVOS32_TYPE_NOTIFIER 13u
#define NVOS32_ATTR_LOCATION_PCI (1u << 25)                 /* 26:25 */
#define NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS (3u << 27) /* 28:27 */
#define NVOS32_ATTR2_ZBC_PREFER_NO_ZBC 1u                   /* 1:0 */
#define NVOS32_ATTR2_GPU_CACHEABLE_NO (2u << 2)             /* 3:2 */
#define NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT 0x1u
#define NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED 0x4000u
#define NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED 0x8000u
#define NV_MEMORY_FORMAT_PITCH 6u      /* the format tinygrad's working sysmem allocation asks */
#define NVOS33_FLAGS_ACCESS_READ_WRITE 0u                   /* 1:0 */
#define NVOS33_FLAGS_ACCESS_WRITE_ONLY 2u
#define NVOS46_FLAGS_CACHE_SNOOP_ENABLE (1u << 4)           /* 4:4 */
#define NVOS46_FLAGS_PAGE_SIZE_4KB (1u << 8)                /* 11:8 */
#define NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE (1u << 15)       /* 15:15 */
#define NV_MAX_SUBDEVICES 8                                 /* nvlimits.h */
#define NV_CARD_INFO_MAX 32            /* entries chainsim-hw offers NV_ESC_CARD_INFO */

/* RM status codes (nvstatuscodes.h) the fake driver answers with. */
#define NV_OK 0u
#define NV_ERR_INVALID_ARGUMENT 0x1fu
#define NV_ERR_INVALID_CLASS 0x22u
#define NV_ERR_INVALID_COMMAND 0x24u
#define NV_ERR_INVALID_OBJECT_HANDLE 0x33u
#define NV_ERR_INVALID_OFFSET 0x37u
#define NV_ERR_INVALID_PARAM_STRUCT 0x3au
#define NV_ERR_INVALID_STATE 0x40u
#define NV_ERR_NO_MEMORY 0x51u

/* ---- layouts ------------------------------------------------------------------ */

typedef struct nv_ioctl_rm_api_version { /* kernel-open/common/inc/nv-ioctl.h */
	uint32_t cmd, reply;
	char version[64];
} nv_ioctl_rm_api_version;

typedef struct nv_ioctl_card_info { /* nv-ioctl.h nv_ioctl_card_info_t */
	uint8_t valid;
	struct { uint32_t domain; uint8_t bus, slot, function; uint16_t vendor_id, device_id; } pci;
	uint32_t gpu_id;
	uint16_t interrupt_line;
	uint64_t reg_address, reg_size, fb_address, fb_size;
	uint32_t minor_number;
	uint8_t dev_name[10];
} nv_ioctl_card_info;

typedef struct nv_ioctl_register_fd { int ctl_fd; } nv_ioctl_register_fd; /* nv-ioctl.h */

typedef struct nvos00_parameters { /* nvos.h NVOS00_PARAMETERS (RM_FREE) */
	uint32_t h_root, h_object_parent, h_object_old, status;
} nvos00_parameters;

typedef struct nvos21_parameters { /* nvos.h NVOS21_PARAMETERS (RM_ALLOC) */
	uint32_t h_root, h_object_parent, h_object_new, h_class;
	uint64_t p_alloc_parms;
	uint32_t params_size, status;
} nvos21_parameters;

typedef struct nvos54_parameters { /* nvos.h NVOS54_PARAMETERS (RM_CONTROL) */
	uint32_t h_client, h_object, cmd, flags;
	uint64_t params;
	uint32_t params_size, status;
} nvos54_parameters;

typedef struct nvos33_parameters { /* nvos.h NVOS33_PARAMETERS (RM_MAP_MEMORY) */
	uint32_t h_client, h_device, h_memory;
	uint64_t offset, length, p_linear_address;
	uint32_t status, flags;
} nvos33_parameters;

typedef struct nvos33_with_fd { /* unix/include/nv-unix-nvos-params-wrappers.h */
	nvos33_parameters params;
	int fd; /* a fresh fd of /dev/nvidiactl or /dev/nvidiaN: mmap it at offset 0 */
} nvos33_with_fd;

typedef struct nvos34_parameters { /* nvos.h NVOS34_PARAMETERS (RM_UNMAP_MEMORY) */
	uint32_t h_client, h_device, h_memory;
	uint64_t p_linear_address;
	uint32_t status, flags;
} nvos34_parameters;

typedef struct nvos46_parameters { /* nvos.h NVOS46_PARAMETERS (RM_MAP_MEMORY_DMA) */
	uint32_t h_client, h_device, h_dma, h_memory;
	uint64_t offset, length;
	uint32_t flags, flags2, kind_override;
	uint64_t dma_offset; /* in with DMA_OFFSET_FIXED: the GPU VA */
	uint32_t status;
} nvos46_parameters;

typedef struct nvos47_parameters { /* nvos.h NVOS47_PARAMETERS (RM_UNMAP_MEMORY_DMA) */
	uint32_t h_client, h_device, h_dma, h_memory, flags;
	uint64_t dma_offset, size;
	uint32_t status;
} nvos47_parameters;

typedef struct nv0080_alloc_parameters { /* class/cl0080.h NV0080_ALLOC_PARAMETERS */
	uint32_t device_id, h_client_share, h_target_client, h_target_device, flags;
	uint64_t va_space_size, va_start_internal, va_limit_internal;
	uint32_t va_mode;
} nv0080_alloc_parameters;

typedef struct nv2080_alloc_parameters { uint32_t sub_device_id; } nv2080_alloc_parameters; /* cl2080.h */

typedef struct nv_vaspace_allocation_parameters { /* nvos.h NV_VASPACE_ALLOCATION_PARAMETERS */
	uint32_t index, flags;
	uint64_t va_size, va_start_internal, va_limit_internal;
	uint32_t big_page_size;
	uint64_t va_base;
	uint32_t pasid;
} nv_vaspace_allocation_parameters;

typedef struct nv_memory_virtual_allocation_params { /* class/cl0070.h */
	uint64_t offset, limit; /* 0, 0: the whole VA space */
	uint32_t h_vaspace;
} nv_memory_virtual_allocation_params;

typedef struct nv_memory_allocation_params { /* nvos.h NV_MEMORY_ALLOCATION_PARAMS */
	uint32_t owner, type, flags, width, height;
	int32_t pitch;
	uint32_t attr, attr2, format, compr_covg, zcull_covg;
	uint64_t range_lo, range_hi, size, alignment, offset, limit, address;
	uint32_t ctag_offset, h_vaspace, internal_flags, tag;
	int32_t numa_node;
} nv_memory_allocation_params;

typedef struct nv_channel_group_allocation_parameters { /* nvos.h */
	uint32_t h_object_error, h_object_ecc_error, h_vaspace, engine_type;
	uint8_t is_calling_context_vgpu_plugin;
} nv_channel_group_allocation_parameters;

typedef struct nv_ctxshare_allocation_parameters { /* nvos.h */
	uint32_t h_vaspace, flags, subctx_id;
} nv_ctxshare_allocation_parameters;

typedef struct nv_memory_desc_params { /* alloc/alloc_channel.h NV_MEMORY_DESC_PARAMS */
	uint64_t base, size;
	uint32_t address_space, cache_attrib;
} nv_memory_desc_params;

typedef struct nv_channel_alloc_params { /* alloc/alloc_channel.h NV_CHANNEL_ALLOC_PARAMS */
	uint32_t h_object_error;  /* the error notifier's memory (NvNotification at 0) */
	uint32_t h_object_buffer; /* the ring's memory */
	uint64_t gp_fifo_offset;  /* the ring's GPU VA */
	uint32_t gp_fifo_entries, flags, h_context_share, h_vaspace;
	uint32_t h_userd_memory[NV_MAX_SUBDEVICES];
	uint64_t userd_offset[NV_MAX_SUBDEVICES];
	uint32_t engine_type, cid, sub_device_id, h_object_ecc_error;
	nv_memory_desc_params instance_mem, userd_mem, ramfc_mem, mthdbuf_mem;
	uint32_t h_phys_channel_group, internal_flags;
	nv_memory_desc_params error_notifier_mem, ecc_error_notifier_mem;
	uint32_t process_id, sub_process_id;
	uint32_t encrypt_iv[3], decrypt_iv[3], hmac_nonce[8];
	uint32_t tpc_config_id;
} nv_channel_alloc_params;

typedef struct nv0000_gpu_get_id_info_v2 { /* ctrl/ctrl0000/ctrl0000gpu.h */
	uint32_t gpu_id, gpu_flags, device_instance, sub_device_instance, sli_status, board_id,
		gpu_instance;
	int32_t numa_id;
} nv0000_gpu_get_id_info_v2;

typedef struct nv0080_gpu_get_classlist_v2 { /* ctrl/ctrl0080/ctrl0080gpu.h (no embedded pointer) */
	uint32_t num_classes;
	uint32_t class_list[NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE];
} nv0080_gpu_get_classlist_v2;

typedef struct nva06c_gpfifo_schedule { /* ctrl/ctrla06f/ctrla06fgpfifo.h (A06C aliases it) */
	uint8_t enable, skip_submit, skip_enable;
} nva06c_gpfifo_schedule;

typedef struct nvc36f_work_submit_token { uint32_t work_submit_token; } nvc36f_work_submit_token;

#define NV_ABI_AT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
#define NV_ABI_SIZE(type, size) _Static_assert(sizeof(type) == (size), #type " size")
NV_ABI_SIZE(nv_ioctl_rm_api_version, 72);
NV_ABI_SIZE(nv_ioctl_card_info, 72);
NV_ABI_AT(nv_ioctl_card_info, gpu_id, 16);
NV_ABI_AT(nv_ioctl_card_info, reg_address, 24);
NV_ABI_AT(nv_ioctl_card_info, minor_number, 56);
NV_ABI_SIZE(nvos00_parameters, 16);
NV_ABI_SIZE(nvos21_parameters, 32);
NV_ABI_SIZE(nvos54_parameters, 32);
NV_ABI_AT(nvos33_parameters, offset, 16);
NV_ABI_AT(nvos33_parameters, status, 40);
NV_ABI_SIZE(nvos33_parameters, 48);
NV_ABI_SIZE(nvos33_with_fd, 56);
NV_ABI_SIZE(nvos34_parameters, 32);
NV_ABI_AT(nvos46_parameters, dma_offset, 48);
NV_ABI_SIZE(nvos46_parameters, 64);
NV_ABI_AT(nvos47_parameters, dma_offset, 24);
NV_ABI_SIZE(nvos47_parameters, 48);
NV_ABI_AT(nv0080_alloc_parameters, va_space_size, 24);
NV_ABI_SIZE(nv0080_alloc_parameters, 56);
NV_ABI_AT(nv_vaspace_allocation_parameters, va_base, 40);
NV_ABI_SIZE(nv_vaspace_allocation_parameters, 56);
NV_ABI_SIZE(nv_memory_virtual_allocation_params, 24);
NV_ABI_AT(nv_memory_allocation_params, range_lo, 48);
NV_ABI_AT(nv_memory_allocation_params, size, 64);
NV_ABI_AT(nv_memory_allocation_params, ctag_offset, 104);
NV_ABI_SIZE(nv_memory_allocation_params, 128);
NV_ABI_SIZE(nv_channel_group_allocation_parameters, 20);
NV_ABI_SIZE(nv_ctxshare_allocation_parameters, 12);
NV_ABI_SIZE(nv_memory_desc_params, 24);
NV_ABI_AT(nv_channel_alloc_params, h_userd_memory, 32);
NV_ABI_AT(nv_channel_alloc_params, userd_offset, 64);
NV_ABI_AT(nv_channel_alloc_params, engine_type, 128);
NV_ABI_AT(nv_channel_alloc_params, instance_mem, 144);
NV_ABI_AT(nv_channel_alloc_params, h_phys_channel_group, 240);
NV_ABI_AT(nv_channel_alloc_params, process_id, 296);
NV_ABI_AT(nv_channel_alloc_params, tpc_config_id, 360);
NV_ABI_SIZE(nv_channel_alloc_params, 368);
NV_ABI_SIZE(nv0000_gpu_get_id_info_v2, 32);
NV_ABI_SIZE(nv0080_gpu_get_classlist_v2, 804);
NV_ABI_SIZE(nva06c_gpfifo_schedule, 3);
NV_ABI_SIZE(nvc36f_work_submit_token, 4);

#endif
