/* SPDX-License-Identifier: MIT */
/* The GSP firmware debugger (gsp/README.md): an RV64 firmware image on
 * Unicorn with a memory map, MMIO models, the GSP message queues and a
 * debugger. Lives in libchainsim-gsp (Unicorn is GPL-2). */
#ifndef CHAINSIM_GSP_H
#define CHAINSIM_GSP_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory map (a GLib key file, one group per region) ---- */

typedef enum cs_gsp_kind {
	CS_GSP_RAM,
	CS_GSP_ROM,
	CS_GSP_MMIO,
	CS_GSP_SHARED,
} cs_gsp_kind;

typedef enum cs_gsp_model {
	CS_GSP_MODEL_NONE,
	CS_GSP_MODEL_LOG,      /* bytes written at offset 0 form log lines */
	CS_GSP_MODEL_REGFILE,  /* plain 32-bit registers */
	CS_GSP_MODEL_DOORBELL, /* host interrupt 0x008 (bit 6 SWGEN0), GSP doorbells 0x00C,
				  QUEUE_HEAD(i) at 0xC00 + 8i */
} cs_gsp_model;

enum { CS_GSP_NAME_MAX = 32, CS_GSP_REGIONS_MAX = 32 };

typedef struct cs_gsp_region {
	char name[CS_GSP_NAME_MAX];
	uint64_t base;
	uint64_t size;
	cs_gsp_kind kind;
	cs_gsp_model model;
} cs_gsp_region;

typedef struct cs_gsp_map {
	cs_gsp_region region[CS_GSP_REGIONS_MAX];
	size_t count;
} cs_gsp_map;

/* Adds a region; rejects zero, unaligned (4 KiB), wrapping and overlapping ones. */
CS_API cs_status cs_gsp_map_add(cs_gsp_map *map, const cs_gsp_region *r, cs_diag *d);
/* Parses key-file text; `file` names it in diagnostics. */
CS_API cs_status cs_gsp_map_parse(const char *text, size_t len, const char *file, cs_gsp_map *map,
			   cs_diag *d);
CS_API cs_status cs_gsp_map_load(const char *path, cs_gsp_map *map, cs_diag *d);
/* The fixture firmware's map (fixtures/firmware/gsp-fixture.map). */
CS_API void cs_gsp_map_default(cs_gsp_map *map);
CS_API const cs_gsp_region *cs_gsp_map_find(const cs_gsp_map *map, const char *name);
CS_API const char *cs_gsp_kind_name(cs_gsp_kind k);

/* ---- firmware image ---- */

typedef struct cs_gsp_symbol {
	char *name;
	uint64_t addr;
	uint64_t size;
	bool func;
} cs_gsp_symbol;

typedef struct cs_gsp_segment {
	uint64_t addr;
	uint64_t memsz;
	uint64_t filesz;
	uint8_t *data; /* filesz bytes */
	uint32_t flags; /* PF_X 1, PF_W 2, PF_R 4 */
} cs_gsp_segment;

/* What the bytes from an address on are, as objdump reads them: the ELF's
 * mapping symbols mark data ($d) and code ($x, with its ISA after the $x, or
 * the file's) inside code sections, whose ends also end a stretch. */
typedef enum cs_gsp_bytes {
	CS_GSP_BYTES_CODE,      /* instructions, the C extension included */
	CS_GSP_BYTES_CODE_NO_C, /* instructions of an ISA without C */
	CS_GSP_BYTES_DATA,      /* data, or past the end of a code section */
} cs_gsp_bytes;

typedef struct cs_gsp_mapping {
	uint64_t addr;
	cs_gsp_bytes kind;
} cs_gsp_mapping;

/* The DWARF of an ELF with debug information (gsp/source.c, libdw). */
typedef struct cs_gsp_source cs_gsp_source;

typedef struct cs_gsp_image {
	uint64_t entry;
	cs_gsp_segment *seg;
	size_t nseg;
	cs_gsp_symbol *sym; /* sorted by address */
	size_t nsym;
	cs_gsp_mapping *mapping; /* sorted by address; none: all code with C */
	size_t nmapping;
	cs_gsp_source *source; /* line tables, variables, types; NULL without DWARF */
} cs_gsp_image;

/* An ELF64 RISC-V executable from memory (loadable segments, symbols). */
CS_API cs_status cs_gsp_image_from_elf(const uint8_t *buf, size_t len, const char *name,
				cs_gsp_image **out, cs_diag *d);
/* A raw image at `base`; its entry is `base`. */
CS_API cs_status cs_gsp_image_from_raw(const uint8_t *buf, size_t len, uint64_t base,
				cs_gsp_image **out, cs_diag *d);
/* NVIDIA's firmware container (gsp_*.bin: a relocatable RISC-V ELF whose
 * .fwimage section is the raw image), loaded raw at `base`. */
CS_API cs_status cs_gsp_image_from_container(const uint8_t *buf, size_t len, const char *name,
		uint64_t base,
				      cs_gsp_image **out, cs_diag *d);
/* Reads a file: an ELF executable, a firmware container (relocatable ELF with
 * .fwimage, loaded at raw_base), else raw bytes at raw_base. */
CS_API cs_status cs_gsp_image_load(const char *path, uint64_t raw_base, cs_gsp_image **out,
			    cs_diag *d);
CS_API void cs_gsp_image_free(cs_gsp_image *img);
CS_API const cs_gsp_symbol *cs_gsp_image_symbol(const cs_gsp_image *img, const char *name);
/* The function (or object) containing addr, or NULL. */
CS_API const cs_gsp_symbol *cs_gsp_image_symbolize(const cs_gsp_image *img, uint64_t addr);

/* ---- RV64GC disassembler ---- */

typedef enum cs_rv_memop {
	CS_RV_MEM_NONE,
	CS_RV_MEM_LOAD,
	CS_RV_MEM_STORE,
	CS_RV_MEM_AMO, /* reads and writes */
} cs_rv_memop;

typedef struct cs_rv_insn {
	uint32_t raw;
	uint8_t len; /* bytes the line covers: 2 or 4 (1 to 4 for data); 0: too few bytes */
	char mnemonic[16];
	char operands[64];
	/* control flow, for next/finish/backtrace */
	bool is_call;   /* jal/jalr writing ra */
	bool is_ret;    /* jalr x0, 0(ra) */
	bool has_target;
	uint64_t target; /* pc-relative branch/jump target */
	/* memory access, for watchpoint hits */
	cs_rv_memop memop;
	uint8_t mem_base; /* rs1 */
	int64_t mem_imm;
	uint8_t mem_size;
} cs_rv_insn;

/* Decodes one instruction at pc from `len` available bytes; false when the
 * bytes are not a valid RV64GC instruction (insn->len then says how many bytes
 * objdump would consume: 2 or 4, or 0 if fewer bytes than needed, and the
 * insn formats as objdump prints such bytes: ".4byte 0x7b"). */
CS_API bool cs_rv_decode(const uint8_t *bytes, size_t len, uint64_t pc, cs_rv_insn *insn);
/* The same for an ISA with or without the C extension (without it, a
 * 16-bit parcel is ".2byte 0x..."). */
CS_API bool cs_rv_decode_isa(const uint8_t *bytes, size_t len, uint64_t pc, bool compressed,
		cs_rv_insn *insn);
/* What objdump -d shows at pc of img (NULL: RV64GC code): data as .word,
 * .short or .byte up to the end of its stretch, or an instruction of the ISA
 * the mapping symbols give. False for data and bytes that hold no
 * instruction; insn->len is what the line covers (0: too few bytes). */
CS_API bool cs_rv_decode_in(const cs_gsp_image *img, const uint8_t *bytes, size_t len,
		uint64_t pc, cs_rv_insn *insn);
/* The kind of the bytes at addr and where that stretch ends (UINT64_MAX: the
 * end of memory). */
CS_API cs_gsp_bytes cs_gsp_image_bytes_at(const cs_gsp_image *img, uint64_t addr, uint64_t *end);
/* "mnemonic\toperands" as riscv64-unknown-elf-objdump -d prints it (without
 * its symbolic <sym+off> annotations). */
CS_API void cs_rv_format(const cs_rv_insn *insn, char *buf, size_t len);

/* ---- machine ---- */

typedef struct cs_gsp cs_gsp;

typedef enum cs_gsp_stop_reason {
	CS_GSP_STOP_NONE,
	CS_GSP_STOP_STEP,       /* the requested steps ran */
	CS_GSP_STOP_BREAK,      /* a debugger breakpoint */
	CS_GSP_STOP_WATCH,      /* a watchpoint */
	CS_GSP_STOP_BUDGET,     /* the instruction budget ran out */
	CS_GSP_STOP_IDLE,       /* wfi with no interrupt pending */
	CS_GSP_STOP_EBREAK,     /* the firmware's own ebreak */
	CS_GSP_STOP_RETURNED,   /* a called function or `finish` returned */
	CS_GSP_STOP_FAULT,      /* unmapped access, fetch fault, trap with no mtvec */
	CS_GSP_STOP_DESYNC,     /* the message-queue monitor saw the status ring overrun */
	CS_GSP_STOP_INTERRUPTED,
	CS_GSP_STOP_REPLY,      /* the awaited RPC reply arrived */
	CS_GSP_STOP_GUARD,      /* the wall-clock guard of an unbudgeted run expired */
	CS_GSP_STOP_SHUTDOWN,   /* the firmware asked the monitor model to shut down */
} cs_gsp_stop_reason;

typedef enum cs_gsp_watch_kind {
	CS_GSP_WATCH_WRITE = 1,
	CS_GSP_WATCH_READ = 2,
	CS_GSP_WATCH_ACCESS = 3,
} cs_gsp_watch_kind;

typedef struct cs_gsp_stop {
	cs_gsp_stop_reason reason;
	uint64_t pc;
	int id; /* breakpoint or watchpoint id */
	/* watchpoints */
	uint64_t access_pc; /* the instruction that made the access */
	uint64_t addr;
	uint32_t size;
	bool is_write;
	uint64_t value;     /* value written, or read */
	uint64_t old_value; /* for writes: the value before */
	uint64_t executed;  /* instructions run, for runs with a budget */
	char detail[256];
} cs_gsp_stop;

/* Builds the machine: maps the regions, loads the image, sets pc to the entry. */
CS_API cs_status cs_gsp_create(const cs_gsp_map *map, const cs_gsp_image *img, cs_gsp **out,
			cs_diag *d);
CS_API void cs_gsp_destroy(cs_gsp *m);
/* Loads a further image beside the first: each segment inside one ram/rom
 * region and clear of every segment loaded before; pc stays. The machine
 * reads its symbols after the first image's; the caller frees it after the
 * machine. At most CS_GSP_IMAGES_MAX images in all. */
enum { CS_GSP_IMAGES_MAX = 8 };
CS_API cs_status cs_gsp_load(cs_gsp *m, const cs_gsp_image *img, cs_diag *d);
CS_API const cs_gsp_image *cs_gsp_image_of(const cs_gsp *m);

/* Registers by GDB number: x0-x31 0-31, pc 32, f0-f31 33-64, CSR c at 65 + c,
 * and GDB's virtual "priv" (the hart's privilege level: 0 U, 1 S, 3 M) after
 * the 4096 CSRs. */
enum { CS_GSP_REG_PC = 32, CS_GSP_REG_F0 = 33, CS_GSP_REG_CSR0 = 65, CS_GSP_REG_PRIV = 65 + 4096 };
CS_API cs_status cs_gsp_reg_read(cs_gsp *m, unsigned regno, uint64_t *v, cs_diag *d);
CS_API cs_status cs_gsp_reg_write(cs_gsp *m, unsigned regno, uint64_t v, cs_diag *d);
/* "a0", "x10", "pc", "ft0", "mstatus"... -> GDB number; false if unknown. */
CS_API bool cs_gsp_reg_lookup(const char *name, unsigned *regno);
CS_API const char *cs_gsp_reg_name(unsigned regno);
CS_API uint64_t cs_gsp_pc(cs_gsp *m);

/* Memory through the map (MMIO goes through its model; side effects happen). */
CS_API cs_status cs_gsp_mem_read(cs_gsp *m, uint64_t addr, void *buf, size_t len, cs_diag *d);
CS_API cs_status cs_gsp_mem_write(cs_gsp *m, uint64_t addr, const void *buf, size_t len,
		cs_diag *d);

/* Breakpoints and watchpoints: each is its own ranged Unicorn hook. */
CS_API cs_status cs_gsp_break_add(cs_gsp *m, uint64_t addr, bool temporary, int *id, cs_diag *d);
CS_API cs_status cs_gsp_watch_add(cs_gsp *m, uint64_t addr, uint64_t len, cs_gsp_watch_kind kind,
			   int *id, cs_diag *d);
CS_API cs_status cs_gsp_point_delete(cs_gsp *m, int id, cs_diag *d);
CS_API void cs_gsp_point_delete_all(cs_gsp *m);
/* Delete by address (GDB z packets). */
CS_API cs_status cs_gsp_break_remove_at(cs_gsp *m, uint64_t addr, cs_diag *d);
CS_API cs_status cs_gsp_watch_remove_at(cs_gsp *m, uint64_t addr, uint64_t len,
				 cs_gsp_watch_kind kind, cs_diag *d);
/* Prints the breakpoint and watchpoint table. */
CS_API void cs_gsp_points_print(cs_gsp *m, FILE *out);

/* Runs until a stop; budget 0 means no instruction budget (then a wall-clock
 * guard of `guard_ms` milliseconds applies, 0 for none). */
CS_API cs_status cs_gsp_continue(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d);
CS_API cs_status cs_gsp_stepi(cs_gsp *m, uint64_t n, cs_gsp_stop *st, cs_diag *d);
/* Steps one instruction, running over calls (jal/jalr that write ra). */
CS_API cs_status cs_gsp_next(cs_gsp *m, cs_gsp_stop *st, cs_diag *d);
/* Runs until the current function returns (to ra). */
CS_API cs_status cs_gsp_finish(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d);
/* Calls a firmware function with up to 8 arguments and returns a0; registers
 * are restored afterwards, memory effects stay. Breakpoints are not armed. */
CS_API cs_status cs_gsp_call(cs_gsp *m, uint64_t addr, const uint64_t *args, size_t nargs,
		      uint64_t guard_ms, uint64_t *ret, cs_gsp_stop *st, cs_diag *d);
/* Interrupt from another thread (GDB 0x03). */
CS_API void cs_gsp_interrupt(cs_gsp *m);
CS_API void cs_gsp_set_guard_ms(cs_gsp *m, uint64_t ms);

/* Instruction-level trace of MMIO accesses to `out` (NULL: off). */
CS_API void cs_gsp_mmio_trace(cs_gsp *m, FILE *out);
/* Unmodelled accesses to `out` (NULL: off, the default): a load or store to
 * unmapped memory maps its page as a device that logs each access (pc,
 * address, width, value) and reads as zero; a CSR Unicorn does not have (the
 * custom and debug ranges) is logged, reads as zero and ignores writes,
 * instead of raising an illegal-instruction trap. */
CS_API void cs_gsp_unmodelled_log(cs_gsp *m, FILE *out);
/* --boot TARGET (ga10x): the machine as NVIDIA's driver and Booter leave it
 * for GSP-RM 535 (docs/gsp.md, "--boot ga10x"). cs_gsp_boot_map gives its map
 * and where the image of image_size bytes goes; cs_gsp_boot, on a machine
 * made on that map with the image there, writes the boot data and starts
 * the hart as the image starts (the monitor model on). */
CS_API cs_status cs_gsp_boot_map(const char *target, uint64_t image_size, cs_gsp_map *map,
				 uint64_t *image_base, cs_diag *d);
CS_API cs_status cs_gsp_boot(cs_gsp *m, const char *target, uint64_t image_size, cs_diag *d);
/* Turns the M-mode monitor model on (docs/gsp.md, "The monitor model"):
 * ecalls that reach M are answered by it, not by the firmware's mtvec. */
CS_API void cs_gsp_monitor_on(cs_gsp *m);
/* Log lines the firmware wrote to log-model regions. */
CS_API const char *cs_gsp_log_text(cs_gsp *m);
/* Host interrupts raised by the firmware (doorbell model, bit 6) so far. */
CS_API uint64_t cs_gsp_host_irqs(cs_gsp *m);
/* Host -> GSP doorbell: QUEUE_HEAD(i) write; pends the external interrupt. */
CS_API void cs_gsp_ring_doorbell(cs_gsp *m, unsigned queue);

/* Snapshots of registers, memory, models and the host queue state. */
/* At most CS_GSP_SNAPSHOTS_MAX snapshots holding CS_GSP_SNAPSHOT_BYTES_MAX
 * bytes of region memory together; past either, save is bad input. */
#define CS_GSP_SNAPSHOTS_MAX 64u
#define CS_GSP_SNAPSHOT_BYTES_MAX (512ull << 20)
CS_API cs_status cs_gsp_snapshot_save(cs_gsp *m, const char *name, cs_diag *d);
CS_API cs_status cs_gsp_snapshot_restore(cs_gsp *m, const char *name, cs_diag *d);

/* "stopped at <sym+off>: breakpoint 1" etc., one line, no newline. */
CS_API void cs_gsp_stop_describe(cs_gsp *m, const cs_gsp_stop *st, char *buf, size_t len);
/* "sym+0x12" or "0x..." */
CS_API void cs_gsp_symbolize(cs_gsp *m, uint64_t addr, char *buf, size_t len);

/* ---- GSP message queues (host side) ---- */

enum {
	CS_GSP_RPC_GET_GSP_STATIC_INFO = 65,
	CS_GSP_RPC_SET_SYSTEM_INFO = 72,
	CS_GSP_RPC_SET_REGISTRY = 73,
	CS_GSP_RPC_GSP_RM_CONTROL = 76,
	CS_GSP_RPC_GSP_RM_ALLOC = 103,
	CS_GSP_EVENT_INIT_DONE = 0x1001,
	CS_GSP_EVENT_RUN_CPU_SEQUENCER = 0x1002,
	CS_GSP_EVENT_LIBOS_PRINT = 0x100C,
};

enum {
	CS_GSP_MSGQ_ELEM = 0x1000,
	CS_GSP_MSGQ_COUNT = 63,
	CS_GSP_MSGQ_CMD_OFF = 0x1000,
	CS_GSP_MSGQ_STAT_OFF = 0x41000,
	CS_GSP_MSGQ_SHARED_SIZE = 0x81000,
	CS_GSP_MSGQ_MAX_PAYLOAD = 0x3000,
};

typedef struct cs_gsp_reply {
	uint32_t function;
	uint32_t result;
	uint32_t sequence;
	uint32_t seq_num;
	uint32_t elems;
	uint32_t payload_len;
	uint8_t payload[CS_GSP_MSGQ_MAX_PAYLOAD + CS_GSP_MSGQ_ELEM];
} cs_gsp_reply;

CS_API const char *cs_gsp_rpc_name(uint32_t function);
CS_API bool cs_gsp_rpc_lookup(const char *name, uint32_t *function);
/* The i-th RPC the host side sends by name (the firmware's events, which it
 * only receives, left out): its name, and its function in *function; NULL
 * past the last. cs_gsp_rpc_lookup also takes a function number. */
CS_API const char *cs_gsp_rpc_known(size_t i, uint32_t *function);

/* Initializes the command queue header and page table in the shared region
 * (the host's half of the protocol). */
CS_API cs_status cs_gsp_msgq_init(cs_gsp *m, cs_diag *d);
/* Runs the firmware (budget instructions) until GSP_INIT_DONE arrives. */
CS_API cs_status cs_gsp_msgq_wait_init(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d);
/* Posts one RPC without waiting; returns its rpc sequence. */
CS_API cs_status cs_gsp_rpc_post(cs_gsp *m, uint32_t function, const void *payload, uint32_t len,
			  uint32_t *sequence, cs_diag *d);
/* Reads the next reply if one is pending (validating it): CS_OK with
 * *got false when the queue is empty. */
CS_API cs_status cs_gsp_rpc_receive(cs_gsp *m, cs_gsp_reply *r, bool *got, cs_diag *d);
/* Posts and runs the firmware until the reply arrives (budget instructions). */
CS_API cs_status cs_gsp_rpc_call(cs_gsp *m, uint32_t function, const void *payload, uint32_t len,
			  uint64_t budget, cs_gsp_reply *r, cs_gsp_stop *st, cs_diag *d);
/* Replies the host still waits for. */
CS_API uint32_t cs_gsp_rpc_outstanding(cs_gsp *m);
/* Prints both queues: headers, cursors, pending elements decoded. */
CS_API void cs_gsp_msgq_print(cs_gsp *m, FILE *out);
/* Address of a named cursor: msgq.cmd.write, msgq.cmd.read (the GSP's read
 * position of the command queue), msgq.stat.write, msgq.stat.read (the host's
 * read position of the status queue). */
CS_API bool cs_gsp_msgq_cursor(cs_gsp *m, const char *name, uint64_t *addr);
/* Whether the status-queue monitor is armed (default on after msgq init). */
CS_API void cs_gsp_msgq_monitor(cs_gsp *m, bool on);

/* ---- debugger commands ---- */

/* Executes one debugger command line, printing to out; errors are returned
 * (and not printed). */
CS_API cs_status cs_gsp_dbg_exec(cs_gsp *m, const char *line, FILE *out, cs_diag *d);
/* In batch mode a run command whose run stops on a fault, the wall-clock
 * guard or the instruction budget prints the stop and then fails with
 * CS_ERR_FAULT (the batch exits 1). */
CS_API void cs_gsp_dbg_set_batch(cs_gsp *m, bool batch);
/* The command names, NULL-terminated (for completion). */
CS_API const char *const *cs_gsp_dbg_commands(void);

/* ---- GDB remote protocol ---- */

typedef enum cs_gdb_pkt_kind {
	CS_GDB_PKT_NONE,      /* need more bytes */
	CS_GDB_PKT_PACKET,    /* $...#xx with a good checksum */
	CS_GDB_PKT_INTERRUPT, /* 0x03 */
	CS_GDB_PKT_ACK,       /* + */
	CS_GDB_PKT_NACK,      /* - */
	CS_GDB_PKT_ERROR,     /* bad checksum, overlong, junk: diag says which */
} cs_gdb_pkt_kind;

enum { CS_GDB_PACKET_MAX = 16384 };

/* Parses the first item of buf[0..len): sets *used to the bytes consumed and
 * the unescaped, NUL-terminated payload into out, which holds
 * CS_GDB_PACKET_MAX + 1 bytes. */
CS_API cs_gdb_pkt_kind cs_gdb_parse(const uint8_t *buf, size_t len, size_t *used, char *out,
			     size_t *out_len, cs_diag *d);
/* Handles one packet payload against the machine and writes the reply payload
 * (without framing); sets *resume when the command continues or steps (the
 * reply then is the stop reply). */
CS_API cs_status cs_gdb_handle(cs_gsp *m, const char *pkt, size_t len, char *reply,
		size_t reply_max,
			cs_diag *d);
/* A connected client that sends nothing for this long while the target is
 * stopped is dropped (cs_gdb_serve returns CS_ERR_INPUT saying so). */
#define CS_GDB_IDLE_MS (600u * 1000u)
CS_API void cs_gsp_set_gdb_idle_ms(cs_gsp *m, uint64_t ms); /* 0: the default */
/* The packet loop on a connected socket (cs_gdb_serve's, after accept; the
 * fuzzer drives it through a socketpair). Closes fd. */
CS_API cs_status cs_gdb_session(cs_gsp *m, int fd, cs_diag *d);
/* Serves one GDB client on host:port (port 0: pick one; *bound_port says
 * which; ready(port, ctx) is called once listening). */
CS_API cs_status cs_gdb_serve(cs_gsp *m, const char *host, uint16_t port,
		       void (*ready)(uint16_t port, void *ctx), void *ctx, cs_diag *d);

#ifdef __cplusplus
}
#endif

#endif
