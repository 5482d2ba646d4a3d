/* SPDX-License-Identifier: MIT */
/* The canonical method sequences the scenario assembler encodes: the arch's
 * launch (both paths), the copy-engine transfer, and inline-to-memory. */
#include <inttypes.h>
#include <string.h>

#include "gr_internal.h"

static bool seq_add(cs_gr_seq *s, uint32_t subch, uint32_t method, cs_secop op,
		    const uint32_t *data, unsigned count, cs_diag *d)
{
	if (s->ncmds >= CS_GR_SEQ_MAX_CMDS || count > CS_GR_SEQ_MAX_DATA - s->ndata) {
		cs_diag_set(d, CS_ERR_INTERNAL, "method sequence full (%u methods, %u dwords)",
			    s->ncmds, s->ndata);
		return false;
	}
	cs_gr_cmd *c = &s->cmds[s->ncmds++];
	c->subch = subch;
	c->method = method;
	c->op = op;
	c->first = s->ndata;
	c->count = count;
	memcpy(&s->data[s->ndata], data, count * sizeof(uint32_t));
	s->ndata += count;
	return true;
}

static bool seq_one(cs_gr_seq *s, uint32_t subch, uint32_t method, uint32_t v, cs_diag *d)
{
	return seq_add(s, subch, method, CS_SECOP_INC, &v, 1, d);
}

size_t cs_gr_seq_encode(const cs_gr_seq *seq, uint32_t *out, size_t cap, cs_diag *d)
{
	size_t n = 0;
	for (unsigned i = 0; i < seq->ncmds; i++) {
		const cs_gr_cmd *c = &seq->cmds[i];
		bool immd = c->op == CS_SECOP_IMMD;
		size_t need = immd ? 1 : 1 + (size_t)c->count;
		if (cap - n < need) {
			cs_diag_set(d, CS_ERR_INPUT, "%zu dwords do not hold the sequence", cap);
			return 0;
		}
		if (immd && (c->count != 1 || seq->data[c->first] > CS_PB_MAX_IMMD)) {
			cs_diag_set(d, CS_ERR_INTERNAL, "immediate method 0x%x needs one value < 8192",
				    c->method);
			return 0;
		}
		out[n++] = cs_pb_header(c->op, immd ? seq->data[c->first] : c->count, c->subch,
					c->method);
		if (!immd)
			for (uint32_t k = 0; k < c->count; k++)
				out[n++] = seq->data[c->first + k];
	}
	return n;
}

static bool pick_class(cs_arch arch, uint32_t cls, cs_class_kind kind, uint32_t *out,
		       cs_diag *d)
{
	const cs_arch_info *ai = cs_arch_get(arch);
	if (!ai) {
		cs_diag_set(d, CS_ERR_INPUT, "unknown arch %d", (int)arch);
		return false;
	}
	if (cls == 0)
		cls = kind == CS_CLASS_COMPUTE ? ai->compute_class : ai->copy_class;
	if (cs_class_kind_of(cls) != kind || !cs_class_valid_for(cls, arch) || !cs_gr_class(cls)) {
		cs_diag_set(d, CS_ERR_INPUT, "class %04X is not a %s class of %s", cls,
			    cs_class_kind_name(kind), ai->name);
		return false;
	}
	*out = cls;
	return true;
}

/* out emptied, and the class of kind a sequence on subch of arch uses
 * (requested, or the arch's own) in *cls; false when either is refused. */
static bool begin_seq(cs_gr_seq *out, cs_arch arch, uint32_t requested, cs_class_kind kind,
		      uint32_t subch, uint32_t *cls, cs_diag *d)
{
	memset(out, 0, sizeof(*out));
	if (!pick_class(arch, requested, kind, cls, d))
		return false;
	if (subch > 7) {
		cs_diag_set(d, CS_ERR_INPUT, "subchannel %u out of range (0..7)", subch);
		return false;
	}
	return true;
}

bool cs_gr_launch_methods(const cs_gr_launch_opts *o, cs_gr_seq *out, cs_diag *d)
{
	uint32_t cls;
	if (!begin_seq(out, o->arch, o->cls, CS_CLASS_COMPUTE, o->subch, &cls, d))
		return false;
	if (o->qmd_addr & 0xff) {
		cs_diag_set(d, CS_ERR_INPUT, "QMD address 0x%" PRIx64 " is not 256-byte aligned",
			    o->qmd_addr);
		return false;
	}
	/* Mesa NVK programs the local-memory region once per queue; a launch that
	 * needs one sets it here, ahead of the QMD that asks for it. */
	if (o->local_addr) {
		if (o->local_addr >> 57) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "local memory address 0x%" PRIx64
				    " does not fit SET_SHADER_LOCAL_MEMORY_A/B (57 bits)",
				    o->local_addr);
			return false;
		}
		const uint32_t ab[2] = {
			GR_ADDR_PUT(local_memory_a_25, ADDRESS_UPPER, o->local_addr),
			GR_ADDR_PUT(local_memory_b, ADDRESS_LOWER, o->local_addr),
		};
		if (!seq_add(out, o->subch, CS_GR_SET_SHADER_LOCAL_MEMORY_A, CS_SECOP_INC, ab, 2, d))
			return false;
	}
	/* Mesa NVK's early dispatch invalidates the constant cache before SEND_PCAS_A
	 * (INVALIDATE_SHADER_CACHES_NO_WFI CONSTANT=TRUE), so parameters written to
	 * the constant bank are seen. */
	if (o->invalidate_caches &&
	    !seq_one(out, o->subch, CS_GR_INVALIDATE_SHADER_CACHES_NO_WFI,
			     GR_PUT(inv_shader_caches_no_wfi, CONSTANT, 1), d))
		return false;
	uint64_t shifted = o->qmd_addr >> 8;
	if (o->path == CS_GR_PATH_PCAS) {
		if (shifted >> 32) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "QMD address 0x%" PRIx64 " does not fit SEND_PCAS_A (40 bits)",
				    o->qmd_addr);
			return false;
		}
		uint32_t action = o->pcas_action ? o->pcas_action : CS_PCAS2_INVALIDATE_COPY_SCHEDULE;
		if (action > 0xf || !cs_pcas2_action_valid(cls, action)) {
			cs_diag_set(d, CS_ERR_INPUT, "PCAS action 0x%x is reserved on %04X", action, cls);
			return false;
		}
		return seq_one(out, o->subch, CS_GR_SEND_PCAS_A,
			       GR_ADDR_PUT(send_pcas_a, QMD_ADDRESS_SHIFTED8, o->qmd_addr), d) &&
		       seq_add(out, o->subch, CS_GR_SEND_SIGNALING_PCAS2_B, CS_SECOP_IMMD, &action, 1,
			       d);
	}
	if (o->path != CS_GR_PATH_INLINE) {
		cs_diag_set(d, CS_ERR_INPUT, "a launch takes path inline or pcas");
		return false;
	}
	unsigned major = cs_class_qmd_major(cls);
	if (!o->qmd || !o->qmd->layout || o->qmd->layout->major != major) {
		cs_diag_set(d, CS_ERR_INPUT, "the inline path needs a QMD V%02u_00 for class %04X",
			    major, cls);
		return false;
	}
	unsigned ndw = o->qmd->layout->bytes / 4;
	uint32_t a, b = GR_ADDR_PUT(inline_qmd_b, QMD_ADDRESS_SHIFTED8_LOWER, o->qmd_addr);
	if (cs_class_has(cls, CS_CF_INLINE_QMD_SIZE)) {
		if (shifted >> 41) {
			cs_diag_set(d, CS_ERR_INPUT,
				    "QMD address 0x%" PRIx64 " does not fit SET_INLINE_QMD_ADDRESS_A",
				    o->qmd_addr);
			return false;
		}
		a = GR_ADDR_PUT(inline_qmd_a_v2, QMD_ADDRESS_SHIFTED8_UPPER, o->qmd_addr) |
		    GR_PUT(inline_qmd_a_v2, INLINE_SIZE, ndw == 96 /* INLINE_384 */);
	} else {
		a = GR_ADDR_PUT(inline_qmd_a_v1, QMD_ADDRESS_SHIFTED8_UPPER, o->qmd_addr);
	}
	uint32_t ab[2] = { a, b };
	return seq_add(out, o->subch, CS_GR_SET_INLINE_QMD_ADDRESS_A, CS_SECOP_INC, ab, 2, d) &&
	       seq_add(out, o->subch, CS_GR_LOAD_INLINE_QMD_DATA, CS_SECOP_INC, o->qmd->dw, ndw, d);
}

bool cs_gr_copy_methods(const cs_gr_copy_opts *o, cs_gr_seq *out, cs_diag *d)
{
	uint32_t cls;
	if (!begin_seq(out, o->arch, o->cls, CS_CLASS_COPY, o->subch, &cls, d))
		return false;
	uint64_t lim = 1ull << cs_class_addr_bits(cs_gr_class(cls), "COPY_DST");
	if (o->dst >= lim || o->src >= lim || (o->release && o->sem_addr >= lim)) {
		cs_diag_set(d, CS_ERR_INPUT, "copy address beyond the %u bits class %04X takes",
			    (unsigned)__builtin_ctzll(lim), cls);
		return false;
	}
	bool wide = o->release && (o->sem_payload >> 32);
	if (wide && !cs_class_has(cls, CS_CF_PAYLOAD_UPPER)) {
		cs_diag_set(d, CS_ERR_INPUT, "a 64-bit semaphore payload needs a copy class with "
					     "SET_SEMAPHORE_PAYLOAD_UPPER (C7B5 or later), not %04X", cls);
		return false;
	}
	uint32_t offs[4] = {
		GR_ADDR_PUT(ce_offset_in_upper_25, UPPER, o->src),
		GR_ADDR_PUT(ce_offset_in_lower, VALUE, o->src),
		GR_ADDR_PUT(ce_offset_out_upper_25, UPPER, o->dst),
		GR_ADDR_PUT(ce_offset_out_lower, VALUE, o->dst),
	};
	uint32_t lines[2] = { o->len, 1 };
	if (!seq_add(out, o->subch, CS_CE_OFFSET_IN_UPPER, CS_SECOP_INC, offs, 4, d) ||
	    !seq_add(out, o->subch, CS_CE_LINE_LENGTH_IN, CS_SECOP_INC, lines, 2, d))
		return false;
	/* One line, pitch in and out. */
	uint32_t launch = GR_PUT(ce_launch_dma_v2, DATA_TRANSFER_TYPE, 2 /* NON_PIPELINED */) |
			  GR_PUT(ce_launch_dma_v2, SRC_MEMORY_LAYOUT, 1 /* PITCH */) |
			  GR_PUT(ce_launch_dma_v2, DST_MEMORY_LAYOUT, 1 /* PITCH */);
	if (o->release) {
		uint32_t sem[4] = {
			GR_ADDR_PUT(ce_semaphore_a_25, UPPER, o->sem_addr),
			GR_ADDR_PUT(ce_semaphore_b, LOWER, o->sem_addr),
			(uint32_t)o->sem_payload,
			(uint32_t)(o->sem_payload >> 32),
		};
		if (!seq_add(out, o->subch, CS_CE_SET_SEMAPHORE_A, CS_SECOP_INC, sem, wide ? 4 : 3, d))
			return false;
		/* RELEASE_FOUR_WORD_SEMAPHORE (with timestamp) or RELEASE_ONE_WORD_SEMAPHORE */
		launch |= GR_PUT(ce_launch_dma_v2, FLUSH_ENABLE, 1) |
			  GR_PUT(ce_launch_dma_v2, SEMAPHORE_TYPE, o->sem_timestamp ? 2 : 1);
		if (wide)
			launch |= GR_PUT(ce_launch_dma_v2, SEMAPHORE_PAYLOAD_SIZE, 1 /* TWO_WORD */);
	}
	return seq_one(out, o->subch, CS_CE_LAUNCH_DMA, launch, d);
}

bool cs_gr_i2m_methods(cs_arch arch, uint32_t subch, uint64_t dst, const uint32_t *words,
		       unsigned n, cs_gr_seq *out, cs_diag *d)
{
	memset(out, 0, sizeof(*out));
	uint32_t cls;
	if (!pick_class(arch, 0, CS_CLASS_COMPUTE, &cls, d))
		return false;
	if (subch > 7) {
		cs_diag_set(d, CS_ERR_INPUT, "subchannel %u out of range (0..7)", subch);
		return false;
	}
	if (n == 0 || n > CS_GR_SEQ_MAX_DATA - 8) {
		cs_diag_set(d, CS_ERR_INPUT, "inline-to-memory of %u dwords (1..%u)", n,
			    CS_GR_SEQ_MAX_DATA - 8);
		return false;
	}
	uint32_t hdr[4] = { n * 4u, 1, GR_ADDR_PUT(offset_out_upper_25, VALUE, dst),
			    GR_ADDR_PUT(offset_out, VALUE, dst) };
	return seq_add(out, subch, CS_GR_LINE_LENGTH_IN, CS_SECOP_INC, hdr, 4, d) &&
	       seq_one(out, subch, CS_GR_LAUNCH_DMA,
			      GR_PUT(i2m_launch_dma, DST_MEMORY_LAYOUT, 1 /* PITCH */), d) &&
	       seq_add(out, subch, CS_GR_LOAD_INLINE_DATA, CS_SECOP_NONINC, words, n, d);
}
