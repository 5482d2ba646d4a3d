/* SPDX-License-Identifier: MIT */
/* chainsim disasm FILE --arch A [--bind SUBCH=CLASS]... [--offset N] [--length N]
 * [--name NAME]: raw pushbuffer bytes to a scenario `push` block that
 * assembles back to the same bytes (sim/scenario/disasm.c). */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/arch.h"
#include "chainsim/scenario.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim disasm FILE --arch ARCH [--bind SUBCH=CLASS]... [--offset N]\n"
		"                       [--length N] [--name NAME]\n"
		"\n"
		"Turns raw pushbuffer bytes into scenario text (a push block) with decoded\n"
		"fields as comments; the text assembles back to the same bytes.\n"
		"  --arch ARCH          ampere, ada, hopper or blackwell (method names, classes)\n"
		"  --bind SUBCH=CLASS   name methods on SUBCH (0..7) by CLASS (0xcbc0 or its name),\n"
		"                       as if a SET_OBJECT had bound it before the buffer\n"
		"  --offset N           start N bytes into FILE (default 0)\n"
		"  --length N           take N bytes (default: to the end of FILE)\n"
		"  --name NAME          the push block's name (default pb)\n"
		"  --version            print chainsim's version\n"
		"FILE - reads standard input; an option's value follows it or an '='.\n"
		"Exit status: 0 ok, 2 bad input (the message names the byte offset).\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-')
		return false;
	char *end = NULL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

static bool parse_class(const char *s, uint32_t *out)
{
	uint64_t v;
	if (parse_u64(s, &v)) {
		if (v > 0xffff || cs_class_kind_of((uint32_t)v) == CS_CLASS_NONE)
			return false;
		*out = (uint32_t)v;
		return true;
	}
	for (uint32_t c = 0; c <= 0xffff; c++) {
		const char *n = cs_class_name(c);
		if (n && !strcmp(n, s)) {
			*out = c;
			return true;
		}
	}
	return false;
}

/* The output must assemble back: a --name the scenario parser would not read
 * as a push block's name (a space, a '#', a keyword...) is refused. */
static bool name_reads_back(const char *name)
{
	for (const char *c = name; *c; c++) {
		if (!g_ascii_isalnum(*c) && *c != '_') {
			fprintf(stderr, "chainsim disasm: --name '%s': '%c' would not read back "
				"(names are letters, digits and '_')\n", name, *c);
			return false;
		}
	}
	char *text = g_strdup_printf("arch hopper\npush %s\nend\n", name);
	cs_diag d;
	cs_diag_clear(&d);
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "--name", NULL, &d);
	g_free(text);
	if (!s) {
		fprintf(stderr, "chainsim disasm: --name '%s' would not read back as a push block's "
			"name: %s\n", name, d.msg);
		return false;
	}
	cs_scenario_free(s);
	return true;
}

enum { OPT_ARCH = 0x200, OPT_BIND, OPT_OFFSET, OPT_LENGTH, OPT_NAME };

static const struct option disasm_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ "name", required_argument, NULL, OPT_NAME },
	{ 0 },
};

int cs_cmd_disasm(int argc, char **argv)
{
	const char *file = NULL, *name = NULL;
	bool have_arch = false, have_len = false;
	uint64_t offset = 0, length = 0;
	cs_disasm_opts o;
	memset(&o, 0, sizeof(o));
	cs_cli_begin();
	for (int c; (c = getopt_long(argc, argv, ":h", disasm_options, NULL)) != -1;) {
		const char *v = optarg;
		uint32_t cls;
		switch (c) {
		case 'h':
			usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_ARCH:
			if (!cs_arch_from_name(v, &o.arch)) {
				fprintf(stderr, "chainsim disasm: --arch wants ampere, ada, hopper or "
						"blackwell, not '%s'\n", v);
				return CS_EXIT_INPUT;
			}
			have_arch = true;
			break;
		case OPT_BIND: {
			const char *eq = strchr(v, '=');
			if (!eq || eq - v != 1 || v[0] < '0' || v[0] > '7' || !parse_class(eq + 1, &cls)) {
				fprintf(stderr, "chainsim disasm: --bind wants SUBCH=CLASS (SUBCH 0..7, "
						"CLASS a known class id such as 0xcbc0 or its name), "
						"not '%s'\n", v);
				return CS_EXIT_INPUT;
			}
			o.bind[v[0] - '0'] = cls;
			break;
		}
		case OPT_OFFSET:
		case OPT_LENGTH:
			if (!parse_u64(v, c == OPT_OFFSET ? &offset : &length)) {
				fprintf(stderr, "chainsim disasm: --%s wants a byte count, not '%s'\n",
					c == OPT_OFFSET ? "offset" : "length", v);
				return CS_EXIT_INPUT;
			}
			have_len |= c == OPT_LENGTH;
			break;
		case OPT_NAME:
			if (!*v) {
				fprintf(stderr, "chainsim disasm: --name wants a name\n");
				return CS_EXIT_INPUT;
			}
			if (!name_reads_back(v))
				return CS_EXIT_INPUT;
			name = v;
			break;
		default:
			return cs_cli_bad_option("disasm", c, argv, usage);
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "chainsim disasm: one FILE only ('%s' is a second)\n", argv[optind]);
		return CS_EXIT_INPUT;
	}
	if (!file || !have_arch) {
		fprintf(stderr, "chainsim disasm: %s\n", !file ? "a FILE is needed" : "--arch is needed");
		usage(stderr);
		return CS_EXIT_INPUT;
	}
	char *bytes = NULL;
	size_t len = 0;
	cs_diag rd;
	cs_diag_clear(&rd);
	if (!cs_file_read(file, CS_FILE_MAX_BINARY, "the pushbuffer bytes", &bytes, &len, &rd)) {
		char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 8];
		cs_diag_format(&rd, msg, sizeof(msg));
		fprintf(stderr, "chainsim disasm: %s\n", msg);
		return rd.status == CS_ERR_NOMEM ? CS_EXIT_INTERNAL : CS_EXIT_INPUT;
	}
	if (offset > len || (have_len && length > len - offset)) {
		char lenbuf[40] = "";
		if (have_len)
			snprintf(lenbuf, sizeof(lenbuf), " --length %llu", (unsigned long long)length);
		fprintf(stderr, "chainsim disasm: %s: --offset %llu%s is past the end of the file "
				"(%zu bytes)\n", cs_file_name(file), (unsigned long long)offset, lenbuf, (size_t)len);
		free(bytes);
		return CS_EXIT_INPUT;
	}
	if (!have_len)
		length = len - offset;
	o.name = name;
	o.file = cs_file_name(file);
	o.base = offset;
	cs_diag d;
	char *text = cs_scenario_disasm((const uint8_t *)bytes + offset, (size_t)length, &o, &d);
	free(bytes);
	if (!text) {
		char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return d.status == CS_ERR_INTERNAL ? CS_EXIT_INTERNAL : CS_EXIT_INPUT;
	}
	fputs(text, stdout);
	free(text);
	return CS_EXIT_OK;
}
