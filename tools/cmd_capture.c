/* chainsim run FILE.cap: replay a capture on the simulator, report the chain,
 * and with --results write the observables a GPU would show, in the results
 * format chainsim-hw writes (docs/capture.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/capture.h"
#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/results.h"

#include "commands.h"

int cs_cmd_run_capture(int argc, char **argv)
{
	const char *file = NULL, *results_out = NULL;
	bool json = false, no_exec = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--no-exec"))
			no_exec = true;
		else if (!strcmp(argv[i], "--results") && i + 1 < argc)
			results_out = argv[++i];
		else if (argv[i][0] == '-' || file) {
			fprintf(stderr, "chainsim run: unexpected argument '%s' for a capture "
				"(FILE.cap [--json] [--no-exec] [--results OUT])\n", argv[i]);
			return CS_EXIT_INPUT;
		} else
			file = argv[i];
	}
	cs_diag d;
	cs_diag_clear(&d);
	char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
	cs_capture *c = file ? cs_capture_load(file, &d) : NULL;
	if (!c) {
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", file ? msg : "no capture given");
		if (json && file) { /* the object is printed for every outcome (docs/json.md) */
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
	cs_device_config cfg = { .arch = c->arch, .no_executor = no_exec };
	cs_device *dev = cs_device_new(&cfg, &d);
	cs_results res;
	cs_results_init(&res, "sim", "-", c->crc, cs_capture_arch_code(c->arch));
	int rc = CS_EXIT_OK;
	if (!dev || !cs_capture_replay(c, dev, &res, &d)) {
		snprintf(d.file, sizeof(d.file), "%s", file);
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "chainsim run: %s\n", msg);
		rc = dev ? CS_EXIT_INPUT : CS_EXIT_INTERNAL;
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
			FILE *f = fopen(results_out, "w");
			bool ok = f && cs_results_write(&res, f);
			if (f && fclose(f))
				ok = false;
			if (!ok) {
				fprintf(stderr, "chainsim run: cannot write '%s'\n", results_out);
				rc = CS_EXIT_INPUT;
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
