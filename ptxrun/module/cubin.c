/* SPDX-License-Identifier: MIT */
/* cubin (CUDA ELF) parsing: kernels from .text.<k>, their parameter layout from
 * the EIATTR records of .nv.info.<k>, constant bank 0 from .nv.constant0.<k>,
 * static shared memory from .nv.shared.<k>, registers from .nv.info.
 *
 * The ELF and section headers are checked here, by hand, before libelf sees
 * them, so every error names the byte offset of the field that is wrong;
 * libelf then walks the sections, names and symbols. */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

typedef struct cubin_ctx {
	cs_module *m;
	const uint8_t *elf;
	size_t len;
	uint64_t base; /* file offset of elf[0] */
	const char *where; /* appended to messages: which bytes offsets count in */
	Elf *e;
	size_t shnum;
	size_t shstrndx;
	cs_diag *d;
} cubin_ctx;

static bool fail_at(cubin_ctx *c, uint64_t off, cs_status st, const char *what)
{
	cs_diag_at_offset(c->d, st, c->m->name, c->base + off, "%s%s", what,
			  c->where ? c->where : "");
	return false;
}

unsigned cs_cubin_sm(const uint8_t *elf, size_t len)
{
	if (len < CS_ELF_HDR_SIZE || memcmp(elf, "\177ELF", 4) != 0 ||
	    cs_rd16(elf + 0x12) != CS_EM_CUDA)
		return 0;
	/* e_flags: ABI version 7 and later keep the SM in bits 15:8 (0x5a for sm_90);
	 * older cubins kept it in bits 7:0. */
	uint32_t flags = cs_rd32(elf + 0x30);
	unsigned sm = (flags >> 8) & 0xffu;
	return sm ? sm : (flags & 0xffu);
}

/* The hand checks: identity, machine, section header table, every section's
 * file range, the string table index. */
static bool check_headers(cubin_ctx *c)
{
	char msg[192];
	const uint8_t *h = c->elf;
	if (c->len < CS_ELF_HDR_SIZE) {
		snprintf(msg, sizeof(msg), "truncated ELF: %zu bytes, the header alone needs %d",
			 c->len, CS_ELF_HDR_SIZE);
		return fail_at(c, c->len, CS_ERR_INPUT, msg);
	}
	if (memcmp(h, "\177ELF", 4) != 0)
		return fail_at(c, 0, CS_ERR_INPUT, "not an ELF file (no \\177ELF magic)");
	if (h[4] != 2)
		return fail_at(c, 4, CS_ERR_INPUT, "ELF class is not 64-bit (EI_CLASS != 2)");
	if (h[5] != 1)
		return fail_at(c, 5, CS_ERR_INPUT, "ELF data is not little-endian (EI_DATA != 1)");
	uint16_t machine = cs_rd16(h + 0x12);
	if (machine != CS_EM_CUDA) {
		snprintf(msg, sizeof(msg), "ELF machine %u is not EM_CUDA (%d): not a cubin",
			 machine, CS_EM_CUDA);
		return fail_at(c, 0x12, CS_ERR_INPUT, msg);
	}
	uint64_t shoff = cs_rd64(h + 0x28);
	uint16_t shentsize = cs_rd16(h + 0x3a);
	uint16_t shnum = cs_rd16(h + 0x3c);
	uint16_t shstrndx = cs_rd16(h + 0x3e);
	if (shnum == 0)
		return fail_at(c, 0x3c, CS_ERR_INPUT, "ELF has no section headers (e_shnum 0)");
	if (shentsize != CS_ELF_SHDR_SIZE) {
		snprintf(msg, sizeof(msg), "section header size %u, expected %d", shentsize,
			 CS_ELF_SHDR_SIZE);
		return fail_at(c, 0x3a, CS_ERR_INPUT, msg);
	}
	if (!cs_range_ok(shoff, (uint64_t)shnum * CS_ELF_SHDR_SIZE, c->len)) {
		snprintf(msg, sizeof(msg),
			 "section header table [0x%llx, +%u x %d) runs past the end (%zu bytes)",
			 (unsigned long long)shoff, shnum, CS_ELF_SHDR_SIZE, c->len);
		return fail_at(c, 0x28, CS_ERR_INPUT, msg);
	}
	if (shstrndx >= shnum) {
		snprintf(msg, sizeof(msg), "section name table index %u is not below e_shnum %u",
			 shstrndx, shnum);
		return fail_at(c, 0x3e, CS_ERR_INPUT, msg);
	}
	for (unsigned i = 0; i < shnum; i++) {
		uint64_t sh = shoff + (uint64_t)i * CS_ELF_SHDR_SIZE;
		uint32_t type = cs_rd32(h + sh + 4);
		uint64_t off = cs_rd64(h + sh + 0x18);
		uint64_t size = cs_rd64(h + sh + 0x20);
		uint32_t link = cs_rd32(h + sh + 0x28);
		if (type != SHT_NOBITS && type != SHT_NULL && !cs_range_ok(off, size, c->len)) {
			snprintf(msg, sizeof(msg),
				 "section %u's data [0x%llx, +0x%llx) runs past the end of the "
				 "cubin (%zu bytes)",
				 i, (unsigned long long)off, (unsigned long long)size, c->len);
			return fail_at(c, sh + 0x18, CS_ERR_INPUT, msg);
		}
		if (link >= shnum && (type == SHT_SYMTAB || type == SHT_REL || type == SHT_RELA)) {
			snprintf(msg, sizeof(msg), "section %u links to section %u of %u", i, link,
				 shnum);
			return fail_at(c, sh + 0x28, CS_ERR_INPUT, msg);
		}
	}
	uint64_t strsh = shoff + (uint64_t)shstrndx * CS_ELF_SHDR_SIZE;
	if (cs_rd32(h + strsh + 4) != SHT_STRTAB)
		return fail_at(c, strsh + 4, CS_ERR_INPUT, "the section name table is not SHT_STRTAB");
	c->shnum = shnum;
	c->shstrndx = shstrndx;
	return true;
}

static uint64_t shdr_off(const cubin_ctx *c, size_t i)
{
	return cs_rd64(c->elf + 0x28) + (uint64_t)i * CS_ELF_SHDR_SIZE;
}

/* Section data as a slice of the input (headers already range-checked). */
static const uint8_t *sec_bytes(const cubin_ctx *c, const GElf_Shdr *sh)
{
	return c->elf + sh->sh_offset;
}

static const char *sec_name(cubin_ctx *c, size_t i, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(c->e, c->shstrndx, sh->sh_name);
	if (!n) {
		char msg[128];
		snprintf(msg, sizeof(msg), "section %zu's name offset 0x%x is outside the name table",
			 i, sh->sh_name);
		fail_at(c, shdr_off(c, i), CS_ERR_INPUT, msg);
	}
	return n;
}

/* Find a section by exact name; 0 when absent (section 0 is never named). */
static size_t find_section(cubin_ctx *c, const char *name, GElf_Shdr *out)
{
	for (size_t i = 1; i < c->shnum; i++) {
		Elf_Scn *scn = elf_getscn(c->e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		const char *n = elf_strptr(c->e, c->shstrndx, sh.sh_name);
		if (n && strcmp(n, name) == 0) {
			*out = sh;
			return i;
		}
	}
	return 0;
}

/* One EIATTR record as the walker hands it out. */
typedef struct eiattr {
	uint8_t fmt, attr;
	uint16_t hval;        /* HVAL/BVAL value */
	const uint8_t *sval;  /* SVAL payload */
	uint16_t slen;
	uint64_t off;         /* file-relative (to elf[0]) offset of the record */
} eiattr;

/* Walk .nv.info records: calls fn for each; stops at the first malformed one. */
typedef bool (*eiattr_fn)(cubin_ctx *c, const eiattr *r, void *arg);

static bool walk_nvinfo(cubin_ctx *c, const GElf_Shdr *sh, eiattr_fn fn, void *arg)
{
	char msg[160];
	/* check_headers range-checked every section with file data; a NOBITS
	 * section has none to walk */
	if (sh->sh_type == SHT_NOBITS || !cs_range_ok(sh->sh_offset, sh->sh_size, c->len)) {
		snprintf(msg, sizeof(msg), ".nv.info section of type 0x%x has no data in the file",
			 sh->sh_type);
		return fail_at(c, sh->sh_offset, CS_ERR_INPUT, msg);
	}
	const uint8_t *p = sec_bytes(c, sh);
	uint64_t n = sh->sh_size, o = 0;
	while (o < n) {
		eiattr r = { 0 };
		r.off = sh->sh_offset + o;
		if (n - o < 4) {
			snprintf(msg, sizeof(msg), ".nv.info record header needs 4 bytes, %llu left",
				 (unsigned long long)(n - o));
			return fail_at(c, r.off, CS_ERR_INPUT, msg);
		}
		r.fmt = p[o];
		r.attr = p[o + 1];
		switch (r.fmt) {
		case CS_EIFMT_NVAL:
		case CS_EIFMT_BVAL:
		case CS_EIFMT_HVAL:
			r.hval = r.fmt == CS_EIFMT_BVAL ? p[o + 2] : cs_rd16(p + o + 2);
			o += 4;
			break;
		case CS_EIFMT_SVAL:
			r.slen = cs_rd16(p + o + 2);
			if (r.slen > n - o - 4) {
				snprintf(msg, sizeof(msg),
					 ".nv.info attribute 0x%02x claims %u bytes, %llu left in "
					 "the section",
					 r.attr, r.slen, (unsigned long long)(n - o - 4));
				return fail_at(c, r.off + 2, CS_ERR_INPUT, msg);
			}
			r.sval = p + o + 4;
			o += 4u + r.slen;
			break;
		default:
			snprintf(msg, sizeof(msg), ".nv.info record format %u is not one of 1..4",
				 r.fmt);
			return fail_at(c, r.off, CS_ERR_INPUT, msg);
		}
		if (!fn(c, &r, arg))
			return false;
	}
	return true;
}

static bool need_slen(cubin_ctx *c, const eiattr *r, unsigned want, const char *name)
{
	if (r->fmt == CS_EIFMT_SVAL && r->slen >= want)
		return true;
	char msg[128];
	snprintf(msg, sizeof(msg), "%s record: format %u with %u bytes, expected SVAL of %u",
		 name, r->fmt, r->slen, want);
	return fail_at(c, r->off, CS_ERR_INPUT, msg);
}

typedef struct kinfo_acc {
	cs_kernel_info *k;
	cs_kernel_param params[256];
	uint64_t param_off[256]; /* record offsets, for messages */
	size_t nparams;
	bool have_cbank;
	uint64_t cbank_off;
	uint32_t cbank_size;     /* PARAM_CBANK's size half */
	bool have_param_size;
} kinfo_acc;

static bool kernel_attr(cubin_ctx *c, const eiattr *r, void *arg)
{
	kinfo_acc *a = arg;
	switch (r->attr) {
	case CS_EIATTR_KPARAM_INFO: {
		if (!need_slen(c, r, 12, "EIATTR_KPARAM_INFO"))
			return false;
		if (a->nparams >= sizeof(a->params) / sizeof(a->params[0]))
			return fail_at(c, r->off, CS_ERR_UNSUPPORTED,
				       "more than 256 kernel parameters");
		cs_kernel_param *p = &a->params[a->nparams];
		p->ordinal = cs_rd16(r->sval + 4);
		p->offset = cs_rd16(r->sval + 6);
		/* info word: size in bytes in bits 31:18 */
		p->size = (cs_rd32(r->sval + 8) >> 18) & 0x3fffu;
		a->param_off[a->nparams] = r->off;
		a->nparams++;
		break;
	}
	case CS_EIATTR_PARAM_CBANK:
		if (!need_slen(c, r, 8, "EIATTR_PARAM_CBANK"))
			return false;
		a->have_cbank = true;
		a->cbank_off = r->off;
		a->k->param_base = cs_rd16(r->sval + 4);
		a->cbank_size = cs_rd16(r->sval + 6);
		break;
	case CS_EIATTR_CBANK_PARAM_SIZE:
		if (r->fmt != CS_EIFMT_HVAL)
			return fail_at(c, r->off, CS_ERR_INPUT,
				       "EIATTR_CBANK_PARAM_SIZE is not an HVAL record");
		a->have_param_size = true;
		a->k->param_bytes = r->hval;
		break;
	case CS_EIATTR_MAX_THREADS:
	case CS_EIATTR_REQNTID: {
		if (!need_slen(c, r, 12, r->attr == CS_EIATTR_MAX_THREADS ? "EIATTR_MAX_THREADS"
									   : "EIATTR_REQNTID"))
			return false;
		uint32_t *dst = r->attr == CS_EIATTR_MAX_THREADS ? a->k->max_threads
								 : a->k->reqntid;
		for (int i = 0; i < 3; i++)
			dst[i] = cs_rd32(r->sval + 4 * i);
		break;
	}
	case CS_EIATTR_NUM_BARRIERS:
		if (r->fmt != CS_EIFMT_BVAL && r->fmt != CS_EIFMT_HVAL)
			return fail_at(c, r->off, CS_ERR_INPUT,
				       "EIATTR_NUM_BARRIERS is not a BVAL or HVAL record");
		a->k->barriers = r->hval;
		break;
	default:
		break; /* attributes the model does not need */
	}
	return true;
}

/* What the global .nv.info says of one kernel, keyed by its symbol index. */
typedef struct regcount_acc {
	size_t sym;
	uint32_t regs;
	bool found;
	uint32_t frame_bytes; /* EIATTR_FRAME_SIZE */
	uint32_t stack_bytes; /* EIATTR_MIN_STACK_SIZE: the frame plus its callees' */
} regcount_acc;

static bool global_attr(cubin_ctx *c, const eiattr *r, void *arg)
{
	regcount_acc *a = arg;
	const char *what = r->attr == CS_EIATTR_REGCOUNT        ? "EIATTR_REGCOUNT"
			   : r->attr == CS_EIATTR_FRAME_SIZE     ? "EIATTR_FRAME_SIZE"
			   : r->attr == CS_EIATTR_MIN_STACK_SIZE ? "EIATTR_MIN_STACK_SIZE"
								 : NULL;
	if (!what)
		return true;
	if (!need_slen(c, r, 8, what))
		return false;
	if (cs_rd32(r->sval) != a->sym)
		return true;
	uint32_t v = cs_rd32(r->sval + 4);
	if (r->attr == CS_EIATTR_REGCOUNT) {
		a->regs = v;
		a->found = true;
	} else if (r->attr == CS_EIATTR_FRAME_SIZE) {
		a->frame_bytes = v;
	} else {
		a->stack_bytes = v;
	}
	return true;
}

static int cmp_param(const void *x, const void *y)
{
	const cs_kernel_param *a = x, *b = y;
	return a->ordinal < b->ordinal ? -1 : a->ordinal > b->ordinal;
}

/* The symbol index of the kernel's function symbol: name k defined in the text
 * section; SIZE_MAX when there is none. */
static size_t kernel_symbol(cubin_ctx *c, const char *kname, size_t text_idx)
{
	for (size_t i = 1; i < c->shnum; i++) {
		Elf_Scn *scn = elf_getscn(c->e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_entsize != CS_ELF_SYM_SIZE)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / CS_ELF_SYM_SIZE;
		for (size_t s = 0; s < n; s++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)s, &sym))
				break;
			if (sym.st_shndx != text_idx || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			const char *n2 = elf_strptr(c->e, sh.sh_link, sym.st_name);
			if (n2 && strcmp(n2, kname) == 0)
				return s;
		}
	}
	return SIZE_MAX;
}

static bool add_kernel(cubin_ctx *c, size_t text_idx, const GElf_Shdr *text, const char *kname)
{
	char secname[512], msg[256];
	GElf_Shdr info_sh, c0_sh, sh_sh, ginfo_sh;
	snprintf(secname, sizeof(secname), ".nv.info.%s", kname);
	size_t info_idx = find_section(c, secname, &info_sh);
	snprintf(secname, sizeof(secname), ".nv.constant0.%s", kname);
	size_t c0_idx = find_section(c, secname, &c0_sh);
	if (!info_idx && !c0_idx)
		return true; /* a device function, not an entry */

	cs_module *m = c->m;
	cs_kernel_info *nk = realloc(m->kernels, (m->nkernels + 1) * sizeof(*nk));
	if (!nk) {
		cs_diag_set(c->d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	m->kernels = nk;
	cs_kernel_info *k = &nk[m->nkernels];
	memset(k, 0, sizeof(*k));
	k->name = strdup(kname);
	if (!k->name) {
		cs_diag_set(c->d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	m->nkernels++;
	k->code = c->elf + text->sh_offset;
	k->code_size = text->sh_size;
	k->sm = cs_cubin_sm(c->elf, c->len);
	if (k->code_size == 0) {
		snprintf(msg, sizeof(msg), "kernel %s has an empty .text section", kname);
		return fail_at(c, shdr_off(c, text_idx) + 0x20, CS_ERR_INPUT, msg);
	}

	kinfo_acc *a = calloc(1, sizeof(*a));
	if (!a) {
		cs_diag_set(c->d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	a->k = k;
	bool ok = true;
	if (info_idx)
		ok = walk_nvinfo(c, &info_sh, kernel_attr, a);
	if (ok && c0_idx)
		k->cbank0_size = (uint32_t)(c0_sh.sh_size > UINT32_MAX ? UINT32_MAX : c0_sh.sh_size);
	/* A kernel without parameters (`__global__ void k()`): nvcc writes neither
	 * EIATTR_PARAM_CBANK nor KPARAM_INFO, and .nv.constant0.<k> holds only
	 * the driver's part of the bank, so its empty parameter area sits where
	 * that part ends. */
	bool has_params = a->nparams || (a->have_param_size && k->param_bytes);
	if (ok && !a->have_cbank && !has_params)
		k->param_base = k->cbank0_size;
	if (ok && !a->have_cbank && has_params) {
		snprintf(msg, sizeof(msg),
			 "kernel %s: .nv.info.%s states %zu parameters (0x%x bytes) and no "
			 "EIATTR_PARAM_CBANK (where they live)",
			 kname, kname, a->nparams, k->param_bytes);
		ok = fail_at(c, info_idx ? info_sh.sh_offset : shdr_off(c, c0_idx), CS_ERR_INPUT,
			     msg);
	}
	if (ok && !a->have_param_size)
		k->param_bytes = a->cbank_size;
	if (ok && c0_idx && (uint64_t)k->param_base + k->param_bytes > k->cbank0_size) {
		snprintf(msg, sizeof(msg),
			 "kernel %s: parameters at 0x%x + 0x%x run past .nv.constant0 (0x%x bytes)",
			 kname, k->param_base, k->param_bytes, k->cbank0_size);
		ok = fail_at(c, a->cbank_off, CS_ERR_INPUT, msg);
	}
	for (size_t i = 0; ok && i < a->nparams; i++) {
		const cs_kernel_param *p = &a->params[i];
		if (p->size == 0 || (uint64_t)p->offset + p->size > k->param_bytes) {
			snprintf(msg, sizeof(msg),
				 "kernel %s: parameter %u at 0x%x size %u does not fit the 0x%x "
				 "parameter bytes",
				 kname, p->ordinal, p->offset, p->size, k->param_bytes);
			ok = fail_at(c, a->param_off[i], CS_ERR_INPUT, msg);
		}
		for (size_t j = 0; ok && j < i; j++)
			if (a->params[j].ordinal == p->ordinal) {
				snprintf(msg, sizeof(msg), "kernel %s: parameter ordinal %u twice",
					 kname, p->ordinal);
				ok = fail_at(c, a->param_off[i], CS_ERR_INPUT, msg);
			}
	}
	if (ok && a->nparams) {
		cs_kernel_param *ps = malloc(a->nparams * sizeof(*ps));
		if (!ps) {
			cs_diag_set(c->d, CS_ERR_NOMEM, "out of memory");
			ok = false;
		} else {
			memcpy(ps, a->params, a->nparams * sizeof(*ps));
			qsort(ps, a->nparams, sizeof(*ps), cmp_param);
			k->params = ps;
			k->nparams = a->nparams;
		}
	}
	free(a);
	if (!ok)
		return false;

	GElf_Shdr rel_sh;
	snprintf(secname, sizeof(secname), ".rela.text.%s", kname);
	if (find_section(c, secname, &rel_sh) && rel_sh.sh_type == SHT_RELA)
		k->code_relocs += (uint32_t)(rel_sh.sh_size / 24);
	snprintf(secname, sizeof(secname), ".rel.text.%s", kname);
	if (find_section(c, secname, &rel_sh) && rel_sh.sh_type == SHT_REL)
		k->code_relocs += (uint32_t)(rel_sh.sh_size / 16);

	snprintf(secname, sizeof(secname), ".nv.shared.%s", kname);
	if (find_section(c, secname, &sh_sh))
		k->shared_static = (uint32_t)(sh_sh.sh_size > UINT32_MAX ? UINT32_MAX
									  : sh_sh.sh_size);

	/* Registers: EIATTR_REGCOUNT in the global .nv.info, keyed by the kernel's
	 * symbol; else bits 31:24 of the text section's sh_info. Local memory per
	 * thread: EIATTR_FRAME_SIZE / EIATTR_MIN_STACK_SIZE there, the larger. */
	regcount_acc ra = { .sym = kernel_symbol(c, kname, text_idx) };
	if (ra.sym != SIZE_MAX && find_section(c, ".nv.info", &ginfo_sh) &&
	    !walk_nvinfo(c, &ginfo_sh, global_attr, &ra))
		return false;
	k->regs = ra.found ? ra.regs : (uint32_t)(text->sh_info >> 24);
	k->local_bytes = ra.frame_bytes > ra.stack_bytes ? ra.frame_bytes : ra.stack_bytes;
	return true;
}

bool cs_cubin_parse(cs_module *m, const uint8_t *elf, size_t len, uint64_t base,
		    const char *where, cs_diag *d)
{
	cubin_ctx c = { .m = m, .elf = elf, .len = len, .base = base, .where = where, .d = d };
	if (!check_headers(&c))
		return false;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		cs_diag_set(d, CS_ERR_INTERNAL, "libelf: %s", elf_errmsg(-1));
		return false;
	}
	/* libelf wants a mutable pointer; in read mode it does not write. */
	c.e = elf_memory((char *)(uintptr_t)elf, len);
	if (!c.e || elf_kind(c.e) != ELF_K_ELF) {
		char msg[160];
		snprintf(msg, sizeof(msg), "libelf cannot read it: %s", elf_errmsg(-1));
		if (c.e)
			elf_end(c.e);
		return fail_at(&c, 0, CS_ERR_INPUT, msg);
	}
	bool ok = true;
	size_t before = m->nkernels;
	for (size_t i = 1; ok && i < c.shnum; i++) {
		Elf_Scn *scn = elf_getscn(c.e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh)) {
			ok = fail_at(&c, shdr_off(&c, i), CS_ERR_INPUT, "libelf cannot read this section header");
			break;
		}
		const char *n = sec_name(&c, i, &sh);
		if (!n) {
			ok = false;
			break;
		}
		if (strncmp(n, ".text.", 6) == 0 && sh.sh_type == SHT_PROGBITS && n[6])
			ok = add_kernel(&c, i, &sh, n + 6);
	}
	elf_end(c.e);
	if (ok && m->nkernels == before) {
		fail_at(&c, 0, CS_ERR_INPUT, "the cubin has no kernels (no .text.<k> with .nv.info.<k>)");
		ok = false;
	}
	return ok;
}
