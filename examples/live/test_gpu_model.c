/* SPDX-License-Identifier: MIT */
/* The device model's tests, built against the installed libchainsim
 * (examples/live/check.sh): a guest driver in the same process writes its
 * ring, pushbuffers and GP_PUT into guest RAM and rings the doorbell register. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_model.h"

#define RAM_BASE 0x80000000ull
#define RAM_BYTES (1u << 20)
#define RING (RAM_BASE + 0x1000)
#define USERD (RAM_BASE + 0x2000)
#define PB (RAM_BASE + 0x3000)
#define SEM (RAM_BASE + 0x8000)
#define ENTRIES 32u

static int failures;

#define CHECK(cond, ...)                                                \
	do {                                                            \
		if (!(cond)) {                                          \
			printf("  FAILED %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                            \
			printf("\n");                                   \
			failures++;                                     \
		}                                                       \
	} while (0)

static uint8_t *ram;
static uint32_t put;

static void *guest(uint64_t pa)
{
	return ram + (pa - RAM_BASE);
}

/* The guest driver: a host semaphore release of value, one GPFIFO entry. */
static void guest_release(gpu_model *g, uint64_t pb, uint64_t sem, uint32_t value)
{
	uint32_t w[6] = { (1u << 29) | (5u << 16) | (0x5c >> 2), (uint32_t)sem,
			  (uint32_t)(sem >> 32), value, 0, 1u | (1u << 20) };
	memcpy(guest(pb), w, sizeof(w));
	uint64_t entry = (pb & 0xfffffffffcull) | (6ull << 42);
	memcpy(guest(RING + 8u * put), &entry, 8);
	put = (put + 1) % ENTRIES;
	memcpy((uint8_t *)guest(USERD) + 0x8c, &put, 4);
	gpu_model_mmio_write(g, GPU_REG_DOORBELL, 3);
}

int main(void)
{
	ram = aligned_alloc(4096, RAM_BYTES);
	memset(ram, 0, RAM_BYTES);
	gpu_model g;
	if (!gpu_model_init(&g, ram, RAM_BYTES, RAM_BASE) ||
	    !gpu_model_channel(&g, RING, ENTRIES, USERD, 3))
		return 1;

	printf("a release lands in guest RAM\n");
	guest_release(&g, PB, SEM, 42);
	uint32_t v;
	memcpy(&v, guest(SEM), 4);
	CHECK(v == 42, "semaphore is %u", v);
	CHECK(gpu_model_mmio_read(&g, GPU_REG_STATUS) == GPU_STATUS_OK, "status %u: %s",
	      gpu_model_mmio_read(&g, GPU_REG_STATUS), g.why);

	printf("a release to an address outside guest RAM stops the channel, with the verdict\n");
	guest_release(&g, PB + 0x100, RAM_BASE + RAM_BYTES + 0x1000, 7);
	CHECK(gpu_model_mmio_read(&g, GPU_REG_STATUS) == GPU_STATUS_STOPPED, "status %u",
	      gpu_model_mmio_read(&g, GPU_REG_STATUS));
	CHECK(strstr(g.why, "[release-fault]") || strstr(g.why, "(fe-exec)"), "%s", g.why);
	printf("  %s\n", g.why);

	gpu_model_fini(&g);
	free(ram);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
