/* SPDX-License-Identifier: MIT */
/* libFuzzer: a scenario executed end to end (parse, device, execute, judge,
 * JSON), not only parsed. The seeds' `module` and `load` lines read the
 * fixtures through the real readers, and their kernels attach and run PTX.
 * The trace and the run budget
 * are set small to keep each input fast; they bound, they do not hide. Paths
 * resolve from tests/conformance, as in the corpus (../../fixtures/...). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_parse((const char *)data, size, "fuzz.chain",
					   CS_FUZZ_ROOT "/tests/conformance", &d);
	if (!s)
		return 0;
	cs_device_config cfg = { .arch = cs_scenario_arch(s), .trace_max_records = 1u << 16,
				 .run_budget = 1u << 12 };
	cs_device *dev = cs_device_new(&cfg, &d);
	if (dev) {
		cs_diag_clear(&d);
		bool ok = cs_scenario_execute(s, dev, &d);
		cs_report *r = cs_report_build(dev);
		if (r) {
			cs_report_meta meta = { .file = "fuzz.chain", .error = !ok };
			char *json = cs_report_json(r, dev, &meta);
			free(json);
			cs_report_free(r);
		}
		cs_device_free(dev);
	}
	cs_scenario_free(s);
	return 0;
}
