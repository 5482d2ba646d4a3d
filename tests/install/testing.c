/* SPDX-License-Identifier: MIT */
/* include/chainsim/testing.h as a user's test suite uses it. Suite `positive`
 * must pass; every test of suite `negative` must fail, and testing.sh checks
 * that each failure message carries the chain's diagnosis. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include <chainsim/rewrite.h>
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

static char *example(const char *name)
{
	static char path[4096];
	snprintf(path, sizeof(path), "%s/examples/forwarding/%s", getenv("CHAINSIM_SOURCE_ROOT"),
		 name);
	return path;
}

/* The forwarding hook under test, in C: it hands every entry to the rewrite
 * library, which relocates what the class and QMD tables name. */
static bool relocate_all(void *rw, cs_forward *fw, uint32_t lo, uint32_t hi, cs_diag *d)
{
	return cs_rewrite_forward(rw, fw, lo, hi, d);
}

Test(positive, a_forwarding_hook_in_c_and_the_scenarios_names)
{
	cs_diag d;
	cs_scenario *s = cs_scenario_load(example("prelude.chain"), &d);
	cr_assert_not_null(s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev, "%s", d.msg);
	cr_assert(cs_device_map_host(dev, 0x200000000, 0x5000000000, 0x100000, &d), "%s", d.msg);
	cs_rewrite *rw = cs_rewrite_new();
	cs_rewrite_relocate(rw, true);
	cs_device_set_forward(dev, relocate_all, rw);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);
	cr_assert(cs_rewrite_check(rw, NULL, &d), "%s", d.msg);

	cs_test_run run = cs_test_judge(dev);
	cs_assert_complete(&run);
	static const uint32_t words[] = { 7, 8, 9 };
	cs_assert_mem_named_eq(&run, "table", 0, words, sizeof(words));
	cs_test_run_free(&run);
	cs_rewrite_free(rw);
	cs_device_free(dev);
	cs_scenario_free(s);
}

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
