/* SPDX-License-Identifier: MIT */
// Every public header of libchainsim compiles as C++, and a C++ program links
// against the library and judges a scenario through it.
#include <cstdio>
#include <cstring>
#include <string>

#include "chainsim/arch.h"
#include "chainsim/cause.h"
#include "chainsim/classdesc.h"
#include "chainsim/device.h"
#include "chainsim/diag.h"
#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/mem.h"
#include "chainsim/ports.h"
#include "chainsim/ptx.h"
#include "chainsim/ptxrun.h"
#include "chainsim/pushbuf.h"
#include "chainsim/registry.h"
#include "chainsim/report.h"
#include "chainsim/rewrite.h"
#include "chainsim/run.h"
#include "chainsim/scenario.h"
#include "chainsim/stage.h"
#include "chainsim/trace.h"

static int failures;

static void expect(bool ok, const char *what)
{
	if (!ok) {
		std::fprintf(stderr, "test_cxx: %s\n", what);
		failures++;
	}
}

int main()
{
	const char *root = std::getenv("CHAINSIM_SOURCE_ROOT");
	std::string path = std::string(root ? root : ".") + "/tests/conformance/complete-hopper-pcas.chain";
	cs_diag d;
	cs_scenario *s = cs_scenario_load(path.c_str(), &d);
	expect(s != nullptr, d.msg);
	if (!s)
		return 1;
	cs_device_config cfg = {};
	cfg.arch = cs_scenario_arch(s);
	cs_device *dev = cs_device_new(&cfg, &d);
	expect(dev != nullptr, "cs_device_new");
	expect(cs_scenario_execute(s, dev, &d), d.msg);
	cs_report *r = cs_report_build(dev);
	expect(r && r->overall.first_break == CS_STAGE_NONE, "the chain is complete");
	expect(std::strcmp(cs_cause_key(CS_CAUSE_PB_UNMAPPED), "pb-unmapped") == 0, "cause table");
	expect(cs_arch_qmd_major(CS_ARCH_HOPPER) == 4, "class table");
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	return failures ? 1 : 0;
}
