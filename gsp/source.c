/* SPDX-License-Identifier: MIT */
/* The firmware's source through libdw (see source.h). The line table is
 * copied once into a flat array sorted by address; variables, types and
 * frames are read from libdw on demand. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_internal.h"
#include "source.h"

typedef struct src_row {
	uint64_t addr;
	uint32_t line;
	uint32_t file;    /* index into files */
	bool stmt;
	bool end;         /* end of a sequence: no code from addr on */
} src_row;

struct cs_gsp_source {
	uint8_t *bytes;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *cfi;
	src_row *rows;
	size_t nrows;
	char **files;     /* as the line table names them */
	size_t nfiles;
	char *elf_dir;
};

static int row_cmp(const void *a, const void *b)
{
	const src_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)y->end - (int)x->end; /* an end row first: the next sequence begins there */
}

static uint32_t file_index(cs_gsp_source *s, const char *name)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i], name))
			return (uint32_t)i;
	char **f = realloc(s->files, (s->nfiles + 1) * sizeof(*f));
	if (!f)
		return 0;
	s->files = f;
	s->files[s->nfiles] = strdup(name);
	return (uint32_t)s->nfiles++;
}

static void read_lines(cs_gsp_source *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	size_t cap = 0;
	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;
		if (dwarf_offdie(s->dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr addr;
				int line;
				bool stmt = false, end = false;
				const char *file = dwarf_linesrc(l, NULL, NULL);
				if (!l || dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &line) || !file)
					continue;
				dwarf_linebeginstatement(l, &stmt);
				dwarf_lineendsequence(l, &end);
				if (s->nrows == cap) {
					cap = cap ? 2 * cap : 256;
					src_row *r = realloc(s->rows, cap * sizeof(*r));
					if (!r)
						return;
					s->rows = r;
				}
				s->rows[s->nrows++] = (src_row){ .addr = addr, .line = (uint32_t)line,
								 .file = file_index(s, file), .stmt = stmt,
								 .end = end };
			}
		}
		off = next;
	}
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), row_cmp);
}

cs_gsp_source *gsp_source_open(const uint8_t *buf, size_t len, const char *elf_path)
{
	elf_version(EV_CURRENT);
	cs_gsp_source *s = calloc(1, sizeof(*s));
	if (!s || !(s->bytes = malloc(len ? len : 1))) {
		free(s);
		return NULL;
	}
	memcpy(s->bytes, buf, len);
	s->elf = elf_memory((char *)s->bytes, len);
	s->dw = s->elf ? dwarf_begin_elf(s->elf, DWARF_C_READ, NULL) : NULL;
	if (!s->dw) {
		gsp_source_free(s);
		return NULL;
	}
	s->cfi = dwarf_getcfi(s->dw);
	const char *slash = elf_path ? strrchr(elf_path, '/') : NULL;
	s->elf_dir = slash ? strndup(elf_path, (size_t)(slash - elf_path)) : strdup(".");
	read_lines(s);
	if (!s->nrows) {
		gsp_source_free(s);
		return NULL;
	}
	return s;
}

void gsp_source_free(cs_gsp_source *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->rows);
	free(s->elf_dir);
	free(s->bytes);
	free(s);
}

/* ---- lines ---------------------------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

bool gsp_source_line(const cs_gsp_source *s, uint64_t pc, const char **file, unsigned *line,
		     bool *stmt_start)
{
	if (!s || !s->nrows || pc < s->rows[0].addr)
		return false;
	size_t lo = 0, hi = s->nrows; /* the last row with addr <= pc */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->rows[mid].addr <= pc)
			lo = mid;
		else
			hi = mid;
	}
	while (lo > 0 && s->rows[lo].end && s->rows[lo].addr == pc && !s->rows[lo - 1].end &&
	       s->rows[lo - 1].addr == pc)
		lo--;
	const src_row *r = &s->rows[lo];
	if (r->end)
		return false;
	/* of the rows at this address, the statement row names the line */
	const src_row *best = r;
	for (size_t k = lo; k > 0 && s->rows[k - 1].addr == r->addr && !s->rows[k - 1].end; k--)
		if (s->rows[k - 1].stmt)
			best = &s->rows[k - 1];
	if (file)
		*file = s->files[best->file];
	if (line)
		*line = best->line;
	if (stmt_start) {
		*stmt_start = false;
		for (size_t k = lo + 1; k-- > 0 && s->rows[k].addr == pc;)
			if (s->rows[k].stmt && !s->rows[k].end)
				*stmt_start = true;
	}
	return true;
}

bool gsp_source_addr(const cs_gsp_source *s, const char *file, unsigned line, uint64_t *addr,
		     unsigned *at_line, cs_diag *d)
{
	const char *want = base_name(file);
	bool known = false;
	unsigned best_line = UINT32_MAX;
	uint64_t best_addr = UINT64_MAX;
	for (size_t i = 0; s && i < s->nrows; i++) {
		const src_row *r = &s->rows[i];
		if (r->end || strcmp(base_name(s->files[r->file]), want))
			continue;
		known = true;
		if (!r->stmt || r->line < line || r->line > best_line)
			continue;
		if (r->line < best_line || r->addr < best_addr) {
			best_line = r->line;
			best_addr = r->addr;
		}
	}
	if (!known) {
		cs_diag_set(d, CS_ERR_INPUT, "no source file '%s' in the line table", file);
		return false;
	}
	if (best_line == UINT32_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "%s has no code at line %u or after it", file, line);
		return false;
	}
	*addr = best_addr;
	*at_line = best_line;
	return true;
}

bool gsp_source_func(const cs_gsp_source *s, const char *name, const char **file, unsigned *line)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (s && dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(s->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *n = dwarf_diename(&c);
				int l;
				if (dwarf_tag(&c) == DW_TAG_subprogram && n && !strcmp(n, name) &&
				    dwarf_decl_line(&c, &l) == 0 && dwarf_decl_file(&c)) {
					*file = dwarf_decl_file(&c);
					*line = (unsigned)l;
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return false;
}

static FILE *open_source(const cs_gsp_source *s, const char *file)
{
	char *near = g_build_filename(s->elf_dir, base_name(file), NULL);
	FILE *f = fopen(near, "r");
	g_free(near);
	return f ? f : fopen(file, "r");
}

bool gsp_source_list(const cs_gsp_source *s, const char *file, unsigned first, unsigned last,
		     unsigned mark, FILE *out, cs_diag *d)
{
	FILE *f = open_source(s, file);
	if (!f) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot open the source '%s' (next to the ELF or at its path)",
			    base_name(file));
		return false;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned n = 0, shown = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (++n < first)
			continue;
		if (n > last)
			break;
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		fprintf(out, "%s%-4u %s\n", n == mark ? "=>" : "  ", n, line);
		shown++;
	}
	free(line);
	fclose(f);
	if (!shown) {
		cs_diag_set(d, CS_ERR_INPUT, "%s has %u lines", base_name(file), n);
		return false;
	}
	return true;
}

/* ---- locations ------------------------------------------------------------ */

typedef enum loc_kind { LOC_NONE, LOC_MEM, LOC_REG, LOC_VALUE } loc_kind;

typedef struct src_loc {
	loc_kind kind;
	uint64_t v; /* address, DWARF register number, or the value */
	const char *why; /* LOC_NONE: "optimized out", ... */
} src_loc;

/* A frame's registers. Frame 0 is the machine's own; an outer frame's are
 * unwound through .debug_frame: sp is the inner frame's CFA, the
 * callee-saved registers come from where the inner frames saved them (or
 * are the same), and the others are not known. */
typedef struct src_frame {
	cs_gsp *m;
	uint64_t pc;     /* where the frame resumes */
	uint64_t at;     /* where its scopes, lines and CFI are looked up: pc, or
			  * pc - 1 in an outer frame (inside its call) */
	uint64_t x[32];
	uint32_t known;  /* bit i: x[i] is known */
	bool innermost;
} src_frame;

static bool dwarf_reg(const src_frame *f, unsigned regno, uint64_t *v)
{
	if (regno < 32) {
		if (!(f->known & (1u << regno)))
			return false;
		*v = f->x[regno];
		return true;
	}
	/* the floating-point registers are not unwound: the innermost frame's only */
	return f->innermost && regno < 64 && cs_gsp_reg_read(f->m, CS_GSP_REG_F0 + regno - 32, v, NULL) == CS_OK;
}

static bool frame_cfa(const src_frame *f, const cs_gsp_source *s, uint64_t *cfa);

/* A DWARF expression on a small stack: what the fixture's -O1 code uses. */
static src_loc eval_ops(const src_frame *f, const cs_gsp_source *s, const Dwarf_Op *ops, size_t n,
			const Dwarf_Die *func)
{
	uint64_t pc = f->at;
	uint64_t st[16];
	size_t sp = 0;
	src_loc loc = { LOC_NONE, 0, "optimized out" };
	if (!n)
		return loc;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;
		uint64_t x = 0;
		if (sp >= 15) {
			loc.why = "location too complex";
			return loc;
		}
		if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
			if (n != 1) {
				loc.why = "location in pieces";
				return loc;
			}
			return (src_loc){ LOC_REG, (uint64_t)(a - DW_OP_reg0), NULL };
		}
		if (a == DW_OP_regx)
			return (src_loc){ LOC_REG, ops[i].number, NULL };
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			st[sp++] = (uint64_t)(a - DW_OP_lit0);
			continue;
		}
		if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			if (!dwarf_reg(f, (unsigned)(a - DW_OP_breg0), &x))
				return loc;
			st[sp++] = x + ops[i].number;
			continue;
		}
		switch (a) {
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu: case DW_OP_const1s: case DW_OP_const2s:
		case DW_OP_const4s: case DW_OP_const8s: case DW_OP_consts:
			st[sp++] = ops[i].number;
			break;
		case DW_OP_bregx:
			if (!dwarf_reg(f, (unsigned)ops[i].number, &x))
				return loc;
			st[sp++] = x + ops[i].number2;
			break;
		case DW_OP_call_frame_cfa:
			if (!frame_cfa(f, s, &x)) {
				loc.why = "no frame information";
				return loc;
			}
			st[sp++] = x;
			break;
		case DW_OP_fbreg: {
			Dwarf_Attribute fa;
			Dwarf_Op *fops;
			size_t fn;
			if (!func || !dwarf_attr((Dwarf_Die *)func, DW_AT_frame_base, &fa) ||
			    dwarf_getlocation_addr(&fa, pc, &fops, &fn, 1) < 1) {
				loc.why = "no frame base";
				return loc;
			}
			src_loc fb = eval_ops(f, s, fops, fn, NULL);
			if (fb.kind != LOC_MEM)
				return fb;
			st[sp++] = fb.v + ops[i].number;
			break;
		}
		case DW_OP_plus_uconst:
			if (!sp)
				return loc;
			st[sp - 1] += ops[i].number;
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_and: case DW_OP_or:
			if (sp < 2)
				return loc;
			sp--;
			st[sp - 1] = a == DW_OP_plus ? st[sp - 1] + st[sp] : a == DW_OP_minus ? st[sp - 1] - st[sp]
				     : a == DW_OP_and ? st[sp - 1] & st[sp] : st[sp - 1] | st[sp];
			break;
		case DW_OP_deref:
			if (!sp || cs_gsp_mem_read(f->m, st[sp - 1], &x, 8, NULL) != CS_OK)
				return loc;
			st[sp - 1] = x;
			break;
		case DW_OP_stack_value:
			return sp ? (src_loc){ LOC_VALUE, st[sp - 1], NULL } : loc;
		case DW_OP_GNU_entry_value: case DW_OP_entry_value:
			return loc;
		default:
			loc.why = "location not supported";
			return loc;
		}
	}
	return sp ? (src_loc){ LOC_MEM, st[sp - 1], NULL } : loc;
}

static bool frame_cfa(const src_frame *f, const cs_gsp_source *s, uint64_t *cfa)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;
	if (!s->cfi || dwarf_cfi_addrframe(s->cfi, f->at, &fr) != 0)
		return false;
	bool ok = dwarf_frame_cfa(fr, &ops, &n) == 0;
	src_loc l = ok ? eval_ops(f, s, ops, n, NULL) : (src_loc){ LOC_NONE, 0, NULL };
	free(fr);
	if (l.kind != LOC_MEM)
		return false;
	*cfa = l.v;
	return true;
}

/* ---- frames ---------------------------------------------------------------- */

static void frame_innermost(cs_gsp *m, src_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->m = m;
	f->pc = f->at = cs_gsp_pc(m);
	f->innermost = true;
	for (unsigned r = 0; r < 32; r++)
		if (cs_gsp_reg_read(m, r, &f->x[r], NULL) == CS_OK)
			f->known |= 1u << r;
}

/* The caller of frame in, by the CFI rules at in->at; false where the CFI
 * ends (no entry for the pc, or no return address). */
static bool frame_caller(const cs_gsp_source *s, const src_frame *in, src_frame *out)
{
	Dwarf_Frame *fr = NULL;
	if (!s->cfi || dwarf_cfi_addrframe(s->cfi, in->at, &fr) != 0)
		return false;
	int ra = dwarf_frame_info(fr, NULL, NULL, NULL);
	uint64_t cfa;
	if (ra < 0 || ra >= 32 || !frame_cfa(in, s, &cfa)) {
		free(fr);
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->m = in->m;
	out->known = 1; /* x0 */
	for (int r = 1; r < 32; r++) {
		Dwarf_Op mem[3], *ops = NULL;
		size_t n = 0;
		uint64_t v = 0;
		if (dwarf_frame_register(fr, r, mem, &ops, &n) != 0)
			continue;
		if (n == 0) { /* same value (ops NULL), or undefined */
			if (!ops && dwarf_reg(in, (unsigned)r, &v)) {
				out->x[r] = v;
				out->known |= 1u << r;
			}
			continue;
		}
		src_loc l = eval_ops(in, s, ops, n, NULL);
		if ((l.kind == LOC_MEM && cs_gsp_mem_read(in->m, l.v, &v, 8, NULL) == CS_OK) || l.kind == LOC_VALUE ||
		    (l.kind == LOC_REG && dwarf_reg(in, (unsigned)l.v, &v))) {
			out->x[r] = l.kind == LOC_VALUE ? l.v : v;
			out->known |= 1u << r;
		}
	}
	free(fr);
	out->x[2] = cfa; /* the caller's sp: the CFA, by the RISC-V psABI */
	out->known |= 1u << 2;
	if (!(out->known & (1u << ra)) || out->x[ra] == 0 || cfa < in->x[2])
		return false;
	out->pc = out->x[ra];
	out->at = out->pc - 1;
	out->known &= ~(1u << ra); /* the column is the return address, not the caller's ra */
	return true;
}

/* Frame n (0 innermost); on failure d says how many frames the CFI has. */
static bool frame_nth(cs_gsp *m, const cs_gsp_source *s, int n, src_frame *f, cs_diag *d)
{
	frame_innermost(m, f);
	for (int i = 0; i < n; i++) {
		src_frame caller;
		if (!frame_caller(s, f, &caller)) {
			cs_diag_set(d, CS_ERR_INPUT, "no frame %d: the call frame information (.debug_frame) "
				    "unwinds frames 0..%d", n, i);
			return false;
		}
		*f = caller;
	}
	return true;
}

bool gsp_source_frame(cs_gsp *m, const cs_gsp_source *s, int n, uint64_t *pc, uint64_t x[32], uint32_t *known,
		      cs_diag *d)
{
	src_frame f;
	if (!s) {
		cs_diag_set(d, CS_ERR_INPUT, "frames need debug information: the firmware has no DWARF");
		return false;
	}
	if (n < 0 || !frame_nth(m, s, n, &f, d))
		return false;
	*pc = f.pc;
	if (x)
		memcpy(x, f.x, sizeof(f.x));
	if (known)
		*known = f.known;
	return true;
}

/* ---- types and values --------------------------------------------------- */

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, type);
}

/* The type without typedefs and qualifiers. */
static bool strip_type(Dwarf_Die *t, Dwarf_Die *out)
{
	*out = *t;
	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(out);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		Dwarf_Die next;
		if (!die_type(out, &next))
			return false; /* const void */
		*out = next;
	}
	return true;
}

static uint64_t array_count(Dwarf_Die *arr)
{
	Dwarf_Die sub;
	Dwarf_Attribute a;
	Dwarf_Word v;
	if (dwarf_child(arr, &sub) != 0 || dwarf_tag(&sub) != DW_TAG_subrange_type)
		return 0;
	if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &v) == 0)
		return v;
	if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &v) == 0)
		return v + 1;
	return 0;
}

static void type_name(Dwarf_Die *t, GString *out, int depth)
{
	if (depth > 8) {
		g_string_append(out, "...");
		return;
	}
	Dwarf_Die sub;
	const char *n = dwarf_diename(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_base_type: case DW_TAG_typedef:
		g_string_append(out, n ? n : "?");
		return;
	case DW_TAG_structure_type: g_string_append_printf(out, "struct %s", n ? n : "{...}"); return;
	case DW_TAG_union_type: g_string_append_printf(out, "union %s", n ? n : "{...}"); return;
	case DW_TAG_enumeration_type: g_string_append_printf(out, "enum %s", n ? n : "{...}"); return;
	case DW_TAG_pointer_type:
		if (die_type(t, &sub))
			type_name(&sub, out, depth + 1);
		else
			g_string_append(out, "void");
		g_string_append(out, " *");
		return;
	case DW_TAG_const_type: case DW_TAG_volatile_type:
		g_string_append(out, dwarf_tag(t) == DW_TAG_const_type ? "const " : "volatile ");
		if (die_type(t, &sub))
			type_name(&sub, out, depth + 1);
		else
			g_string_append(out, "void");
		return;
	case DW_TAG_array_type:
		if (die_type(t, &sub))
			type_name(&sub, out, depth + 1);
		g_string_append_printf(out, " [%" PRIu64 "]", array_count(t));
		return;
	case DW_TAG_subroutine_type: g_string_append(out, "function"); return;
	default: g_string_append(out, "?"); return;
	}
}

static uint64_t type_size(Dwarf_Die *t)
{
	Dwarf_Word sz = 0;
	Dwarf_Die s;
	if (strip_type(t, &s) && dwarf_tag(&s) == DW_TAG_pointer_type)
		return 8;
	return dwarf_aggregate_size(t, &sz) == 0 ? sz : 0;
}

enum { PRINT_ELEMS = 200, PRINT_REPEATS = 10 };

static void print_value(cs_gsp *m, Dwarf_Die *type, uint64_t addr, const uint8_t *bytes, GString *out, int depth);

static bool read_value(cs_gsp *m, uint64_t addr, const uint8_t *bytes, uint64_t size, uint8_t *buf)
{
	if (bytes) {
		memcpy(buf, bytes, size);
		return true;
	}
	return cs_gsp_mem_read(m, addr, buf, size, NULL) == CS_OK;
}

static void print_scalar(cs_gsp *m, Dwarf_Die *t, uint64_t addr, const uint8_t *bytes, GString *out)
{
	uint64_t size = type_size(t);
	uint8_t buf[16] = { 0 };
	if (size == 0 || size > 16 || !read_value(m, addr, bytes, size, buf)) {
		g_string_append_printf(out, "<unreadable at 0x%" PRIx64 ">", addr);
		return;
	}
	uint64_t u = 0;
	memcpy(&u, buf, size > 8 ? 8 : size);
	int tag = dwarf_tag(t);
	if (tag == DW_TAG_pointer_type) {
		char sym[128];
		cs_gsp_symbolize(m, u, sym, sizeof(sym));
		g_string_append_printf(out, "0x%" PRIx64, u);
		if (sym[0] != '0')
			g_string_append_printf(out, " <%s>", sym);
		return;
	}
	if (tag == DW_TAG_enumeration_type) {
		Dwarf_Die e;
		if (dwarf_child(t, &e) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Word v;
				if (dwarf_attr(&e, DW_AT_const_value, &a) && dwarf_formudata(&a, &v) == 0 &&
				    v == u && dwarf_diename(&e)) {
					g_string_append(out, dwarf_diename(&e));
					return;
				}
			} while (dwarf_siblingof(&e, &e) == 0);
		}
		g_string_append_printf(out, "%" PRIu64, u);
		return;
	}
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned;
	if (dwarf_attr(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	unsigned bits = (unsigned)(8 * (size > 8 ? 8 : size));
	switch (enc) {
	case DW_ATE_signed: case DW_ATE_signed_char: {
		int64_t sv = bits == 64 ? (int64_t)u : (int64_t)(u << (64 - bits)) >> (64 - bits);
		g_string_append_printf(out, "%" PRId64, sv);
		break;
	}
	case DW_ATE_boolean:
		g_string_append(out, u ? "true" : "false");
		break;
	case DW_ATE_float:
		if (size == 4) {
			float f;
			memcpy(&f, buf, 4);
			g_string_append_printf(out, "%g", (double)f);
		} else {
			double f;
			memcpy(&f, buf, 8);
			g_string_append_printf(out, "%g", f);
		}
		break;
	default:
		g_string_append_printf(out, "%" PRIu64, u);
		break;
	}
}

static void print_array(cs_gsp *m, Dwarf_Die *t, uint64_t addr, const uint8_t *bytes, GString *out, int depth)
{
	Dwarf_Die elem;
	uint64_t count = array_count(t);
	if (!die_type(t, &elem)) {
		g_string_append(out, "{?}");
		return;
	}
	uint64_t esz = type_size(&elem);
	g_string_append(out, "{");
	uint8_t *prev = esz && esz <= 64 ? malloc(esz) : NULL, *cur = esz && esz <= 64 ? malloc(esz) : NULL;
	uint64_t shown = 0;
	for (uint64_t i = 0; i < count;) {
		if (shown == PRINT_ELEMS) {
			g_string_append(out, "...");
			break;
		}
		/* a run of equal elements prints once, "<repeats N times>" */
		uint64_t run = 1;
		if (prev && cur && read_value(m, addr + i * esz, bytes ? bytes + i * esz : NULL, esz, prev)) {
			while (i + run < count &&
			       read_value(m, addr + (i + run) * esz, bytes ? bytes + (i + run) * esz : NULL, esz, cur) &&
			       !memcmp(prev, cur, esz))
				run++;
		}
		if (shown)
			g_string_append(out, ", ");
		print_value(m, &elem, addr + i * esz, bytes ? bytes + i * esz : NULL, out, depth + 1);
		if (run >= PRINT_REPEATS) {
			g_string_append_printf(out, " <repeats %" PRIu64 " times>", run);
			i += run;
		} else {
			i++;
		}
		shown++;
	}
	g_string_append(out, "}");
	free(prev);
	free(cur);
}

static void print_value(cs_gsp *m, Dwarf_Die *type, uint64_t addr, const uint8_t *bytes, GString *out, int depth)
{
	Dwarf_Die t;
	if (!strip_type(type, &t)) {
		g_string_append(out, "<void>");
		return;
	}
	if (depth > 6) {
		g_string_append(out, "{...}");
		return;
	}
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
		Dwarf_Die mem;
		g_string_append(out, "{");
		bool first = true;
		if (dwarf_child(&t, &mem) == 0) {
			do {
				if (dwarf_tag(&mem) != DW_TAG_member)
					continue;
				Dwarf_Attribute a;
				Dwarf_Word off = 0;
				if (dwarf_attr(&mem, DW_AT_data_member_location, &a))
					dwarf_formudata(&a, &off);
				Dwarf_Die mt;
				g_string_append_printf(out, "%s%s = ", first ? "" : ", ",
						       dwarf_diename(&mem) ? dwarf_diename(&mem) : "?");
				first = false;
				if (die_type(&mem, &mt))
					print_value(m, &mt, addr + off, bytes ? bytes + off : NULL, out, depth + 1);
			} while (dwarf_siblingof(&mem, &mem) == 0);
		}
		g_string_append(out, "}");
		return;
	}
	if (tag == DW_TAG_array_type) {
		print_array(m, &t, addr, bytes, out, depth);
		return;
	}
	print_scalar(m, &t, addr, bytes, out);
}

/* ---- variables ---------------------------------------------------------- */

typedef struct src_var {
	Dwarf_Die type;
	src_loc loc;
} src_var;

static bool var_location(const src_frame *f, const cs_gsp_source *s, Dwarf_Die *var, Dwarf_Die *func,
			 src_loc *loc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	*loc = (src_loc){ LOC_NONE, 0, "optimized out" };
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Word v;
		if (dwarf_formudata(&a, &v) == 0)
			*loc = (src_loc){ LOC_VALUE, v, NULL };
		return true;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &a))
		return true;
	int k = dwarf_getlocation_addr(&a, f->at, &ops, &n, 1);
	if (k >= 1)
		*loc = eval_ops(f, s, ops, n, func);
	return true;
}

/* The variable NAME: a local in scope in frame f (innermost scope first),
 * else a global. */
static bool find_var(const src_frame *f, const cs_gsp_source *s, const char *name, src_var *out)
{
	Dwarf_Die cu;
	if (dwarf_addrdie(s->dw, f->at, &cu)) {
		Dwarf_Die *scopes = NULL;
		int ns = dwarf_getscopes(&cu, f->at, &scopes);
		Dwarf_Die *func = NULL;
		for (int i = 0; i < ns; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram || dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine) {
				func = &scopes[i];
				break;
			}
		for (int i = 0; i < ns; i++) {
			Dwarf_Die c;
			if (dwarf_child(&scopes[i], &c) != 0)
				continue;
			do {
				int tag = dwarf_tag(&c);
				const char *n = dwarf_diename(&c);
				if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) && n && !strcmp(n, name) &&
				    die_type(&c, &out->type)) {
					var_location(f, s, &c, func, &out->loc);
					free(scopes);
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		free(scopes);
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die c;
		if (dwarf_offdie(s->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *n = dwarf_diename(&c);
				Dwarf_Attribute a;
				if (dwarf_tag(&c) == DW_TAG_variable && n && !strcmp(n, name) &&
				    dwarf_attr(&c, DW_AT_location, &a) && die_type(&c, &out->type)) {
					var_location(f, s, &c, NULL, &out->loc);
					return true;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return false;
}

/* The member NAME of struct type t (stripped): its type and offset. */
static bool find_member(Dwarf_Die *t, const char *name, Dwarf_Die *mt, uint64_t *off)
{
	Dwarf_Die mem;
	if (dwarf_child(t, &mem) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&mem);
		if (dwarf_tag(&mem) == DW_TAG_member && n && !strcmp(n, name) && die_type(&mem, mt)) {
			Dwarf_Attribute a;
			Dwarf_Word o = 0;
			if (dwarf_attr(&mem, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &o);
			*off = o;
			return true;
		}
	} while (dwarf_siblingof(&mem, &mem) == 0);
	return false;
}

/* A value in a register or a computed value as bytes (little-endian). */
static const uint8_t *value_bytes(const src_frame *f, const src_loc *l, uint8_t buf[8])
{
	uint64_t v = l->v;
	if (l->kind == LOC_REG && !dwarf_reg(f, (unsigned)l->v, &v))
		return NULL;
	memcpy(buf, &v, 8);
	return buf;
}

/* Walks .FIELD, ->FIELD and [N] from *pp (up to a space or the end) down
 * from a value of *type at *addr (or in *bytes); expr names it in errors. */
static bool walk_path(cs_gsp *m, const char *expr, const char **pp, Dwarf_Die *type, uint64_t *addr,
		      const uint8_t **bytes, cs_diag *d)
{
	const char *p = *pp;
	char name[128];
	while (*p && *p != ' ') {
		Dwarf_Die t;
		if (!strip_type(type, &t)) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': void has no members", expr);
			return false;
		}
		if (*p == '.' || (p[0] == '-' && p[1] == '>')) {
			bool arrow = *p == '-';
			p += arrow ? 2 : 1;
			if (arrow) {
				Dwarf_Die pt;
				uint64_t ptr = 0;
				if (dwarf_tag(&t) != DW_TAG_pointer_type || !die_type(&t, &pt) ||
				    !read_value(m, *addr, *bytes, 8, (uint8_t *)&ptr)) {
					cs_diag_set(d, CS_ERR_INPUT, "'%s': '->' needs a pointer", expr);
					return false;
				}
				*addr = ptr;
				*bytes = NULL;
				if (!strip_type(&pt, &t)) {
					cs_diag_set(d, CS_ERR_INPUT, "'%s': a void pointer has no members", expr);
					return false;
				}
			}
			size_t k = 0;
			while ((p[k] == '_' || g_ascii_isalnum(p[k])) && k < sizeof(name) - 1)
				k++;
			memcpy(name, p, k);
			name[k] = 0;
			p += k;
			uint64_t off;
			Dwarf_Die mt;
			int tag = dwarf_tag(&t);
			if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type) || !find_member(&t, name, &mt, &off)) {
				GString *tn = g_string_new(NULL);
				type_name(type, tn, 0);
				cs_diag_set(d, CS_ERR_INPUT, "'%s': %s has no member '%s'", expr, tn->str, name);
				g_string_free(tn, TRUE);
				return false;
			}
			*addr += off;
			if (*bytes)
				*bytes += off;
			*type = mt;
		} else if (*p == '[') {
			char *end = NULL;
			unsigned long long idx = strtoull(p + 1, &end, 0);
			Dwarf_Die et;
			if (!end || *end != ']' || dwarf_tag(&t) != DW_TAG_array_type || !die_type(&t, &et) ||
			    idx >= array_count(&t)) {
				cs_diag_set(d, CS_ERR_INPUT, "'%s': bad index (an array of %" PRIu64 " elements?)", expr,
					    dwarf_tag(&t) == DW_TAG_array_type ? array_count(&t) : 0);
				return false;
			}
			*addr += idx * type_size(&et);
			*bytes = NULL;
			*type = et;
			p = end + 1;
		} else {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': expected .FIELD, ->FIELD or [N] at '%s'", expr, p);
			return false;
		}
	}
	*pp = p;
	return true;
}

bool gsp_source_print(cs_gsp *m, const cs_gsp_source *s, int frame, const char *expr, FILE *out, cs_diag *d)
{
	src_frame fr;
	if (!s)
		return false;
	if (!frame_nth(m, s, frame, &fr, d))
		return false;
	const char *p = expr;
	while (*p == ' ')
		p++;
	bool deref = false, addr_of = false;
	if (*p == '*')
		deref = true, p++;
	else if (*p == '&')
		addr_of = true, p++;
	char name[128];
	size_t n = 0;
	while ((p[n] == '_' || g_ascii_isalnum(p[n])) && n < sizeof(name) - 1)
		n++;
	if (!n)
		return false;
	memcpy(name, p, n);
	name[n] = 0;
	p += n;
	src_var v;
	if (!find_var(&fr, s, name, &v))
		return false;
	uint8_t regbuf[8];
	const uint8_t *bytes = NULL;
	uint64_t addr = 0;
	if (v.loc.kind == LOC_NONE) {
		if (*p || deref || addr_of) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s' is %s here", name, v.loc.why);
			return false;
		}
	} else if (v.loc.kind == LOC_MEM) {
		addr = v.loc.v;
	} else if (!(bytes = value_bytes(&fr, &v.loc, regbuf))) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s' is in a register this frame does not recover", name);
		return false;
	}
	Dwarf_Die type = v.type;
	if (!walk_path(m, expr, &p, &type, &addr, &bytes, d))
		return false;
	GString *tn = g_string_new(NULL), *val = g_string_new(NULL);
	if (deref) {
		Dwarf_Die t, pt;
		uint64_t ptr = 0;
		if (!strip_type(&type, &t) || dwarf_tag(&t) != DW_TAG_pointer_type || !die_type(&t, &pt) ||
		    !read_value(m, addr, bytes, 8, (uint8_t *)&ptr)) {
			g_string_free(tn, TRUE);
			g_string_free(val, TRUE);
			cs_diag_set(d, CS_ERR_INPUT, "'%s': '*' needs a pointer", expr);
			return false;
		}
		addr = ptr;
		bytes = NULL;
		type = pt;
	}
	type_name(&type, tn, 0);
	if (addr_of && !bytes)
		fprintf(out, "%s = (%s *) 0x%" PRIx64 "\n", expr, tn->str, addr);
	else if (v.loc.kind == LOC_NONE)
		fprintf(out, "%s = (%s) <%s>\n", expr, tn->str, v.loc.why);
	else {
		print_value(m, &type, addr, bytes, val, 0);
		fprintf(out, "%s = (%s) %s\n", expr, tn->str, val->str);
	}
	g_string_free(tn, TRUE);
	g_string_free(val, TRUE);
	return true;
}

/* ---- casts ------------------------------------------------------------------ */

/* A type a cast names: a DWARF type, or a C integer type the firmware's DWARF
 * does not have; then pointer levels. */
typedef struct cast_type {
	Dwarf_Die die;
	bool has_die;
	char c_name[32];   /* the C integer type as GCC's DWARF names it */
	unsigned c_size;
	bool c_signed;
	unsigned ptr;
} cast_type;

/* A DIE among the compilation units' top-level children with that tag (0:
 * a base type or a typedef) and name; a declaration only when nothing else. */
static bool find_type(const cs_gsp_source *s, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	bool found = false;
	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		if (dwarf_offdie(s->dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				int t = dwarf_tag(&c);
				const char *n = dwarf_diename(&c);
				bool kind = tag ? t == tag : (t == DW_TAG_base_type || t == DW_TAG_typedef);
				if (!kind || !n || strcmp(n, name))
					continue;
				*out = c;
				found = true;
				if (!dwarf_hasattr(&c, DW_AT_declaration))
					return true;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
	return found;
}

/* The words of a C integer type ("unsigned", "long long int", "short") as
 * GCC's DWARF names them ("unsigned int", "long long int", "short int"). */
static bool c_integer(const char *words, cast_type *ct)
{
	unsigned longs = 0, shorts = 0, chars = 0, ints = 0, unsign = 0, sign = 0, other = 0;
	gchar **w = g_strsplit(words, " ", -1);
	for (gchar **p = w; *p; p++) {
		if (!**p)
			continue;
		longs += !strcmp(*p, "long");
		shorts += !strcmp(*p, "short");
		chars += !strcmp(*p, "char");
		ints += !strcmp(*p, "int");
		unsign += !strcmp(*p, "unsigned");
		sign += !strcmp(*p, "signed");
		other += strcmp(*p, "long") && strcmp(*p, "short") && strcmp(*p, "char") && strcmp(*p, "int") &&
			 strcmp(*p, "unsigned") && strcmp(*p, "signed");
	}
	g_strfreev(w);
	if (other || longs > 2 || shorts > 1 || chars > 1 || ints > 1 || unsign + sign > 1 ||
	    (chars && (longs || shorts || ints)) || (shorts && longs) || !(longs + shorts + chars + ints + unsign + sign))
		return false;
	const char *u = unsign ? "unsigned " : "";
	if (chars)
		snprintf(ct->c_name, sizeof(ct->c_name), "%schar", unsign ? "unsigned " : sign ? "signed " : "");
	else if (shorts)
		snprintf(ct->c_name, sizeof(ct->c_name), "short %sint", u);
	else if (longs)
		snprintf(ct->c_name, sizeof(ct->c_name), "%s %sint", longs == 2 ? "long long" : "long", u);
	else
		snprintf(ct->c_name, sizeof(ct->c_name), "%sint", u);
	ct->c_size = chars ? 1 : shorts ? 2 : longs ? 8 : 4;
	ct->c_signed = !unsign && !(chars && !sign); /* plain char is unsigned on RISC-V */
	return true;
}

/* "(TYPE)" at p: TYPE is [const|volatile] (struct|union|enum NAME | a typedef
 * | a base type | C integer words) then '*'s. *end: after the ')'. Returns 0
 * when the parenthesis holds no type name (an expression, not a cast), -1 on
 * a type the DWARF lacks (d set), 1 on a cast. */
static int parse_cast(const cs_gsp_source *s, const char *p, cast_type *ct, const char **end, cs_diag *d)
{
	memset(ct, 0, sizeof(*ct));
	const char *close = strchr(p, ')');
	if (*p != '(' || !close)
		return 0;
	char text[128];
	size_t n = (size_t)(close - p - 1);
	if (n >= sizeof(text))
		return 0;
	memcpy(text, p + 1, n);
	text[n] = 0;
	/* the stars, then the words */
	while (n && (text[n - 1] == '*' || text[n - 1] == ' ')) {
		ct->ptr += text[n - 1] == '*';
		text[--n] = 0;
	}
	char *w = text;
	for (;;) {
		while (*w == ' ')
			w++;
		if (!strncmp(w, "const ", 6) || !strncmp(w, "volatile ", 9))
			w += w[0] == 'c' ? 6 : 9;
		else
			break;
	}
	for (const char *c = w; *c; c++)
		if (!(*c == '_' || *c == ' ' || g_ascii_isalnum(*c)))
			return 0;
	if (!*w)
		return 0;
	*end = close + 1;
	static const struct { const char *kw; int tag; } tagged[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type }, { "enum ", DW_TAG_enumeration_type },
	};
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(tagged[i].kw);
		if (strncmp(w, tagged[i].kw, k))
			continue;
		const char *name = w + k;
		while (*name == ' ')
			name++;
		if (find_type(s, tagged[i].tag, name, &ct->die)) {
			ct->has_die = true;
			return 1;
		}
		cs_diag_set(d, CS_ERR_INPUT, "no type '%s' in the firmware's DWARF", w);
		return -1;
	}
	bool words = c_integer(w, ct);
	if (find_type(s, 0, words ? ct->c_name : w, &ct->die)) {
		ct->has_die = true;
		return 1;
	}
	if (words)
		return 1;
	if (strchr(w, ' ')) {
		cs_diag_set(d, CS_ERR_INPUT, "no type '%s' in the firmware's DWARF", w);
		return -1;
	}
	return 0; /* one word that names no type: a parenthesized expression */
}

static void cast_type_name(const cast_type *ct, GString *out)
{
	if (ct->has_die)
		type_name((Dwarf_Die *)&ct->die, out, 0);
	else
		g_string_append(out, ct->c_name);
	if (ct->ptr)
		g_string_append_c(out, ' ');
	for (unsigned i = 0; i < ct->ptr; i++)
		g_string_append_c(out, '*');
}

/* The size of a value of the cast's type, 0 for one that is no scalar. */
static uint64_t cast_size(const cast_type *ct)
{
	if (ct->ptr)
		return 8;
	if (!ct->has_die)
		return ct->c_size;
	Dwarf_Die t;
	if (!strip_type((Dwarf_Die *)&ct->die, &t))
		return 0;
	int tag = dwarf_tag(&t);
	return tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_pointer_type
		       ? type_size(&t) : 0;
}

/* The operand of a cast as a number: a DWARF variable path of scalar type,
 * else a plain expression through the debugger's own evaluator. */
static bool cast_operand(const src_frame *f, const cs_gsp_source *s, const char *expr, const char *text,
			 bool (*eval)(cs_gsp *, const char *, uint64_t *, cs_diag *), uint64_t *v, cs_diag *d)
{
	char name[128];
	bool addr_of = text[0] == '&';
	const char *word = text + addr_of;
	size_t n = 0;
	while ((word[n] == '_' || g_ascii_isalnum(word[n])) && n < sizeof(name) - 1)
		n++;
	memcpy(name, word, n);
	name[n] = 0;
	src_var var;
	if (!n || g_ascii_isdigit(word[0]) || !find_var(f, s, name, &var))
		return eval(f->m, text, v, d);
	const char *p = word + n;
	uint8_t regbuf[8];
	const uint8_t *bytes = NULL;
	uint64_t addr = 0;
	if (var.loc.kind == LOC_NONE) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s' is %s here", name, var.loc.why);
		return false;
	}
	if (var.loc.kind == LOC_MEM)
		addr = var.loc.v;
	else if (!(bytes = value_bytes(f, &var.loc, regbuf))) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s' is in a register this frame does not recover", name);
		return false;
	}
	Dwarf_Die type = var.type, t;
	if (!walk_path(f->m, expr, &p, &type, &addr, &bytes, d))
		return false;
	if (*p) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': a cast applies to a variable or a plain expression, not '%s'", expr, text);
		return false;
	}
	if (addr_of) {
		if (bytes) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': '%s' is in a register, it has no address", expr, name);
			return false;
		}
		*v = addr;
		return true;
	}
	int tag = strip_type(&type, &t) ? dwarf_tag(&t) : 0;
	uint64_t size = tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type || tag == DW_TAG_pointer_type
				? type_size(&t) : 0;
	if (!size || size > 8) {
		GString *tn = g_string_new(NULL);
		type_name(&type, tn, 0);
		cs_diag_set(d, CS_ERR_INPUT, "'%s': a %s is not a number to cast", expr, tn->str);
		g_string_free(tn, TRUE);
		return false;
	}
	uint8_t buf[8] = { 0 };
	if (!read_value(f->m, addr, bytes, size, buf)) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': cannot read 0x%" PRIx64, expr, addr);
		return false;
	}
	uint64_t u = 0;
	memcpy(&u, buf, size);
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_unsigned;
	if (tag == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if ((enc == DW_ATE_signed || enc == DW_ATE_signed_char) && size < 8)
		u = (uint64_t)((int64_t)(u << (64 - 8 * size)) >> (64 - 8 * size));
	*v = u;
	return true;
}

int gsp_source_print_cast(cs_gsp *m, const cs_gsp_source *s, int frame, const char *expr,
			  bool (*eval)(cs_gsp *, const char *, uint64_t *, cs_diag *), FILE *out, cs_diag *d)
{
	if (!s)
		return 0;
	/* [*] (TYPE) OPERAND, or [*] ((TYPE) OPERAND) PATH */
	const char *p = expr;
	while (*p == ' ')
		p++;
	bool deref = *p == '*';
	if (deref)
		p++;
	while (*p == ' ')
		p++;
	bool wrapped = p[0] == '(' && p[1] == '(';
	cast_type ct;
	const char *after = NULL;
	int k = parse_cast(s, wrapped ? p + 1 : p, &ct, &after, d);
	if (k <= 0)
		return k;
	src_frame fr;
	if (!frame_nth(m, s, frame, &fr, d))
		return -1;
	/* the operand: up to the wrapping ')' (then the path), else to the end */
	char operand[256], path[256] = "";
	const char *stop = after + strlen(after);
	if (wrapped) {
		int depth = 1;
		for (stop = after; *stop && depth; stop++)
			depth += *stop == '(' ? 1 : *stop == ')' ? -1 : 0;
		if (depth) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': a '(' is not closed", expr);
			return -1;
		}
		stop--;
		size_t pk = 0;
		for (const char *q = stop + 1; *q && pk < sizeof(path) - 1; q++)
			if (*q != ' ')
				path[pk++] = *q;
		path[pk] = 0;
	}
	size_t ok = 0;
	for (const char *q = after; q < stop && ok < sizeof(operand) - 1; q++)
		if (*q != ' ')
			operand[ok++] = *q;
	operand[ok] = 0;
	if (!ok) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': the cast has no operand", expr);
		return -1;
	}
	if (path[0] && deref) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': '*' before ((TYPE *)OPERAND)->FIELD is not supported; "
			    "print the field, or cast it", expr);
		return -1;
	}
	if (path[0] && strncmp(path, "->", 2)) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': expected ->FIELD after ((TYPE *)OPERAND), not '%s'", expr, path);
		return -1;
	}
	uint64_t v;
	if (!cast_operand(&fr, s, expr, operand, eval, &v, d))
		return -1;
	uint64_t size = cast_size(&ct);
	if (!size && !ct.ptr) {
		cs_diag_set(d, CS_ERR_INPUT, "'%s': only a number or a pointer can be cast to; a struct is reached "
			    "through a pointer cast, as *(struct NAME *)ADDR", expr);
		return -1;
	}
	GString *tn = g_string_new(NULL), *val = g_string_new(NULL);
	int rc = 1;
	if (deref || path[0]) {
		/* through the pointer: the value of the type it points to at v */
		if (!ct.ptr) {
			cs_diag_set(d, CS_ERR_INPUT, "'%s': %s a pointer", expr, deref ? "'*' needs" : "'->' needs");
			rc = -1;
			goto done;
		}
		ct.ptr--;
		uint64_t addr = v;
		const uint8_t *bytes = NULL;
		if (path[0]) {
			/* ->FIELD: the struct at v, then the rest of the path */
			if (ct.ptr || !ct.has_die) {
				cs_diag_set(d, CS_ERR_INPUT, "'%s': '->' needs a pointer to a struct", expr);
				rc = -1;
				goto done;
			}
			char *member = g_strdup_printf(".%s", path + 2);
			const char *mp = member;
			Dwarf_Die type = ct.die;
			bool walked = walk_path(m, expr, &mp, &type, &addr, &bytes, d);
			g_free(member);
			if (!walked) {
				rc = -1;
				goto done;
			}
			type_name(&type, tn, 0);
			print_value(m, &type, addr, NULL, val, 0);
		} else if (ct.ptr || !ct.has_die) {
			/* a pointer or a C integer the DWARF lacks, read at v */
			uint64_t sz = ct.ptr ? 8 : ct.c_size, u = 0;
			if (cs_gsp_mem_read(m, addr, &u, sz, NULL) != CS_OK) {
				cs_diag_set(d, CS_ERR_INPUT, "'%s': cannot read %" PRIu64 " bytes at 0x%" PRIx64, expr, sz, addr);
				rc = -1;
				goto done;
			}
			if (!ct.ptr && ct.c_signed && sz < 8)
				u = (uint64_t)((int64_t)(u << (64 - 8 * sz)) >> (64 - 8 * sz));
			cast_type_name(&ct, tn);
			if (ct.ptr)
				g_string_append_printf(val, "0x%" PRIx64, u);
			else if (ct.c_signed)
				g_string_append_printf(val, "%" PRId64, (int64_t)u);
			else
				g_string_append_printf(val, "%" PRIu64, u);
		} else {
			type_name(&ct.die, tn, 0);
			print_value(m, &ct.die, addr, NULL, val, 0);
		}
	} else {
		cast_type_name(&ct, tn);
		if (ct.ptr) {
			char sym[128];
			cs_gsp_symbolize(m, v, sym, sizeof(sym));
			g_string_append_printf(val, "0x%" PRIx64 "%s%s%s", v, sym[0] != '0' ? " <" : "",
					       sym[0] != '0' ? sym : "", sym[0] != '0' ? ">" : "");
		} else if (!ct.has_die) {
			uint64_t u = size < 8 ? v & ((UINT64_C(1) << (8 * size)) - 1) : v;
			if (ct.c_signed && size < 8)
				u = (uint64_t)((int64_t)(u << (64 - 8 * size)) >> (64 - 8 * size));
			if (ct.c_signed)
				g_string_append_printf(val, "%" PRId64, (int64_t)u);
			else
				g_string_append_printf(val, "%" PRIu64, u);
		} else {
			uint8_t bytes[8];
			memcpy(bytes, &v, 8);
			print_value(m, &ct.die, 0, bytes, val, 0);
		}
	}
	fprintf(out, "%s = (%s) %s\n", expr, tn->str, val->str);
done:
	g_string_free(tn, TRUE);
	g_string_free(val, TRUE);
	return rc;
}

bool gsp_source_locals(cs_gsp *m, const cs_gsp_source *s, int frame, FILE *out, cs_diag *d)
{
	src_frame fr;
	if (!s) {
		cs_diag_set(d, CS_ERR_INPUT, "no debug information at 0x%" PRIx64, cs_gsp_pc(m));
		return false;
	}
	if (!frame_nth(m, s, frame, &fr, d))
		return false;
	uint64_t pc = fr.at;
	Dwarf_Die cu;
	if (!dwarf_addrdie(s->dw, pc, &cu)) {
		cs_diag_set(d, CS_ERR_INPUT, "no debug information at 0x%" PRIx64, pc);
		return false;
	}
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(&cu, pc, &scopes);
	Dwarf_Die *func = NULL;
	for (int i = 0; i < ns && !func; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			func = &scopes[i];
	if (!func) {
		free(scopes);
		cs_diag_set(d, CS_ERR_INPUT, "no function with debug information at 0x%" PRIx64, pc);
		return false;
	}
	size_t shown = 0;
	for (int i = 0; i < ns; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) == 0) {
			do {
				int tag = dwarf_tag(&c);
				const char *n = dwarf_diename(&c);
				Dwarf_Die type;
				if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !n || !die_type(&c, &type))
					continue;
				src_loc l;
				var_location(&fr, s, &c, func, &l);
				GString *tn = g_string_new(NULL), *val = g_string_new(NULL);
				type_name(&type, tn, 0);
				uint8_t buf[8];
				const uint8_t *bytes = l.kind == LOC_REG || l.kind == LOC_VALUE ? value_bytes(&fr, &l, buf) : NULL;
				if (l.kind == LOC_NONE || (l.kind != LOC_MEM && !bytes))
					g_string_printf(val, "<%s>", l.why ? l.why : "not recovered in this frame");
				else
					print_value(m, &type, l.kind == LOC_MEM ? l.v : 0, bytes, val, 0);
				fprintf(out, "%s%s = (%s) %s\n", tag == DW_TAG_formal_parameter ? "(arg) " : "", n, tn->str,
					val->str);
				g_string_free(tn, TRUE);
				g_string_free(val, TRUE);
				shown++;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		if (&scopes[i] == func)
			break;
	}
	if (!shown)
		fprintf(out, "no locals in %s\n", dwarf_diename(func) ? dwarf_diename(func) : "this function");
	free(scopes);
	return true;
}
