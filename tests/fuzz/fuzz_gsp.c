/* SPDX-License-Identifier: MIT */
/* libFuzzer: GSP debugger scripts (runs, steps, breakpoints, snapshots, calls,
 * message queues) against the fixture firmware, one command per line, with a
 * short wall-clock guard so that every run ends. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/gsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_image *img = NULL;
	cs_gsp_map map;
	if (cs_gsp_map_load(CS_FUZZ_ROOT "/fixtures/firmware/gsp-fixture.map", &map, &d) != CS_OK ||
	    cs_gsp_image_load(CS_FUZZ_ROOT "/fixtures/firmware/gsp-fixture.elf", 0x80000000u, &img,
			      &d) != CS_OK)
		abort(); /* the fixtures are part of the build */
	cs_gsp *m = NULL;
	if (cs_gsp_create(&map, img, &m, &d) != CS_OK) {
		cs_gsp_image_free(img);
		return 0;
	}
	cs_gsp_set_guard_ms(m, 20);
	cs_gsp_dbg_set_batch(m, true);
	FILE *out = fopen("/dev/null", "w");
	char *text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	int lines = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && lines < 64;
	     l = strtok_r(NULL, "\n", &save), lines++) {
		cs_diag_clear(&d);
		if (!strncmp(l, "quit", 4))
			break;
		cs_gsp_dbg_exec(m, l, out, &d);
	}
	free(text);
	fclose(out);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	return 0;
}
