/* SPDX-License-Identifier: MIT */
/* The generated stream that reduce's acceptance test and benchmark shrink:
 * ten pushbuffers of 1,000 methods each (10,000 in all: host NOPs and
 * SET_REFERENCEs, chosen by a fixed-seed generator), one GPFIFO entry and
 * submit each, twenty data lines, a vadd launch in the last pushbuffer and a
 * wait for it. The one culprit, method 113 of pushbuffer 6, is a SEM_EXECUTE
 * release with no semaphore address set: it faults, the channel stops, and
 * the launch never reaches the engine (stage 5, earlier-fault). */
#ifndef CHAINSIM_TESTS_REDUCE_STREAM_H
#define CHAINSIM_TESTS_REDUCE_STREAM_H

#include <glib.h>
#include <stdint.h>

enum { REDUCE_STREAM_METHODS = 10000, REDUCE_STREAM_BLOCKS = 10 };

/* The scenario text (g_free); fatbin is the vadd module's path. */
static inline char *reduce_stream_text(const char *fatbin)
{
	GString *s = g_string_new("arch hopper\n");
	g_string_append_printf(s, "module m %s\n", fatbin);
	g_string_append(s, "alloc a 256\nalloc b 256\nalloc c 256\nalloc scratch 4096\n");
	for (int i = 0; i < 20; i++)
		g_string_append_printf(s, "data scratch+%d u32 %d\n", i * 4, i);
	uint64_t state = 12;
	const int per_block = REDUCE_STREAM_METHODS / REDUCE_STREAM_BLOCKS;
	for (int blk = 0; blk < REDUCE_STREAM_BLOCKS; blk++) {
		g_string_append_printf(s, "push p%d\n", blk);
		for (int j = 0; j < per_block; j++) {
			state = state * 6364136223846793005ull + 1442695040888963407ull;
			if (blk == 6 && j == 113)
				g_string_append(s, "  inc 0 SEM_EXECUTE 1\n");
			else if ((state >> 33) % 2)
				g_string_append(s, "  inc 0 NOP 0\n");
			else
				g_string_append_printf(s, "  inc 0 SET_REFERENCE %d\n", j);
		}
		if (blk == REDUCE_STREAM_BLOCKS - 1)
			g_string_append(s, "  launch m.vadd grid=1 block=32 args=a,b,c,4 name=L\n");
		g_string_append(s, "end\n");
	}
	for (int blk = 0; blk < REDUCE_STREAM_BLOCKS; blk++)
		g_string_append_printf(s, "gpfifo p%d\nsubmit\n", blk);
	g_string_append(s, "wait L.sem == 1\n");
	return g_string_free(s, FALSE);
}

#endif
