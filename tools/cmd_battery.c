/* chainsim battery [--arch A] [--dir DIR] [--only LABEL] [--verbose]
 * The acceptance battery (tools/battery/): one line per client and a verdict. */
#include <stdio.h>
#include <string.h>

#include "battery/battery.h"
#include "commands.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: chainsim battery [--arch ampere|ada|hopper|blackwell] [--dir DIR]\n"
		   "                        [--only LABEL] [--verbose]\n"
		   "Runs the acceptance clients (VADD, MATMUL, ATTN, FFN4) through the whole\n"
		   "launch chain on the simulator and checks each result against a CPU\n"
		   "reference. Prints one line per client and STATUS OK or STATUS FAIL.\n"
		   "  --arch A     the generation to run on (default hopper)\n"
		   "  --dir DIR    the scenarios (default: fixtures/battery of the source tree)\n"
		   "  --only L     run only the client whose label starts with L (e.g. MATMUL)\n"
		   "  --verbose    tolerances and worst errors on stderr\n"
		   "Exit: 0 all clients passed, 1 a client failed, 2 usage.\n");
	return rc;
}

int cs_cmd_battery(int argc, char **argv)
{
	cs_battery_opts o = { .arch = CS_ARCH_HOPPER };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return usage(stdout, CS_EXIT_OK);
		if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
			o.verbose = true;
			continue;
		}
		const char *opts[] = { "--arch", "--dir", "--only" };
		size_t which = 3;
		for (size_t k = 0; k < 3; k++) {
			size_t n = strlen(opts[k]);
			if (!strncmp(a, opts[k], n) && (a[n] == '=' || a[n] == 0)) {
				which = k;
				if (a[n] == '=')
					val = a + n + 1;
				else if (i + 1 < argc)
					val = argv[++i];
				break;
			}
		}
		if (which == 3 || !val) {
			fprintf(stderr, "chainsim battery: %s '%s'\n",
				which == 3 ? "unknown option" : "missing value for", a);
			return usage(stderr, CS_EXIT_INPUT);
		}
		if (which == 0 && !cs_arch_from_name(val, &o.arch)) {
			fprintf(stderr, "chainsim battery: unknown arch '%s' (ampere, ada, hopper, "
					"blackwell)\n", val);
			return CS_EXIT_INPUT;
		}
		if (which == 1)
			o.dir = val;
		if (which == 2)
			o.only = val;
	}
	int rc = cs_battery_run(&o, stdout, stderr);
	return rc == 0 ? CS_EXIT_OK : rc == 1 ? CS_EXIT_BROKEN : CS_EXIT_INPUT;
}
