/* SPDX-License-Identifier: MIT */
/* The real RM layer: the replay's version-neutral calls (hw/rm.h) as ioctls of
 * the open kernel modules 580.x, with the layouts of hw/nv_abi.h. Every system
 * call goes through nv->sys (hw/rm_nv.h), so in CI the fake driver checks each
 * request this file builds. libc only.
 *
 * The sequence (docs/capture.md "RM facts"): open /dev/nvidiactl and check the
 * driver version; root client; card info and the GPU's device instance; open
 * /dev/nvidiaN and register it with the control fd; device, subdevice, class
 * list, usermode (mapped through a fresh registered /dev/nvidiaN); VA space
 * and a virtual range over all of it; channel group and context share; per
 * buffer a system-memory object mapped at its fixed GPU VA (NVOS46) and for
 * the CPU (NVOS33 with a fresh /dev/nvidiactl fd, mmap at offset 0); per
 * channel the GPFIFO channel, compute and copy objects, the work-submit
 * token; the group's schedule. Each object's release undoes its mappings
 * first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_abi.h"
#include "rm_nv.h"

/* The driver versions whose layouts hw/nv_abi.h follows. */
static bool known_version(const char *v)
{
	return !strncmp(v, "580.", 4);
}

/* The replay names the client by its own handle; the RM picked another. */
static uint32_t handle_of(const cs_hw_rm_nv *nv, uint32_t h)
{
	return h == nv->client_alias ? nv->client : h;
}

static cs_hw_nv_obj *obj_of(cs_hw_rm_nv *nv, uint32_t handle)
{
	for (size_t i = 0; i < nv->nobjs; i++)
		if (nv->objs[i].handle == handle)
			return &nv->objs[i];
	return NULL;
}

static cs_hw_rc out_of_memory(char *why)
{
	snprintf(why, CS_HW_WHY_MAX, "out of memory");
	return CS_HW_FAILED;
}

static cs_hw_rc status_of(const char *what, int r, uint32_t status, char *why)
{
	if (r < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: ioctl: %s", what, strerror(errno));
		return CS_HW_FAILED;
	}
	if (status) {
		snprintf(why, CS_HW_WHY_MAX, "%s: RM status 0x%x", what, status);
		return CS_HW_FAILED;
	}
	return CS_HW_OK;
}

static int nv_ioctl(cs_hw_rm_nv *nv, int fd, unsigned long request, void *arg)
{
	int r = nv->sys->ioctl(nv->sys_ctx, fd, request, arg);
	if (!nv->trace)
		return r;
	int err = errno;
	unsigned nr = _IOC_NR(request);
	/* the RM status each escape reports, where its layout says */
	const nvos21_parameters *alloc = arg;
	const nvos54_parameters *ctl = arg;
	if (nr == NV_ESC_RM_ALLOC)
		fprintf(stderr, "chainsim-hw: RM_ALLOC class 0x%04x parent 0x%x new 0x%x: rc %d status "
			"0x%x\n", alloc->h_class, alloc->h_object_parent, alloc->h_object_new, r,
			alloc->status);
	else if (nr == NV_ESC_RM_CONTROL)
		fprintf(stderr, "chainsim-hw: RM_CONTROL 0x%08x on 0x%x: rc %d status 0x%x\n", ctl->cmd,
			ctl->h_object, r, ctl->status);
	else
		fprintf(stderr, "chainsim-hw: escape 0x%02x (%u bytes) on fd %d: rc %d%s%s\n", nr,
			(unsigned)_IOC_SIZE(request), fd, r, r < 0 ? ": " : "", r < 0 ? strerror(err) : "");
	errno = err;
	return r;
}

static void close_fd(cs_hw_rm_nv *nv, int *fd)
{
	if (*fd >= 0)
		nv->sys->close(nv->sys_ctx, *fd);
	*fd = -1;
}

static cs_hw_rc nv_open(void *ctx, unsigned arch_code, char *version, size_t vlen, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	(void)arch_code; /* the class list decides whether this GPU can run the capture */
	nv->fd_ctl = nv->sys->open(nv->sys_ctx, nv->ctl_path);
	if (nv->fd_ctl < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: %s (the NVIDIA kernel driver is not loaded, or this "
			 "is not a GPU machine)", nv->ctl_path, strerror(errno));
		return CS_HW_UNAVAILABLE;
	}
	nv_ioctl_rm_api_version q = { .cmd = NV_RM_API_VERSION_CMD_QUERY };
	if (nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_CHECK_VERSION_STR, q), &q) < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: the driver version query (NV_ESC_CHECK_VERSION_STR) "
			 "failed: %s", nv->ctl_path, strerror(errno));
		close_fd(nv, &nv->fd_ctl);
		return CS_HW_UNAVAILABLE;
	}
	q.version[sizeof(q.version) - 1] = 0;
	snprintf(version, vlen, "%s", q.version);
	if (!known_version(q.version)) {
		snprintf(why, CS_HW_WHY_MAX, "driver %.64s: chainsim-hw knows the RM layouts of 580.x "
			 "only (they change between versions; hw/nv_abi.h)", q.version);
		close_fd(nv, &nv->fd_ctl);
		return CS_HW_UNAVAILABLE;
	}
	return CS_HW_OK;
}

static cs_hw_rc control(cs_hw_rm_nv *nv, uint32_t object, uint32_t cmd, void *params,
			uint32_t size, char *why)
{
	nvos54_parameters p = { .h_client = nv->client, .h_object = handle_of(nv, object),
				.cmd = cmd, .params = (uint64_t)(uintptr_t)params, .params_size = size };
	char what[64];
	snprintf(what, sizeof(what), "RM_CONTROL 0x%08x", cmd);
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_CONTROL, p), &p);
	return status_of(what, r, p.status, why);
}

static cs_hw_rc rm_free(cs_hw_rm_nv *nv, uint32_t parent, uint32_t handle, char *why)
{
	nvos00_parameters p = { .h_root = nv->client, .h_object_parent = handle_of(nv, parent),
				.h_object_old = handle_of(nv, handle) };
	if (handle == nv->client_alias)
		p.h_root = p.h_object_parent = p.h_object_old = nv->client;
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_FREE, p), &p);
	return status_of("RM_FREE", r, p.status, why);
}

/* A fresh /dev/nvidiaN registered with the control fd (one per mapping of the
 * GPU's registers, and one for the device's life). */
static int open_gpu_fd(cs_hw_rm_nv *nv, char *why)
{
	char path[32];
	snprintf(path, sizeof(path), "/dev/nvidia%u", nv->minor);
	int fd = nv->sys->open(nv->sys_ctx, path);
	if (fd < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: %s", path, strerror(errno));
		return -1;
	}
	nv_ioctl_register_fd reg = { .ctl_fd = nv->fd_ctl };
	if (nv_ioctl(nv, fd, NV_IOWR(NV_ESC_REGISTER_FD, reg), &reg) < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: NV_ESC_REGISTER_FD: %s", path, strerror(errno));
		nv->sys->close(nv->sys_ctx, fd);
		return -1;
	}
	return fd;
}

/* Before the device: the first GPU the driver lists, its /dev/nvidiaN and its
 * device instance (NV0080's deviceId). */
static cs_hw_rc find_gpu(cs_hw_rm_nv *nv, uint32_t *device_instance, char *why)
{
	nv_ioctl_card_info cards[NV_CARD_INFO_MAX];
	memset(cards, 0, sizeof(cards));
	if (nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_CARD_INFO, cards), cards) < 0) {
		snprintf(why, CS_HW_WHY_MAX, "NV_ESC_CARD_INFO: %s", strerror(errno));
		return CS_HW_FAILED;
	}
	size_t i = 0;
	while (i < NV_CARD_INFO_MAX && !cards[i].valid)
		i++;
	if (i == NV_CARD_INFO_MAX) {
		snprintf(why, CS_HW_WHY_MAX, "the driver lists no GPU (NV_ESC_CARD_INFO)");
		return CS_HW_UNAVAILABLE;
	}
	nv->minor = cards[i].minor_number;
	nv0000_gpu_get_id_info_v2 id = { .gpu_id = cards[i].gpu_id };
	cs_hw_rc rc = control(nv, nv->client_alias, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id,
			      sizeof(id), why);
	if (rc != CS_HW_OK)
		return rc;
	*device_instance = id.device_instance;
	nv->fd_dev = open_gpu_fd(nv, why);
	return nv->fd_dev < 0 ? CS_HW_UNAVAILABLE : CS_HW_OK;
}

static cs_hw_rc map_dma(cs_hw_rm_nv *nv, cs_hw_nv_obj *o, const cs_hw_alloc_args *a, char *why)
{
	nvos46_parameters p = { .h_client = nv->client, .h_device = nv->device,
				.h_dma = a->h_virtual, .h_memory = o->handle, .length = a->size,
				.flags = NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE | NVOS46_FLAGS_PAGE_SIZE_4KB |
					 NVOS46_FLAGS_CACHE_SNOOP_ENABLE,
				.dma_offset = a->gpu_va };
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_MAP_MEMORY_DMA, p), &p);
	cs_hw_rc rc = status_of("RM_MAP_MEMORY_DMA", r, p.status, why);
	if (rc == CS_HW_OK && p.dma_offset != a->gpu_va) {
		snprintf(why, CS_HW_WHY_MAX, "RM_MAP_MEMORY_DMA placed 0x%llx at 0x%llx, not at the "
			 "fixed VA asked", (unsigned long long)o->handle,
			 (unsigned long long)p.dma_offset);
		rc = CS_HW_FAILED;
	}
	if (rc == CS_HW_OK) {
		o->dma_va = p.dma_offset;
		o->dma_virtual = a->h_virtual;
	}
	return rc;
}

static cs_hw_rc unmap_dma(cs_hw_rm_nv *nv, cs_hw_nv_obj *o, char *why)
{
	nvos47_parameters p = { .h_client = nv->client, .h_device = nv->device,
				.h_dma = o->dma_virtual, .h_memory = o->handle,
				.dma_offset = o->dma_va };
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_UNMAP_MEMORY_DMA, p), &p);
	o->dma_virtual = 0;
	return status_of("RM_UNMAP_MEMORY_DMA", r, p.status, why);
}

/* The class's parameters (NULL for none) in the storage the caller gives. */
static cs_hw_rc build_params(cs_hw_rm_nv *nv, uint32_t cls, const cs_hw_alloc_args *a,
			     void *store, void **params, uint32_t *size, char *why)
{
	*params = store;
	switch (cls) {
	case CS_HW_ROOT_CLIENT:
	case CS_HW_USERMODE_TURING:
	case CS_HW_USERMODE_AMPERE:
	case CS_HW_USERMODE_HOPPER:
	case CS_HW_USERMODE_BLACKWELL:
		*params = NULL; /* the RM's defaults (tinygrad allocates usermode so) */
		*size = 0;
		return CS_HW_OK;
	case CS_HW_DEVICE:
		*(nv0080_alloc_parameters *)store = (nv0080_alloc_parameters){
			.h_client_share = nv->client,
			.va_mode = NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES };
		*size = sizeof(nv0080_alloc_parameters);
		return find_gpu(nv, &((nv0080_alloc_parameters *)store)->device_id, why);
	case CS_HW_SUBDEVICE:
		*(nv2080_alloc_parameters *)store = (nv2080_alloc_parameters){ 0 };
		*size = sizeof(nv2080_alloc_parameters);
		return CS_HW_OK;
	case CS_HW_VASPACE: /* RM-owned (no UVM): mappings go through NVOS46 */
		*(nv_vaspace_allocation_parameters *)store = (nv_vaspace_allocation_parameters){ 0 };
		*size = sizeof(nv_vaspace_allocation_parameters);
		return CS_HW_OK;
	case CS_HW_VIRTUAL:
		*(nv_memory_virtual_allocation_params *)store =
			(nv_memory_virtual_allocation_params){ .h_vaspace = a->h_vaspace };
		*size = sizeof(nv_memory_virtual_allocation_params);
		return CS_HW_OK;
	case CS_HW_MEMORY: /* system memory, as tinygrad's working sysmem allocation asks */
		*(nv_memory_allocation_params *)store = (nv_memory_allocation_params){
			.owner = nv->client, .type = NVOS32_TYPE_NOTIFIER,
			.flags = NVOS32_ALLOC_FLAGS_IGNORE_BANK_PLACEMENT |
				 NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED |
				 NVOS32_ALLOC_FLAGS_MAP_NOT_REQUIRED,
			.attr = NVOS32_ATTR_PHYSICALITY_ALLOW_NONCONTIGUOUS | NVOS32_ATTR_LOCATION_PCI,
			.attr2 = NVOS32_ATTR2_ZBC_PREFER_NO_ZBC | NVOS32_ATTR2_GPU_CACHEABLE_NO,
			.format = NV_MEMORY_FORMAT_PITCH, .size = a->size, .alignment = 4096,
			.limit = a->size - 1 };
		*size = sizeof(nv_memory_allocation_params);
		return CS_HW_OK;
	case CS_HW_CHANNEL_GROUP:
		*(nv_channel_group_allocation_parameters *)store =
			(nv_channel_group_allocation_parameters){
				.h_vaspace = a->h_vaspace, .engine_type = NV2080_ENGINE_TYPE_GRAPHICS };
		*size = sizeof(nv_channel_group_allocation_parameters);
		return CS_HW_OK;
	case CS_HW_CONTEXT_SHARE:
		*(nv_ctxshare_allocation_parameters *)store = (nv_ctxshare_allocation_parameters){
			.h_vaspace = a->h_vaspace, .flags = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC };
		*size = sizeof(nv_ctxshare_allocation_parameters);
		return CS_HW_OK;
	default:
		break;
	}
	if (a->entries) { /* a GPFIFO channel (the capture's host class) */
		nv_channel_alloc_params *c = store;
		*c = (nv_channel_alloc_params){ .h_object_error = a->h_error,
						.h_object_buffer = a->h_memory,
						.gp_fifo_offset = a->ring_va,
						.gp_fifo_entries = a->entries,
						.h_context_share = a->h_ctxshare };
		c->h_userd_memory[0] = a->h_memory;
		c->userd_offset[0] = a->userd_offset;
		*size = sizeof(*c);
		return CS_HW_OK;
	}
	*params = NULL; /* an engine object on a channel: compute, copy */
	*size = 0;
	return CS_HW_OK;
}

static cs_hw_rc nv_alloc(void *ctx, uint32_t parent, uint32_t handle, uint32_t cls,
			 const cs_hw_alloc_args *a, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	if (nv->nobjs == nv->cap) {
		size_t cap = nv->cap ? nv->cap * 2 : 64;
		cs_hw_nv_obj *n = realloc(nv->objs, cap * sizeof(*n));
		if (!n)
			return out_of_memory(why);
		nv->objs = n;
		nv->cap = cap;
	}
	union {
		nv0080_alloc_parameters device;
		nv2080_alloc_parameters subdevice;
		nv_vaspace_allocation_parameters vaspace;
		nv_memory_virtual_allocation_params virtual;
		nv_memory_allocation_params memory;
		nv_channel_group_allocation_parameters group;
		nv_ctxshare_allocation_parameters ctxshare;
		nv_channel_alloc_params channel;
	} store;
	void *params;
	uint32_t size;
	cs_hw_rc rc = build_params(nv, cls, a, &store, &params, &size, why);
	if (rc != CS_HW_OK) {
		if (cls == CS_HW_DEVICE)
			close_fd(nv, &nv->fd_dev);
		return rc;
	}
	nvos21_parameters p = { .h_root = nv->client, .h_object_parent = handle_of(nv, parent),
				.h_object_new = handle, .h_class = cls,
				.p_alloc_parms = (uint64_t)(uintptr_t)params, .params_size = size };
	if (cls == CS_HW_ROOT_CLIENT)
		p.h_root = p.h_object_parent = p.h_object_new = 0; /* the RM picks its handle */
	char what[64];
	snprintf(what, sizeof(what), "RM_ALLOC class 0x%04x", cls);
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_ALLOC, p), &p);
	rc = status_of(what, r, p.status, why);
	if (rc != CS_HW_OK) {
		if (cls == CS_HW_DEVICE)
			close_fd(nv, &nv->fd_dev);
		return rc;
	}
	if (cls == CS_HW_ROOT_CLIENT) {
		nv->client = p.h_object_new;
		nv->client_alias = handle;
	}
	if (cls == CS_HW_DEVICE)
		nv->device = handle;
	cs_hw_nv_obj *o = &nv->objs[nv->nobjs++];
	*o = (cs_hw_nv_obj){ .handle = handle, .cls = cls };
	if (cls == CS_HW_MEMORY && (rc = map_dma(nv, o, a, why)) != CS_HW_OK) {
		char ignored[CS_HW_WHY_MAX];
		rm_free(nv, parent, handle, ignored); /* the replay never saw it */
		nv->nobjs--;
	}
	return rc;
}

static cs_hw_rc nv_control(void *ctx, uint32_t object, uint32_t cmd, void *params, uint32_t size,
			   char *why)
{
	cs_hw_rm_nv *nv = ctx;
	if (cmd == CS_HW_CTRL_WORK_SUBMIT_TOKEN && size == sizeof(uint32_t)) {
		nvc36f_work_submit_token t = { .work_submit_token = UINT32_MAX };
		cs_hw_rc rc = control(nv, object, NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN, &t,
				      sizeof(t), why);
		if (rc == CS_HW_OK && t.work_submit_token == UINT32_MAX) {
			snprintf(why, CS_HW_WHY_MAX, "the work-submit token control left no token");
			rc = CS_HW_FAILED;
		}
		memcpy(params, &t.work_submit_token, sizeof(uint32_t));
		return rc;
	}
	if (cmd == CS_HW_CTRL_GPFIFO_SCHEDULE && size == sizeof(uint32_t)) {
		uint32_t enable;
		memcpy(&enable, params, sizeof(enable));
		nva06c_gpfifo_schedule s = { .enable = enable != 0 };
		return control(nv, object, NVA06C_CTRL_CMD_GPFIFO_SCHEDULE, &s, sizeof(s), why);
	}
	snprintf(why, CS_HW_WHY_MAX, "control 0x%08x (%u bytes): hw/rm_nv.c has no 580.x layout "
		 "for it", cmd, size);
	return CS_HW_FAILED;
}

static cs_hw_rc nv_free(void *ctx, uint32_t parent, uint32_t handle, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	cs_hw_nv_obj *o = obj_of(nv, handle);
	cs_hw_rc rc = CS_HW_OK;
	if (o && o->dma_virtual)
		rc = unmap_dma(nv, o, why);
	cs_hw_rc freed = rm_free(nv, parent, handle, why);
	if (o)
		*o = nv->objs[--nv->nobjs];
	if (handle == nv->device && freed == CS_HW_OK)
		close_fd(nv, &nv->fd_dev);
	return rc != CS_HW_OK ? rc : freed;
}

static cs_hw_rc nv_classes(void *ctx, uint32_t device, const uint32_t *need, size_t nneed,
			   uint32_t *usermode, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	nv0080_gpu_get_classlist_v2 *q = calloc(1, sizeof(*q));
	if (!q)
		return out_of_memory(why);
	cs_hw_rc rc = control(nv, device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2, q, sizeof(*q), why);
	if (rc == CS_HW_OK && q->num_classes > NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE) {
		snprintf(why, CS_HW_WHY_MAX, "the class list counts %u classes", q->num_classes);
		rc = CS_HW_FAILED;
	}
	/* the newest usermode class the GPU offers */
	static const uint32_t usermodes[] = { CS_HW_USERMODE_BLACKWELL, CS_HW_USERMODE_HOPPER,
					      CS_HW_USERMODE_AMPERE, CS_HW_USERMODE_TURING };
	*usermode = 0;
	for (size_t u = 0; rc == CS_HW_OK && u < sizeof(usermodes) / sizeof(*usermodes); u++)
		for (uint32_t i = 0; !*usermode && i < q->num_classes; i++)
			if (q->class_list[i] == usermodes[u])
				*usermode = usermodes[u];
	for (size_t n = 0; rc == CS_HW_OK && n < nneed; n++) {
		bool found = false;
		for (uint32_t i = 0; i < q->num_classes && !found; i++)
			found = q->class_list[i] == need[n];
		if (!found) {
			snprintf(why, CS_HW_WHY_MAX, "the GPU offers no class 0x%04x, which the capture "
				 "uses", need[n]);
			rc = CS_HW_UNAVAILABLE;
		}
	}
	free(q);
	if (rc == CS_HW_OK && !*usermode) {
		snprintf(why, CS_HW_WHY_MAX, "the GPU offers no usermode class (C761, C661, C561, C461)");
		rc = CS_HW_UNAVAILABLE;
	}
	return rc;
}

static bool is_usermode(uint32_t cls)
{
	return cls == CS_HW_USERMODE_TURING || cls == CS_HW_USERMODE_AMPERE ||
	       cls == CS_HW_USERMODE_HOPPER || cls == CS_HW_USERMODE_BLACKWELL;
}

/* The CPU view: NVOS33 ties the object to a fresh fd, which mmap then maps at
 * offset 0 (the driver keeps one mapping context per fd). */
static cs_hw_rc nv_map(void *ctx, uint32_t handle, uint64_t size, void **cpu, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	cs_hw_nv_obj *o = obj_of(nv, handle);
	*cpu = NULL;
	if (!o) {
		snprintf(why, CS_HW_WHY_MAX, "map: 0x%x is no object of this replay", handle);
		return CS_HW_FAILED;
	}
	bool regs = is_usermode(o->cls);
	int fd = regs ? open_gpu_fd(nv, why) : nv->sys->open(nv->sys_ctx, nv->ctl_path);
	if (fd < 0) {
		if (!regs)
			snprintf(why, CS_HW_WHY_MAX, "%s: %s", nv->ctl_path, strerror(errno));
		return CS_HW_FAILED;
	}
	nvos33_with_fd p = { .params = { .h_client = nv->client, .h_device = nv->device,
					 .h_memory = handle, .length = size,
					 .flags = regs ? NVOS33_FLAGS_ACCESS_WRITE_ONLY
						       : NVOS33_FLAGS_ACCESS_READ_WRITE },
			     .fd = fd };
	int r = nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_MAP_MEMORY, p), &p);
	cs_hw_rc rc = status_of("RM_MAP_MEMORY", r, p.params.status, why);
	if (rc == CS_HW_OK) {
		o->linear = p.params.p_linear_address;
		*cpu = nv->sys->mmap(nv->sys_ctx, fd, size);
		if (!*cpu) {
			snprintf(why, CS_HW_WHY_MAX, "mmap of object 0x%x (%llu bytes): %s", handle,
				 (unsigned long long)size, strerror(errno));
			nvos34_parameters u = { .h_client = nv->client, .h_device = nv->device,
						.h_memory = handle, .p_linear_address = o->linear };
			nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_UNMAP_MEMORY, u), &u);
			rc = CS_HW_FAILED;
		}
	}
	nv->sys->close(nv->sys_ctx, fd); /* the mapping outlives its fd */
	return rc;
}

static void nv_unmap(void *ctx, uint32_t handle, void *cpu, uint64_t size)
{
	cs_hw_rm_nv *nv = ctx;
	cs_hw_nv_obj *o = obj_of(nv, handle);
	nv->sys->munmap(nv->sys_ctx, cpu, size);
	nvos34_parameters p = { .h_client = nv->client, .h_device = nv->device, .h_memory = handle,
				.p_linear_address = o ? o->linear : 0 };
	nv_ioctl(nv, nv->fd_ctl, NV_IOWR(NV_ESC_RM_UNMAP_MEMORY, p), &p);
}

static void nv_doorbell(void *ctx, volatile uint8_t *usermode, uint32_t token)
{
	cs_hw_rm_nv *nv = ctx;
	nv->sys->store32(nv->sys_ctx,
			 (volatile uint32_t *)(usermode + NVC361_NOTIFY_CHANNEL_PENDING), token);
}

static bool nv_pause(void *ctx)
{
	cs_hw_rm_nv *nv = ctx;
	return nv->sys->pause(nv->sys_ctx);
}

static void nv_close(void *ctx)
{
	cs_hw_rm_nv *nv = ctx;
	close_fd(nv, &nv->fd_dev);
	close_fd(nv, &nv->fd_ctl); /* the RM also frees a client whose fd closes */
	free(nv->objs);
	nv->objs = NULL;
	nv->nobjs = nv->cap = 0;
}

static cs_hw_rc nv_module(void *ctx, const char *name, const uint8_t *file, uint64_t len,
			  const uint8_t *ptx, uint64_t nptx, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	if (!nv->sys->module)
		return CS_HW_OK; /* a GPU runs the SASS the capture put in memory */
	return nv->sys->module(nv->sys_ctx, name, file, len, ptx, nptx, why);
}

void cs_hw_rm_nv_init(cs_hw_rm_nv *nv, const cs_hw_nv_sys *sys, void *sys_ctx)
{
	memset(nv, 0, sizeof(*nv));
	nv->sys = sys ? sys : &cs_hw_nv_sys_linux;
	nv->sys_ctx = sys_ctx;
	nv->fd_ctl = nv->fd_dev = -1;
	nv->ctl_path = getenv("CHAINSIM_HW_NVIDIACTL");
	if (!nv->ctl_path)
		nv->ctl_path = "/dev/nvidiactl";
	const char *trace = getenv("CHAINSIM_HW_TRACE");
	nv->trace = trace && *trace && strcmp(trace, "0");
}

const cs_hw_rm_ops cs_hw_rm_nv_ops = {
	.name = "nvidia",
	.open = nv_open,
	.classes = nv_classes,
	.alloc = nv_alloc,
	.control = nv_control,
	.free = nv_free,
	.map = nv_map,
	.unmap = nv_unmap,
	.doorbell = nv_doorbell,
	.pause = nv_pause,
	.close = nv_close,
	.module = nv_module,
};
