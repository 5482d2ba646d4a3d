/* SPDX-License-Identifier: MIT */
#include "chainsim/stage.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	cs_author author;
} stages[CS_STAGE_COUNT + 1] = {
	[CS_STAGE_GUEST_BUILD] = { "guest-build", CS_AUTHOR_GUEST },
	[CS_STAGE_GUEST_SUBMIT] = { "guest-submit", CS_AUTHOR_GUEST },
	[CS_STAGE_HOST_FORWARD] = { "host-forward", CS_AUTHOR_HOST },
	[CS_STAGE_FE_FETCH] = { "fe-fetch", CS_AUTHOR_FRONT_END },
	[CS_STAGE_FE_EXEC] = { "fe-exec", CS_AUTHOR_FRONT_END },
	[CS_STAGE_QMD_INSTALL] = { "qmd-install", CS_AUTHOR_FRONT_END },
	[CS_STAGE_QMD_READ] = { "qmd-read", CS_AUTHOR_ENGINE },
	[CS_STAGE_CTX_LOAD] = { "ctx-load", CS_AUTHOR_ENGINE },
	[CS_STAGE_GR_DISPATCH] = { "gr-dispatch", CS_AUTHOR_ENGINE },
	[CS_STAGE_ENGINE_RELEASE] = { "engine-release", CS_AUTHOR_ENGINE },
	[CS_STAGE_GUEST_WAKE] = { "guest-wake", CS_AUTHOR_HOST },
};

const char *cs_stage_name(cs_stage s)
{
	if (s < CS_STAGE_GUEST_BUILD || s > CS_STAGE_GUEST_WAKE)
		return NULL;
	return stages[s].name;
}

cs_author cs_stage_author(cs_stage s)
{
	if (s < CS_STAGE_GUEST_BUILD || s > CS_STAGE_GUEST_WAKE)
		return CS_AUTHOR_NONE;
	return stages[s].author;
}

const char *cs_stage_status_name(cs_stage_status st)
{
	switch (st) {
	case CS_STAGE_NOT_FIRED: return "not-fired";
	case CS_STAGE_FIRED: return "fired";
	case CS_STAGE_NA: return "n/a";
	case CS_STAGE_NOT_OBSERVABLE: return "not-observable";
	}
	return "?";
}

const char *cs_author_name(cs_author a)
{
	switch (a) {
	case CS_AUTHOR_NONE: return "-";
	case CS_AUTHOR_GUEST: return "guest";
	case CS_AUTHOR_HOST: return "host";
	case CS_AUTHOR_FRONT_END: return "front-end";
	case CS_AUTHOR_ENGINE: return "engine";
	}
	return "?";
}

cs_stage cs_stage_parse(const char *text)
{
	char *end;
	long n = strtol(text, &end, 10);
	if (*text && *end == '\0')
		return (n >= 1 && n <= CS_STAGE_COUNT) ? (cs_stage)n : CS_STAGE_NONE;
	for (int s = 1; s <= CS_STAGE_COUNT; s++)
		if (strcmp(stages[s].name, text) == 0)
			return (cs_stage)s;
	return CS_STAGE_NONE;
}
