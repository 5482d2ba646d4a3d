/* SPDX-License-Identifier: MIT */
/* The eleven-stage launch chain (docs/chain.md). Names and numbers are a contract. */
#ifndef CHAINSIM_STAGE_H
#define CHAINSIM_STAGE_H

#include "chainsim/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_stage {
	CS_STAGE_NONE = 0,
	CS_STAGE_GUEST_BUILD = 1,
	CS_STAGE_GUEST_SUBMIT = 2,
	CS_STAGE_HOST_FORWARD = 3,
	CS_STAGE_FE_FETCH = 4,
	CS_STAGE_FE_EXEC = 5,
	CS_STAGE_QMD_INSTALL = 6,
	CS_STAGE_QMD_READ = 7,
	CS_STAGE_CTX_LOAD = 8,
	CS_STAGE_GR_DISPATCH = 9,
	CS_STAGE_ENGINE_RELEASE = 10,
	CS_STAGE_GUEST_WAKE = 11,
} cs_stage;

enum { CS_STAGE_COUNT = 11 };

typedef enum cs_stage_status {
	CS_STAGE_NOT_FIRED = 0, /* the default: silence is not health */
	CS_STAGE_FIRED,
	CS_STAGE_NA,             /* no launch, so 6-9 do not apply */
	CS_STAGE_NOT_OBSERVABLE, /* the backend cannot see it */
} cs_stage_status;

/* Who acts at a stage (also the author of trace events). */
typedef enum cs_author {
	CS_AUTHOR_NONE = 0,
	CS_AUTHOR_GUEST,
	CS_AUTHOR_HOST,
	CS_AUTHOR_FRONT_END,
	CS_AUTHOR_ENGINE,
} cs_author;

CS_API const char *cs_stage_name(cs_stage s);          /* "fe-fetch"; NULL when out of range */
CS_API cs_author cs_stage_author(cs_stage s);          /* the table's author column */
/* "fired", "not-fired", "n/a", "not-observable" */
CS_API const char *cs_stage_status_name(cs_stage_status st);
/* "guest", "host", "front-end", "engine", "-" */
CS_API const char *cs_author_name(cs_author a);
/* Parse a stage name or number ("5", "fe-exec"); CS_STAGE_NONE when neither. */
CS_API cs_stage cs_stage_parse(const char *text);

#ifdef __cplusplus
}
#endif

#endif
