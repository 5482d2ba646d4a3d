/* SPDX-License-Identifier: MIT */
/* Raw malformed pushbuffers (the .pb files in tests/fe/malformed, written by gen.py there):
 * each stops its channel with a located diagnosis containing the phrase that
 * expected.txt gives, and nothing crashes. */
#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rig.h"
#include "source.h"

static uint32_t *read_pb(const char *name, size_t *ndw)
{
	char *path = test_source_file("tests/fe/malformed", name);
	size_t n = 0;
	uint32_t *buf = (uint32_t *)test_read_file(path, &n);
	cr_assert_not_null(buf, "cannot open %s", path);
	cr_assert_eq(n % 4, 0, "%s: not whole dwords", path);
	cr_assert(n > 0, "%s is empty", path);
	g_free(path);
	*ndw = n / 4;
	return buf;
}

Test(malformed, files_give_located_diagnoses)
{
	char *path = test_source_file("tests/fe/malformed", "expected.txt");
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	char line[512];
	unsigned checked = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = '\0';
		char *name = strtok(line, "\t");
		char *arch_name = strtok(NULL, "\t");
		char *off_text = strtok(NULL, "\t");
		char *phrase = strtok(NULL, "\t");
		cr_assert(name && arch_name && off_text && phrase, "bad line in expected.txt");
		cs_arch arch;
		cr_assert(cs_arch_from_name(arch_name, &arch), "%s: arch %s", name, arch_name);
		size_t ndw;
		uint32_t *pb = read_pb(name, &ndw);
		rig *r = rig_new(arch, CS_TRACE_ALL);
		uint32_t ch = rig_channel(r, 4);
		rig_push(r, ch, rig_pb(r, pb, ndw), (uint32_t)ndw);
		rig_submit(r, ch);
		cs_fe_run_result rr = rig_run(r);
		cr_assert_eq(rr.stopped, 1, "%s: the channel must stop", name);
		const cs_diag *d = cs_fe_channel_stop_diag(r->fe, ch);
		cr_assert_not_null(d);
		cr_assert_not_null(strstr(d->msg, phrase), "%s: want \"%s\" in \"%s\"", name, phrase, d->msg);
		cr_assert(d->has_offset, "%s: the diagnosis has a byte offset", name);
		cr_assert_eq(d->offset, strtoull(off_text, NULL, 0), "%s: offset 0x%llx", name,
			     (unsigned long long)d->offset);
		cr_assert_str_eq(d->file, "pushbuffer");
		char text[1024];
		cs_diag_format(d, text, sizeof(text));
		cr_assert_not_null(strstr(text, "pushbuffer: byte 0x"), "%s", text);
		const rec_event *s = rig_nth(r, CS_EV_CHANNEL_STOP, 0);
		cr_assert_not_null(s);
		cr_assert_eq(s->ev.gp_entry, 0);
		cr_assert_str_eq(s->detail, d->msg);
		cr_assert_eq(rig_count(r, CS_EV_ENTRY_DONE), 0, "%s", name);
		rig_free(r);
		free(pb);
		checked++;
	}
	fclose(f);
	g_free(path);
	cr_assert(checked >= 8, "only %u malformed files", checked);
}
