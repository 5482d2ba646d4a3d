/* chainsim-hw-fake: chainsim-hw's command line and replay over the fake RM
 * (tests; not installed). Options for the fake come first:
 *   --fake-absent      the device is not there (exit 3)
 *   --fake-hang        the GPU never runs (waits time out; signals)
 *   --fake-fail-alloc N  the Nth RM allocation fails (cleanup on error)
 * The fake prints the objects still allocated when the replay closes it
 * (after a signal too); this exits 4 when any are. */
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
		else
			break;
	}
	cs_fake_rm *f = cs_fake_rm_new(&cfg);
	if (!f)
		return CS_HW_EXIT_INTERNAL;
	argv[i - 1] = argv[0];
	int rc = cs_hw_main(argc - i + 1, argv + i - 1, &cs_fake_rm_ops, f);
	size_t live = cs_fake_rm_live(f);
	cs_fake_rm_free(f);
	return live ? CS_HW_EXIT_INTERNAL : rc;
}
