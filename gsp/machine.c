/* The GSP machine on Unicorn 2.0.1: regions, MMIO models, trap entry and the
 * run loop with ranged breakpoint and watchpoint hooks (the Unicorn
 * 2.0.1 behaviour measured in gsp/README.md and docs/gsp.md). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gsp_internal.h"

#define PAD_PAGE 0xFFFFFFFFFFFFE000ull
#define INSN_WFI 0x10500073u
#define INSN_EBREAK 0x00100073u
#define INSN_CEBREAK 0x9002u
#define MSTATUS_SIE (1ull << 1)
#define MSTATUS_MIE (1ull << 3)
#define MSTATUS_SPIE (1ull << 5)
#define MSTATUS_MPIE (1ull << 7)
#define MSTATUS_SPP (1ull << 8)
#define MSTATUS_MPP_SHIFT 11
#define MSTATUS_MPP (3ull << MSTATUS_MPP_SHIFT)
#define MIE_MEIE (1ull << 11)
#define CAUSE_INTERRUPT (1ull << 63)

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
static uint64_t reservation_value(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	return state_word(m, m->reservation_offset + (STATE_LOAD_VAL - STATE_LOAD_RES));
}

static void reservation_clear(cs_gsp *m)
{
	uc_context_save(m->uc, m->cpu_state);
	uint64_t none = UINT64_MAX;
	memcpy((uint8_t *)m->cpu_state + m->reservation_offset, &none, sizeof(none));
	uc_context_restore(m->uc, m->cpu_state);
}

/* Raises the hart to M for host CSR access; returns the mode to go back to. */
static unsigned priv_raise(cs_gsp *m)
{
	unsigned was = gsp_priv(m);
	if (was != GSP_PRIV_M)
		gsp_set_priv(m, GSP_PRIV_M);
	return was;
}

static void priv_lower(cs_gsp *m, unsigned was)
{
	if (was != GSP_PRIV_M)
		gsp_set_priv(m, was);
}

uint64_t gsp_csr(cs_gsp *m, int ucreg)
{
	unsigned was = priv_raise(m);
	uint64_t v = gsp_reg(m, ucreg);
	priv_lower(m, was);
	return v;
}

void gsp_set_csr(cs_gsp *m, int ucreg, uint64_t v)
{
	unsigned was = priv_raise(m);
	gsp_set_reg(m, ucreg, v);
	priv_lower(m, was);
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
static void drop_translations(cs_gsp *m, uint64_t addr, uint64_t len)
{
	/* at M the code address is the physical one Unicorn looks up */
	unsigned was = priv_raise(m);
	uc_ctl_remove_cache(m->uc, addr, addr + len);
	priv_lower(m, was);
}

static void drop_code_translations(cs_gsp *m)
{
	unsigned was = priv_raise(m);
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (r->kind != CS_GSP_MMIO)
			uc_ctl_remove_cache(m->uc, r->base, r->base + r->size);
	}
	priv_lower(m, was);
}

void gsp_mem_hook_added(cs_gsp *m)
{
	if (m->mem_hooks++ == 0)
		drop_code_translations(m);
}

void gsp_mem_hook_removed(cs_gsp *m)
{
	if (--m->mem_hooks == 0)
		drop_code_translations(m);
}

uint64_t cs_gsp_pc(cs_gsp *m)
{
	return gsp_reg(m, UC_RISCV_REG_PC);
}

const cs_gsp_image *cs_gsp_image_of(const cs_gsp *m)
{
	return m->img;
}

const cs_gsp_map *cs_gsp_map_of(const cs_gsp *m)
{
	return &m->map;
}

/* ---- MMIO models ---- */

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
		else if (off / 4 < GSP_MMIO_WORDS)
			v = dev->regs[off / 4];
		break;
	default:
		if (off / 4 < GSP_MMIO_WORDS)
			v = dev->regs[off / 4];
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
		if (off / 4 < GSP_MMIO_WORDS) {
			if (size >= 4)
				dev->regs[off / 4] = (uint32_t)v;
			else {
				unsigned sh = (unsigned)(off & 3) * 8;
				uint32_t mask = (uint32_t)(((1ull << (size * 8)) - 1) << sh);
				dev->regs[off / 4] = (dev->regs[off / 4] & ~mask) | ((uint32_t)(v << sh) & mask);
			}
		}
		break;
	}
}

static uint64_t mmio_read_cb(uc_engine *uc, uint64_t off, unsigned size, void *user)
{
	(void)uc;
	gsp_mmio *dev = user;
	uint64_t v = mmio_model_read(dev, off, size);
	mmio_trace(dev, "R", off, size, v);
	return v;
}

static void mmio_write_cb(uc_engine *uc, uint64_t off, unsigned size, uint64_t v, void *user)
{
	(void)uc;
	gsp_mmio *dev = user;
	mmio_trace(dev, "W", off, size, v);
	mmio_model_write(dev, off, size, v);
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
		if (m->mmio[i].r->model == CS_GSP_MODEL_DOORBELL)
			m->mmio[i].regs[(0xC00 + 8 * queue) / 4]++;
	m->irq_pending |= 1u << queue;
}

/* ---- creation ---- */

static const cs_gsp_region *region_of(const cs_gsp *m, uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (addr >= r->base && addr - r->base < r->size && len <= r->size - (addr - r->base))
			return r;
	}
	return NULL;
}

static bool find_access(cs_gsp *m, uint64_t block_pc, uint64_t addr, uint32_t size, bool is_write,
			uint64_t *insn_pc, cs_rv_insn *in);

/* ---- the unmodelled-access log (--mmio-log) ---- */

/* The instruction that made an access, from inside a memory callback (pc
 * there is the start of the block); 0 when not found. */
static uint64_t access_pc(cs_gsp *m, uint64_t addr, unsigned size, bool is_write)
{
	uint64_t pc;
	cs_rv_insn in;
	return find_access(m, cs_gsp_pc(m), addr, size, is_write, &pc, &in) ? pc : 0;
}

/* "unmodelled <what> by 0x80001234 <sym+0x10>" */
static void unmodelled_log(cs_gsp *m, const char *what, uint64_t pc)
{
	char sym[128];
	cs_gsp_symbolize(m, pc, sym, sizeof(sym));
	fprintf(m->unmodelled_log, "unmodelled %s by 0x%" PRIx64 " <%s>\n", what, pc, sym);
}

static void unmodelled_access(cs_gsp *m, bool is_write, uint64_t addr, unsigned size, uint64_t v)
{
	char what[96];
	snprintf(what, sizeof(what), "%s 0x%" PRIx64 " size %u = 0x%" PRIx64, is_write ? "write" : "read", addr, size, v);
	unmodelled_log(m, what, access_pc(m, addr, size, is_write));
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

/* Records an access to unmapped or protected memory for the run loop; the
 * access is not handled, so Unicorn ends the run. */
static bool bad_access_cb(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user)
{
	(void)uc;
	cs_gsp *m = user;
	if ((type == UC_MEM_READ_UNMAPPED || type == UC_MEM_WRITE_UNMAPPED) && map_unmodelled_page(m, addr))
		return true;
	m->bad_access.set = true;
	m->bad_access.type = type;
	m->bad_access.addr = addr;
	m->bad_access.size = (uint32_t)size;
	m->bad_access.value = (uint64_t)value;
	return false;
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
			e = uc_mmio_map(m->uc, r->base, r->size, mmio_read_cb, dev, mmio_write_cb, dev);
		} else {
			uint32_t perms = r->kind == CS_GSP_ROM ? (UC_PROT_READ | UC_PROT_EXEC) : UC_PROT_ALL;
			e = uc_mem_map(m->uc, r->base, r->size, perms);
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
	uint32_t ebreak = INSN_EBREAK;
	if (e == UC_ERR_OK)
		e = uc_mem_write(m->uc, PAD_PAGE, &ebreak, 4);
	if (e != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "return page: unicorn: %s", uc_strerror(e));
		cs_gsp_destroy(m);
		return CS_ERR_INTERNAL;
	}
	for (size_t i = 0; img && i < img->nseg; i++) {
		const cs_gsp_segment *s = &img->seg[i];
		const cs_gsp_region *r = region_of(m, s->addr, s->memsz);
		if (!r || r->kind == CS_GSP_MMIO) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "segment %zu [0x%" PRIx64 ", 0x%" PRIx64 ") is not inside one ram/rom region of the map",
				    i, s->addr, s->addr + s->memsz);
			cs_gsp_destroy(m);
			return CS_ERR_INPUT;
		}
		if (s->filesz)
			uc_mem_write(m->uc, s->addr, s->data, s->filesz);
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

static void snapshot_free(gsp_snapshot *s, const cs_gsp *m)
{
	if (!s)
		return;
	if (s->ctx)
		uc_context_free(s->ctx);
	for (size_t i = 0; s->mem && i < m->map.count; i++)
		free(s->mem[i]);
	free(s->mem);
	free(s->mmio);
	free(s);
}

void cs_gsp_destroy(cs_gsp *m)
{
	if (!m)
		return;
	if (m->snaps) {
		for (guint i = 0; i < m->snaps->len; i++)
			snapshot_free(g_ptr_array_index(m->snaps, i), m);
		g_ptr_array_free(m->snaps, TRUE);
	}
	if (m->cpu_state)
		uc_context_free(m->cpu_state);
	if (m->uc)
		uc_close(m->uc);
	free(m->mmio);
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

static const char *const abi_names[32] = {
	"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
	"a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
};
static const char *const fabi_names[32] = {
	"ft0", "ft1", "ft2", "ft3", "ft4", "ft5", "ft6", "ft7", "fs0", "fs1", "fa0", "fa1", "fa2", "fa3",
	"fa4", "fa5", "fa6", "fa7", "fs2", "fs3", "fs4", "fs5", "fs6", "fs7", "fs8", "fs9", "fs10", "fs11",
	"ft8", "ft9", "ft10", "ft11",
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
		return abi_names[regno];
	if (regno == CS_GSP_REG_PC)
		return "pc";
	if (regno >= CS_GSP_REG_F0 && regno < CS_GSP_REG_F0 + 32)
		return fabi_names[regno - CS_GSP_REG_F0];
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
		if (!strcmp(name, abi_names[i]) || !strcmp(name, xn)) {
			*regno = i;
			return true;
		}
		if (!strcmp(name, fabi_names[i]) || !strcmp(name, fn)) {
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

static gsp_mmio *mmio_of(cs_gsp *m, const cs_gsp_region *r)
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
		const cs_gsp_region *r = region_of(m, addr, 1);
		if (!r) {
			cs_diag_set(d, CS_ERR_FAULT, "0x%" PRIx64 " is not mapped", addr);
			return CS_ERR_FAULT;
		}
		size_t n = (size_t)MIN((uint64_t)len, r->base + r->size - addr);
		if (r->kind == CS_GSP_MMIO) {
			gsp_mmio *dev = mmio_of(m, r);
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

/* ---- breakpoints and watchpoints ---- */

static void bp_cb(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	(void)size;
	gsp_hookctx *c = user;
	cs_gsp *m = c->m;
	gsp_point *p = &m->pt[c->slot];
	if (!p->used)
		return;
	if (m->skip_armed && addr == m->skip_pc) {
		m->skip_armed = false;
		return;
	}
	if (m->hit.set)
		return;
	p->hits++;
	m->hit.set = true;
	m->hit.from_mem = false;
	m->hit.reason = CS_GSP_STOP_BREAK;
	m->hit.id = p->id;
	m->hit.addr = addr;
	uc_emu_stop(uc);
}

void gsp_hit_from_mem(cs_gsp *m, cs_gsp_stop_reason reason, int id, uint64_t addr, int size,
		      bool is_write, int64_t value)
{
	m->hit.set = true;
	m->hit.from_mem = true;
	m->hit.reason = reason;
	m->hit.id = id;
	m->hit.addr = addr;
	m->hit.size = (uint32_t)size;
	m->hit.is_write = is_write;
	m->hit.value = (uint64_t)value;
	m->hit.old_value = 0;
	if (is_write && size > 0 && size <= 8)
		uc_mem_read(m->uc, addr, &m->hit.old_value, (size_t)size);
	uc_emu_stop(m->uc);
}

static void wp_cb(uc_engine *uc, uc_mem_type type, uint64_t addr, int size, int64_t value, void *user)
{
	(void)uc;
	gsp_hookctx *c = user;
	cs_gsp *m = c->m;
	gsp_point *p = &m->pt[c->slot];
	bool is_write = type == UC_MEM_WRITE;
	if (!p->used || m->watch_suppress || (m->watch_reads_suppressed && !is_write) || m->hit.set)
		return;
	if (is_write && !(p->kind & CS_GSP_WATCH_WRITE))
		return;
	if (!is_write && !(p->kind & CS_GSP_WATCH_READ))
		return;
	if (!is_write && size > 0 && size <= 8) {
		value = 0;
		uc_mem_read(m->uc, addr, &value, (size_t)size);
	}
	p->hits++;
	gsp_hit_from_mem(m, CS_GSP_STOP_WATCH, p->id, addr, size, is_write, value);
}

static int free_slot(cs_gsp *m, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (!m->pt[i].used)
			return i;
	cs_diag_set(d, CS_ERR_INPUT, "more than %d breakpoints and watchpoints", GSP_POINTS_MAX);
	return -1;
}

static cs_status point_add(cs_gsp *m, bool watch, uint64_t addr, uint64_t len,
			   cs_gsp_watch_kind kind, bool temporary, bool internal, int *id, cs_diag *d)
{
	int slot = free_slot(m, d);
	if (slot < 0)
		return CS_ERR_INPUT;
	if (len == 0 || addr + len - 1 < addr) {
		cs_diag_set(d, CS_ERR_INPUT, "range 0x%" PRIx64 " + %" PRIu64 " is empty or wraps", addr, len);
		return CS_ERR_INPUT;
	}
	gsp_hookctx *c = &m->hctx[slot];
	c->m = m;
	c->slot = slot;
	gsp_point *p = &m->pt[slot];
	memset(p, 0, sizeof(*p));
	uc_err e;
	if (watch) {
		int types = 0;
		if (kind & CS_GSP_WATCH_WRITE)
			types |= UC_HOOK_MEM_WRITE;
		if (kind & CS_GSP_WATCH_READ)
			types |= UC_HOOK_MEM_READ;
		e = uc_hook_add(m->uc, &p->hook, types, GSP_CB(wp_cb), c, addr, addr + len - 1);
	} else {
		e = uc_hook_add(m->uc, &p->hook, UC_HOOK_CODE, GSP_CB(bp_cb), c, addr, addr);
	}
	if (e != UC_ERR_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "unicorn hook: %s", uc_strerror(e));
		return CS_ERR_INTERNAL;
	}
	if (watch)
		gsp_mem_hook_added(m);
	else
		drop_translations(m, addr, 1);
	p->used = true;
	p->is_watch = watch;
	p->temporary = temporary;
	p->internal = internal;
	p->id = internal ? -(slot + 1) : m->next_id++;
	p->addr = addr;
	p->len = len;
	p->kind = kind;
	if (id)
		*id = p->id;
	return CS_OK;
}

static void point_free(cs_gsp *m, gsp_point *p)
{
	uc_hook_del(m->uc, p->hook);
	p->used = false;
	if (p->is_watch)
		gsp_mem_hook_removed(m);
	else
		drop_translations(m, p->addr, 1);
}

cs_status cs_gsp_break_add(cs_gsp *m, uint64_t addr, bool temporary, int *id, cs_diag *d)
{
	return point_add(m, false, addr, 1, 0, temporary, false, id, d);
}

cs_status cs_gsp_watch_add(cs_gsp *m, uint64_t addr, uint64_t len, cs_gsp_watch_kind kind, int *id,
			   cs_diag *d)
{
	return point_add(m, true, addr, len, kind, false, false, id, d);
}

bool gsp_point_by_gdb(const cs_gsp *m, int id)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id)
			return m->pt[i].by_gdb;
	return false;
}

cs_status cs_gsp_point_delete(cs_gsp *m, int id, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].id == id) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no breakpoint or watchpoint %d", id);
	return CS_ERR_INPUT;
}

void cs_gsp_point_delete_all(cs_gsp *m)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && !m->pt[i].internal)
			point_free(m, &m->pt[i]);
}

cs_status cs_gsp_break_remove_at(cs_gsp *m, uint64_t addr, cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && !m->pt[i].is_watch && !m->pt[i].internal && m->pt[i].addr == addr) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no breakpoint at 0x%" PRIx64, addr);
	return CS_ERR_INPUT;
}

cs_status cs_gsp_watch_remove_at(cs_gsp *m, uint64_t addr, uint64_t len, cs_gsp_watch_kind kind,
				 cs_diag *d)
{
	for (int i = 0; i < GSP_POINTS_MAX; i++)
		if (m->pt[i].used && m->pt[i].is_watch && m->pt[i].addr == addr && m->pt[i].len == len &&
		    m->pt[i].kind == kind) {
			point_free(m, &m->pt[i]);
			return CS_OK;
		}
	cs_diag_set(d, CS_ERR_INPUT, "no watchpoint at 0x%" PRIx64, addr);
	return CS_ERR_INPUT;
}

void cs_gsp_points_print(cs_gsp *m, FILE *out)
{
	int n = 0;
	for (int i = 0; i < GSP_POINTS_MAX; i++) {
		gsp_point *p = &m->pt[i];
		if (!p->used || p->internal)
			continue;
		char sym[128];
		cs_gsp_symbolize(m, p->addr, sym, sizeof(sym));
		if (p->is_watch) {
			static const char *const k[4] = { "", "watch", "rwatch", "awatch" };
			fprintf(out, "%-3d %-7s 0x%" PRIx64 " len %" PRIu64 " <%s> hits %" PRIu64 "\n", p->id,
				k[p->kind], p->addr, p->len, sym, p->hits);
		} else
			fprintf(out, "%-3d %-7s 0x%" PRIx64 " <%s> hits %" PRIu64 "\n", p->id,
				p->temporary ? "tbreak" : "break", p->addr, sym, p->hits);
		n++;
	}
	if (!n)
		fprintf(out, "no breakpoints or watchpoints\n");
}

/* ---- symbols ---- */

void cs_gsp_symbolize(cs_gsp *m, uint64_t addr, char *buf, size_t len)
{
	const cs_gsp_symbol *s = cs_gsp_image_symbolize(m->img, addr);
	if (!s)
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (addr == s->addr)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
}

/* ---- traps and interrupts ---- */

/* Takes a trap as the privileged spec says: to S when the hart is in U or S
 * and medeleg/mideleg delegates the cause, else to M; xEPC, xCAUSE, xTVAL;
 * xPP from the mode the trap came from, xPIE from xIE, xIE cleared; pc to
 * the vector (vectored mode for interrupts). False, with nothing changed,
 * when the vector is 0: the firmware has no handler yet. */
static bool trap_enter(cs_gsp *m, uint64_t cause, uint64_t epc, uint64_t tval)
{
	unsigned from = priv_raise(m);
	bool interrupt = cause & CAUSE_INTERRUPT;
	uint64_t code = cause & ~CAUSE_INTERRUPT;
	uint64_t deleg = gsp_reg(m, interrupt ? UC_RISCV_REG_MIDELEG : UC_RISCV_REG_MEDELEG);
	bool to_s = from != GSP_PRIV_M && code < 64 && ((deleg >> code) & 1);
	uint64_t tvec = gsp_reg(m, to_s ? UC_RISCV_REG_STVEC : UC_RISCV_REG_MTVEC);
	if (tvec == 0) {
		priv_lower(m, from);
		return false;
	}
	uint64_t ms = gsp_reg(m, UC_RISCV_REG_MSTATUS);
	if (to_s) {
		ms = (ms & ~(MSTATUS_SPIE | MSTATUS_SPP | MSTATUS_SIE)) | ((ms & MSTATUS_SIE) ? MSTATUS_SPIE : 0) |
		     (from == GSP_PRIV_S ? MSTATUS_SPP : 0);
		gsp_set_reg(m, UC_RISCV_REG_SEPC, epc);
		gsp_set_reg(m, UC_RISCV_REG_SCAUSE, cause);
		gsp_set_reg(m, UC_RISCV_REG_STVAL, tval);
	} else {
		ms = (ms & ~(MSTATUS_MPIE | MSTATUS_MPP | MSTATUS_MIE)) | ((ms & MSTATUS_MIE) ? MSTATUS_MPIE : 0) |
		     ((uint64_t)from << MSTATUS_MPP_SHIFT);
		gsp_set_reg(m, UC_RISCV_REG_MEPC, epc);
		gsp_set_reg(m, UC_RISCV_REG_MCAUSE, cause);
		gsp_set_reg(m, UC_RISCV_REG_MTVAL, tval);
	}
	gsp_set_reg(m, UC_RISCV_REG_MSTATUS, ms);
	uint64_t target = tvec & ~3ull;
	if ((tvec & 3) == 1 && interrupt)
		target += 4 * code;
	gsp_set_reg(m, UC_RISCV_REG_PC, target);
	if (to_s)
		gsp_set_priv(m, GSP_PRIV_S);
	return true;
}

/* An enabled, pending external interrupt (a doorbell) is taken at this
 * instruction boundary: M-level interrupts are enabled below M whatever
 * mstatus.MIE says. */
static bool irq_inject(cs_gsp *m)
{
	if (!m->irq_pending)
		return false;
	unsigned was = priv_raise(m);
	uint64_t ms = gsp_reg(m, UC_RISCV_REG_MSTATUS), mie = gsp_reg(m, UC_RISCV_REG_MIE);
	priv_lower(m, was);
	if ((was == GSP_PRIV_M && !(ms & MSTATUS_MIE)) || !(mie & MIE_MEIE))
		return false;
	return trap_enter(m, CAUSE_INTERRUPT | 11, cs_gsp_pc(m), 0);
}

static uint32_t insn_at(cs_gsp *m, uint64_t pc, bool *ok)
{
	uint32_t w = 0;
	*ok = uc_mem_read(m->uc, pc, &w, 4) == UC_ERR_OK;
	if (!*ok) {
		uint16_t h = 0;
		*ok = uc_mem_read(m->uc, pc, &h, 2) == UC_ERR_OK;
		w = h;
	}
	return w;
}

/* The exception Unicorn raised, numbered as the spec numbers it. Unicorn
 * reports every ecall as 8 (the mode says which it is) and a misaligned AMO
 * or SC as a misaligned load; it keeps the fault address in badaddr. */
static void exception_of(cs_gsp *m, uint32_t intno, uint64_t epc, uint64_t *cause, uint64_t *tval)
{
	*cause = intno;
	*tval = 0;
	bool ok;
	switch (intno) {
	case 8:
		*cause = 8 + gsp_priv(m); /* U 8, S 9, M 11 */
		break;
	case 2:
		*tval = insn_at(m, epc, &ok);
		if ((*tval & 3) != 3)
			*tval &= 0xFFFF;
		break;
	case 4: {
		uint8_t b[4] = { 0 };
		cs_rv_insn in;
		if (uc_mem_read(m->uc, epc, b, 4) == UC_ERR_OK && cs_rv_decode(b, 4, epc, &in) &&
		    in.memop != CS_RV_MEM_NONE && in.memop != CS_RV_MEM_LOAD)
			*cause = 6;
		*tval = m->trap_badaddr;
		break;
	}
	case 0: case 1: case 5: case 6: case 7: case 12: case 13: case 15:
		*tval = m->trap_badaddr;
		break;
	default:
		break;
	}
}

/* The instruction budget of a run, stepping included: a global code hook,
 * present only while budgeted runs and steps follow each other (it slows
 * every block it is translated into), so the count is exact across traps
 * and wakeups. */
static void count_cb(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	(void)addr;
	(void)size;
	cs_gsp *m = user;
	if (m->budget_left == 0) {
		if (!m->hit.set) {
			m->hit.set = true;
			m->hit.from_mem = false;
			m->hit.reason = CS_GSP_STOP_BUDGET;
		}
		uc_emu_stop(uc);
		return;
	}
	m->budget_left--;
}

static cs_status counting_mode(cs_gsp *m, bool on)
{
	if (m->counting == on)
		return CS_OK;
	if (on) {
		if (uc_hook_add(m->uc, &m->count_hook, UC_HOOK_CODE, GSP_CB(count_cb), m, 1, 0) != UC_ERR_OK)
			return CS_ERR_INTERNAL;
	} else
		uc_hook_del(m->uc, m->count_hook);
	drop_code_translations(m);
	m->counting = on;
	return CS_OK;
}

static bool is_sc(const cs_rv_insn *in)
{
	return (in->raw & 0x7F) == 0x2F && in->memop == CS_RV_MEM_STORE;
}

/* With the unmodelled-access log on, a CSR instruction on a CSR Unicorn
 * does not have (the custom ranges, the debug and trigger CSRs) and that the
 * mode may access reads as zero, drops its write and is logged, instead of
 * being an illegal instruction. True when it was one (pc is past it). */
static bool unmodelled_csr(cs_gsp *m, uint64_t epc)
{
	static const uint16_t ranges[][2] = {
		{ 0x5C0, 0x5FF }, { 0x6C0, 0x6FF }, { 0x7A0, 0x7FF }, { 0x800, 0x8FF }, { 0x9C0, 0x9FF }, { 0xAC0, 0xAFF },
		{ 0xBC0, 0xBFF }, { 0xCC0, 0xCFF }, { 0xDC0, 0xDFF }, { 0xEC0, 0xEFF }, { 0xFC0, 0xFFF },
	};
	bool ok;
	uint32_t w = insn_at(m, epc, &ok);
	unsigned f3 = (w >> 12) & 7, csr = w >> 20, rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
	if (!m->unmodelled_log || !ok || (w & 0x7F) != 0x73 || f3 == 0 || f3 == 4 || ((csr >> 8) & 3) > gsp_priv(m))
		return false;
	bool unmodelled = false;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
		unmodelled |= csr >= ranges[i][0] && csr <= ranges[i][1];
	if (!unmodelled)
		return false;
	uint64_t operand = f3 >= 5 ? rs1 : gsp_reg(m, UC_RISCV_REG_X0 + (int)rs1);
	static const char *const op[4] = { "", "write", "set", "clear" };
	char what[96];
	int n = snprintf(what, sizeof(what), "csr 0x%03x", csr);
	if (rd)
		n += snprintf(what + n, sizeof(what) - (size_t)n, " read = 0x0");
	if ((f3 & 3) == 1 || rs1)
		snprintf(what + n, sizeof(what) - (size_t)n, "%s%s 0x%" PRIx64, rd ? ", " : " ", op[f3 & 3], operand);
	unmodelled_log(m, what, epc);
	if (rd)
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, 0);
	gsp_set_reg(m, UC_RISCV_REG_PC, epc + 4);
	return true;
}

/* After a stop inside a memory access (a watchpoint's hook, or a fault)
 * Unicorn has put pc back at the start of the translation block, with the
 * instructions before the access already done. Finds the instruction in the
 * block that accessed [addr, addr + size) by decoding and effective address. */
static bool find_access(cs_gsp *m, uint64_t block_pc, uint64_t addr, uint32_t size, bool is_write,
			uint64_t *insn_pc, cs_rv_insn *in)
{
	uint64_t pc = block_pc;
	for (int n = 0; n < 256; n++) {
		uint8_t b[4];
		if (uc_mem_read(m->uc, pc, b, 4) != UC_ERR_OK && uc_mem_read(m->uc, pc, b, 2) != UC_ERR_OK)
			return false;
		if (!cs_rv_decode(b, 4, pc, in))
			return false;
		if (in->memop != CS_RV_MEM_NONE) {
			/* Unicorn's sc reads the word it compares: a read hook fires */
			bool kind_ok = is_write ? in->memop != CS_RV_MEM_LOAD : in->memop != CS_RV_MEM_STORE || is_sc(in);
			uint64_t ea = gsp_reg(m, UC_RISCV_REG_X0 + in->mem_base) + (uint64_t)in->mem_imm;
			if (kind_ok && ea < addr + (size ? size : 1) && addr < ea + in->mem_size) {
				*insn_pc = pc;
				return true;
			}
		}
		if (in->has_target || in->is_ret || !strcmp(in->mnemonic, "jr") || !strcmp(in->mnemonic, "jalr"))
			return false;
		pc += in->len;
	}
	return false;
}

/* Runs the one instruction at pc with the watchpoints off (reads only, or
 * all); true when a watchpoint still stopped it. */
static bool run_one_unwatched(cs_gsp *m, uint64_t pc, bool reads_only)
{
	gsp_set_reg(m, UC_RISCV_REG_PC, pc);
	if (reads_only)
		m->watch_reads_suppressed = true;
	else
		m->watch_suppress = true;
	bool skip = m->skip_armed;
	uint64_t budget = m->budget_left;
	gsp_hit first = m->hit;
	m->skip_armed = true;
	m->skip_pc = pc;
	m->hit.set = false;
	if (counting_mode(m, true) == CS_OK) {
		m->budget_left = 1;
		uc_emu_start(m->uc, pc, m->pad, 0, 0);
	}
	bool stopped = m->hit.set && m->hit.reason != CS_GSP_STOP_BUDGET;
	if (!stopped)
		m->hit = first;
	m->budget_left = budget;
	m->skip_armed = skip;
	m->watch_suppress = false;
	m->watch_reads_suppressed = false;
	return stopped;
}

static uint64_t sized(uint64_t v, unsigned size)
{
	return size >= 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* A watchpoint stop raised inside a memory hook, with pc at the start of
 * the block. By default the machine is left right after the access: a store
 * is done; a load, LR or an AMO's read is run once more unwatched; an AMO's
 * or SC's write is done but its rd (and an SC's reservation) is not, so the
 * model writes them. With watch_stop_before (the GDB stub: gdb treats RISC-V
 * watchpoints as non-steppable and steps the access itself) the machine is
 * left at the access with its write undone, for the watchpoints gdb inserted;
 * the debugger's own (monitor watch) stop after the access as in the REPL. False when the hit was no access
 * of the program (the read inside Unicorn's sc) and the run goes on. */
static bool recover_mem_stop(cs_gsp *m, cs_gsp_stop *st)
{
	uint64_t pc;
	cs_rv_insn in;
	st->access_pc = 0;
	if (!find_access(m, cs_gsp_pc(m), m->hit.addr, m->hit.size, m->hit.is_write, &pc, &in))
		return true;
	if (!m->hit.is_write && is_sc(&in)) {
		if (!run_one_unwatched(m, pc, true))
			return false;
		/* the sc's write is watched too */
		if (!find_access(m, pc, m->hit.addr, m->hit.size, m->hit.is_write, &pc, &in))
			return true;
	}
	st->access_pc = pc;
	unsigned rd = (in.raw >> 7) & 31;
	if (m->watch_stop_before && gsp_point_by_gdb(m, m->hit.id)) {
		if (m->hit.is_write && m->hit.size && m->hit.size <= 8)
			uc_mem_write(m->uc, m->hit.addr, &m->hit.old_value, m->hit.size);
		gsp_set_reg(m, UC_RISCV_REG_PC, pc);
		return true;
	}
	if (!m->hit.is_write) {
		/* the read has not completed */
		run_one_unwatched(m, pc, false);
		return true;
	}
	if (in.memop == CS_RV_MEM_AMO && rd) {
		uint64_t old = sized(m->hit.old_value, in.mem_size);
		if (in.mem_size == 4)
			old = (uint64_t)(int64_t)(int32_t)old;
		gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, old);
	}
	if (is_sc(&in)) {
		uint64_t expected = sized(reservation_value(m), in.mem_size);
		if (rd)
			gsp_set_reg(m, UC_RISCV_REG_X0 + (int)rd, sized(m->hit.old_value, in.mem_size) == expected ? 0 : 1);
		reservation_clear(m);
	}
	gsp_set_reg(m, UC_RISCV_REG_PC, pc + in.len);
	return true;
}

/* A fault stop: pc at the faulting instruction, described with the access. */
static void fault_stop(cs_gsp *m, cs_gsp_stop *st, uc_err e)
{
	const gsp_bad_access *b = &m->bad_access;
	uint64_t npc = cs_gsp_pc(m);
	bool is_write = b->type == UC_MEM_WRITE_UNMAPPED || b->type == UC_MEM_WRITE_PROT;
	bool is_fetch = b->type == UC_MEM_FETCH_UNMAPPED || b->type == UC_MEM_FETCH_PROT;
	uint64_t pc;
	cs_rv_insn in;
	if (b->set && !is_fetch && find_access(m, npc, b->addr, b->size, is_write, &pc, &in)) {
		gsp_set_reg(m, UC_RISCV_REG_PC, pc);
		st->access_pc = pc;
	}
	st->reason = CS_GSP_STOP_FAULT;
	st->pc = cs_gsp_pc(m);
	if (b->set) {
		st->addr = b->addr;
		st->size = b->size;
		st->is_write = is_write;
		st->value = is_write ? b->value : 0;
		snprintf(st->detail, sizeof(st->detail), "%s of %u bytes at 0x%" PRIx64 ": %s",
			 is_fetch ? "fetch" : is_write ? "store" : "load", b->size, b->addr, uc_strerror(e));
	} else
		snprintf(st->detail, sizeof(st->detail), "unicorn: %s (pc 0x%" PRIx64 ")", uc_strerror(e), npc);
}

static void fill_stop(cs_gsp *m, cs_gsp_stop *st, cs_gsp_stop_reason r)
{
	st->reason = r;
	st->pc = cs_gsp_pc(m);
}

static cs_status run_segments(cs_gsp *m, uint64_t until, bool step_mode, cs_gsp_stop *st);

cs_status gsp_run(cs_gsp *m, uint64_t budget, uint64_t until, bool step_mode, cs_gsp_stop *st,
		  cs_diag *d)
{
	if (step_mode && !budget)
		budget = 1;
	if (counting_mode(m, budget != 0) != CS_OK) {
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot add the instruction counter");
		return CS_ERR_INTERNAL;
	}
	m->budget_left = budget;
	cs_status s = run_segments(m, until, step_mode, st);
	if (budget)
		st->executed = budget - m->budget_left;
	return s;
}

/* The wall-clock guard of a run: one thread for the whole run, however many
 * segments traps and wakeups cut it into. When the time is up it stops the
 * emulation, and again every 10 ms: a stop that lands between two segments
 * is lost. */
typedef struct run_guard {
	cs_gsp *m;
	uint64_t ms;
	pthread_mutex_t lock;
	pthread_cond_t finished_cv;
	bool finished;
	atomic_bool expired;
	pthread_t thread;
	bool running;
} run_guard;

static struct timespec deadline_after(uint64_t ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static void *run_guard_main(void *arg)
{
	run_guard *g = arg;
	struct timespec deadline = deadline_after(g->ms);
	pthread_mutex_lock(&g->lock);
	while (!g->finished) {
		if (pthread_cond_timedwait(&g->finished_cv, &g->lock, &deadline) == ETIMEDOUT && !g->finished) {
			atomic_store(&g->expired, true);
			uc_emu_stop(g->m->uc);
			deadline = deadline_after(10);
		}
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static void run_guard_start(run_guard *g, cs_gsp *m, uint64_t ms)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	g->ms = ms;
	atomic_init(&g->expired, false);
	if (!ms)
		return;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->finished_cv, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&g->lock, NULL);
	g->running = pthread_create(&g->thread, NULL, run_guard_main, g) == 0;
	if (!g->running) {
		pthread_cond_destroy(&g->finished_cv);
		pthread_mutex_destroy(&g->lock);
	}
}

static void run_guard_stop(run_guard *g)
{
	if (!g->running)
		return;
	pthread_mutex_lock(&g->lock);
	g->finished = true;
	pthread_cond_signal(&g->finished_cv);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->finished_cv);
	pthread_mutex_destroy(&g->lock);
}

static cs_status run_loop(cs_gsp *m, uint64_t until, bool step_mode, run_guard *guard, cs_gsp_stop *st);

static cs_status run_segments(cs_gsp *m, uint64_t until, bool step_mode, cs_gsp_stop *st)
{
	memset(st, 0, sizeof(*st));
	/* a single step ends by itself; every other run is guarded */
	run_guard guard;
	run_guard_start(&guard, m, step_mode ? 0 : m->guard_ms);
	cs_status s = run_loop(m, until, step_mode, &guard, st);
	run_guard_stop(&guard);
	return s;
}

/* Traps in a row whose trapping instruction was the first of its segment
 * (nothing retired between them) before the run calls it a trap storm. */
enum { TRAP_STORM_LIMIT = 1000 };

static bool guard_expired(cs_gsp *m, run_guard *guard, cs_gsp_stop *st)
{
	if (!atomic_load(&guard->expired))
		return false;
	fill_stop(m, st, CS_GSP_STOP_GUARD);
	snprintf(st->detail, sizeof(st->detail), "wall-clock guard of %" PRIu64 " ms", guard->ms);
	return true;
}

/* Enters the trap a segment ended with; false (with the stop filled) when
 * the run must stop instead. */
static bool take_trap(cs_gsp *m, uint64_t cause, uint64_t epc, uint64_t tval, uint64_t segment_pc,
		      uint64_t *storm, cs_gsp_stop *st)
{
	*storm = epc == segment_pc ? *storm + 1 : 0;
	if (*storm >= TRAP_STORM_LIMIT) {
		gsp_set_reg(m, UC_RISCV_REG_PC, epc);
		fill_stop(m, st, CS_GSP_STOP_FAULT);
		snprintf(st->detail, sizeof(st->detail),
			 "trap storm: %" PRIu64 " traps in a row with no instruction retired (cause %" PRIu64
			 " at 0x%" PRIx64 ")",
			 *storm, cause, epc);
		return false;
	}
	if (!trap_enter(m, cause, epc, tval)) {
		gsp_set_reg(m, UC_RISCV_REG_PC, epc);
		fill_stop(m, st, cause == 3 ? CS_GSP_STOP_EBREAK : CS_GSP_STOP_FAULT);
		snprintf(st->detail, sizeof(st->detail),
			 cause == 3 ? "firmware ebreak with no trap vector"
				    : "trap (cause %" PRIu64 ") at 0x%" PRIx64 " with no trap vector",
			 cause, epc);
		return false;
	}
	return true;
}

/* Whether an interrupt is pending and enabled in mie (Unicorn's own mip, and
 * the doorbell the model keeps): wfi does not wait then, even with the
 * interrupt masked by mstatus. */
static bool wfi_wakes(cs_gsp *m)
{
	unsigned was = priv_raise(m);
	uint64_t mip = gsp_reg(m, UC_RISCV_REG_MIP), mie = gsp_reg(m, UC_RISCV_REG_MIE);
	priv_lower(m, was);
	if (m->irq_pending)
		mip |= MIE_MEIE;
	return (mip & mie) != 0;
}

static cs_status run_loop(cs_gsp *m, uint64_t until, bool step_mode, run_guard *guard, cs_gsp_stop *st)
{
	uint64_t storm = 0;
	bool first = true;
	for (;;) {
		if (atomic_exchange(&m->interrupt_req, 0)) {
			fill_stop(m, st, CS_GSP_STOP_INTERRUPTED);
			return CS_OK;
		}
		if (guard_expired(m, guard, st))
			return CS_OK;
		if (!first || !step_mode)
			irq_inject(m);
		uint64_t pc = cs_gsp_pc(m);
		if (until && pc == until && !first) {
			fill_stop(m, st, CS_GSP_STOP_RETURNED);
			return CS_OK;
		}
		m->hit.set = false;
		m->hit.detail[0] = 0;
		m->trap_pending = false;
		m->bad_access.set = false;
		if (first) {
			m->skip_armed = true;
			m->skip_pc = pc;
		}
		uc_err e = uc_emu_start(m->uc, pc, until ? until : m->pad, 0, 0);
		m->skip_armed = false;
		first = false;
		uint64_t npc = cs_gsp_pc(m);
		if (atomic_exchange(&m->interrupt_req, 0)) {
			fill_stop(m, st, CS_GSP_STOP_INTERRUPTED);
			return CS_OK;
		}
		if (m->hit.set) {
			if (m->hit.from_mem && !recover_mem_stop(m, st))
				continue;
			fill_stop(m, st, step_mode && m->hit.reason == CS_GSP_STOP_BUDGET ? CS_GSP_STOP_STEP : m->hit.reason);
			st->id = m->hit.id;
			st->addr = m->hit.addr;
			st->size = m->hit.size;
			st->is_write = m->hit.is_write;
			st->value = m->hit.value;
			st->old_value = m->hit.old_value;
			if (m->hit.detail[0])
				snprintf(st->detail, sizeof(st->detail), "%s", m->hit.detail);
			if (m->hit.reason == CS_GSP_STOP_BREAK) {
				for (int i = 0; i < GSP_POINTS_MAX; i++)
					if (m->pt[i].used && m->pt[i].id == m->hit.id && m->pt[i].temporary)
						point_free(m, &m->pt[i]);
			}
			return CS_OK;
		}
		if (m->trap_pending) {
			/* Unicorn reports the pc after the trapping instruction, +4 always */
			uint64_t epc = npc - 4, cause, tval;
			exception_of(m, m->trap_intno, epc, &cause, &tval);
			if (cause == 2 && unmodelled_csr(m, epc)) {
				if (step_mode) {
					fill_stop(m, st, CS_GSP_STOP_STEP);
					return CS_OK;
				}
				continue;
			}
			if (!take_trap(m, cause, epc, tval, pc, &storm, st))
				return CS_OK;
			if (step_mode) {
				fill_stop(m, st, CS_GSP_STOP_STEP);
				return CS_OK;
			}
			continue;
		}
		if (e == UC_ERR_INSN_INVALID || e == UC_ERR_EXCEPTION) {
			bool ok;
			uint32_t w = insn_at(m, npc, &ok);
			if (npc == m->pad) {
				fill_stop(m, st, CS_GSP_STOP_RETURNED);
				return CS_OK;
			}
			if (ok && (w == INSN_EBREAK || (w & 0xFFFF) == INSN_CEBREAK)) {
				/* The firmware's own ebreak (a debugger breakpoint there
				 * would have stopped before it): a breakpoint exception. */
				if (!take_trap(m, 3, npc, npc, pc, &storm, st))
					return CS_OK;
				if (step_mode) {
					fill_stop(m, st, CS_GSP_STOP_STEP);
					return CS_OK;
				}
				continue;
			}
			fill_stop(m, st, CS_GSP_STOP_FAULT);
			snprintf(st->detail, sizeof(st->detail), "unicorn: %s at 0x%" PRIx64, uc_strerror(e), npc);
			return CS_OK;
		}
		if (e != UC_ERR_OK) {
			fault_stop(m, st, e);
			return CS_OK;
		}
		storm = 0;
		if (npc == (until ? until : m->pad)) {
			fill_stop(m, st, CS_GSP_STOP_RETURNED);
			return CS_OK;
		}
		if (step_mode) {
			st->reason = CS_GSP_STOP_STEP;
			st->pc = npc;
			return CS_OK;
		}
		bool ok;
		uint32_t prev = insn_at(m, npc - 4, &ok);
		if (ok && prev == INSN_WFI && !atomic_load(&guard->expired)) {
			if (wfi_wakes(m))
				continue; /* taken at the next boundary if enabled, else wfi falls through */
			fill_stop(m, st, CS_GSP_STOP_IDLE);
			st->access_pc = npc - 4;
			snprintf(st->detail, sizeof(st->detail), "wfi with no interrupt pending");
			return CS_OK;
		}
		if (guard_expired(m, guard, st))
			return CS_OK;
	}
}

uint64_t gsp_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

bool gsp_guard_passed(cs_gsp *m, uint64_t t0_ms, cs_gsp_stop *st, uint64_t done)
{
	if (!m->guard_ms || gsp_now_ms() - t0_ms < m->guard_ms)
		return false;
	fill_stop(m, st, CS_GSP_STOP_GUARD);
	snprintf(st->detail, sizeof(st->detail),
		 "wall-clock guard of %" PRIu64 " ms after %" PRIu64 " steps", m->guard_ms, done);
	return true;
}

cs_status cs_gsp_continue(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d)
{
	return gsp_run(m, budget, 0, false, st, d);
}

cs_status cs_gsp_stepi(cs_gsp *m, uint64_t n, cs_gsp_stop *st, cs_diag *d)
{
	memset(st, 0, sizeof(*st));
	if (n == 0)
		n = 1;
	/* each step is too short for a guard of its own: the whole count is
	 * under the wall-clock guard, checked between steps */
	uint64_t t0 = gsp_now_ms();
	for (uint64_t i = 0; i < n; i++) {
		cs_status s = gsp_run(m, 1, 0, true, st, d);
		if (s != CS_OK)
			return s;
		if (st->reason != CS_GSP_STOP_STEP && st->reason != CS_GSP_STOP_BUDGET)
			return CS_OK;
		if (n > 1 && gsp_guard_passed(m, t0, st, i + 1))
			return CS_OK;
	}
	st->reason = CS_GSP_STOP_STEP;
	return CS_OK;
}

cs_status cs_gsp_next(cs_gsp *m, cs_gsp_stop *st, cs_diag *d)
{
	uint64_t pc = cs_gsp_pc(m);
	uint8_t b[4] = { 0 };
	cs_rv_insn in;
	if (uc_mem_read(m->uc, pc, b, 4) != UC_ERR_OK)
		uc_mem_read(m->uc, pc, b, 2);
	if (!cs_rv_decode(b, 4, pc, &in) || !in.is_call)
		return cs_gsp_stepi(m, 1, st, d);
	cs_status s = gsp_run(m, 0, pc + in.len, false, st, d);
	if (s == CS_OK && st->reason == CS_GSP_STOP_RETURNED)
		st->reason = CS_GSP_STOP_STEP;
	return s;
}

cs_status cs_gsp_finish(cs_gsp *m, uint64_t budget, cs_gsp_stop *st, cs_diag *d)
{
	gsp_frame f[2];
	int n = gsp_unwind(m, f, 2);
	if (n < 1 || !f[0].ra_valid) {
		cs_diag_set(d, CS_ERR_INPUT, "cannot find the return address of the current function");
		return CS_ERR_INPUT;
	}
	return gsp_run(m, budget, f[0].ra, false, st, d);
}

cs_status cs_gsp_call(cs_gsp *m, uint64_t addr, const uint64_t *args, size_t nargs, uint64_t guard_ms,
		      uint64_t *ret, cs_gsp_stop *st, cs_diag *d)
{
	if (nargs > 8) {
		cs_diag_set(d, CS_ERR_INPUT, "at most 8 arguments (a0-a7), got %zu", nargs);
		return CS_ERR_INPUT;
	}
	uc_context *ctx = NULL;
	if (uc_context_alloc(m->uc, &ctx) != UC_ERR_OK || uc_context_save(m->uc, ctx) != UC_ERR_OK) {
		if (ctx)
			uc_context_free(ctx);
		cs_diag_set(d, CS_ERR_INTERNAL, "cannot save the register context");
		return CS_ERR_INTERNAL;
	}
	uint32_t irq = m->irq_pending;
	m->irq_pending = 0;
	for (size_t i = 0; i < nargs; i++)
		gsp_set_reg(m, UC_RISCV_REG_A0 + (int)i, args[i]);
	uint64_t sp = (gsp_reg(m, UC_RISCV_REG_SP) - 256) & ~15ull;
	const cs_gsp_region *sr = region_of(m, sp - 4096, 4096);
	if (!sr || sr->kind == CS_GSP_MMIO || sr->kind == CS_GSP_ROM) {
		/* no usable stack yet (before boot): the top of the first ram region */
		for (size_t i = 0; i < m->map.count; i++)
			if (m->map.region[i].kind == CS_GSP_RAM) {
				sp = (m->map.region[i].base + m->map.region[i].size - 256) & ~15ull;
				break;
			}
	}
	gsp_set_reg(m, UC_RISCV_REG_SP, sp);
	gsp_set_reg(m, UC_RISCV_REG_RA, m->pad);
	gsp_set_reg(m, UC_RISCV_REG_PC, addr);
	uint64_t saved_guard = m->guard_ms;
	m->guard_ms = guard_ms;
	cs_status s = gsp_run(m, 0, 0, false, st, d);
	m->guard_ms = saved_guard;
	*ret = gsp_reg(m, UC_RISCV_REG_A0);
	uc_context_restore(m->uc, ctx);
	uc_context_free(ctx);
	m->irq_pending |= irq;
	return s;
}

/* ---- snapshots ---- */

static gsp_snapshot *snapshot_find(cs_gsp *m, const char *name, guint *index)
{
	for (guint i = 0; i < m->snaps->len; i++) {
		gsp_snapshot *s = g_ptr_array_index(m->snaps, i);
		if (!strcmp(s->name, name)) {
			if (index)
				*index = i;
			return s;
		}
	}
	return NULL;
}

cs_status cs_gsp_snapshot_save(cs_gsp *m, const char *name, cs_diag *d)
{
	if (strlen(name) >= sizeof(((gsp_snapshot *)0)->name) || !*name) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot name must be 1 to 63 characters");
		return CS_ERR_INPUT;
	}
	/* the snapshots together are bounded in count and bytes; replacing one
	 * by its name frees the old one's room first */
	uint64_t bytes = 0;
	for (size_t i = 0; i < m->map.count; i++)
		if (m->map.region[i].kind != CS_GSP_MMIO)
			bytes += m->map.region[i].size;
	gsp_snapshot *prev = snapshot_find(m, name, NULL);
	uint64_t held = m->snap_bytes - (prev ? prev->bytes : 0);
	if (!prev && m->snaps->len >= CS_GSP_SNAPSHOTS_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot '%s': %u snapshots is the limit", name,
			    (unsigned)CS_GSP_SNAPSHOTS_MAX);
		return CS_ERR_INPUT;
	}
	if (held + bytes > CS_GSP_SNAPSHOT_BYTES_MAX) {
		cs_diag_set(d, CS_ERR_INPUT, "snapshot '%s': %" PRIu64 " more bytes would pass the "
			    "limit of %" PRIu64 " MiB for all snapshots", name, bytes,
			    (uint64_t)CS_GSP_SNAPSHOT_BYTES_MAX >> 20);
		return CS_ERR_INPUT;
	}
	gsp_snapshot *s = calloc(1, sizeof(*s));
	if (!s)
		return CS_ERR_NOMEM;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->bytes = bytes;
	s->mem = calloc(m->map.count, sizeof(*s->mem));
	s->mmio = calloc(m->nmmio ? m->nmmio : 1, sizeof(*s->mmio));
	if (!s->mem || !s->mmio || uc_context_alloc(m->uc, &s->ctx) != UC_ERR_OK ||
	    uc_context_save(m->uc, s->ctx) != UC_ERR_OK) {
		snapshot_free(s, m);
		cs_diag_set(d, CS_ERR_NOMEM, "cannot save snapshot '%s'", name);
		return CS_ERR_NOMEM;
	}
	for (size_t i = 0; i < m->map.count; i++) {
		const cs_gsp_region *r = &m->map.region[i];
		if (r->kind == CS_GSP_MMIO)
			continue;
		s->mem[i] = malloc(r->size);
		if (!s->mem[i] || uc_mem_read(m->uc, r->base, s->mem[i], r->size) != UC_ERR_OK) {
			snapshot_free(s, m);
			cs_diag_set(d, CS_ERR_NOMEM, "cannot save region '%s'", r->name);
			return CS_ERR_NOMEM;
		}
	}
	memcpy(s->mmio, m->mmio, m->nmmio * sizeof(*m->mmio));
	s->nmmio = m->nmmio;
	s->q = m->q;
	s->irq_pending = m->irq_pending;
	s->host_irq_status = m->host_irq_status;
	s->host_irqs = m->host_irqs;
	s->log_len = m->log->len;
	guint idx;
	gsp_snapshot *old = snapshot_find(m, name, &idx);
	if (old) {
		m->snap_bytes -= old->bytes;
		snapshot_free(old, m);
		g_ptr_array_index(m->snaps, idx) = s;
	} else
		g_ptr_array_add(m->snaps, s);
	m->snap_bytes += s->bytes;
	return CS_OK;
}

cs_status cs_gsp_snapshot_restore(cs_gsp *m, const char *name, cs_diag *d)
{
	gsp_snapshot *s = snapshot_find(m, name, NULL);
	if (!s) {
		cs_diag_set(d, CS_ERR_INPUT, "no snapshot '%s'", name);
		return CS_ERR_INPUT;
	}
	uc_context_restore(m->uc, s->ctx);
	for (size_t i = 0; i < m->map.count; i++)
		if (s->mem[i])
			uc_mem_write(m->uc, m->map.region[i].base, s->mem[i], m->map.region[i].size);
	memcpy(m->mmio, s->mmio, s->nmmio * sizeof(*m->mmio));
	uc_hook mon = m->q.mon_hook;
	bool armed = m->q.monitor;
	m->q = s->q;
	m->q.mon_hook = mon;
	m->q.monitor = armed;
	m->irq_pending = s->irq_pending;
	m->host_irq_status = s->host_irq_status;
	m->host_irqs = s->host_irqs;
	if (s->log_len <= m->log->len)
		g_string_truncate(m->log, s->log_len);
	/* translated blocks stay valid: code is restored byte for byte */
	return CS_OK;
}

/* ---- describing stops ---- */

void cs_gsp_stop_describe(cs_gsp *m, const cs_gsp_stop *st, char *buf, size_t len)
{
	char where[128];
	cs_gsp_symbolize(m, st->pc, where, sizeof(where));
	switch (st->reason) {
	case CS_GSP_STOP_BREAK:
		snprintf(buf, len, "breakpoint %d at 0x%" PRIx64 " <%s>", st->id, st->pc, where);
		break;
	case CS_GSP_STOP_WATCH:
	case CS_GSP_STOP_DESYNC: {
		char acc[128] = "?";
		if (st->access_pc)
			cs_gsp_symbolize(m, st->access_pc, acc, sizeof(acc));
		if (st->reason == CS_GSP_STOP_DESYNC)
			snprintf(buf, len, "msgq desync: %s; by the instruction at 0x%" PRIx64 " <%s>", st->detail,
				 st->access_pc, acc);
		else if (st->is_write)
			snprintf(buf, len,
				 "watchpoint %d: write of %u bytes at 0x%" PRIx64 ": 0x%" PRIx64 " -> 0x%" PRIx64
				 " by 0x%" PRIx64 " <%s>",
				 st->id, st->size, st->addr, st->old_value, st->value, st->access_pc, acc);
		else
			snprintf(buf, len,
				 "watchpoint %d: read of %u bytes at 0x%" PRIx64 " = 0x%" PRIx64 " by 0x%" PRIx64 " <%s>",
				 st->id, st->size, st->addr, st->value, st->access_pc, acc);
		break;
	}
	case CS_GSP_STOP_STEP:
		snprintf(buf, len, "0x%" PRIx64 " <%s>", st->pc, where);
		break;
	case CS_GSP_STOP_BUDGET:
		snprintf(buf, len, "instruction budget exhausted at 0x%" PRIx64 " <%s>", st->pc, where);
		break;
	case CS_GSP_STOP_IDLE: {
		char wfi[128];
		cs_gsp_symbolize(m, st->access_pc, wfi, sizeof(wfi));
		snprintf(buf, len, "idle: wfi at 0x%" PRIx64 " <%s>, no interrupt pending", st->access_pc, wfi);
		break;
	}
	case CS_GSP_STOP_EBREAK:
		snprintf(buf, len, "firmware ebreak at 0x%" PRIx64 " <%s>", st->pc, where);
		break;
	case CS_GSP_STOP_RETURNED:
		snprintf(buf, len, "returned to 0x%" PRIx64 " <%s>", st->pc, where);
		break;
	case CS_GSP_STOP_FAULT:
		snprintf(buf, len, "fault at 0x%" PRIx64 " <%s>: %s", st->pc, where, st->detail);
		break;
	case CS_GSP_STOP_INTERRUPTED:
		snprintf(buf, len, "interrupted at 0x%" PRIx64 " <%s>%s%s", st->pc, where,
			 st->detail[0] ? ": " : "", st->detail);
		break;
	case CS_GSP_STOP_REPLY:
		snprintf(buf, len, "reply arrived; firmware at 0x%" PRIx64 " <%s>", st->pc, where);
		break;
	case CS_GSP_STOP_GUARD:
		snprintf(buf, len, "still running at 0x%" PRIx64 " <%s>: %s", st->pc, where, st->detail);
		break;
	case CS_GSP_STOP_NONE:
		snprintf(buf, len, "at 0x%" PRIx64 " <%s>", st->pc, where);
		break;
	}
}
