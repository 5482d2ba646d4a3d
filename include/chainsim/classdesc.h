/* SPDX-License-Identifier: MIT */
/* How a class's methods are described: one table per class, generated from an
 * X-macro .def file by the module that owns the class (fe/ for host classes, gr/
 * for compute and copy). The decoder, the assembler, disasm and the REPL read
 * the same table. */
#ifndef CHAINSIM_CLASSDESC_H
#define CHAINSIM_CLASSDESC_H

#include "chainsim/api.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a field's value means. An address part is a slice of a GPU virtual
 * address (never a physical one): value v stands for address bits v << shift,
 * and the parts sharing one address name make up that address together. */
typedef enum cs_field_kind {
	CS_FIELD_NUMBER = 0, /* a plain number */
	CS_FIELD_ENUM,       /* named values (values/nvalues) */
	CS_FIELD_COUNT,      /* a count or a size */
	CS_FIELD_FLAG,       /* one bit that turns something on or off */
	CS_FIELD_ADDRESS,    /* a part of the virtual address named by addr */
} cs_field_kind;

typedef struct cs_field_desc {
	const char *name;          /* "OPERATION" */
	uint8_t hi, lo;            /* bit range within the method's data dword */
	const char *const *values; /* value names indexed by value (NULL entries allowed) */
	unsigned nvalues;          /* length of values, 0 for a plain number */
	cs_field_kind kind;
	const char *addr;          /* CS_FIELD_ADDRESS: the address ("SEMAPHORE", "QMD"...) */
	uint8_t addr_shift;        /* CS_FIELD_ADDRESS: value v is address bits v << addr_shift */
} cs_field_desc;

typedef struct cs_method_desc {
	const char *name;          /* "SEM_EXECUTE", "LOAD_INLINE_QMD_DATA" */
	uint32_t offset;           /* byte offset of element 0 */
	uint32_t count;            /* 1, or the element count of an array method */
	uint32_t stride;           /* bytes between elements of an array method */
	const cs_field_desc *fields;
	unsigned nfields;
} cs_method_desc;

typedef struct cs_class_desc {
	uint32_t id;
	const char *name;
	const char *source;        /* the public header the table was written from */
	const cs_method_desc *methods;
	unsigned nmethods;
} cs_class_desc;

/* The method at a byte offset; *index gets the array element (0 for plain). */
CS_API const cs_method_desc *cs_class_method_at(const cs_class_desc *cls, uint32_t offset,
					  uint32_t *index);
/* Resolve "NAME" or "NAME(i)" (array element) to a byte offset. */
CS_API bool cs_class_method_named(const cs_class_desc *cls, const char *name, uint32_t *offset);
/* "NAME" or "NAME(i)" for an offset; false when the class has no such method. */
CS_API bool cs_class_method_label(const cs_class_desc *cls, uint32_t offset, char *buf, size_t len);
/* Decode a data dword by the method's fields: "OPERATION=RELEASE PAYLOAD_SIZE=1".
 * Returns the length written (0 when the method has no fields). */
CS_API size_t cs_method_format_fields(const cs_method_desc *m, uint32_t data, char *buf,
		size_t len);
/* Bits hi:lo of a data dword, and value v placed at bits hi:lo. Compile-time
 * when hi and lo are: the accessors each module generates from its field
 * tables (gr/fields.def, include/chainsim/hostclass.def) are built on these. */
#define CS_BITS_MASK(hi, lo) (0xffffffffu >> (31u - (unsigned)(hi) + (unsigned)(lo)))
#define CS_BITS_GET(data, hi, lo) (((uint32_t)(data) >> (lo)) & CS_BITS_MASK(hi, lo))
#define CS_BITS_PUT(hi, lo, v) (((uint32_t)(v) & CS_BITS_MASK(hi, lo)) << (lo))

/* The value of one field of a data dword. */
static inline uint32_t cs_field_get(const cs_field_desc *f, uint32_t data)
{
	unsigned width = (unsigned)(f->hi - f->lo + 1);
	uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
	return (data >> f->lo) & mask;
}

/* The address bits an address-part field contributes: its value << addr_shift. */
static inline uint64_t cs_field_addr_bits(const cs_field_desc *f, uint32_t data)
{
	return (uint64_t)cs_field_get(f, data) << f->addr_shift;
}
/* data with field f replaced by address bits [addr_shift, addr_shift + width)
 * of addr; the bits below and above are other parts' (cs_class_addr_bits). */
static inline uint32_t cs_field_addr_put(const cs_field_desc *f, uint32_t data, uint64_t addr)
{
	unsigned width = (unsigned)(f->hi - f->lo + 1);
	uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
	uint32_t v = (uint32_t)(addr >> f->addr_shift) & mask;
	return (data & ~(mask << f->lo)) | (v << f->lo);
}
/* The number of address bits the field holds (its width). */
static inline unsigned cs_field_width(const cs_field_desc *f)
{
	return (unsigned)(f->hi - f->lo + 1);
}
/* addr with the address bits part f carries replaced by data's: an address
 * latched from its parts as their methods arrive, in any order. */
static inline uint64_t cs_field_addr_merge(const cs_field_desc *f, uint64_t addr, uint32_t data)
{
	unsigned width = cs_field_width(f);
	uint64_t mask = width >= 32 ? 0xffffffffull : ((1ull << width) - 1u);
	return (addr & ~(mask << f->addr_shift)) | cs_field_addr_bits(f, data);
}

/* One address-part field of a class: the method (and its element) carrying it. */
typedef struct cs_addr_part {
	const cs_method_desc *method;
	const cs_field_desc *field;
} cs_addr_part;
/* The address-part fields of a class, in table order: fills up to max of out
 * and returns how many there are. */
CS_API unsigned cs_class_addr_parts(const cs_class_desc *cls, cs_addr_part *out, unsigned max);
/* The part of address `addr` carried by method offset `offset` (element 0 of an
 * array method), or NULL. */
CS_API const cs_field_desc *cs_class_addr_field(const cs_class_desc *cls, const char *addr,
						 uint32_t offset);
/* The first address-part field whose method is at offset, or NULL. */
CS_API const cs_field_desc *cs_method_addr_field(const cs_method_desc *m);
/* The highest address bit plus one that the parts of `addr` in cls can hold
 * (e.g. 57 when an upper part holds bits 56:32); 0 when cls has no such address. */
CS_API unsigned cs_class_addr_bits(const cs_class_desc *cls, const char *addr);

#ifdef __cplusplus
}
#endif

#endif
