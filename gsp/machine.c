/* SPDX-License-Identifier: MIT */
/* The GSP machine on Unicorn 2.0.1: regions, MMIO models, the privilege
 * level, registers and memory (the Unicorn 2.0.1 behaviour measured in
 * gsp/README.md and docs/gsp.md). Its breakpoints and watchpoints are in
 * points.c, the run loop and trap entry in run.c, snapshots in snapshot.c. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gsp_internal.h"

#define PAD_PAGE 0xFFFFFFFFFFFFE000ull

uint64_t gsp_reg(cs_gsp *m, int ucreg)
{
	uint64_t v = 0;
	uc_reg_read(m->uc, ucreg, &v);
	return v;
}

void gsp_set_reg(cs_gsp *m, int ucreg, uint64_t v)
{
	uc_reg_write(m->uc, ucreg, &v);
}

/* ---- privilege ----
 * uc_context_save copies Unicorn's CPURISCVState byte for byte. In 2.0.1
 * that struct holds, from pc on: pc, load_res, load_val, frm, badaddr,
 * guest_phys_fault_addr, priv_ver, misa, misa_mask, features (32 bits),
 * priv, virt, resetvec, mhartid, mstatus. pc is found by planting a value in
 * it; misa, mstatus and the reset privilege (M) confirm the layout. */
enum {
	STATE_LOAD_RES = 8,
	STATE_LOAD_VAL = 16,
	STATE_BADADDR = 32,
	STATE_MISA = 56,
	STATE_PRIV = 80,
	STATE_MSTATUS = 112,
};

static uint64_t state_word(const cs_gsp *m, size_t offset)
{
	uint64_t v;
	memcpy(&v, (const uint8_t *)m->cpu_state + offset, sizeof(v));
	return v;
}

static cs_status cpu_state_layout(cs_gsp *m, cs_diag *d)
{
	const uint64_t planted_pc = 0x5AFEC0DE5AFEC0D0ull;
	size_t size = uc_context_size(m->uc);
	if (uc_context_alloc(m->uc, &m->cpu_state) != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_NOMEM, "cannot allocate a CPU state copy");
		return CS_ERR_NOMEM;
	}
	gsp_set_reg(m, UC_RISCV_REG_PC, planted_pc);
	uc_context_save(m->uc, m->cpu_state);
	size_t pc_offset = 0;
	for (size_t off = 0; off + 8 <= size; off += 8)
		if (state_word(m, off) == planted_pc) {
			pc_offset = off;
			break;
		}
	bool found = pc_offset && pc_offset + STATE_MSTATUS + 8 <= size &&
		     state_word(m, pc_offset + STATE_MISA) == gsp_reg(m, UC_RISCV_REG_MISA) &&
		     state_word(m, pc_offset + STATE_MSTATUS) == gsp_reg(m, UC_RISCV_REG_MSTATUS) &&
		     state_word(m, pc_offset + STATE_PRIV) == GSP_PRIV_M;
	if (!found) {
		cs_diag_set(d, CS_ERR_UNAVAILABLE,
			    "this Unicorn's CPU state does not have the RISC-V layout of 2.0.1: the privilege level "
			    "cannot be found (see docs/gsp.md)");
		return CS_ERR_UNAVAILABLE;
	}
	m->priv_offset = pc_offset + STATE_PRIV;
	m->badaddr_offset = pc_offset + STATE_BADADDR;
	m->reservation_offset = pc_offset + STATE_LOAD_RES;
	return CS_OK;
}

unsigned gsp_priv(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	return (unsigned)state_word(m, m->priv_offset);
}

void gsp_set_priv(cs_gsp *m, unsigned priv)
{
	uc_context_save(m->uc, m->cpu_state);
	uint64_t v = priv;
	memcpy((uint8_t *)m->cpu_state + m->priv_offset, &v, sizeof(v));
	uc_context_restore(m->uc, m->cpu_state);
}

/* The fault address Unicorn recorded for the last misaligned access or page
 * fault (read in the interrupt hook: see intr_cb). */
static uint64_t fault_address(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	return state_word(m, m->badaddr_offset);
}

/* The LR reservation (load_res, load_val): an SC stopped by a watchpoint
 * leaves it to the model. */
uint64_t gsp_reservation_value(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	return state_word(m, m->reservation_offset + (STATE_LOAD_VAL - STATE_LOAD_RES));
}

void gsp_reservation_clear(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	uint64_t none = UINT64_MAX;
	memcpy((uint8_t *)m->cpu_state + m->reservation_offset, &none, sizeof(none));
	uc_context_restore(m->uc, m->cpu_state);
}

/* Raises the hart to M for host CSR access; returns the mode to go back to. */
unsigned gsp_priv_raise(cs_gsp *m)
{
	unsigned was = gsp_priv(m);
	if (was != GSP_PRIV_M)
		gsp_set_priv(m, GSP_PRIV_M);
	return was;
}

void gsp_priv_lower(cs_gsp *m, unsigned was)
{
	if (was != GSP_PRIV_M)
		gsp_set_priv(m, was);
}

uint64_t gsp_csr(cs_gsp *m, int ucreg)
{
	unsigned was = gsp_priv_raise(m);
	uint64_t v = gsp_reg(m, ucreg);
	gsp_priv_lower(m, was);
	return v;
}

void gsp_set_csr(cs_gsp *m, int ucreg, uint64_t v)
{
	unsigned was = gsp_priv_raise(m);
	gsp_set_reg(m, ucreg, v);
	gsp_priv_lower(m, was);
}

/* ---- translations ----
 * Translated blocks keep what was hooked when they were made: code hooks
 * run only from blocks translated while the hook existed, and memory
 * accesses take the slow path, where memory hooks run, only in blocks
 * translated while some memory hook existed. Unicorn 2.0.1's full flush
 * (UC_CTL_TB_FLUSH, and uc_emu_start's own after a counted run) clears its
 * whole 1 GiB code buffer with memset, so the model never flushes and never
 * asks for a counted run: it drops the translations of one address for a
 * breakpoint, and of the code regions when the first memory hook comes or
 * the last one goes and when its counting hook comes or goes. */
void gsp_drop_translations(cs_gsp *m, uint64_t addr, uint64_t len)
{
	/* at M the code address is the physical one Unicorn looks up */
	unsigned was = gsp_priv_raise(m);
	uc_ctl_remove_cache(m->uc, addr, addr + len);
	gsp_priv_lower(m, was);
}

void gsp_drop_code_translations(cs_gsp *m)
{
	unsigned was = gsp_priv_raise(m);
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (r->kind != CS_GSP_MMIO)
			uc_ctl_remove_cache(m->uc, r->base, r->base + r->size);
	}
	gsp_priv_lower(m, was);
}

/* Inside a memory hook Unicorn's pc is whatever the last block exit stored:
 * chained blocks do not store it. While memory hooks exist a block hook
 * keeps the start of the running block, where the search for the access
 * (gsp_find_access) begins. */
static void block_cb(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	(void)uc;
	(void)size;
	((cs_gsp *)user)->block_pc = addr;
}

uint64_t gsp_block_pc(cs_gsp *m)
{
	return m->block_hook ? m->block_pc : cs_gsp_pc(m);
}

void gsp_mem_hook_added(cs_gsp *m)
{
	if (m->mem_hooks++ > 0)
		return;
	if (uc_hook_add(m->uc, &m->block_hook, UC_HOOK_BLOCK, GSP_CB(block_cb), m, 1, 0) != UC_ERR_OK)
		m->block_hook = 0;
	gsp_drop_code_translations(m);
}

void gsp_mem_hook_removed(cs_gsp *m)
{
	if (--m->mem_hooks > 0)
		return;
	if (m->block_hook)
		uc_hook_del(m->uc, m->block_hook);
	m->block_hook = 0;
	gsp_drop_code_translations(m);
}

uint64_t cs_gsp_pc(cs_gsp *m)
{
	return gsp_reg(m, UC_RISCV_REG_PC);
}

const cs_gsp_image *cs_gsp_image_of(const cs_gsp *m)
{
	return m->img;
}

/* ---- MMIO models ---- */

uint32_t gsp_mmio_word(const gsp_mmio *dev, uint64_t off)
{
	return (uint32_t)GPOINTER_TO_SIZE(g_hash_table_lookup(dev->regs, GSIZE_TO_POINTER(off / 4)));
}

void gsp_mmio_set_word(gsp_mmio *dev, uint64_t off, uint32_t v)
{
	if (v)
		g_hash_table_insert(dev->regs, GSIZE_TO_POINTER(off / 4), GSIZE_TO_POINTER(v));
	else
		g_hash_table_remove(dev->regs, GSIZE_TO_POINTER(off / 4));
}

GHashTable *gsp_mmio_regs_copy(GHashTable *regs)
{
	GHashTable *copy = g_hash_table_new(g_direct_hash, g_direct_equal);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, regs);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_hash_table_insert(copy, k, v);
	return copy;
}

static void mmio_trace(gsp_mmio *dev, const char *dir, uint64_t off, unsigned size, uint64_t v)
{
	if (dev->m->mmio_trace)
		fprintf(dev->m->mmio_trace, "mmio %s %s+0x%03" PRIx64 " size %u = 0x%" PRIx64 "\n", dir,
			dev->r->name, off, size, v);
}

static uint64_t mmio_model_read(gsp_mmio *dev, uint64_t off, unsigned size)
{
	cs_gsp *m = dev->m;
	uint64_t v = 0;
	switch (dev->r->model) {
	case CS_GSP_MODEL_LOG:
		v = 0;
		break;
	case CS_GSP_MODEL_DOORBELL:
		if (off == 0x008)
			v = m->host_irq_status;
		else if (off == 0x00C)
			v = m->irq_pending;
		else
			v = gsp_mmio_word(dev, off);
		break;
	default:
		v = gsp_mmio_word(dev, off);
		break;
	}
	if (size < 4)
		v = (v >> ((off & 3) * 8)) & ((1ull << (size * 8)) - 1);
	return v;
}

static void mmio_model_write(gsp_mmio *dev, uint64_t off, unsigned size, uint64_t v)
{
	cs_gsp *m = dev->m;
	switch (dev->r->model) {
	case CS_GSP_MODEL_LOG:
		if (off == 0) {
			char c = (char)(v & 0xFF);
			if (c == '\n') {
				g_string_append(m->log, m->logline->str);
				g_string_append_c(m->log, '\n');
				g_string_truncate(m->logline, 0);
			} else if (m->logline->len < 4096)
				g_string_append_c(m->logline, c);
		}
		break;
	case CS_GSP_MODEL_DOORBELL:
		if (off == 0x008) {
			if ((v >> 6) & 1)
				m->host_irqs++;
			m->host_irq_status |= (uint32_t)v;
			break;
		}
		if (off == 0x00C) {
			m->irq_pending &= ~(uint32_t)v;
			break;
		}
		/* fall through: plain registers */
		/* FALLTHROUGH */
	default:
		if (size >= 4)
			gsp_mmio_set_word(dev, off, (uint32_t)v);
		else {
			unsigned sh = (unsigned)(off & 3) * 8;
			uint32_t mask = (uint32_t)(((1ull << (size * 8)) - 1) << sh);
			gsp_mmio_set_word(dev, off, (gsp_mmio_word(dev, off) & ~mask) | ((uint32_t)(v << sh) & mask));
		}
		break;
	}
}

uint64_t gsp_mmio_read(gsp_mmio *dev, uint64_t off, unsigned size)
{
	uint64_t v = mmio_model_read(dev, off, size);
	mmio_trace(dev, "R", off, size, v);
	return v;
}

void gsp_mmio_write(gsp_mmio *dev, uint64_t off, unsigned size, uint64_t v)
{
	mmio_trace(dev, "W", off, size, v);
	mmio_model_write(dev, off, size, v);
}

static uint64_t mmio_read_cb(uc_engine *uc, uint64_t off, unsigned size, void *user)
{
	(void)uc;
	return gsp_mmio_read(user, off, size);
}

static void mmio_write_cb(uc_engine *uc, uint64_t off, unsigned size, uint64_t v, void *user)
{
	(void)uc;
	gsp_mmio_write(user, off, size, v);
}

void cs_gsp_mmio_trace(cs_gsp *m, FILE *out)
{
	m->mmio_trace = out;
}

const char *cs_gsp_log_text(cs_gsp *m)
{
	return m->log->str;
}

uint64_t cs_gsp_host_irqs(cs_gsp *m)
{
	return m->host_irqs;
}

void cs_gsp_ring_doorbell(cs_gsp *m, unsigned queue)
{
	queue &= 7;
	for (size_t i = 0; i < m->nmmio; i++)
		if (m->mmio[i].r->model == CS_GSP_MODEL_DOORBELL) {
			uint64_t off = 0xC00 + 8 * queue;
			gsp_mmio_set_word(&m->mmio[i], off, gsp_mmio_word(&m->mmio[i], off) + 1);
		}
	m->irq_pending |= 1u << queue;
}

/* ---- creation ---- */

uint8_t *gsp_host_of(const cs_gsp *m, uint64_t addr, uint64_t len, uint32_t *perms)
{
	const cs_gsp_region *r = gsp_region_of(m, addr, len);
	if (!r || r->kind == CS_GSP_MMIO)
		return NULL;
	*perms = r->kind == CS_GSP_ROM ? (UC_PROT_READ | UC_PROT_EXEC) : UC_PROT_ALL;
	return (uint8_t *)m->host[r - m->map.region] + (addr - r->base);
}

const cs_gsp_region *gsp_region_of(const cs_gsp *m, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (addr >= r->base && addr - r->base < r->size && len <= r->size - (addr - r->base))
			return r;
	}
	return NULL;
}

/* ---- the unmodelled-access log (--mmio-log) ---- */

/* The instruction that made an access, from inside a memory callback (pc
 * there is the start of the block); 0 when not found. */
static uint64_t access_pc(cs_gsp *m, uint64_t addr, unsigned size, bool is_write)
{
	uint64_t pc;
	cs_rv_insn in;
	return gsp_find_access(m, gsp_block_pc(m), addr, size, is_write, &pc, &in) ? pc : 0;
}

/* "unmodelled <what> by 0x80001234 <sym+0x10>" */
void gsp_log_unmodelled(cs_gsp *m, const char *what, uint64_t pc)
{
	char sym[128];
	cs_gsp_symbolize(m, pc, sym, sizeof(sym));
	fprintf(m->unmodelled_log, "unmodelled %s by 0x%" PRIx64 " <%s>\n", what, pc, sym);
}

static void unmodelled_access(cs_gsp *m, bool is_write, uint64_t addr, unsigned size, uint64_t v)
{
	char what[96];
	snprintf(what, sizeof(what), "%s 0x%" PRIx64 " size %u = 0x%" PRIx64, is_write ? "write" : "read", addr, size, v);
	gsp_log_unmodelled(m, what, access_pc(m, addr, size, is_write));
}

static uint64_t unmodelled_read_cb(uc_engine *uc, uint64_t off, unsigned size, void *user)
{
	(void)uc;
	gsp_unmodelled_page *page = user;
	uint64_t addr = page->base + off;
	unmodelled_access(page->m, false, addr, size, 0);
	return 0;
}

static void unmodelled_write_cb(uc_engine *uc, uint64_t off, unsigned size, uint64_t v, void *user)
{
	(void)uc;
	gsp_unmodelled_page *page = user;
	uint64_t addr = page->base + off;
	unmodelled_access(page->m, true, addr, size, v);
}

/* With the log on, an access to unmapped memory maps its page as an
 * unmodelled device that logs and reads as zero, and the access goes on. */
static bool map_unmodelled_page(cs_gsp *m, uint64_t addr)
{
	if (!m->unmodelled_log || m->nunmodelled == GSP_UNMODELLED_PAGES_MAX)
		return false;
	gsp_unmodelled_page *page = &m->unmodelled[m->nunmodelled];
	page->m = m;
	page->base = addr & ~0xFFFull;
	if (uc_mmio_map(m->uc, page->base, 0x1000, unmodelled_read_cb, page, unmodelled_write_cb, page) != UC_ERR_OK)
		return false;
	m->nunmodelled++;
	return true;
}

void cs_gsp_unmodelled_log(cs_gsp *m, FILE *out)
{
	m->unmodelled_log = out;
}

static bool unmodelled_page_at(const cs_gsp *m, uint64_t addr)
{
	for (size_t i = 0; i < m->nunmodelled; i++)
		if (m->unmodelled[i].base == (addr & ~0xFFFull))
			return true;
	return false;
}

/* Whether the physical page of pa takes the access: a region of the map that
 * allows it, or a page --mmio-log made (or makes now) a logging device. */
static bool physical_takes(cs_gsp *m, uint64_t pa, gsp_access acc)
{
	const cs_gsp_region *r = gsp_region_of(m, pa, 1);
	if (r)
		return acc == GSP_ACCESS_FETCH ? r->kind != CS_GSP_MMIO : acc != GSP_ACCESS_WRITE || r->kind != CS_GSP_ROM;
	if (acc == GSP_ACCESS_FETCH || gsp_placeholder_at(m, pa))
		return false;
	return unmodelled_page_at(m, pa) || map_unmodelled_page(m, pa);
}

static bool refuse(cs_gsp *m, uc_mem_type type, uint64_t addr, int size, int64_t value, const char *why)
{
	m->bad_access.set = true;
	m->bad_access.type = type;
	m->bad_access.addr = addr;
	m->bad_access.size = (uint32_t)size;
	m->bad_access.value = (uint64_t)value;
	snprintf(m->bad_access.why, sizeof(m->bad_access.why), "%s", why);
	return false;
}

/* Maps the placeholder an access at unmapped va needs. A fetch has filled
 * Unicorn's TLB for va before the check, and mapping flushes that TLB under
 * the fetch (it would use the flushed entry): the run stops there instead,
 * and the run loop maps the page and starts again at the same block. */
static bool placeholder_for(cs_gsp *m, uint64_t va, gsp_access acc)
{
	if (acc != GSP_ACCESS_FETCH)
		return gsp_map_placeholder(m, va);
	m->placeholder_retry = true;
	m->placeholder_va = va;
	return false;
}

/* An access Unicorn found unmapped, or protected at a placeholder: with
 * paging on, the model's walk decides (paging.c). A page fault is left to
 * Unicorn's own walk, which raises it. */
static bool translated_access(cs_gsp *m, uc_mem_type type, uint64_t addr, int size, int64_t value,
			      bool placeholder, bool *handled)
{
	gsp_access acc = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT ? GSP_ACCESS_FETCH
			 : type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT ? GSP_ACCESS_WRITE
										      : GSP_ACCESS_READ;
	uint64_t pa;
	char why[96];
	switch (gsp_translate(m, addr, acc, &pa)) {
	case GSP_WALK_BARE:
		if (!placeholder)
			return false;
		snprintf(why, sizeof(why), "physical 0x%" PRIx64 " is not in the map", addr);
		*handled = refuse(m, type, addr, size, value, why);
		return true;
	case GSP_WALK_PAGE_FAULT:
		*handled = placeholder || placeholder_for(m, addr, acc);
		return true;
	case GSP_WALK_TABLE_UNMAPPED:
		snprintf(why, sizeof(why), "its page-table entry at 0x%" PRIx64 " is in no ram or rom region", pa);
		*handled = refuse(m, type, addr, size, value, why);
		return true;
	case GSP_WALK_MAPPED:
		if (physical_takes(m, pa, acc)) {
			*handled = placeholder || placeholder_for(m, addr, acc);
			return true;
		}
		snprintf(why, sizeof(why), "physical 0x%" PRIx64 " %s", pa,
			 gsp_region_of(m, pa, 1) ? "does not allow it" : "is not in the map");
		*handled = refuse(m, type, addr, size, value, why);
		return true;
	}
	return false;
}

/* Records an access to unmapped or protected memory for the run loop; the
 * access is not handled, so Unicorn ends the run. */
static bool bad_access_cb(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user)
{
	(void)uc;
	cs_gsp *m = user;
	bool unmapped = type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_FETCH_UNMAPPED;
	bool handled;
	if ((unmapped || gsp_placeholder_at(m, addr)) &&
	    translated_access(m, type, addr, size, value, !unmapped, &handled))
		return handled;
	if ((type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED) && map_unmodelled_page(m, addr))
		return true;
	return refuse(m, type, addr, size, value, "");
}

static void intr_cb(uc_engine *uc, uint32_t intno, void *user)
{
	cs_gsp *m = user;
	m->trap_pending = true;
	m->trap_intno = intno;
	/* now: with paging on, uc_emu_start's cleanup after the run translates
	 * its exit address and a failing translation overwrites badaddr */
	m->trap_badaddr = fault_address(m);
	uc_emu_stop(uc);
}

cs_status cs_gsp_create(const cs_gsp_map *map, const cs_gsp_image *img, cs_gsp **out, cs_diag *d)
{
	*out = NULL;
	cs_gsp *m = calloc(1, sizeof(*m));
	if (!m)
		return CS_ERR_NOMEM;
	m->map = *map;
	m->img = img;
	m->next_id = 1;
	m->guard_ms = 10000;
	m->log = g_string_new(NULL);
	m->logline = g_string_new(NULL);
	m->snaps = g_ptr_array_new();
	atomic_init(&m->interrupt_req, 0);
	uc_err e = uc_open(UC_ARCH_RISCV, UC_MODE_RISCV64, &m->uc);
	if (e != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_UNAVAILABLE, "unicorn: %s", uc_strerror(e));
		cs_gsp_destroy(m);
		return CS_ERR_UNAVAILABLE;
	}
	size_t nmmio = 0;
	for (size_t i = 0; i < map->count; i++)
		nmmio += map->region[i].kind == CS_GSP_MMIO;
	m->mmio = calloc(nmmio ? nmmio : 1, sizeof(*m->mmio));
	if (!m->mmio) {
		cs_gsp_destroy(m);
		return CS_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (r->base <= PAD_PAGE + 0xFFF && PAD_PAGE < r->base + r->size) {
			cs_diag_set(d, CS_ERR_INPUT, "region '%s' overlaps the debugger's return page 0x%llx",
				    r->name, (unsigned long long)PAD_PAGE);
			cs_gsp_destroy(m);
			return CS_ERR_INPUT;
		}
		if (r->kind == CS_GSP_MMIO) {
			gsp_mmio *dev = &m->mmio[m->nmmio++];
			dev->m = m;
			dev->r = r;
			dev->regs = g_hash_table_new(g_direct_hash, g_direct_equal);
			e = uc_mmio_map(m->uc, r->base, r->size, mmio_read_cb, dev, mmio_write_cb, dev);
		} else {
			/* the model holds the memory, so that a second mapping of it can
			 * be made (the MPU model's, mpu.c) */
			uint32_t perms = r->kind == CS_GSP_ROM ? (UC_PROT_READ | UC_PROT_EXEC) : UC_PROT_ALL;
			void *host = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
					  -1, 0);
			if (host == MAP_FAILED) {
				cs_diag_set(d, CS_ERR_NOMEM, "region '%s': cannot reserve 0x%" PRIx64 " bytes", r->name, r->size);
				cs_gsp_destroy(m);
				return CS_ERR_NOMEM;
			}
			m->host[i] = host;
			e = uc_mem_map_ptr(m->uc, r->base, r->size, perms, host);
		}
		if (e != UC_ERR_OK) {
			cs_diag_set(d, CS_ERR_INPUT, "region '%s' at 0x%" PRIx64 ": unicorn: %s", r->name,
				    r->base, uc_strerror(e));
			cs_gsp_destroy(m);
			return CS_ERR_INPUT;
		}
	}
	m->pad = PAD_PAGE;
	e = uc_mem_map(m->uc, PAD_PAGE, 0x1000, UC_PROT_READ | UC_PROT_EXEC);
	uint32_t ebreak = GSP_INSN_EBREAK;
	if (e == UC_ERR_OK)
		e = uc_mem_write(m->uc, PAD_PAGE, &ebreak, 4);
	if (e != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "return page: unicorn: %s", uc_strerror(e));
		cs_gsp_destroy(m);
		return CS_ERR_INTERNAL;
	}
	cs_status loaded = img ? cs_gsp_load(m, img, d) : CS_OK;
	if (loaded != CS_OK) {
		cs_gsp_destroy(m);
		return loaded;
	}
	if (uc_hook_add(m->uc, &m->intr_hook, UC_HOOK_INTR, GSP_CB(intr_cb), m, 1, 0) != UC_ERR_OK ||
	    uc_hook_add(m->uc, &m->bad_access_hook, UC_HOOK_MEM_INVALID, GSP_CB(bad_access_cb), m, 1, 0) != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot add the interrupt and bad-access hooks");
		cs_gsp_destroy(m);
		return CS_ERR_INTERNAL;
	}
	/* floating point usable from the start (mstatus.FS = initial) */
	gsp_set_reg(m, UC_RISCV_REG_MSTATUS, 1ull << 13);
	cs_status layout = cpu_state_layout(m, d);
	if (layout != CS_OK) {
		cs_gsp_destroy(m);
		return layout;
	}
	uint64_t entry = img ? img->entry : (m->map.count ? m->map.region[0].base : 0);
	gsp_set_reg(m, UC_RISCV_REG_PC, entry);
	*out = m;
	return CS_OK;
}

/* Whether [addr, addr + len) overlaps a segment of an image already loaded. */
static const cs_gsp_image *loaded_at(const cs_gsp *m, uint64_t addr, uint64_t len)
{
	for (size_t k = 0; k < m->nimages; k++)
		for (size_t i = 0; i < m->images[k]->nseg; i++) {
			const cs_gsp_segment *s = &m->images[k]->seg[i];
			if (addr < s->addr + s->memsz && s->addr < addr + len)
				return m->images[k];
		}
	return NULL;
}

cs_status cs_gsp_load(cs_gsp *m, const cs_gsp_image *img, cs_diag *d)
{
	if (m->nimages == CS_GSP_IMAGES_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "%d images are the most one machine holds", CS_GSP_IMAGES_MAX);
		return CS_ERR_INPUT;
	}
	for (size_t i = 0; i < img->nseg; i++) {
		const cs_gsp_segment *s = &img->seg[i];
		const cs_gsp_region *r = gsp_region_of(m, s->addr, s->memsz);
		if (!r || r->kind == CS_GSP_MMIO) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "segment %zu [0x%" PRIx64 ", 0x%" PRIx64 ") is not inside one ram/rom region of the map",
				    i, s->addr, s->addr + s->memsz);
			return CS_ERR_INPUT;
		}
		if (loaded_at(m, s->addr, s->memsz)) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "segment %zu [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps an image loaded before it",
				    i, s->addr, s->addr + s->memsz);
			return CS_ERR_INPUT;
		}
	}
	for (size_t i = 0; i < img->nseg; i++)
		if (img->seg[i].filesz)
			uc_mem_write(m->uc, img->seg[i].addr, img->seg[i].data, img->seg[i].filesz);
	m->images[m->nimages++] = img;
	return CS_OK;
}

void cs_gsp_destroy(cs_gsp *m)
{
	if (!m)
		return;
	gsp_snapshots_free(m);
	if (m->cpu_state)
		uc_context_free(m->cpu_state);
	if (m->uc)
		uc_close(m->uc);
	for (size_t i = 0; i < m->map.count; i++)
		if (m->host[i])
			munmap(m->host[i], m->map.region[i].size);
	for (size_t i = 0; i < m->nmmio; i++)
		g_hash_table_destroy(m->mmio[i].regs);
	free(m->mmio);
	if (m->placeholders)
		g_hash_table_destroy(m->placeholders);
	if (m->log)
		g_string_free(m->log, TRUE);
	if (m->logline)
		g_string_free(m->logline, TRUE);
	free(m);
}

void cs_gsp_set_guard_ms(cs_gsp *m, uint64_t ms)
{
	m->guard_ms = ms;
}

void cs_gsp_interrupt(cs_gsp *m)
{
	atomic_store(&m->interrupt_req, 1);
	uc_emu_stop(m->uc);
}

/* ---- registers ---- */

static const struct {
	const char *name;
	uint32_t csr;
	int uc;
} csr_regs[] = {
	{ "fflags", 0x001, UC_RISCV_REG_FFLAGS },     { "frm", 0x002, UC_RISCV_REG_FRM },
	{ "fcsr", 0x003, UC_RISCV_REG_FCSR },         { "sstatus", 0x100, UC_RISCV_REG_SSTATUS },
	{ "sie", 0x104, UC_RISCV_REG_SIE },           { "stvec", 0x105, UC_RISCV_REG_STVEC },
	{ "scounteren", 0x106, UC_RISCV_REG_SCOUNTEREN }, { "sscratch", 0x140, UC_RISCV_REG_SSCRATCH },
	{ "sepc", 0x141, UC_RISCV_REG_SEPC },         { "scause", 0x142, UC_RISCV_REG_SCAUSE },
	{ "stval", 0x143, UC_RISCV_REG_STVAL },       { "sip", 0x144, UC_RISCV_REG_SIP },
	{ "satp", 0x180, UC_RISCV_REG_SATP },         { "mstatus", 0x300, UC_RISCV_REG_MSTATUS },
	{ "misa", 0x301, UC_RISCV_REG_MISA },         { "medeleg", 0x302, UC_RISCV_REG_MEDELEG },
	{ "mideleg", 0x303, UC_RISCV_REG_MIDELEG },   { "mie", 0x304, UC_RISCV_REG_MIE },
	{ "mtvec", 0x305, UC_RISCV_REG_MTVEC },       { "mcounteren", 0x306, UC_RISCV_REG_MCOUNTEREN },
	{ "mscratch", 0x340, UC_RISCV_REG_MSCRATCH }, { "mepc", 0x341, UC_RISCV_REG_MEPC },
	{ "mcause", 0x342, UC_RISCV_REG_MCAUSE },     { "mtval", 0x343, UC_RISCV_REG_MTVAL },
	{ "mip", 0x344, UC_RISCV_REG_MIP },           { "mhartid", 0xf14, UC_RISCV_REG_MHARTID },
};

static int uc_reg_of(unsigned regno)
{
	if (regno < 32)
		return UC_RISCV_REG_X0 + (int)regno;
	if (regno == CS_GSP_REG_PC)
		return UC_RISCV_REG_PC;
	if (regno >= CS_GSP_REG_F0 && regno < CS_GSP_REG_F0 + 32)
		return UC_RISCV_REG_F0 + (int)(regno - CS_GSP_REG_F0);
	if (regno >= CS_GSP_REG_CSR0)
		for (size_t i = 0; i < sizeof(csr_regs) / sizeof(csr_regs[0]); i++)
			if (csr_regs[i].csr == regno - CS_GSP_REG_CSR0)
				return csr_regs[i].uc;
	return -1;
}

const char *cs_gsp_reg_name(unsigned regno)
{
	if (regno == CS_GSP_REG_PRIV)
		return "priv";
	if (regno < 32)
		return gsp_xreg[regno];
	if (regno == CS_GSP_REG_PC)
		return "pc";
	if (regno >= CS_GSP_REG_F0 && regno < CS_GSP_REG_F0 + 32)
		return gsp_freg[regno - CS_GSP_REG_F0];
	for (size_t i = 0; i < sizeof(csr_regs) / sizeof(csr_regs[0]); i++)
		if (regno == CS_GSP_REG_CSR0 + csr_regs[i].csr)
			return csr_regs[i].name;
	return NULL;
}

bool cs_gsp_reg_lookup(const char *name, unsigned *regno)
{
	if (name[0] == '$')
		name++;
	if (!strcmp(name, "pc")) {
		*regno = CS_GSP_REG_PC;
		return true;
	}
	if (!strcmp(name, "fp")) {
		*regno = 8;
		return true;
	}
	if (!strcmp(name, "priv")) {
		*regno = CS_GSP_REG_PRIV;
		return true;
	}
	for (unsigned i = 0; i < 32; i++) {
		char xn[8], fn[8];
		snprintf(xn, sizeof(xn), "x%u", i);
		snprintf(fn, sizeof(fn), "f%u", i);
		if (!strcmp(name, gsp_xreg[i]) || !strcmp(name, xn)) {
			*regno = i;
			return true;
		}
		if (!strcmp(name, gsp_freg[i]) || !strcmp(name, fn)) {
			*regno = CS_GSP_REG_F0 + i;
			return true;
		}
	}
	for (size_t i = 0; i < sizeof(csr_regs) / sizeof(csr_regs[0]); i++)
		if (!strcmp(name, csr_regs[i].name)) {
			*regno = CS_GSP_REG_CSR0 + csr_regs[i].csr;
			return true;
		}
	return false;
}

cs_status cs_gsp_reg_read(cs_gsp *m, unsigned regno, uint64_t *v, cs_diag *d)
{
	int r = uc_reg_of(regno);
	*v = 0;
	if (regno == CS_GSP_REG_PRIV) {
		*v = gsp_priv(m);
		return CS_OK;
	}
	if (r < 0) {
		cs_diag_set(d, CS_ERR_INPUT, "no register number %u", regno);
		return CS_ERR_INPUT;
	}
	if (regno >= CS_GSP_REG_CSR0) {
		*v = gsp_csr(m, r);
		return CS_OK;
	}
	if (uc_reg_read(m->uc, r, v) != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "register %u unreadable", regno);
		return CS_ERR_INTERNAL;
	}
	return CS_OK;
}

cs_status cs_gsp_reg_write(cs_gsp *m, unsigned regno, uint64_t v, cs_diag *d)
{
	int r = uc_reg_of(regno);
	if (regno == CS_GSP_REG_PRIV) {
		if (v != GSP_PRIV_U && v != GSP_PRIV_S && v != GSP_PRIV_M) {
			cs_diag_set(d, CS_ERR_INPUT, "privilege level %" PRIu64 " (0 U, 1 S, 3 M)", v);
			return CS_ERR_INPUT;
		}
		gsp_set_priv(m, (unsigned)v);
		return CS_OK;
	}
	if (r < 0) {
		cs_diag_set(d, CS_ERR_INPUT, "no register number %u", regno);
		return CS_ERR_INPUT;
	}
	if (regno == 0)
		return CS_OK;
	if (regno >= CS_GSP_REG_CSR0) {
		gsp_set_csr(m, r, v);
		return CS_OK;
	}
	if (uc_reg_write(m->uc, r, &v) != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "register %u not writable", regno);
		return CS_ERR_INTERNAL;
	}
	return CS_OK;
}

/* ---- memory ---- */

gsp_mmio *gsp_mmio_of(cs_gsp *m, const cs_gsp_region *r)
{
	for (size_t i = 0; i < m->nmmio; i++)
		if (m->mmio[i].r == r)
			return &m->mmio[i];
	return NULL;
}

static cs_status mem_access(cs_gsp *m, uint64_t addr, void *buf, size_t len, bool write, cs_diag *d)
{
	if (len == 0)
		return CS_OK;
	if (addr + len < addr) {
		cs_diag_set(d, CS_ERR_INPUT, "0x%" PRIx64 " + %zu wraps the address space", addr, len);
		return CS_ERR_INPUT;
	}
	uint8_t *p = buf;
	while (len) {
		const cs_gsp_region *r = gsp_region_of(m, addr, 1);
		if (!r) {
			cs_diag_set(d, CS_ERR_FAULT, "0x%" PRIx64 " is not mapped", addr);
			return CS_ERR_FAULT;
		}
		size_t n = (size_t)MIN((uint64_t)len, r->base + r->size - addr);
		if (r->kind == CS_GSP_MMIO) {
			gsp_mmio *dev = gsp_mmio_of(m, r);
			for (size_t i = 0; i < n; i++) {
				uint64_t off = addr - r->base + i;
				if (write)
					mmio_model_write(dev, off, 1, p[i]);
				else
					p[i] = (uint8_t)mmio_model_read(dev, off, 1);
			}
		} else {
			uc_err e = write ? uc_mem_write(m->uc, addr, p, n) : uc_mem_read(m->uc, addr, p, n);
			if (e != UC_ERR_OK) {
				cs_diag_set(d, CS_ERR_FAULT, "0x%" PRIx64 ": %s", addr, uc_strerror(e));
				return CS_ERR_FAULT;
			}
		}
		addr += n;
		p += n;
		len -= n;
	}
	return CS_OK;
}

cs_status cs_gsp_mem_read(cs_gsp *m, uint64_t addr, void *buf, size_t len, cs_diag *d)
{
	return mem_access(m, addr, buf, len, false, d);
}

cs_status cs_gsp_mem_write(cs_gsp *m, uint64_t addr, const void *buf, size_t len, cs_diag *d)
{
	return mem_access(m, addr, (void *)(uintptr_t)buf, len, true, d);
}

/* ---- symbols ---- */

void cs_gsp_symbolize(cs_gsp *m, uint64_t addr, char *buf, size_t len)
{
	const cs_gsp_symbol *s = NULL;
	for (size_t k = 0; !s && k < m->nimages; k++)
		s = cs_gsp_image_symbolize(m->images[k], addr);
	if (!s)
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
}
