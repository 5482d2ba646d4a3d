/* SPDX-License-Identifier: MIT */
/* Why a stage did not fire: a closed set of causes, one row each in
 * cause.def. Records carry the id (cs_event.cause); the judge, the writers and
 * the documents read the table. */
#ifndef CHAINSIM_CAUSE_H
#define CHAINSIM_CAUSE_H

#include "chainsim/api.h"

#include "chainsim/stage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_cause {
	CS_CAUSE_NONE = 0,
#define X(id, key, first, last, meaning) CS_CAUSE_##id,
#include "chainsim/cause.def"
#undef X
	CS_CAUSE_COUNT
} cs_cause;

CS_API const char *cs_cause_key(cs_cause c);     /* "pb-unmapped"; "" for NONE or out of range */
CS_API const char *cs_cause_meaning(cs_cause c); /* its one-line meaning */
/* The stages at which the cause can be the break. */
CS_API cs_stage cs_cause_first_stage(cs_cause c);
CS_API cs_stage cs_cause_last_stage(cs_cause c);
/* By key; CS_CAUSE_NONE when no row has it. */
CS_API cs_cause cs_cause_parse(const char *key);

#ifdef __cplusplus
}
#endif

#endif
