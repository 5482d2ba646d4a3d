/* SPDX-License-Identifier: MIT */
/* --boot ga10x: the machine as NVIDIA's driver and Booter leave it for
 * GSP-RM 535 on Ampere GA10x, built from the open kernel modules' 535
 * structures (as nouveau's r535 code fills them): the FB layout and
 * GspFwWprMeta, the LibOS memory-region arguments, GSP_ARGUMENTS_CACHED and
 * the message-queue shared memory, the SET_SYSTEM_INFO and SET_REGISTRY
 * RPCs queued before boot, the registers the image reads, and the hart as
 * the image starts. docs/gsp.md ("--boot ga10x") gives each value its source
 * or says it is a model choice. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_internal.h"

/* The apertures, as the image itself names them (its window calls and the
 * constants it keeps): FB, sysmem, the GPU's register space (BAR0). */
#define FB_APERTURE 0x6060000000000000ull
#define SYSMEM_APERTURE 0x8060000000000000ull
#define BAR0_APERTURE 0x2000000000000000ull
#define BAR0_SIZE 0x4000000ull
/* The GSP falcon's own registers, where the image reads its mailbox. */
#define FALCON_LOCAL 0x1280000ull
/* 64 MiB: the LibOS kernel maps that much of it (an MPU entry) */
#define FALCON_LOCAL_SIZE 0x4000000ull
#define FALCON_MAILBOX0 0x40
#define FALCON_MAILBOX1 0x44
/* NV_PFALCON_FALCON_DMATRFCMD (dev_falcon_v4.h): IDLE is bit 1; the model
 * has no falcon DMA engine, so it is idle */
#define FALCON_DMATRFCMD 0x118
#define FALCON_DMATRFCMD_IDLE 0x2u

/* Model choices: the FB size, and where the driver's DMA buffers are. */
#define FB_SIZE 0x20000000ull /* 512 MiB */
#define SYSMEM_DMA_BASE 0x10000000ull

/* BAR0 registers (open-gpu-kernel-modules dev_boot.h, dev_fb.h) */
#define NV_PMC_BOOT_42 0xa00
#define NV_PFB_PRI_MMU_WPR2_ADDR_LO 0x1fa824
#define NV_PFB_PRI_MMU_WPR2_ADDR_HI 0x1fa828
/* chip id GA102 (0x172) in 29:20, revision A1 (a model choice) in 19:12 */
#define GA102_BOOT_42 0x172A1000u

#define MIB (1ull << 20)
#define ALIGN_DOWN(x, a) ((x) & ~((uint64_t)(a) - 1))
#define ALIGN_UP(x, a) ALIGN_DOWN((x) + (a) - 1, a)

/* sysmem: the driver's buffers, each at a model-chosen DMA address */
enum {
	LIBOS_ARGS_OFF = 0x0,     /* 4 KiB: LibosMemoryRegionInitArgument[4] */
	LOGINIT_OFF = 0x10000,    /* 64 KiB each */
	LOGINTR_OFF = 0x20000,
	LOGRM_OFF = 0x30000,
	RMARGS_OFF = 0x40000,     /* 4 KiB: GSP_ARGUMENTS_CACHED */
	SYSMEM_BUFFERS_SIZE = 0x50000,
	SHARED_OFF = 0x50000,     /* the message queues (msgq.c's layout) */
	LOG_SIZE = 0x10000,
};

/* GspFwWprMeta (gsp_fw_wpr_meta.h), 256 bytes */
enum {
	META_MAGIC = 0, META_REVISION = 8, META_GSP_FW_RSVD_START = 88, META_NON_WPR_HEAP_OFFSET = 96,
	META_NON_WPR_HEAP_SIZE = 104, META_GSP_FW_WPR_START = 112, META_GSP_FW_HEAP_OFFSET = 120,
	META_GSP_FW_HEAP_SIZE = 128, META_GSP_FW_OFFSET = 136, META_BOOT_BIN_OFFSET = 144, META_FRTS_OFFSET = 152,
	META_FRTS_SIZE = 160, META_GSP_FW_WPR_END = 168, META_FB_SIZE = 176, META_VGA_WORKSPACE_OFFSET = 184,
	META_VGA_WORKSPACE_SIZE = 192, META_VERIFIED = 248, META_SIZE = 256,
};
#define GSP_FW_WPR_META_MAGIC 0xdc3aae21371a60b3ull
#define GSP_FW_WPR_META_REVISION 1
#define GSP_FW_WPR_META_VERIFIED 0xa0a0a0a0a0a0a0a0ull

/* GspSystemInfo (gsp_static_config.h, 535.113.01), 664 bytes */
enum {
	SYSINFO_GPU_PHYS_ADDR = 0, SYSINFO_GPU_PHYS_FB_ADDR = 8, SYSINFO_GPU_PHYS_INST_ADDR = 16,
	SYSINFO_BDF = 24, SYSINFO_MAX_USER_VA = 56, SYSINFO_PCI_MIRROR_BASE = 64, SYSINFO_PCI_MIRROR_SIZE = 68,
	SYSINFO_SIZE = 664,
};

typedef struct boot_layout {
	uint64_t vga_offset, vga_size, frts_offset, frts_size, boot_offset, elf_offset, elf_size;
	uint64_t heap_offset, heap_size, wpr_start, wpr_end, nonwpr_heap_offset, nonwpr_heap_size;
} boot_layout;

/* The FB layout as nouveau's r535_gsp_oneinit computes it for GA102
 * (ga102.c: an OS carveout of 20 MiB, heap base 8 MiB, minimum 84 MiB;
 * gsp_fw_heap.h: 96 KiB a GiB of FB, 96 MiB for client allocations), with no boot binary (the model has
 * no Booter) and the VGA workspace in the last MiB (a model choice). */
static boot_layout layout_for(uint64_t image_size)
{
	boot_layout l = { 0 };
	l.vga_size = MIB;
	l.vga_offset = FB_SIZE - l.vga_size;
	l.frts_size = MIB;
	l.frts_offset = ALIGN_DOWN(l.vga_offset, 0x20000) - l.frts_size;
	l.boot_offset = ALIGN_DOWN(l.frts_offset, 0x1000);
	l.elf_size = image_size;
	l.elf_offset = ALIGN_DOWN(l.boot_offset - l.elf_size, 0x10000);
	uint64_t fb_gb = (FB_SIZE + (1ull << 30) - 1) >> 30;
	uint64_t heap = 20 * MIB + 8 * MIB + ALIGN_UP((96ull << 10) * fb_gb, MIB) + ALIGN_UP((48ull << 10) * 2048, MIB);
	if (heap < 84 * MIB)
		heap = 84 * MIB;
	l.heap_offset = ALIGN_DOWN(l.elf_offset - heap, MIB);
	l.heap_size = ALIGN_DOWN(l.elf_offset - l.heap_offset, MIB);
	l.wpr_start = ALIGN_DOWN(l.heap_offset - META_SIZE, MIB);
	l.wpr_end = ALIGN_DOWN(l.vga_offset, 0x20000);
	l.nonwpr_heap_size = MIB;
	l.nonwpr_heap_offset = l.wpr_start - l.nonwpr_heap_size;
	return l;
}

static bool known_target(const char *target, cs_diag *d)
{
	if (!strcmp(target, "ga10x"))
		return true;
	cs_diag_set(d, CS_ERR_INPUT, "--boot %s: the boot data is built for ga10x only", target);
	return false;
}

static cs_status add(cs_gsp_map *map, const char *name, uint64_t base, uint64_t size, cs_gsp_kind kind,
		     cs_gsp_model model, cs_diag *d)
{
	cs_gsp_region r = { .base = base, .size = size, .kind = kind, .model = model };
	snprintf(r.name, sizeof(r.name), "%s", name);
	return cs_gsp_map_add(map, &r, d);
}

cs_status cs_gsp_boot_map(const char *target, uint64_t image_size, cs_gsp_map *map, uint64_t *image_base,
			  cs_diag *d)
{
	if (!known_target(target, d))
		return CS_ERR_INPUT;
	boot_layout l = layout_for(image_size);
	if (image_size == 0 || l.elf_size >= l.boot_offset || l.wpr_start < 2 * MIB) {
		cs_diag_set(d, CS_ERR_INPUT, "an image of 0x%" PRIx64 " bytes does not fit the %" PRIu64 " MiB FB of --boot %s",
			    image_size, (uint64_t)(FB_SIZE >> 20), target);
		return CS_ERR_INPUT;
	}
	memset(map, 0, sizeof(*map));
	cs_status s;
	if ((s = add(map, "gsp-falcon", FALCON_LOCAL, FALCON_LOCAL_SIZE, CS_GSP_MMIO, CS_GSP_MODEL_REGFILE, d)) != CS_OK ||
	    (s = add(map, "bar0", BAR0_APERTURE, BAR0_SIZE, CS_GSP_MMIO, CS_GSP_MODEL_REGFILE, d)) != CS_OK ||
	    (s = add(map, "fb", FB_APERTURE, FB_SIZE, CS_GSP_RAM, CS_GSP_MODEL_NONE, d)) != CS_OK ||
	    (s = add(map, "sysmem", SYSMEM_APERTURE + SYSMEM_DMA_BASE, SYSMEM_BUFFERS_SIZE, CS_GSP_RAM,
		     CS_GSP_MODEL_NONE, d)) != CS_OK ||
	    (s = add(map, "msgq", SYSMEM_APERTURE + SYSMEM_DMA_BASE + SHARED_OFF, CS_GSP_MSGQ_SHARED_SIZE,
		     CS_GSP_SHARED, CS_GSP_MODEL_NONE, d)) != CS_OK)
		return s;
	*image_base = FB_APERTURE + l.elf_offset;
	return CS_OK;
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static cs_status write_meta(cs_gsp *m, const boot_layout *l, cs_diag *d)
{
	uint8_t meta[META_SIZE] = { 0 };
	put64(meta, META_MAGIC, GSP_FW_WPR_META_MAGIC);
	put64(meta, META_REVISION, GSP_FW_WPR_META_REVISION);
	put64(meta, META_GSP_FW_RSVD_START, l->nonwpr_heap_offset);
	put64(meta, META_NON_WPR_HEAP_OFFSET, l->nonwpr_heap_offset);
	put64(meta, META_NON_WPR_HEAP_SIZE, l->nonwpr_heap_size);
	put64(meta, META_GSP_FW_WPR_START, l->wpr_start);
	put64(meta, META_GSP_FW_HEAP_OFFSET, l->heap_offset);
	put64(meta, META_GSP_FW_HEAP_SIZE, l->heap_size);
	put64(meta, META_GSP_FW_OFFSET, l->elf_offset);
	put64(meta, META_BOOT_BIN_OFFSET, l->boot_offset);
	put64(meta, META_FRTS_OFFSET, l->frts_offset);
	put64(meta, META_FRTS_SIZE, l->frts_size);
	put64(meta, META_GSP_FW_WPR_END, l->wpr_end);
	put64(meta, META_FB_SIZE, FB_SIZE);
	put64(meta, META_VGA_WORKSPACE_OFFSET, l->vga_offset);
	put64(meta, META_VGA_WORKSPACE_SIZE, l->vga_size);
	/* what Booter writes once it has verified the image */
	put64(meta, META_VERIFIED, GSP_FW_WPR_META_VERIFIED);
	return cs_gsp_mem_write(m, FB_APERTURE + l->wpr_start, meta, sizeof(meta), d);
}

static uint64_t libos_id8(const char *name)
{
	uint64_t id = 0;
	for (size_t i = 0; i < 8 && name[i]; i++)
		id = id << 8 | (uint8_t)name[i];
	return id;
}

/* LibosMemoryRegionInitArgument[4] (libos_init_args.h): id8, pa, size, kind
 * (1 contiguous), loc (1 sysmem); each log buffer holds, after its first
 * 64-bit word (the put pointer), the DMA address of each of its pages. */
static cs_status write_libos_args(cs_gsp *m, cs_diag *d)
{
	static const struct {
		const char *id;
		uint64_t off, size;
		bool log;
	} region[] = {
		{ "LOGINIT", LOGINIT_OFF, LOG_SIZE, true },
		{ "LOGINTR", LOGINTR_OFF, LOG_SIZE, true },
		{ "LOGRM", LOGRM_OFF, LOG_SIZE, true },
		{ "RMARGS", RMARGS_OFF, 0x1000, false },
	};
	uint8_t args[4 * 32] = { 0 };
	for (size_t i = 0; i < 4; i++) {
		uint64_t pa = SYSMEM_DMA_BASE + region[i].off;
		put64(args, i * 32, libos_id8(region[i].id));
		put64(args, i * 32 + 8, pa);
		put64(args, i * 32 + 16, region[i].size);
		args[i * 32 + 24] = 1;
		args[i * 32 + 25] = 1;
		if (!region[i].log)
			continue;
		for (uint64_t page = 0; page < region[i].size / 0x1000; page++) {
			uint64_t page_pa = pa + page * 0x1000;
			cs_status s = cs_gsp_mem_write(m, SYSMEM_APERTURE + pa + 8 + page * 8, &page_pa, 8, d);
			if (s != CS_OK)
				return s;
		}
	}
	return cs_gsp_mem_write(m, SYSMEM_APERTURE + SYSMEM_DMA_BASE + LIBOS_ARGS_OFF, args, sizeof(args), d);
}

/* GSP_ARGUMENTS_CACHED (gsp_init_args.h, 535), 80 bytes: the queues' shared
 * memory; no lockless (ISR) queue pair, as nouveau boots it; a cold boot. */
static cs_status write_rmargs(cs_gsp *m, cs_diag *d)
{
	uint8_t args[80] = { 0 };
	put64(args, 0, SYSMEM_DMA_BASE + SHARED_OFF);
	put32(args, 8, CS_GSP_MSGQ_SHARED_SIZE / 0x1000);
	put64(args, 16, CS_GSP_MSGQ_CMD_OFF);
	put64(args, 24, CS_GSP_MSGQ_STAT_OFF);
	return cs_gsp_mem_write(m, SYSMEM_APERTURE + SYSMEM_DMA_BASE + RMARGS_OFF, args, sizeof(args), d);
}

/* The two RPCs the driver queues before it starts the GSP, with nouveau's
 * values; the PCI addresses are model choices. */
static cs_status queue_rpcs(cs_gsp *m, cs_diag *d)
{
	uint8_t info[SYSINFO_SIZE] = { 0 };
	put64(info, SYSINFO_GPU_PHYS_ADDR, 0xf2000000);      /* BAR0 */
	put64(info, SYSINFO_GPU_PHYS_FB_ADDR, 0xe0000000);   /* BAR1 */
	put64(info, SYSINFO_GPU_PHYS_INST_ADDR, 0xf0000000); /* BAR3 */
	put64(info, SYSINFO_BDF, 0x0100);                    /* bus 1, device 0, function 0 */
	put64(info, SYSINFO_MAX_USER_VA, 0x7ffffffff000);    /* x86-64 TASK_SIZE */
	put32(info, SYSINFO_PCI_MIRROR_BASE, 0x088000);
	put32(info, SYSINFO_PCI_MIRROR_SIZE, 0x001000);
	cs_status s = cs_gsp_rpc_post(m, CS_GSP_RPC_SET_SYSTEM_INFO, info, sizeof(info), NULL, d);
	if (s != CS_OK)
		return s;
	/* PACKED_REGISTRY_TABLE: one entry, type 1 (DWORD), data 0, its name
	 * the empty string after the entry */
	uint8_t reg[8 + 16 + 1] = { 0 };
	put32(reg, 0, 8);
	put32(reg, 4, 1);
	put32(reg, 8, 24);
	reg[12] = 1;
	put32(reg, 16, 0);
	put32(reg, 20, 4);
	return cs_gsp_rpc_post(m, CS_GSP_RPC_SET_REGISTRY, reg, sizeof(reg), NULL, d);
}

static cs_status set_reg32(cs_gsp *m, uint64_t addr, uint32_t v, cs_diag *d)
{
	return cs_gsp_mem_write(m, addr, &v, 4, d);
}

cs_status cs_gsp_boot(cs_gsp *m, const char *target, uint64_t image_size, cs_diag *d)
{
	if (!known_target(target, d))
		return CS_ERR_INPUT;
	boot_layout l = layout_for(image_size);
	uint64_t libos = SYSMEM_DMA_BASE + LIBOS_ARGS_OFF;
	cs_status s;
	if ((s = write_meta(m, &l, d)) != CS_OK || (s = write_libos_args(m, d)) != CS_OK ||
	    (s = write_rmargs(m, d)) != CS_OK)
		return s;
	const cs_gsp_region *shared = cs_gsp_map_find(&m->map, "msgq");
	if (!shared) {
		cs_diag_set(d, CS_ERR_INPUT, "--boot %s: the machine was not made on its map (no region 'msgq')", target);
		return CS_ERR_INPUT;
	}
	if ((s = gsp_msgq_init_dma(m, shared, shared->base - SYSMEM_APERTURE, d)) != CS_OK ||
	    (s = queue_rpcs(m, d)) != CS_OK)
		return s;
	/* the driver writes the LibOS arguments' address to the falcon's mailbox */
	if ((s = set_reg32(m, FALCON_LOCAL + FALCON_MAILBOX0, (uint32_t)libos, d)) != CS_OK ||
	    (s = set_reg32(m, FALCON_LOCAL + FALCON_MAILBOX1, (uint32_t)(libos >> 32), d)) != CS_OK ||
	    (s = set_reg32(m, FALCON_LOCAL + FALCON_DMATRFCMD, FALCON_DMATRFCMD_IDLE, d)) != CS_OK ||
	    (s = set_reg32(m, BAR0_APERTURE + NV_PMC_BOOT_42, GA102_BOOT_42, d)) != CS_OK ||
	    (s = set_reg32(m, BAR0_APERTURE + NV_PFB_PRI_MMU_WPR2_ADDR_LO, (uint32_t)(l.wpr_start >> 12 << 4), d)) !=
		    CS_OK ||
	    (s = set_reg32(m, BAR0_APERTURE + NV_PFB_PRI_MMU_WPR2_ADDR_HI,
			   (uint32_t)((l.frts_offset + l.frts_size - 1) >> 12 << 4), d)) != CS_OK)
		return s;
	/* the hart as the image starts: S-mode under the monitor, at its first
	 * byte; a0 no Hopper boot arguments, a1 the boot flag, a2 the metadata */
	gsp_set_priv(m, GSP_PRIV_S);
	gsp_set_reg(m, UC_RISCV_REG_PC, FB_APERTURE + l.elf_offset);
	gsp_set_reg(m, UC_RISCV_REG_A0, 0);
	gsp_set_reg(m, UC_RISCV_REG_A1, 1);
	gsp_set_reg(m, UC_RISCV_REG_A2, FB_APERTURE + l.wpr_start);
	cs_gsp_monitor_on(m);
	if (m->unmodelled_log)
		m->mmio_trace = m->unmodelled_log;
	return CS_OK;
}
