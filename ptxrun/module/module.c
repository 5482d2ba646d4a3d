/* SPDX-License-Identifier: MIT */
/* The module object: load a cubin or a fatbin, attach PTX, answer queries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chainsim/file.h"
#include "module_internal.h"

/* Largest input accepted, so a hostile path cannot make us read gigabytes. */
#define CS_MODULE_MAX_BYTES (256u << 20)

unsigned cs_arch_sm(cs_arch arch)
{
	switch (arch) {
	case CS_ARCH_AMPERE: return 80;
	case CS_ARCH_ADA: return 89;
	case CS_ARCH_HOPPER: return 90;
	case CS_ARCH_BLACKWELL: return 100;
	default: return 0;
	}
}

static void module_destroy(cs_module *m)
{
	for (size_t i = 0; i < m->nkernels; i++) {
		free((char *)m->kernels[i].name);
		free((cs_kernel_param *)m->kernels[i].params);
	}
	free(m->kernels);
	free(m->entries);
	free(m->inflated[0]);
	free(m->inflated[1]);
	free(m->ptx);
	free(m->ptx_file);
	free(m->file);
	free(m->name);
	free(m);
}

cs_module *cs_module_ref(cs_module *m)
{
	if (m)
		m->refs++;
	return m;
}

void cs_module_free(cs_module *m)
{
	if (m && --m->refs == 0)
		module_destroy(m);
}

cs_module *cs_module_load_bytes(const uint8_t *bytes, size_t len, const char *name,
				cs_arch arch, cs_diag *d)
{
	if (!name)
		name = "<memory>";
	if ((unsigned)arch >= CS_ARCH_COUNT) {
		cs_diag_set(d, CS_ERR_INPUT, "%s: unknown arch %d", name, (int)arch);
		return NULL;
	}
	if (len > CS_MODULE_MAX_BYTES) {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, CS_MODULE_MAX_BYTES,
				  "module of %zu bytes is larger than the %u the loader accepts", len,
				  CS_MODULE_MAX_BYTES);
		return NULL;
	}
	cs_module *m = calloc(1, sizeof(*m));
	if (!m) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	m->refs = 1;
	m->arch = arch;
	m->name = strdup(name);
	m->file = malloc(len ? len : 1);
	if (!m->name || !m->file) {
		module_destroy(m);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return NULL;
	}
	if (len)
		memcpy(m->file, bytes, len);
	m->file_len = len;
	snprintf(m->ptx_note, sizeof(m->ptx_note),
		 "a bare cubin carries no PTX (attach the .ptx nvcc wrote, or load a fatbin "
		 "built with PTX and --no-compress)");

	bool ok;
	if (len >= 4 && cs_rd32(m->file) == CS_FATBIN_MAGIC) {
		m->is_fatbin = true;
		ok = cs_fatbin_parse(m, d);
	} else if (len >= 4 && memcmp(m->file, "\177ELF", 4) == 0) {
		ok = cs_cubin_parse(m, m->file, len, 0, NULL, d);
		if (ok) {
			unsigned sm = cs_cubin_sm(m->file, len), want = cs_arch_sm(arch);
			if (sm != want && (sm / 10 != want / 10 || sm > want)) {
				cs_diag_at_offset(d, CS_ERR_UNSUPPORTED, name, 0x30,
						  "the cubin's SASS is for sm_%u; %s runs sm_%u", sm,
						  cs_arch_get(arch)->name, want);
				ok = false;
			}
			cs_fatbin_entry e = { .kind = CS_FATBIN_ELF, .sm = sm,
					      .payload_size = len, .size = len, .selected = true };
			if (ok) {
				m->entries = malloc(sizeof(e));
				if (m->entries) {
					m->entries[0] = e;
					m->nentries = 1;
				}
			}
		}
	} else {
		cs_diag_at_offset(d, CS_ERR_INPUT, name, 0,
				  "neither a cubin (ELF magic) nor a fatbin (magic 0x%08x)",
				  (unsigned)CS_FATBIN_MAGIC);
		ok = false;
	}
	if (!ok) {
		module_destroy(m);
		return NULL;
	}
	return m;
}

cs_module *cs_module_load_file(const char *path, cs_arch arch, cs_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	if (!cs_file_read(path, CS_MODULE_MAX_BYTES, "the module", &buf, &len, d))
		return NULL;
	cs_module *m = cs_module_load_bytes((const uint8_t *)buf, len, cs_file_name(path), arch, d);
	free(buf);
	return m;
}

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_' || ch == '$' || ch == '.';
}

/* Whether the PTX declares `.entry NAME`. A textual scan: the executor parses
 * the text for real when a runtime takes the module. */
static bool ptx_has_entry(const char *ptx, size_t len, const char *name)
{
	size_t nl = strlen(name);
	const char *end = ptx + len;
	for (const char *p = ptx; p + 6 < end; p++) {
		if (memcmp(p, ".entry", 6) != 0 || (p > ptx && ident_char(p[-1])))
			continue;
		const char *q = p + 6;
		if (q >= end || (*q != ' ' && *q != '\t' && *q != '\n' && *q != '\r'))
			continue;
		while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
			q++;
		if ((size_t)(end - q) >= nl && memcmp(q, name, nl) == 0 &&
		    (q + nl == end || !ident_char(q[nl])))
			return true;
	}
	return false;
}

void cs_module_scan_ptx(cs_module *m)
{
	for (size_t i = 0; i < m->nkernels; i++)
		m->kernels[i].has_ptx = m->ptx && ptx_has_entry(m->ptx, m->ptx_len, m->kernels[i].name);
}

bool cs_module_attach_ptx(cs_module *m, const char *ptx, size_t len, cs_diag *d)
{
	return cs_module_attach_ptx_file(m, ptx, len, NULL, d);
}

bool cs_module_attach_ptx_file(cs_module *m, const char *ptx, size_t len, const char *file,
			       cs_diag *d)
{
	if (!m || !ptx) {
		cs_diag_set(d, CS_ERR_INPUT, "no module or no PTX text");
		return false;
	}
	if (memchr(ptx, 0, len)) {
		size_t at = (size_t)((const char *)memchr(ptx, 0, len) - ptx);
		cs_diag_at_offset(d, CS_ERR_INPUT, m->name, at, "PTX text contains a NUL byte");
		return false;
	}
	char *copy = malloc(len + 1), *file_copy = file ? strdup(file) : NULL;
	if (!copy || (file && !file_copy)) {
		free(copy);
		free(file_copy);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	memcpy(copy, ptx, len);
	copy[len] = 0;
	free(m->ptx);
	free(m->ptx_file);
	m->ptx = copy;
	m->ptx_file = file_copy;
	m->ptx_len = len;
	m->ptx_note[0] = 0;
	cs_module_scan_ptx(m);
	return true;
}

bool cs_module_is_fatbin(const cs_module *m) { return m->is_fatbin; }
size_t cs_module_kernel_count(const cs_module *m) { return m ? m->nkernels : 0; }

const cs_kernel_info *cs_module_kernel(const cs_module *m, size_t i)
{
	return m && i < m->nkernels ? &m->kernels[i] : NULL;
}

/* "_Z4vaddPKfS0_Pfi" -> "vadd" (the Itanium <length><name> of a plain function). */
static bool mangled_base_is(const char *sym, const char *name)
{
	if (strncmp(sym, "_Z", 2) != 0)
		return false;
	const char *p = sym + 2;
	size_t n = 0;
	if (*p < '1' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9' && n < 4096)
		n = n * 10 + (size_t)(*p++ - '0');
	return strlen(name) == n && strncmp(p, name, n) == 0;
}

const cs_kernel_info *cs_module_kernel_named(const cs_module *m, const char *name)
{
	if (!m || !name)
		return NULL;
	for (size_t i = 0; i < m->nkernels; i++)
		if (strcmp(m->kernels[i].name, name) == 0)
			return &m->kernels[i];
	for (size_t i = 0; i < m->nkernels; i++)
		if (mangled_base_is(m->kernels[i].name, name))
			return &m->kernels[i];
	return NULL;
}

const char *cs_module_ptx(const cs_module *m, size_t *len)
{
	if (len)
		*len = m && m->ptx ? m->ptx_len : 0;
	return m ? m->ptx : NULL;
}

const char *cs_module_ptx_note(const cs_module *m)
{
	return m && m->ptx_note[0] ? m->ptx_note : NULL;
}

size_t cs_module_fatbin_entry_count(const cs_module *m) { return m ? m->nentries : 0; }

const cs_fatbin_entry *cs_module_fatbin_entry(const cs_module *m, size_t i)
{
	return m && i < m->nentries ? &m->entries[i] : NULL;
}
