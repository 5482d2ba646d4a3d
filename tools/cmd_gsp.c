/* SPDX-License-Identifier: MIT */
/* chainsim gsp: the GSP firmware debugger's command line (gsp/README.md). */
#include <arpa/inet.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/gsp.h"
#include "chainsim/repl.h"
#include "cli.h"
#include "commands.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: chainsim gsp FIRMWARE [--map FILE] [--raw-base ADDR] [--load FILE[@ADDR]]...\n"
		"                    [--priv M|S|U] [--monitor] [--boot ga10x] [--script FILE]\n"
		"                    [-ex COMMAND]... [--gdb [HOST:]PORT] [--guard-ms N] [--mmio-log]\n"
		"  FIRMWARE      an RV64 ELF executable, NVIDIA's firmware container (gsp_*.bin:\n"
		"                its .fwimage section), or raw bytes, both loaded at --raw-base;\n"
		"                also given as --image FILE\n"
		"  --load FILE[@ADDR]  load a further image beside the first (repeatable;\n"
		"                raw bytes or a container at ADDR, an ELF where it is linked)\n"
		"  --priv M|S|U  the mode the hart starts in (M)\n"
		"  --boot ga10x  the machine as NVIDIA's driver and Booter leave it for GSP-RM 535\n"
		"                on Ampere GA10x: its own map, the image in FB, the boot data,\n"
		"                the hart in S-mode at the image's entry, the monitor model on\n"
		"                (not with --map, --raw-base, --load or --priv)\n"
		"  --monitor     answer ecalls that reach M with the monitor model (SBI base,\n"
		"                shutdown, NVIDIA's vendor extension); --mmio-log shows each call\n"
		"  --mmio-log    log unmodelled accesses (unmapped memory, custom CSRs) with\n"
		"                pc, address, width and value; they read as zero\n"
		"  --map FILE    the memory map (GLib key file); default: the fixture map\n"
		"  --script FILE run the debugger commands in FILE (batch mode)\n"
		"  -ex COMMAND   run one command (repeatable; in order, before --script)\n"
		"  --gdb ADDR    serve the GDB remote protocol on HOST:PORT (127.0.0.1 unless given;\n"
		"                port 0 picks a free one and prints it)\n"
		"  --gdb-allow-remote  let --gdb listen beyond loopback (it warns: anyone who\n"
		"                can reach the port can read and write the firmware's memory)\n"
		"  --gdb-idle-ms N  drop a GDB client silent for N ms while stopped (600000)\n"
		"  --version     print chainsim's version\n"
		"Without --script, -ex or --gdb, an interactive session starts. One of FIRMWARE,\n"
		"--map and --script may be -, standard input (not the firmware or the map of an\n"
		"interactive session, which reads its commands there); an option's value follows\n"
		"it or an '='.\n");
}

static int exit_for(cs_status st)
{
	switch (st) {
	case CS_OK: return CS_EXIT_OK;
	case CS_ERR_FAULT: return CS_EXIT_BROKEN;
	case CS_ERR_INPUT:
	case CS_ERR_UNSUPPORTED: return CS_EXIT_INPUT;
	case CS_ERR_UNAVAILABLE: return CS_EXIT_UNAVAILABLE;
	default: return CS_EXIT_INTERNAL;
	}
}

static int fail(const cs_diag *d)
{
	char msg[1024];
	cs_diag_format(d, msg, sizeof(msg));
	fprintf(stderr, "chainsim gsp: %s\n", msg);
	return exit_for(d->status);
}

typedef struct gsp_cli {
	cs_gsp *m;
} gsp_cli;

static cs_status exec_cb(void *ctx, const char *line, FILE *out, cs_diag *d)
{
	return cs_gsp_dbg_exec(((gsp_cli *)ctx)->m, line, out, d);
}

static const char *words_cb(void *ctx, size_t i)
{
	static const char *const extra[] = {
		"msgq.cmd.write", "msgq.cmd.read", "msgq.stat.write", "msgq.stat.read", "GET_GSP_STATIC_INFO",
		"GSP_RM_ALLOC", "GSP_RM_CONTROL", "registers", "breakpoints", "map", "symbol", "all-registers",
		"snapshots", "init", "send", "post", "recv", "drain", "save", "restore", "monitor", "trace", "on",
		"off", NULL,
	};
	const cs_gsp_image *img = cs_gsp_image_of(((gsp_cli *)ctx)->m);
	size_t nsym = img ? img->nsym : 0;
	if (i < nsym)
		return img->sym[i].name;
	i -= nsym;
	for (size_t k = 0; extra[k]; k++)
		if (k == i)
			return extra[k];
	return NULL;
}

/* The host a remote-reachable stub listens on, or NULL on loopback. */
typedef struct {
	const char *remote_host;
} gdb_listen;

static void gdb_ready(uint16_t port, void *ctx)
{
	const gdb_listen *where = ctx;
	/* the stub reads and writes the firmware's memory for whoever connects */
	if (where->remote_host)
		fprintf(stderr, "chainsim gsp: warning: the GDB stub on %s:%u accepts "
			"anyone who can reach it, and lets them read and write the "
			"firmware's memory\n", where->remote_host, port);
	printf("gdb stub listening on port %u\n", port);
	fflush(stdout);
}

enum { OPT_MAP = 0x200, OPT_MMIO_LOG, OPT_IMAGE, OPT_SCRIPT, OPT_EX, OPT_GDB,
       OPT_GDB_ALLOW_REMOTE, OPT_RAW_BASE, OPT_GUARD_MS, OPT_GDB_IDLE_MS, OPT_LOAD, OPT_PRIV,
       OPT_MONITOR, OPT_BOOT };

/* getopt_long_only, so that gdb's -ex spelling stays as it was */
static const struct option gsp_options[] = {
	{ "help", no_argument, NULL, 'h' },
	CS_CLI_VERSION_OPTION,
	{ "map", required_argument, NULL, OPT_MAP },
	{ "mmio-log", no_argument, NULL, OPT_MMIO_LOG },
	{ "image", required_argument, NULL, OPT_IMAGE },
	{ "script", required_argument, NULL, OPT_SCRIPT },
	{ "ex", required_argument, NULL, OPT_EX },
	{ "gdb", required_argument, NULL, OPT_GDB },
	{ "gdb-allow-remote", no_argument, NULL, OPT_GDB_ALLOW_REMOTE },
	{ "raw-base", required_argument, NULL, OPT_RAW_BASE },
	{ "guard-ms", required_argument, NULL, OPT_GUARD_MS },
	{ "gdb-idle-ms", required_argument, NULL, OPT_GDB_IDLE_MS },
	{ "load", required_argument, NULL, OPT_LOAD },
	{ "priv", required_argument, NULL, OPT_PRIV },
	{ "monitor", no_argument, NULL, OPT_MONITOR },
	{ "boot", required_argument, NULL, OPT_BOOT },
	{ 0 },
};

/* The privilege level a --priv letter names, or -1. */
static int priv_of(const char *a)
{
	static const char *const letters[] = { "U", "S", NULL, "M" };
	for (int p = 0; p < 4; p++)
		if (letters[p] && !g_ascii_strcasecmp(a, letters[p]))
			return p;
	return -1;
}

/* Loads each --load FILE[@ADDR] beside the first image; the images are kept
 * in `loaded` for after the machine. */
static cs_status load_further(cs_gsp *m, GPtrArray *specs, GPtrArray *loaded, cs_diag *d)
{
	for (guint i = 0; i < specs->len; i++) {
		char *spec = g_strdup(g_ptr_array_index(specs, i));
		char *at = strrchr(spec, '@');
		uint64_t base = 0;
		if (at) {
			char *end = NULL;
			*at = 0;
			base = strtoull(at + 1, &end, 0);
			if (!at[1] || *end) {
				cs_diag_set(d, CS_ERR_INPUT, "--load %s: '%s' is not an address", spec, at + 1);
				g_free(spec);
				return CS_ERR_INPUT;
			}
		}
		cs_gsp_image *img = NULL;
		cs_status st = cs_gsp_image_load(spec, base, &img, d);
		if (st == CS_OK) {
			g_ptr_array_add(loaded, img);
			st = cs_gsp_load(m, img, d);
		}
		if (st != CS_OK) {
			char why[sizeof(d->msg)];
			snprintf(why, sizeof(why), "%s", d->msg);
			cs_diag_set(d, st, "--load %s: %s", spec, why);
			g_free(spec);
			return st;
		}
		g_free(spec);
	}
	return CS_OK;
}

/* The command line, as parsed. */
typedef struct gsp_args {
	const char *fw, *map_path, *script, *gdb, *boot;
	bool placed; /* --map, --raw-base, --load or --priv given */
	uint64_t raw_base, guard_ms, gdb_idle_ms;
	bool gdb_remote, unmodelled_log, monitor;
	int start_priv;
	GPtrArray *ex;    /* -ex COMMAND, in order */
	GPtrArray *loads; /* --load FILE[@ADDR], in order */
} gsp_args;

/* Some options are checked against the others once all are read. */
static int check_args(const gsp_args *o)
{
	if (!o->fw) {
		usage(stderr);
		return CS_EXIT_INPUT;
	}
	/* one file from standard input; an interactive session reads its commands there */
	const char *inputs[] = { o->fw, o->map_path, o->script };
	size_t on_stdin = 0;
	for (size_t i = 0; i < 3; i++)
		on_stdin += inputs[i] && !strcmp(inputs[i], CS_FILE_STDIN);
	if (on_stdin > 1 || (on_stdin && !o->script && !o->ex->len && !o->gdb)) {
		fprintf(stderr, "chainsim gsp: standard input (-) can give one of the firmware, "
			"--map and --script, and not the firmware or the map of an interactive "
			"session\n");
		return CS_EXIT_INPUT;
	}
	if (o->boot && o->placed) {
		fprintf(stderr, "chainsim gsp: --boot builds its own map and start state: not with --map, --raw-base, "
			"--load or --priv\n");
		return CS_EXIT_INPUT;
	}
	return -1;
}

/* Fills o from the command line: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, gsp_args *o)
{
	for (int c, li = -1; (c = getopt_long_only(argc, argv, ":h", gsp_options, &li)) != -1;
	     li = -1) {
		const char *a = optarg;
		char *end = NULL;
		uint64_t v = 0;
		if (c == OPT_RAW_BASE || c == OPT_GUARD_MS || c == OPT_GDB_IDLE_MS) {
			v = strtoull(a, &end, 0);
			if (!*a || *end || a[0] == '-') {
				fprintf(stderr, "chainsim gsp: --%s: '%s' is not a number\n",
					gsp_options[li].name, a);
				return CS_EXIT_INPUT;
			}
		}
		if (c == OPT_IMAGE && o->fw) {
			fprintf(stderr, "chainsim gsp: more than one firmware ('%s', '%s')\n", o->fw, a);
			return CS_EXIT_INPUT;
		}
		switch (c) {
		case 'h':
			usage(stdout);
			return CS_EXIT_OK;
		case CS_CLI_VERSION:
			return cs_cli_version();
		case OPT_MAP: o->map_path = a; o->placed = true; break;
		case OPT_BOOT: o->boot = a; break;
		case OPT_MMIO_LOG: o->unmodelled_log = true; break;
		case OPT_MONITOR: o->monitor = true; break;
		case OPT_IMAGE: o->fw = a; break;
		case OPT_SCRIPT: o->script = a; break;
		case OPT_EX: g_ptr_array_add(o->ex, (gpointer)a); break;
		case OPT_GDB: o->gdb = a; break;
		case OPT_GDB_ALLOW_REMOTE: o->gdb_remote = true; break;
		case OPT_RAW_BASE: o->raw_base = v; o->placed = true; break;
		case OPT_GUARD_MS: o->guard_ms = v; break;
		case OPT_GDB_IDLE_MS: o->gdb_idle_ms = v; break;
		case OPT_LOAD: g_ptr_array_add(o->loads, (gpointer)a); o->placed = true; break;
		case OPT_PRIV:
			o->placed = true;
			o->start_priv = priv_of(a);
			if (o->start_priv < 0) {
				fprintf(stderr, "chainsim gsp: --priv: '%s' is not M, S or U\n", a);
				return CS_EXIT_INPUT;
			}
			break;
		default:
			return cs_cli_bad_option("gsp", c, argv, usage);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (o->fw) {
			fprintf(stderr, "chainsim gsp: more than one firmware ('%s', '%s')\n", o->fw,
				argv[i]);
			return CS_EXIT_INPUT;
		}
		o->fw = argv[i];
	}
	return check_args(o);
}

/* The memory map: --boot's (placed by the image's size, which *image_size
 * gets, and moving *raw_base), --map's, or the fixture map. */
static cs_status machine_map(const gsp_args *o, cs_gsp_map *map, uint64_t *raw_base,
			     uint64_t *image_size, cs_diag *d)
{
	if (o->boot) {
		cs_gsp_image *sized = NULL;
		cs_status st = cs_gsp_image_load(o->fw, 0, &sized, d);
		if (st != CS_OK)
			return st;
		for (size_t i = 0; i < sized->nseg; i++)
			*image_size = MAX(*image_size, sized->seg[i].addr + sized->seg[i].memsz);
		cs_gsp_image_free(sized);
		return cs_gsp_boot_map(o->boot, *image_size, map, raw_base, d);
	}
	if (o->map_path)
		return cs_gsp_map_load(o->map_path, map, d);
	cs_gsp_map_default(map);
	return CS_OK;
}

/* The machine with every image loaded, in its start state; on failure
 * nothing is left (*img and *m NULL). */
static cs_status machine_new(const gsp_args *o, GPtrArray *further, cs_gsp_image **img,
			     cs_gsp **m, cs_diag *d)
{
	cs_gsp_map map;
	uint64_t raw_base = o->raw_base, image_size = 0;
	*img = NULL;
	*m = NULL;
	cs_status st = machine_map(o, &map, &raw_base, &image_size, d);
	if (st == CS_OK)
		st = cs_gsp_image_load(o->fw, raw_base, img, d);
	if (st != CS_OK)
		return st;
	st = cs_gsp_create(&map, *img, m, d);
	if (st != CS_OK) {
		cs_gsp_image_free(*img);
		*img = NULL;
		return st;
	}
	st = load_further(*m, o->loads, further, d);
	if (st == CS_OK)
		st = cs_gsp_reg_write(*m, CS_GSP_REG_PRIV, (uint64_t)o->start_priv, d);
	if (st == CS_OK) {
		cs_gsp_set_guard_ms(*m, o->guard_ms);
		if (o->unmodelled_log)
			cs_gsp_unmodelled_log(*m, stdout);
		if (o->monitor)
			cs_gsp_monitor_on(*m);
		if (o->boot)
			st = cs_gsp_boot(*m, o->boot, image_size, d);
	}
	if (st != CS_OK) {
		cs_gsp_destroy(*m);
		cs_gsp_image_free(*img);
		*m = NULL;
		*img = NULL;
	}
	return st;
}

/* --gdb [HOST:]PORT: serve the remote protocol until the client leaves;
 * the exit status. */
static int serve_gdb(cs_gsp *m, const gsp_args *o, cs_diag *d)
{
	const char *gdb = o->gdb;
	char host[64] = "127.0.0.1";
	const char *colon = strrchr(gdb, ':');
	const char *port_s = gdb;
	if (colon) {
		size_t hl = (size_t)(colon - gdb);
		if (hl >= sizeof(host)) {
			fprintf(stderr, "chainsim gsp: --gdb: host too long\n");
			return CS_EXIT_INPUT;
		}
		if (hl) {
			memcpy(host, gdb, hl);
			host[hl] = 0;
		}
		port_s = colon + 1;
	}
	char *end = NULL;
	unsigned long port = strtoul(port_s, &end, 10);
	if (!*port_s || !end || *end || port > 65535) {
		fprintf(stderr, "chainsim gsp: --gdb: '%s' is not [HOST:]PORT\n", gdb);
		return CS_EXIT_INPUT;
	}
	struct in_addr addr;
	if (inet_pton(AF_INET, host, &addr) != 1) {
		fprintf(stderr, "chainsim gsp: --gdb: '%s' is not an IPv4 address\n", host);
		return CS_EXIT_INPUT;
	}
	gdb_listen where = { NULL };
	if ((ntohl(addr.s_addr) >> 24) != 127) {
		if (!o->gdb_remote) {
			fprintf(stderr, "chainsim gsp: --gdb %s listens beyond loopback: "
				"add --gdb-allow-remote if that is meant\n", host);
			return CS_EXIT_INPUT;
		}
		where.remote_host = host;
	}
	cs_gsp_set_gdb_idle_ms(m, o->gdb_idle_ms);
	if (cs_gdb_serve(m, host, (uint16_t)port, gdb_ready, &where, d) != CS_OK)
		return fail(d);
	return CS_EXIT_OK;
}

/* The debugger's session: each -ex, then --script (the order chainsim repl
 * takes them in), then --gdb or, without any of them, the interactive
 * prompt; the exit status. */
static int run_session(cs_gsp *m, const gsp_args *o, cs_diag *d)
{
	gsp_cli cli = { m };
	cs_repl_config cfg = { "chainsim-gsp", "(gsp) ", cs_gsp_dbg_commands(), words_cb, exec_cb, &cli, NULL,
				.own_help = true };
	cs_repl *r = cs_repl_new(&cfg);
	if (!r)
		return CS_EXIT_INTERNAL;
	int rc = CS_EXIT_OK;
	bool batch = o->script || o->ex->len || o->gdb;
	bool quit = false;
	cs_gsp_dbg_set_batch(m, o->script || o->ex->len);
	if (cs_repl_ex(r, (const char *const *)o->ex->pdata, o->ex->len, stdout, &quit, d) != CS_OK)
		rc = fail(d);
	else if (!quit && o->script && cs_repl_script(r, o->script, stdout, d) != CS_OK)
		rc = fail(d);
	else if (!quit) {
		fflush(stdout);
		if (o->gdb)
			rc = serve_gdb(m, o, d);
		else if (!batch)
			rc = cs_repl_interactive(r, stdout, stderr) ? CS_EXIT_BROKEN : CS_EXIT_OK;
	}
	fflush(stdout);
	cs_repl_free(r);
	return rc;
}

int cs_cmd_gsp(int argc, char **argv)
{
	g_autoptr(GPtrArray) ex = g_ptr_array_new();
	g_autoptr(GPtrArray) loads = g_ptr_array_new();
	g_autoptr(GPtrArray) further = g_ptr_array_new_with_free_func((GDestroyNotify)cs_gsp_image_free);
	gsp_args o = { .raw_base = 0x80000000u, .guard_ms = 10000, .start_priv = 3, .ex = ex,
		       .loads = loads };
	cs_cli_begin();
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_image *img;
	cs_gsp *m;
	if (machine_new(&o, further, &img, &m, &d) != CS_OK)
		return fail(&d);
	rc = run_session(m, &o, &d);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	return rc;
}
