/* SPDX-License-Identifier: MIT */
/* Mutations of scenario text for the fuzz-style tests (fixed seed). */
#ifndef CHAINSIM_TESTS_SCENARIO_MUTATE_H
#define CHAINSIM_TESTS_SCENARIO_MUTATE_H

#include <glib.h>
#include <stdbool.h>

#include "chainsim/scenario.h"

static const char interesting[] = " \t\n#=,.()+-<>|&@\"0123456789xXfabclohimuv_:";
static const char *const tokens[] = { "0", "1", "-1", "0xffffffff", "0xffffffffffffffff",
				      "4096", "lo(", ")", "@q", "f32:", "buf", "pb", "end\n",
				      "push x\n", "inc", "==", "u64", "q.k", "99999999999999999999" };

/* 1..4 edits: delete, insert or replace a character, insert a token (when
 * tokens is true), delete or duplicate a line, truncate. */
static char *scn_mutate(uint64_t *st, const char *src, bool tokens_too)
{
	GString *g = g_string_new(src);
	unsigned edits = 1 + (unsigned)(cs_scenario_rand_next(st) % 4);
	for (unsigned e = 0; e < edits && g->len; e++) {
		size_t at = (size_t)(cs_scenario_rand_next(st) % g->len);
		unsigned op = (unsigned)(cs_scenario_rand_next(st) % 7);
		if (op == 3 && !tokens_too)
			op = 1;
		switch (op) {
		case 0:
			g_string_erase(g, (gssize)at, 1);
			break;
		case 1:
			g_string_insert_c(g, (gssize)at,
					  interesting[cs_scenario_rand_next(st) % (sizeof(interesting) - 1)]);
			break;
		case 2:
			g->str[at] = interesting[cs_scenario_rand_next(st) % (sizeof(interesting) - 1)];
			break;
		case 3:
			g_string_insert(g, (gssize)at,
					tokens[cs_scenario_rand_next(st) % (sizeof(tokens) / sizeof(tokens[0]))]);
			break;
		case 4: { /* delete a line */
			size_t s = at;
			while (s > 0 && g->str[s - 1] != '\n')
				s--;
			size_t t = at;
			while (t < g->len && g->str[t] != '\n')
				t++;
			g_string_erase(g, (gssize)s, (gssize)(t - s + (t < g->len)));
			break;
		}
		case 5: { /* duplicate a line */
			size_t s = at;
			while (s > 0 && g->str[s - 1] != '\n')
				s--;
			size_t t = at;
			while (t < g->len && g->str[t] != '\n')
				t++;
			char *line = g_strndup(g->str + s, t - s + (t < g->len));
			g_string_insert(g, (gssize)s, line);
			g_free(line);
			break;
		}
		default:
			g_string_truncate(g, at);
			break;
		}
	}
	return g_string_free(g, FALSE);
}

#endif
