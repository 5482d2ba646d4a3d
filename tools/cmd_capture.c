/* SPDX-License-Identifier: MIT */
/* chainsim run FILE.cap: replay a capture on the simulator, report the chain,
 * and with --results write the observables a GPU would show, in the results
 * format chainsim-hw writes (docs/capture.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/file.h"
#include "chainsim/report.h"
#include "chainsim/results.h"
#include "chainsim/run.h"

#include "commands.h"

int cs_cmd_run_capture(const char *path, const uint8_t *bytes, size_t len,
		       const cs_run_capture_opts *o)
{
	const char *file = cs_file_name(path), *results_out = o->results_out;
	bool json = o->json;
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_capture *c = bytes ? cs_capture_parse(bytes, len, file, &d) : cs_capture_load(path, &d);
	if (!c) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		if (json) { /* the object is printed for every outcome (docs/json.md) */
			const char *base = strrchr(file, '/');
			cs_report_meta meta = { .file = base ? base + 1 : file, .error = true,
						.error_msg = msg, .error_diag = &d };
			char *text = cs_report_json(NULL, NULL, &meta);
			if (text)
				printf("%s\n", text);
			free(text);
		}
		return d.status == CS_ERR_NOMEM ? CS_EXIT_INTERNAL : CS_EXIT_INPUT;
	}
	cs_device *dev = cs_run_device(c->arch, o->exec, &d);
	cs_results res;
	cs_results_init(&res, "sim", "-", c->crc, cs_capture_arch_code(c->arch));
	int rc = CS_EXIT_OK;
	if (!dev || !cs_capture_replay(c, dev, &res, &d)) {
		snprintf(d.file, sizeof(d.file), "%s", file);
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		rc = dev && d.status != CS_ERR_NOMEM ? CS_EXIT_INPUT : CS_EXIT_INTERNAL;
	}
	cs_report *r = rc == CS_EXIT_OK ? cs_report_build(dev) : NULL;
	if (rc == CS_EXIT_OK && !r)
		rc = CS_EXIT_INTERNAL;
	if (r) {
		const char *base = strrchr(file, '/');
		cs_report_meta meta = { .file = base ? base + 1 : file };
		if (json) {
			char *text = cs_report_json(r, dev, &meta);
			if (text)
				printf("%s\n", text);
			free(text);
		} else {
			cs_report_print_text(r, &meta, stdout);
		}
		if (results_out) {
			errno = 0;
			FILE *f = fopen(results_out, "w");
			bool ok = f && cs_results_write(&res, f);
			if (f && fclose(f))
				ok = false;
			if (!ok) {
				fprintf(stderr, "chainsim run: --results %s: cannot write the results (%zu "
					"records): %s\n", results_out, res.nrecs,
					errno ? strerror(errno) : "write error");
				rc = CS_EXIT_INTERNAL;
			}
		}
		if (rc == CS_EXIT_OK)
			rc = cs_report_exit_status(r, &meta);
	}
	cs_report_free(r);
	cs_results_clear(&res);
	cs_device_free(dev);
	cs_capture_free(c);
	return rc;
}
