/* SPDX-License-Identifier: MIT */
/* The RV64GC decoder (gsp/rvdis.c) cross-checked against Capstone's RISC-V
 * disassembler, when the build found a Capstone that has one: Capstone 5.0 or
 * later (meson.build, capstone_riscv). Every instruction of the fixture ELFs'
 * code, as the mapping symbols mark it, is valid in both or in neither and
 * has the same length. Without such a Capstone this test says that the
 * cross-check is excluded and why, and exits 77, so meson lists it as SKIP by
 * name; it never passes having checked nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "chainsim/gsp.h"

#ifdef CS_TEST_CAPSTONE_RISCV
#include <capstone/capstone.h>

/* Compares one code stretch [addr, end) of seg; returns the mismatches. */
static unsigned check_stretch(csh cs, const cs_gsp_segment *seg, uint64_t addr, uint64_t end,
			      bool compressed, const char *elf, unsigned *checked)
{
	unsigned bad = 0;
	while (addr < end) {
		const uint8_t *p = seg->data + (addr - seg->addr);
		size_t left = (size_t)(end - addr);
		cs_rv_insn ours;
		bool ours_ok = cs_rv_decode_isa(p, left, addr, compressed, &ours);
		cs_insn *theirs = NULL;
		size_t n = cs_disasm(cs, p, left, addr, 1, &theirs);
		size_t step = ours.len ? ours.len : 2;
		if (ours_ok != (n == 1) || (n == 1 && theirs->size != ours.len)) {
			if (bad++ < 10)
				fprintf(stderr, "%s: 0x%llx: ours %s (%u bytes), Capstone %s (%u bytes)\n",
					elf, (unsigned long long)addr, ours_ok ? "valid" : "invalid",
					ours.len, n == 1 ? theirs->mnemonic : "invalid",
					n == 1 ? (unsigned)theirs->size : 0u);
		}
		if (n)
			cs_free(theirs, n);
		(*checked)++;
		addr += step;
	}
	return bad;
}

static unsigned check_elf(const char *elf, unsigned *checked)
{
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char path[4096];
	snprintf(path, sizeof(path), "%s/fixtures/firmware/%s", root ? root : ".", elf);
	cs_gsp_image *img = NULL;
	cs_diag d;
	cs_diag_clear(&d);
	if (cs_gsp_image_load(path, 0, &img, &d) != CS_OK) {
		fprintf(stderr, "%s: %s\n", path, d.msg);
		return 1;
	}
	csh with_c, without_c;
	if (cs_open(CS_ARCH_RISCV, CS_MODE_RISCV64 | CS_MODE_RISCVC, &with_c) != CS_ERR_OK ||
	    cs_open(CS_ARCH_RISCV, CS_MODE_RISCV64, &without_c) != CS_ERR_OK) {
		fprintf(stderr, "Capstone has RISC-V in its header but cs_open refuses it\n");
		cs_gsp_image_free(img);
		return 1;
	}
	unsigned bad = 0;
	for (size_t s = 0; s < img->nseg; s++) {
		const cs_gsp_segment *seg = &img->seg[s];
		if (!(seg->flags & 1)) /* PF_X */
			continue;
		for (uint64_t addr = seg->addr, stop = seg->addr + seg->filesz; addr < stop;) {
			uint64_t end = stop;
			cs_gsp_bytes kind = cs_gsp_image_bytes_at(img, addr, &end);
			if (end > stop)
				end = stop;
			if (kind != CS_GSP_BYTES_DATA)
				bad += check_stretch(kind == CS_GSP_BYTES_CODE ? with_c : without_c, seg,
						     addr, end, kind == CS_GSP_BYTES_CODE, elf, checked);
			addr = end;
		}
	}
	cs_close(&with_c);
	cs_close(&without_c);
	cs_gsp_image_free(img);
	return bad;
}

int main(void)
{
	static const char *const elves[] = { "gsp-fixture.elf", "gsp-fixture-defect.elf",
					     "rv64gc-coverage.elf" };
	unsigned bad = 0, checked = 0;
	for (size_t i = 0; i < sizeof(elves) / sizeof(elves[0]); i++)
		bad += check_elf(elves[i], &checked);
	printf("gsp-disasm-capstone: %u instructions checked against Capstone %u.%u, %u differ\n",
	       checked, CS_API_MAJOR, CS_API_MINOR, bad);
	return bad == 0 && checked > 1000 ? 0 : 1;
}
#else
int main(void)
{
	printf("gsp-disasm-capstone: the cross-check of the RV64 decoder against Capstone is "
	       "excluded: this build found no Capstone with RISC-V (that takes Capstone 5.0 or "
	       "later; Debian 12 ships 4.0.2, which has none). The decoder is still checked "
	       "against binutils objdump (gsp-disasm).\n");
	return 77; /* meson: skipped */
}
#endif
