/* SPDX-License-Identifier: MIT */
/* The rewrite library's edits, each through a scenario's rewrite block (the
 * same library): what the run shows, and the stage-3 record of the edit. And
 * every mistake in a map line or a rewrite block is a located error. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/gr.h"
#include "chainsim/pushbuf.h"
#include "chainsim/report.h"
#include "chainsim/rewrite.h"
#include "chainsim/scenario.h"

typedef struct run {
	cs_scenario *s;
	cs_device *dev;
	cs_report *r;
	bool ok;
	char msg[512];
} run;

static run run_text(const char *text)
{
	run out = { 0 };
	cs_diag d;
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	cr_assert_not_null(root, "CHAINSIM_SOURCE_ROOT is not set (run through meson test)");
	out.s = cs_scenario_parse(text, strlen(text), "rw.chain", root, &d);
	cr_assert_not_null(out.s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(out.s) };
	out.dev = cs_device_new(&cfg, &d);
	cr_assert_not_null(out.dev);
	out.ok = cs_scenario_execute(out.s, out.dev, &d);
	cs_diag_format(&d, out.msg, sizeof(out.msg));
	if (out.ok)
		out.r = cs_report_build(out.dev);
	return out;
}

static void run_free(run *r)
{
	cs_report_free(r->r);
	cs_device_free(r->dev);
	cs_scenario_free(r->s);
}

static void all_held(const run *r)
{
	for (size_t i = 0; i < cs_scenario_expect_count(r->s); i++) {
		const cs_expect_outcome *o = cs_scenario_expect(r->s, i);
		cr_expect(o->held, "line %u: %s: %s", o->line, o->text, o->detail);
	}
}

/* The HOST_EDIT records of one edit kind. */
static size_t edits(const run *r, cs_forward_edit kind, uint32_t method)
{
	size_t n, k = 0;
	const cs_event *ev = cs_device_events(r->dev, &n);
	for (size_t i = 0; i < n; i++)
		k += ev[i].kind == CS_EV_HOST_EDIT && ev[i].subch == (uint32_t)kind &&
		     (method == CS_NONE32 || ev[i].method == method);
	return k;
}

#define WINDOWS "map guest 0x300000000 host 0x300000000 size 0x3000\n" \
		"map guest 0x200000000 host 0x5000000000 size 0x10000000\n"
#define VADD "module m fixtures/kernels/out/vadd.nocompress.fatbin\n" \
	     "alloc a 256 at=0x300000000\nalloc b 256 at=0x300001000\n" \
	     "alloc c 256 at=0x300002000\n"

Test(rewrite, drop_the_schedule_breaks_at_stage_7)
{
	run r = run_text("arch hopper\n" VADD WINDOWS
			 "rewrite\n  relocate\n  drop 1 SEND_SIGNALING_PCAS2_B\nend\n"
			 "push pb\n  launch m.vadd grid=1 block=32 args=a,b,c,4 path=pcas name=L\nend\n"
			 "gpfifo pb\nsubmit\nwait L.sem == 1\n");
	cr_assert(r.ok, "%s", r.msg);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_QMD_READ, "%s", r.r->overall.diagnosis);
	cr_expect_eq(r.r->overall.cause, CS_CAUSE_NO_SCHEDULE);
	cr_expect_eq(edits(&r, CS_EDIT_DROP, CS_GR_SEND_SIGNALING_PCAS2_B), 1);
	run_free(&r);
}

Test(rewrite, replace_a_payload)
{
	run r = run_text("arch hopper\nalloc sem 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "rewrite\n  relocate\n  replace 0 SEM_PAYLOAD_LO 7\nend\n"
			 "push pb\n  release sem 1\nend\n"
			 "gpfifo pb\nsubmit\nwait sem == 7\nexpect mem sem u32 7\n");
	cr_assert(r.ok, "%s", r.msg);
	all_held(&r);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	cr_expect_eq(edits(&r, CS_EDIT_REPLACE, CS_NONE32), 1);
	run_free(&r);
}

Test(rewrite, prelude_runs_before_the_guest_entries)
{
	run r = run_text("arch hopper\nalloc sem 16\nalloc first 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "push pre\n  release first 5\nend\n"
			 "rewrite\n  relocate\n  prelude pre\nend\n"
			 "push pb\n  release sem 1\nend\n"
			 "gpfifo pb\nsubmit\nwait sem == 1\nexpect mem first u32 5\n");
	cr_assert(r.ok, "%s", r.msg);
	all_held(&r);
	cr_expect_eq(edits(&r, CS_EDIT_INSERT, CS_NONE32), 1);
	uint64_t fetched = 0;
	cr_assert(cs_report_counter(r.r, "entries", &fetched));
	cr_expect_eq(fetched, 2, "the prelude and the guest's entry");
	run_free(&r);
}

Test(rewrite, split_long_entries_at_method_boundaries)
{
	run r = run_text("arch hopper\nalloc s1 16\nalloc s2 16\nalloc s3 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "rewrite\n  relocate\n  split 8\nend\n"
			 "push pb\n  release s1 1\n  release s2 2\n  release s3 3\nend\n"
			 "gpfifo pb\nsubmit\nwait s3 == 3\n"
			 "expect mem s1 u32 1\nexpect mem s2 u32 2\n");
	cr_assert(r.ok, "%s", r.msg);
	all_held(&r);
	uint64_t fetched = 0;
	cr_assert(cs_report_counter(r.r, "entries", &fetched));
	cr_expect_eq(fetched, 3, "18 dwords in pieces of at most 8 at method boundaries");
	cr_expect_eq(edits(&r, CS_EDIT_SPLIT, CS_NONE32), 1);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	run_free(&r);
}

/* A prelude adds a host entry to the first submission only: the guest's GP_PUT
 * (stage 2) counts the guest's own entries, submission after submission. */
Test(rewrite, guest_gp_put_counts_the_guests_entries)
{
	run r = run_text("arch hopper\nalloc s1 16\nalloc s2 16\nalloc first 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "push pre\n  release first 5\nend\n"
			 "rewrite\n  relocate\n  prelude pre\nend\n"
			 "push p1\n  release s1 1\nend\npush p2\n  release s2 2\nend\n"
			 "gpfifo p1\nsubmit\ngpfifo p2\nsubmit\nwait s2 == 2\n");
	cr_assert(r.ok, "%s", r.msg);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	size_t n, k = 0;
	const cs_event *ev = cs_device_events(r.dev, &n);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind != CS_EV_GP_PUT)
			continue;
		cr_expect_eq(ev[i].aux, k, "submission %zu: from %llu", k, (unsigned long long)ev[i].aux);
		cr_expect_eq(ev[i].value, k + 1);
		k++;
	}
	cr_expect_eq(k, 2);
	run_free(&r);
}

/* A window per allocation: alloc host=H. */
Test(rewrite, alloc_host_maps_one_allocation)
{
	run r = run_text("arch hopper\nalloc sem 16 host=0x5000000000\n"
			 "push pb\n  release sem 1\nend\n"
			 "map guest pb host 0x5000001000 size 0x1000\n"
			 "rewrite\n  relocate\nend\n"
			 "gpfifo pb\nsubmit\nwait sem == 1\n");
	cr_assert(r.ok, "%s", r.msg);
	cr_expect_eq(cs_device_window_count(r.dev), 2);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	run_free(&r);
}

/* One guest range seen through two windows: relocating to either is right. */
Test(rewrite, a_guest_range_may_have_two_windows)
{
	run r = run_text("arch hopper\nalloc sem 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "map guest 0x200000000 host 0x6000000000 size 0x100000\n"
			 "rewrite\n  relocate\n  skew SEM_ADDR 0x1000000000\nend\n"
			 "push pb\n  release sem 1\nend\ngpfifo pb\nsubmit\nwait sem == 1\n");
	cr_assert(r.ok, "%s", r.msg);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	run_free(&r);
}

/* Hostile input: each mistake is an error naming its line and column. */
Test(rewrite, mistakes_are_located_errors)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "arch hopper\nmap guest 0x200000010 host 0x5000000000 size 0x1000\n",
		  "rw.chain:2:1: map: map guest 0x200000010 host 0x5000000000 size 0x1000: the "
		  "addresses and the size must be non-zero multiples of 4 KiB" },
		{ "arch hopper\nmap guest 0x200000000 host 0x5000000000 size 0x1000\n"
		  "map guest 0x300000000 host 0x5000000000 size 0x1000\n",
		  "rw.chain:3:1: map: map guest 0x300000000 host 0x5000000000 size 0x1000: its host "
		  "range overlaps" },
		{ "arch hopper\nmap guest 0x200000000 host 0x100000000 size 0x1000\n",
		  "overlaps the device's channel area" },
		{ "arch ampere\nmap guest 0x200000000 host 0xfff000000000000 size 0x1000\n",
		  "beyond the 49-bit address space" },
		{ "arch hopper\nrewrite\n  keep PUSHBUFFER BOGUS\nend\n",
		  "rw.chain:3:19: keep: unknown address 'BOGUS'" },
		{ "arch hopper\nrewrite\n  drop * NO_SUCH_METHOD\nend\n",
		  "rw.chain:3:10: no method 'NO_SUCH_METHOD' in hopper's host, compute or copy class" },
		{ "arch hopper\nrewrite\n  skew QMDX 0x100\nend\n",
		  "rw.chain:3:8: skew: unknown address 'QMDX'" },
		{ "arch hopper\nalloc x 16\nrewrite\n  prelude x\nend\n",
		  "rw.chain:4:11: prelude: expected the name of a push block" },
		{ "arch hopper\nrewrite\n  split 1\nend\n", "rw.chain:3:9: split: 1 dwords out of range" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run r = run_text(cases[i].text);
		cr_expect(!r.ok, "case %zu ran", i);
		cr_expect(strstr(r.msg, cases[i].want) != NULL, "case %zu: got '%s', want '%s'", i,
			  r.msg, cases[i].want);
		run_free(&r);
	}
}

/* A capture holds the guest's view only: a scenario with a host view or a
 * rewrite that edits is refused by export, never exported without them. */
Test(rewrite, export_refuses_what_a_capture_cannot_hold)
{
	static const char *const texts[] = {
		"arch hopper\nalloc sem 16\nmap guest 0x200000000 host 0x5000000000 size 0x100000\n"
		"rewrite\n  relocate\nend\npush pb\n  release sem 1\nend\ngpfifo pb\nsubmit\n",
		"arch hopper\nalloc sem 16\nrewrite\n  replace 0 SEM_PAYLOAD_LO 7\nend\n"
		"push pb\n  release sem 1\nend\ngpfifo pb\nsubmit\n",
		"arch hopper\nalloc sem 16\npush pb\n  release sem 1\nend\ngpfifo pb\nsubmit\n",
	};
	for (size_t i = 0; i < 3; i++) {
		cs_diag d;
		cs_scenario *s = cs_scenario_parse(texts[i], strlen(texts[i]), "x.chain", ".", &d);
		cr_assert_not_null(s, "%s", d.msg);
		cs_device_config cfg = { .arch = CS_ARCH_HOPPER };
		cs_device *dev = cs_device_new(&cfg, &d);
		cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
		cs_diag_clear(&d);
		bool ok = cs_capture_export(s, dev, w, &d);
		if (i < 2)
			cr_expect(!ok && strstr(d.msg, "cannot be exported"), "case %zu: %s", i, d.msg);
		else
			cr_expect(ok, "the plain scenario exports: %s", d.msg);
		cs_capture_writer_free(w);
		cs_device_free(dev);
		cs_scenario_free(s);
	}
}

/* Hostile streams: random dwords (some shaped like method headers, some like
 * address methods) forwarded through every rewrite rule at once. Whatever the
 * bytes, the run ends with a verdict, never a crash, and every entry the
 * front end fetched is one the host forwarded. */
static uint32_t next_rand(uint64_t *state)
{
	return (uint32_t)(cs_scenario_rand_next(state) >> 32);
}

Test(rewrite, random_streams_never_crash_the_rewrite, .timeout = 120)
{
	uint64_t state = 12;
	size_t relocations = 0, drops = 0, splits = 0;
	static const uint32_t methods[] = { 0x000, 0x008, 0x05c, 0x060, 0x06c, 0x010, 0x014, 0x028,
					    0x02c, 0x188, 0x18c, 0x1b0, 0x1b4, 0x2b4, 0x2c0,
					    0x318, 0x31c, 0x320, 0x400, 0x404, 0x1b00 };
	for (int round = 0; round < 150; round++) {
		cs_diag d;
		cs_device_config cfg = { .arch = round % 2 ? CS_ARCH_HOPPER : CS_ARCH_AMPERE };
		cs_device *dev = cs_device_new(&cfg, &d);
		cr_assert_not_null(dev);
		uint64_t va;
		cr_assert(cs_mem_alloc(cs_device_mem(dev), "pb", 0x4000, 4096, &va, &d));
		cr_assert(cs_device_map_host(dev, 0x200000000ull, 0x5000000000ull, 0x100000, &d));
		cs_rewrite *rw = cs_rewrite_new();
		cs_rewrite_relocate(rw, true);
		cs_rewrite_drop_named(rw, 8, "NOP");
		cs_rewrite_replace_named(rw, 8, "SEM_PAYLOAD_LO", 3);
		cs_rewrite_split(rw, 2 + next_rand(&state) % 16);
		cs_rewrite_merge(rw, round % 3 == 0);
		uint32_t pre[] = { cs_pb_inc(1, 0, 1), 0xCBC0 };
		cs_rewrite_prelude(rw, pre, 2);
		cs_device_set_forward(dev, cs_rewrite_forward, rw);
		/* headers of address-carrying methods with their data (addresses in the
		 * guest's window or random), one dword in 20 random instead */
		uint32_t dw[512];
		uint32_t n = 0, want = 1 + next_rand(&state) % 500;
		static const cs_secop ops[] = { CS_SECOP_INC, CS_SECOP_NONINC, CS_SECOP_IMMD,
						CS_SECOP_ONEINC };
		while (n < want) {
			uint32_t r = next_rand(&state);
			if (r % 20 == 0) {
				dw[n++] = next_rand(&state);
				continue;
			}
			cs_secop op = ops[(r >> 5) % 4];
			uint32_t count = op == CS_SECOP_IMMD ? (r >> 8) % 8 : 1 + (r >> 8) % 5;
			dw[n++] = cs_pb_header(op, count, (r >> 12) % 8, methods[(r >> 16) % 21]);
			for (uint32_t k = 0; op != CS_SECOP_IMMD && k < count && n < 512; k++) {
				uint32_t v = next_rand(&state);
				dw[n++] = v % 3 == 0 ? 0x2u : v % 3 == 1 ? 0x200u + (v & 0xff00u) : v;
			}
		}
		cr_assert(cs_mem_write(cs_device_mem(dev), va, dw, 4ull * n, NULL));
		cs_gp_entry e = { .addr = va, .length = n };
		uint32_t lo, hi;
		cs_gp_encode(&e, &lo, &hi);
		cr_assert(cs_device_gpfifo_push(dev, 0, lo, hi, &d));
		cs_diag_clear(&d);
		cs_device_submit(dev, 0, &d); /* a forwarding error is a diag, not a crash */
		cs_device_finish(dev);
		cs_report *r = cs_report_build(dev);
		cr_assert_not_null(r, "round %d: no report", round);
		size_t nev, fetched = 0, forwarded = 0;
		const cs_event *ev = cs_device_events(dev, &nev);
		for (size_t i = 0; i < nev; i++) {
			fetched += ev[i].kind == CS_EV_GP_FETCH || ev[i].kind == CS_EV_GP_CONTROL;
			if (ev[i].kind == CS_EV_HOST_FORWARD && ev[i].aux == CS_HOST_FORWARD_RING)
				forwarded += ev[i].value;
			if (ev[i].kind == CS_EV_HOST_EDIT) {
				relocations += ev[i].subch == CS_EDIT_RELOCATE;
				drops += ev[i].subch == CS_EDIT_DROP;
				splits += ev[i].subch == CS_EDIT_SPLIT;
			}
		}
		cr_expect_leq(fetched, forwarded, "round %d", round);
		cs_report_free(r);
		cs_rewrite_free(rw);
		cs_device_free(dev);
	}
	/* the streams reached the rules, not only the decoder's refusal */
	cr_expect_gt(relocations, 50, "%zu relocations", relocations);
	cr_expect_gt(drops, 10, "%zu drops", drops);
	cr_expect_gt(splits, 10, "%zu splits", splits);
}

/* A malformed pushbuffer is forwarded as the guest wrote it (moved into the
 * host's view): no edit is noted for it, and the front end names the header.
 * The entry before it is edited (its NOP dropped). */
Test(rewrite, malformed_stream_is_forwarded_untouched)
{
	run r = run_text("arch hopper\nalloc sem 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "rewrite\n  relocate\n  drop * NOP\nend\n"
			 "push good\n  inc 0 NOP 0\n  inc 0 NOP 0\nend\n"
			 "push pb\n  inc 0 NOP 0\n  raw 0x40000000\n  release sem 1\nend\n"
			 "gpfifo good\ngpfifo pb\nsubmit\nwait sem == 1\n");
	cr_assert(r.ok, "%s", r.msg);
	cr_expect_eq(edits(&r, CS_EDIT_DROP, CS_NONE32), 3, "the good entry's two NOPs, and itself");
	cr_expect_eq(edits(&r, CS_EDIT_RELOCATE, CS_NONE32), 1, "the malformed pushbuffer only");
	cr_expect_eq(r.r->overall.cause, CS_CAUSE_PB_MALFORMED, "%s", r.r->overall.diagnosis);
	run_free(&r);
}

Test(rewrite, merge_a_submissions_entries_into_one)
{
	run r = run_text("arch hopper\nalloc s1 16\nalloc s2 16\nalloc s3 16\n"
			 "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			 "rewrite\n  relocate\n  merge\nend\n"
			 "push p1\n  release s1 1\nend\npush p2\n  release s2 2\nend\n"
			 "push p3\n  release s3 3\nend\n"
			 "gpfifo p1\ngpfifo p2\nsubmit\ngpfifo p3\nsubmit\nwait s3 == 3\n"
			 "expect mem s1 u32 1\nexpect mem s2 u32 2\n");
	cr_assert(r.ok, "%s", r.msg);
	all_held(&r);
	cr_expect_eq(r.r->overall.first_break, CS_STAGE_NONE, "%s", r.r->overall.diagnosis);
	uint64_t fetched = 0;
	cr_assert(cs_report_counter(r.r, "entries", &fetched));
	cr_expect_eq(fetched, 2, "two submissions, one host entry each");
	cr_expect_eq(edits(&r, CS_EDIT_MERGE, CS_NONE32), 2);
	run_free(&r);
}

/* A skew of the QMD on the SEND_PCAS path moves the pointer off the host's
 * copy, and a skew of the pushbuffer moves an edited entry off its copy:
 * each is a relocation to the wrong place, listed and judged, never a
 * complete chain with the skew nowhere. */
Test(rewrite, a_skew_of_a_copied_qmd_or_pushbuffer_applies)
{
	static const char *const skews[] = { "skew QMD 0x100", "skew PUSHBUFFER 0x1000" };
	for (size_t i = 0; i < 2; i++) {
		char *text = g_strdup_printf("arch hopper\n" VADD WINDOWS
					     "rewrite\n  relocate\n  %s\nend\n"
					     "push pb\n  launch m.vadd grid=1 block=32 args=a,b,c,4 "
					     "path=pcas name=L\nend\n"
					     "gpfifo pb\nsubmit\nwait L.sem == 1\n", skews[i]);
		run r = run_text(text);
		cr_assert(r.ok, "%s: %s", skews[i], r.msg);
		cr_expect_eq(r.r->overall.first_break, CS_STAGE_HOST_FORWARD, "%s: %s", skews[i],
			     r.r->overall.diagnosis);
		cr_expect_eq(r.r->overall.cause, CS_CAUSE_FORWARD_MISRELOCATED, "%s", skews[i]);
		cr_expect_not_null(strstr(r.r->overall.diagnosis, i ? "pushbuffer" : "QMD"), "%s",
				   r.r->overall.diagnosis);
		run_free(&r);
		g_free(text);
	}
}

/* Every edit of a rewrite block that matched nothing the host forwarded is
 * refused, at its line and column, naming it. */
Test(rewrite, an_edit_that_matched_nothing_is_refused_naming_it)
{
	static const struct {
		const char *edit, *named, *at;
	} cases[] = {
		{ "drop * SEND_SIGNALING_PCAS2_B", "'drop * SEND_SIGNALING_PCAS2_B'", "rw.chain:10:3" },
		{ "replace 1 SEND_PCAS_A 0", "'replace 1 SEND_PCAS_A 0x0'", "rw.chain:10:3" },
		{ "keep MEM_OP_TARGET", "'keep MEM_OP_TARGET'", "rw.chain:10:8" },
		{ "skew COPY_SRC 0x10", "'skew COPY_SRC 16'", "rw.chain:10:8" },
		{ "split 4000", "'split 4000'", "rw.chain:10:3" },
		{ "merge", "'merge'", "rw.chain:10:3" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = g_strdup_printf("arch hopper\n" VADD WINDOWS
					     "rewrite\n  relocate\n  %s\nend\n"
					     "push pb\n  launch m.vadd grid=1 block=32 args=a,b,c,4 "
					     "path=inline name=L\nend\n"
					     "gpfifo pb\nsubmit\nwait L.sem == 1\n", cases[i].edit);
		run r = run_text(text);
		cr_expect_not(r.ok, "%s was taken", cases[i].edit);
		cr_expect_not_null(strstr(r.msg, cases[i].named), "%s: %s", cases[i].edit, r.msg);
		cr_expect_not_null(strstr(r.msg, cases[i].at), "%s: %s", cases[i].edit, r.msg);
		cr_expect_not_null(strstr(r.msg, "matched nothing"), "%s", r.msg);
		run_free(&r);
		g_free(text);
	}
}

/* The same rule in C: cs_rewrite_check names the first edit that changed
 * nothing, by its number, and holds once every edit has applied. */
Test(rewrite, the_library_check_names_the_edit_that_matched_nothing)
{
	cs_diag d;
	cs_diag_clear(&d);
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	const char *text = "arch hopper\nalloc sem 16\n"
			   "map guest 0x200000000 host 0x5000000000 size 0x100000\n"
			   "push pb\n  release sem 1\nend\ngpfifo pb\nsubmit\nwait sem == 1\n";
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "c.chain", root, &d);
	cr_assert_not_null(s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cs_rewrite *rw = cs_rewrite_new();
	cs_rewrite_relocate(rw, true);
	cr_assert(cs_rewrite_replace_named(rw, 8, "SEM_PAYLOAD_LO", 1));
	cr_assert(cs_rewrite_drop_named(rw, 8, "SET_OBJECT"));
	cr_expect_eq(cs_rewrite_edits(rw), 3);
	cs_device_set_forward(dev, cs_rewrite_forward, rw);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);
	unsigned edit = 99;
	cr_expect_not(cs_rewrite_check(rw, &edit, &d));
	cr_expect_eq(edit, 2, "the drop, the third edit asked for");
	cr_expect_not_null(strstr(d.msg, "'drop * SET_OBJECT' matched nothing"), "%s", d.msg);
	cs_rewrite_free(rw);
	cs_device_free(dev);
	cs_scenario_free(s);
}
