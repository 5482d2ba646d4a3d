/* SPDX-License-Identifier: MIT */
/* Shared by the suite 'hw' tests: export a corpus scenario to a capture image
 * in memory. */
#ifndef CHAINSIM_TESTS_HW_COMMON_H
#define CHAINSIM_TESTS_HW_COMMON_H

#include <criterion/criterion.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"
#include "source.h"

/* A scenario of tests/conformance/ (g_free it). */
static inline char *corpus_path(const char *name)
{
	return test_source_file("tests/conformance", name);
}

/* Whether the scenario at path holds the line marker. */
static inline bool corpus_says(const char *path, const char *marker)
{
	gchar *text = NULL;
	bool yes = g_file_get_contents(path, &text, NULL, NULL) && strstr(text, marker);
	g_free(text);
	return yes;
}

/* Whether the file asks for a run without the executor. */
static inline bool corpus_no_exec(const char *path)
{
	return corpus_says(path, "# run: --no-exec");
}

/* Whether the file says export refuses it (a host view or a rewrite, which a
 * capture cannot hold); export_refused() checks that it does. */
static inline bool corpus_capture_refused(const char *path)
{
	return corpus_says(path, "\n# capture: refused");
}

/* Whether the file says chainsim-hw refuses its capture (a cooperative
 * launch, which a GPU takes only through the driver's cooperative launch). */
static inline bool corpus_hw_refused(const char *path)
{
	return corpus_says(path, "\n# hw: refused");
}

static inline void expect_export_refused(const char *path)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert(s, "%s: %s", path, d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cs_capture_writer *w = cs_capture_writer_new(cs_scenario_arch(s));
	cr_assert(dev && w);
	cr_expect(!cs_capture_export(s, dev, w, &d) && strstr(d.msg, "cannot be exported"),
		  "%s: export was not refused (%s)", path, d.msg);
	cs_capture_writer_free(w);
	cs_device_free(dev);
	cs_scenario_free(s);
}

/* The capture of scenario PATH; *len its size. g_free the result. */
static inline uint8_t *export_image(const char *path, size_t *len)
{
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_load(path, &d);
	cr_assert(s, "%s: %s", path, d.msg);
	cs_device_config cfg = { .arch = cs_scenario_arch(s), .no_executor = corpus_no_exec(path) };
	cs_device *dev = cs_device_new(&cfg, &d);
	cs_capture_writer *w = cs_capture_writer_new(cs_scenario_arch(s));
	cr_assert(dev && w);
	cr_assert(cs_capture_export(s, dev, w, &d), "%s: export: %s", path, d.msg);
	const uint8_t *img = cs_capture_writer_finish(w, len);
	cr_assert(img);
	uint8_t *copy = g_memdup2(img, *len);
	cs_capture_writer_free(w);
	cs_device_free(dev);
	cs_scenario_free(s);
	return copy;
}

#endif
