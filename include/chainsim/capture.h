/* SPDX-License-Identifier: MIT */
/* Captures: one self-contained submission as a binary image (docs/capture.md):
 * arch and classes, memory regions with bytes, GPFIFO entries per channel,
 * submissions and waits in order, and the addresses to read back. The codec
 * (sim/capture/codec.c) is libc only, so chainsim-hw carries it to a GPU
 * machine; export from a scenario and replay on the simulator are
 * sim/capture/simulator.c. */
#ifndef CHAINSIM_CAPTURE_H
#define CHAINSIM_CAPTURE_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/arch.h"
#include "chainsim/diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CS_CAPTURE_MAGIC "CHAINCAP"
enum {
	CS_CAPTURE_VERSION = 1,
	CS_CAPTURE_HEADER_SIZE = 32,
	CS_CAPTURE_RECORD_HEADER = 12,  /* type u32, length u32, crc32 u32 */
	CS_CAPTURE_NAME_MAX = 63,
	CS_CAPTURE_MAX_RECORDS = 1u << 20,
	CS_CAPTURE_MAX_CHANNELS = 64,
	CS_CAPTURE_MAX_READBACK = 1u << 20, /* bytes per read-back */
	/* bytes of all read-backs together: a results file writes each as two
	 * hex digits, and diff reads results files of at most 16 MiB */
	CS_CAPTURE_MAX_READBACK_TOTAL = 4u << 20,
};
/* The most one region may span and the most bytes a capture may hold in all,
 * so a hostile file cannot make a replay map or allocate without bound. */
#define CS_CAPTURE_MAX_REGION (1ull << 30)
#define CS_CAPTURE_MAX_FILE (1ull << 30)

typedef enum cs_capture_rec {
	CS_CAP_CHANNEL = 1, /* a channel: id, ring entries, name */
	CS_CAP_REGION = 2,  /* a mapping: guest VA, host VA, size, name, initial bytes */
	CS_CAP_WRITE = 3,   /* the guest wrote bytes into a region (between submissions) */
	CS_CAP_BUILD = 4,   /* the guest built a pushbuffer or QMD (stage 1 evidence) */
	CS_CAP_MODULE = 5,  /* a cubin or fatbin (and PTX) the simulator executes from */
	CS_CAP_GPFIFO = 6,  /* the guest wrote a ring entry */
	CS_CAP_SUBMIT = 7,  /* GP_PUT advanced and the doorbell rung */
	CS_CAP_WAIT = 8,    /* the guest waited for [addr] == value (or >=) */
	CS_CAP_READBACK = 9,/* an address whose bytes are an observable */
	CS_CAP_END = 10,    /* the last record: how many came before it */
	CS_CAP_COOPERATIVE = 11, /* the launch whose QMD is at va is cooperative, its grid
				  * workspace at value (docs/cooperative.md) */
	CS_CAP_PTX_NAME = 12, /* the last component of the ptx= file whose text the module
			       * record just before it holds */
} cs_capture_rec;

/* What a read-back shows, and so which stage a divergence there belongs to. */
typedef enum cs_capture_rb_kind {
	CS_CAP_RB_WAIT = 1,    /* a wait's address (stage 11) */
	CS_CAP_RB_RELEASE = 2, /* an engine release's payload (stage 10) */
	CS_CAP_RB_HOST_SEM = 3,/* a host semaphore release (stage 5) */
	CS_CAP_RB_MEMORY = 4,  /* bytes the scenario expects (stage 9: the grid's output) */
} cs_capture_rb_kind;

/* How a wait compares the value at its address with the value it wants. */
typedef enum cs_capture_wait_cmp {
	CS_CAP_WAIT_EQ = 0,  /* == */
	CS_CAP_WAIT_GEQ = 1, /* unsigned >= (a timeline semaphore) */
} cs_capture_wait_cmp;

typedef struct cs_capture_item {
	cs_capture_rec type;
	uint64_t offset;       /* of the record header in the file */
	uint32_t channel;      /* CHANNEL, GPFIFO, SUBMIT, BUILD */
	uint32_t entries;      /* CHANNEL */
	uint32_t lo, hi;       /* GPFIFO */
	uint64_t va;           /* REGION guest VA, WRITE/WAIT/READBACK/BUILD address, COOPERATIVE QMD */
	uint64_t host_va;      /* REGION */
	uint64_t size;         /* REGION span; READBACK length; WAIT width (4, 8) */
	uint64_t value;        /* WAIT value; BUILD value; COOPERATIVE grid workspace */
	uint64_t aux;          /* BUILD aux; READBACK kind; WAIT comparison (cs_capture_wait_cmp) */
	char name[CS_CAPTURE_NAME_MAX + 1]; /* CHANNEL, REGION, MODULE, READBACK, PTX_NAME, BUILD detail */
	const uint8_t *bytes;  /* REGION initial bytes, WRITE bytes, MODULE file (into the image) */
	uint64_t nbytes;
	const uint8_t *ptx;    /* MODULE: PTX text attached to a bare cubin, else NULL */
	uint64_t nptx;
} cs_capture_item;

typedef struct cs_capture {
	cs_arch arch;
	uint32_t host_class, compute_class, copy_class;
	cs_capture_item *items; /* in file order, END excluded */
	size_t nitems;
	uint8_t *image;         /* the file's bytes (owned; items point into it) */
	size_t size;
	uint32_t crc;           /* CRC-32 of the whole file: results name the capture by it */
} cs_capture;

CS_API uint32_t cs_capture_crc32(uint32_t crc, const void *buf, size_t len);
/* Stable arch codes in the file (not cs_arch's enum order): 1 ampere, 2 ada,
 * 3 hopper, 4 blackwell. */
CS_API uint32_t cs_capture_arch_code(cs_arch arch);

/* Parse an image (the bytes are copied). The file is hostile: every field is
 * checked, and the answer on bad input is NULL with d set to the byte offset
 * and what was expected (status CS_ERR_INPUT). name is for the diagnosis. */
CS_API cs_capture *cs_capture_parse(const uint8_t *bytes, size_t len, const char *name, cs_diag *d);
CS_API cs_capture *cs_capture_load(const char *path, cs_diag *d);
CS_API void cs_capture_free(cs_capture *c);
/* Whether a file starts with the capture magic (so `run` can tell). */
CS_API bool cs_capture_is_capture(const char *path);

/* ---- writing ------------------------------------------------------------- */

typedef struct cs_capture_writer cs_capture_writer;

CS_API cs_capture_writer *cs_capture_writer_new(cs_arch arch);
CS_API void cs_capture_writer_free(cs_capture_writer *w);
/* Append one record; item->type says which fields count. False on a value
 * the format cannot hold (d says which) or out of memory. */
CS_API bool cs_capture_writer_add(cs_capture_writer *w, const cs_capture_item *item, cs_diag *d);
/* The finished image (END appended); owned by the writer. */
CS_API const uint8_t *cs_capture_writer_finish(cs_capture_writer *w, size_t *len);

/* The name of a record type ("region"), for messages and the dump. */
CS_API const char *cs_capture_rec_name(cs_capture_rec t);
CS_API const char *cs_capture_rb_kind_name(cs_capture_rb_kind k);

/* ---- on the simulator (sim/capture/simulator.c, libchainsim) ------------- */

struct cs_device;
struct cs_scenario;
struct cs_results;
struct cs_event;

/* Run scenario s on dev (made for its arch) and write what the guest did into
 * w: regions and their bytes, writes between submissions, ring entries,
 * submissions and waits in order, then the addresses to read back (waits,
 * the releases the run saw, the scenario's `expect mem` ranges). */
CS_API bool cs_capture_export(struct cs_scenario *s, struct cs_device *dev, cs_capture_writer *w,
		       cs_diag *d);
/* The same, reading back also every byte of the regions named in reads
 * (e.g. a grid's output the scenario does not `expect`), in pieces of at
 * most CS_CAPTURE_MAX_READBACK. An unknown name is an error. */
CS_API bool cs_capture_export_reading(struct cs_scenario *s, struct cs_device *dev,
			       cs_capture_writer *w, const char *const *reads, size_t nreads,
			       cs_diag *d);
/* Replay a capture on dev (made for c->arch): the guest's actions in order,
 * then cs_device_finish. With res, the observables go there as a GPU would
 * show them (docs/capture.md). False with d on an action the device refuses. */
CS_API bool cs_capture_replay(const cs_capture *c, struct cs_device *dev, struct cs_results *res,
		       cs_diag *d);
/* The RC code a GPU reports for a channel the simulator stopped (its
 * CS_EV_CHANNEL_STOP record): the fake RM and the simulator's results agree. */
CS_API uint32_t cs_capture_rc_for_stop(const struct cs_event *stop);

#ifdef __cplusplus
}
#endif

#endif
