/* SPDX-License-Identifier: MIT */
/* Captures at the format's limits, for the loaders' test and benchmark: the
 * image (g_free it), or NULL with d set when the writer refuses a record. */
#ifndef CHAINSIM_TESTS_HW_LIMIT_CAPTURES_H
#define CHAINSIM_TESTS_HW_LIMIT_CAPTURES_H

#include <glib.h>
#include <string.h>

#include "chainsim/capture.h"

/* The read-backs a 16 MiB results file holds: "read 0x200000fff 1 4 01\n" is
 * 25 bytes, with room for the header. */
#define LIMIT_RESULTS_READBACKS (((16u << 20) - 4096) / 25)

static inline uint8_t *limit_finish(cs_capture_writer *w, bool ok, size_t *len)
{
	uint8_t *img = NULL;
	if (ok) {
		const uint8_t *b = cs_capture_writer_finish(w, len);
		img = b ? g_memdup2(b, *len) : NULL;
	}
	cs_capture_writer_free(w);
	return img;
}

static inline cs_capture_writer *limit_writer(cs_diag *d)
{
	cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
	cs_capture_item ch = { .type = CS_CAP_CHANNEL, .channel = 0, .entries = 1024 };
	strcpy(ch.name, "default");
	if (w && !cs_capture_writer_add(w, &ch, d)) {
		cs_capture_writer_free(w);
		return NULL;
	}
	return w;
}

/* nregions 4 KiB regions 8 KiB apart, each followed by a write into it and a
 * read-back of a byte of it: 1 + 3 * nregions records. */
static inline uint8_t *limit_regions_capture(size_t nregions, size_t *len, cs_diag *d)
{
	static const uint8_t byte = 1;
	cs_capture_writer *w = limit_writer(d);
	bool ok = w != NULL;
	for (size_t i = 0; ok && i < nregions; i++) {
		uint64_t va = 0x200000000ull + i * 0x2000;
		cs_capture_item r = { .type = CS_CAP_REGION, .va = va, .host_va = va, .size = 0x1000 };
		cs_capture_item wr = { .type = CS_CAP_WRITE, .va = va + 0x10, .bytes = &byte,
				       .nbytes = 1 };
		cs_capture_item rb = { .type = CS_CAP_READBACK, .va = va + 0x10, .size = 1,
				       .aux = CS_CAP_RB_MEMORY };
		ok = cs_capture_writer_add(w, &r, d) && cs_capture_writer_add(w, &wr, d) &&
		     cs_capture_writer_add(w, &rb, d);
	}
	return w ? limit_finish(w, ok, len) : NULL;
}

/* One region, a submission of no entries (so its results record a run),
 * then n read-backs of one byte. */
static inline uint8_t *limit_readbacks_capture(size_t n, size_t *len, cs_diag *d)
{
	cs_capture_writer *w = limit_writer(d);
	cs_capture_item r = { .type = CS_CAP_REGION, .va = 0x200000000, .host_va = 0x200000000,
			      .size = 0x1000 };
	cs_capture_item submit = { .type = CS_CAP_SUBMIT, .channel = 0 };
	bool ok = w && cs_capture_writer_add(w, &r, d) && cs_capture_writer_add(w, &submit, d);
	for (size_t i = 0; ok && i < n; i++) {
		cs_capture_item rb = { .type = CS_CAP_READBACK, .va = 0x200000000 + i % 0x1000,
				       .size = 1, .aux = CS_CAP_RB_MEMORY };
		ok = cs_capture_writer_add(w, &rb, d);
	}
	return w ? limit_finish(w, ok, len) : NULL;
}

#endif
