/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a hostile live client (include/chainsim/live.h). The
 * input is a program of one-byte ops with operands over a fixed layout: an
 * arena of client memory (the input's tail is its first bytes: ring entries,
 * pushbuffers, QMDs, cbanks, whatever the bytes say), a second mapping that
 * comes and goes, channels made and rung with any GP_PUT. ASan and the
 * arena's own size bound every access the device makes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/live.h"

#define ARENA_VA 0x10000000ull
#define ARENA_BYTES (16u * 4096u)
#define EXTRA_VA 0x20000000ull
#define EXTRA_BYTES (2u * 4096u)

typedef struct reader {
	const uint8_t *p;
	size_t n;
} reader;

static uint64_t take(reader *r, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes && r->n; i++, r->p++, r->n--)
		v |= (uint64_t)*r->p << (8 * i);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cs_diag d;
	cs_live_config cfg = { .arch = (cs_arch)(size ? data[0] % CS_ARCH_COUNT : 0),
			       .trace_window = 256, .launch_instructions = 1u << 16,
			       .launch_wall_ns = 50000000ull, .threads = 1 };
	cs_live *lv = cs_live_new(&cfg, &d);
	if (!lv)
		return 0;
	uint8_t *arena = aligned_alloc(4096, ARENA_BYTES);
	uint8_t *extra = aligned_alloc(4096, EXTRA_BYTES);
	if (!arena || !extra)
		abort();
	memset(arena, 0, ARENA_BYTES);
	memset(extra, 0, EXTRA_BYTES);
	/* the program is the first half, the arena's first bytes the second */
	size_t prog = size / 2;
	memcpy(arena, data + prog, size - prog < ARENA_BYTES ? size - prog : ARENA_BYTES);
	cs_live_map(lv, arena, ARENA_BYTES, ARENA_VA, "arena", &d);
	bool extra_mapped = false;
	reader r = { data + (size ? 1 : 0), prog ? prog - 1 : 0 };
	for (unsigned steps = 0; r.n && steps < 64; steps++) {
		switch (take(&r, 1) % 7) {
		case 0: { /* a channel: ring and USERD offsets in the arena (or anywhere) */
			uint64_t ring = ARENA_VA + take(&r, 2) * 8u;
			uint64_t userd = take(&r, 1) & 1 ? take(&r, 5) : ARENA_VA + take(&r, 2) * 4u;
			uint32_t entries = 1u << (take(&r, 1) % 12);
			uint32_t ch;
			cs_live_channel_new(lv, ring, entries, userd, (uint32_t)take(&r, 1) % 4, &ch, &d);
			break;
		}
		case 1: { /* GP_PUT written into a channel's USERD (when in the arena), then the doorbell */
			uint32_t token = (uint32_t)take(&r, 1) % 5;
			uint32_t n = cs_live_channel_count(lv);
			cs_live_channel_state st;
			uint32_t put = (uint32_t)take(&r, 2);
			for (uint32_t i = 0; i < n; i++)
				if (cs_live_channel_get(lv, i, &st) && st.token == token &&
				    st.userd_va - ARENA_VA + 0x90 <= ARENA_BYTES)
					memcpy(arena + (st.userd_va - ARENA_VA) + CS_USERD_GP_PUT, &put, 4);
			cs_live_doorbell(lv, token, &d);
			break;
		}
		case 2:
			cs_live_run(lv, take(&r, 1));
			break;
		case 3:
			if (extra_mapped)
				extra_mapped = !cs_live_unmap(lv, EXTRA_VA, EXTRA_BYTES, &d);
			else
				extra_mapped = cs_live_map(lv, extra, EXTRA_BYTES, EXTRA_VA, "extra", &d);
			break;
		case 4: { /* the client writes its own memory between runs */
			uint32_t off = (uint32_t)take(&r, 2) % (ARENA_BYTES - 8);
			uint64_t v = take(&r, 8);
			memcpy(arena + off, &v, 8);
			break;
		}
		case 5: {
			cs_live_verdict v;
			cs_live_verdict_get(lv, &v, &d);
			free(cs_live_report_text(lv, &d));
			break;
		}
		default: {
			cs_live_verdict v;
			cs_live_wait(lv, ARENA_VA + (take(&r, 2) & ~7u), take(&r, 8), take(&r, 1) & 1, &v);
			break;
		}
		}
		(void)cs_live_busy(lv);
	}
	cs_live_counters k;
	cs_live_counters_get(lv, &k);
	cs_live_free(lv);
	free(arena);
	free(extra);
	return 0;
}
