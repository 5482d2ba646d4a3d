/* SPDX-License-Identifier: MIT */
/* Private state of libchainsim-gsp, shared by its files. */
#ifndef CHAINSIM_GSP_INTERNAL_H
#define CHAINSIM_GSP_INTERNAL_H

#include <glib.h>
#include <stdatomic.h>
#include <unicorn/unicorn.h>

#include "chainsim/gsp.h"

/* uc_hook_add takes callbacks as void *; go through an integer (ISO C allows that). */
#define GSP_CB(f) ((void *)(uintptr_t)(f))

/* The registers' ABI names, by number (x0 is zero, f0 is ft0). */
extern const char *const gsp_xreg[32];
extern const char *const gsp_freg[32];

enum { GSP_POINTS_MAX = 64, GSP_OUTSTANDING_MAX = 256, GSP_UNMODELLED_PAGES_MAX = 256 };

typedef struct gsp_point {
	bool used;
	bool is_watch;
	bool temporary;
	bool internal; /* set by next/finish, not listed */
	bool by_gdb;   /* inserted by a GDB Z packet: gdb explains its stops itself */
	int id;
	uint64_t addr;
	uint64_t len;
	cs_gsp_watch_kind kind;
	uc_hook hook;
	uint64_t hits;
} gsp_point;

/* A device region; its registers are the 32-bit words written so far (word
 * index -> value, a word not in the table reads 0), so a register file of
 * any size is backed whole. */
typedef struct gsp_mmio {
	cs_gsp *m;
	const cs_gsp_region *r;
	GHashTable *regs;
} gsp_mmio;

/* A page of unmapped memory that --mmio-log turned into a logging device. */
typedef struct gsp_unmodelled_page {
	cs_gsp *m;
	uint64_t base;
} gsp_unmodelled_page;

typedef struct gsp_msgq {
	bool ready;
	uint64_t base; /* shared region */
	uint32_t cmd_seq;  /* next command element seqNum */
	uint32_t rpc_seq;  /* next rpc sequence */
	uint32_t stat_seq; /* expected next status element seqNum */
	bool init_done;
	uint32_t outstanding;
	uint32_t out_seq[GSP_OUTSTANDING_MAX];
	uint32_t out_fn[GSP_OUTSTANDING_MAX];
	bool monitor;
	uc_hook mon_hook;
	bool desynced;
} gsp_msgq;

/* The hooks need both the machine and the point's slot. */
typedef struct gsp_hookctx {
	cs_gsp *m;
	int slot;
} gsp_hookctx;

/* What a hook saw; the runner turns it into a stop. */
typedef struct gsp_hit {
	bool set;
	bool from_mem; /* raised inside a memory hook: pc needs recovery */
	uint64_t block_pc; /* from_mem: the start of the block that accessed */
	cs_gsp_stop_reason reason;
	int id;
	uint64_t addr;
	uint32_t size;
	bool is_write;
	uint64_t value;
	uint64_t old_value;
	char detail[256];
} gsp_hit;

/* An access to unmapped or protected memory, seen by the invalid-memory hook;
 * why is set where the model's own page walk refused it (paging.c). */
typedef struct gsp_bad_access {
	bool set;
	uc_mem_type type;
	uint64_t addr;
	uint32_t size;
	uint64_t value;
	char why[96];
} gsp_bad_access;

/* The M-mode monitor model (monitor.c): the partitions the firmware
 * registered, each with its entry and the S-mode state a switch saves and
 * restores. */
enum { GSP_PARTITIONS_MAX = 16, GSP_PARTITION_CSRS = 8, GSP_PMP_WINDOWS_MAX = 16 };
/* A window a partition was granted (FID 8 or 9): as the calls give it. */
typedef struct gsp_pmp_window {
	uint64_t base, size, access;
	uint64_t index[2]; /* the call's a1 and a2 */
} gsp_pmp_window;

/* An entry of the MPU model (mpu.c), and the MPU of one partition. */
enum { GSP_MPU_ENTRIES = 128, GSP_MPU_PIECES = 4 };
/* A second mapping, at va, of the part of one region an entry covers. */
typedef struct gsp_mpu_piece {
	uint64_t va, size;
	gsp_mmio *dev;  /* a device region's piece: its offset there is delta + the access's */
	uint64_t delta;
} gsp_mpu_piece;

typedef struct gsp_mpu_entry {
	uint64_t va; /* virtual base | 1 valid */
	uint64_t pa, range, attr;
	gsp_mpu_piece piece[GSP_MPU_PIECES];
	size_t npieces;
} gsp_mpu_entry;

enum { GSP_MPU_GROUPS = GSP_MPU_ENTRIES / 64 };
typedef struct gsp_mpu {
	uint64_t index, group;
	uint64_t bits[GSP_MPU_GROUPS]; /* what 0x5d1 holds for each group */
	gsp_mpu_entry entry[GSP_MPU_ENTRIES];
} gsp_mpu;

typedef struct gsp_partition {
	gsp_mpu mpu;
	gsp_pmp_window window[GSP_PMP_WINDOWS_MAX];
	size_t nwindows;
	bool registered;
	uint64_t entry;
	uint64_t args[4]; /* the registration's a2..a5, kept as given */
	bool saved;       /* csr holds its S-mode CSRs from when it was left */
	uint64_t csr[GSP_PARTITION_CSRS];
} gsp_partition;

typedef struct gsp_monitor {
	bool on;
	unsigned current;
	uint64_t message_area[5]; /* FID 10's a0..a4 */
	uint64_t time;            /* the virtual clock `time` reads */
	gsp_partition part[GSP_PARTITIONS_MAX];
} gsp_monitor;

typedef struct gsp_snapshot {
	char name[64];
	uint64_t bytes; /* of region memory it holds */
	uc_context *ctx;
	uint8_t **mem; /* one per memory-backed region */
	GHashTable **mmio_regs; /* one per device, as machine's mmio */
	size_t nmmio;
	gsp_msgq q;
	uint32_t irq_pending;
	uint32_t host_irq_status;
	uint64_t host_irqs;
	size_t log_len;
	gsp_monitor *mon; /* the monitor model's partitions, MPU entries, clock */
} gsp_snapshot;

struct cs_gsp {
	uc_engine *uc;
	/* `list` without arguments goes on where the last one ended */
	char list_file[256];
	unsigned list_next;
	/* the frame `frame`/`up`/`down` chose, while pc and sp stay as they were */
	int frame_sel;
	uint64_t frame_pc, frame_sp;
	cs_gsp_map map;
	void *host[CS_GSP_REGIONS_MAX]; /* the memory of each ram/rom region */
	const cs_gsp_image *img;
	/* img, then the images cs_gsp_load added beside it */
	const cs_gsp_image *images[CS_GSP_IMAGES_MAX];
	size_t nimages;
	gsp_point pt[GSP_POINTS_MAX];
	gsp_hookctx hctx[GSP_POINTS_MAX];
	int next_id;
	uc_hook intr_hook;
	uc_hook bad_access_hook;
	gsp_bad_access bad_access;
	/* run state */
	gsp_hit hit;
	bool trap_pending;
	uint32_t trap_intno;
	uint64_t trap_badaddr; /* Unicorn's badaddr when the trap was raised */
	bool skip_armed;
	uint64_t skip_pc;
	bool watch_suppress;
	bool watch_reads_suppressed;
	bool watch_stop_before; /* leave watchpoint stops before the access (GDB) */
	bool counting; /* the counting hook is in place (budgeted runs and steps) */
	uint64_t budget_left; /* instructions a budgeted run may still execute */
	uc_hook count_hook;
	unsigned mem_hooks; /* watchpoints and the queue monitor */
	uc_hook block_hook; /* in place while mem_hooks > 0 */
	uint64_t block_pc; /* the start of the block running now (block_hook) */
	atomic_int interrupt_req;
	uint64_t guard_ms;
	uint64_t gdb_idle_ms; /* 0: CS_GDB_IDLE_MS */
	bool batch; /* a fault, guard or budget stop fails the command */
	uint64_t pad; /* return pad for calls: an ebreak in an internal page */
	/* Unicorn 2.0.1 has no privilege register and checks host CSR access
	 * against the hart's mode: the mode (and the fault address, badaddr)
	 * are read and written in a copy of its CPU state (machine.c). */
	uc_context *cpu_state;
	size_t priv_offset;
	size_t badaddr_offset;
	size_t reservation_offset;
	/* devices */
	gsp_mmio *mmio;
	size_t nmmio;
	FILE *mmio_trace;
	FILE *unmodelled_log; /* --mmio-log: unmapped accesses and unknown CSRs */
	gsp_unmodelled_page unmodelled[GSP_UNMODELLED_PAGES_MAX];
	size_t nunmodelled;
	gsp_monitor mon;
	GHashTable *placeholders; /* virtual page numbers mapped for Unicorn's check (paging.c) */
	bool placeholder_retry;   /* a fetch at placeholder_va needs one first (machine.c) */
	bool mpu_refused;         /* the MPU model could not map an entry (mpu.c) */
	uint64_t placeholder_va;
	GString *log;
	GString *logline;
	uint32_t irq_pending; /* doorbells pending for the GSP, bit per queue */
	uint32_t host_irq_status;
	uint64_t host_irqs;
	/* host side of the message queues */
	gsp_msgq q;
	GPtrArray *snaps;
	uint64_t snap_bytes; /* all snapshots' region bytes */
};

/* ---- the machine (machine.c) ---- */
/* The encoding of ebreak: the debugger's return pad, and the firmware's own. */
#define GSP_INSN_EBREAK 0x00100073u
uint64_t gsp_reg(cs_gsp *m, int ucreg);
void gsp_set_reg(cs_gsp *m, int ucreg, uint64_t v);
/* The region holding all of [addr, addr + len), or NULL. */
const cs_gsp_region *gsp_region_of(const cs_gsp *m, uint64_t addr, uint64_t len);
/* The model's memory behind [addr, addr + len) of one ram/rom region, and
 * that region's permissions; NULL elsewhere. */
uint8_t *gsp_host_of(const cs_gsp *m, uint64_t addr, uint64_t len, uint32_t *perms);
/* The device of a device region; an access to it as the firmware's would
 * be (traced, modelled). */
gsp_mmio *gsp_mmio_of(cs_gsp *m, const cs_gsp_region *r);
uint64_t gsp_mmio_read(gsp_mmio *dev, uint64_t off, unsigned size);
void gsp_mmio_write(gsp_mmio *dev, uint64_t off, unsigned size, uint64_t v);
/* Memory hooks take effect in blocks translated after the first one came. */
/* Where the search for the instruction of a memory access starts: the start
 * of the running block while memory hooks exist, else Unicorn's pc, which a
 * block entered by a chained jump leaves at an earlier block. */
uint64_t gsp_block_pc(cs_gsp *m);
void gsp_mem_hook_added(cs_gsp *m);
void gsp_mem_hook_removed(cs_gsp *m);
/* Drops translated blocks (never all of them: see machine.c): of [addr,
 * addr + len), or of every code region. */
void gsp_drop_translations(cs_gsp *m, uint64_t addr, uint64_t len);
void gsp_drop_code_translations(cs_gsp *m);
/* Privilege levels as the spec encodes them. */
enum { GSP_PRIV_U = 0, GSP_PRIV_S = 1, GSP_PRIV_M = 3 };
unsigned gsp_priv(cs_gsp *m);
void gsp_set_priv(cs_gsp *m, unsigned priv);
/* Raises the hart to M for host CSR access; returns the mode that
 * gsp_priv_lower goes back to. */
unsigned gsp_priv_raise(cs_gsp *m);
void gsp_priv_lower(cs_gsp *m, unsigned was);
/* CSR access as the debugger sees it: at M whatever mode the hart is in. */
uint64_t gsp_csr(cs_gsp *m, int ucreg);
void gsp_set_csr(cs_gsp *m, int ucreg, uint64_t v);
/* The 32-bit register at byte offset off of a device region (the word
 * holding it), and setting it. */
uint32_t gsp_mmio_word(const gsp_mmio *dev, uint64_t off);
void gsp_mmio_set_word(gsp_mmio *dev, uint64_t off, uint32_t v);
/* A copy of a device's registers (a snapshot's), and putting one back. */
GHashTable *gsp_mmio_regs_copy(GHashTable *regs);
/* The LR reservation's value, and clearing it (an SC the model completes). */
uint64_t gsp_reservation_value(cs_gsp *m);
void gsp_reservation_clear(cs_gsp *m);
/* One line of the unmodelled-access log (--mmio-log): what, by the
 * instruction at pc. */
void gsp_log_unmodelled(cs_gsp *m, const char *what, uint64_t pc);

/* ---- translation for the map check (paging.c) ---- */
typedef enum { GSP_ACCESS_READ, GSP_ACCESS_WRITE, GSP_ACCESS_FETCH } gsp_access;
typedef enum {
	GSP_WALK_BARE,           /* no translation in the access's mode: pa = va */
	GSP_WALK_MAPPED,         /* a leaf permits the access: pa */
	GSP_WALK_PAGE_FAULT,     /* the hardware raises a page fault */
	GSP_WALK_TABLE_UNMAPPED, /* a table entry at pa is in no ram or rom region */
} gsp_walk;
/* The Sv39/Sv48 walk of va for an access in the hart's current mode
 * (mstatus.MPRV, SUM and MXR included). */
gsp_walk gsp_translate(cs_gsp *m, uint64_t va, gsp_access acc, uint64_t *pa);
/* Whether addr's page is a placeholder, and mapping one at va's page. */
bool gsp_placeholder_at(const cs_gsp *m, uint64_t addr);
bool gsp_map_placeholder(cs_gsp *m, uint64_t va);
/* len bytes of code at the virtual address va, read through the walk. */
bool gsp_read_code(cs_gsp *m, uint64_t va, void *buf, size_t len);

/* ---- the monitor model (monitor.c) ---- */
typedef enum { GSP_MONITOR_NOT_MINE, GSP_MONITOR_RETURNED, GSP_MONITOR_STOP } gsp_monitor_action;
/* An ecall (cause 8 or 9) at epc: answered by the monitor model when it is on
 * and the call reaches M; GSP_MONITOR_STOP fills st. */
gsp_monitor_action gsp_monitor_ecall(cs_gsp *m, uint64_t cause, uint64_t epc, cs_gsp_stop *st);
/* A read of the time CSR (the illegal instruction insn at epc) under the
 * monitor model: answered with its virtual clock; true when it was one. */
bool gsp_monitor_time(cs_gsp *m, uint32_t insn, uint64_t epc);

/* ---- the MPU model (mpu.c) ---- */
typedef enum { GSP_MPU_NOT_MINE, GSP_MPU_DONE, GSP_MPU_REFUSED } gsp_mpu_result;
/* A CSR instruction on csr (op 0 read only, 1 write, 2 set, 3 clear
 * operand): the CSR's value before it in *old; REFUSED fills why. */
gsp_mpu_result gsp_mpu_csr(cs_gsp *m, unsigned csr, unsigned op, uint64_t operand, uint64_t *old, char *why,
			   size_t len);
/* The current partition's MPU mappings go when it is left and come back
 * when it is entered (false, with why, when one cannot). */
void gsp_mpu_leave(cs_gsp *m);
bool gsp_mpu_enter(cs_gsp *m, char *why, size_t len);

/* ---- breakpoints and watchpoints (points.c) ---- */
/* Raises a stop from inside a memory hook. */
void gsp_hit_from_mem(cs_gsp *m, cs_gsp_stop_reason reason, int id, uint64_t addr, int size,
		      bool is_write, int64_t value);
/* Deletes breakpoint id after its stop when it was a temporary one (tbreak). */
void gsp_point_retire_temporary(cs_gsp *m, int id);
/* Whether point id was inserted by gdb (a Z packet), not by the debugger's
 * own commands (monitor watch, break, ...). */
bool gsp_point_by_gdb(const cs_gsp *m, int id);

/* ---- the run loop, trap entry and stops (run.c) ---- */
/* Monotonic milliseconds, and whether a stepped run begun at t0_ms has
 * passed the wall-clock guard (the stop is then filled in, after `done`). */
uint64_t gsp_now_ms(void);
bool gsp_guard_passed(cs_gsp *m, uint64_t t0_ms, cs_gsp_stop *st, uint64_t done);
/* Runs the firmware: until is an address where to stop (0 none), budget
 * instructions (0 none). */
cs_status gsp_run(cs_gsp *m, uint64_t budget, uint64_t until, bool step_mode, cs_gsp_stop *st,
		  cs_diag *d);
/* The instruction at or after block_pc (a stop inside a memory access
 * leaves pc at the start of its block) that accessed [addr, addr + size),
 * found by decoding and effective address. */
bool gsp_find_access(cs_gsp *m, uint64_t block_pc, uint64_t addr, uint32_t size, bool is_write,
		     uint64_t *insn_pc, cs_rv_insn *in);

/* ---- snapshots (snapshot.c) ---- */
/* Frees every snapshot and the list (the machine is being destroyed). */
void gsp_snapshots_free(cs_gsp *m);

/* ---- the GDB stub's packets (gdbstub.c) ---- */
typedef struct gsp_gdb_request gsp_gdb_request;
typedef struct gsp_gdb_packet {
	const char *name; /* the packet's first characters, or all of them when whole */
	bool whole;
	bool resumes; /* runs the target: acked at once, answered when it stops */
	cs_status (*answer)(gsp_gdb_request *r);
	const char *usage;
	const char *what;
} gsp_gdb_packet;
/* The table the stub answers from, in the order it matches. */
const gsp_gdb_packet *gsp_gdb_packets(size_t *count);

/* ---- the message queues' monitor hook and cursor names (msgq.c) ---- */
void gsp_msgq_arm_monitor(cs_gsp *m);
/* The queues in shared region r, their page table holding dma_base + the
 * offset of each page (the address the host's side gives the device). */
cs_status gsp_msgq_init_dma(cs_gsp *m, const cs_gsp_region *r, uint64_t dma_base, cs_diag *d);
const char *gsp_msgq_cursor_name(cs_gsp *m, uint64_t addr);

/* ---- debugger commands over gdb's monitor (dbg.c) ---- */
/* What a gdb client types instead of the debugger command line, when the
 * line moves the hart behind gdb's back (it runs the firmware, or writes a
 * register): gdb keeps the registers it read until it resumes the target
 * itself. NULL when the line leaves the registers as gdb read them. */
const char *gsp_dbg_gdb_instead(const char *line);

/* ---- unwinding (dbg.c) ---- */
typedef struct gsp_frame {
	uint64_t pc, sp, fp, cfa;
	uint64_t ra;     /* return address for the caller */
	bool ra_valid;
} gsp_frame;
int gsp_unwind(cs_gsp *m, gsp_frame *frames, int max);

#endif
