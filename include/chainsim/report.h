/* The chain judged from the trace: eleven stages per launch and overall, the
 * first break with its diagnosis (sim/report.c). Text, JSON and Perfetto
 * writers read only this and the trace. */
#ifndef CHAINSIM_REPORT_H
#define CHAINSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "chainsim/device.h"
#include "chainsim/stage.h"

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
	char cause[64];                 /* a stable key for the break's rule, e.g. "pb-unmapped" */
	char diagnosis[CS_DIAGNOSIS_MAX];
} cs_chain;

typedef struct cs_report {
	cs_arch arch;
	cs_chain overall;               /* the chain of the scenario as a whole */
	size_t nlaunches;
	cs_chain *launches;             /* one per launch, in launch order */
	size_t nfaults;                 /* CS_EV_FAULT records */
	uint64_t counters[16];          /* named by cs_report_counter_name */
	size_t ncounters;
} cs_report;

/* Judge the device's trace. Never fails on a well-formed device. */
cs_report *cs_report_build(const cs_device *dev);
void cs_report_free(cs_report *r);
const char *cs_report_counter_name(const cs_report *r, size_t i);

#endif
