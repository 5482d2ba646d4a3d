/* SPDX-License-Identifier: MIT */
/* chainsim-hw-fake: chainsim-hw's command line, replay and real RM layer over
 * the fake driver (tests; not installed). Options for the fake come first:
 *   --fake-absent          /dev/nvidiactl is not there (exit 3)
 *   --fake-hang            the GPU never runs (waits time out; signals)
 *   --fake-fail-alloc N    the Nth RM allocation fails (cleanup on error)
 *   --fake-driver-version V  the version query answers V (exit 3 unless 580.x)
 * The fake prints what is still allocated, mapped or open when the replay
 * closes it (after a signal too); this exits 4 when anything is, or when the
 * driver refused a request the layer made. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_rm.h"
#include "hw.h"

int main(int argc, char **argv)
{
	cs_fake_rm_config cfg = { 0 };
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--fake-absent"))
			cfg.absent = true;
		else if (!strcmp(argv[i], "--fake-hang"))
			cfg.hang = true;
		else if (!strcmp(argv[i], "--fake-fail-alloc") && i + 1 < argc)
			cfg.fail_alloc = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--fake-driver-version") && i + 1 < argc)
			cfg.driver_version = argv[++i];
		else
			break;
	}
	cs_fake_rm *f = cs_fake_rm_new(&cfg);
	if (!f)
		return CS_HW_EXIT_INTERNAL;
	argv[i - 1] = argv[0];
	int rc = cs_hw_main(argc - i + 1, argv + i - 1, &cs_fake_rm_ops, f);
	bool clean = cs_fake_rm_live(f) == 0 && cs_fake_rm_refusals(f) == 0;
	cs_fake_rm_free(f);
	return clean ? rc : CS_HW_EXIT_INTERNAL;
}
