/* chainsim-hw's replay (hw/replay.c) over the fake RM (hwfake/): every corpus
 * scenario with a submission goes scenario -> capture -> fake-RM replay, and
 * its results equal the simulator's replay of the same capture (`chainsim
 * run FILE.cap --results`), GP_GET aside where the generation hides it. Every
 * RM object is released on every path, a failing allocation included. */
#include "common.h"

#include <dirent.h>

#include "chainsim/results.h"
#include "fake_rm.h"
#include "hw.h"

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

Test(fake_rm, corpus_results_equal_the_simulator, .timeout = 240)
{
	char *dir = corpus_path("");
	DIR *dp = opendir(dir);
	cr_assert(dp);
	struct dirent *de;
	unsigned complete = 0, compared = 0;
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
		cr_expect(rc == CS_HW_EXIT_OK || rc == CS_HW_EXIT_BROKEN, "%s: exit %d: %s",
			  de->d_name, rc, why);
		if (is_complete)
			cr_expect_eq(rc, CS_HW_EXIT_OK, "%s: complete on the simulator, %d on the fake RM",
				     de->d_name, rc);
		cr_expect_eq(cs_fake_rm_live(f), 0, "%s: %zu objects left", de->d_name,
			     cs_fake_rm_live(f));
		expect_same(de->d_name, &s, &h);
		complete += is_complete;
		compared++;
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
}

Test(fake_rm, every_failing_allocation_releases_everything)
{
	char *path = corpus_path("cross-channel-semaphore.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert(c);
	cs_fake_rm_config fc = { 0 };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	cr_assert_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why), CS_HW_EXIT_OK, "%s", why);
	size_t allocs = cs_fake_rm_allocs(f);
	cs_results_clear(&h);
	cs_fake_rm_free(f);
	cr_assert_geq(allocs, 10);
	for (uint32_t n = 1; n <= allocs; n++) {
		fc.fail_alloc = n;
		f = cs_fake_rm_new(&fc);
		int rc = cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why);
		cr_expect_eq(rc, CS_HW_EXIT_INTERNAL, "allocation %u: exit %d", n, rc);
		cr_expect(strstr(why, "fails as told"), "allocation %u: %s", n, why);
		cr_expect_eq(cs_fake_rm_live(f), 0, "allocation %u failed: %zu objects left", n,
			     cs_fake_rm_live(f));
		cs_results_clear(&h);
		cs_fake_rm_free(f);
	}
	cs_capture_free(c);
	g_free(img);
	g_free(path);
}

Test(fake_rm, absent_device_runs_nothing)
{
	char *path = corpus_path("complete-ada-pcas.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cs_fake_rm_config fc = { .absent = true };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	cr_expect_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why),
		     CS_HW_EXIT_UNAVAILABLE);
	cr_expect(strstr(why, "/dev/nvidiactl"), "%s", why);
	cr_expect_eq(h.ran, 0);
	cr_expect_eq(cs_fake_rm_allocs(f), 0);
	cs_results_clear(&h);
	cs_fake_rm_free(f);
	cs_capture_free(c);
	g_free(img);
	g_free(path);
}

Test(fake_rm, hung_gpu_times_out_unmet)
{
	char *path = corpus_path("complete-hopper-pcas.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cs_fake_rm_config fc = { .hang = true };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	cs_hw_limits quick = { .wait_ns = 100000000ull, .settle_ns = 10000000ull,
			       .total_ns = 10000000000ull };
	cr_expect_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &quick, &h, &sig, why), CS_HW_EXIT_BROKEN);
	bool unmet = false;
	for (size_t i = 0; i < h.nrecs; i++)
		unmet |= h.recs[i].kind == CS_RES_WAIT && !h.recs[i].met;
	cr_expect(unmet, "the wait on a hung GPU is recorded unmet");
	cr_expect_eq(cs_fake_rm_live(f), 0);
	cs_results_clear(&h);
	cs_fake_rm_free(f);

	/* past the overall timeout: stopped, released, exit 4 */
	quick.wait_ns = 5000000000ull;
	quick.total_ns = 200000000ull;
	f = cs_fake_rm_new(&fc);
	cr_expect_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &quick, &h, &sig, why), CS_HW_EXIT_INTERNAL);
	cr_expect(strstr(why, "timeout"), "%s", why);
	cr_expect_eq(cs_fake_rm_live(f), 0);
	cs_results_clear(&h);
	cs_fake_rm_free(f);
	cs_capture_free(c);
	g_free(img);
	g_free(path);
}

/* GP_GET is an observable on Ampere only (docs/hardware.md); after the one
 * submission of these scenarios it has reached GP_PUT. */
static int64_t first_gpget(const char *name)
{
	char *path = corpus_path(name);
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cs_fake_rm_config fc = { 0 };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	cr_assert_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why), CS_HW_EXIT_OK);
	int64_t get = -2;
	for (size_t i = 0; i < h.nrecs && get == -2; i++)
		if (h.recs[i].kind == CS_RES_SUBMIT)
			get = h.recs[i].c;
	cs_results_clear(&h);
	cs_fake_rm_free(f);
	cs_capture_free(c);
	g_free(img);
	g_free(path);
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
	char *path = corpus_path("complete-hopper-pcas.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cs_fake_rm_config fc = { .lacks_class = 0xC86F };
	cs_fake_rm *f = cs_fake_rm_new(&fc);
	cs_results h;
	char why[CS_HW_WHY_MAX];
	int sig;
	cr_expect_eq(cs_hw_replay(c, &cs_fake_rm_ops, f, &limits, &h, &sig, why),
		     CS_HW_EXIT_UNAVAILABLE);
	cr_expect(strstr(why, "c86f"), "%s", why);
	cr_expect_geq(cs_fake_rm_allocs(f), 3);
	cr_expect_eq(cs_fake_rm_live(f), 0);
	cr_expect_eq(h.ran, 0);
	cs_results_clear(&h);
	cs_fake_rm_free(f);
	cs_capture_free(c);
	g_free(img);
	g_free(path);
}
