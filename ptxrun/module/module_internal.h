/* SPDX-License-Identifier: MIT */
/* Private to ptxrun/module/: the module object and the parsers that fill it. */
#ifndef CHAINSIM_PTXRUN_MODULE_INTERNAL_H
#define CHAINSIM_PTXRUN_MODULE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chainsim/diag.h"
#include "chainsim/ptxrun.h"

/* ELF and container constants this loader checks (public: the ELF spec, the
 * EIATTR numbering cuobjdump prints, the fatbin layout nvcc writes). */
enum {
	CS_EM_CUDA = 190,
	CS_ELF_HDR_SIZE = 64,
	CS_ELF_SHDR_SIZE = 64,
	CS_ELF_SYM_SIZE = 24,

	/* .nv.info record formats */
	CS_EIFMT_NVAL = 1, /* no value: 2 bytes of zero follow */
	CS_EIFMT_BVAL = 2, /* one byte value, one pad */
	CS_EIFMT_HVAL = 3, /* 16-bit value */
	CS_EIFMT_SVAL = 4, /* 16-bit length, then that many bytes */

	/* .nv.info attributes the loader reads */
	CS_EIATTR_MAX_THREADS = 0x05,
	CS_EIATTR_PARAM_CBANK = 0x0a,
	CS_EIATTR_REQNTID = 0x10,
	CS_EIATTR_FRAME_SIZE = 0x11,
	CS_EIATTR_MIN_STACK_SIZE = 0x12,
	CS_EIATTR_KPARAM_INFO = 0x17,
	CS_EIATTR_CBANK_PARAM_SIZE = 0x19,
	CS_EIATTR_MAXREG_COUNT = 0x1b,
	CS_EIATTR_REGCOUNT = 0x2f,
	CS_EIATTR_CUDA_API_VERSION = 0x37,
	CS_EIATTR_NUM_BARRIERS = 0x4c,

	/* fatbin container */
	CS_FATBIN_HDR_SIZE = 16,
	CS_FATBIN_ENTRY_MIN = 0x40,
	CS_FATBIN_FLAG_64BIT = 0x1,
	CS_FATBIN_FLAG_DEBUG = 0x2,
	CS_FATBIN_FLAG_LINUX = 0x10,
	CS_FATBIN_FLAG_COMPRESS_LZ = 0x2000,   /* nvcc up to 12.x: its own LZ scheme */
	CS_FATBIN_FLAG_COMPRESS_ZSTD = 0x8000, /* nvcc 13: a zstd frame */
};

#define CS_FATBIN_MAGIC 0xba55ed50u

struct cs_module {
	unsigned refs;
	char *name;
	cs_arch arch;
	bool is_fatbin;
	uint8_t *file;          /* the whole input, owned; SASS code points into it */
	size_t file_len;
	char *ptx;              /* NUL-terminated, owned; NULL when none */
	size_t ptx_len;
	char *ptx_file;         /* the file the PTX came from, for diagnostics; NULL: name */
	char ptx_note[320];     /* why there is no PTX, for messages */
	cs_kernel_info *kernels;
	size_t nkernels;
	cs_fatbin_entry *entries;
	size_t nentries;
	uint8_t *inflated[2];   /* decompressed SASS and PTX entries, owned */
};

/* Little-endian reads from a buffer already bounds-checked by the caller. */
static inline uint16_t cs_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t cs_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}
static inline uint64_t cs_rd64(const uint8_t *p)
{
	return (uint64_t)cs_rd32(p) | ((uint64_t)cs_rd32(p + 4) << 32);
}
/* Whether [off, off + size) lies inside [0, len), overflow included. */
static inline bool cs_range_ok(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

/* Parse the cubin at elf[0..len) and append its kernels to m. elf must stay
 * alive as long as m (it is m->file or one of m->inflated). Error offsets are
 * base + the offset in the cubin, and the message ends with where (may be
 * NULL) to say what they count in. */
bool cs_cubin_parse(cs_module *m, const uint8_t *elf, size_t len, uint64_t base,
		    const char *where, cs_diag *d);
/* The SM of a cubin (from e_flags), 0 when the header is not a CUDA ELF. */
unsigned cs_cubin_sm(const uint8_t *elf, size_t len);
/* Walk a fatbin container: fill m->entries, pick the SASS and PTX entries for
 * m->arch, parse the SASS and copy the PTX. */
bool cs_fatbin_parse(cs_module *m, cs_diag *d);
/* Decode the Zstandard frames in src[0..len) (file offset base, for messages)
 * into dst[0..cap); *out_len gets the bytes produced. RFC 8878, no
 * dictionaries; the content checksum is verified when present. */
bool cs_zstd_decompress(const uint8_t *src, size_t len, uint64_t base, const char *name,
			uint8_t *dst, size_t cap, size_t *out_len, cs_diag *d);
/* Mark each kernel's has_ptx from the entries the PTX text declares. */
void cs_module_scan_ptx(cs_module *m);

#endif
