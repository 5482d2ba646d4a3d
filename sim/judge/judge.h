/* SPDX-License-Identifier: MIT */
/* Private to sim/judge/: the judge's state and the pieces its files share.
 * The judge reads the device's trace and builds the chain (cs_report_judge,
 * judge.c); the rules that explain a stage that did not fire are split by
 * stage: stream.c (1-5, 11), launch.c (6-10), release.c (10 after engine
 * work without a release of its own), consequences.c (across channels). Causes come from include/chainsim/cause.def, never from text. */
#ifndef CHAINSIM_SIM_JUDGE_H
#define CHAINSIM_SIM_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/report.h"

#define JG_NONE SIZE_MAX /* no record */
#define JG_U(v) ((unsigned long long)(v)) /* a value for %llu */

typedef struct lslot {
	uint32_t id;          /* CS_NONE32 while no record has numbered it */
	uint32_t channel;
	bool open;            /* may still adopt an id (anonymous install) */
	size_t install, schedule, shortq, read, reject, fault_qmd, ctx, ctx_bad;
	size_t dispatch, done, not_run, fault_grid, release, fault_release;
	size_t engine_stop;   /* an engine's stop record at another stage (8, 9) */
	size_t dependent;     /* its QMD scheduled a dependent QMD on completion */
	size_t host_release;  /* the first host release on its channel after its grid */
	size_t first;         /* first record of the launch */
} lslot;

enum { OPEN_CACHE = 64, ID_INDEX_MAX = 1u << 24 };

typedef struct judge {
	const cs_report_input *in;
	const cs_event *ev;
	size_t n;
	lslot *slots;
	size_t nslots, cap;
	/* Lookups that keep the judge linear in the records: slot index + 1 by
	 * launch id (ids are handed out densely from 0), and the open anonymous
	 * slot by channel (0 = none). */
	size_t *by_id;
	size_t nby_id;
	size_t open_on[OPEN_CACHE];
	/* per stage of the chain being built: the rule that explains a not-fired row */
	cs_cause cause[CS_STAGE_COUNT + 1];
	char diag[CS_STAGE_COUNT + 1][CS_DIAGNOSIS_MAX];
} judge;

/* Why decode memory here: the trace ends where the channel stopped, so the
 * methods it never ran are only in the pushbuffers. They are read as memory
 * holds them at the end of the guest program. */
typedef struct unreached {
	bool found;
	char what[160];
	uint64_t methods; /* methods that never ran, as far as decoded */
	bool host;        /* the first one found is a host method */
} unreached;

/* The first channel stop: the front end's stop record, and the record that
 * caused it (an engine's stop or fault, or the front end's own fault), if any.
 * late: the cause is an engine's failure at a launch stage (6-10) that a launch
 * owns; the methods did reach the engine, so the break is that launch's. */
typedef struct stopinfo {
	size_t stop, fault;
	bool late;
} stopinfo;

/* An address as the guest named it ("sem", "pb+0x40"; hex when no
 * allocation of the scenario holds it, or without a device), in a buffer that
 * lives for the enclosing block. */
const char *jg_addr(const judge *j, uint64_t va, char *buf, size_t len);
#define JG_ADDR(j, va) jg_addr((j), (va), (char[64]){ 0 }, 64)

/* How the wait whose record (wait-begin, wait-done or wait-failed) is at
 * index i compares: "==" or ">=", as its wait-begin says. */
const char *jg_wait_cmp(const judge *j, size_t i);

/* A row of the chain being built, its evidence printf-formatted. */
void jg_row(cs_chain *c, cs_stage s, cs_stage_status st, cs_author who, size_t event,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The cause and diagnosis that explain stage s when it does not fire. */
void jg_why(judge *j, cs_stage s, cs_cause cause, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* slots.c: which launch each record belongs to */
void jg_collect_slots(judge *j);
void jg_find_host_releases(judge *j);
lslot *jg_slot_by_id(judge *j, uint32_t id);
bool jg_after_wfi(const cs_event *e);

/* text.c: rows, causes and the words of evidence */
const char *jg_access_word(uint64_t acc);
const char *jg_detail(const cs_event *e);
void jg_chan_name(const judge *j, uint32_t ch, char *buf, size_t len);
const char *jg_qmd_version(unsigned major);
const char *jg_path_name(uint64_t aux);
const char *jg_unit_phrase(uint8_t unit);
void jg_where(const cs_event *e, char *buf, size_t len);
void jg_method_label(uint32_t cls, uint32_t method, char *buf, size_t len);

/* evidence.c: what never ran, and what the guest built against what the stream names */
void jg_find_unreached(const judge *j, uint32_t ch, uint32_t entry, uint32_t method,
			   size_t upto, unreached *u);
void jg_unreached_sentence(const unreached *u, char *buf, size_t len);
size_t jg_nearest_build(const judge *j, bool qmd, uint64_t addr, bool *inside);
size_t jg_stray_entry(const judge *j);
void jg_distance_words(uint64_t from, uint64_t to, char *buf, size_t len);

/* stream.c: stages 1-5 and 11, scenario wide */
void jg_stage_build(judge *j, cs_chain *c);
void jg_stage_submit(judge *j, cs_chain *c);
stopinfo jg_first_stop(const judge *j);
void jg_stage_front_end(judge *j, cs_chain *c, const stopinfo *si);
void jg_stage_wake(judge *j, cs_chain *c);

/* launch.c: stages 6-10 of one launch */
void jg_stage_launch(judge *j, const lslot *s, cs_chain *c);

/* release.c: stage 10 after engine work that wrote no release of its own */
typedef struct jg_work {
	const char *done;      /* "launch 0 ran", "the engine moved 16 bytes (copy)" */
	const char *work;      /* what the release would come after: "grid", "copy" */
	const char *engine;    /* what a wait for idle must cover: "the compute engine" */
	const char *risk;      /* why a release without RELEASE_WFI proves nothing */
	const char *other_fix; /* another way to a release that proves it, or "" */
	const char *writer;    /* "the engine " (with its space), or "" */
	const char *unlearned; /* the rest of the no-release sentence */
} jg_work;
/* Row 10 from the host release at rel: fired with RELEASE_WFI, else
 * release-unordered. */
void jg_host_release_after(judge *j, cs_chain *c, size_t rel, const jg_work *w);
/* Row 10 when no release followed the work at all: release-disabled. */
void jg_no_release(judge *j, cs_chain *c, const jg_work *w);

/* consequences.c: a block or a wait that a launch which never ran explains */
void jg_attribute_consequences(judge *j, cs_report *r, cs_chain *o);
/* Whether launch s's QMD names addr as a release (read from the device's memory). */
bool jg_launch_would_release(const judge *j, const lslot *s, uint64_t addr);

/* A break at an address only the guest's view maps is the forwarding's
 * (forward.c): its cause and diagnosis say so. */
void jg_attribute_forwarding(const judge *j, cs_report *r);

#endif
