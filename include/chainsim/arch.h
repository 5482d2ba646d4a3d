/* GPU generations and the classes each accepts: the one table (include/chainsim/arch.def,
 * base/classes.def) that the front end, the engines and the tools all read. */
#ifndef CHAINSIM_ARCH_H
#define CHAINSIM_ARCH_H

#include <stdbool.h>
#include <stdint.h>

typedef enum cs_arch {
#define CS_ARCH(e, name, host, compute, copy, qmd, va) CS_ARCH_##e,
#include "chainsim/arch.def"
#undef CS_ARCH
	CS_ARCH_COUNT
} cs_arch;

typedef enum cs_class_kind {
	CS_CLASS_NONE = 0, /* not a class chainsim knows */
	CS_CLASS_HOST,
	CS_CLASS_COMPUTE,
	CS_CLASS_COPY,
	CS_CLASS_UNMODELLED, /* a real class (3D, 2D) the model does not execute */
} cs_class_kind;

typedef struct cs_arch_info {
	cs_arch arch;
	const char *name;
	uint32_t host_class;
	uint32_t compute_class; /* canonical compute class for `launch` */
	uint32_t copy_class;    /* canonical copy class for `copy` */
	unsigned qmd_major;     /* 3 = V03_00, 4 = V04_00, 5 = V05_00 */
	unsigned va_bits;       /* 49 below Hopper, 57 from Hopper on */
} cs_arch_info;

const cs_arch_info *cs_arch_get(cs_arch arch);
/* Parse "ampere" etc.; false when unknown. */
bool cs_arch_from_name(const char *name, cs_arch *out);

/* Class lookup: kind and name for any known class id (NULL/NONE when unknown). */
cs_class_kind cs_class_kind_of(uint32_t cls);
const char *cs_class_name(uint32_t cls);
/* Whether the generation accepts the class on a channel. */
bool cs_class_valid_for(uint32_t cls, cs_arch arch);
/* The classes of one kind valid for the arch, comma separated, for messages. */
void cs_class_list_for(cs_arch arch, cs_class_kind kind, char *buf, unsigned len);
const char *cs_class_kind_name(cs_class_kind kind);

#endif
