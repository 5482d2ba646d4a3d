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

typedef struct cs_field_desc {
	const char *name;          /* "OPERATION" */
	uint8_t hi, lo;            /* bit range within the method's data dword */
	const char *const *values; /* value names indexed by value (NULL entries allowed) */
	unsigned nvalues;          /* length of values, 0 for a plain number */
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
/* The value of one field of a data dword. */
static inline uint32_t cs_field_get(const cs_field_desc *f, uint32_t data)
{
	unsigned width = (unsigned)(f->hi - f->lo + 1);
	uint32_t mask = width >= 32 ? 0xffffffffu : ((1u << width) - 1u);
	return (data >> f->lo) & mask;
}

#ifdef __cplusplus
}
#endif

#endif
