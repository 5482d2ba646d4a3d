/* The real RM layer: ioctls on /dev/nvidiactl (docs/capture.md "RM facts";
 * layouts written from NVIDIA/open-gpu-kernel-modules
 * 580.126.09: kernel-open/common/inc/nv-ioctl.h, nv-ioctl-numbers.h,
 * src/common/sdk/nvidia/inc/nvos.h, class/cl0080.h, cl2080.h). libc only.
 *
 * Written so far: the driver version check, the escapes RM_ALLOC (NVOS21),
 * RM_CONTROL (NVOS54) and RM_FREE (NVOS00) with the root client, device,
 * subdevice and usermode objects, and the class list (ctrl0080gpu.h).
 * Not yet: mapping (RM_MAP_MEMORY and mmap on the device's fd), memory at a
 * fixed VA (UVM external ranges), the VA space, channel group, context share
 * and GPFIFO channel layouts of 580.x, and the controls. Where the replay
 * reaches them this layer answers CS_HW_UNAVAILABLE naming the piece, so
 * chainsim-hw exits 3 having released what it allocated, never 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rm_nv.h"

#define NV_IOCTL_MAGIC 'F'
#define NV_IOCTL_BASE 200
#define NV_ESC_CHECK_VERSION_STR (NV_IOCTL_BASE + 10)
#define NV_ESC_RM_FREE 0x29
#define NV_ESC_RM_CONTROL 0x2A
#define NV_ESC_RM_ALLOC 0x2B

typedef struct nv_api_version {
	uint32_t cmd;   /* '2': query */
	uint32_t reply;
	char version[64];
} nv_api_version;

typedef struct nv_os00 { /* RM_FREE */
	uint32_t h_root, h_parent, h_object, status;
} nv_os00;

typedef struct nv_os21 { /* RM_ALLOC */
	uint32_t h_root, h_parent, h_new, cls;
	uint64_t params; /* pointer */
	uint32_t params_size, status;
} nv_os21;

typedef struct nv_os54 { /* RM_CONTROL */
	uint32_t h_client, h_object, cmd, flags;
	uint64_t params;
	uint32_t params_size, status;
} nv_os54;

typedef struct nv0080_classlist { /* NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS */
	uint32_t count, pad;
	uint64_t list; /* pointer to count u32s; 0 asks for the count */
} nv0080_classlist;
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST 0x800201u

typedef struct nv0080_alloc {
	uint32_t device_id, h_client_share, h_target_client, h_target_device, flags, pad0;
	uint64_t va_space_size, va_start_internal, va_limit_internal;
	uint32_t va_mode, pad1;
} nv0080_alloc;

_Static_assert(sizeof(nv_api_version) == 72, "nv_ioctl_rm_api_version_t");
_Static_assert(sizeof(nv_os00) == 16, "NVOS00_PARAMETERS");
_Static_assert(sizeof(nv_os21) == 32, "NVOS21_PARAMETERS");
_Static_assert(sizeof(nv_os54) == 32, "NVOS54_PARAMETERS");
_Static_assert(sizeof(nv0080_alloc) == 56, "NV0080_ALLOC_PARAMETERS");
_Static_assert(sizeof(nv0080_classlist) == 16, "NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS");

#define NV_IOWR(nr, type) _IOWR(NV_IOCTL_MAGIC, (nr), type)

/* The driver versions whose layouts this file follows. */
static bool known_version(const char *v)
{
	return !strncmp(v, "580.", 4);
}

/* The replay names the client by its own handle; the RM picked another. */
static uint32_t handle_of(const cs_hw_rm_nv *nv, uint32_t h)
{
	return h == nv->client_alias ? nv->client : h;
}

static cs_hw_rc missing(char *why, const char *fmt, const char *what)
{
	snprintf(why, CS_HW_WHY_MAX, fmt, what);
	return CS_HW_UNAVAILABLE;
}

static cs_hw_rc nv_open(void *ctx, unsigned arch_code, char *version, size_t vlen, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	(void)arch_code;
	nv->fd_ctl = open(nv->ctl_path, O_RDWR | O_CLOEXEC);
	if (nv->fd_ctl < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: %s (the NVIDIA kernel driver is not loaded, or this "
			 "is not a GPU machine)", nv->ctl_path, strerror(errno));
		return CS_HW_UNAVAILABLE;
	}
	nv_api_version q = { .cmd = '2' };
	if (ioctl(nv->fd_ctl, NV_IOWR(NV_ESC_CHECK_VERSION_STR, nv_api_version), &q) < 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: the driver version query failed: %s", nv->ctl_path,
			 strerror(errno));
		close(nv->fd_ctl);
		nv->fd_ctl = -1;
		return CS_HW_UNAVAILABLE;
	}
	q.version[sizeof(q.version) - 1] = 0;
	snprintf(version, vlen, "%s", q.version);
	if (!known_version(q.version)) {
		snprintf(why, CS_HW_WHY_MAX, "driver %s: chainsim-hw knows the RM layouts of 580.x "
			 "only (they change between versions)", q.version);
		close(nv->fd_ctl);
		nv->fd_ctl = -1;
		return CS_HW_UNAVAILABLE;
	}
	if (access(nv->uvm_path, R_OK | W_OK) != 0) {
		snprintf(why, CS_HW_WHY_MAX, "%s: %s (nvidia-uvm is not loaded)", nv->uvm_path,
			 strerror(errno));
		close(nv->fd_ctl);
		nv->fd_ctl = -1;
		return CS_HW_UNAVAILABLE;
	}
	return CS_HW_OK;
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

static cs_hw_rc nv_alloc(void *ctx, uint32_t parent, uint32_t handle, uint32_t cls,
			 const cs_hw_alloc_args *a, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	(void)a;
	nv_os21 p = { .h_root = nv->client, .h_parent = parent, .h_new = handle, .cls = cls };
	nv0080_alloc dev = { 0 };
	uint32_t sub = 0;
	char what[64];
	snprintf(what, sizeof(what), "RM_ALLOC class 0x%04x", cls);
	switch (cls) {
	case CS_HW_ROOT_CLIENT:
		p.h_root = p.h_parent = 0;
		p.h_new = 0; /* the RM picks the client's handle */
		break;
	case CS_HW_DEVICE:
		dev.h_client_share = nv->client;
		p.params = (uint64_t)(uintptr_t)&dev;
		p.params_size = sizeof(dev);
		break;
	case CS_HW_SUBDEVICE:
		p.params = (uint64_t)(uintptr_t)&sub;
		p.params_size = sizeof(sub);
		break;
	case CS_HW_USERMODE_TURING:
	case CS_HW_USERMODE_HOPPER:
		break; /* no parameters (tinygrad allocates it so) */
	default:
		snprintf(what, sizeof(what), "class 0x%04x", cls);
		return missing(why, "driver 580.x: the RM_ALLOC layout for %s is not written yet "
			       "(hw/rm_nv.c); the replay above it runs in CI on the fake RM", what);
	}
	if (cls != CS_HW_ROOT_CLIENT)
		p.h_parent = handle_of(nv, parent);
	int r = ioctl(nv->fd_ctl, NV_IOWR(NV_ESC_RM_ALLOC, nv_os21), &p);
	cs_hw_rc rc = status_of(what, r, p.status, why);
	if (rc == CS_HW_OK && cls == CS_HW_ROOT_CLIENT) {
		nv->client = p.h_new;
		nv->client_alias = handle;
	}
	return rc;
}

static cs_hw_rc nv_control(void *ctx, uint32_t object, uint32_t cmd, void *params, uint32_t size,
			   char *why)
{
	cs_hw_rm_nv *nv = ctx;
	(void)object;
	(void)params;
	(void)size;
	(void)nv;
	char what[64];
	snprintf(what, sizeof(what), "control 0x%08x", cmd);
	return missing(why, "driver 580.x: the RM_CONTROL layout for %s is not written yet "
		       "(hw/rm_nv.c)", what);
}

static cs_hw_rc nv_free(void *ctx, uint32_t parent, uint32_t handle, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	nv_os00 p = { .h_root = nv->client, .h_parent = handle_of(nv, parent),
		      .h_object = handle_of(nv, handle) };
	if (handle == nv->client_alias)
		p.h_root = p.h_parent = p.h_object = nv->client;
	int r = ioctl(nv->fd_ctl, NV_IOWR(NV_ESC_RM_FREE, nv_os00), &p);
	return status_of("RM_FREE", r, p.status, why);
}

static cs_hw_rc control(cs_hw_rm_nv *nv, uint32_t object, uint32_t cmd, void *params,
			uint32_t size, char *why)
{
	nv_os54 p = { .h_client = nv->client, .h_object = handle_of(nv, object), .cmd = cmd,
		      .params = (uint64_t)(uintptr_t)params, .params_size = size };
	char what[64];
	snprintf(what, sizeof(what), "RM_CONTROL 0x%08x", cmd);
	int r = ioctl(nv->fd_ctl, NV_IOWR(NV_ESC_RM_CONTROL, nv_os54), &p);
	return status_of(what, r, p.status, why);
}

static cs_hw_rc nv_classes(void *ctx, uint32_t device, const uint32_t *need, size_t nneed,
			   uint32_t *usermode, char *why)
{
	cs_hw_rm_nv *nv = ctx;
	nv0080_classlist q = { 0 };
	cs_hw_rc rc = control(nv, device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &q, sizeof(q), why);
	if (rc != CS_HW_OK)
		return rc;
	if (q.count == 0 || q.count > 4096) {
		snprintf(why, CS_HW_WHY_MAX, "the class list counts %u classes", q.count);
		return CS_HW_FAILED;
	}
	uint32_t *list = calloc(q.count, sizeof(*list));
	if (!list) {
		snprintf(why, CS_HW_WHY_MAX, "out of memory");
		return CS_HW_FAILED;
	}
	q.list = (uint64_t)(uintptr_t)list;
	rc = control(nv, device, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, &q, sizeof(q), why);
	bool hopper = false, turing = false;
	for (uint32_t i = 0; rc == CS_HW_OK && i < q.count; i++) {
		hopper |= list[i] == CS_HW_USERMODE_HOPPER;
		turing |= list[i] == CS_HW_USERMODE_TURING;
	}
	for (size_t n = 0; rc == CS_HW_OK && n < nneed; n++) {
		bool found = false;
		for (uint32_t i = 0; i < q.count && !found; i++)
			found = list[i] == need[n];
		if (!found) {
			snprintf(why, CS_HW_WHY_MAX, "the GPU offers no class 0x%04x, which the capture "
				 "uses", need[n]);
			rc = CS_HW_UNAVAILABLE;
		}
	}
	free(list);
	if (rc == CS_HW_OK && !hopper && !turing) {
		snprintf(why, CS_HW_WHY_MAX, "the GPU offers no usermode class (C661, C461)");
		rc = CS_HW_UNAVAILABLE;
	}
	*usermode = hopper ? CS_HW_USERMODE_HOPPER : CS_HW_USERMODE_TURING;
	return rc;
}

static cs_hw_rc nv_map(void *ctx, uint32_t handle, uint64_t size, void **cpu, char *why)
{
	(void)ctx;
	(void)handle;
	(void)size;
	*cpu = NULL;
	return missing(why, "driver 580.x: %s is not written yet (hw/rm_nv.c); the replay above "
		       "it runs in CI on the fake RM", "mapping an object for the CPU (RM_MAP_MEMORY "
		       "and mmap on the device's fd)");
}

static void nv_unmap(void *ctx, uint32_t handle, void *cpu, uint64_t size)
{
	(void)ctx;
	(void)handle;
	munmap(cpu, size);
}

static void nv_doorbell(void *ctx, volatile uint8_t *usermode, uint32_t token)
{
	(void)ctx;
	*(volatile uint32_t *)(usermode + CS_HW_USERMODE_DOORBELL) = token;
}

static bool nv_pause(void *ctx)
{
	(void)ctx;
	struct timespec ts = { 0, 50000 };
	nanosleep(&ts, NULL);
	return false; /* hardware never says it is done: a poll ends at its deadline */
}

static void nv_close(void *ctx)
{
	cs_hw_rm_nv *nv = ctx;
	if (nv->fd_ctl >= 0)
		close(nv->fd_ctl); /* the RM also frees a client whose fd closes */
	nv->fd_ctl = -1;
}

void cs_hw_rm_nv_init(cs_hw_rm_nv *nv)
{
	memset(nv, 0, sizeof(*nv));
	nv->fd_ctl = -1;
	nv->ctl_path = getenv("CHAINSIM_HW_NVIDIACTL");
	if (!nv->ctl_path)
		nv->ctl_path = "/dev/nvidiactl";
	nv->uvm_path = "/dev/nvidia-uvm";
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
};
