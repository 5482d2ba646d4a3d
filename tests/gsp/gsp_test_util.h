/* SPDX-License-Identifier: MIT */
/* Shared helpers of the gsp tests: fixture paths and a booted machine. */
#ifndef GSP_TEST_UTIL_H
#define GSP_TEST_UTIL_H

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/gsp.h"
#include "../common/source.h" /* not gsp/source.h, which test_gdbstub.c also sees */

/* A file of fixtures/firmware/ (g_free it). */
static inline char *gsp_fixture(const char *name)
{
	return test_source_file("fixtures/firmware", name);
}

typedef struct gsp_fx {
	cs_gsp_image *img;
	cs_gsp *m;
} gsp_fx;

static inline void gsp_fx_open(gsp_fx *fx, const char *elf)
{
	char *path = gsp_fixture(elf), *map_path = gsp_fixture("gsp-fixture.map");
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_map map;
	cr_assert_eq(cs_gsp_map_load(map_path, &map, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_image_load(path, 0, &fx->img, &d), CS_OK, "%s", d.msg);
	cr_assert_eq(cs_gsp_create(&map, fx->img, &fx->m, &d), CS_OK, "%s", d.msg);
	g_free(path);
	g_free(map_path);
}

static inline void gsp_fx_close(gsp_fx *fx)
{
	cs_gsp_destroy(fx->m);
	cs_gsp_image_free(fx->img);
}

static inline uint64_t gsp_sym(gsp_fx *fx, const char *name)
{
	const cs_gsp_symbol *s = cs_gsp_image_symbol(fx->img, name);
	cr_assert(s, "no symbol %s", name);
	return s->addr;
}

static inline uint64_t gsp_read64(gsp_fx *fx, uint64_t addr)
{
	uint64_t v = 0;
	cr_assert_eq(cs_gsp_mem_read(fx->m, addr, &v, 8, NULL), CS_OK);
	return v;
}

/* Runs a debugger command and returns its output (g_free it). */
static inline char *gsp_cmd(gsp_fx *fx, const char *line, cs_status want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cs_diag d;
	cs_diag_clear(&d);
	cs_status st = cs_gsp_dbg_exec(fx->m, line, out, &d);
	fclose(out);
	cr_assert_eq(st, want, "'%s': status %d (%s), output:\n%s", line, st, d.msg, buf);
	char *r = g_strdup(buf);
	free(buf);
	return r;
}

/* Runs a debugger command that succeeds and asserts that its output holds want. */
static inline void gsp_cmd_shows(gsp_fx *fx, const char *line, const char *want)
{
	char *o = gsp_cmd(fx, line, CS_OK);
	cr_assert(strstr(o, want), "%s", o);
	g_free(o);
}

#endif
