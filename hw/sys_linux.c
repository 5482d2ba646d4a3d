/* SPDX-License-Identifier: MIT */
/* chainsim-hw's system calls on a GPU machine: plain libc (hw/rm_nv.h). */
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rm_nv.h"

static int sys_open(void *ctx, const char *path)
{
	(void)ctx;
	return open(path, O_RDWR | O_CLOEXEC);
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	(void)ctx;
	return ioctl(fd, request, arg);
}

static void *sys_mmap(void *ctx, int fd, uint64_t len)
{
	(void)ctx;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void sys_munmap(void *ctx, void *addr, uint64_t len)
{
	(void)ctx;
	munmap(addr, len);
}

static void sys_store32(void *ctx, volatile uint32_t *reg, uint32_t value)
{
	(void)ctx;
	*reg = value;
}

static bool sys_pause(void *ctx)
{
	(void)ctx;
	struct timespec ts = { 0, 50000 };
	nanosleep(&ts, NULL);
	return false; /* hardware never says it is done: a poll ends at its deadline */
}

const cs_hw_nv_sys cs_hw_nv_sys_linux = {
	.open = sys_open,
	.close = sys_close,
	.ioctl = sys_ioctl,
	.mmap = sys_mmap,
	.munmap = sys_munmap,
	.store32 = sys_store32,
	.pause = sys_pause,
};
