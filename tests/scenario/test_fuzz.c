/* SPDX-License-Identifier: MIT */
/* Fuzz-style: valid scenarios mutated with a fixed seed must never crash the
 * parser or the assembler (run under ASan+UBSan in CI); every rejection must
 * carry a location inside the text. Random bytes into disasm likewise. */
#include <stdio.h>

#include "common.h"
#include "scn.h"

static const char *const seeds[] = {
	"arch hopper\n"
	"alloc buf 0x10000 align=0x10000\n"
	"alloc fixed 4096 at=0x300000000\n"
	"data buf u8 1 2 0xff -1\n"
	"data buf+16 u16 0xffff\n"
	"data buf+32 u32 1 lo(buf) hi(buf) (buf>>8)&0xff|1\n"
	"data buf+64 u64 buf 0xffffffffffffffff\n"
	"data buf+128 f32 1.5 -2 1e-3 0x3f800000 f32:2.5 inf nan\n"
	"data buf+256 f64 3.25\n"
	"fill buf+512 64 0xab\n"
	"random buf+4096 f32 256 seed=7 min=-1 max=1\n"
	"random buf+8192 u32 16 seed=0x1234 min=10 max=20\n"
	"qmd q program=buf grid=4,1,1 block=128 shared=0 regs=32 cbank0=buf,0x210 "
	"release0=fixed,1 dependent=buf,SCHEDULE\n"
	"push pb\n"
	"  inc 1 SET_OBJECT 0xcbc0\n"
	"  1 SEND_PCAS_A q>>8\n"
	"  ninc 1 LOAD_INLINE_DATA 1 2 3\n"
	"  once 1 LOAD_INLINE_QMD_DATA(0) 1 2\n"
	"  imm 0 NOP 0x1fff\n"
	"  inc 0 0x5c 1 2 3 4 5\n"
	"  raw 0x20010000 0xc6c0 @q\n"
	"  @q\n"
	"  bind 3 0x902d\n"
	"  copy buf fixed 256\n"
	"  copy buf fixed 256 sem=fixed+16,7\n"
	"  release fixed 1\n"
	"  acquire fixed 0x100000000 u64\n"
	"end\n"
	"expect mem buf u32 1\n"
	"expect mem buf+128 f32 1.5 -2 tol=0.001\n"
	"expect stage 1 fired\n"
	"expect stage fe-exec not-fired\n"
	"expect break 5\n"
	"expect complete\n",

	"arch ampere\n"
	"channel second entries=64\n"
	"alloc a 4096\nalloc b 4096\nalloc sem 16\n"
	"push p\n  inc 4 SET_OBJECT 0xc7b5\n  copy b a 64 sem=sem,1\n  release sem+8 2\nend\n"
	"push q\n  acquire sem 1\n  @p\nend\n"
	"gpfifo p\ngpfifo q+4,2 sync\ngpfifo-raw 0 0x1000\nsubmit\n"
	"wait sem == 1\nwait sem+8 == 2 u64\n"
	"expect mem b u32 0 0 0 0\nexpect break none\n",
};

#include "mutate.h"

static unsigned count_lines(const char *t)
{
	unsigned n = 1;
	for (; *t; t++)
		n += *t == '\n';
	return n;
}

Test(fuzz, mutated_scenarios_never_crash)
{
	uint64_t st = 0xf022;
	unsigned parsed = 0, rejected = 0, assembled = 0;
	for (unsigned iter = 0; iter < 20000; iter++) {
		const char *src = seeds[iter % (sizeof(seeds) / sizeof(seeds[0]))];
		char *text = scn_mutate(&st, src, true);
		cs_diag d;
		cs_scenario *s = cs_scenario_parse(text, strlen(text), "fz.chain", ".", &d);
		if (!s) {
			rejected++;
			cr_assert_eq(d.status, CS_ERR_INPUT, "iter %u: %s", iter, d.msg);
			cr_assert(d.line >= 1 && d.line <= count_lines(text) && d.col >= 1,
				  "iter %u: location %u:%u outside the text: %s\n---\n%s", iter, d.line,
				  d.col, d.msg, text);
			cr_assert_str_eq(d.file, "fz.chain");
			g_free(text);
			continue;
		}
		parsed++;
		cs_mem *mem = cs_mem_new(cs_arch_get(cs_scenario_arch(s))->va_bits);
		if (scn_assemble(s, mem, &d))
			assembled++;
		else
			cr_assert(d.line >= 1 && d.line <= count_lines(text),
				  "iter %u: assembly error without a location: %s\n---\n%s", iter,
				  d.msg, text);
		cs_mem_free(mem);
		cs_scenario_free(s);
		g_free(text);
	}
	/* the mutations reach both sides */
	cr_assert_gt(rejected, 500);
	cr_assert_gt(parsed, 300);
	cr_assert_gt(assembled, 50);
}

Test(fuzz, random_bytes_into_disasm)
{
	uint64_t st = 0xd15a;
	unsigned ok = 0, bad = 0;
	for (unsigned iter = 0; iter < 10000; iter++) {
		size_t len = (size_t)(cs_scenario_rand_next(&st) % 200);
		uint8_t *b = g_malloc(len + 1);
		for (size_t i = 0; i < len; i++) {
			uint64_t r = cs_scenario_rand_next(&st);
			/* bias the top byte of each dword towards valid SEC_OPs */
			b[i] = (uint8_t)((i % 4 == 3 && (r & 1)) ? (0x20 | (r >> 8 & 0x1f)) : r >> 16);
		}
		cs_disasm_opts o = { .arch = (cs_arch)(iter % CS_ARCH_COUNT) };
		cs_diag d;
		char *t = cs_scenario_disasm(b, len, &o, &d);
		if (t) {
			ok++;
			/* what disasm accepts, the parser accepts */
			cs_scenario *s = cs_scenario_parse(t, strlen(t), "d.chain", ".", &d);
			cr_assert_not_null(s, "iter %u: %s\n%s", iter, d.msg, t);
			cs_scenario_free(s);
			free(t);
		} else {
			bad++;
			cr_assert(d.has_offset && d.offset <= len, "iter %u: %s", iter, d.msg);
		}
		g_free(b);
	}
	cr_assert_gt(ok, 100);
	cr_assert_gt(bad, 100);
}
