/* SPDX-License-Identifier: MIT */
/* One run of a scenario with the executor's options (include/chainsim/run.h). */
#include "chainsim/run.h"
#include "chainsim/ptxrun.h"

#include <string.h>

cs_device *cs_run_device(cs_arch arch, const cs_run_opts *o, cs_diag *d)
{
	static const cs_run_opts defaults = { 0 };
	if (!o)
		o = &defaults;
	cs_device_config cfg = { .arch = arch,
				 .trace_level = o->trace_methods ? CS_TRACE_ALL : CS_TRACE_CHAIN,
				 .no_executor = o->no_exec };
	cs_device *dev = cs_device_new(&cfg, d);
	if (!dev)
		return NULL;
	cs_ptx_runtime *rt = cs_device_ptx(dev);
	static const cs_ptx_races races[] = {
		[CS_RUN_RACES_SHARED] = CS_PTX_RACES_REPORT,
		[CS_RUN_RACES_GLOBAL] = CS_PTX_RACES_REPORT,
		[CS_RUN_RACES_ERROR] = CS_PTX_RACES_ERROR,
		[CS_RUN_RACES_OFF] = CS_PTX_RACES_OFF,
	};
	cs_ptx_runtime_set_approx(rt, o->approx);
	cs_ptx_runtime_set_races(rt, races[o->races], o->races == CS_RUN_RACES_GLOBAL);
	cs_ptx_runtime_set_schedule(rt, o->schedule, o->schedule_seed);
	cs_ptx_runtime_set_threads(rt, o->threads);
	cs_ptx_runtime_set_budget(rt, o->budget_instructions, o->budget_ns);
	return dev;
}

bool cs_run_scenario(cs_scenario *s, const cs_run_opts *o, cs_run_judge judge, cs_run *r,
		     cs_diag *d)
{
	memset(r, 0, sizeof(*r));
	r->dev = cs_run_device(cs_scenario_arch(s), o, d);
	if (!r->dev)
		return false;
	cs_diag_clear(d);
	r->executed = cs_scenario_execute(s, r->dev, d);
	bool whole = r->executed && (judge != CS_RUN_JUDGE_WHOLE || cs_device_trace_ok(r->dev, d));
	if (judge == CS_RUN_JUDGE_ALWAYS || (judge == CS_RUN_JUDGE_WHOLE && whole))
		r->report = cs_report_build(r->dev);
	return whole;
}

void cs_run_clear(cs_run *r)
{
	cs_report_free(r->report);
	cs_device_free(r->dev);
	memset(r, 0, sizeof(*r));
}
