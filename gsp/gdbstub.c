/* SPDX-License-Identifier: MIT */
/* GDB remote serial protocol stub for the GSP machine (the GDB manual,
 * "Remote Serial Protocol"; docs/hardware.md): one client, loopback by default. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gsp_internal.h"

static const char hexd[] = "0123456789abcdef";

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

cs_gdb_pkt_kind cs_gdb_parse(const uint8_t *buf, size_t len, size_t *used, char *out, size_t *out_len,
			     cs_diag *d)
{
	*used = 0;
	*out_len = 0;
	if (len == 0)
		return CS_GDB_PKT_NONE;
	if (buf[0] == '+' || buf[0] == '-' || buf[0] == 0x03) {
		*used = 1;
		return buf[0] == '+' ? CS_GDB_PKT_ACK : buf[0] == '-' ? CS_GDB_PKT_NACK : CS_GDB_PKT_INTERRUPT;
	}
	if (buf[0] != '$') {
		/* junk between packets: skip up to the next packet start */
		size_t i = 1;
		while (i < len && buf[i] != '$' && buf[i] != 0x03)
			i++;
		*used = i;
		cs_diag_at_offset(d, CS_ERR_INPUT, "gdb", 0, "%zu bytes outside a packet (first 0x%02x)", i, buf[0]);
		return CS_GDB_PKT_ERROR;
	}
	size_t o = 0;
	uint8_t sum = 0;
	size_t i = 1;
	for (; i < len && buf[i] != '#'; i++) {
		uint8_t c = buf[i];
		sum = (uint8_t)(sum + c);
		if (c == '$') {
			/* a new packet starts: this one was truncated */
			*used = i;
			cs_diag_at_offset(d, CS_ERR_INPUT, "gdb", i, "packet truncated by a new '$' after %zu bytes", i - 1);
			return CS_GDB_PKT_ERROR;
		}
		if (c == '}') {
			if (i + 1 >= len)
				return CS_GDB_PKT_NONE;
			i++;
			sum = (uint8_t)(sum + buf[i]);
			c = buf[i] ^ 0x20;
		}
		if (o >= CS_GDB_PACKET_MAX) {
			/* overlong: discard through the end marker if present */
			size_t j = i;
			while (j < len && buf[j] != '#')
				j++;
			*used = j < len ? (j + 3 <= len ? j + 3 : len) : len;
			cs_diag_at_offset(d, CS_ERR_INPUT, "gdb", 0, "packet longer than %d bytes", CS_GDB_PACKET_MAX);
			return CS_GDB_PKT_ERROR;
		}
		out[o++] = (char)c;
	}
	if (i >= len || i + 3 > len)
		return CS_GDB_PKT_NONE;
	int h = hexval(buf[i + 1]), l = hexval(buf[i + 2]);
	*used = i + 3;
	if (h < 0 || l < 0) {
		cs_diag_at_offset(d, CS_ERR_INPUT, "gdb", i + 1, "checksum '%c%c' is not hex", buf[i + 1], buf[i + 2]);
		return CS_GDB_PKT_ERROR;
	}
	if ((uint8_t)(h * 16 + l) != sum) {
		cs_diag_at_offset(d, CS_ERR_INPUT, "gdb", i + 1, "checksum 0x%02x, computed 0x%02x", h * 16 + l, sum);
		return CS_GDB_PKT_ERROR;
	}
	out[o] = 0;
	*out_len = o;
	return CS_GDB_PKT_PACKET;
}

/* ---- target description ---- */

static const char *const xnames[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};

static const uint32_t xml_csrs[] = { 0x100, 0x104, 0x105, 0x140, 0x141, 0x142, 0x143, 0x144, 0x180, 0x300, 0x301,
				     0x302, 0x303, 0x304, 0x305, 0x340, 0x341, 0x342, 0x343, 0x344 };

static GString *target_xml(void)
{
	GString *x = g_string_new("<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n"
				  "<target version=\"1.0\">\n<architecture>riscv:rv64</architecture>\n"
				  "<feature name=\"org.gnu.gdb.riscv.cpu\">\n");
	for (int i = 0; i < 32; i++)
		g_string_append_printf(x, "<reg name=\"%s\" bitsize=\"64\" type=\"%s\" regnum=\"%d\"/>\n", xnames[i],
				       i == 1 ? "code_ptr" : (i == 2 || i == 8) ? "data_ptr" : "int", i);
	g_string_append(x, "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\" regnum=\"32\"/>\n</feature>\n"
			   "<feature name=\"org.gnu.gdb.riscv.fpu\">\n");
	for (int i = 0; i < 32; i++)
		g_string_append_printf(x, "<reg name=\"%s\" bitsize=\"64\" type=\"ieee_double\" regnum=\"%d\"/>\n",
				       cs_gsp_reg_name((unsigned)(CS_GSP_REG_F0 + i)), CS_GSP_REG_F0 + i);
	g_string_append(x, "<reg name=\"fflags\" bitsize=\"32\" type=\"int\" regnum=\"66\"/>\n"
			   "<reg name=\"frm\" bitsize=\"32\" type=\"int\" regnum=\"67\"/>\n"
			   "<reg name=\"fcsr\" bitsize=\"32\" type=\"int\" regnum=\"68\"/>\n</feature>\n"
			   "<feature name=\"org.gnu.gdb.riscv.csr\">\n");
	for (size_t i = 0; i < sizeof(xml_csrs) / sizeof(xml_csrs[0]); i++)
		g_string_append_printf(x, "<reg name=\"%s\" bitsize=\"64\" type=\"int\" regnum=\"%u\"/>\n",
				       cs_gsp_reg_name(CS_GSP_REG_CSR0 + xml_csrs[i]), CS_GSP_REG_CSR0 + xml_csrs[i]);
	g_string_append_printf(x, "</feature>\n<feature name=\"org.gnu.gdb.riscv.virtual\">\n"
				  "<reg name=\"priv\" bitsize=\"64\" type=\"int\" regnum=\"%d\"/>\n",
			       CS_GSP_REG_PRIV);
	g_string_append(x, "</feature>\n</target>\n");
	return x;
}

/* ---- packet handling ---- */

static void put_hex_le(char *out, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++) {
		uint8_t b = (uint8_t)(v >> (8 * i));
		out[2 * i] = hexd[b >> 4];
		out[2 * i + 1] = hexd[b & 15];
	}
	out[2 * bytes] = 0;
}

static bool get_hex_le(const char *s, unsigned bytes, uint64_t *v)
{
	*v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		int h = hexval(s[2 * i]), l = h < 0 ? -1 : hexval(s[2 * i + 1]);
		if (h < 0 || l < 0)
			return false;
		*v |= (uint64_t)(h * 16 + l) << (8 * i);
	}
	return true;
}

static bool parse_hex(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int n = 0;
	while (hexval(*s) >= 0) {
		if (n == 16)
			return false;
		x = x << 4 | (uint64_t)hexval(*s);
		s++;
		n++;
	}
	if (!n)
		return false;
	*v = x;
	*p = s;
	return true;
}

static unsigned reg_bytes(unsigned regno)
{
	return (regno >= 66 && regno <= 68) ? 4 : 8;
}

/* A stop at a breakpoint or watchpoint gdb did not insert (the debugger's
 * own, from a monitor command): gdb knows nothing of it, so it gets a plain
 * SIGTRAP and the stop in words as console output. */
static bool own_point_stop(const cs_gsp *m, const cs_gsp_stop *st)
{
	return (st->reason == CS_GSP_STOP_WATCH || st->reason == CS_GSP_STOP_BREAK) && !gsp_point_by_gdb(m, st->id);
}

static void stop_reply(cs_gsp *m, const cs_gsp_stop *st, char *reply, size_t max)
{
	if (own_point_stop(m, st)) {
		snprintf(reply, max, "S05");
	} else if (st->reason == CS_GSP_STOP_WATCH) {
		int kind = 0;
		for (int i = 0; i < GSP_POINTS_MAX; i++)
			if (m->pt[i].used && m->pt[i].id == st->id)
				kind = m->pt[i].kind;
		const char *k = kind == CS_GSP_WATCH_READ ? "rwatch" : kind == CS_GSP_WATCH_ACCESS ? "awatch" : "watch";
		snprintf(reply, max, "T05%s:%" PRIx64 ";", k, st->addr);
	} else if (st->reason == CS_GSP_STOP_BREAK)
		snprintf(reply, max, "T05swbreak:;");
	else if (st->reason == CS_GSP_STOP_INTERRUPTED)
		snprintf(reply, max, "S02");
	else if (st->reason == CS_GSP_STOP_FAULT)
		snprintf(reply, max, "S0b");
	else
		snprintf(reply, max, "S05");
}

/* The client's connection while the target runs. A watcher thread reads
 * every byte that arrives: 0x03 interrupts the machine, a closed connection
 * interrupts it and marks the link closed, and any other byte is kept in
 * `side` for the packet loop to read after the stop. (It used to peek: one
 * stray byte then sat unread in front of every later 0x03, and in front of
 * the end of the connection.) The run itself has no wall-clock slices, so no
 * stop lands inside a block unasked. */
enum { GDB_SIDE_MAX = 4096 };

typedef struct gdb_link {
	int fd;
	uint8_t side[GDB_SIDE_MAX];
	size_t nside;
	bool closed;
} gdb_link;

typedef struct gdb_watcher {
	cs_gsp *m;
	gdb_link *link;
	atomic_int done;
	atomic_int fired;
} gdb_watcher;

static void *watch_socket(void *arg)
{
	gdb_watcher *w = arg;
	gdb_link *l = w->link;
	while (!atomic_load(&w->done)) {
		struct pollfd p = { .fd = l->fd, .events = POLLIN, .revents = 0 };
		if (poll(&p, 1, 20) <= 0)
			continue;
		uint8_t buf[256];
		ssize_t n = recv(l->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		bool stop = n <= 0;
		if (stop)
			l->closed = true;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == 0x03 && !stop)
				stop = true;
			else if (l->nside < sizeof(l->side))
				l->side[l->nside++] = buf[i];
			/* past GDB_SIDE_MAX: a client that floods a running
			 * target loses the excess, the stub stays bounded */
		}
		if (stop) {
			atomic_store(&w->fired, 1);
			cs_gsp_interrupt(w->m);
			break;
		}
	}
	return NULL;
}

/* Runs to a stop; link (NULL when none) is the client's connection, watched
 * for 0x03. */
static cs_status gdb_resume(cs_gsp *m, bool step, gdb_link *link, cs_gsp_stop *st, cs_diag *d)
{
	if (step)
		return cs_gsp_stepi(m, 1, st, d);
	uint64_t saved = m->guard_ms;
	gdb_watcher w = { .m = m, .link = link };
	atomic_init(&w.done, 0);
	atomic_init(&w.fired, 0);
	pthread_t th;
	bool threaded = link && pthread_create(&th, NULL, watch_socket, &w) == 0;
	if (threaded)
		m->guard_ms = 0; /* the client decides when to stop */
	cs_status s = cs_gsp_continue(m, 0, st, d);
	if (threaded) {
		atomic_store(&w.done, 1);
		pthread_join(th, NULL);
		/* a 0x03 that came as the run stopped by itself must not stop the next one */
		atomic_store(&m->interrupt_req, 0);
	}
	m->guard_ms = saved;
	return s;
}

/* What gdb shows as console output after a resume: the firmware's new log
 * lines, and the debugger's own stops (a message-queue overrun, a fault, the
 * guard) in words, which a bare signal number would hide. */
static void console_after_stop(cs_gsp *m, size_t log_before, const cs_gsp_stop *st, GString *console)
{
	if (!console)
		return;
	const char *log = cs_gsp_log_text(m);
	size_t log_len = log ? strlen(log) : 0;
	if (log_len > log_before)
		g_string_append_len(console, log + log_before, (gssize)(log_len - log_before));
	switch (st->reason) {
	case CS_GSP_STOP_DESYNC: case CS_GSP_STOP_FAULT: case CS_GSP_STOP_GUARD: case CS_GSP_STOP_BUDGET:
	case CS_GSP_STOP_IDLE: case CS_GSP_STOP_EBREAK: case CS_GSP_STOP_REPLY: case CS_GSP_STOP_RETURNED:
	case CS_GSP_STOP_SHUTDOWN: {
		char desc[512];
		cs_gsp_stop_describe(m, st, desc, sizeof(desc));
		g_string_append_printf(console, "chainsim: %s\n", desc);
		break;
	}
	default:
		if (own_point_stop(m, st)) {
			char desc[512];
			cs_gsp_stop_describe(m, st, desc, sizeof(desc));
			g_string_append_printf(console, "chainsim: %s\n", desc);
		}
		break;
	}
}

/* monitor CMD: the debugger's command language (msgq views, rpc, snapshots),
 * its output hex-encoded as the reply, which gdb prints. */
static void monitor_command(cs_gsp *m, const char *hex, char *reply, size_t max)
{
	size_t n = strlen(hex);
	char *line = malloc(n / 2 + 1);
	if (!line || n % 2) {
		free(line);
		snprintf(reply, max, "E01");
		return;
	}
	for (size_t i = 0; i < n / 2; i++) {
		int h = hexval(hex[2 * i]), l = hexval(hex[2 * i + 1]);
		if (h < 0 || l < 0 || !(h | l)) {
			free(line);
			snprintf(reply, max, "E01");
			return;
		}
		line[i] = (char)(h * 16 + l);
	}
	line[n / 2] = 0;
	char *text = NULL;
	size_t text_len = 0;
	FILE *out = open_memstream(&text, &text_len);
	if (!out) {
		free(line);
		snprintf(reply, max, "E01");
		return;
	}
	cs_diag d;
	cs_diag_clear(&d);
	const char *instead = gsp_dbg_gdb_instead(line);
	if (instead)
		fprintf(out, "error: 'monitor %s' would move the hart behind gdb's back (gdb keeps "
			"showing the registers it read, the old pc): use %s\n", line, instead);
	else if (cs_gsp_dbg_exec(m, line, out, &d) != CS_OK) {
		char msg[CS_DIAG_MSG_MAX + CS_DIAG_FILE_MAX + 64];
		cs_diag_format(&d, msg, sizeof(msg));
		fprintf(out, "error: %s\n", msg);
	}
	fclose(out);
	static const char cut[] = "... (output cut at the packet size)\n";
	size_t room = (max - 1) / 2;
	if (text_len > room) {
		size_t keep = room - (sizeof(cut) - 1);
		memcpy(text + keep, cut, sizeof(cut) - 1);
		text_len = room;
	}
	for (size_t i = 0; i < text_len; i++) {
		reply[2 * i] = hexd[(uint8_t)text[i] >> 4];
		reply[2 * i + 1] = hexd[(uint8_t)text[i] & 15];
	}
	reply[2 * text_len] = 0;
	if (!text_len)
		snprintf(reply, max, "OK");
	free(text);
	free(line);
}

/* ---- the packet table ---- */

/* One packet being answered: what every packet's handler gets. */
struct gsp_gdb_request {
	cs_gsp *m;
	const char *args; /* the packet after its name in the table */
	char *reply;
	size_t max;
	gdb_link *link;   /* the client's connection, NULL when none */
	bool *quit;
	GString *console; /* output shown before the reply, NULL when none */
	cs_diag *d;
};

static cs_status answer(gsp_gdb_request *r, const char *text)
{
	snprintf(r->reply, r->max, "%s", text);
	return CS_OK;
}

static cs_status packet_stop_reason(gsp_gdb_request *r)
{
	return answer(r, "S05");
}

static cs_status packet_read_registers(gsp_gdb_request *r)
{
	if (r->max < 33 * 16 + 1)
		return CS_ERR_INTERNAL;
	for (unsigned reg = 0; reg <= 32; reg++) {
		uint64_t v;
		cs_gsp_reg_read(r->m, reg, &v, NULL);
		put_hex_le(r->reply + reg * 16, v, 8);
	}
	return CS_OK;
}

static cs_status packet_write_registers(gsp_gdb_request *r)
{
	if (strlen(r->args) < 33 * 16)
		return answer(r, "E01");
	uint64_t vals[33];
	for (unsigned reg = 0; reg <= 32; reg++)
		if (!get_hex_le(r->args + reg * 16, 8, &vals[reg]))
			return answer(r, "E01");
	for (unsigned reg = 1; reg <= 32; reg++)
		cs_gsp_reg_write(r->m, reg, vals[reg], NULL);
	return answer(r, "OK");
}

static cs_status packet_read_register(gsp_gdb_request *r)
{
	const char *p = r->args;
	uint64_t reg, v;
	if (!parse_hex(&p, &reg) || *p || reg > CS_GSP_REG_PRIV)
		return answer(r, "E01");
	if (cs_gsp_reg_read(r->m, (unsigned)reg, &v, NULL) != CS_OK)
		return answer(r, "E02");
	put_hex_le(r->reply, v, reg_bytes((unsigned)reg));
	return CS_OK;
}

static cs_status packet_write_register(gsp_gdb_request *r)
{
	const char *p = r->args;
	uint64_t reg, v;
	if (!parse_hex(&p, &reg) || *p != '=' || reg > CS_GSP_REG_PRIV ||
	    strlen(p + 1) != 2 * reg_bytes((unsigned)reg) || !get_hex_le(p + 1, reg_bytes((unsigned)reg), &v))
		return answer(r, "E01");
	return answer(r, cs_gsp_reg_write(r->m, (unsigned)reg, v, NULL) == CS_OK ? "OK" : "E02");
}

static cs_status packet_read_memory(gsp_gdb_request *r)
{
	const char *p = r->args;
	uint64_t a, n;
	if (!parse_hex(&p, &a) || *p++ != ',' || !parse_hex(&p, &n) || *p)
		return answer(r, "E01");
	/* up to what the PacketSize we advertise lets gdb ask for */
	if (n > (r->max - 1) / 2 || n > CS_GDB_PACKET_MAX / 2)
		return answer(r, "E03");
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return CS_ERR_NOMEM;
	if (cs_gsp_mem_read(r->m, a, buf, n, NULL) != CS_OK) {
		free(buf);
		return answer(r, "E14");
	}
	for (uint64_t i = 0; i < n; i++) {
		r->reply[2 * i] = hexd[buf[i] >> 4];
		r->reply[2 * i + 1] = hexd[buf[i] & 15];
	}
	r->reply[2 * n] = 0;
	free(buf);
	return CS_OK;
}

static cs_status packet_write_memory(gsp_gdb_request *r)
{
	const char *p = r->args;
	uint64_t a, n;
	if (!parse_hex(&p, &a) || *p++ != ',' || !parse_hex(&p, &n) || *p++ != ':' || n > CS_GDB_PACKET_MAX / 2 ||
	    strlen(p) != 2 * n)
		return answer(r, "E01");
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return CS_ERR_NOMEM;
	for (uint64_t i = 0; i < n; i++) {
		int h = hexval(p[2 * i]), l = hexval(p[2 * i + 1]);
		if (h < 0 || l < 0) {
			free(buf);
			return answer(r, "E01");
		}
		buf[i] = (uint8_t)(h * 16 + l);
	}
	answer(r, cs_gsp_mem_write(r->m, a, buf, n, NULL) == CS_OK ? "OK" : "E14");
	free(buf);
	return CS_OK;
}

/* Runs to a stop (one instruction when step) and answers with the stop,
 * after the console output it brought. */
static cs_status resume_to_stop(gsp_gdb_request *r, bool step)
{
	size_t log_before = strlen(cs_gsp_log_text(r->m));
	cs_gsp_stop st;
	cs_status s = gdb_resume(r->m, step, r->link, &st, r->d);
	if (s != CS_OK)
		return s;
	console_after_stop(r->m, log_before, &st, r->console);
	stop_reply(r->m, &st, r->reply, r->max);
	return CS_OK;
}

/* c and s: from ADDR when given. */
static cs_status resume_at(gsp_gdb_request *r, bool step)
{
	const char *p = r->args;
	if (*p) {
		uint64_t a;
		if (!parse_hex(&p, &a) || *p)
			return answer(r, "E01");
		gsp_set_reg(r->m, UC_RISCV_REG_PC, a);
	}
	return resume_to_stop(r, step);
}

static cs_status packet_continue(gsp_gdb_request *r)
{
	return resume_at(r, false);
}

static cs_status packet_step(gsp_gdb_request *r)
{
	return resume_at(r, true);
}

static cs_status packet_vcont_actions(gsp_gdb_request *r)
{
	return answer(r, "vCont;c;C;s;S");
}

/* The first action is the thread's (there is one); a signal is not delivered. */
static cs_status packet_vcont(gsp_gdb_request *r)
{
	char a = r->args[0];
	if (a != 'c' && a != 'C' && a != 's' && a != 'S')
		return answer(r, "E01");
	return resume_to_stop(r, a == 's' || a == 'S');
}

/* Z and z: TYPE 0 and 1 breakpoints, 2 write, 3 read, 4 access watchpoints
 * of KIND bytes; another type gets the empty reply (not supported). */
static cs_status point_packet(gsp_gdb_request *r, bool insert)
{
	const char *p = r->args;
	uint64_t type, a, kind;
	if (!parse_hex(&p, &type) || *p++ != ',' || !parse_hex(&p, &a) || *p++ != ',' || !parse_hex(&p, &kind) ||
	    (*p && *p != ';'))
		return answer(r, "E01");
	cs_gsp *m = r->m;
	cs_status s;
	int id = 0;
	if (type <= 1) {
		s = insert ? cs_gsp_break_add(m, a, false, &id, NULL) : cs_gsp_break_remove_at(m, a, NULL);
	} else if (type <= 4) {
		cs_gsp_watch_kind k = type == 2 ? CS_GSP_WATCH_WRITE : type == 3 ? CS_GSP_WATCH_READ : CS_GSP_WATCH_ACCESS;
		if (kind == 0 || kind > 4096)
			return answer(r, "E01");
		s = insert ? cs_gsp_watch_add(m, a, kind, k, &id, NULL) : cs_gsp_watch_remove_at(m, a, kind, k, NULL);
	} else {
		return CS_OK;
	}
	for (int i = 0; s == CS_OK && insert && i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id)
			m->pt[i].by_gdb = true;
	return answer(r, s == CS_OK ? "OK" : "E01");
}

static cs_status packet_point_insert(gsp_gdb_request *r)
{
	return point_packet(r, true);
}

static cs_status packet_point_remove(gsp_gdb_request *r)
{
	return point_packet(r, false);
}

/* The server loop stops acking after this reply (half the packets on the
 * wire: gdb no longer acks each reply either). */
static cs_status packet_no_ack_mode(gsp_gdb_request *r)
{
	return answer(r, "OK");
}

/* H (set the thread of later packets) and T (is the thread alive): there
 * is one thread. */
static cs_status packet_thread(gsp_gdb_request *r)
{
	return answer(r, "OK");
}

static cs_status packet_kill(gsp_gdb_request *r)
{
	*r->quit = true;
	return CS_OK;
}

/* D and vKill: the session ends after the OK. */
static cs_status packet_detach(gsp_gdb_request *r)
{
	*r->quit = true;
	return answer(r, "OK");
}

static cs_status packet_supported(gsp_gdb_request *r)
{
	snprintf(r->reply, r->max,
		 "PacketSize=%x;qXfer:features:read+;swbreak+;hwbreak+;vContSupported+;QStartNoAckMode+",
		 CS_GDB_PACKET_MAX);
	return CS_OK;
}

/* qXfer:features:read:target.xml:OFFSET,LENGTH: 'm' and a piece, or 'l'
 * and the last one, binary-escaped. */
static cs_status packet_target_xml(gsp_gdb_request *r)
{
	const char *ann = r->args;
	const char *colon = strchr(ann, ':');
	if (!colon || (size_t)(colon - ann) != strlen("target.xml") || strncmp(ann, "target.xml", 10))
		return answer(r, "E00");
	const char *q = colon + 1;
	uint64_t off, n;
	if (!parse_hex(&q, &off) || *q++ != ',' || !parse_hex(&q, &n) || *q)
		return answer(r, "E01");
	GString *x = target_xml();
	if (off > x->len) {
		g_string_free(x, TRUE);
		return answer(r, "E01");
	}
	char *reply = r->reply;
	size_t avail = x->len - off;
	size_t k = 0, o = 1;
	while (k < avail && k < n && o + 3 < r->max) {
		char c = x->str[off + k];
		if (c == '$' || c == '#' || c == '}' || c == '*') {
			reply[o++] = '}';
			reply[o++] = (char)(c ^ 0x20);
		} else
			reply[o++] = c;
		k++;
	}
	reply[0] = k < avail ? 'm' : 'l';
	reply[o] = 0;
	g_string_free(x, TRUE);
	return CS_OK;
}

static cs_status packet_monitor(gsp_gdb_request *r)
{
	monitor_command(r->m, r->args, r->reply, r->max);
	return CS_OK;
}

static cs_status packet_attached(gsp_gdb_request *r)
{
	return answer(r, "1");
}

static cs_status packet_current_thread(gsp_gdb_request *r)
{
	return answer(r, "QC1");
}

static cs_status packet_first_threads(gsp_gdb_request *r)
{
	return answer(r, "m1");
}

static cs_status packet_more_threads(gsp_gdb_request *r)
{
	return answer(r, "l");
}

static cs_status packet_symbol(gsp_gdb_request *r)
{
	return answer(r, "OK");
}

/* Every packet the stub answers; any other gets the empty reply, which the
 * protocol reads as "not supported". The first row that matches answers, so
 * a name goes before every shorter name it starts with (tests/gsp checks). */
static const gsp_gdb_packet packets[] = {
	{ "?", false, false, packet_stop_reason, "?", "why the target stopped: always S05 (SIGTRAP)" },
	{ "g", false, false, packet_read_registers, "g", "read x0-x31 and pc" },
	{ "G", false, false, packet_write_registers, "G XX...", "write x1-x31 and pc (x0 stays 0)" },
	{ "p", false, false, packet_read_register, "p REG", "read a register by target.xml's number" },
	{ "P", false, false, packet_write_register, "P REG=XX...", "write a register by target.xml's number" },
	{ "m", false, false, packet_read_memory, "m ADDR,LENGTH", "read memory, up to half the packet size" },
	{ "M", false, false, packet_write_memory, "M ADDR,LENGTH:XX...", "write memory" },
	{ "c", false, true, packet_continue, "c [ADDR]", "run to a stop (0x03 from the client stops it)" },
	{ "s", false, true, packet_step, "s [ADDR]", "run one instruction" },
	{ "vCont?", true, false, packet_vcont_actions, "vCont?", "the vCont actions: c, C, s, S" },
	{ "vCont;", false, true, packet_vcont, "vCont;ACTION[:THREAD]...",
	  "c or C run to a stop, s or S run one instruction" },
	{ "Z", false, false, packet_point_insert, "Z TYPE,ADDR,KIND",
	  "insert a breakpoint (0, 1) or a write, read or access watchpoint (2, 3, 4)" },
	{ "z", false, false, packet_point_remove, "z TYPE,ADDR,KIND", "remove what Z inserted" },
	{ "QStartNoAckMode", true, false, packet_no_ack_mode, "QStartNoAckMode", "no acks from the next packet on" },
	{ "H", false, false, packet_thread, "H OP THREAD", "select the thread of later packets (there is one)" },
	{ "T", false, false, packet_thread, "T THREAD", "whether the thread is alive (it is)" },
	{ "k", false, false, packet_kill, "k", "kill: end the session" },
	{ "D", false, false, packet_detach, "D", "detach: OK, then end the session" },
	{ "vKill", false, false, packet_detach, "vKill;PID", "kill: OK, then end the session" },
	{ "qSupported", false, false, packet_supported, "qSupported[:FEATURE...]",
	  "the packet size and the features the stub has" },
	{ "qXfer:features:read:", false, false, packet_target_xml, "qXfer:features:read:target.xml:OFFSET,LENGTH",
	  "the target description (cpu, fpu, csr and priv registers)" },
	{ "qRcmd,", false, false, packet_monitor, "qRcmd,HEX",
	  "monitor CMD: any debugger command (monitor help lists them), its output as the reply" },
	{ "qAttached", true, false, packet_attached, "qAttached", "1: attached to an existing process" },
	{ "qC", true, false, packet_current_thread, "qC", "the current thread: 1" },
	{ "qfThreadInfo", true, false, packet_first_threads, "qfThreadInfo", "the threads: 1" },
	{ "qsThreadInfo", true, false, packet_more_threads, "qsThreadInfo", "no more threads" },
	{ "qSymbol", false, false, packet_symbol, "qSymbol::", "OK: the stub looks up no symbols" },
};

const gsp_gdb_packet *gsp_gdb_packets(size_t *count)
{
	*count = sizeof(packets) / sizeof(packets[0]);
	return packets;
}

static const gsp_gdb_packet *packet_of(const char *pkt)
{
	for (size_t i = 0; i < sizeof(packets) / sizeof(packets[0]); i++) {
		const gsp_gdb_packet *p = &packets[i];
		if (p->whole ? !strcmp(pkt, p->name) : !strncmp(pkt, p->name, strlen(p->name)))
			return p;
	}
	return NULL;
}

static cs_status handle(cs_gsp *m, const char *pkt, char *reply, size_t max, gdb_link *link, bool *quit,
			GString *console, cs_diag *d)
{
	reply[0] = 0;
	const gsp_gdb_packet *p = packet_of(pkt);
	if (!p)
		return CS_OK; /* unknown: the empty reply */
	gsp_gdb_request r = { .m = m, .args = pkt + strlen(p->name), .reply = reply, .max = max,
			      .link = link, .quit = quit, .console = console, .d = d };
	return p->answer(&r);
}

cs_status cs_gdb_handle(cs_gsp *m, const char *pkt, size_t len, char *reply, size_t reply_max, cs_diag *d)
{
	bool quit = false;
	if (len == 0) {
		reply[0] = 0;
		return CS_OK;
	}
	return handle(m, pkt, reply, reply_max, NULL, &quit, NULL, d);
}

/* ---- the socket server ---- */

static bool send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return false;
		}
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* Sends "$payload#xx", preceded by the ack of the request when `ack`: one
 * write per reply, so Nagle's algorithm and the peer's delayed ack do not
 * hold the reply back (two small writes cost about 40 ms each packet). */
static bool send_packet(int fd, bool ack, const char *payload)
{
	size_t n = strlen(payload);
	uint8_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum = (uint8_t)(sum + (uint8_t)payload[i]);
	char *buf = malloc(n + 6);
	if (!buf)
		return false;
	size_t o = 0;
	if (ack)
		buf[o++] = '+';
	buf[o++] = '$';
	memcpy(buf + o, payload, n);
	o += n;
	buf[o++] = '#';
	buf[o++] = hexd[sum >> 4];
	buf[o++] = hexd[sum & 15];
	bool ok = send_all(fd, buf, o);
	free(buf);
	return ok;
}

/* Console output while the target runs: 'O' packets of hex text, in pieces
 * that fit the packet size (the ack of the request goes first). */
static bool send_console(int fd, bool acked, const GString *text)
{
	enum { PIECE = 1024 };
	char *payload = malloc(2 * PIECE + 2);
	if (!payload)
		return false;
	bool ok = acked || send_all(fd, "+", 1);
	for (size_t at = 0; ok && at < text->len; at += PIECE) {
		size_t n = text->len - at < PIECE ? text->len - at : PIECE;
		payload[0] = 'O';
		for (size_t i = 0; i < n; i++) {
			payload[1 + 2 * i] = hexd[(uint8_t)text->str[at + i] >> 4];
			payload[2 + 2 * i] = hexd[(uint8_t)text->str[at + i] & 15];
		}
		payload[1 + 2 * n] = 0;
		ok = send_packet(fd, false, payload);
	}
	free(payload);
	return ok;
}

/* Packets that resume the target: their ack goes out at once (gdb waits
 * for it with its remote timeout), the stop reply when the target stops. */
static bool resumes(const char *pkt)
{
	const gsp_gdb_packet *p = packet_of(pkt);
	return p && p->resumes;
}

void cs_gsp_set_gdb_idle_ms(cs_gsp *m, uint64_t ms)
{
	m->gdb_idle_ms = ms;
}

cs_status cs_gdb_serve(cs_gsp *m, const char *host, uint16_t port, void (*ready)(uint16_t port, void *ctx),
		       void *ctx, cs_diag *d)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	if (inet_pton(AF_INET, host ? host : "127.0.0.1", &sa.sin_addr) != 1) {
		cs_diag_set(d, CS_ERR_INPUT, "--gdb: '%s' is not an IPv4 address", host);
		return CS_ERR_INPUT;
	}
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0) {
		cs_diag_set(d, CS_ERR_UNAVAILABLE, "socket: %s", strerror(errno));
		return CS_ERR_UNAVAILABLE;
	}
	int one = 1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(ls, 1) < 0) {
		cs_diag_set(d, CS_ERR_UNAVAILABLE, "cannot listen on %s:%u: %s", host, port, strerror(errno));
		close(ls);
		return CS_ERR_UNAVAILABLE;
	}
	socklen_t sl = sizeof(sa);
	getsockname(ls, (struct sockaddr *)&sa, &sl);
	if (ready)
		ready(ntohs(sa.sin_port), ctx);
	int fd = accept(ls, NULL, NULL);
	close(ls);
	if (fd < 0) {
		cs_diag_set(d, CS_ERR_UNAVAILABLE, "accept: %s", strerror(errno));
		return CS_ERR_UNAVAILABLE;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return cs_gdb_session(m, fd, d);
}

cs_status cs_gdb_session(cs_gsp *m, int fd, cs_diag *d)
{
	/* gdb treats RISC-V watchpoints as non-steppable: it wants the stop
	 * before the access, removes the watchpoint and steps it itself */
	bool stop_before = m->watch_stop_before;
	m->watch_stop_before = true;
	size_t cap = 2 * CS_GDB_PACKET_MAX + 64, have = 0;
	uint8_t *in = malloc(cap);
	gdb_link *link = calloc(1, sizeof(*link));
	uint64_t idle_ms = m->gdb_idle_ms ? m->gdb_idle_ms : CS_GDB_IDLE_MS;
	char *pkt = malloc(CS_GDB_PACKET_MAX + 1);
	char *reply = malloc(2 * CS_GDB_PACKET_MAX + 64);
	GString *console = g_string_new(NULL);
	cs_status st = CS_OK;
	bool quit = false, no_ack = false;
	if (!in || !pkt || !reply || !link)
		st = CS_ERR_NOMEM;
	else
		link->fd = fd;
	while (st == CS_OK && !quit) {
		if (have == cap)
			have = 0; /* garbage filled the buffer: drop it */
		/* a client that says nothing while the target is stopped is gone */
		struct pollfd pf = { .fd = fd, .events = POLLIN, .revents = 0 };
		int pr = poll(&pf, 1, idle_ms > INT_MAX ? INT_MAX : (int)idle_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0) {
			cs_diag_set(d, CS_ERR_INPUT, "the GDB client sent nothing for %llu ms: "
				    "connection closed", (unsigned long long)idle_ms);
			st = CS_ERR_INPUT;
			break;
		}
		ssize_t n = recv(fd, in + have, cap - have, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		for (;;) {
			size_t used = 0, plen = 0;
			cs_diag pd;
			cs_diag_clear(&pd);
			cs_gdb_pkt_kind k = cs_gdb_parse(in, have, &used, pkt, &plen, &pd);
			if (k == CS_GDB_PKT_NONE)
				break;
			memmove(in, in + used, have - used);
			have -= used;
			if (k == CS_GDB_PKT_ERROR) {
				send_all(fd, "-", 1);
				continue;
			}
			if (k != CS_GDB_PKT_PACKET)
				continue; /* acks, and 0x03 while stopped */
			/* in no-ack mode nothing is acked: "acked" already */
			bool acked = no_ack || (resumes(pkt) && send_all(fd, "+", 1));
			cs_diag hd;
			cs_diag_clear(&hd);
			g_string_truncate(console, 0);
			if (handle(m, pkt, reply, 2 * CS_GDB_PACKET_MAX + 64, link, &quit, console, &hd) != CS_OK)
				snprintf(reply, 2 * CS_GDB_PACKET_MAX + 64, "E7f");
			if (link->closed) {
				quit = true; /* the client left while the target ran */
				break;
			}
			/* what the watcher read during the run comes after what was here */
			size_t take = link->nside < cap - have ? link->nside : cap - have;
			memcpy(in + have, link->side, take);
			have += take;
			link->nside = 0;
			if (console->len && !send_console(fd, acked, console))
				break;
			if (console->len)
				acked = true; /* the ack went out before the console output */
			if (!send_packet(fd, !acked, reply) || quit)
				break;
			if (!strcmp(pkt, "QStartNoAckMode") && !strcmp(reply, "OK"))
				no_ack = true; /* from the next packet on (its OK was acked) */
		}
	}
	free(in);
	free(pkt);
	free(reply);
	free(link);
	g_string_free(console, TRUE);
	close(fd);
	m->watch_stop_before = stop_before;
	return st;
}
