/* SPDX-License-Identifier: MIT */
/* include/chainsim/testing.h as a user's test suite uses it. Suite `positive`
 * must pass; every test of suite `negative` must fail, and testing.sh checks
 * that each failure message carries the chain's diagnosis. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include <chainsim/testing.h>

static char *corpus(const char *name)
{
	const char *src = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(src, "set CHAINSIM_SOURCE_ROOT to the source tree");
	static char path[4096];
	snprintf(path, sizeof(path), "%s/tests/conformance/%s", src, name);
	return path;
}

static const float sums[] = { 11, 22, 33, 44 };

Test(positive, a_complete_chain_and_its_results)
{
	cs_test_run run = cs_test_run_file(corpus("complete-hopper-pcas.chain"));
	cs_assert_complete(&run);
	cs_assert_mem_named_eq(&run, "c", 0, sums, sizeof(sums));
	uint64_t va, size;
	cr_assert(cs_scenario_symbol(run.scenario, "c", &va, &size));
	cs_expect_mem_eq(&run, va + 4, &sums[1], sizeof(float));
	cs_test_run_free(&run);
}

Test(positive, a_break_with_its_stage_and_cause)
{
	cs_test_run run = cs_test_run_file(corpus("earlier-fault.chain"));
	cs_assert_break(&run, 5, "earlier-fault");
	cs_expect_break(&run, 5, NULL);
	cs_test_run_free(&run);
}

Test(positive, a_device_the_test_drove_itself)
{
	cs_device_config cfg = { .arch = CS_ARCH_HOPPER };
	cs_diag d;
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev, "%s", d.msg);
	cs_device_finish(dev);
	cs_test_run run = cs_test_judge(dev);
	cs_assert_break(&run, 1, "no-build");
	cs_test_run_free(&run);
	cs_device_free(dev);
}

Test(positive, scenario_text_in_the_test)
{
	cs_test_run run = cs_test_run_text("arch hopper\nalloc sem 16\npush pb\n  release sem 1\n"
					   "end\ngpfifo pb\nsubmit\nwait sem == 1\n",
					   "inline.chain", ".");
	cs_assert_complete(&run);
	const uint32_t one = 1;
	cs_assert_mem_named_eq(&run, "sem", 0, &one, sizeof(one));
	cs_test_run_free(&run);
}

/* ---- each of these fails, with the diagnosis in its message (cs_expect_*: the
 * test goes on and frees its run, so a leak checker sees nothing left) ---- */

Test(negative, complete_on_a_broken_chain)
{
	cs_test_run run = cs_test_run_file(corpus("earlier-fault.chain"));
	cs_expect_complete(&run);
	cs_test_run_free(&run);
}

Test(negative, break_on_a_complete_chain)
{
	cs_test_run run = cs_test_run_file(corpus("complete-hopper-pcas.chain"));
	cs_expect_break(&run, 7, "no-schedule");
	cs_test_run_free(&run);
}

Test(negative, break_with_another_cause)
{
	cs_test_run run = cs_test_run_file(corpus("no-schedule.chain"));
	cs_expect_break(&run, 7, "qmd-rejected");
	cs_test_run_free(&run);
}

Test(negative, memory_that_differs)
{
	static const float wrong[] = { 11, 22, 34, 44 };
	cs_test_run run = cs_test_run_file(corpus("complete-hopper-pcas.chain"));
	cs_expect_mem_named_eq(&run, "c", 0, wrong, sizeof(wrong));
	cs_test_run_free(&run);
}

Test(negative, a_scenario_that_does_not_parse)
{
	cs_test_run run = cs_test_run_text("arch hopper\nalloc a 16\ndata a u32 zz\n", "bad.chain",
					   ".");
	cs_assert_complete(&run); /* the fatal form: a run that never parsed holds nothing */
	cs_test_run_free(&run);
}
