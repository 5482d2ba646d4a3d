/* SPDX-License-Identifier: MIT */
/* Forwarding through the C API: the two views, the hook, the rewrite library
 * and the judge's stage-3 verdicts (issue 12's acceptance). Scenarios come from
 * the conformance corpus (tests/conformance/forward-*.chain) and from
 * tests/outside, run on devices made here so the hook can be set by hand. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/device.h"
#include "chainsim/pushbuf.h"
#include "chainsim/report.h"
#include "chainsim/rewrite.h"
#include "chainsim/scenario.h"
#include "source.h"


typedef struct run {
	cs_scenario *s;
	cs_device *dev;
	cs_report *r;
} run;

/* Parse text as if it were the file at rel (relative paths resolve there),
 * execute it on a new device (hook set first when given), judge it. */
static run run_text(const char *text, const char *rel, cs_forward_fn hook, void *ctx)
{
	run out = { 0 };
	cs_diag d;
	char *path = test_source_path(rel);
	char *dir = g_path_get_dirname(path);
	out.s = cs_scenario_parse(text, strlen(text), path, dir, &d);
	cr_assert_not_null(out.s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(out.s) };
	out.dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(out.dev, "%s", d.msg);
	if (hook)
		cs_device_set_forward(out.dev, hook, ctx);
	cr_assert(cs_scenario_execute(out.s, out.dev, &d), "%s", d.msg);
	out.r = cs_report_build(out.dev);
	cr_assert_not_null(out.r);
	g_free(dir);
	g_free(path);
	return out;
}

static run run_file(const char *rel, cs_forward_fn hook, void *ctx)
{
	char *path = test_source_path(rel);
	gchar *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL), "%s: cannot read", path);
	run out = run_text(text, rel, hook, ctx);
	g_free(text);
	g_free(path);
	return out;
}

static void run_free(run *r)
{
	cs_report_free(r->r);
	cs_device_free(r->dev);
	cs_scenario_free(r->s);
}

static void expect_all_held(const run *r)
{
	for (size_t i = 0; i < cs_scenario_expect_count(r->s); i++) {
		const cs_expect_outcome *o = cs_scenario_expect(r->s, i);
		cr_expect(o->held, "line %u: %s: %s", o->line, o->text, o->detail);
	}
}

static size_t count_kind(const cs_device *dev, cs_event_kind kind)
{
	size_t n, k = 0;
	const cs_event *ev = cs_device_events(dev, &n);
	for (size_t i = 0; i < n; i++)
		k += ev[i].kind == kind;
	return k;
}

/* Acceptance 1: the prelude's inline-to-memory writes left in the guest's
 * view break the launch, and the diagnosis names that write; the whole
 * relocation makes the same stream complete with the right sums. */
Test(forward, unrelocated_prelude_write_is_named_and_relocation_completes)
{
	run bad = run_file("tests/conformance/forward-unrelocated.chain", NULL, NULL);
	cr_expect_eq(bad.r->overall.first_break, CS_STAGE_FE_EXEC);
	cr_expect_eq(bad.r->overall.cause, CS_CAUSE_FORWARD_UNRELOCATED);
	cr_expect(strstr(bad.r->overall.diagnosis, "inline-to-memory write at guest 0x200001210 "
				 "(cb+0x210) was forwarded unrelocated"), "%s", bad.r->overall.diagnosis);
	run_free(&bad);

	run good = run_file("tests/conformance/forward-relocated.chain", NULL, NULL);
	cr_expect_eq(good.r->overall.first_break, CS_STAGE_NONE, "%s", good.r->overall.diagnosis);
	expect_all_held(&good); /* expect mem c f32 11 22 33 44 */
	cr_expect_gt(count_kind(good.dev, CS_EV_HOST_EDIT), 3);
	run_free(&good);
}

/* A forwarding layer of its own (not the rewrite library): it moves each
 * entry's pushbuffer into the host's view and nothing else. */
static bool relocate_pushbuffer_only(void *ctx, cs_forward *fw, uint32_t lo, uint32_t hi,
				     cs_diag *d)
{
	(void)ctx;
	cs_gp_entry e = cs_gp_decode(lo, hi);
	uint64_t host;
	if (e.length && cs_device_guest_to_host(cs_forward_device(fw), e.addr, &host)) {
		cs_forward_note_in n = { CS_EDIT_RELOCATE, e.addr, host, 0, CS_NONE32, "pushbuffer" };
		cs_forward_note(fw, &n);
		e.addr = host;
		cs_gp_encode(&e, &lo, &hi);
	}
	return cs_forward_submit(fw, lo, hi, d);
}

static const char pcas_launch[] =
	"arch hopper\n"
	"module m ../../fixtures/kernels/out/vadd.nocompress.fatbin\n"
	"alloc a 256 at=0x300000000\nalloc b 256 at=0x300001000\nalloc c 256 at=0x300002000\n"
	"data a f32 1 2 3 4\ndata b f32 10 20 30 40\n"
	"map guest 0x300000000 host 0x300000000 size 0x3000\n"
	"map guest 0x200000000 host 0x5000000000 size 0x10000000\n"
	"push pb\n  launch m.vadd grid=1 block=32 args=a,b,c,4 path=pcas name=L\nend\n"
	"gpfifo pb\nsubmit\nwait L.sem == 1\n";

/* Acceptance 2: the pushbuffer relocated, the QMD address not: the break is
 * at stage 6 or 7 and says the QMD address was left in the guest's view. */
Test(forward, qmd_address_left_in_the_guest_view_is_named)
{
	run r = run_text(pcas_launch, "tests/forward/pcas_launch", relocate_pushbuffer_only, NULL);
	cs_stage b = r.r->overall.first_break;
	cr_expect(b == CS_STAGE_QMD_INSTALL || b == CS_STAGE_QMD_READ, "break at %d: %s", (int)b,
		  r.r->overall.diagnosis);
	cr_expect_eq(r.r->overall.cause, CS_CAUSE_FORWARD_UNRELOCATED);
	cr_expect(strstr(r.r->overall.diagnosis, "QMD address at guest 0x") &&
		  strstr(r.r->overall.diagnosis, "left in the guest's view"), "%s",
		  r.r->overall.diagnosis);
	cr_expect_eq(r.r->overall.rows[CS_STAGE_FE_FETCH].status, CS_STAGE_FIRED);
	run_free(&r);
}

/* The same stream through the library's relocation completes. */
Test(forward, library_relocation_completes_the_pcas_launch)
{
	cs_rewrite *rw = cs_rewrite_new();
	cs_rewrite_relocate(rw, true);
	run r = run_text(pcas_launch, "tests/forward/pcas_launch", cs_rewrite_forward, rw);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	float c[4];
	uint64_t va;
	cr_assert(cs_scenario_symbol(r.s, "c", &va, NULL));
	cr_assert(cs_device_peek(r.dev, va, c, sizeof(c)));
	cr_expect(c[0] == 11.0f && c[1] == 22.0f && c[2] == 33.0f && c[3] == 44.0f);
	run_free(&r);
	cs_rewrite_free(rw);
}

/* Each QMD address the library is told to leave in the guest's view is named
 * as the break's cause, with what it was. */
Test(forward, each_qmd_address_left_behind_is_named)
{
	static const struct {
		const char *keep;
		cs_stage stage;
		const char *said;
	} cases[] = {
		{ "PROGRAM", CS_STAGE_QMD_READ, "QMD's program address at guest 0x" },
		{ "CONSTANT_BUFFER", CS_STAGE_QMD_READ, "QMD's constant bank address at guest 0x" },
		{ "RELEASE0", CS_STAGE_ENGINE_RELEASE, "release address at guest 0x" },
		{ "QMD", CS_STAGE_QMD_INSTALL, "QMD address at guest 0x" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cs_rewrite *rw = cs_rewrite_new();
		cs_rewrite_relocate(rw, true);
		cr_assert(cs_rewrite_keep_guest(rw, cases[i].keep));
		run r = run_text(pcas_launch, "tests/forward/pcas_launch", cs_rewrite_forward, rw);
		cr_expect_eq(r.r->overall.first_break, cases[i].stage, "keep %s: break at %d: %s",
			     cases[i].keep, (int)r.r->overall.first_break, r.r->overall.diagnosis);
		cr_expect_eq(r.r->overall.cause, CS_CAUSE_FORWARD_UNRELOCATED, "keep %s: %s",
			     cases[i].keep, cs_cause_key(r.r->overall.cause));
		cr_expect(strstr(r.r->overall.diagnosis, cases[i].said) != NULL, "keep %s: %s",
			  cases[i].keep, r.r->overall.diagnosis);
		run_free(&r);
		cs_rewrite_free(rw);
	}
}

/* A rewrite recorded by hand, correctly (the records a forwarding layer adds
 * for an identity forward), never breaks a correct stream. */
static void note_by_hand(void *ctx, uint32_t ch)
{
	cs_device *dev = ctx;
	cs_event ev = cs_event_make(CS_EV_HOST_FORWARD, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST, ch);
	ev.value = 1;
	ev.detail = "relocated entry 0 (by hand)";
	cs_device_record(dev, &ev);
	ev = cs_event_make(CS_EV_HOST_EDIT, CS_STAGE_HOST_FORWARD, CS_UNIT_HOST, ch);
	ev.subch = CS_EDIT_RELOCATE;
	ev.detail = "pushbuffer: guest -> host, the same address";
	cs_device_record(dev, &ev);
}

Test(forward, hand_recorded_rewrite_keeps_a_correct_stream_complete)
{
	char *path = test_source_path("tests/conformance/complete-hopper-pcas.chain");
	cs_diag d;
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert_not_null(s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(dev);
	cs_scenario_tap tap = { .ctx = dev, .submit = note_by_hand };
	cr_assert(cs_scenario_execute_tapped(s, dev, &tap, &d), "%s", d.msg);
	cs_report *r = cs_report_build(dev);
	cr_expect_eq(r->overall.first_break, CS_STAGE_NONE, "break at %d [%s]: %s",
		     (int)r->overall.first_break, cs_cause_key(r->overall.cause),
		     r->overall.diagnosis);
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	g_free(path);
}

/* Every tinygrad stream of tests/outside relocated end to end: each
 * allocation moves 0x4000000000 up in the host's view, except the buffers its
 * kernels' arguments point at (bufN, outN: the same address in both views, as
 * their addresses travel inside constant banks no table describes). Every
 * expectation of the recording still holds, no access faults, and every
 * entry the front end fetched is in the host's view. */
#define HOST_SHIFT 0x4000000000ull

static GString *with_windows(const char *text)
{
	GString *maps = g_string_new("");
	const char *last = NULL;
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char name[64];
		long long ssize, sat;
		if (sscanf(p, "alloc %63s %lli at=%lli", name, &ssize, &sat) != 3)
			continue;
		unsigned long long size = (unsigned long long)ssize, at = (unsigned long long)sat;
		last = p;
		size = (size + 0xfff) & ~0xfffull;
		bool arg = (!strncmp(name, "buf", 3) || !strncmp(name, "out", 3)) &&
			   g_ascii_isdigit(name[3]);
		g_string_append_printf(maps, "map guest 0x%llx host 0x%llx size 0x%llx\n", at,
				       arg ? at : at + HOST_SHIFT, size);
	}
	cr_assert_not_null(last, "no alloc ... at= line");
	size_t head = (size_t)(strchr(last, '\n') + 1 - text);
	GString *s = g_string_new_len(text, (gssize)head);
	g_string_append(s, maps->str);
	g_string_append(s, "rewrite\n  relocate\nend\n");
	g_string_append(s, text + head);
	g_string_free(maps, TRUE);
	return s;
}

Test(forward, tinygrad_streams_relocated_end_to_end, .timeout = 120)
{
	char *dir = test_source_path("tests/outside");
	GDir *d = g_dir_open(dir, 0, NULL);
	cr_assert_not_null(d);
	unsigned streams = 0;
	for (const char *fn; (fn = g_dir_read_name(d));) {
		if (!g_str_has_suffix(fn, ".chain"))
			continue;
		char *rel = g_build_filename("tests/outside", fn, NULL);
		char *path = test_source_path(rel);
		gchar *text = NULL;
		cr_assert(g_file_get_contents(path, &text, NULL, NULL));
		GString *s = with_windows(text);
		run r = run_text(s->str, rel, NULL, NULL);
		cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s: break at %d [%s]: %s", fn,
			     (int)r.r->overall.first_break, cs_cause_key(r.r->overall.cause),
			     r.r->overall.diagnosis);
		expect_all_held(&r);
		cr_expect_gt(count_kind(r.dev, CS_EV_HOST_EDIT), 0, "%s", fn);
		cr_expect_eq(count_kind(r.dev, CS_EV_FAULT), 0, "%s", fn);
		size_t n;
		const cs_event *ev = cs_device_events(r.dev, &n);
		for (size_t i = 0; i < n; i++)
			if (ev[i].kind == CS_EV_GP_FETCH)
				cr_expect_geq(ev[i].addr, HOST_SHIFT, "%s: entry %u fetched at 0x%llx", fn,
					      ev[i].gp_entry, (unsigned long long)ev[i].addr);
		run_free(&r);
		g_string_free(s, TRUE);
		g_free(text);
		g_free(path);
		g_free(rel);
		streams++;
	}
	g_dir_close(d);
	g_free(dir);
	cr_expect_geq(streams, 16, "tests/outside has %u streams", streams);
}

/* A kernel's buffers left out of the host's view (no `map` for them): the
 * grid's fault at an address only the guest's view maps is the forwarding's,
 * forward-unrelocated naming the buffer and the views, not grid-fault. */
Test(forward, a_kernel_access_only_the_guests_view_maps_is_the_forwardings)
{
	run r = run_file("tests/conformance/forward-kernel-buffer-unmapped.chain", NULL, NULL);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_GR_DISPATCH);
	cr_expect_eq(r.r->overall.cause, CS_CAUSE_FORWARD_UNRELOCATED, "%s",
		     cs_cause_key(r.r->overall.cause));
	cr_expect(strstr(r.r->overall.diagnosis, "launch 0's kernel accessed guest 0x300001000 (b)"),
		  "%s", r.r->overall.diagnosis);
	cr_expect(strstr(r.r->overall.diagnosis, "no window holds it"), "%s",
		  r.r->overall.diagnosis);
	run_free(&r);
}
