/* SPDX-License-Identifier: MIT */
/* chainsim-hw's replay (hw/replay.c) and real RM layer (hw/rm_nv.c) over the
 * fake driver and GPU (hwfake/), which check every request: every corpus
 * scenario with a submission goes scenario -> capture -> fake-RM replay, and
 * its results equal the simulator's replay of the same capture (`chainsim
 * run FILE.cap --results`), GP_GET aside where the generation hides it. Every
 * RM object is released on every path, a failing allocation included. */
#include "common.h"

#include <dirent.h>

#include "chainsim/results.h"
#include "fake_rm.h"
#include "hw.h"
#include "nv_abi.h"
#include "rm_nv.h"

static const cs_hw_limits limits = { .wait_ns = 2000000000ull, .settle_ns = 50000000ull,
				     .total_ns = 60000000000ull };

static bool sim_results(const cs_capture *c, bool no_exec, cs_results *res, bool *complete)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_device_config cfg = { .arch = c->arch, .no_executor = no_exec };
	cs_device *dev = cs_device_new(&cfg, &d);
	cs_results_init(res, "sim", "-", c->crc, cs_capture_arch_code(c->arch));
	bool ok = cs_capture_replay(c, dev, res, &d);
	cs_report *r = cs_report_build(dev);
	*complete = r && r->overall.first_break == CS_STAGE_NONE &&
		    r->overall.unobservable == CS_STAGE_NONE;
	cs_report_free(r);
	cs_device_free(dev);
	return ok;
}

static void expect_same(const char *name, const cs_results *s, const cs_results *h)
{
	cr_expect_eq(s->nrecs, h->nrecs, "%s: %zu records vs %zu", name, s->nrecs, h->nrecs);
	cr_expect_eq(s->ran, h->ran, "%s: ran", name);
	cr_expect_eq(s->capture_crc, h->capture_crc, "%s: crc", name);
	for (size_t i = 0; i < s->nrecs && i < h->nrecs; i++) {
		const cs_results_rec *a = &s->recs[i], *b = &h->recs[i];
		cr_expect_eq(a->kind, b->kind, "%s: record %zu kind", name, i);
		cr_expect_eq(a->va, b->va, "%s: record %zu va", name, i);
		cr_expect_eq(a->a, b->a, "%s: record %zu a", name, i);
		cr_expect_eq(a->b, b->b, "%s: record %zu b", name, i);
		cr_expect_eq(a->met, b->met, "%s: record %zu met", name, i);
		if (a->kind == CS_RES_SUBMIT && b->c >= 0)
			cr_expect_eq(a->c, b->c, "%s: record %zu GP_GET", name, i);
		else if (a->kind != CS_RES_SUBMIT)
			cr_expect_eq(a->c, b->c, "%s: record %zu c", name, i);
		if (a->kind == CS_RES_READ) {
			cr_expect_eq(!a->bytes, !b->bytes, "%s: record %zu mapped", name, i);
			if (a->bytes && b->bytes)
				cr_expect(!memcmp(a->bytes, b->bytes, a->a), "%s: read-back %zu at 0x%llx "
					  "differs", name, i, (unsigned long long)a->va);
		}
	}
}

/* A corpus scenario's capture, parsed (cs_capture_free it). */
static cs_capture *corpus_capture(const char *name)
{
	char *path = corpus_path(name);
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert(c, "%s: %s", name, d.msg);
	g_free(img);
	g_free(path);
	return c;
}

/* One replay of a capture on a fake RM: the driver, its results, the exit
 * status cs_hw_replay gave and why. */
typedef struct fake_replay {
	cs_fake_rm *f;
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	int rc;
} fake_replay;

static void replay_on_fake(fake_replay *r, const cs_capture *c, const cs_fake_rm_config *fc,
			   const cs_hw_limits *lim)
{
	r->f = cs_fake_rm_new(fc);
	r->rc = cs_hw_replay(c, &cs_fake_rm_ops, r->f, lim, &r->h, &r->sig, r->why);
}

static void fake_replay_free(fake_replay *r)
{
	cs_results_clear(&r->h);
	cs_fake_rm_free(r->f);
}

Test(fake_rm, corpus_results_equal_the_simulator, .timeout = 240)
{
	char *dir = corpus_path("");
	DIR *dp = opendir(dir);
	cr_assert(dp);
	struct dirent *de;
	unsigned complete = 0, compared = 0, hw_refused = 0;
	while ((de = readdir(dp))) {
		if (!g_str_has_suffix(de->d_name, ".chain"))
			continue;
		char *path = corpus_path(de->d_name);
		if (corpus_capture_refused(path)) {
			expect_export_refused(path);
			g_free(path);
			continue;
		}
		bool no_exec = corpus_no_exec(path);
		size_t len;
		uint8_t *img = export_image(path, &len);
		cs_diag d;
		cs_capture *c = cs_capture_parse(img, len, de->d_name, &d);
		cr_assert(c, "%s: %s", de->d_name, d.msg);
		cs_results s, h;
		bool is_complete;
		cr_assert(sim_results(c, no_exec, &s, &is_complete), "%s", de->d_name);
		cs_fake_rm_config fc = { .no_executor = no_exec };
		cs_fake_rm *f = cs_fake_rm_new(&fc);
		char why[CS_HW_WHY_MAX];
		int sig;
		int rc = cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why);
		cr_expect_eq(cs_fake_rm_live(f), 0, "%s: %zu objects left", de->d_name,
			     cs_fake_rm_live(f));
		if (corpus_hw_refused(path)) {
			cr_expect(rc == CS_HW_EXIT_INPUT && strstr(why, "a cooperative launch") &&
					  strstr(why, "nothing ran"),
				  "%s: chainsim-hw did not refuse it: exit %d: %s", de->d_name, rc, why);
			hw_refused++;
		} else {
			cr_expect(rc == CS_HW_EXIT_OK || rc == CS_HW_EXIT_BROKEN, "%s: exit %d: %s",
				  de->d_name, rc, why);
			if (is_complete)
				cr_expect_eq(rc, CS_HW_EXIT_OK,
					     "%s: complete on the simulator, %d on the fake RM",
					     de->d_name, rc);
			cr_expect_eq(cs_fake_rm_refusals(f), 0,
				     "%s: the fake driver refused %zu requests", de->d_name,
				     cs_fake_rm_refusals(f));
			expect_same(de->d_name, &s, &h);
			complete += is_complete;
			compared++;
		}
		cs_fake_rm_free(f);
		cs_results_clear(&s);
		cs_results_clear(&h);
		cs_capture_free(c);
		g_free(img);
		g_free(path);
	}
	closedir(dp);
	g_free(dir);
	printf("BENCH fake-rm-round-trip compared=%u complete=%u\n", compared, complete);
	cr_expect_geq(complete, 17, "only %u complete-chain scenarios", complete);
	cr_expect_geq(hw_refused, 1, "no corpus capture that chainsim-hw refuses");
}

Test(fake_rm, every_failing_allocation_releases_everything)
{
	cs_capture *c = corpus_capture("cross-channel-semaphore.chain");
	cs_fake_rm_config fc = { 0 };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_assert_eq(r.rc, CS_HW_EXIT_OK, "%s", r.why);
	size_t allocs = cs_fake_rm_allocs(r.f);
	fake_replay_free(&r);
	cr_assert_geq(allocs, 10);
	for (uint32_t n = 1; n <= allocs; n++) {
		fc.fail_alloc = n;
		replay_on_fake(&r, c, &fc, &limits);
		cr_expect_eq(r.rc, CS_HW_EXIT_INTERNAL, "allocation %u: exit %d", n, r.rc);
		/* the fake RM answers a told failure as a real RM answers no memory */
		cr_expect(strstr(r.why, "RM status 0x51"), "allocation %u: %s", n, r.why);
		cr_expect_eq(cs_fake_rm_refusals(r.f), 0, "allocation %u: a request refused", n);
		cr_expect_eq(cs_fake_rm_live(r.f), 0, "allocation %u failed: %zu objects left", n,
			     cs_fake_rm_live(r.f));
		fake_replay_free(&r);
	}
	cs_capture_free(c);
}

Test(fake_rm, absent_device_runs_nothing)
{
	cs_capture *c = corpus_capture("complete-ada-pcas.chain");
	cs_fake_rm_config fc = { .absent = true };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_expect_eq(r.rc,
		     CS_HW_EXIT_UNAVAILABLE);
	cr_expect(strstr(r.why, "/dev/nvidiactl"), "%s", r.why);
	cr_expect_eq(r.h.ran, 0);
	cr_expect_eq(cs_fake_rm_allocs(r.f), 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

Test(fake_rm, hung_gpu_times_out_unmet)
{
	cs_capture *c = corpus_capture("complete-hopper-pcas.chain");
	cs_fake_rm_config fc = { .hang = true };
	cs_hw_limits quick = { .wait_ns = 100000000ull, .settle_ns = 10000000ull,
			       .total_ns = 10000000000ull };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &quick);
	cr_expect_eq(r.rc, CS_HW_EXIT_BROKEN);
	bool unmet = false;
	for (size_t i = 0; i < r.h.nrecs; i++)
		unmet |= r.h.recs[i].kind == CS_RES_WAIT && !r.h.recs[i].met;
	cr_expect(unmet, "the wait on a hung GPU is recorded unmet");
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	fake_replay_free(&r);

	/* past the overall timeout: stopped, released, exit 4 */
	quick.wait_ns = 5000000000ull;
	quick.total_ns = 200000000ull;
	replay_on_fake(&r, c, &fc, &quick);
	cr_expect_eq(r.rc, CS_HW_EXIT_INTERNAL);
	cr_expect(strstr(r.why, "timeout"), "%s", r.why);
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

/* GP_GET is an observable on Ampere only (docs/hardware.md); after the one
 * submission of these scenarios it has reached GP_PUT. */
static int64_t first_gpget(const char *name)
{
	cs_capture *c = corpus_capture(name);
	cs_fake_rm_config fc = { 0 };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_assert_eq(r.rc, CS_HW_EXIT_OK);
	int64_t get = -2;
	for (size_t i = 0; i < r.h.nrecs && get == -2; i++)
		if (r.h.recs[i].kind == CS_RES_SUBMIT)
			get = r.h.recs[i].c;
	fake_replay_free(&r);
	cs_capture_free(c);
	return get;
}

Test(fake_rm, gpget_observable_on_ampere_only)
{
	cr_expect_eq(first_gpget("complete-ampere-pcas.chain"), 1);
	cr_expect_eq(first_gpget("complete-ada-pcas.chain"), CS_RESULTS_NOT_OBSERVABLE);
	cr_expect_eq(first_gpget("complete-hopper-pcas.chain"), CS_RESULTS_NOT_OBSERVABLE);
	cr_expect_eq(first_gpget("complete-blackwell-pcas.chain"), CS_RESULTS_NOT_OBSERVABLE);
}

/* A GPU without the capture's host class: exit 3 naming it, after the
 * client, device and subdevice it allocated first are released. */
Test(fake_rm, missing_class_is_unavailable_and_released)
{
	cs_capture *c = corpus_capture("complete-hopper-pcas.chain");
	cs_fake_rm_config fc = { .lacks_class = 0xC86F };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_expect_eq(r.rc,
		     CS_HW_EXIT_UNAVAILABLE);
	cr_expect(strstr(r.why, "c86f"), "%s", r.why);
	cr_expect_geq(cs_fake_rm_allocs(r.f), 3);
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	cr_expect_eq(r.h.ran, 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

/* The object sequence of docs/capture.md "RM facts", as the fake driver saw
 * the real layer's requests for a one-channel Hopper capture. */
Test(fake_rm, the_real_layer_issues_the_documented_sequence)
{
	cs_capture *c = corpus_capture("complete-hopper-pcas.chain");
	cs_fake_rm_config fc = { 0 };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_assert_eq(r.rc, CS_HW_EXIT_OK, "%s", r.why);
	/* version first; client; the GPU found and attached before the device;
	 * the class list; usermode mapped through a fresh
	 * registered /dev/nvidiaN; VA space, its virtual range, group, context
	 * share; the channel's ring+USERD and notifier memory, each mapped for
	 * the GPU at a fixed VA and for the CPU through a fresh control fd; the
	 * channel, compute and copy objects, the token; the schedule */
	const char *setup =
		"open ctl\nCHECK_VERSION_STR\nRM_ALLOC 0x0041\nCARD_INFO\nRM_CONTROL 0x00000205\n"
		"open gpu\nREGISTER_FD\nRM_ALLOC 0x0080\nRM_ALLOC 0x2080\n"
		"RM_CONTROL 0x00800292\n"
		"RM_ALLOC 0xc661\nopen gpu\nREGISTER_FD\nRM_MAP_MEMORY\nmmap\nclose\n"
		"RM_ALLOC 0x90f1\nRM_ALLOC 0x0070\nRM_ALLOC 0xa06c\nRM_ALLOC 0x9067\n"
		"RM_ALLOC 0x003e\nRM_MAP_MEMORY_DMA\nopen ctl\nRM_MAP_MEMORY\nmmap\nclose\n"
		"RM_ALLOC 0x003e\nRM_MAP_MEMORY_DMA\nopen ctl\nRM_MAP_MEMORY\nmmap\nclose\n"
		"RM_ALLOC 0xc86f\nRM_ALLOC 0xcbc0\nRM_ALLOC 0xc8b5\nRM_CONTROL 0xc36f0108\n"
		"RM_CONTROL 0xa06c0101\n";
	const char *log = cs_fake_rm_log(r.f);
	cr_expect(g_str_has_prefix(log, setup), "the setup sequence differs:\n%s", log);
	/* the GPU's fd closes after the device is freed, the control fd last */
	cr_expect(g_str_has_suffix(log, "RM_FREE\nclose\nRM_FREE\nclose\n"), "teardown:\n%s", log);
	cr_expect(strstr(log, "\ndoorbell\n"), "no doorbell");
	cr_expect_eq(cs_fake_rm_refusals(r.f), 0);
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

/* A driver whose layouts chainsim-hw does not know: exit 3 naming its version,
 * before any RM object exists. */
Test(fake_rm, unknown_driver_version_is_unavailable)
{
	cs_capture *c = corpus_capture("complete-hopper-pcas.chain");
	cs_fake_rm_config fc = { .driver_version = "595.45.04" };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_expect_eq(r.rc,
		     CS_HW_EXIT_UNAVAILABLE);
	cr_expect(strstr(r.why, "595.45.04") && strstr(r.why, "580"), "%s", r.why);
	cr_expect_eq(cs_fake_rm_allocs(r.f), 0);
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	cr_expect_eq(r.h.ran, 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

/* A capture whose ring a GPU cannot take (not a power of two): bad input,
 * named, after what was allocated is released. */
Test(fake_rm, ring_not_a_power_of_two_is_bad_input)
{
	cs_capture *c = corpus_capture("complete-hopper-pcas.chain");
	for (size_t i = 0; i < c->nitems; i++)
		if (c->items[i].type == CS_CAP_CHANNEL)
			c->items[i].entries = 1000;
	cs_fake_rm_config fc = { 0 };
	fake_replay r;
	replay_on_fake(&r, c, &fc, &limits);
	cr_expect_eq(r.rc, CS_HW_EXIT_INPUT);
	cr_expect(strstr(r.why, "1000 entries") && strstr(r.why, "power of two"), "%s", r.why);
	cr_expect_eq(cs_fake_rm_live(r.f), 0);
	cr_expect_eq(cs_fake_rm_refusals(r.f), 0);
	cr_expect_eq(r.h.ran, 0);
	fake_replay_free(&r);
	cs_capture_free(c);
}

/* The fake driver refuses what a 580.x driver would not take: it is not a
 * mirror that accepts whatever the layer sends. */
Test(fake_rm, the_fake_driver_refuses_malformed_requests)
{
	cs_fake_rm_config fc = { 0 };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cr_assert(f);
	char version[64], why[CS_HW_WHY_MAX];
	cr_assert_eq(cs_fake_rm_ops.open(f, cs_capture_arch_code(CS_ARCH_HOPPER), version,
					 sizeof(version), why), CS_HW_OK, "%s", why);
	void *ctx;
	const cs_hw_nv_sys *sys = cs_fake_rm_sys(f, &ctx);
	int ctl = sys->open(ctx, "/dev/nvidiactl");
	cr_assert_geq(ctl, 0);
	nvos21_parameters client = { .h_class = CS_HW_ROOT_CLIENT };
	/* an RM request on a control fd that skipped the version check */
	cr_expect_eq(sys->ioctl(ctx, ctl, NV_IOWR(NV_ESC_RM_ALLOC, client), &client), -1);
	cr_expect_eq(cs_fake_rm_refusals(f), 1);
	/* a wrong argument size */
	cr_expect_eq(sys->ioctl(ctx, ctl, NV_IOWR_SIZE(NV_ESC_RM_ALLOC, 28), &client), -1);
	cr_expect_eq(cs_fake_rm_refusals(f), 2);
	int ctl2 = sys->open(ctx, "/dev/nvidiactl");
	nv_ioctl_rm_api_version v = { .cmd = NV_RM_API_VERSION_CMD_QUERY };
	cr_expect_eq(sys->ioctl(ctx, ctl2, NV_IOWR(NV_ESC_CHECK_VERSION_STR, v), &v), 0);
	cr_expect_str_eq(v.version, "580.126.09");
	cr_expect_eq(sys->ioctl(ctx, ctl2, NV_IOWR(NV_ESC_RM_ALLOC, client), &client), 0);
	cr_expect_eq(client.status, 0, "status 0x%x", client.status);
	/* a device before /dev/nvidiaN is registered */
	nv0080_alloc_parameters dp = { .h_client_share = client.h_object_new,
				       .va_mode = NV_DEVICE_ALLOCATION_VAMODE_MULTIPLE_VASPACES };
	nvos21_parameters dev = { .h_root = client.h_object_new,
				  .h_object_parent = client.h_object_new, .h_object_new = 0x1234,
				  .h_class = CS_HW_DEVICE, .p_alloc_parms = (uint64_t)(uintptr_t)&dp,
				  .params_size = sizeof(dp) };
	cr_expect_eq(sys->ioctl(ctx, ctl2, NV_IOWR(NV_ESC_RM_ALLOC, dev), &dev), 0);
	cr_expect_eq(dev.status, NV_ERR_INVALID_STATE);
	/* a control the driver does not know, an mmap no RM_MAP_MEMORY bound */
	uint32_t word = 0;
	nvos54_parameters ctl_unknown = { .h_client = client.h_object_new,
					  .h_object = client.h_object_new, .cmd = 0x12345678,
					  .params = (uint64_t)(uintptr_t)&word, .params_size = 4 };
	cr_expect_eq(sys->ioctl(ctx, ctl2, NV_IOWR(NV_ESC_RM_CONTROL, ctl_unknown), &ctl_unknown), 0);
	cr_expect_eq(ctl_unknown.status, NV_ERR_INVALID_COMMAND);
	cr_expect_null(sys->mmap(ctx, ctl2, 4096));
	cr_expect_eq(cs_fake_rm_refusals(f), 5);
	nvos00_parameters fr = { .h_root = client.h_object_new, .h_object_parent = client.h_object_new,
				 .h_object_old = client.h_object_new };
	cr_expect_eq(sys->ioctl(ctx, ctl2, NV_IOWR(NV_ESC_RM_FREE, fr), &fr), 0);
	cr_expect_eq(fr.status, 0);
	sys->close(ctx, ctl);
	sys->close(ctx, ctl2);
	cs_fake_rm_ops.close(f);
	cr_expect_eq(cs_fake_rm_live(f), 0);
	cs_fake_rm_free(f);
}
