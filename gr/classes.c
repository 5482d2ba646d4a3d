/* The compute and copy class tables, generated from gr/compute.def and
 * gr/copy.def, with the field decoders the printers and the REPL use. */
#include <stddef.h>

#include "chainsim/gr.h"

#define NELEM(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* ---- value names ----------------------------------------------------------- */

static const char *const v_false_true[] = { "FALSE", "TRUE" };
static const char *const v_layout[] = { "BLOCKLINEAR", "PITCH" };
static const char *const v_i2m_completion[] = { "FLUSH_DISABLE", "FLUSH_ONLY",
						"RELEASE_SEMAPHORE" };
static const char *const v_struct_size_4_1[] = { "FOUR_WORDS", "ONE_WORD" };
static const char *const v_red_op[] = { "RED_ADD", "RED_MIN", "RED_MAX", "RED_INC",
					"RED_DEC", "RED_AND", "RED_OR", "RED_XOR" };
static const char *const v_red_format[] = { "UNSIGNED_32", "SIGNED_32" };
static const char *const v_pcas2_action[16] = {
	[CS_PCAS2_NOP] = "NOP",
	[CS_PCAS2_INVALIDATE] = "INVALIDATE",
	[CS_PCAS2_SCHEDULE] = "SCHEDULE",
	[CS_PCAS2_INVALIDATE_COPY_SCHEDULE] = "INVALIDATE_COPY_SCHEDULE",
	[CS_PCAS2_INCREMENT_PUT] = "INCREMENT_PUT",
	[CS_PCAS2_DECREMENT_DEPENDENCE] = "DECREMENT_DEPENDENCE",
	[CS_PCAS2_PREFETCH] = "PREFETCH",
	[CS_PCAS2_PREFETCH_SCHEDULE] = "PREFETCH_SCHEDULE",
	[CS_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE] = "INVALIDATE_PREFETCH_COPY_SCHEDULE",
	[CS_PCAS2_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING] =
		"INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING",
	[CS_PCAS2_INCREMENT_DEPENDENCE] = "INCREMENT_DEPENDENCE",
	[CS_PCAS2_INCREMENT_CWD_REF_COUNTER] = "INCREMENT_CWD_REF_COUNTER",
};
static const char *const v_inline_size[] = { "INLINE_256", "INLINE_384" };
static const char *const v_report_op[] = { "RELEASE", NULL, NULL, "TRAP" };
static const char *const v_ce_transfer[] = { "NONE", "PIPELINED", "NON_PIPELINED" };
static const char *const v_ce_sem_type[] = { "NONE", "RELEASE_ONE_WORD_SEMAPHORE",
					     "RELEASE_FOUR_WORD_SEMAPHORE",
					     "RELEASE_CONDITIONAL_INTR_SEMAPHORE" };
static const char *const v_ce_interrupt[] = { "NONE", "BLOCKING", "NON_BLOCKING" };
static const char *const v_ce_addr_type[] = { "VIRTUAL", "PHYSICAL" };
static const char *const v_ce_flush_type[] = { "SYS", "GL" };
static const char *const v_ce_payload_size[] = { "ONE_WORD", "TWO_WORD" };

#define FV(name, hi, lo, vals) { name, hi, lo, vals, NELEM(vals), CS_FIELD_ENUM, NULL, 0 }
#define FF(name, hi, lo) { name, hi, lo, v_false_true, NELEM(v_false_true), CS_FIELD_FLAG, NULL, 0 }
#define FN(name, hi, lo) { name, hi, lo, NULL, 0, CS_FIELD_NUMBER, NULL, 0 }
#define FC(name, hi, lo) { name, hi, lo, NULL, 0, CS_FIELD_COUNT, NULL, 0 }
/* A part of GPU virtual address `addr`: value v is address bits v << shift. */
#define FA(name, hi, lo, addr, shift) { name, hi, lo, NULL, 0, CS_FIELD_ADDRESS, addr, shift }

/* ---- field decoders --------------------------------------------------------- */

static const cs_field_desc fld_i2m_launch_dma[] = {
	FV("DST_MEMORY_LAYOUT", 0, 0, v_layout),
	FF("REDUCTION_ENABLE", 1, 1),
	FV("REDUCTION_FORMAT", 3, 2, v_red_format),
	FV("COMPLETION_TYPE", 5, 4, v_i2m_completion),
	FF("SYSMEMBAR_DISABLE", 6, 6),
	FN("INTERRUPT_TYPE", 9, 8),
	FV("SEMAPHORE_STRUCT_SIZE", 12, 12, v_struct_size_4_1),
	FV("REDUCTION_OP", 15, 13, v_red_op),
};
static const cs_field_desc fld_inv_shader_caches[] = {
	FF("INSTRUCTION", 0, 0),
	FF("LOCKS", 1, 1),
	FF("FLUSH_DATA", 2, 2),
	FF("DATA", 4, 4),
	FF("CONSTANT", 12, 12),
};
static const cs_field_desc fld_inv_shader_caches_no_wfi[] = {
	FF("INSTRUCTION", 0, 0),
	FF("GLOBAL_DATA", 4, 4),
	FF("CONSTANT", 12, 12),
};
static const cs_field_desc fld_version[] = {
	FN("CURRENT", 15, 0),
	FN("OLDEST_SUPPORTED", 31, 16),
};
static const cs_field_desc fld_send_pcas_a[] = {
	FA("QMD_ADDRESS_SHIFTED8", 31, 0, "QMD", 8),
};
static const cs_field_desc fld_send_signaling_pcas_b[] = {
	FF("INVALIDATE", 0, 0),
	FF("SCHEDULE", 1, 1),
};
static const cs_field_desc fld_send_signaling_pcas2_b[] = {
	FV("PCAS_ACTION", 3, 0, v_pcas2_action),
	FN("SELECT", 13, 8),
	FN("OFFSET_MINUS_ONE", 23, 14),
};
static const cs_field_desc fld_inline_qmd_a_v1[] = {
	FA("QMD_ADDRESS_SHIFTED8_UPPER", 31, 0, "INLINE_QMD", 40),
};
static const cs_field_desc fld_inline_qmd_a_v2[] = {
	FA("QMD_ADDRESS_SHIFTED8_UPPER", 8, 0, "INLINE_QMD", 40),
	FV("INLINE_SIZE", 30, 30, v_inline_size),
};
static const cs_field_desc fld_inline_qmd_b[] = {
	FA("QMD_ADDRESS_SHIFTED8_LOWER", 31, 0, "INLINE_QMD", 8),
};
/* Address upper halves: bits 56:32 from CBC0/C8B5 on, fewer before (clc6c0.h:
 * OFFSET_OUT_UPPER and SET_SHADER_LOCAL_MEMORY_A 16:0, SET_REPORT_SEMAPHORE_A
 * 7:0; clc6b5.h/clc7b5.h: 16:0). */
static const cs_field_desc fld_offset_out_upper_17[] = { FA("VALUE", 16, 0, "I2M_DST", 32) };
static const cs_field_desc fld_offset_out_upper_25[] = { FA("VALUE", 24, 0, "I2M_DST", 32) };
static const cs_field_desc fld_offset_out[] = { FA("VALUE", 31, 0, "I2M_DST", 0) };
static const cs_field_desc fld_line_length_in[] = { FC("VALUE", 31, 0) };
static const cs_field_desc fld_line_count[] = { FC("VALUE", 31, 0) };
static const cs_field_desc fld_pitch[] = { FC("VALUE", 31, 0) };
static const cs_field_desc fld_report_semaphore_a_8[] = { FA("OFFSET_UPPER", 7, 0, "REPORT", 32) };
static const cs_field_desc fld_report_semaphore_a_25[] = {
	FA("OFFSET_UPPER", 24, 0, "REPORT", 32),
};
static const cs_field_desc fld_report_semaphore_b[] = { FA("OFFSET_LOWER", 31, 0, "REPORT", 0) };
static const cs_field_desc fld_report_semaphore_c[] = { FN("PAYLOAD", 31, 0) };
static const cs_field_desc fld_local_memory_a_17[] = {
	FA("ADDRESS_UPPER", 16, 0, "LOCAL_MEMORY", 32),
};
static const cs_field_desc fld_local_memory_a_25[] = {
	FA("ADDRESS_UPPER", 24, 0, "LOCAL_MEMORY", 32),
};
static const cs_field_desc fld_local_memory_b[] = {
	FA("ADDRESS_LOWER", 31, 0, "LOCAL_MEMORY", 0),
};
static const cs_field_desc fld_ce_offset_in_upper_17[] = { FA("UPPER", 16, 0, "COPY_SRC", 32) };
static const cs_field_desc fld_ce_offset_in_upper_25[] = { FA("UPPER", 24, 0, "COPY_SRC", 32) };
static const cs_field_desc fld_ce_offset_in_lower[] = { FA("VALUE", 31, 0, "COPY_SRC", 0) };
static const cs_field_desc fld_ce_offset_out_upper_17[] = { FA("UPPER", 16, 0, "COPY_DST", 32) };
static const cs_field_desc fld_ce_offset_out_upper_25[] = { FA("UPPER", 24, 0, "COPY_DST", 32) };
static const cs_field_desc fld_ce_offset_out_lower[] = { FA("VALUE", 31, 0, "COPY_DST", 0) };
static const cs_field_desc fld_ce_semaphore_a_17[] = {
	FA("UPPER", 16, 0, "COPY_SEMAPHORE", 32),
};
static const cs_field_desc fld_ce_semaphore_a_25[] = {
	FA("UPPER", 24, 0, "COPY_SEMAPHORE", 32),
};
static const cs_field_desc fld_ce_semaphore_b[] = { FA("LOWER", 31, 0, "COPY_SEMAPHORE", 0) };
static const cs_field_desc fld_ce_payload[] = { FN("PAYLOAD", 31, 0) };
static const cs_field_desc fld_report_semaphore_d[] = {
	FV("OPERATION", 1, 0, v_report_op),
	FF("FLUSH_DISABLE", 2, 2),
	FF("REDUCTION_ENABLE", 3, 3),
	FV("REDUCTION_OP", 11, 9, v_red_op),
	FV("REDUCTION_FORMAT", 18, 17, v_red_format),
	FF("CONDITIONAL_TRAP", 19, 19),
	FF("AWAKEN_ENABLE", 20, 20),
	FV("STRUCTURE_SIZE", 28, 28, v_struct_size_4_1),
};

#define CE_LAUNCH_DMA_COMMON                                          \
	FV("DATA_TRANSFER_TYPE", 1, 0, v_ce_transfer),                \
	FF("FLUSH_ENABLE", 2, 2),                       \
	FV("SEMAPHORE_TYPE", 4, 3, v_ce_sem_type),                    \
	FV("INTERRUPT_TYPE", 6, 5, v_ce_interrupt),                   \
	FV("SRC_MEMORY_LAYOUT", 7, 7, v_layout),                      \
	FV("DST_MEMORY_LAYOUT", 8, 8, v_layout),                      \
	FF("MULTI_LINE_ENABLE", 9, 9),                  \
	FF("REMAP_ENABLE", 10, 10),                     \
	FF("FORCE_RMWDISABLE", 11, 11),                 \
	FV("SRC_TYPE", 12, 12, v_ce_addr_type),                       \
	FV("DST_TYPE", 13, 13, v_ce_addr_type),                       \
	FN("SEMAPHORE_REDUCTION", 17, 14),                            \
	FN("SEMAPHORE_REDUCTION_SIGN", 18, 18),                       \
	FF("SEMAPHORE_REDUCTION_ENABLE", 19, 19),       \
	FV("FLUSH_TYPE", 25, 25, v_ce_flush_type),                    \
	FF("DISABLE_PLC", 26, 26)

static const cs_field_desc fld_ce_launch_dma_v1[] = { CE_LAUNCH_DMA_COMMON };
static const cs_field_desc fld_ce_launch_dma_v2[] = {
	CE_LAUNCH_DMA_COMMON,
	FV("SEMAPHORE_PAYLOAD_SIZE", 27, 27, v_ce_payload_size),
};

/* ---- method tables ------------------------------------------------------------ */

#define F_none NULL, 0
#define F_TABLE(f) fld_##f, NELEM(fld_##f)
#define F_i2m_launch_dma F_TABLE(i2m_launch_dma)
#define F_inv_shader_caches F_TABLE(inv_shader_caches)
#define F_inv_shader_caches_no_wfi F_TABLE(inv_shader_caches_no_wfi)
#define F_version F_TABLE(version)
#define F_send_pcas_a F_TABLE(send_pcas_a)
#define F_send_signaling_pcas_b F_TABLE(send_signaling_pcas_b)
#define F_send_signaling_pcas2_b F_TABLE(send_signaling_pcas2_b)
#define F_inline_qmd_a_v1 F_TABLE(inline_qmd_a_v1)
#define F_inline_qmd_a_v2 F_TABLE(inline_qmd_a_v2)
#define F_inline_qmd_b F_TABLE(inline_qmd_b)
#define F_report_semaphore_d F_TABLE(report_semaphore_d)
#define F_ce_launch_dma_v1 F_TABLE(ce_launch_dma_v1)
#define F_ce_launch_dma_v2 F_TABLE(ce_launch_dma_v2)
#define F_offset_out_upper_17 F_TABLE(offset_out_upper_17)
#define F_offset_out_upper_25 F_TABLE(offset_out_upper_25)
#define F_offset_out F_TABLE(offset_out)
#define F_line_length_in F_TABLE(line_length_in)
#define F_line_count F_TABLE(line_count)
#define F_pitch F_TABLE(pitch)
#define F_report_semaphore_a_8 F_TABLE(report_semaphore_a_8)
#define F_report_semaphore_a_25 F_TABLE(report_semaphore_a_25)
#define F_report_semaphore_b F_TABLE(report_semaphore_b)
#define F_report_semaphore_c F_TABLE(report_semaphore_c)
#define F_local_memory_a_17 F_TABLE(local_memory_a_17)
#define F_local_memory_a_25 F_TABLE(local_memory_a_25)
#define F_local_memory_b F_TABLE(local_memory_b)
#define F_ce_offset_in_upper_17 F_TABLE(ce_offset_in_upper_17)
#define F_ce_offset_in_upper_25 F_TABLE(ce_offset_in_upper_25)
#define F_ce_offset_in_lower F_TABLE(ce_offset_in_lower)
#define F_ce_offset_out_upper_17 F_TABLE(ce_offset_out_upper_17)
#define F_ce_offset_out_upper_25 F_TABLE(ce_offset_out_upper_25)
#define F_ce_offset_out_lower F_TABLE(ce_offset_out_lower)
#define F_ce_semaphore_a_17 F_TABLE(ce_semaphore_a_17)
#define F_ce_semaphore_a_25 F_TABLE(ce_semaphore_a_25)
#define F_ce_semaphore_b F_TABLE(ce_semaphore_b)
#define F_ce_payload F_TABLE(ce_payload)

#define KEEP(...) __VA_ARGS__
#define DROP(...)
#define CS_GR_M(when, name, off, cnt, str, f) SEL_##when({ #name, off, cnt, str, F_##f },)

/* C6C0, C7C0, C9C0 */
#define SEL_ALL KEEP
#define SEL_PRE_H KEEP
#define SEL_H_UP DROP
static const cs_method_desc m_compute_v1[] = {
#include "compute.def"
};
#undef SEL_PRE_H
#undef SEL_H_UP

/* CBC0, CDC0, CEC0 */
#define SEL_PRE_H DROP
#define SEL_H_UP KEEP
static const cs_method_desc m_compute_v2[] = {
#include "compute.def"
};
#undef SEL_PRE_H
#undef SEL_H_UP

/* C6B5 */
#define SEL_C6 KEEP
#define SEL_C7_UP DROP
#define SEL_U17 KEEP
#define SEL_U25 DROP
static const cs_method_desc m_copy_v1[] = {
#include "copy.def"
};
#undef SEL_C6
#undef SEL_C7_UP

/* C7B5 */
#define SEL_C6 DROP
#define SEL_C7_UP KEEP
static const cs_method_desc m_copy_v2[] = {
#include "copy.def"
};
#undef SEL_U17
#undef SEL_U25

/* C8B5, C9B5 */
#define SEL_U17 DROP
#define SEL_U25 KEEP
static const cs_method_desc m_copy_v3[] = {
#include "copy.def"
};
#undef SEL_C6
#undef SEL_C7_UP
#undef SEL_U17
#undef SEL_U25
#undef SEL_ALL
#undef CS_GR_M

#define CLASS(id, name, src, tbl) { id, name, "NVIDIA/open-gpu-doc " src, tbl, NELEM(tbl) }

static const cs_class_desc gr_classes[] = {
	CLASS(0xC6C0, "AMPERE_COMPUTE_A", "classes/compute/clc6c0.h", m_compute_v1),
	CLASS(0xC7C0, "AMPERE_COMPUTE_B", "classes/compute/clc7c0.h", m_compute_v1),
	CLASS(0xC9C0, "ADA_COMPUTE_A", "classes/compute/clc9c0.h", m_compute_v1),
	CLASS(0xCBC0, "HOPPER_COMPUTE_A", "classes/compute/clcbc0.h", m_compute_v2),
	CLASS(0xCDC0, "BLACKWELL_COMPUTE_A", "classes/compute/clcdc0.h", m_compute_v2),
	CLASS(0xCEC0, "BLACKWELL_COMPUTE_B", "classes/compute/clcec0.h", m_compute_v2),
	CLASS(0xC6B5, "AMPERE_DMA_COPY_A", "classes/dma-copy/clc6b5.h", m_copy_v1),
	CLASS(0xC7B5, "AMPERE_DMA_COPY_B", "classes/dma-copy/clc7b5.h", m_copy_v2),
	CLASS(0xC8B5, "HOPPER_DMA_COPY_A", "classes/dma-copy/clc8b5.h", m_copy_v3),
	CLASS(0xC9B5, "BLACKWELL_DMA_COPY_A", "classes/dma-copy/clc9b5.h", m_copy_v3),
};

const cs_class_desc *cs_gr_class(uint32_t cls)
{
	for (unsigned i = 0; i < NELEM(gr_classes); i++)
		if (gr_classes[i].id == cls)
			return &gr_classes[i];
	return NULL;
}

/* ---- names and limits ----------------------------------------------------------- */

const char *cs_pcas2_action_name(uint32_t action)
{
	return action < NELEM(v_pcas2_action) ? v_pcas2_action[action] : NULL;
}

bool cs_pcas2_action_valid(uint32_t cls, uint32_t action)
{
	if (!cs_pcas2_action_name(action))
		return false;
	/* clc6c0.h stops at 0xB; INCREMENT_DEPENDENCE and INCREMENT_CWD_REF_COUNTER
	 * appear from clc7c0.h on. */
	if (!cs_class_has(cls, CS_CF_PCAS2_DEPENDENCE) &&
	    action > CS_PCAS2_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING)
		return false;
	return true;
}

bool cs_pcas2_action_schedules(uint32_t action)
{
	switch (action) {
	case CS_PCAS2_SCHEDULE:
	case CS_PCAS2_INVALIDATE_COPY_SCHEDULE:
	case CS_PCAS2_PREFETCH_SCHEDULE:
	case CS_PCAS2_INVALIDATE_PREFETCH_COPY_SCHEDULE:
		return true;
	default:
		return false;
	}
}

const char *cs_dep_action_name(uint32_t action)
{
	switch (action) {
	case CS_DEP_INCREMENT_PUT: return "INCREMENT_PUT";
	case CS_DEP_SCHEDULE: return "SCHEDULE";
	case CS_DEP_INVALIDATE_COPY_SCHEDULE: return "INVALIDATE_COPY_SCHEDULE";
	case CS_DEP_DECREMENT_DEPENDENCE: return "DECREMENT_DEPENDENCE";
	default: return NULL;
	}
}

/* Per-CTA shared memory limits. The public class headers do not state them;
 * they are the CUDA programming guide's per-block maxima (compute capability
 * 8.0: 163 KiB usable of 164; 8.6/8.9: 99 KiB usable of 100; 9.0 and 10.x:
 * 227 KiB), so every figure is marked assumed. */
uint32_t cs_gr_shared_limit(uint32_t cls, bool *assumed)
{
	uint32_t limit;
	switch (cls) {
	case 0xC6C0: limit = 164u * 1024u; break;
	case 0xC7C0:
	case 0xC9C0: limit = 100u * 1024u; break;
	case 0xCBC0:
	case 0xCDC0:
	case 0xCEC0: limit = 227u * 1024u; break;
	default: limit = 0; break;
	}
	if (assumed)
		*assumed = limit != 0;
	return limit;
}

