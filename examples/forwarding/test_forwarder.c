/* SPDX-License-Identifier: MIT */
/* The forwarder's own tests, built against the installed libchainsim through
 * pkg-config (examples/forwarding/check.sh) the way a forwarding layer's
 * authors would build theirs. Usage: test_forwarder SCENARIO. */
#include <stdio.h>
#include <string.h>

#include <chainsim/report.h>
#include <chainsim/scenario.h>

#include "forwarder.h"

#define GUEST 0x200000000ull  /* where chainsim places the guest's allocations */
#define HOST 0x5000000000ull  /* where this host sees them */
#define SIZE 0x100000ull

static int failures;

#define CHECK(cond, ...)                                                            \
	do {                                                                        \
		if (!(cond)) {                                                      \
			printf("  FAILED %s:%d: ", __FILE__, __LINE__);             \
			printf(__VA_ARGS__);                                        \
			printf("\n");                                               \
			failures++;                                                 \
		}                                                                   \
	} while (0)

/* Run the scenario through a forwarder; the report and the device come back. */
static cs_report *run(const char *path, bool forget_i2m, forwarder **fo, cs_scenario **so,
		      cs_device **dev_out)
{
	cs_diag d;
	cs_scenario *s = cs_scenario_load(path, &d);
	if (!s) {
		printf("  %s\n", d.msg);
		return NULL;
	}
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	forwarder *f = forwarder_new(forget_i2m);
	if (!dev || !f || !forwarder_attach(f, dev, GUEST, HOST, SIZE, &d) ||
	    !cs_scenario_execute(s, dev, &d) || !forwarder_check(f, &d)) {
		printf("  %s\n", d.msg);
		return NULL;
	}
	*fo = f;
	*so = s;
	*dev_out = dev;
	return cs_report_build(dev);
}

static void done(cs_report *r, forwarder *f, cs_scenario *s, cs_device *dev)
{
	cs_report_free(r);
	forwarder_free(f);
	cs_device_free(dev);
	cs_scenario_free(s);
}

static void test_relocated_prelude_completes(const char *path)
{
	printf("relocated prelude completes\n");
	forwarder *f;
	cs_scenario *s;
	cs_device *dev;
	cs_report *r = run(path, false, &f, &s, &dev);
	CHECK(r != NULL, "the run did not start");
	if (!r)
		return;
	CHECK(r->overall.first_break == CS_STAGE_NONE, "break at stage %d: %s",
	      (int)r->overall.first_break, r->overall.diagnosis);
	for (size_t i = 0; i < cs_scenario_expect_count(s); i++) {
		const cs_expect_outcome *o = cs_scenario_expect(s, i);
		CHECK(o->held, "line %u: %s: %s", o->line, o->text, o->detail);
	}
	CHECK(forwarder_guest_entries(f) == 1 && forwarder_host_entries(f) == 1,
	      "entries: guest %u, host %u", forwarder_guest_entries(f), forwarder_host_entries(f));
	done(r, f, s, dev);
}

static void test_forgotten_i2m_is_named(const char *path)
{
	printf("a forgotten inline-to-memory target is named\n");
	forwarder *f;
	cs_scenario *s;
	cs_device *dev;
	cs_report *r = run(path, true, &f, &s, &dev);
	CHECK(r != NULL, "the run did not start");
	if (!r)
		return;
	CHECK(r->overall.first_break == CS_STAGE_FE_EXEC, "break at stage %d",
	      (int)r->overall.first_break);
	CHECK(r->overall.cause == CS_CAUSE_FORWARD_UNRELOCATED, "cause %s",
	      cs_cause_key(r->overall.cause));
	CHECK(strstr(r->overall.diagnosis, "inline-to-memory write at guest") != NULL, "%s",
	      r->overall.diagnosis);
	done(r, f, s, dev);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_forwarder SCENARIO\n");
		return 2;
	}
	test_relocated_prelude_completes(argv[1]);
	test_forgotten_i2m_is_named(argv[1]);
	printf("%s: %d failed\n", failures ? "FAILED" : "ok", failures);
	return failures ? 1 : 0;
}
