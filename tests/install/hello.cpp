/* SPDX-License-Identifier: MIT */
// Built against the installed library through pkg-config (C++).
#include <cstdio>
#include <cstring>

#include <chainsim/cause.h>
#include <chainsim/device.h>
#include <chainsim/report.h>
#include <chainsim/scenario.h>

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	cs_diag d;
	cs_scenario *s = cs_scenario_load(argv[1], &d);
	if (!s) {
		fprintf(stderr, "%s\n", d.msg);
		return 1;
	}
	cs_device_config cfg = {};
	cfg.arch = cs_scenario_arch(s);
	cs_device *dev = cs_device_new(&cfg, &d);
	int rc = dev && cs_scenario_execute(s, dev, &d) ? 0 : 1;
	cs_report *r = rc == 0 ? cs_report_build(dev) : nullptr;
	if (!r || r->overall.first_break != CS_STAGE_NONE ||
	    strcmp(cs_cause_key(CS_CAUSE_DEADLOCK), "deadlock") != 0)
		rc = 1;
	printf("hello: %s\n", rc ? "FAILED" : "complete");
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	return rc;
}
