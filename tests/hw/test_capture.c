/* SPDX-License-Identifier: MIT */
/* Captures (docs/capture.md): every corpus scenario exported and replayed on
 * the simulator judges the same chain as the scenario itself; the loader
 * refuses truncated, bit-flipped, overlapping and otherwise hostile files with
 * a byte offset, and survives mutations without a crash. */
#include "common.h"
#include "limit_captures.h"

#include <dirent.h>
#include <glib/gstdio.h>
#include <sys/wait.h>

/* The overall chain of a scenario run and of its capture's replay. */
static cs_report *judge_scenario(const char *path, cs_device **dev)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert(s);
	cs_device_config cfg = { .arch = cs_scenario_arch(s), .no_executor = corpus_no_exec(path) };
	*dev = cs_device_new(&cfg, &d);
	cs_scenario_execute(s, *dev, &d);
	cs_scenario_free(s);
	return cs_report_build(*dev);
}

static cs_report *judge_capture(const uint8_t *img, size_t len, bool no_exec, cs_device **dev)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert(c, "parse: %s at 0x%llx", d.msg, (unsigned long long)d.offset);
	cs_device_config cfg = { .arch = c->arch, .no_executor = no_exec };
	*dev = cs_device_new(&cfg, &d);
	cr_assert(cs_capture_replay(c, *dev, NULL, &d), "replay: %s", d.msg);
	cs_capture_free(c);
	return cs_report_build(*dev);
}

Test(capture, crc32_check_value)
{
	/* the standard check value of CRC-32/ISO-HDLC */
	cr_expect_eq(cs_capture_crc32(0, "123456789", 9), 0xCBF43926u);
}

/* A capture holds a ptx= file's text and its last component, not the folder
 * the scenario joined to it (docs/capture.md). The scenario's report, renamed so. */
static void name_ptx_as_the_capture_does(const char *path, cs_report *r)
{
	gchar *text = NULL;
	cr_assert(g_file_get_contents(path, &text, NULL, NULL));
	const char *ptx = strstr(text, " ptx=");
	if (ptx) {
		char *dir = g_path_get_dirname(path);
		char *rel = g_strndup(ptx + 5, strcspn(ptx + 5, " \n"));
		char *full = g_build_filename(dir, rel, NULL);
		char *last = g_path_get_basename(full);
		for (int st = 0; st <= CS_STAGE_COUNT; st++) {
			char *ev = st ? r->overall.rows[st].evidence : r->overall.diagnosis;
			size_t cap = st ? sizeof(r->overall.rows[st].evidence) : sizeof(r->overall.diagnosis);
			char *at = strstr(ev, full);
			if (!at)
				continue;
			GString *s = g_string_new_len(ev, at - ev);
			g_string_append_printf(s, "%s%s", last, at + strlen(full));
			snprintf(ev, cap, "%s", s->str);
			g_string_free(s, TRUE);
		}
		g_free(full);
		g_free(rel);
		g_free(dir);
		g_free(last);
	}
	g_free(text);
}

/* The capture img of scenario path judges the scenario's chain: the break,
 * each stage's status and evidence, the diagnosis. */
static void expect_same_chain(const char *path, const uint8_t *img, size_t len)
{
	const char *label = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	cs_device *da, *db;
	cs_report *a = judge_scenario(path, &da);
	cs_report *b = judge_capture(img, len, corpus_no_exec(path), &db);
	cr_assert(a && b);
	name_ptx_as_the_capture_does(path, a);
	cr_expect_eq(a->overall.first_break, b->overall.first_break, "%s: break %d vs %d", label,
		     a->overall.first_break, b->overall.first_break);
	for (int st = 1; st <= CS_STAGE_COUNT; st++) {
		cr_expect_eq(a->overall.rows[st].status, b->overall.rows[st].status, "%s: stage %d",
			     label, st);
		cr_expect_str_eq(a->overall.rows[st].evidence, b->overall.rows[st].evidence,
				 "%s: stage %d evidence", label, st);
	}
	cr_expect_str_eq(a->overall.diagnosis, b->overall.diagnosis, "%s", label);
	cs_report_free(a);
	cs_report_free(b);
	cs_device_free(da);
	cs_device_free(db);
}

/* The capture img without its ptx-name record: a capture written without
 * the name. g_free the result. */
static uint8_t *without_ptx_names(const uint8_t *img, size_t len, size_t *out_len)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert(c, "%s", d.msg);
	cs_capture_writer *w = cs_capture_writer_new(c->arch);
	size_t dropped = 0;
	for (size_t i = 0; i < c->nitems; i++) {
		if (c->items[i].type == CS_CAP_PTX_NAME)
			dropped++;
		else
			cr_assert(cs_capture_writer_add(w, &c->items[i], &d), "%s", d.msg);
	}
	cr_assert_eq(dropped, 1, "the capture has %zu ptx-name records", dropped);
	const uint8_t *old = cs_capture_writer_finish(w, out_len);
	uint8_t *copy = g_memdup2(old, *out_len);
	cs_capture_writer_free(w);
	cs_capture_free(c);
	return copy;
}

/* A ptx= file's name travels in a ptx-name record after its module: the
 * replayed diagnosis names the file (its last component) at the scenario's
 * line and column. A capture without the record reads as before, naming the
 * cubin. */
Test(capture, a_replayed_ptx_diagnosis_names_the_ptx_file)
{
	char *path = corpus_path("ptx-unsupported-discard.chain");
	size_t len, old_len;
	uint8_t *img = export_image(path, &len);
	uint8_t *old = without_ptx_names(img, len, &old_len);
	cs_device *da, *db, *dc;
	cs_report *a = judge_scenario(path, &da);
	cs_report *b = judge_capture(img, len, false, &db);
	cs_report *c = judge_capture(old, old_len, false, &dc);
	cr_assert(a && b && c);
	cr_expect(strstr(a->overall.diagnosis, "/ptx/discard.sm_90.ptx:47:2: unsupported instruction "
					       "'discard'"), "%s", a->overall.diagnosis);
	cr_expect(strstr(b->overall.diagnosis, "refuses vadd: discard.sm_90.ptx:47:2: unsupported "
					       "instruction 'discard'"), "%s", b->overall.diagnosis);
	cr_expect(strstr(c->overall.diagnosis, "refuses vadd: vadd.sm_90.cubin:47:2: unsupported instruction "
					       "'discard'"), "%s", c->overall.diagnosis);
	cs_report_free(a);
	cs_report_free(b);
	cs_report_free(c);
	cs_device_free(da);
	cs_device_free(db);
	cs_device_free(dc);
	g_free(old);
	g_free(img);
	g_free(path);
}

/* A ptx-name record names the PTX of the module record just before it:
 * anywhere else it is refused at its offset. */
Test(capture, a_ptx_name_record_after_no_module_with_ptx_is_refused)
{
	cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
	cs_diag d;
	cs_diag_clear(&d);
	cs_capture_item ch = { .type = CS_CAP_CHANNEL, .channel = 0, .entries = 16 };
	snprintf(ch.name, sizeof(ch.name), "c");
	cs_capture_item named = { .type = CS_CAP_PTX_NAME };
	snprintf(named.name, sizeof(named.name), "k.ptx");
	cr_assert(cs_capture_writer_add(w, &ch, &d) && cs_capture_writer_add(w, &named, &d), "%s", d.msg);
	size_t len;
	const uint8_t *img = cs_capture_writer_finish(w, &len);
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_expect_null(c);
	cr_expect(strstr(d.msg, "a ptx-name record follows a module record that holds PTX; this one follows "
				"channel"), "%s", d.msg);
	cs_capture_free(c);
	cs_capture_writer_free(w);
}

Test(capture, corpus_round_trip_same_chain)
{
	char *dir = corpus_path("");
	DIR *dp = opendir(dir);
	cr_assert(dp, "%s", dir);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(dp))) {
		if (!g_str_has_suffix(de->d_name, ".chain"))
			continue;
		char *path = corpus_path(de->d_name);
		if (corpus_capture_refused(path)) {
			expect_export_refused(path);
			g_free(path);
			continue;
		}
		size_t len;
		uint8_t *img = export_image(path, &len);
		expect_same_chain(path, img, len);
		g_free(img);
		g_free(path);
		n++;
	}
	closedir(dp);
	g_free(dir);
	cr_expect_geq(n, 40, "only %u corpus files", n);
	printf("BENCH capture-round-trip scenarios=%u\n", n);
}

static void expect_refused(const uint8_t *img, size_t len, const char *phrase)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert_null(c, "accepted a capture that should be refused (%s)", phrase ? phrase : "");
	cr_expect_eq(d.status, CS_ERR_INPUT);
	cr_expect(d.has_offset, "no byte offset: %s", d.msg);
	cr_expect_leq(d.offset, len, "offset 0x%llx past the file", (unsigned long long)d.offset);
	if (phrase)
		cr_expect(strstr(d.msg, phrase), "'%s' does not say '%s'", d.msg, phrase);
}

Test(capture, truncated_at_every_length)
{
	char *path = corpus_path("complete-hopper-pcas.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	for (size_t n = 0; n < len; n++)
		expect_refused(img, n, "truncated");
	g_free(img);
	g_free(path);
}

Test(capture, every_bit_flip_refused)
{
	/* a capture without a module record: every bit of a fatbin is many parses */
	char *path = corpus_path("cross-channel-semaphore.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cr_assert_gt(len, 1000);
	for (size_t i = 0; i < len; i++)
		for (int b = 0; b < 8; b++) {
			img[i] ^= (uint8_t)(1u << b);
			expect_refused(img, len, NULL);
			img[i] ^= (uint8_t)(1u << b);
		}
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_expect(c, "the unflipped image is refused: %s", d.msg);
	cs_capture_free(c);
	g_free(img);
	g_free(path);
}

/* A capture built record by record. */
static const uint8_t *build(cs_capture_writer *w, const cs_capture_item *items, size_t n, size_t *len)
{
	cs_diag d;
	cs_capture_item ch = { .type = CS_CAP_CHANNEL, .channel = 0, .entries = 1024 };
	strcpy(ch.name, "default");
	cr_assert(cs_capture_writer_add(w, &ch, &d));
	for (size_t i = 0; i < n; i++)
		cr_assert(cs_capture_writer_add(w, &items[i], &d), "item %zu: %s", i, d.msg);
	return cs_capture_writer_finish(w, len);
}

Test(capture, overlapping_regions_refused)
{
	static const uint8_t bytes[16] = { 1 };
	cs_capture_item r[2] = {
		{ .type = CS_CAP_REGION, .va = 0x200000000, .host_va = 0x200000000, .size = 0x2000,
		  .bytes = bytes, .nbytes = 16 },
		{ .type = CS_CAP_REGION, .va = 0x200001000, .host_va = 0x300000000, .size = 0x1000 },
	};
	cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
	size_t len;
	const uint8_t *img = build(w, r, 2, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert_null(c);
	cr_expect(strstr(d.msg, "overlaps"), "%s", d.msg);
	/* the second region record: header (32) + channel record (12 + 72) + region (12 + 88 + 16) */
	cr_expect_eq(d.offset, 32 + 84 + 116 + 12, "offset 0x%llx", (unsigned long long)d.offset);
	cs_capture_writer_free(w);

	/* the same guest VAs apart, host VAs overlapping */
	r[1].va = 0x300000000;
	r[1].host_va = 0x200000000;
	w = cs_capture_writer_new(CS_ARCH_HOPPER);
	img = build(w, r, 2, &len);
	expect_refused(img, len, "overlaps");
	cs_capture_writer_free(w);

	/* apart on both sides: accepted */
	r[1].host_va = 0x300000000;
	w = cs_capture_writer_new(CS_ARCH_HOPPER);
	img = build(w, r, 2, &len);
	c = cs_capture_parse(img, len, "t.cap", &d);
	cr_expect(c, "%s", d.msg);
	cs_capture_free(c);
	cs_capture_writer_free(w);
}

Test(capture, semantic_checks_located)
{
	static const uint8_t bytes[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const cs_capture_item region = { .type = CS_CAP_REGION, .va = 0x200000000,
					 .host_va = 0x200000000, .size = 0x1000 };
	struct {
		cs_capture_item it;
		const char *phrase;
	} cases[] = {
		{ { .type = CS_CAP_WRITE, .va = 0x200000ffc, .bytes = bytes, .nbytes = 8 },
		  "not inside one region" },
		{ { .type = CS_CAP_READBACK, .va = 0x200001000, .size = 4, .aux = CS_CAP_RB_MEMORY },
		  "not inside one region" },
		{ { .type = CS_CAP_READBACK, .va = 0x200000000, .size = 4, .aux = 9 }, "kind" },
		{ { .type = CS_CAP_GPFIFO, .channel = 1 }, "no channel record" },
		{ { .type = CS_CAP_SUBMIT, .channel = 7 }, "no channel record" },
		{ { .type = CS_CAP_WAIT, .va = 0x200000000, .value = 1, .size = 3 }, "width" },
		{ { .type = CS_CAP_WAIT, .va = 0x200000000, .value = 1ull << 40, .size = 4 },
		  "does not fit" },
		{ { .type = CS_CAP_WAIT, .va = 0x200000000, .value = 1, .size = 4, .aux = 2 },
		  "wait comparison 2; expected 0 (==) or 1 (>=)" },
		{ { .type = CS_CAP_WAIT, .va = 0x200000000, .value = 1, .size = 8,
		    .aux = CS_CAP_WAIT_GEQ }, NULL }, /* fine: a >= wait */
		{ { .type = CS_CAP_REGION, .va = 0x200000800, .host_va = 0x200000800, .size = 0x1000 },
		  "aligned" },
		{ { .type = CS_CAP_REGION, .va = 1ull << 57, .host_va = 0x400000000, .size = 0x1000 },
		  "address space" },
		{ { .type = CS_CAP_REGION, .va = 0x500000000, .host_va = 0x500000000,
		    .size = 0x1000, .bytes = bytes, .nbytes = 0 }, NULL }, /* fine: a control */
		{ { .type = CS_CAP_CHANNEL, .channel = 3, .entries = 64 }, "dense" },
		{ { .type = CS_CAP_CHANNEL, .channel = 1, .entries = 1 }, "entries" },
		{ { .type = CS_CAP_COOPERATIVE, .va = 0x200000080, .value = 0x200000100 },
		  "QMD at 0x200000080: expected a 256-byte aligned address inside one region" },
		{ { .type = CS_CAP_COOPERATIVE, .va = 0x300000000, .value = 0x200000100 },
		  "inside one region" },
		{ { .type = CS_CAP_COOPERATIVE, .va = 0x200000000, .value = 0x200000ffc },
		  "grid workspace at 0x200000ffc: expected 8 bytes" },
		{ { .type = CS_CAP_COOPERATIVE, .va = 0x200000000, .value = 0x200000102 },
		  "4-byte aligned" },
		{ { .type = CS_CAP_COOPERATIVE, .va = 0x200000000, .value = 0x200000ff8 },
		  NULL }, /* fine: the QMD and the workspace in the region */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cs_capture_item two[2] = { region, cases[i].it };
		if (two[1].type == CS_CAP_CHANNEL)
			strcpy(two[1].name, "other");
		cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
		size_t len;
		const uint8_t *img = build(w, two, 2, &len);
		if (cases[i].phrase) {
			expect_refused(img, len, cases[i].phrase);
		} else {
			cs_diag d;
			cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
			cr_expect(c, "case %zu refused: %s", i, d.msg);
			cs_capture_free(c);
		}
		cs_capture_writer_free(w);
	}
}

/* The image without its records of one type (the end record's count and
 * the checksums fixed up); *len shrinks. */
static void drop_records(uint8_t *img, size_t *len, cs_capture_rec type)
{
	size_t out = CS_CAPTURE_HEADER_SIZE, kept = 0;
	for (size_t off = CS_CAPTURE_HEADER_SIZE; off < *len;) {
		uint32_t t, rlen;
		memcpy(&t, img + off, 4);
		memcpy(&rlen, img + off + 4, 4);
		size_t n = CS_CAPTURE_RECORD_HEADER + rlen;
		if (t == CS_CAP_END)
			memcpy(img + off + CS_CAPTURE_RECORD_HEADER, &(uint32_t){ (uint32_t)kept }, 4);
		if (t != type) {
			memmove(img + out, img + off, n);
			out += n;
			kept += t != CS_CAP_END;
		}
		off += n;
	}
	*len = out;
	uint32_t crc = cs_capture_crc32(cs_capture_crc32(0, img + out - 16, 8), img + out - 4, 4);
	memcpy(img + out - 8, &crc, 4);
}

/* A cooperative launch's capture says which QMD launches cooperatively and
 * where its grid workspace is; replayed without that record, the launch is a
 * plain one and its grid sync traps (%envreg1/2 read 0). */
Test(capture, cooperative_record_carries_the_launch)
{
	char *path = corpus_path("complete-hopper-cooperative.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert(s, "%s", d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cr_assert(cs_scenario_execute(s, dev, &d), "%s", d.msg);
	uint64_t qmd = 0, ws = 0, size;
	cr_assert(cs_scenario_symbol(s, "L.qmd", &qmd, &size) &&
		  cs_scenario_symbol(s, "L.ws", &ws, &size));
	cs_device_free(dev);
	cs_scenario_free(s);

	cs_capture *c = cs_capture_parse(img, len, "coop.cap", &d);
	cr_assert(c, "%s", d.msg);
	unsigned n = 0;
	for (size_t i = 0; i < c->nitems; i++)
		if (c->items[i].type == CS_CAP_COOPERATIVE) {
			cr_expect_eq(c->items[i].va, qmd, "QMD 0x%llx", (unsigned long long)c->items[i].va);
			cr_expect_eq(c->items[i].value, ws, "workspace 0x%llx",
				     (unsigned long long)c->items[i].value);
			n++;
		}
	cr_expect_eq(n, 1, "%u cooperative records", n);
	cs_capture_free(c);

	cs_report *r = judge_capture(img, len, false, &dev);
	cr_expect_eq(r->overall.first_break, 0, "with the record: break at stage %d: %s",
		     r->overall.first_break, r->overall.diagnosis);
	cs_report_free(r);
	cs_device_free(dev);

	drop_records(img, &len, CS_CAP_COOPERATIVE);
	r = judge_capture(img, len, false, &dev);
	cr_expect_eq(r->overall.first_break, CS_STAGE_GR_DISPATCH,
		     "without the record the grid sync should trap: break at stage %d: %s",
		     r->overall.first_break, r->overall.diagnosis);
	cs_report_free(r);
	cs_device_free(dev);
	g_free(img);
	g_free(path);
}

/* A capture written before the format had a cooperative record (committed
 * as that exporter wrote it) reads and replays the same, and today's
 * exporter writes the same bytes for its scenario. */
Test(capture, a_capture_of_the_first_format_reads_the_same)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char *old_path = g_build_filename(root ? root : ".", "tests", "hw", "captures",
					  "cross-channel-semaphore.cap", NULL);
	gchar *old = NULL;
	gsize old_len = 0;
	cr_assert(g_file_get_contents(old_path, &old, &old_len, NULL), "%s", old_path);
	char *path = corpus_path("cross-channel-semaphore.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	cr_expect(len == old_len && !memcmp(img, old, len), "the export differs from the old file");
	expect_same_chain(path, (const uint8_t *)old, old_len);
	g_free(img);
	g_free(path);
	g_free(old);
	g_free(old_path);
}

Test(capture, header_and_trailer_checks)
{
	char *path = corpus_path("host-only.chain");
	size_t len;
	uint8_t *img = export_image(path, &len);
	uint8_t *big = g_malloc(len + 4);
	memcpy(big, img, len);
	memset(big + len, 0, 4);
	expect_refused(big, len + 4, "after the end record");
	expect_refused((const uint8_t *)"NOTACAPT", 8, "truncated");
	uint8_t hdr[32] = "NOTACAPTURE";
	expect_refused(hdr, 32, "magic");
	g_free(big);
	g_free(img);
	g_free(path);
}

/* splitmix64, for a deterministic run */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Mutations: overwrite, insert, delete and duplicate bytes, with and without
 * fixing the record checksums afterwards, so the semantic checks behind the
 * checksum see hostile values too. Nothing may crash (the suite runs under
 * ASan in CI); what is accepted must replay without a crash. */
static void fix_crcs(uint8_t *b, size_t len)
{
	if (len < 32)
		return;
	uint32_t h = cs_capture_crc32(0, b, 28);
	memcpy(b + 28, &h, 4);
	for (size_t off = 32; off + 12 <= len;) {
		uint32_t rlen;
		memcpy(&rlen, b + off + 4, 4);
		if (rlen > len - off - 12)
			return;
		uint32_t crc = cs_capture_crc32(cs_capture_crc32(0, b + off, 8), b + off + 12, rlen);
		memcpy(b + off + 8, &crc, 4);
		off += 12 + rlen;
	}
}

/* The read-backs together hold at most CS_CAPTURE_MAX_READBACK_TOTAL bytes:
 * the writer refuses the read-back past it, and so does the reader, naming
 * the numbers at that record's length field. */
Test(capture, readbacks_bounded_together)
{
	enum { N = CS_CAPTURE_MAX_READBACK_TOTAL / CS_CAPTURE_MAX_READBACK };
	cs_capture_item items[N + 2] = {
		{ .type = CS_CAP_REGION, .va = 0x200000000, .host_va = 0x200000000,
		  .size = CS_CAPTURE_MAX_READBACK_TOTAL },
	};
	for (size_t i = 1; i <= N + 1; i++)
		items[i] = (cs_capture_item){ .type = CS_CAP_READBACK,
					      .va = 0x200000000 + (i - 1) % N * CS_CAPTURE_MAX_READBACK,
					      .size = CS_CAPTURE_MAX_READBACK, .aux = CS_CAP_RB_MEMORY };
	cs_capture_writer *w = cs_capture_writer_new(CS_ARCH_HOPPER);
	size_t len;
	const uint8_t *at_cap = build(w, items, N + 1, &len);
	cs_diag d;
	cs_capture *c = cs_capture_parse(at_cap, len, "t.cap", &d);
	cr_expect(c, "read-backs of exactly the cap refused: %s", d.msg);
	cs_capture_free(c);
	/* one more: the file as a hostile writer would make it (the last
	 * read-back record again, before the end record) */
	size_t rb = CS_CAPTURE_RECORD_HEADER + 16 + 64, end = CS_CAPTURE_RECORD_HEADER + 4;
	uint8_t *over = malloc(len + rb);
	cr_assert(over);
	memcpy(over, at_cap, len - end);
	memcpy(over + len - end, at_cap + len - end - rb, rb);
	memcpy(over + len - end + rb, at_cap + len - end, end);
	uint32_t count;
	memcpy(&count, over + len + rb - 4, 4);
	count++;
	memcpy(over + len + rb - 4, &count, 4);
	fix_crcs(over, len + rb);
	c = cs_capture_parse(over, len + rb, "t.cap", &d);
	cr_assert_null(c);
	cr_expect_eq(d.status, CS_ERR_INPUT);
	cr_expect(strstr(d.msg, "read-back of 1048576 bytes brings the read-backs to 5242880 bytes "
			 "in 5, more than the 4194304 a capture may read back"), "%s", d.msg);
	cr_expect_eq(d.offset, len - end + CS_CAPTURE_RECORD_HEADER + 8, "offset 0x%llx",
		     (unsigned long long)d.offset);
	free(over);
	cs_capture_writer_free(w);
	w = cs_capture_writer_new(CS_ARCH_HOPPER);
	cs_capture_item ch = { .type = CS_CAP_CHANNEL, .channel = 0, .entries = 1024 };
	strcpy(ch.name, "default");
	cr_assert(cs_capture_writer_add(w, &ch, &d));
	for (size_t i = 0; i <= N; i++)
		cr_assert(cs_capture_writer_add(w, &items[i], &d), "item %zu: %s", i, d.msg);
	strcpy(items[N + 1].name, "out");
	cr_expect_not(cs_capture_writer_add(w, &items[N + 1], &d));
	cr_expect(strstr(d.msg, "read-back out of 1048576 bytes brings the read-backs to 5242880 "
			 "bytes in 5, more than the 4194304"), "%s", d.msg);
	cs_capture_writer_free(w);
}

/* At the format's limits the loaders stay near linear (bench_loaders has
 * the figures): 2^20 records of regions, writes and read-backs load, and
 * `diff --hw-results` compares a 16 MiB results file, well inside the
 * timeout, which a loader that rescans every record for each one does not. */
Test(capture, loaders_at_the_format_limits, .timeout = 120)
{
	cs_diag d;
	size_t len;
	uint8_t *img = limit_regions_capture((CS_CAPTURE_MAX_RECORDS - 1) / 3, &len, &d);
	cr_assert(img, "%s", d.msg);
	cs_capture *c = cs_capture_parse(img, len, "t.cap", &d);
	cr_assert(c, "%s", d.msg);
	cr_expect_eq(c->nitems, 1 + (CS_CAPTURE_MAX_RECORDS - 1) / 3 * 3);
	cs_capture_free(c);
	g_free(img);

	img = limit_readbacks_capture(LIMIT_RESULTS_READBACKS, &len, &d);
	cr_assert(img, "%s", d.msg);
	char *dir = g_dir_make_tmp("limits-XXXXXX", NULL);
	char *cap = g_build_filename(dir, "rb.cap", NULL), *res = g_build_filename(dir, "rb.res", NULL);
	cr_assert(g_file_set_contents(cap, (const char *)img, (gssize)len, NULL));
	g_free(img);
	char *exe = g_build_filename(getenv("CHAINSIM_BUILD_ROOT"), "tools", "chainsim", NULL);
	const char *runs[][6] = { { exe, "run", cap, "--results", res, NULL },
				  { exe, "diff", "--hw-results", res, cap, NULL } };
	for (size_t i = 0; i < 2; i++) {
		char *out = NULL, *err = NULL;
		int ws = 0;
		cr_assert(g_spawn_sync(NULL, (char **)runs[i], NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
				       &err, &ws, NULL));
		/* the run has no launch: a chain that never starts is exit 1 */
		cr_expect(WIFEXITED(ws) && WEXITSTATUS(ws) == (i ? 0 : 1), "%s: status 0x%x: %s",
			  runs[i][1], ws, err);
		if (i)
			cr_expect(strstr(out, "no divergence"), "%s", out);
		g_free(out);
		g_free(err);
	}
	struct stat st;
	cr_expect(g_stat(res, &st) == 0 && st.st_size < (16 << 20), "the results outgrow what diff reads");
	g_unlink(cap);
	g_unlink(res);
	g_rmdir(dir);
	g_free(exe);
	g_free(cap);
	g_free(res);
	g_free(dir);
}

Test(capture, mutations_never_crash, .timeout = 240)
{
	const char *names[] = { "complete-hopper-pcas.chain", "cross-channel-semaphore.chain",
				"copy-release.chain", "complete-hopper-cooperative.chain" };
	uint64_t seed = 13;
	unsigned accepted = 0, total = 0;
	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		char *path = corpus_path(names[f]);
		size_t len;
		uint8_t *img = export_image(path, &len);
		uint8_t *m = g_malloc(len + 64);
		for (int round = 0; round < 1500; round++) {
			size_t n = len;
			memcpy(m, img, len);
			int edits = 1 + (int)(next(&seed) % 4);
			for (int e = 0; e < edits; e++) {
				size_t at = (size_t)(next(&seed) % n);
				switch (next(&seed) % 4) {
				case 0: m[at] = (uint8_t)next(&seed); break;
				case 1: /* a 32-bit field set to an edge value */
					if (at + 4 <= n) {
						static const uint32_t edge[] = { 0, 1, 0xffffffff, 0x80000000, 0x1000, 12 };
						uint32_t v = edge[next(&seed) % 6];
						memcpy(m + at, &v, 4);
					}
					break;
				case 2: if (n < len + 60) { memmove(m + at + 1, m + at, n - at); n++; } break;
				default: memmove(m + at, m + at + 1, n - at - 1); n--; break;
				}
			}
			bool fixed = next(&seed) & 1;
			if (fixed)
				fix_crcs(m, n);
			cs_diag d;
			cs_diag_clear(&d);
			cs_capture *c = cs_capture_parse(m, n, "m.cap", &d);
			total++;
			if (!c) {
				cr_expect_eq(d.status, CS_ERR_INPUT);
				cr_expect(d.has_offset);
				continue;
			}
			accepted++;
			cs_device_config cfg = { .arch = c->arch };
			cs_device *dev = cs_device_new(&cfg, &d);
			cs_capture_replay(c, dev, NULL, &d);
			cs_report_free(cs_report_build(dev));
			cs_device_free(dev);
			cs_capture_free(c);
		}
		g_free(m);
		g_free(img);
		g_free(path);
	}
	cr_log_info("mutations: %u, accepted %u", total, accepted);
	printf("BENCH capture-mutations total=%u accepted=%u\n", total, accepted);
}
