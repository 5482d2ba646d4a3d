/* SPDX-License-Identifier: MIT */
/* The debugger's command language (the REPL, batch scripts and -ex all come
 * here), and the prologue-scan unwinder behind bt and finish. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_internal.h"
#include "source.h"

enum { MAX_ARGS = 32, DEFAULT_BUDGET = 20000000 };

typedef struct argv_t {
	int argc;
	char *argv[MAX_ARGS];
	char buf[1024];
} argv_t;

/* A command's code: argv[0] is the word typed (an alias, or x/FMT). */
typedef cs_status gsp_command_fn(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d);

/* Every command once: its name, its aliases (space-separated), its usage,
 * what it does and its handler. The dispatcher, help, and completion read this
 * one list, so a command cannot run without help, nor be helped without
 * running. */
#define GSP_COMMANDS(X) \
	X("break", "b", "break LOCATION | break FILE:LINE", "stop before the instruction at LOCATION (an expression) or the first one of a source line", cmd_break) \
	X("tbreak", "", "tbreak LOCATION | tbreak FILE:LINE", "a breakpoint deleted when it is hit", cmd_tbreak) \
	X("watch", "", "watch ADDRESS [LENGTH]", "stop after a write to LENGTH (4) bytes at ADDRESS (msgq.* cursors too)", cmd_watch) \
	X("rwatch", "", "rwatch ADDRESS [LENGTH]", "stop after a read", cmd_rwatch) \
	X("awatch", "", "awatch ADDRESS [LENGTH]", "stop after a read or a write", cmd_awatch) \
	X("delete", "d", "delete [ID...]", "delete breakpoints and watchpoints (all without ID)", cmd_delete) \
	X("continue", "c", "continue [BUDGET]", "run to a stop (at most BUDGET instructions)", cmd_continue) \
	X("step", "s", "step [N]", "run to the next source line, into calls (one instruction without line tables)", cmd_step) \
	X("next", "n", "next [N]", "run to the next source line, over calls (one instruction, over calls, without line tables)", cmd_next) \
	X("stepi", "si", "stepi [N]", "run N instructions", cmd_stepi) \
	X("nexti", "ni", "nexti [N]", "run N instructions, calls as one", cmd_nexti) \
	X("finish", "", "finish", "run until the current function returns; print a0", cmd_finish) \
	X("list", "l", "list [FILE:LINE | FUNCTION | LINE]", "ten source lines around the place (the pc); again: the next ten", cmd_list) \
	X("info", "i", "info breakpoints|registers [REG...]|all-registers|map|symbol ADDR|snapshots|locals|line [ADDR]", "tables and state", cmd_info) \
	X("regs", "", "regs", "the integer registers and pc (as info registers)", cmd_regs) \
	X("x", "", "x/NFU ADDRESS", "examine memory: F x d u c i s (string), U b h w g", cmd_x) \
	X("set", "", "set $REG = VALUE | set mem ADDR u8|u16|u32|u64 V...", "write a register or memory", cmd_set) \
	X("print", "p", "print EXPRESSION", "a variable of the selected frame or a global with its type (NAME.FIELD, ->, [N], *, &, (TYPE) casts) or an expression: numbers, $reg, symbols, +, -, *ADDR, msgq.* cursors", cmd_print) \
	X("disassemble", "disas", "disassemble [LOCATION [N]]", "instructions, objdump's text", cmd_disas) \
	X("backtrace", "bt where", "backtrace", "the frames, with FILE:LINE where the line tables know it", cmd_backtrace) \
	X("frame", "f", "frame [N]", "select frame N (0 innermost) for info locals, print, $REG and list; alone, show the selected one", cmd_frame) \
	X("up", "", "up [N]", "select the frame N (1) calls out", cmd_up) \
	X("down", "", "down [N]", "select the frame N (1) calls in", cmd_down) \
	X("call", "", "call FUNCTION [ARG...]", "call a firmware function with up to 8 arguments", cmd_call) \
	X("snapshot", "", "snapshot save|restore NAME", "save or restore the whole machine", cmd_snapshot) \
	X("msgq", "", "msgq [init | monitor on|off]", "the message queues: cursors and pending elements; the overrun monitor", cmd_msgq) \
	X("rpc", "", "rpc init | send NAME [WORD...] | post NAME [COUNT] | recv | drain [BUDGET]", "the host side of the RPC protocol", cmd_rpc) \
	X("mmio", "", "mmio trace on|off", "print every modelled MMIO access", cmd_mmio) \
	X("log", "", "log", "what the firmware wrote to its log region", cmd_log) \
	X("echo", "", "echo TEXT", "print TEXT (scripts)", cmd_echo) \
	X("quit", "exit q", "quit", "leave the REPL (over gdb's monitor: detach or kill instead)", cmd_quit) \
	X("help", "h", "help [COMMAND]", "the commands, or one command's usage", cmd_help)

typedef struct gsp_command {
	const char *name, *aliases, *usage, *what;
	gsp_command_fn *fn;
} gsp_command;

#define GSP_COMMAND_DECLARE(name, aliases, usage, what, fn) static gsp_command_fn fn;
#define GSP_COMMAND_ENTRY(name, aliases, usage, what, fn) { name, aliases, usage, what, fn },
#define GSP_COMMAND_NAME(name, aliases, usage, what, fn) name,
GSP_COMMANDS(GSP_COMMAND_DECLARE)
static const gsp_command command_table[] = { GSP_COMMANDS(GSP_COMMAND_ENTRY) };
static const char *const commands[] = { GSP_COMMANDS(GSP_COMMAND_NAME) NULL };
enum { NCOMMANDS = sizeof(command_table) / sizeof(command_table[0]) };

/* The command named word, or of which word is an alias; `x/FMT` is x. */
static const gsp_command *find_command(const char *word)
{
	size_t len = strcspn(word, "/");
	if (word[len] == '/' && strncmp(word, "x/", 2))
		return NULL;
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const gsp_command *c = &command_table[i];
		if (strlen(c->name) == len && !strncmp(c->name, word, len))
			return c;
		for (const char *al = c->aliases; *al;) {
			size_t n = strcspn(al, " ");
			if (n == len && !strncmp(al, word, len))
				return c;
			al += n;
			al += strspn(al, " ");
		}
	}
	return NULL;
}

/* The RPC names `rpc send` and `rpc post` take, one string. */
static void rpc_names_list(char *buf, size_t len)
{
	size_t used = 0;
	uint32_t fn;
	const char *name;
	buf[0] = 0;
	for (size_t i = 0; (name = cs_gsp_rpc_known(i, &fn)) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s (%u)", i ? ", " : "", name, fn);
	if (used < len)
		snprintf(buf + used, len - used, ", or a function number");
}

const char *const *cs_gsp_dbg_commands(void)
{
	return commands;
}

void cs_gsp_dbg_set_batch(cs_gsp *m, bool batch)
{
	m->batch = batch;
}

/* ---- unwinding ---- */

static bool read_u64(cs_gsp *m, uint64_t addr, uint64_t *v)
{
	return uc_mem_read(m->uc, addr, v, 8) == UC_ERR_OK;
}

static const cs_gsp_symbol *func_of(cs_gsp *m, uint64_t pc)
{
	const cs_gsp_symbol *s = cs_gsp_image_symbolize(m->img, pc);
	return s;
}

/* Scans the function's prologue up to pc: frame size, where ra and s0 went,
 * whether s0 is the frame pointer yet. */
static bool frame_of(cs_gsp *m, uint64_t pc, uint64_t sp, uint64_t fp, bool leaf_ra_ok, uint64_t ra_reg,
		     gsp_frame *f)
{
	const cs_gsp_symbol *s = func_of(m, pc);
	f->pc = pc;
	f->sp = sp;
	f->fp = fp;
	f->ra_valid = false;
	if (!s)
		return false;
	int64_t frame = 0, ra_off = -1, s0_off = -1, fp_off = -1;
	for (uint64_t a = s->addr; a < pc;) {
		uint8_t b[4] = { 0 };
		cs_rv_insn in;
		if (uc_mem_read(m->uc, a, b, 4) != UC_ERR_OK && uc_mem_read(m->uc, a, b, 2) != UC_ERR_OK)
			break;
		if (!cs_rv_decode(b, 4, a, &in))
			break;
		uint32_t w = in.raw;
		if (in.has_target || in.is_ret || in.is_call)
			break;
		if (!strcmp(in.mnemonic, "add") && !strncmp(in.operands, "sp,sp,", 6)) {
			int64_t imm = strtoll(in.operands + 6, NULL, 10);
			if (imm < 0)
				frame = -imm;
			else {
				frame = 0;
				ra_off = s0_off = fp_off = -1;
			}
		} else if (!strcmp(in.mnemonic, "sd") && !strncmp(in.operands, "ra,", 3) && strstr(in.operands, "(sp)")) {
			ra_off = strtoll(in.operands + 3, NULL, 10);
		} else if (!strcmp(in.mnemonic, "sd") && !strncmp(in.operands, "s0,", 3) && strstr(in.operands, "(sp)")) {
			s0_off = strtoll(in.operands + 3, NULL, 10);
		} else if (!strcmp(in.mnemonic, "add") && !strncmp(in.operands, "s0,sp,", 6)) {
			fp_off = strtoll(in.operands + 6, NULL, 10);
		} else if (!strcmp(in.mnemonic, "mv") && !strcmp(in.operands, "s0,sp")) {
			fp_off = 0;
		} else if (!strcmp(in.mnemonic, "ld") && !strncmp(in.operands, "ra,", 3)) {
			ra_off = -1;
		} else if (!strcmp(in.mnemonic, "ld") && !strncmp(in.operands, "s0,", 3)) {
			s0_off = -1;
			fp_off = -1;
		}
		(void)w;
		a += in.len;
	}
	uint64_t sp_after;
	if (fp_off >= 0)
		sp_after = fp - (uint64_t)fp_off;
	else
		sp_after = sp;
	f->cfa = sp_after + (uint64_t)frame;
	if (ra_off >= 0) {
		f->ra_valid = read_u64(m, sp_after + (uint64_t)ra_off, &f->ra);
	} else if (leaf_ra_ok) {
		f->ra = ra_reg;
		f->ra_valid = true;
	}
	uint64_t saved_fp = fp;
	if (s0_off >= 0)
		read_u64(m, sp_after + (uint64_t)s0_off, &saved_fp);
	f->fp = saved_fp; /* the caller's s0 */
	return true;
}

int gsp_unwind(cs_gsp *m, gsp_frame *frames, int max)
{
	uint64_t pc = cs_gsp_pc(m), sp = gsp_reg(m, UC_RISCV_REG_SP), fp = gsp_reg(m, UC_RISCV_REG_S0);
	uint64_t ra = gsp_reg(m, UC_RISCV_REG_RA);
	int n = 0;
	while (n < max) {
		gsp_frame f;
		if (!frame_of(m, pc, sp, fp, n == 0, ra, &f)) {
			if (n == 0) {
				f.pc = pc;
				f.sp = sp;
				f.cfa = sp;
				f.ra = ra;
				f.ra_valid = true;
				frames[n++] = f;
			}
			break;
		}
		uint64_t caller_fp = f.fp;
		f.sp = sp;
		f.fp = fp;
		frames[n++] = f;
		if (!f.ra_valid || f.ra == 0 || f.ra == m->pad || !func_of(m, f.ra))
			break;
		if (f.cfa < sp || (n > 1 && f.cfa == sp))
			break;
		pc = f.ra;
		sp = f.cfa;
		fp = caller_fp;
	}
	return n;
}

/* ---- parsing ---- */

static bool split(const char *line, argv_t *a, cs_diag *d)
{
	size_t n = strlen(line);
	if (n >= sizeof(a->buf)) {
		cs_diag_set(d, CS_ERR_INPUT, "command longer than %zu characters", sizeof(a->buf) - 1);
		return false;
	}
	memcpy(a->buf, line, n + 1);
	a->argc = 0;
	char *p = a->buf;
	while (*p) {
		while (*p && isspace((unsigned char)*p))
			*p++ = 0;
		if (!*p)
			break;
		if (a->argc == MAX_ARGS) {
			cs_diag_set(d, CS_ERR_INPUT, "more than %d words", MAX_ARGS);
			return false;
		}
		a->argv[a->argc++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return true;
}

static bool parse_num(const char *s, uint64_t *v)
{
	char *end = NULL;
	if (!*s)
		return false;
	errno = 0;
	bool neg = *s == '-';
	unsigned long long x = strtoull(neg ? s + 1 : s, &end, 0);
	if (errno || *end)
		return false;
	*v = neg ? (uint64_t)(-(int64_t)x) : x;
	return true;
}

/* The frame `frame`, `up` or `down` chose, while the machine stands where it
 * was chosen: once pc or sp moved (a run, a call, a register write), 0. */
static int selected_frame(cs_gsp *m)
{
	if (m->frame_sel && (cs_gsp_pc(m) != m->frame_pc || gsp_reg(m, UC_RISCV_REG_SP) != m->frame_sp))
		m->frame_sel = 0;
	return m->frame_sel;
}

/* Register r as the selected frame sees it: the machine's in frame 0; in an
 * outer frame pc and the integer registers the unwinder recovered. */
static bool frame_reg(cs_gsp *m, unsigned r, const char *name, uint64_t *v, cs_diag *d)
{
	int n = selected_frame(m);
	if (!n || r > CS_GSP_REG_F0 + 31)
		return cs_gsp_reg_read(m, r, v, d) == CS_OK;
	uint64_t pc, x[32];
	uint32_t known = 0;
	if (!gsp_source_frame(m, m->img->source, n, &pc, x, &known, d))
		return false;
	if (r == CS_GSP_REG_PC || (r < 32 && (known & (1u << r)))) {
		*v = r == CS_GSP_REG_PC ? pc : x[r];
		return true;
	}
	cs_diag_set(d, CS_ERR_INPUT, "$%s is not recovered in frame %d: no frame inside it saved it", name, n);
	return false;
}

static bool eval_term(cs_gsp *m, const char *t, uint64_t *v, cs_diag *d)
{
	if (parse_num(t, v))
		return true;
	if (t[0] == '$') {
		unsigned r;
		if (cs_gsp_reg_lookup(t + 1, &r))
			return frame_reg(m, r, t + 1, v, d);
		cs_diag_set(d, CS_ERR_INPUT, "no register '%s'", t);
		return false;
	}
	if (!strncmp(t, "msgq.", 5)) {
		if (cs_gsp_msgq_cursor(m, t, v))
			return true;
		cs_diag_set(d, CS_ERR_INPUT, "'%s': not a message-queue cursor (msgq.cmd.write, msgq.cmd.read, "
			    "msgq.stat.write, msgq.stat.read) or the queues are not initialized", t);
		return false;
	}
	const cs_gsp_symbol *s = cs_gsp_image_symbol(m->img, t);
	if (s) {
		*v = s->addr;
		return true;
	}
	cs_diag_set(d, CS_ERR_INPUT, "'%s' is not a number, register, cursor or symbol", t);
	return false;
}

/* EXPR := TERM {(+|-) TERM}, no spaces inside. */
static bool eval(cs_gsp *m, const char *e, uint64_t *v, cs_diag *d)
{
	char buf[256];
	size_t n = strlen(e);
	if (n == 0 || n >= sizeof(buf)) {
		cs_diag_set(d, CS_ERR_INPUT, "bad expression '%s'", e);
		return false;
	}
	memcpy(buf, e, n + 1);
	uint64_t acc = 0;
	int sign = 1;
	char *p = buf;
	if (*p == '*' ) {
		uint64_t a;
		if (!eval(m, p + 1, &a, d))
			return false;
		uint64_t x = 0;
		if (cs_gsp_mem_read(m, a, &x, 8, d) != CS_OK)
			return false;
		*v = x;
		return true;
	}
	for (;;) {
		char *q = p;
		if (*q == '-' || *q == '+')
			q++;
		while (*q && *q != '+' && *q != '-')
			q++;
		char c = *q;
		*q = 0;
		uint64_t t;
		if (!eval_term(m, p, &t, d))
			return false;
		acc = sign > 0 ? acc + t : acc - t;
		if (!c)
			break;
		sign = c == '+' ? 1 : -1;
		p = q + 1;
	}
	*v = acc;
	return true;
}

static bool need_args(const argv_t *a, int min, int max, const char *usage, cs_diag *d)
{
	if (a->argc - 1 < min || a->argc - 1 > max) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: %s", usage);
		return false;
	}
	return true;
}

/* ---- printing ---- */

static void print_insn(cs_gsp *m, FILE *out, uint64_t pc, bool mark)
{
	uint8_t b[4] = { 0 };
	char sym[128], txt[320];
	cs_rv_insn in;
	cs_gsp_symbolize(m, pc, sym, sizeof(sym));
	bool ok = gsp_read_code(m, pc, b, 4) || gsp_read_code(m, pc, b, 2);
	if (ok && (cs_rv_decode_in(m->img, b, 4, pc, &in) || in.len)) {
		cs_rv_format(&in, txt, sizeof(txt));
		if (in.has_target) {
			char t[128];
			cs_gsp_symbolize(m, in.target, t, sizeof(t));
			size_t l = strlen(txt);
			snprintf(txt + l, sizeof(txt) - l, " <%s>", t);
		}
	} else
		snprintf(txt, sizeof(txt), ok ? "(bad)" : "(unmapped)");
	fprintf(out, "%s0x%" PRIx64 " <%s>:\t%s\n", mark ? "=> " : "   ", pc, sym, txt);
}

static uint64_t insn_len_at(cs_gsp *m, uint64_t pc)
{
	uint8_t b[4] = { 0 };
	cs_rv_insn in;
	if (!gsp_read_code(m, pc, b, 4))
		gsp_read_code(m, pc, b, 2);
	cs_rv_decode_in(m->img, b, 4, pc, &in);
	return in.len ? in.len : 2;
}

/* "fw.c:160: <the line>" where the line tables know pc. */
static void print_source_line(cs_gsp *m, FILE *out, uint64_t pc)
{
	const char *file;
	unsigned line;
	if (!gsp_source_line(m->img->source, pc, &file, &line, NULL))
		return;
	const char *b = strrchr(file, '/');
	fprintf(out, "%s:%u:\n", b ? b + 1 : file, line);
	cs_diag ignore;
	cs_diag_clear(&ignore);
	gsp_source_list(m->img->source, file, line, line, line, out, &ignore);
}

static void report_stop(cs_gsp *m, FILE *out, const cs_gsp_stop *st)
{
	char desc[512];
	cs_gsp_stop_describe(m, st, desc, sizeof(desc));
	if (st->reason == CS_GSP_STOP_STEP)
		fprintf(out, "step: %s\n", desc);
	else
		fprintf(out, "stopped: %s\n", desc);
	if (st->reason == CS_GSP_STOP_WATCH || st->reason == CS_GSP_STOP_DESYNC) {
		const char *cn = gsp_msgq_cursor_name(m, st->addr);
		if (cn)
			fprintf(out, "  address 0x%" PRIx64 " is %s\n", st->addr, cn);
		if (st->access_pc) {
			fprintf(out, "  access:\n");
			print_source_line(m, out, st->access_pc);
			print_insn(m, out, st->access_pc, false);
		}
		if (m->q.ready) {
			const char *names[] = { "msgq.cmd.write", "msgq.cmd.read", "msgq.stat.write", "msgq.stat.read" };
			fprintf(out, "  cursors:");
			for (int i = 0; i < 4; i++) {
				uint64_t a;
				uint32_t v = 0;
				cs_gsp_msgq_cursor(m, names[i], &a);
				uc_mem_read(m->uc, a, &v, 4);
				fprintf(out, " %s=%u", names[i], v);
			}
			fprintf(out, "\n");
		}
	}
	print_source_line(m, out, cs_gsp_pc(m));
	print_insn(m, out, cs_gsp_pc(m), true);
}

static void print_regs(cs_gsp *m, FILE *out, bool all)
{
	for (unsigned i = 0; i < 32; i++) {
		uint64_t v;
		cs_gsp_reg_read(m, i, &v, NULL);
		fprintf(out, "%-8s 0x%016" PRIx64 "%s", cs_gsp_reg_name(i), v, (i % 4 == 3) ? "\n" : "  ");
	}
	uint64_t pc = cs_gsp_pc(m);
	char sym[128];
	cs_gsp_symbolize(m, pc, sym, sizeof(sym));
	fprintf(out, "%-8s 0x%016" PRIx64 "  <%s>\n", "pc", pc, sym);
	static const uint32_t csrs[] = { 0x300, 0x301, 0x304, 0x305, 0x340, 0x341, 0x342, 0x343, 0x344 };
	for (size_t i = 0; i < sizeof(csrs) / sizeof(csrs[0]); i++) {
		uint64_t v;
		cs_gsp_reg_read(m, CS_GSP_REG_CSR0 + csrs[i], &v, NULL);
		fprintf(out, "%-8s 0x%016" PRIx64 "%s", cs_gsp_reg_name(CS_GSP_REG_CSR0 + csrs[i]), v,
			(i % 4 == 3) ? "\n" : "  ");
	}
	static const char *const priv_names[4] = { "U", "S", "?", "M" };
	fprintf(out, "%-8s %s\n", "priv", priv_names[gsp_priv(m) & 3]);
	if (all)
		for (unsigned i = 0; i < 32; i++) {
			uint64_t v;
			cs_gsp_reg_read(m, CS_GSP_REG_F0 + i, &v, NULL);
			fprintf(out, "%-8s 0x%016" PRIx64 "%s", cs_gsp_reg_name(CS_GSP_REG_F0 + i), v,
				(i % 4 == 3) ? "\n" : "  ");
		}
}

/* ---- commands ---- */

/* FILE:LINE through the line table; false (d untouched) when text is not one. */
static bool source_location(cs_gsp *m, const char *text, uint64_t *addr, unsigned *line, cs_diag *d, bool *bad)
{
	const char *colon = strrchr(text, ':');
	*bad = false;
	if (!colon || colon == text || !colon[1])
		return false;
	char *end = NULL;
	unsigned long l = strtoul(colon + 1, &end, 10);
	if (*end)
		return false;
	char file[256];
	snprintf(file, sizeof(file), "%.*s", (int)(colon - text), text);
	if (!m->img->source) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': the firmware has no line tables (no DWARF)", text);
		*bad = true;
		return false;
	}
	if (!gsp_source_addr(m->img->source, file, (unsigned)l, addr, line, d)) {
		*bad = true;
		return false;
	}
	return true;
}

/* " at fw.c:160" for pc, or "" */
static void source_suffix(cs_gsp *m, uint64_t pc, char *buf, size_t len)
{
	const char *file;
	unsigned line;
	buf[0] = 0;
	if (gsp_source_line(m->img->source, pc, &file, &line, NULL)) {
		const char *b = strrchr(file, '/');
		snprintf(buf, len, " at %s:%u", b ? b + 1 : file, line);
	}
}

static cs_status add_break(cs_gsp *m, argv_t *a, FILE *out, bool temp, cs_diag *d)
{
	uint64_t addr;
	unsigned line;
	bool bad = false;
	if (!need_args(a, 1, 1, temp ? "tbreak LOCATION" : "break LOCATION", d))
		return CS_ERR_INPUT;
	if (!source_location(m, a->argv[1], &addr, &line, d, &bad) && (bad || !eval(m, a->argv[1], &addr, d)))
		return CS_ERR_INPUT;
	int id;
	cs_status st = cs_gsp_break_add(m, addr, temp, &id, d);
	if (st == CS_OK) {
		char sym[128];
		cs_gsp_symbolize(m, addr, sym, sizeof(sym));
		char src[300];
		source_suffix(m, addr, src, sizeof(src));
		fprintf(out, "%s %d at 0x%" PRIx64 " <%s>%s\n", temp ? "temporary breakpoint" : "breakpoint", id, addr, sym,
			src);
	}
	return st;
}

static cs_status add_watch(cs_gsp *m, argv_t *a, FILE *out, cs_gsp_watch_kind kind, cs_diag *d)
{
	uint64_t addr, len = 4;
	if (!need_args(a, 1, 2, "watch|rwatch|awatch ADDRESS [LENGTH]", d) || !eval(m, a->argv[1], &addr, d))
		return CS_ERR_INPUT;
	if (a->argc > 2 && !eval(m, a->argv[2], &len, d))
		return CS_ERR_INPUT;
	int id;
	cs_status st = cs_gsp_watch_add(m, addr, len, kind, &id, d);
	if (st == CS_OK) {
		static const char *const k[4] = { "", "watchpoint", "read watchpoint", "access watchpoint" };
		const char *cn = gsp_msgq_cursor_name(m, addr);
		fprintf(out, "%s %d: 0x%" PRIx64 " len %" PRIu64 "%s%s\n", k[kind], id, addr, len, cn ? " " : "",
			cn ? cn : "");
	}
	return st;
}

/* Prints the stop; in batch mode a run that ended in a fault, on the
 * wall-clock guard or out of budget fails its command. */
static cs_status run_report(cs_gsp *m, FILE *out, cs_status s, const cs_gsp_stop *st, cs_diag *d)
{
	if (s != CS_OK)
		return s;
	report_stop(m, out, st);
	if (m->batch && (st->reason == CS_GSP_STOP_FAULT || st->reason == CS_GSP_STOP_GUARD ||
			 st->reason == CS_GSP_STOP_BUDGET)) {
		char desc[512];
		cs_gsp_stop_describe(m, st, desc, sizeof(desc));
		cs_diag_set(d, CS_ERR_FAULT, "the run stopped: %s", desc);
		return CS_ERR_FAULT;
	}
	return CS_OK;
}

static cs_status cmd_x(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	const char *fmt = a->argv[0] + 1;
	uint64_t count = 1;
	char f = 'x', u = 'w';
	if (*fmt == '/') {
		fmt++;
		char *end;
		if (isdigit((unsigned char)*fmt)) {
			count = strtoull(fmt, &end, 10);
			fmt = end;
		}
		for (; *fmt; fmt++) {
			if (strchr("xduics", *fmt))
				f = *fmt;
			else if (strchr("bhwg", *fmt))
				u = *fmt;
			else {
				cs_diag_set(d, CS_ERR_INPUT, "x: unknown format letter '%c' (x d u i c s, b h w g)", *fmt);
				return CS_ERR_INPUT;
			}
		}
	} else if (*fmt) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: x[/NFU] ADDRESS");
		return CS_ERR_INPUT;
	}
	uint64_t addr;
	if (!need_args(a, 1, 1, "x[/NFU] ADDRESS", d) || !eval(m, a->argv[1], &addr, d))
		return CS_ERR_INPUT;
	if (count == 0 || count > 4096) {
		cs_diag_set(d, CS_ERR_INPUT, "x: count %" PRIu64 " (1 to 4096)", count);
		return CS_ERR_INPUT;
	}
	if (f == 's') {
		for (uint64_t i = 0; i < count; i++) {
			char sym[128];
			cs_gsp_symbolize(m, addr, sym, sizeof(sym));
			fprintf(out, "0x%" PRIx64 " <%s>:\t\"", addr, sym);
			uint64_t n = 0;
			for (; n < 4096; n++) {
				uint8_t ch;
				if (cs_gsp_mem_read(m, addr + n, &ch, 1, NULL) != CS_OK || !ch)
					break;
				if (ch == '"' || ch == '\\')
					fprintf(out, "\\%c", ch);
				else if (isprint(ch))
					fputc(ch, out);
				else
					fprintf(out, "\\%03o", ch);
			}
			fprintf(out, "\"%s\n", n == 4096 ? "..." : "");
			addr += n + 1;
		}
		return CS_OK;
	}
	if (f == 'i') {
		for (uint64_t i = 0; i < count; i++) {
			print_insn(m, out, addr, addr == cs_gsp_pc(m));
			addr += insn_len_at(m, addr);
		}
		return CS_OK;
	}
	unsigned size = u == 'b' ? 1 : u == 'h' ? 2 : u == 'w' ? 4 : 8;
	unsigned per_line = 16 / size;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t v = 0;
		cs_status st = cs_gsp_mem_read(m, addr + i * size, &v, size, d);
		if (st != CS_OK)
			return st;
		if (i % per_line == 0) {
			char sym[128];
			cs_gsp_symbolize(m, addr + i * size, sym, sizeof(sym));
			fprintf(out, "%s0x%" PRIx64 " <%s>:", i ? "\n" : "", addr + i * size, sym);
		}
		if (f == 'x')
			fprintf(out, " 0x%0*" PRIx64, (int)size * 2, v);
		else if (f == 'd') {
			int64_t sv = (int64_t)(v << (64 - 8 * size)) >> (64 - 8 * size);
			fprintf(out, " %" PRId64, sv);
		} else if (f == 'c')
			fprintf(out, " '%c'", isprint((int)(v & 0xff)) ? (int)(v & 0xff) : '.');
		else
			fprintf(out, " %" PRIu64, v);
	}
	fprintf(out, "\n");
	return CS_OK;
}

static cs_status cmd_disas(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t at = cs_gsp_pc(m), n = 0;
	if (!need_args(a, 0, 2, "disassemble [LOCATION [COUNT]]", d))
		return CS_ERR_INPUT;
	if (a->argc > 1 && !eval(m, a->argv[1], &at, d))
		return CS_ERR_INPUT;
	if (a->argc > 2 && (!eval(m, a->argv[2], &n, d) || n == 0 || n > 100000)) {
		cs_diag_set(d, CS_ERR_INPUT, "disassemble: count must be 1 to 100000");
		return CS_ERR_INPUT;
	}
	uint64_t start = at, end;
	if (n == 0) {
		const cs_gsp_symbol *s = func_of(m, at);
		if (!s || !s->size) {
			start = at;
			end = at + 32;
		} else {
			start = s->addr;
			end = s->addr + s->size;
			fprintf(out, "%s:\n", s->name);
		}
		for (uint64_t p = start; p < end; p += insn_len_at(m, p))
			print_insn(m, out, p, p == cs_gsp_pc(m));
		return CS_OK;
	}
	for (uint64_t i = 0, p = start; i < n; i++, p += insn_len_at(m, p))
		print_insn(m, out, p, p == cs_gsp_pc(m));
	return CS_OK;
}

enum { FRAMES_MAX = 256 };

static cs_status select_frame(cs_gsp *m, argv_t *a, const char *c, FILE *out, cs_diag *d)
{
	bool frame = !strcmp(c, "frame"), up = !strcmp(c, "up");
	uint64_t n = frame ? 0 : 1;
	if (!need_args(a, 0, 1, frame ? "frame [N]" : up ? "up [N]" : "down [N]", d))
		return CS_ERR_INPUT;
	if (a->argc > 1 && (!parse_num(a->argv[1], &n) || n > FRAMES_MAX)) {
		cs_diag_set(d, CS_ERR_INPUT, "%s: '%s' is not a frame count 0..%d", c, a->argv[1], FRAMES_MAX);
		return CS_ERR_INPUT;
	}
	int64_t cur = selected_frame(m);
	int64_t want = frame ? (a->argc > 1 ? (int64_t)n : cur) : up ? cur + (int64_t)n : cur - (int64_t)n;
	if (want < 0) {
		cs_diag_set(d, CS_ERR_INPUT, "down: frame %" PRId64 " is selected, and frame 0 is the innermost", cur);
		return CS_ERR_INPUT;
	}
	uint64_t pc;
	if (!gsp_source_frame(m, m->img->source, (int)want, &pc, NULL, NULL, d))
		return CS_ERR_INPUT;
	m->frame_sel = (int)want;
	m->frame_pc = cs_gsp_pc(m);
	m->frame_sp = gsp_reg(m, UC_RISCV_REG_SP);
	/* an outer frame's pc is a return address: its line is the call's */
	uint64_t at = want ? pc - 1 : pc;
	char sym[128], src[300];
	cs_gsp_symbolize(m, pc, sym, sizeof(sym));
	source_suffix(m, at, src, sizeof(src));
	fprintf(out, "#%" PRId64 "  0x%" PRIx64 " <%s>%s\n", want, pc, sym, src);
	print_source_line(m, out, at);
	/* a `list` next shows the lines around the frame's */
	const char *file;
	unsigned line;
	if (gsp_source_line(m->img->source, at, &file, &line, NULL)) {
		snprintf(m->list_file, sizeof(m->list_file), "%s", file);
		m->list_next = line > 5 ? line - 5 : 1;
	}
	return CS_OK;
}

static cs_status cmd_backtrace(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (!need_args(a, 0, 0, "backtrace", d))
		return CS_ERR_INPUT;
	gsp_frame f[32];
	int n = gsp_unwind(m, f, 32);
	for (int i = 0; i < n; i++) {
		char sym[128];
		cs_gsp_symbolize(m, f[i].pc, sym, sizeof(sym));
		char src[300];
		/* a caller's pc is a return address: its line is the call's */
		source_suffix(m, i ? f[i].pc - 1 : f[i].pc, src, sizeof(src));
		fprintf(out, "#%d  0x%" PRIx64 " <%s>%s  sp 0x%" PRIx64 " cfa 0x%" PRIx64 "\n", i, f[i].pc, sym, src,
			f[i].sp, f[i].cfa);
	}
	return CS_OK;
}

static cs_status cmd_set(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	(void)out;
	/* set $REG VALUE | set $REG = VALUE | set mem ADDRESS u8|u16|u32|u64 VALUE... */
	if (a->argc >= 2 && !strcmp(a->argv[1], "mem")) {
		if (a->argc < 5) {
			cs_diag_set(d, CS_ERR_INPUT, "usage: set mem ADDRESS u8|u16|u32|u64 VALUE...");
			return CS_ERR_INPUT;
		}
		uint64_t addr;
		if (!eval(m, a->argv[2], &addr, d))
			return CS_ERR_INPUT;
		unsigned size = !strcmp(a->argv[3], "u8") ? 1 : !strcmp(a->argv[3], "u16") ? 2
			: !strcmp(a->argv[3], "u32") ? 4 : !strcmp(a->argv[3], "u64") ? 8 : 0;
		if (!size) {
			cs_diag_set(d, CS_ERR_INPUT, "set mem: type '%s' (u8, u16, u32 or u64)", a->argv[3]);
			return CS_ERR_INPUT;
		}
		for (int i = 4; i < a->argc; i++) {
			uint64_t v;
			if (!eval(m, a->argv[i], &v, d))
				return CS_ERR_INPUT;
			cs_status st = cs_gsp_mem_write(m, addr, &v, size, d);
			if (st != CS_OK)
				return st;
			addr += size;
		}
		return CS_OK;
	}
	if (a->argc == 3 || (a->argc == 4 && !strcmp(a->argv[2], "="))) {
		unsigned r;
		if (!cs_gsp_reg_lookup(a->argv[1], &r)) {
			cs_diag_set(d, CS_ERR_INPUT, "set: no register '%s'", a->argv[1]);
			return CS_ERR_INPUT;
		}
		uint64_t v;
		if (!eval(m, a->argv[a->argc - 1], &v, d))
			return CS_ERR_INPUT;
		return cs_gsp_reg_write(m, r, v, d);
	}
	cs_diag_set(d, CS_ERR_INPUT, "usage: set $REG [=] VALUE | set mem ADDRESS TYPE VALUE...");
	return CS_ERR_INPUT;
}

static void print_reply(FILE *out, const cs_gsp_reply *r)
{
	fprintf(out, "reply %s(%u) sequence %u seqNum %u elems %u result 0x%x payload %u bytes:", cs_gsp_rpc_name(r->function),
		r->function, r->sequence, r->seq_num, r->elems, r->result, r->payload_len);
	for (uint32_t i = 0; i < r->payload_len && i < 32; i += 4) {
		uint32_t w = 0;
		memcpy(&w, r->payload + i, r->payload_len - i >= 4 ? 4 : r->payload_len - i);
		fprintf(out, " %08x", w);
	}
	fprintf(out, "%s\n", r->payload_len > 32 ? " ..." : "");
}

/* A reply if one is queued: printed and counted in *n. */
static cs_status receive_printed(cs_gsp *m, cs_gsp_reply *rep, FILE *out, unsigned *n, bool *got,
				 cs_diag *d)
{
	cs_status s = cs_gsp_rpc_receive(m, rep, got, d);
	if (s == CS_OK && *got) {
		(*n)++;
		print_reply(out, rep);
	}
	return s;
}

static cs_status cmd_rpc(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc < 2) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: rpc init | send NAME [WORD...] | post NAME [COUNT] | recv | drain [BUDGET]");
		return CS_ERR_INPUT;
	}
	const char *sub = a->argv[1];
	cs_gsp_stop st;
	cs_status s;
	static const struct {
		const char *sub, *usage;
		int max_words;
	} rpc_words[] = {
		{ "init", "rpc init", 0 }, { "recv", "rpc recv", 0 }, { "drain", "rpc drain [BUDGET]", 1 },
		{ "post", "rpc post NAME [COUNT]", 2 },
	};
	for (size_t i = 0; i < sizeof(rpc_words) / sizeof(rpc_words[0]); i++)
		if (!strcmp(sub, rpc_words[i].sub) && a->argc - 2 > rpc_words[i].max_words) {
			cs_diag_set(d, CS_ERR_INPUT, "usage: %s", rpc_words[i].usage);
			return CS_ERR_INPUT;
		}
	if (!strcmp(sub, "init")) {
		if (!m->q.ready && (s = cs_gsp_msgq_init(m, d)) != CS_OK)
			return s;
		s = cs_gsp_msgq_wait_init(m, DEFAULT_BUDGET, &st, d);
		if (s != CS_OK)
			return s;
		if (st.reason != CS_GSP_STOP_REPLY)
			return run_report(m, out, CS_OK, &st, d);
		fprintf(out, "GSP_INIT_DONE received (status seqNum 0); firmware at ");
		print_insn(m, out, cs_gsp_pc(m), true);
		return CS_OK;
	}
	cs_gsp_reply *rep = malloc(sizeof(*rep));
	if (!rep)
		return CS_ERR_NOMEM;
	if (!strcmp(sub, "send") || !strcmp(sub, "post")) {
		uint32_t fn;
		if (a->argc < 3 || !cs_gsp_rpc_lookup(a->argv[2], &fn)) {
			char names[512];
			rpc_names_list(names, sizeof(names));
			cs_diag_set(d, CS_ERR_INPUT, "rpc %s: unknown function '%s': give %s", sub,
				    a->argc < 3 ? "" : a->argv[2], names);
			free(rep);
			return CS_ERR_INPUT;
		}
		if (!strcmp(sub, "post")) {
			uint64_t count = 1;
			if (a->argc > 3 && (!eval(m, a->argv[3], &count, d) || count == 0 || count > 200)) {
				cs_diag_set(d, CS_ERR_INPUT, "rpc post: count must be 1 to 200");
				free(rep);
				return CS_ERR_INPUT;
			}
			for (uint64_t i = 0; i < count; i++) {
				uint32_t seq;
				s = cs_gsp_rpc_post(m, fn, NULL, 0, &seq, d);
				if (s != CS_OK) {
					free(rep);
					return s;
				}
			}
			fprintf(out, "posted %" PRIu64 " x %s; %u outstanding\n", count, cs_gsp_rpc_name(fn),
				cs_gsp_rpc_outstanding(m));
			free(rep);
			return CS_OK;
		}
		uint32_t words[64];
		int nw = a->argc - 3;
		if (nw > 64)
			nw = 64;
		for (int i = 0; i < nw; i++) {
			uint64_t v;
			if (!eval(m, a->argv[3 + i], &v, d)) {
				free(rep);
				return CS_ERR_INPUT;
			}
			words[i] = (uint32_t)v;
		}
		s = cs_gsp_rpc_call(m, fn, words, (uint32_t)nw * 4, DEFAULT_BUDGET, rep, &st, d);
		if (s == CS_OK && st.reason == CS_GSP_STOP_REPLY)
			print_reply(out, rep);
		else
			s = run_report(m, out, s, &st, d);
		free(rep);
		return s;
	}
	if (!strcmp(sub, "recv")) {
		bool got;
		s = cs_gsp_rpc_receive(m, rep, &got, d);
		if (s == CS_OK) {
			if (got)
				print_reply(out, rep);
			else
				fprintf(out, "status queue empty\n");
		}
		free(rep);
		return s;
	}
	if (!strcmp(sub, "drain")) {
		uint64_t budget = DEFAULT_BUDGET;
		if (a->argc > 2 && !eval(m, a->argv[2], &budget, d)) {
			free(rep);
			return CS_ERR_INPUT;
		}
		unsigned n = 0;
		s = CS_OK;
		for (int round = 0; round < 10000 && s == CS_OK; round++) {
			bool got;
			s = receive_printed(m, rep, out, &n, &got, d);
			if (s != CS_OK || got)
				continue;
			if (cs_gsp_rpc_outstanding(m) == 0)
				break;
			s = gsp_run(m, budget, 0, false, &st, d);
			if (s != CS_OK)
				break;
			if (st.reason != CS_GSP_STOP_IDLE && st.reason != CS_GSP_STOP_BUDGET) {
				s = run_report(m, out, CS_OK, &st, d);
				break;
			}
			s = receive_printed(m, rep, out, &n, &got, d);
			if (s != CS_OK || got)
				continue;
			cs_diag_set(d, CS_ERR_FAULT, "%u replies outstanding but the firmware is %s and the status queue is empty",
				    cs_gsp_rpc_outstanding(m), st.reason == CS_GSP_STOP_IDLE ? "idle" : "out of budget");
			s = CS_ERR_FAULT;
		}
		if (s == CS_OK)
			fprintf(out, "drained %u replies; %u outstanding\n", n, cs_gsp_rpc_outstanding(m));
		free(rep);
		return s;
	}
	free(rep);
	cs_diag_set(d, CS_ERR_INPUT, "rpc: unknown subcommand '%s' (init, send, post, recv, drain)", sub);
	return CS_ERR_INPUT;
}

static cs_status cmd_info(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	const char *w = a->argc > 1 ? a->argv[1] : "";
	/* the tables that take no word after their name */
	static const char *const bare[] = { "locals", "all-registers", "map", "snapshots" };
	for (size_t i = 0; i < sizeof(bare) / sizeof(bare[0]); i++)
		if (!strcmp(w, bare[i]) && a->argc > 2) {
			cs_diag_set(d, CS_ERR_INPUT, "usage: info %s", bare[i]);
			return CS_ERR_INPUT;
		}
	if ((!strncmp(w, "break", 5) || !strncmp(w, "watch", 5)) && a->argc > 2) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: info %s", w);
		return CS_ERR_INPUT;
	}
	if (!strcmp(w, "locals")) {
		if (!m->img->source) {
			cs_diag_set(d, CS_ERR_INPUT, "info locals: the firmware has no DWARF");
			return CS_ERR_INPUT;
		}
		return gsp_source_locals(m, m->img->source, selected_frame(m), out, d) ? CS_OK : CS_ERR_INPUT;
	}
	if (!strcmp(w, "line")) {
		uint64_t pc = cs_gsp_pc(m);
		if (a->argc > 3 || (a->argc == 3 && !eval(m, a->argv[2], &pc, d))) {
			if (a->argc > 3)
				cs_diag_set(d, CS_ERR_INPUT, "usage: info line [ADDRESS]");
			return CS_ERR_INPUT;
		}
		char src[300], sym[128];
		source_suffix(m, pc, src, sizeof(src));
		cs_gsp_symbolize(m, pc, sym, sizeof(sym));
		if (!src[0])
			fprintf(out, "0x%" PRIx64 " <%s> has no line information\n", pc, sym);
		else
			fprintf(out, "0x%" PRIx64 " <%s> is%s\n", pc, sym, src);
		return CS_OK;
	}
	if (!strncmp(w, "reg", 3)) {
		if (a->argc > 2) {
			for (int i = 2; i < a->argc; i++) {
				unsigned r;
				uint64_t v;
				if (!cs_gsp_reg_lookup(a->argv[i], &r)) {
					cs_diag_set(d, CS_ERR_INPUT, "no register '%s'", a->argv[i]);
					return CS_ERR_INPUT;
				}
				cs_gsp_reg_read(m, r, &v, NULL);
				fprintf(out, "%-8s 0x%016" PRIx64 "\n", cs_gsp_reg_name(r), v);
			}
			return CS_OK;
		}
		print_regs(m, out, false);
		return CS_OK;
	}
	if (!strcmp(w, "all-registers")) {
		print_regs(m, out, true);
		return CS_OK;
	}
	if (!strncmp(w, "break", 5) || !strncmp(w, "watch", 5)) {
		cs_gsp_points_print(m, out);
		return CS_OK;
	}
	if (!strcmp(w, "map")) {
		for (size_t i = 0; i < m->map.count; i++) {
			const cs_gsp_region *r = &m->map.region[i];
			fprintf(out, "%-10s 0x%010" PRIx64 "-0x%010" PRIx64 " %s\n", r->name, r->base, r->base + r->size,
				cs_gsp_kind_name(r->kind));
		}
		return CS_OK;
	}
	if (!strcmp(w, "symbol") && a->argc == 3) {
		uint64_t v;
		if (!eval(m, a->argv[2], &v, d))
			return CS_ERR_INPUT;
		char sym[128];
		cs_gsp_symbolize(m, v, sym, sizeof(sym));
		fprintf(out, "0x%" PRIx64 " is %s\n", v, sym);
		return CS_OK;
	}
	if (!strcmp(w, "snapshots")) {
		for (guint i = 0; i < m->snaps->len; i++)
			fprintf(out, "%s\n", ((gsp_snapshot *)g_ptr_array_index(m->snaps, i))->name);
		return CS_OK;
	}
	cs_diag_set(d, CS_ERR_INPUT, "usage: info registers [REG...] | all-registers | breakpoints | map | symbol ADDR | snapshots");
	return CS_ERR_INPUT;
}

/* step/next by source line: instructions (calls as one for next) until the
 * pc begins a statement of another line; code without line tables is left
 * with `finish` when stepping into it. */
enum { SOURCE_STEP_MAX = 1 << 22 };

static cs_status source_step(cs_gsp *m, bool over, cs_gsp_stop *st, cs_diag *d)
{
	const cs_gsp_source *src = m->img->source;
	const char *f0, *f;
	unsigned l0, l;
	bool start;
	if (!gsp_source_line(src, cs_gsp_pc(m), &f0, &l0, NULL))
		return over ? cs_gsp_next(m, st, d) : cs_gsp_stepi(m, 1, st, d);
	for (uint64_t i = 0; i < SOURCE_STEP_MAX; i++) {
		cs_status s = over ? cs_gsp_next(m, st, d) : cs_gsp_stepi(m, 1, st, d);
		if (s != CS_OK || st->reason != CS_GSP_STOP_STEP)
			return s;
		if (!gsp_source_line(src, cs_gsp_pc(m), &f, &l, &start)) {
			if (over)
				continue;
			s = cs_gsp_finish(m, 0, st, d);
			if (s != CS_OK || st->reason != CS_GSP_STOP_RETURNED)
				return s;
			st->reason = CS_GSP_STOP_STEP;
			continue;
		}
		if (start && (l != l0 || strcmp(f, f0)))
			return CS_OK;
	}
	cs_diag_set(d, CS_ERR_FAULT, "no new source line within %d instructions (stopped at 0x%" PRIx64 ")",
		    SOURCE_STEP_MAX, cs_gsp_pc(m));
	return CS_ERR_FAULT;
}

static cs_status cmd_list(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	const cs_gsp_source *src = m->img->source;
	if (!src) {
		cs_diag_set(d, CS_ERR_INPUT, "list: the firmware has no line tables (no DWARF)");
		return CS_ERR_INPUT;
	}
	if (!need_args(a, 0, 1, "list [FILE:LINE | FUNCTION | LINE]", d))
		return CS_ERR_INPUT;
	const char *file = NULL;
	unsigned line = 0, mark = 0;
	uint64_t addr;
	bool bad = false;
	if (a->argc == 1 && m->list_file[0]) {
		file = m->list_file;
		line = m->list_next + 5;
	} else if (a->argc == 1) {
		if (!gsp_source_line(src, cs_gsp_pc(m), &file, &line, NULL)) {
			cs_diag_set(d, CS_ERR_INPUT, "list: no line information at the pc 0x%" PRIx64, cs_gsp_pc(m));
			return CS_ERR_INPUT;
		}
		mark = line;
	} else if (strchr(a->argv[1], ':')) {
		const char *colon = strrchr(a->argv[1], ':');
		char *end = NULL;
		unsigned long l = strtoul(colon + 1, &end, 10);
		if (*end || !l) {
			cs_diag_set(d, CS_ERR_INPUT, "list: '%s' is not FILE:LINE", a->argv[1]);
			return CS_ERR_INPUT;
		}
		if (!source_location(m, a->argv[1], &addr, &line, d, &bad)) {
			if (bad)
				return CS_ERR_INPUT;
		}
		snprintf(m->list_file, sizeof(m->list_file), "%.*s", (int)(colon - a->argv[1]), a->argv[1]);
		file = m->list_file;
		line = (unsigned)l;
	} else if (isdigit((unsigned char)a->argv[1][0])) {
		uint64_t l;
		if (!parse_num(a->argv[1], &l) || !l || l > UINT32_MAX) {
			cs_diag_set(d, CS_ERR_INPUT, "list: '%s' is not a line number", a->argv[1]);
			return CS_ERR_INPUT;
		}
		if (!m->list_file[0] && !gsp_source_line(src, cs_gsp_pc(m), &file, &line, NULL)) {
			cs_diag_set(d, CS_ERR_INPUT, "list: which file? (list FILE:LINE)");
			return CS_ERR_INPUT;
		}
		if (m->list_file[0])
			file = m->list_file;
		line = (unsigned)l;
	} else if (!gsp_source_func(src, a->argv[1], &file, &line)) {
		cs_diag_set(d, CS_ERR_INPUT, "list: no function '%s' in the debug information", a->argv[1]);
		return CS_ERR_INPUT;
	}
	char keep[256];
	snprintf(keep, sizeof(keep), "%s", file);
	unsigned first = line > 5 ? line - 5 : 1;
	if (!gsp_source_list(src, keep, first, first + 9, mark, out, d))
		return CS_ERR_INPUT;
	snprintf(m->list_file, sizeof(m->list_file), "%s", keep);
	m->list_next = first + 10;
	return CS_OK;
}

/* print EXPRESSION: a DWARF variable with its type when the firmware has
 * one by that name, else the plain expression (spaces allowed). */
static cs_status cmd_print(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc < 2) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: print EXPRESSION");
		return CS_ERR_INPUT;
	}
	char expr[256] = "", compact[256] = "";
	size_t k = 0;
	for (int i = 1; i < a->argc; i++) {
		size_t n = (size_t)snprintf(expr + strlen(expr), sizeof(expr) - strlen(expr), "%s%s", i > 1 ? " " : "",
					    a->argv[i]);
		(void)n;
		for (const char *p = a->argv[i]; *p && k < sizeof(compact) - 1; p++)
			compact[k++] = *p;
	}
	compact[k] = 0;
	if (m->img->source) {
		cs_diag sub;
		cs_diag_clear(&sub);
		int cast = gsp_source_print_cast(m, m->img->source, selected_frame(m), expr, eval, out, &sub);
		if (cast) {
			if (cast < 0)
				*d = sub;
			return cast > 0 ? CS_OK : sub.status;
		}
		if (gsp_source_print(m, m->img->source, selected_frame(m), compact, out, &sub))
			return CS_OK;
		if (sub.status != CS_OK) {
			*d = sub;
			return sub.status;
		}
	}
	uint64_t v;
	if (!strncmp(compact, "*msgq.", 6)) {
		/* the cursors are 32-bit fields of the queue headers */
		uint32_t w = 0;
		if (!eval(m, compact + 1, &v, d) || cs_gsp_mem_read(m, v, &w, 4, d) != CS_OK)
			return CS_ERR_INPUT;
		fprintf(out, "%s = (uint32_t) %u\n", expr, w);
		return CS_OK;
	}
	if (!eval(m, compact, &v, d))
		return CS_ERR_INPUT;
	char sym[128];
	cs_gsp_symbolize(m, v, sym, sizeof(sym));
	fprintf(out, "%s = 0x%" PRIx64 " (%" PRId64 ")%s%s%s\n", expr, v, (int64_t)v, sym[0] != '0' ? " <" : "",
		sym[0] != '0' ? sym : "", sym[0] != '0' ? ">" : "");
	return CS_OK;
}

const char *gsp_dbg_gdb_instead(const char *line)
{
	static const struct {
		const char *command, *sub, *instead;
	} moves_the_hart[] = {
		{ "continue", NULL, "gdb's 'continue'" },
		{ "step", NULL, "gdb's 'step'" },
		{ "next", NULL, "gdb's 'next'" },
		{ "stepi", NULL, "gdb's 'stepi'" },
		{ "nexti", NULL, "gdb's 'nexti'" },
		{ "finish", NULL, "gdb's 'finish'" },
		{ "set", "$", "gdb's 'set $REG = VALUE'" },
		{ "rpc", "init", "'monitor msgq init', then gdb's 'continue' (the firmware initializes "
				 "until it idles), then 'monitor rpc recv' for GSP_INIT_DONE" },
		{ "rpc", "send", "'monitor rpc post NAME', then gdb's 'continue', then 'monitor rpc recv'" },
		{ "rpc", "drain", "gdb's 'continue', then 'monitor rpc recv' for each reply" },
		{ "snapshot", "restore", "'snapshot restore' in chainsim-gsp's own debugger, a session without --gdb "
					 "(gdb has no way to be told that every register changed, and the snapshots "
					 "saved here end with this gdb session)" },
	};
	argv_t a;
	cs_diag d;
	if (!split(line, &a, &d) || a.argc == 0)
		return NULL;
	const gsp_command *cmd = find_command(a.argv[0]);
	for (size_t i = 0; cmd && i < sizeof(moves_the_hart) / sizeof(moves_the_hart[0]); i++) {
		const char *sub = moves_the_hart[i].sub;
		if (strcmp(cmd->name, moves_the_hart[i].command))
			continue;
		if (!sub || (a.argc > 1 && (!strcmp(a.argv[1], sub) ||
					    (!strcmp(sub, "$") && a.argv[1][0] == '$'))))
			return moves_the_hart[i].instead;
	}
	return NULL;
}


/* ---- the commands ---- */

static cs_status cmd_break(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return add_break(m, a, out, false, d);
}

static cs_status cmd_tbreak(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return add_break(m, a, out, true, d);
}

static cs_status cmd_watch(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return add_watch(m, a, out, CS_GSP_WATCH_WRITE, d);
}

static cs_status cmd_rwatch(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return add_watch(m, a, out, CS_GSP_WATCH_READ, d);
}

static cs_status cmd_awatch(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return add_watch(m, a, out, CS_GSP_WATCH_ACCESS, d);
}

static cs_status cmd_delete(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc == 1) {
		cs_gsp_point_delete_all(m);
		fprintf(out, "deleted all breakpoints and watchpoints\n");
		return CS_OK;
	}
	for (int i = 1; i < a->argc; i++) {
		uint64_t id;
		if (!parse_num(a->argv[i], &id)) {
			cs_diag_set(d, CS_ERR_INPUT, "delete: '%s' is not a number", a->argv[i]);
			return CS_ERR_INPUT;
		}
		cs_status s = cs_gsp_point_delete(m, (int)id, d);
		if (s != CS_OK)
			return s;
	}
	return CS_OK;
}

/* The one optional number (an expression) a command takes into *n; *n stays
 * as it is without one. */
static bool optional_number(cs_gsp *m, const argv_t *a, const char *usage, uint64_t *n, cs_diag *d)
{
	return need_args(a, 0, 1, usage, d) && (a->argc < 2 || eval(m, a->argv[1], n, d));
}

static cs_status cmd_continue(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t budget = 0;
	cs_gsp_stop st;
	if (!optional_number(m, a, "continue [BUDGET]", &budget, d))
		return CS_ERR_INPUT;
	return run_report(m, out, cs_gsp_continue(m, budget, &st, d), &st, d);
}

/* step and next go by source lines where the line tables know the pc, and by
 * instructions (as stepi and nexti) where they do not. */
static bool at_source_line(cs_gsp *m)
{
	return m->img->source && gsp_source_line(m->img->source, cs_gsp_pc(m), NULL, NULL, NULL);
}

/* N source lines (by_line) or N instructions over calls, as one run under
 * the wall-clock guard. */
static cs_status repeat_steps(cs_gsp *m, uint64_t n, bool by_line, bool over, FILE *out, cs_diag *d)
{
	cs_gsp_stop st;
	cs_status s = CS_OK;
	uint64_t t0 = gsp_now_ms();
	if (n == 0) /* as stepi: a count of 0 is one step, never a stop that did not happen */
		n = 1;
	for (uint64_t i = 0; i < n; i++) {
		s = by_line ? source_step(m, over, &st, d) : cs_gsp_next(m, &st, d);
		if (s != CS_OK || st.reason != CS_GSP_STOP_STEP)
			break;
		if (n > 1 && gsp_guard_passed(m, t0, &st, i + 1))
			break;
	}
	return run_report(m, out, s, &st, d);
}

static cs_status cmd_stepi(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t n = 1;
	cs_gsp_stop st;
	if (!optional_number(m, a, "stepi [N]", &n, d))
		return CS_ERR_INPUT;
	return run_report(m, out, cs_gsp_stepi(m, n, &st, d), &st, d);
}

static cs_status cmd_nexti(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t n = 1;
	if (!optional_number(m, a, "nexti [N]", &n, d))
		return CS_ERR_INPUT;
	return repeat_steps(m, n, false, true, out, d);
}

static cs_status cmd_step(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t n = 1;
	cs_gsp_stop st;
	if (!optional_number(m, a, "step [N]", &n, d))
		return CS_ERR_INPUT;
	if (at_source_line(m))
		return repeat_steps(m, n, true, false, out, d);
	return run_report(m, out, cs_gsp_stepi(m, n, &st, d), &st, d);
}

static cs_status cmd_next(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	uint64_t n = 1;
	if (!optional_number(m, a, "next [N]", &n, d))
		return CS_ERR_INPUT;
	return repeat_steps(m, n, at_source_line(m), true, out, d);
}

static cs_status cmd_finish(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	cs_gsp_stop st;
	if (!need_args(a, 0, 0, "finish", d))
		return CS_ERR_INPUT;
	cs_status s = run_report(m, out, cs_gsp_finish(m, 0, &st, d), &st, d);
	if (s == CS_OK && st.reason == CS_GSP_STOP_RETURNED) {
		uint64_t a0 = gsp_reg(m, UC_RISCV_REG_A0);
		fprintf(out, "value returned in a0: 0x%" PRIx64 " (%" PRId64 ")\n", a0, (int64_t)a0);
	}
	return s;
}

static cs_status cmd_regs(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (!need_args(a, 0, 0, "regs", d))
		return CS_ERR_INPUT;
	print_regs(m, out, false);
	return CS_OK;
}

static cs_status cmd_frame(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return select_frame(m, a, "frame", out, d);
}

static cs_status cmd_up(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return select_frame(m, a, "up", out, d);
}

static cs_status cmd_down(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	return select_frame(m, a, "down", out, d);
}

static cs_status cmd_call(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc < 2 || a->argc > 10) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: call FUNCTION [ARG...] (up to 8)");
		return CS_ERR_INPUT;
	}
	uint64_t fn, args[8];
	if (!eval(m, a->argv[1], &fn, d))
		return CS_ERR_INPUT;
	for (int i = 2; i < a->argc; i++)
		if (!eval(m, a->argv[i], &args[i - 2], d))
			return CS_ERR_INPUT;
	uint64_t ret;
	cs_gsp_stop st;
	cs_status s = cs_gsp_call(m, fn, args, (size_t)(a->argc - 2), m->guard_ms, &ret, &st, d);
	if (s != CS_OK)
		return s;
	if (st.reason != CS_GSP_STOP_RETURNED) {
		char desc[512];
		cs_gsp_stop_describe(m, &st, desc, sizeof(desc));
		cs_diag_set(d, CS_ERR_FAULT, "the call did not return: %s (registers restored)", desc);
		return CS_ERR_FAULT;
	}
	fprintf(out, "%s returned 0x%" PRIx64 " (%" PRId64 ")\n", a->argv[1], ret, (int64_t)ret);
	return CS_OK;
}

static cs_status cmd_snapshot(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc != 3 || (strcmp(a->argv[1], "save") && strcmp(a->argv[1], "restore"))) {
		cs_diag_set(d, CS_ERR_INPUT, "usage: snapshot save|restore NAME");
		return CS_ERR_INPUT;
	}
	cs_status s;
	if (!strcmp(a->argv[1], "save")) {
		s = cs_gsp_snapshot_save(m, a->argv[2], d);
		if (s == CS_OK)
			fprintf(out, "snapshot '%s' saved at 0x%" PRIx64 "\n", a->argv[2], cs_gsp_pc(m));
		return s;
	}
	s = cs_gsp_snapshot_restore(m, a->argv[2], d);
	if (s == CS_OK) {
		fprintf(out, "snapshot '%s' restored\n", a->argv[2]);
		print_insn(m, out, cs_gsp_pc(m), true);
	}
	return s;
}

static cs_status cmd_msgq(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc == 1) {
		cs_gsp_msgq_print(m, out);
		return CS_OK;
	}
	if (!strcmp(a->argv[1], "init") && a->argc == 2) {
		cs_status s = cs_gsp_msgq_init(m, d);
		if (s == CS_OK)
			fprintf(out, "message queues initialized at 0x%" PRIx64 "\n", m->q.base);
		return s;
	}
	if (!strcmp(a->argv[1], "monitor") && a->argc == 3 &&
	    (!strcmp(a->argv[2], "on") || !strcmp(a->argv[2], "off"))) {
		cs_gsp_msgq_monitor(m, !strcmp(a->argv[2], "on"));
		return CS_OK;
	}
	cs_diag_set(d, CS_ERR_INPUT, "usage: msgq [init | monitor on|off]");
	return CS_ERR_INPUT;
}

static cs_status cmd_mmio(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (a->argc == 3 && !strcmp(a->argv[1], "trace") &&
	    (!strcmp(a->argv[2], "on") || !strcmp(a->argv[2], "off"))) {
		cs_gsp_mmio_trace(m, !strcmp(a->argv[2], "on") ? out : NULL);
		fprintf(out, "mmio trace %s\n", !strcmp(a->argv[2], "on") ? "on" : "off");
		return CS_OK;
	}
	cs_diag_set(d, CS_ERR_INPUT, "usage: mmio trace on|off");
	return CS_ERR_INPUT;
}

static cs_status cmd_log(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	if (!need_args(a, 0, 0, "log", d))
		return CS_ERR_INPUT;
	fputs(cs_gsp_log_text(m), out);
	return CS_OK;
}

static cs_status cmd_echo(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	(void)m, (void)d;
	for (int i = 1; i < a->argc; i++)
		fprintf(out, "%s%s", i > 1 ? " " : "", a->argv[i]);
	fputc('\n', out);
	return CS_OK;
}

static cs_status cmd_quit(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	(void)m, (void)a, (void)out;
	/* the REPL ends its session before a line comes here; over gdb's
	 * monitor there is no session of ours to end */
	cs_diag_set(d, CS_ERR_INPUT, "quit ends the REPL; over gdb's monitor, use detach or kill");
	return CS_ERR_INPUT;
}

static cs_status cmd_help(cs_gsp *m, argv_t *a, FILE *out, cs_diag *d)
{
	(void)m;
	if (!need_args(a, 0, 1, "help [COMMAND]", d))
		return CS_ERR_INPUT;
	const char *name = a->argc > 1 ? a->argv[1] : NULL;
	if (name) {
		const gsp_command *c = find_command(name);
		if (!c) {
			cs_diag_set(d, CS_ERR_INPUT, "help: no command '%s' (help lists them)", name);
			return CS_ERR_INPUT;
		}
		fprintf(out, "usage: %s\n  %s\n", c->usage, c->what);
		if (c->aliases[0])
			fprintf(out, "  also: %s\n", c->aliases);
		if (!strcmp(c->name, "rpc")) {
			char names[512];
			rpc_names_list(names, sizeof(names));
			fprintf(out, "  NAME (send, post): %s\n", names);
		}
		return CS_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-12s %s\n", command_table[i].name, command_table[i].what);
	return CS_OK;
}


cs_status cs_gsp_dbg_exec(cs_gsp *m, const char *line, FILE *out, cs_diag *d)
{
	argv_t a;
	if (!split(line, &a, d))
		return CS_ERR_INPUT;
	if (a.argc == 0)
		return CS_OK;
	const gsp_command *cmd = find_command(a.argv[0]);
	if (!cmd) {
		cs_diag_set(d, CS_ERR_INPUT, "unknown command '%s' (help lists them)", a.argv[0]);
		return CS_ERR_INPUT;
	}
	return cmd->fn(m, &a, out, d);
}
