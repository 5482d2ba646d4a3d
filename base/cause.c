/* SPDX-License-Identifier: MIT */
/* The cause table's accessors (include/chainsim/cause.def). */
#include "chainsim/cause.h"

#include <stddef.h>
#include <string.h>

typedef struct cause_row {
	const char *key;
	cs_stage first, last;
	const char *meaning;
} cause_row;

static const cause_row rows[CS_CAUSE_COUNT] = {
#define X(id, k, f, l, m) [CS_CAUSE_##id] = { k, (cs_stage)(f), (cs_stage)(l), m },
#include "chainsim/cause.def"
#undef X
};

static const cause_row *row(cs_cause c)
{
	return c > CS_CAUSE_NONE && c < CS_CAUSE_COUNT ? &rows[c] : NULL;
}

const char *cs_cause_key(cs_cause c)
{
	return row(c) ? row(c)->key : "";
}

const char *cs_cause_meaning(cs_cause c)
{
	return row(c) ? row(c)->meaning : NULL;
}

cs_stage cs_cause_first_stage(cs_cause c)
{
	return row(c) ? row(c)->first : CS_STAGE_NONE;
}

cs_stage cs_cause_last_stage(cs_cause c)
{
	return row(c) ? row(c)->last : CS_STAGE_NONE;
}

cs_cause cs_cause_parse(const char *key)
{
	for (int c = CS_CAUSE_NONE + 1; key && c < CS_CAUSE_COUNT; c++)
		if (strcmp(rows[c].key, key) == 0)
			return (cs_cause)c;
	return CS_CAUSE_NONE;
}
