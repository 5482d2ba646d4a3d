/* SPDX-License-Identifier: MIT */
/* The fake kernel driver (hwfake/fake_rm.h): chainsim-hw's system calls
 * (hw/rm_nv.h's table) answered the way the open kernel modules 580.x answer
 * them, each request decoded with hw/nv_abi.h and checked: its size, its
 * handles, the fields a real driver needs, and the order (the version check
 * first, a registered /dev/nvidiaN before the device and for the usermode
 * mapping, an fd bound by RM_MAP_MEMORY before its mmap, mappings undone
 * before their object is freed). A request it refuses is printed and
 * counted; the RM objects themselves live in the model (fake_model.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/arch.h"
#include "chainsim/capture.h"
#include "fake_model.h"
#include "nv_abi.h"
#include "rm_nv.h"

enum { FD_BASE = 100, MAX_FDS = 64, MAX_MAPS = 1024, FAKE_GPU_ID = 0x100, FAKE_MINOR = 0 };
#define FAKE_CLIENT 0xc1d00001u      /* the handle the fake RM picks for the client */
#define FAKE_LINEAR_BASE 0x10000000u /* where its pLinearAddress tokens start */

typedef enum fd_kind { FD_FREE, FD_CTL, FD_GPU } fd_kind;

typedef struct fake_fd {
	fd_kind kind;
	bool registered;   /* FD_GPU: NV_ESC_REGISTER_FD done */
	uint32_t bound;    /* the object RM_MAP_MEMORY tied to it (0: none) */
	uint64_t bound_len;
	bool mapped;       /* its one mmap is done */
	bool version_checked; /* FD_CTL: NV_ESC_CHECK_VERSION_STR done on it */
} fake_fd;

typedef struct cpu_map { /* RM_MAP_MEMORY + mmap, until munmap + RM_UNMAP_MEMORY */
	uint32_t handle;
	uint64_t linear, len;
	void *addr;          /* NULL until mmap */
	bool rm_live, cpu_live;
} cpu_map;

typedef struct dma_map { /* RM_MAP_MEMORY_DMA, until RM_UNMAP_MEMORY_DMA */
	uint32_t handle, virtual;
	uint64_t va, len;
} dma_map;

struct cs_fake_rm {
	cs_fake_rm_config cfg;
	cs_fake_model *model;
	cs_hw_rm_nv nv;          /* the real layer, over this driver */
	unsigned arch_code;
	fake_fd fds[MAX_FDS];
	bool model_open;
	uint32_t client;          /* 0: none yet */
	cpu_map cpu[MAX_MAPS];
	size_t ncpu;
	dma_map dma[MAX_MAPS];
	size_t ndma;
	uint8_t *usermode_cpu;
	size_t refusals;
	char *log;
	size_t log_len, log_cap;
};

static void log_line(cs_fake_rm *f, const char *fmt, ...)
{
	char line[96];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = strlen(line);
	if (f->log_len + len + 2 > f->log_cap) {
		size_t cap = (f->log_cap + len + 2) * 2;
		char *p = realloc(f->log, cap);
		if (!p)
			return;
		f->log = p;
		f->log_cap = cap;
	}
	memcpy(f->log + f->log_len, line, len);
	f->log_len += len;
	f->log[f->log_len++] = '\n';
	f->log[f->log_len] = 0;
}

/* A refused request: said and counted; the answer is an RM status (or -1 and
 * errno for a malformed ioctl, as the kernel answers). */
static uint32_t refuse(cs_fake_rm *f, uint32_t status, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fake-rm driver: refused: %s (status 0x%x)\n", msg, status);
	f->refusals++;
	return status;
}

static fake_fd *fd_of(cs_fake_rm *f, int fd)
{
	if (fd < FD_BASE || fd >= FD_BASE + MAX_FDS || f->fds[fd - FD_BASE].kind == FD_FREE)
		return NULL;
	return &f->fds[fd - FD_BASE];
}

static bool object(cs_fake_rm *f, uint32_t h, uint32_t *cls, uint64_t *size, uint64_t *va)
{
	uint64_t s, v;
	uint32_t c;
	bool ok = cs_fake_model_object(f->model, h, &c, &s, &v);
	if (ok && cls)
		*cls = c;
	if (ok && size)
		*size = s;
	if (ok && va)
		*va = v;
	return ok;
}

static bool is_class(cs_fake_rm *f, uint32_t h, uint32_t want)
{
	uint32_t cls;
	return h && object(f, h, &cls, NULL, NULL) && cls == want;
}

/* The fake GPU's generation (the capture's); CS_ARCH_COUNT for none. */
static cs_arch gpu_arch(const cs_fake_rm *f)
{
	for (int a = 0; a < CS_ARCH_COUNT; a++)
		if (cs_capture_arch_code((cs_arch)a) == f->arch_code)
			return (cs_arch)a;
	return CS_ARCH_COUNT;
}

/* ---- the system calls ----------------------------------------------------------- */

static int drv_open(void *ctx, const char *path)
{
	cs_fake_rm *f = ctx;
	char gpu[32];
	snprintf(gpu, sizeof(gpu), "/dev/nvidia%u", FAKE_MINOR);
	fd_kind kind = !strcmp(path, f->nv.ctl_path) ? FD_CTL : !strcmp(path, gpu) ? FD_GPU : FD_FREE;
	log_line(f, "open %s", kind == FD_CTL ? "ctl" : kind == FD_GPU ? "gpu" : path);
	if (f->cfg.absent || kind == FD_FREE) {
		errno = ENOENT;
		return -1;
	}
	if (kind == FD_CTL && !f->model_open) { /* the fake GPU is the capture's generation */
		char version[64], why[CS_HW_WHY_MAX];
		if (cs_fake_model_ops.open(f->model, f->arch_code, version, sizeof(version), why) !=
		    CS_HW_OK) {
			fprintf(stderr, "fake-rm driver: %s\n", why);
			errno = ENODEV;
			return -1;
		}
		f->model_open = true;
	}
	for (int i = 0; i < MAX_FDS; i++)
		if (f->fds[i].kind == FD_FREE) {
			f->fds[i] = (fake_fd){ .kind = kind };
			return FD_BASE + i;
		}
	errno = EMFILE;
	return -1;
}

static int drv_close(void *ctx, int fd)
{
	cs_fake_rm *f = ctx;
	fake_fd *d = fd_of(f, fd);
	log_line(f, "close");
	if (!d) {
		errno = EBADF;
		return -1;
	}
	d->kind = FD_FREE;
	return 0;
}

static uint32_t do_alloc(cs_fake_rm *f, nvos21_parameters *p);
static uint32_t do_control(cs_fake_rm *f, nvos54_parameters *p);
static uint32_t do_free(cs_fake_rm *f, nvos00_parameters *p);
static uint32_t do_map(cs_fake_rm *f, nvos33_with_fd *p);
static uint32_t do_unmap(cs_fake_rm *f, nvos34_parameters *p);
static uint32_t do_map_dma(cs_fake_rm *f, nvos46_parameters *p);
static uint32_t do_unmap_dma(cs_fake_rm *f, nvos47_parameters *p);

static const char *escape_name(unsigned nr)
{
	switch (nr) {
	case NV_ESC_CARD_INFO: return "CARD_INFO";
	case NV_ESC_REGISTER_FD: return "REGISTER_FD";
	case NV_ESC_CHECK_VERSION_STR: return "CHECK_VERSION_STR";
	case NV_ESC_RM_FREE: return "RM_FREE";
	case NV_ESC_RM_CONTROL: return "RM_CONTROL";
	case NV_ESC_RM_ALLOC: return "RM_ALLOC";
	case NV_ESC_RM_MAP_MEMORY: return "RM_MAP_MEMORY";
	case NV_ESC_RM_UNMAP_MEMORY: return "RM_UNMAP_MEMORY";
	case NV_ESC_RM_MAP_MEMORY_DMA: return "RM_MAP_MEMORY_DMA";
	case NV_ESC_RM_UNMAP_MEMORY_DMA: return "RM_UNMAP_MEMORY_DMA";
	default: return NULL;
	}
}

/* The size each escape's argument must have (CARD_INFO: a multiple). */
static size_t escape_size(unsigned nr)
{
	switch (nr) {
	case NV_ESC_CARD_INFO: return sizeof(nv_ioctl_card_info);
	case NV_ESC_REGISTER_FD: return sizeof(nv_ioctl_register_fd);
	case NV_ESC_CHECK_VERSION_STR: return sizeof(nv_ioctl_rm_api_version);
	case NV_ESC_RM_FREE: return sizeof(nvos00_parameters);
	case NV_ESC_RM_CONTROL: return sizeof(nvos54_parameters);
	case NV_ESC_RM_ALLOC: return sizeof(nvos21_parameters);
	case NV_ESC_RM_MAP_MEMORY: return sizeof(nvos33_with_fd);
	case NV_ESC_RM_UNMAP_MEMORY: return sizeof(nvos34_parameters);
	case NV_ESC_RM_MAP_MEMORY_DMA: return sizeof(nvos46_parameters);
	case NV_ESC_RM_UNMAP_MEMORY_DMA: return sizeof(nvos47_parameters);
	default: return 0;
	}
}

static int malformed(cs_fake_rm *f, const char *what, unsigned nr)
{
	refuse(f, 0, "%s (escape 0x%x)", what, nr);
	errno = EINVAL;
	return -1;
}

static int drv_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	cs_fake_rm *f = ctx;
	fake_fd *d = fd_of(f, fd);
	unsigned nr = _IOC_NR(request);
	size_t size = _IOC_SIZE(request), want = escape_size(nr);
	const char *name = escape_name(nr);
	bool sized = name && (nr == NV_ESC_CARD_INFO ? size >= want && size % want == 0 : size == want);
	if (sized && nr == NV_ESC_RM_ALLOC)
		log_line(f, "%s 0x%04x", name, ((nvos21_parameters *)arg)->h_class);
	else if (sized && nr == NV_ESC_RM_CONTROL)
		log_line(f, "%s 0x%08x", name, ((nvos54_parameters *)arg)->cmd);
	else
		log_line(f, "%s", name ? name : "ioctl ?");
	if (!d) {
		errno = EBADF;
		return -1;
	}
	if (_IOC_TYPE(request) != NV_IOCTL_MAGIC || _IOC_DIR(request) != (_IOC_READ | _IOC_WRITE) ||
	    !name)
		return malformed(f, "not an NVIDIA escape", nr);
	if (!sized)
		return malformed(f, "argument of the wrong size", nr);
	if ((d->kind == FD_GPU) != (nr == NV_ESC_REGISTER_FD))
		return malformed(f, "escape on the wrong device node", nr);
	/* the layer's own rule: layouts depend on the version, so it asks first */
	if (!d->version_checked && nr != NV_ESC_CHECK_VERSION_STR && d->kind == FD_CTL)
		return malformed(f, "RM request on a control fd before its version check", nr);
	switch (nr) {
	case NV_ESC_CHECK_VERSION_STR: {
		nv_ioctl_rm_api_version *q = arg;
		if (q->cmd != NV_RM_API_VERSION_CMD_QUERY)
			return malformed(f, "version check without the query command", nr);
		snprintf(q->version, sizeof(q->version), "%s",
			 f->cfg.driver_version ? f->cfg.driver_version : "580.126.09");
		q->reply = 1;
		d->version_checked = true;
		return 0;
	}
	case NV_ESC_CARD_INFO: {
		nv_ioctl_card_info *cards = arg;
		memset(cards, 0, size);
		cards[0] = (nv_ioctl_card_info){ .valid = 1, .gpu_id = FAKE_GPU_ID,
						 .minor_number = FAKE_MINOR };
		return 0;
	}
	case NV_ESC_REGISTER_FD: {
		fake_fd *ctl = fd_of(f, ((nv_ioctl_register_fd *)arg)->ctl_fd);
		if (!ctl || ctl->kind != FD_CTL)
			return malformed(f, "REGISTER_FD names no open /dev/nvidiactl", nr);
		d->registered = true;
		return 0;
	}
	case NV_ESC_RM_ALLOC:
		((nvos21_parameters *)arg)->status = do_alloc(f, arg);
		return 0;
	case NV_ESC_RM_CONTROL:
		((nvos54_parameters *)arg)->status = do_control(f, arg);
		return 0;
	case NV_ESC_RM_FREE:
		((nvos00_parameters *)arg)->status = do_free(f, arg);
		return 0;
	case NV_ESC_RM_MAP_MEMORY:
		((nvos33_with_fd *)arg)->params.status = do_map(f, arg);
		return 0;
	case NV_ESC_RM_UNMAP_MEMORY:
		((nvos34_parameters *)arg)->status = do_unmap(f, arg);
		return 0;
	case NV_ESC_RM_MAP_MEMORY_DMA:
		((nvos46_parameters *)arg)->status = do_map_dma(f, arg);
		return 0;
	default:
		((nvos47_parameters *)arg)->status = do_unmap_dma(f, arg);
		return 0;
	}
}

static void *drv_mmap(void *ctx, int fd, uint64_t len)
{
	cs_fake_rm *f = ctx;
	fake_fd *d = fd_of(f, fd);
	log_line(f, "mmap");
	if (!d || !d->bound || d->mapped || len > d->bound_len) {
		refuse(f, 0, "mmap of fd %d: no RM_MAP_MEMORY of %llu bytes on it first", fd,
		       (unsigned long long)len);
		errno = EINVAL;
		return NULL;
	}
	cpu_map *m = NULL;
	for (size_t i = 0; i < f->ncpu && !m; i++)
		if (f->cpu[i].rm_live && !f->cpu[i].addr && f->cpu[i].handle == d->bound)
			m = &f->cpu[i];
	void *p = NULL;
	char why[CS_HW_WHY_MAX];
	if (!m || cs_fake_model_ops.map(f->model, d->bound, len, &p, why) != CS_HW_OK) {
		refuse(f, 0, "mmap of object 0x%x", d->bound);
		errno = EINVAL;
		return NULL;
	}
	uint32_t cls = 0;
	object(f, d->bound, &cls, NULL, NULL);
	if (cls != CS_HW_MEMORY)
		f->usermode_cpu = p;
	m->addr = p;
	m->cpu_live = true;
	d->mapped = true;
	return p;
}

static void drv_munmap(void *ctx, void *addr, uint64_t len)
{
	cs_fake_rm *f = ctx;
	log_line(f, "munmap");
	for (size_t i = 0; i < f->ncpu; i++)
		if (f->cpu[i].cpu_live && f->cpu[i].addr == addr && f->cpu[i].len == len) {
			f->cpu[i].cpu_live = false;
			return;
		}
	refuse(f, 0, "munmap of %llu bytes at %p: not a mapping", (unsigned long long)len, addr);
}

static void drv_store32(void *ctx, volatile uint32_t *reg, uint32_t value)
{
	cs_fake_rm *f = ctx;
	log_line(f, "doorbell");
	if (!f->usermode_cpu || (volatile uint8_t *)reg != f->usermode_cpu + NVC361_NOTIFY_CHANNEL_PENDING) {
		refuse(f, 0, "a store of 0x%x that is not the usermode doorbell", value);
		return;
	}
	cs_fake_model_ops.doorbell(f->model, f->usermode_cpu, value);
}

static bool drv_pause(void *ctx)
{
	cs_fake_rm *f = ctx;
	return cs_fake_model_ops.pause(f->model);
}

static cs_hw_rc drv_module(void *ctx, const char *name, const uint8_t *file, uint64_t len,
			   const uint8_t *ptx, uint64_t nptx, char *why)
{
	cs_fake_rm *f = ctx;
	return cs_fake_model_ops.module(f->model, name, file, len, ptx, nptx, why);
}

static const cs_hw_nv_sys fake_sys = {
	.open = drv_open,
	.close = drv_close,
	.ioctl = drv_ioctl,
	.mmap = drv_mmap,
	.munmap = drv_munmap,
	.store32 = drv_store32,
	.pause = drv_pause,
	.module = drv_module,
};

/* ---- the RM requests ------------------------------------------------------------ */

/* The model's answer as an RM status (its reason printed). */
static uint32_t model_status(cs_fake_rm *f, cs_hw_rc rc, const char *why)
{
	if (rc == CS_HW_OK)
		return NV_OK;
	fprintf(stderr, "fake-rm driver: %s\n", why);
	return strstr(why, "fails as told") ? NV_ERR_NO_MEMORY : refuse(f, NV_ERR_INVALID_ARGUMENT,
									  "%s", why);
}

/* Decode a class's parameters into the model's form; a status when they are
 * not what a 580.x driver takes. */
static uint32_t decode_alloc(cs_fake_rm *f, const nvos21_parameters *p, cs_hw_alloc_args *a)
{
	const void *params = (const void *)(uintptr_t)p->p_alloc_parms;
	uint32_t cls = p->h_class, parent_cls = 0;
	object(f, p->h_object_parent, &parent_cls, NULL, NULL);
	cs_arch arch = gpu_arch(f);
	uint32_t host_class = arch < CS_ARCH_COUNT ? cs_arch_get(arch)->host_class : 0;
#define NEED_SIZE(type)                                                                        \
	do {                                                                                   \
		if (p->params_size != sizeof(type) || !params)                                 \
			return refuse(f, NV_ERR_INVALID_PARAM_STRUCT,                          \
				      "class 0x%04x: %u parameter bytes, a 580.x " #type " has %zu", \
				      cls, p->params_size, sizeof(type));                      \
	} while (0)
	switch (cls) {
	case CS_HW_DEVICE: {
		NEED_SIZE(nv0080_alloc_parameters);
		const nv0080_alloc_parameters *q = params;
		bool attached = false;
		for (int i = 0; i < MAX_FDS; i++)
			attached |= f->fds[i].kind == FD_GPU && f->fds[i].registered;
		if (!attached)
			return refuse(f, NV_ERR_INVALID_STATE, "device before /dev/nvidia%u is open and "
				      "registered", FAKE_MINOR);
		if (q->device_id != 0 || q->h_client_share != f->client ||
		    q->va_mode != NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "device: id %u, client share 0x%x, "
				      "VA mode %u", q->device_id, q->h_client_share, q->va_mode);
		return NV_OK;
	}
	case CS_HW_SUBDEVICE:
		NEED_SIZE(nv2080_alloc_parameters);
		return ((const nv2080_alloc_parameters *)params)->sub_device_id
			       ? refuse(f, NV_ERR_INVALID_ARGUMENT, "subdevice id not 0")
			       : NV_OK;
	case CS_HW_VASPACE: {
		NEED_SIZE(nv_vaspace_allocation_parameters);
		const nv_vaspace_allocation_parameters *q = params;
		if (q->index != 0 || q->flags != 0) /* GPU_NEW, RM-owned: no UVM in this sequence */
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "VA space index %u flags 0x%x",
				      q->index, q->flags);
		return NV_OK;
	}
	case CS_HW_VIRTUAL: {
		NEED_SIZE(nv_memory_virtual_allocation_params);
		const nv_memory_virtual_allocation_params *q = params;
		a->h_vaspace = q->h_vaspace;
		if (!is_class(f, q->h_vaspace, CS_HW_VASPACE) || q->offset || q->limit)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "virtual range over 0x%x (not a VA "
				      "space) or not the whole of it", q->h_vaspace);
		return NV_OK;
	}
	case CS_HW_MEMORY: {
		NEED_SIZE(nv_memory_allocation_params);
		const nv_memory_allocation_params *q = params;
		a->size = q->size;
		if (q->owner != f->client || !q->size || q->size % 4096 || q->limit != q->size - 1 ||
		    q->alignment != 4096 || !(q->flags & NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED) ||
		    (q->attr & (3u << 25)) != NVOS32_ATTR_LOCATION_PCI)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "system memory: owner 0x%x size 0x%llx "
				      "limit 0x%llx flags 0x%x attr 0x%x", q->owner,
				      (unsigned long long)q->size, (unsigned long long)q->limit,
				      q->flags, q->attr);
		return NV_OK;
	}
	case CS_HW_CHANNEL_GROUP: {
		NEED_SIZE(nv_channel_group_allocation_parameters);
		const nv_channel_group_allocation_parameters *q = params;
		a->h_vaspace = q->h_vaspace;
		if (!is_class(f, q->h_vaspace, CS_HW_VASPACE) ||
		    q->engine_type != NV2080_ENGINE_TYPE_GRAPHICS)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "channel group: VA space 0x%x engine %u",
				      q->h_vaspace, q->engine_type);
		return NV_OK;
	}
	case CS_HW_CONTEXT_SHARE: {
		NEED_SIZE(nv_ctxshare_allocation_parameters);
		const nv_ctxshare_allocation_parameters *q = params;
		a->h_vaspace = q->h_vaspace;
		if (parent_cls != CS_HW_CHANNEL_GROUP || !is_class(f, q->h_vaspace, CS_HW_VASPACE) ||
		    q->flags != NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "context share under 0x%x: VA space "
				      "0x%x flags 0x%x", p->h_object_parent, q->h_vaspace, q->flags);
		return NV_OK;
	}
	default:
		break;
	}
	if (cls == CS_HW_USERMODE_TURING || cls == CS_HW_USERMODE_AMPERE ||
	    cls == CS_HW_USERMODE_HOPPER || cls == CS_HW_USERMODE_BLACKWELL) {
		if (p->params_size || params || parent_cls != CS_HW_SUBDEVICE)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "usermode: parameters, or not under "
				      "the subdevice");
		return NV_OK;
	}
	if (host_class && cls == host_class) {
		NEED_SIZE(nv_channel_alloc_params);
		const nv_channel_alloc_params *q = params;
		uint64_t ring_size = 0, ring_va = 0, error_size = 0;
		uint32_t ring_cls = 0, error_cls = 0;
		object(f, q->h_object_buffer, &ring_cls, &ring_size, &ring_va);
		object(f, q->h_object_error, &error_cls, &error_size, NULL);
		bool other_slots = false;
		for (int i = 1; i < NV_MAX_SUBDEVICES; i++)
			other_slots |= q->h_userd_memory[i] || q->userd_offset[i];
		*a = (cs_hw_alloc_args){ .h_ctxshare = q->h_context_share,
					 .h_memory = q->h_userd_memory[0], .h_error = q->h_object_error,
					 .ring_va = q->gp_fifo_offset, .entries = q->gp_fifo_entries,
					 .userd_offset = q->userd_offset[0] };
		if (parent_cls != CS_HW_CHANNEL_GROUP || ring_cls != CS_HW_MEMORY ||
		    error_cls != CS_HW_MEMORY || error_size < CS_HW_NOTIFY_SIZE ||
		    q->h_userd_memory[0] != q->h_object_buffer || !ring_va ||
		    q->gp_fifo_offset != ring_va || !q->gp_fifo_entries ||
		    (q->gp_fifo_entries & (q->gp_fifo_entries - 1)) || q->userd_offset[0] % 512 ||
		    !is_class(f, q->h_context_share, CS_HW_CONTEXT_SHARE) || other_slots)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "GPFIFO channel: ring 0x%x at 0x%llx, "
				      "%u entries, USERD +0x%llx, error notifier 0x%x, context share 0x%x",
				      q->h_object_buffer, (unsigned long long)q->gp_fifo_offset,
				      q->gp_fifo_entries, (unsigned long long)q->userd_offset[0],
				      q->h_object_error, q->h_context_share);
		return NV_OK;
	}
	if (host_class && parent_cls == host_class && cs_class_valid_for(cls, arch)) { /* an engine */
		if (p->params_size || params)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "engine object 0x%04x with parameters",
				      cls);
		return NV_OK;
	}
	return refuse(f, NV_ERR_INVALID_CLASS, "class 0x%04x under 0x%x", cls, p->h_object_parent);
#undef NEED_SIZE
}

static uint32_t do_alloc(cs_fake_rm *f, nvos21_parameters *p)
{
	char why[CS_HW_WHY_MAX];
	cs_hw_alloc_args a = { 0 };
	if (p->h_class == CS_HW_ROOT_CLIENT) {
		if (p->h_root || p->h_object_parent || p->h_object_new || p->params_size || f->client)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "root client: the RM picks its handle");
		cs_hw_rc rc = cs_fake_model_ops.alloc(f->model, 0, FAKE_CLIENT, CS_HW_ROOT_CLIENT, &a, why);
		if (rc == CS_HW_OK) {
			f->client = p->h_object_new = FAKE_CLIENT;
		}
		return model_status(f, rc, why);
	}
	if (!f->client || p->h_root != f->client)
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_ALLOC with client 0x%x", p->h_root);
	uint32_t st = decode_alloc(f, p, &a);
	if (st != NV_OK)
		return st;
	return model_status(f, cs_fake_model_ops.alloc(f->model, p->h_object_parent, p->h_object_new,
						       p->h_class, &a, why), why);
}

static uint32_t do_control(cs_fake_rm *f, nvos54_parameters *p)
{
	void *params = (void *)(uintptr_t)p->params;
	char why[CS_HW_WHY_MAX];
	if (!f->client || p->h_client != f->client || !params)
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "control 0x%x: client 0x%x", p->cmd,
			      p->h_client);
	switch (p->cmd) {
	case NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2: {
		nv0000_gpu_get_id_info_v2 *q = params;
		if (p->params_size != sizeof(*q) || p->h_object != f->client || q->gpu_id != FAKE_GPU_ID)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "GET_ID_INFO_V2 of GPU 0x%x",
				      p->params_size == sizeof(*q) ? q->gpu_id : 0);
		q->device_instance = 0;
		return NV_OK;
	}
	case NV0080_CTRL_CMD_GPU_GET_CLASSLIST_V2: {
		nv0080_gpu_get_classlist_v2 *q = params;
		if (p->params_size != sizeof(*q) || !is_class(f, p->h_object, CS_HW_DEVICE))
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "GET_CLASSLIST_V2 on 0x%x", p->h_object);
		q->num_classes = (uint32_t)cs_fake_model_class_list(f->model, q->class_list,
								    NV0080_CTRL_GPU_CLASSLIST_MAX_SIZE);
		return NV_OK;
	}
	case NVC36F_CTRL_CMD_GPFIFO_GET_WORK_SUBMIT_TOKEN: {
		if (p->params_size != sizeof(nvc36f_work_submit_token))
			return refuse(f, NV_ERR_INVALID_PARAM_STRUCT, "work-submit token size");
		uint32_t token;
		cs_hw_rc rc = cs_fake_model_ops.control(f->model, p->h_object, CS_HW_CTRL_WORK_SUBMIT_TOKEN,
						       &token, sizeof(token), why);
		if (rc == CS_HW_OK)
			((nvc36f_work_submit_token *)params)->work_submit_token = token;
		return model_status(f, rc, why);
	}
	case NVA06C_CTRL_CMD_GPFIFO_SCHEDULE: {
		const nva06c_gpfifo_schedule *q = params;
		if (p->params_size != sizeof(*q) || q->enable != 1 || q->skip_submit || q->skip_enable)
			return refuse(f, NV_ERR_INVALID_PARAM_STRUCT, "GPFIFO_SCHEDULE: %u bytes",
				      p->params_size);
		uint32_t enable = 1;
		return model_status(f, cs_fake_model_ops.control(f->model, p->h_object,
								 CS_HW_CTRL_GPFIFO_SCHEDULE, &enable,
								 sizeof(enable), why),
				    why);
	}
	default:
		return refuse(f, NV_ERR_INVALID_COMMAND, "control 0x%08x", p->cmd);
	}
}

static uint32_t do_free(cs_fake_rm *f, nvos00_parameters *p)
{
	char why[CS_HW_WHY_MAX];
	if (!f->client || p->h_root != f->client)
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_FREE with client 0x%x", p->h_root);
	for (size_t i = 0; i < f->ncpu; i++)
		if ((f->cpu[i].rm_live || f->cpu[i].cpu_live) && f->cpu[i].handle == p->h_object_old)
			return refuse(f, NV_ERR_INVALID_STATE, "RM_FREE of 0x%x while mapped for the CPU",
				      p->h_object_old);
	for (size_t i = 0; i < f->ndma; i++)
		if (f->dma[i].handle == p->h_object_old || f->dma[i].virtual == p->h_object_old)
			return refuse(f, NV_ERR_INVALID_STATE, "RM_FREE of 0x%x while mapped for the GPU",
				      p->h_object_old);
	if (p->h_object_old == f->client) {
		if (p->h_object_parent != f->client)
			return refuse(f, NV_ERR_INVALID_ARGUMENT, "freeing the client: parent 0x%x",
				      p->h_object_parent);
		cs_hw_rc rc = cs_fake_model_ops.free(f->model, 0, f->client, why);
		if (rc == CS_HW_OK)
			f->client = 0;
		return model_status(f, rc, why);
	}
	return model_status(f, cs_fake_model_ops.free(f->model, p->h_object_parent, p->h_object_old,
						      why), why);
}

static uint32_t do_map(cs_fake_rm *f, nvos33_with_fd *p)
{
	nvos33_parameters *q = &p->params;
	fake_fd *d = fd_of(f, p->fd);
	uint32_t cls = 0;
	uint64_t size = 0;
	if (q->h_client != f->client || !is_class(f, q->h_device, CS_HW_DEVICE) ||
	    !object(f, q->h_memory, &cls, &size, NULL))
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_MAP_MEMORY of 0x%x on device 0x%x",
			      q->h_memory, q->h_device);
	bool regs = cls != CS_HW_MEMORY;
	if (regs)
		size = CS_HW_USERMODE_SIZE;
	if (!d || d->bound || (regs && (d->kind != FD_GPU || !d->registered)) ||
	    (!regs && d->kind != FD_CTL))
		return refuse(f, NV_ERR_INVALID_ARGUMENT, "RM_MAP_MEMORY of 0x%x: fd %d is no fresh %s",
			      q->h_memory, p->fd, regs ? "registered /dev/nvidiaN" : "/dev/nvidiactl");
	if (q->offset || !q->length || q->length > size || (regs && q->flags != NVOS33_FLAGS_ACCESS_WRITE_ONLY))
		return refuse(f, NV_ERR_INVALID_ARGUMENT, "RM_MAP_MEMORY of 0x%x: offset 0x%llx length "
			      "0x%llx flags 0x%x", q->h_memory, (unsigned long long)q->offset,
			      (unsigned long long)q->length, q->flags);
	if (f->ncpu == MAX_MAPS)
		return refuse(f, NV_ERR_NO_MEMORY, "more than %d CPU mappings", MAX_MAPS);
	q->p_linear_address = FAKE_LINEAR_BASE + (uint64_t)f->ncpu * 0x10000;
	f->cpu[f->ncpu++] = (cpu_map){ .handle = q->h_memory, .linear = q->p_linear_address,
				       .len = q->length, .rm_live = true };
	d->bound = q->h_memory;
	d->bound_len = q->length;
	return NV_OK;
}

static uint32_t do_unmap(cs_fake_rm *f, nvos34_parameters *p)
{
	if (p->h_client != f->client || !is_class(f, p->h_device, CS_HW_DEVICE))
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_UNMAP_MEMORY on device 0x%x",
			      p->h_device);
	for (size_t i = 0; i < f->ncpu; i++) {
		cpu_map *m = &f->cpu[i];
		if (m->rm_live && m->handle == p->h_memory && m->linear == p->p_linear_address) {
			if (m->cpu_live)
				return refuse(f, NV_ERR_INVALID_STATE, "RM_UNMAP_MEMORY of 0x%x before its "
					      "munmap", p->h_memory);
			m->rm_live = false;
			return NV_OK;
		}
	}
	return refuse(f, NV_ERR_INVALID_ARGUMENT, "RM_UNMAP_MEMORY of 0x%x at 0x%llx: no such mapping",
		      p->h_memory, (unsigned long long)p->p_linear_address);
}

static uint32_t do_map_dma(cs_fake_rm *f, nvos46_parameters *p)
{
	uint32_t cls = 0;
	uint64_t size = 0;
	if (p->h_client != f->client || !is_class(f, p->h_device, CS_HW_DEVICE) ||
	    !is_class(f, p->h_dma, CS_HW_VIRTUAL) || !object(f, p->h_memory, &cls, &size, NULL) ||
	    cls != CS_HW_MEMORY)
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_MAP_MEMORY_DMA of 0x%x into 0x%x",
			      p->h_memory, p->h_dma);
	if (p->offset || p->length != size || !(p->flags & NVOS46_FLAGS_DMA_OFFSET_FIXED_TRUE) ||
	    !p->dma_offset || p->dma_offset % 4096)
		return refuse(f, NV_ERR_INVALID_ARGUMENT, "RM_MAP_MEMORY_DMA of 0x%x: offset 0x%llx length "
			      "0x%llx flags 0x%x at 0x%llx", p->h_memory, (unsigned long long)p->offset,
			      (unsigned long long)p->length, p->flags,
			      (unsigned long long)p->dma_offset);
	for (size_t i = 0; i < f->ndma; i++)
		if (p->dma_offset < f->dma[i].va + f->dma[i].len && f->dma[i].va < p->dma_offset + size)
			return refuse(f, NV_ERR_INVALID_OFFSET, "RM_MAP_MEMORY_DMA at 0x%llx overlaps 0x%x",
				      (unsigned long long)p->dma_offset, f->dma[i].handle);
	if (f->ndma == MAX_MAPS || !cs_fake_model_set_va(f->model, p->h_memory, p->dma_offset))
		return refuse(f, NV_ERR_INVALID_STATE, "RM_MAP_MEMORY_DMA of 0x%x", p->h_memory);
	f->dma[f->ndma++] = (dma_map){ .handle = p->h_memory, .virtual = p->h_dma,
				       .va = p->dma_offset, .len = size };
	return NV_OK;
}

static uint32_t do_unmap_dma(cs_fake_rm *f, nvos47_parameters *p)
{
	if (p->h_client != f->client || !is_class(f, p->h_device, CS_HW_DEVICE))
		return refuse(f, NV_ERR_INVALID_OBJECT_HANDLE, "RM_UNMAP_MEMORY_DMA on device 0x%x",
			      p->h_device);
	for (size_t i = 0; i < f->ndma; i++)
		if (f->dma[i].handle == p->h_memory && f->dma[i].virtual == p->h_dma &&
		    f->dma[i].va == p->dma_offset) {
			f->dma[i] = f->dma[--f->ndma];
			return NV_OK;
		}
	return refuse(f, NV_ERR_INVALID_ARGUMENT, "RM_UNMAP_MEMORY_DMA of 0x%x at 0x%llx: not mapped",
		      p->h_memory, (unsigned long long)p->dma_offset);
}

/* ---- the public face: the real layer over this driver ---------------------------- */

static size_t open_fds(const cs_fake_rm *f)
{
	size_t n = 0;
	for (int i = 0; i < MAX_FDS; i++)
		n += f->fds[i].kind != FD_FREE;
	return n;
}

static size_t live_maps(const cs_fake_rm *f)
{
	size_t n = f->ndma;
	for (size_t i = 0; i < f->ncpu; i++)
		n += f->cpu[i].rm_live || f->cpu[i].cpu_live;
	return n;
}

static cs_hw_rc ops_open(void *ctx, unsigned arch_code, char *version, size_t vlen, char *why)
{
	cs_fake_rm *f = ctx;
	f->arch_code = arch_code;
	return cs_hw_rm_nv_ops.open(&f->nv, arch_code, version, vlen, why);
}

static cs_hw_rc ops_classes(void *ctx, uint32_t device, const uint32_t *need, size_t nneed,
			    uint32_t *usermode, char *why)
{
	return cs_hw_rm_nv_ops.classes(&((cs_fake_rm *)ctx)->nv, device, need, nneed, usermode, why);
}

static cs_hw_rc ops_alloc(void *ctx, uint32_t parent, uint32_t handle, uint32_t cls,
			  const cs_hw_alloc_args *a, char *why)
{
	return cs_hw_rm_nv_ops.alloc(&((cs_fake_rm *)ctx)->nv, parent, handle, cls, a, why);
}

static cs_hw_rc ops_control(void *ctx, uint32_t object, uint32_t cmd, void *params, uint32_t size,
			    char *why)
{
	return cs_hw_rm_nv_ops.control(&((cs_fake_rm *)ctx)->nv, object, cmd, params, size, why);
}

static cs_hw_rc ops_free(void *ctx, uint32_t parent, uint32_t handle, char *why)
{
	return cs_hw_rm_nv_ops.free(&((cs_fake_rm *)ctx)->nv, parent, handle, why);
}

static cs_hw_rc ops_map(void *ctx, uint32_t handle, uint64_t size, void **cpu, char *why)
{
	return cs_hw_rm_nv_ops.map(&((cs_fake_rm *)ctx)->nv, handle, size, cpu, why);
}

static void ops_unmap(void *ctx, uint32_t handle, void *cpu, uint64_t size)
{
	cs_hw_rm_nv_ops.unmap(&((cs_fake_rm *)ctx)->nv, handle, cpu, size);
}

static void ops_doorbell(void *ctx, volatile uint8_t *usermode, uint32_t token)
{
	cs_hw_rm_nv_ops.doorbell(&((cs_fake_rm *)ctx)->nv, usermode, token);
}

static bool ops_pause(void *ctx)
{
	return cs_hw_rm_nv_ops.pause(&((cs_fake_rm *)ctx)->nv);
}

static void ops_close(void *ctx)
{
	cs_fake_rm *f = ctx;
	cs_hw_rm_nv_ops.close(&f->nv);
	/* the replay released what it holds before closing: say what is left */
	fprintf(stderr, "fake-rm driver: %zu requests refused, %zu mappings and %zu files still "
		"open\n", f->refusals, live_maps(f), open_fds(f));
	if (f->model_open)
		cs_fake_model_ops.close(f->model);
	f->model_open = false;
}

static cs_hw_rc ops_module(void *ctx, const char *name, const uint8_t *file, uint64_t len,
			   const uint8_t *ptx, uint64_t nptx, char *why)
{
	return cs_hw_rm_nv_ops.module(&((cs_fake_rm *)ctx)->nv, name, file, len, ptx, nptx, why);
}

const cs_hw_rm_ops cs_fake_rm_ops = {
	.name = "fake-rm",
	.open = ops_open,
	.classes = ops_classes,
	.alloc = ops_alloc,
	.control = ops_control,
	.free = ops_free,
	.map = ops_map,
	.unmap = ops_unmap,
	.doorbell = ops_doorbell,
	.pause = ops_pause,
	.close = ops_close,
	.module = ops_module,
};

cs_fake_rm *cs_fake_rm_new(const cs_fake_rm_config *cfg)
{
	cs_fake_rm *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->cfg = *cfg;
	if (!(f->model = cs_fake_model_new(cfg))) {
		free(f);
		return NULL;
	}
	cs_hw_rm_nv_init(&f->nv, &fake_sys, f);
	f->nv.ctl_path = "/dev/nvidiactl";
	return f;
}

size_t cs_fake_rm_live(const cs_fake_rm *f)
{
	return cs_fake_model_live(f->model) + live_maps(f) + open_fds(f);
}

size_t cs_fake_rm_allocs(const cs_fake_rm *f)
{
	return cs_fake_model_allocs(f->model);
}

const cs_hw_nv_sys *cs_fake_rm_sys(cs_fake_rm *f, void **ctx)
{
	*ctx = f;
	return &fake_sys;
}

size_t cs_fake_rm_refusals(const cs_fake_rm *f)
{
	return f->refusals;
}

const char *cs_fake_rm_log(const cs_fake_rm *f)
{
	return f->log ? f->log : "";
}

void cs_fake_rm_free(cs_fake_rm *f)
{
	if (!f)
		return;
	cs_fake_model_free(f->model);
	free(f->nv.objs);
	free(f->log);
	free(f);
}
