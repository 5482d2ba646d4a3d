/* SPDX-License-Identifier: MIT */
/* Firmware images: ELF64 RISC-V executables through libelf, or raw bytes. */
#include <gelf.h>
#include <glib.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "chainsim/gsp.h"
#include "source.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

enum { MAX_SEGMENTS = 64, MAX_SYMBOLS = 1u << 20 };

void cs_gsp_image_free(cs_gsp_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->nseg; i++)
		free(img->seg[i].data);
	free(img->seg);
	for (size_t i = 0; i < img->nsym; i++)
		free(img->sym[i].name);
	free(img->sym);
	free(img->mapping);
	gsp_source_free(img->source);
	free(img);
}

/* A mapping while the table is built: at one address a mapping symbol wins
 * over a section's start, which wins over the end of the section before. */
typedef struct mapping_entry {
	uint64_t addr;
	enum { ENTRY_SECTION_END, ENTRY_SECTION_START, ENTRY_SYMBOL } source;
	bool file_isa; /* a plain $x or a section start: the file's ISA */
	cs_gsp_bytes kind;
} mapping_entry;

static int mapping_cmp(const void *a, const void *b)
{
	const mapping_entry *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (int)x->source - (int)y->source;
}

/* An ISA string of a mapping symbol ("rv64i2p1_m2p0_..._c2p0_...") names C. */
static bool isa_has_c(const char *isa)
{
	for (const char *p = strstr(isa, "_c"); p; p = strstr(p + 1, "_c"))
		if (p[2] >= '0' && p[2] <= '9')
			return true;
	return false;
}

static bool mapping_push(GArray *entries, mapping_entry e)
{
	if (entries->len >= MAX_SYMBOLS)
		return false;
	g_array_append_val(entries, e);
	return true;
}

/* The mapping symbols ($d, $x, $x<isa>) and the bounds of the code sections.
 * The file's ISA (for a plain $x) is the first one a mapping symbol names. */
static cs_status load_mapping(Elf *e, cs_gsp_image *img)
{
	GArray *entries = g_array_new(FALSE, FALSE, sizeof(mapping_entry));
	bool have_file_isa = false;
	cs_gsp_bytes file_code = CS_GSP_BYTES_CODE;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
			mapping_push(entries, (mapping_entry){ sh.sh_addr, ENTRY_SECTION_START, true, CS_GSP_BYTES_CODE });
			mapping_push(entries, (mapping_entry){ sh.sh_addr + sh.sh_size, ENTRY_SECTION_END, false,
							       CS_GSP_BYTES_DATA });
		}
		if (sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		size_t count = data ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *sn;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    !(sn = elf_strptr(e, sh.sh_link, sym.st_name)) || sn[0] != '$')
				continue;
			bool plain = !sn[2] || sn[2] == '.';
			mapping_entry m = { sym.st_value, ENTRY_SYMBOL, false, CS_GSP_BYTES_DATA };
			if (sn[1] == 'd' && plain) {
				/* data */
			} else if (sn[1] == 'x' && plain)
				m.file_isa = true;
			else if (sn[1] == 'x') {
				m.kind = isa_has_c(sn + 2) ? CS_GSP_BYTES_CODE : CS_GSP_BYTES_CODE_NO_C;
				if (!have_file_isa) {
					file_code = m.kind;
					have_file_isa = true;
				}
			} else
				continue;
			mapping_push(entries, m);
		}
	}
	g_array_sort(entries, mapping_cmp);
	img->mapping = calloc(entries->len ? entries->len : 1, sizeof(*img->mapping));
	if (!img->mapping) {
		g_array_free(entries, TRUE);
		return CS_ERR_NOMEM;
	}
	for (guint i = 0; i < entries->len; i++) {
		const mapping_entry *m = &g_array_index(entries, mapping_entry, i);
		img->mapping[i] = (cs_gsp_mapping){ m->addr, m->file_isa ? file_code : m->kind };
	}
	img->nmapping = entries->len;
	g_array_free(entries, TRUE);
	return CS_OK;
}

cs_gsp_bytes cs_gsp_image_bytes_at(const cs_gsp_image *img, uint64_t addr, uint64_t *end)
{
	*end = UINT64_MAX;
	cs_gsp_bytes kind = CS_GSP_BYTES_CODE;
	if (!img || !img->nmapping)
		return kind;
	/* the last mapping at or before addr (a later one at the same address wins) */
	size_t lo = 0, hi = img->nmapping;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->mapping[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0)
		kind = img->mapping[lo - 1].kind;
	if (lo < img->nmapping)
		*end = img->mapping[lo].addr;
	return kind;
}

static int sym_cmp(const void *a, const void *b)
{
	const cs_gsp_symbol *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->func != y->func)
		return x->func ? -1 : 1;
	return strcmp(x->name, y->name);
}

static cs_status load_symbols(Elf *e, const uint8_t *buf, size_t len, const char *name,
			      cs_gsp_image *img, cs_diag *d)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, sh.sh_offset,
					  "symbol table runs past the end of the file");
			return CS_ERR_INPUT;
		}
		if (sh.sh_entsize == 0) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, sh.sh_offset, "symbol table entry size 0");
			return CS_ERR_INPUT;
		}
		size_t n = sh.sh_size / sh.sh_entsize;
		if (n > MAX_SYMBOLS) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, sh.sh_offset, "%zu symbols (limit %u)", n,
					  MAX_SYMBOLS);
			return CS_ERR_INPUT;
		}
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, sh.sh_offset, "unreadable symbol table: %s",
					  elf_errmsg(-1));
			return CS_ERR_INPUT;
		}
		img->sym = calloc(n ? n : 1, sizeof(*img->sym));
		if (!img->sym)
			return CS_ERR_NOMEM;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(data, (int)i, &s))
				break;
			int type = GELF_ST_TYPE(s.st_info);
			if (type != STT_FUNC && type != STT_OBJECT && type != STT_NOTYPE)
				continue;
			if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS)
				continue;
			const char *sn = elf_strptr(e, sh.sh_link, s.st_name);
			if (!sn || !*sn || sn[0] == '$' || !strncmp(sn, ".L", 2))
				continue;
			cs_gsp_symbol *o = &img->sym[img->nsym++];
			o->name = strdup(sn);
			if (!o->name)
				return CS_ERR_NOMEM;
			o->addr = s.st_value;
			o->size = s.st_size;
			o->func = type == STT_FUNC;
		}
		(void)buf;
		break;
	}
	if (img->nsym)
		qsort(img->sym, img->nsym, sizeof(*img->sym), sym_cmp);
	return CS_OK;
}

cs_status cs_gsp_image_from_elf(const uint8_t *buf, size_t len, const char *name,
				cs_gsp_image **out, cs_diag *d)
{
	*out = NULL;
	if (!name)
		name = "<elf>";
	/* Check what libelf would trust before handing it over. */
	if (len < 64 || memcmp(buf, "\177ELF", 4)) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 0, "not an ELF file (bad magic or shorter than 64 bytes)");
		return CS_ERR_INPUT;
	}
	if (buf[EI_CLASS] != ELFCLASS64) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, EI_CLASS, "ELF class %u: expected ELFCLASS64 (RV64)",
				  buf[EI_CLASS]);
		return CS_ERR_INPUT;
	}
	if (buf[EI_DATA] != ELFDATA2LSB) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, EI_DATA, "ELF data %u: expected little-endian",
				  buf[EI_DATA]);
		return CS_ERR_INPUT;
	}
	uint16_t machine = (uint16_t)(buf[18] | buf[19] << 8);
	if (machine != EM_RISCV) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 18, "ELF machine %u: expected RISC-V (%u)", machine,
				  EM_RISCV);
		return CS_ERR_INPUT;
	}
	uint16_t type = (uint16_t)(buf[16] | buf[17] << 8);
	if (type != ET_EXEC) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 16, "ELF type %u: expected an executable (ET_EXEC)",
				  type);
		return CS_ERR_INPUT;
	}
	uint64_t phoff = 0, shoff = 0;
	memcpy(&phoff, buf + 32, 8);
	memcpy(&shoff, buf + 40, 8);
	uint16_t phentsize = (uint16_t)(buf[54] | buf[55] << 8), phnum = (uint16_t)(buf[56] | buf[57] << 8);
	uint16_t shentsize = (uint16_t)(buf[58] | buf[59] << 8), shnum = (uint16_t)(buf[60] | buf[61] << 8);
	if (phnum == 0 || phentsize != sizeof(Elf64_Phdr) || phoff > len ||
	    (uint64_t)phnum * phentsize > len - phoff) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 32,
				  "program headers (offset 0x%" G_GINT64_MODIFIER "x, %u x %u bytes) do not fit in %zu bytes",
				  phoff, phnum, phentsize, len);
		return CS_ERR_INPUT;
	}
	if (shnum && (shentsize != sizeof(Elf64_Shdr) || shoff > len ||
		      (uint64_t)shnum * shentsize > len - shoff)) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 40,
				  "section headers (offset 0x%" G_GINT64_MODIFIER "x, %u x %u bytes) do not fit in %zu bytes",
				  shoff, shnum, shentsize, len);
		return CS_ERR_INPUT;
	}
	if (shnum) {
		/* every section's contents inside the file, so libelf never reads past it */
		for (uint16_t i = 0; i < shnum; i++) {
			Elf64_Shdr sh;
			memcpy(&sh, buf + shoff + (uint64_t)i * shentsize, sizeof(sh));
			if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
			    (sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)) {
				cs_diag_at_offset(d, CS_ERR_INPUT, name, shoff + (uint64_t)i * shentsize,
						  "section %u (offset 0x%" G_GINT64_MODIFIER "x, size 0x%" G_GINT64_MODIFIER
						  "x) runs past the end of the file", i, (uint64_t)sh.sh_offset, (uint64_t)sh.sh_size);
				return CS_ERR_INPUT;
			}
			if (sh.sh_link >= shnum && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)) {
				cs_diag_at_offset(d, CS_ERR_INPUT, name, shoff + (uint64_t)i * shentsize,
						  "section %u links to section %u of %u", i, sh.sh_link, shnum);
				return CS_ERR_INPUT;
			}
		}
		uint16_t shstrndx = (uint16_t)(buf[62] | buf[63] << 8);
		if (shstrndx >= shnum && shstrndx != SHN_XINDEX) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, 62, "section name table index %u of %u",
					  shstrndx, shnum);
			return CS_ERR_INPUT;
		}
	}

	cs_gsp_image *img = calloc(1, sizeof(*img));
	if (!img)
		return CS_ERR_NOMEM;
	char *copy = malloc(len);
	if (!copy) {
		free(img);
		return CS_ERR_NOMEM;
	}
	memcpy(copy, buf, len);
	cs_status st = CS_OK;
	elf_version(EV_CURRENT);
	Elf *e = elf_memory(copy, len);
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh)) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 0, "libelf: %s", elf_errmsg(-1));
		st = CS_ERR_INPUT;
		goto out;
	}
	img->entry = eh.e_entry;
	img->seg = calloc(phnum, sizeof(*img->seg));
	if (!img->seg) {
		st = CS_ERR_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t at = phoff + i * phentsize;
		if (!gelf_getphdr(e, (int)i, &ph)) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, at, "program header %zu: %s", i, elf_errmsg(-1));
			st = CS_ERR_INPUT;
			goto out;
		}
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		if (img->nseg >= MAX_SEGMENTS) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, at, "more than %d loadable segments", MAX_SEGMENTS);
			st = CS_ERR_INPUT;
			goto out;
		}
		if (ph.p_filesz > ph.p_memsz) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, at,
					  "segment %zu: file size 0x%" G_GINT64_MODIFIER "x exceeds memory size 0x%" G_GINT64_MODIFIER "x",
					  i, (uint64_t)ph.p_filesz, (uint64_t)ph.p_memsz);
			st = CS_ERR_INPUT;
			goto out;
		}
		if (ph.p_offset > len || ph.p_filesz > len - ph.p_offset) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, at,
					  "segment %zu: bytes [0x%" G_GINT64_MODIFIER "x, +0x%" G_GINT64_MODIFIER "x) run past the end of the file (%zu bytes)",
					  i, (uint64_t)ph.p_offset, (uint64_t)ph.p_filesz, len);
			st = CS_ERR_INPUT;
			goto out;
		}
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, at, "segment %zu: address + size wraps", i);
			st = CS_ERR_INPUT;
			goto out;
		}
		cs_gsp_segment *s = &img->seg[img->nseg++];
		s->addr = ph.p_vaddr;
		s->memsz = ph.p_memsz;
		s->filesz = ph.p_filesz;
		s->flags = ph.p_flags;
		s->data = malloc(ph.p_filesz ? ph.p_filesz : 1);
		if (!s->data) {
			st = CS_ERR_NOMEM;
			goto out;
		}
		memcpy(s->data, buf + ph.p_offset, ph.p_filesz);
	}
	if (img->nseg == 0) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, phoff, "no loadable segment");
		st = CS_ERR_INPUT;
		goto out;
	}
	st = load_symbols(e, buf, len, name, img, d);
	if (st == CS_OK)
		st = load_mapping(e, img);
out:
	if (e)
		elf_end(e);
	free(copy);
	if (st != CS_OK) {
		cs_gsp_image_free(img);
		return st;
	}
	*out = img;
	return CS_OK;
}

cs_status cs_gsp_image_from_raw(const uint8_t *buf, size_t len, uint64_t base,
				cs_gsp_image **out, cs_diag *d)
{
	*out = NULL;
	if (len == 0 || base + len < base) {
		cs_diag_set(d, CS_ERR_INPUT, "raw image: %zu bytes at 0x%" G_GINT64_MODIFIER "x do not fit",
			    len, base);
		return CS_ERR_INPUT;
	}
	cs_gsp_image *img = calloc(1, sizeof(*img));
	if (!img)
		return CS_ERR_NOMEM;
	img->seg = calloc(1, sizeof(*img->seg));
	if (!img->seg || !(img->seg[0].data = malloc(len))) {
		cs_gsp_image_free(img);
		return CS_ERR_NOMEM;
	}
	img->nseg = 1;
	img->seg[0].addr = base;
	img->seg[0].memsz = len;
	img->seg[0].filesz = len;
	img->seg[0].flags = 7;
	memcpy(img->seg[0].data, buf, len);
	img->entry = base;
	*out = img;
	return CS_OK;
}

static uint64_t le(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* NVIDIA's firmware files (gsp_*.bin of firmware-nvidia-gsp) are RISC-V
 * relocatable ELFs that hold the raw firmware image in a `.fwimage` section
 * (next to .fwversion and .fwsignature_*): loaded raw at `base`. */
cs_status cs_gsp_image_from_container(const uint8_t *buf, size_t len, const char *name, uint64_t base,
				      cs_gsp_image **out, cs_diag *d)
{
	*out = NULL;
	if (len < 64 || memcmp(buf, "\177ELF", 4) || buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 0, "not a little-endian ELF64 firmware container");
		return CS_ERR_INPUT;
	}
	uint64_t shoff = le(buf + 40, 8), shentsize = le(buf + 58, 2), shnum = le(buf + 60, 2);
	uint64_t shstrndx = le(buf + 62, 2);
	if (shentsize != sizeof(Elf64_Shdr) || shoff > len || shnum * shentsize > len - shoff || shstrndx >= shnum) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 40, "section headers (offset 0x%" G_GINT64_MODIFIER
				  "x, %" G_GINT64_MODIFIER "u x %" G_GINT64_MODIFIER "u bytes, names in %" G_GINT64_MODIFIER
				  "u) do not fit in %zu bytes", shoff, shnum, shentsize, shstrndx, len);
		return CS_ERR_INPUT;
	}
	const uint8_t *names = buf + shoff + shstrndx * shentsize;
	uint64_t names_off = le(names + 24, 8), names_size = le(names + 32, 8);
	if (names_off > len || names_size > len - names_off) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, shoff + shstrndx * shentsize,
				  "section name table runs past the end of the file");
		return CS_ERR_INPUT;
	}
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *sh = buf + shoff + i * shentsize;
		uint64_t name_at = le(sh, 4), off = le(sh + 24, 8), size = le(sh + 32, 8);
		static const char wanted[] = ".fwimage";
		if (name_at >= names_size || names_size - name_at < sizeof(wanted) ||
		    memcmp(buf + names_off + name_at, wanted, sizeof(wanted)))
			continue;
		if (off > len || size > len - off) {
			cs_diag_at_offset(d, CS_ERR_INPUT, name, shoff + i * shentsize,
					  ".fwimage (offset 0x%" G_GINT64_MODIFIER "x, size 0x%" G_GINT64_MODIFIER
					  "x) runs past the end of the file", off, size);
			return CS_ERR_INPUT;
		}
		return cs_gsp_image_from_raw(buf + off, size, base, out, d);
	}
	cs_diag_at_offset(d, CS_ERR_INPUT, name, 16,
			  "a relocatable ELF without a .fwimage section: neither an executable nor a firmware container");
	return CS_ERR_INPUT;
}

cs_status cs_gsp_image_load(const char *path, uint64_t raw_base, cs_gsp_image **out, cs_diag *d)
{
	char *text = NULL;
	size_t len = 0;
	*out = NULL;
	if (!cs_file_read(path, CS_FILE_MAX_BINARY, "the firmware", &text, &len, d))
		return d && d->status ? d->status : CS_ERR_INPUT;
	cs_status st;
	if (len >= 18 && !memcmp(text, "\177ELF", 4) && le((const uint8_t *)text + 16, 2) == ET_REL)
		st = cs_gsp_image_from_container((const uint8_t *)text, len, cs_file_name(path),
						  raw_base, out, d);
	else if (len >= 4 && !memcmp(text, "\177ELF", 4))
	{
		st = cs_gsp_image_from_elf((const uint8_t *)text, len, cs_file_name(path), out, d);
		if (st == CS_OK)
			(*out)->source = gsp_source_open((const uint8_t *)text, len, path);
	}
	else
		st = cs_gsp_image_from_raw((const uint8_t *)text, len, raw_base, out, d);
	free(text);
	return st;
}

const cs_gsp_symbol *cs_gsp_image_symbol(const cs_gsp_image *img, const char *name)
{
	for (size_t i = 0; img && i < img->nsym; i++)
		if (!strcmp(img->sym[i].name, name))
			return &img->sym[i];
	return NULL;
}

const cs_gsp_symbol *cs_gsp_image_symbolize(const cs_gsp_image *img, uint64_t addr)
{
	const cs_gsp_symbol *best = NULL, *label = NULL;
	if (!img)
		return NULL;
	for (size_t i = 0; i < img->nsym; i++) {
		const cs_gsp_symbol *s = &img->sym[i];
		if (s->addr > addr)
			break;
		if (s->size && addr - s->addr < s->size) {
			if (!best || (s->func && !best->func) || (s->func == best->func && s->addr >= best->addr))
				best = s;
		} else if (!s->size)
			label = s; /* an assembly label: covers up to the next symbol */
	}
	if (best && (!label || label->addr <= best->addr || !best->func))
		return best;
	if (label && addr - label->addr < 0x10000) {
		/* a sized symbol that starts after the label ends its reach */
		for (size_t i = 0; i < img->nsym; i++)
			if (img->sym[i].addr > label->addr && img->sym[i].addr <= addr && img->sym[i].size)
				return best;
		return label;
	}
	return best;
}
