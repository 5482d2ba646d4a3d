/* SPDX-License-Identifier: MIT */
/* The chain judged from the trace: eleven stages per launch and overall, the
 * first break with its diagnosis (sim/judge/). Text, JSON and Perfetto
 * writers read only this and the trace. */
#ifndef CHAINSIM_REPORT_H
#define CHAINSIM_REPORT_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/cause.h"
#include "chainsim/device.h"
#include "chainsim/stage.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CS_EVIDENCE_MAX = 256, CS_DIAGNOSIS_MAX = 1024 };

typedef struct cs_stage_row {
	cs_stage stage;
	cs_stage_status status;
	cs_author author;               /* who acted (CS_AUTHOR_NONE when nobody did) */
	char evidence[CS_EVIDENCE_MAX]; /* "-" when there is none */
	size_t event;                   /* index of the deciding trace record, SIZE_MAX when none */
} cs_stage_row;

typedef struct cs_chain {
	uint32_t launch;                /* CS_NONE32 for the overall chain */
	cs_stage_row rows[CS_STAGE_COUNT + 1]; /* rows[1..11] */
	cs_stage first_break;           /* CS_STAGE_NONE when complete */
	/* The break's cause (cause.def) and diagnosis; with no break, those of the
	 * first stage the backend cannot observe (unobservable), if any. */
	cs_cause cause;
	cs_stage unobservable;          /* first not-observable stage with a cause, else NONE */
	char diagnosis[CS_DIAGNOSIS_MAX];
	/* the record that decided the break (SIZE_MAX when none) */
	size_t break_event;
} cs_chain;

/* A line of a kernel's device output (printf) or a finding of the executor (a
 * data race): what the trace record says, where it came from. */
typedef struct cs_report_note {
	uint32_t launch;   /* CS_NONE32 when none */
	uint64_t cta;      /* linear CTA index */
	uint64_t thread;   /* linear thread index in its CTA (output only) */
	const char *text;  /* points into the device's trace */
} cs_report_note;

/* One edit the forwarding layer made (a stage-3 CS_EV_HOST_EDIT record), as
 * the record says it. */
typedef struct cs_report_edit {
	size_t event;            /* the record's index in the trace */
	cs_forward_edit edit;
	uint32_t entry;          /* the guest's ring slot, CS_NONE32 when none */
	uint64_t guest, host, value;
	cs_cause cause;          /* CS_CAUSE_NONE unless the judge found the edit wrong */
	const char *text;        /* what it did; points into the device's trace */
} cs_report_edit;

/* How many edits the text report lists under stage 3 before "and N more". */
enum { CS_REPORT_EDITS_SHOWN = 8 };

typedef struct cs_report {
	cs_arch arch;
	cs_chain overall;               /* the chain of the scenario as a whole */
	size_t nlaunches;
	cs_chain *launches;             /* one per launch, in launch order */
	size_t nfaults;                 /* CS_EV_FAULT records */
	uint64_t counters[16];          /* named by cs_report_counter_name */
	size_t ncounters;
	/* the model assumptions in force (CS_EV_ASSUMPTION details,
	 * each once, in trace order; they point into the device's trace) */
	size_t nassumptions;
	const char **assumptions;
	/* device printf lines, in launch, CTA and thread order */
	size_t noutput;
	cs_report_note *output;
	/* the executor's findings (data races): facts about the kernel, not breaks */
	size_t nfindings;
	cs_report_note *findings;
	/* every forwarding edit, in trace order */
	size_t nedits;
	cs_report_edit *edits;
	bool has_launch;                /* the scenario meant to launch (else 6-9 are n/a) */
} cs_report;

/* Judge the device's trace. Never fails on a well-formed device. */
CS_API cs_report *cs_report_build(const cs_device *dev);
CS_API void cs_report_free(cs_report *r);
CS_API const char *cs_report_counter_name(const cs_report *r, size_t i);

/* Judge a record sequence without a device (unit tests of the rules build one
 * by hand). dev is optional: with it the judge names channels and decodes the
 * pushbuffers a stopped channel never ran ("the launch at method 6 never
 * reached the engine"); without it, channels are "ch<N>". */
typedef struct cs_report_input {
	cs_arch arch;
	const cs_event *events;
	size_t nevents;
	bool no_executor;         /* the device had no executor wired */
	bool client_waits;        /* the guest waits on its own memory (a live client):
				     no wait record is not-observable, not a break */
	const cs_device *dev;     /* optional */
} cs_report_input;
CS_API cs_report *cs_report_judge(const cs_report_input *in);

/* The counter value by name ("entries", "methods", "launches", "ctas",
 * "faults", ...); false when the report has no such counter. */
CS_API bool cs_report_counter(const cs_report *r, const char *name, uint64_t *value);

/* What the writers show beside the chain. */
typedef struct cs_report_expect {
	uint32_t line;
	const char *text;         /* the directive as written */
	bool held;
	const char *detail;       /* what was found when it did not hold ("" when it held) */
} cs_report_expect;

typedef struct cs_report_meta {
	const char *file;         /* the scenario's name, for the header line */
	const cs_report_expect *expects;
	size_t nexpects;
	bool error;               /* the scenario stopped on an error (result "error") */
	const char *error_msg;    /* its located message */
	/* the error's location for the JSON's `error`
	 * object (file, line, col or byte offset); optional */
	const cs_diag *error_diag;
} cs_report_meta;

/* The chain's verdict: "complete" (no break), "broken", "not-observable" (no
 * break, but a stage the backend cannot judge, e.g. code the simulator cannot
 * run) or "error" (bad input). Expectations are judged apart:
 * cs_report_exit_status. */
CS_API const char *cs_report_result(const cs_report *r, const cs_report_meta *meta);
/* The exit status of a run (docs/chain.md): with expectations in the file,
 * 0 when every one held (an expected break that happened passes), else 1;
 * without, 0 complete, 1 broken, 3 not observable; 2 on bad input. */
CS_API int cs_report_exit_status(const cs_report *r, const cs_report_meta *meta);

/* The text table of docs/chain.md (sim/report/text.c). */
CS_API void cs_report_print_text(const cs_report *r, const cs_report_meta *meta, FILE *out);
/* The --json object, pretty printed, NUL-terminated, malloc'd (sim/report/json.c);
 * docs/json.md describes it. r and dev may be NULL when the input failed before
 * a run (meta->error set): the object then carries the error and nulls. */
CS_API char *cs_report_json(const cs_report *r, const cs_device *dev, const cs_report_meta *meta);
/* Chrome/Perfetto trace-event JSON of the device's records: one track per
 * channel and engine, virtual time as ts (sim/report/perfetto.c). malloc'd. */
CS_API char *cs_trace_perfetto_json(const cs_device *dev);
CS_API bool cs_trace_perfetto_write(const cs_device *dev, const char *path, cs_diag *d);

#ifdef __cplusplus
}
#endif

#endif
