/* SPDX-License-Identifier: MIT */
/* The .chain parser: the malformed corpus (every file's expected location
 * and phrase), expressions, name resolution in file order, every form, and
 * the class registry's method-naming rules. */
#include <math.h>
#include <stdio.h>

#include "chainsim/fe.h"
#include "chainsim/gr.h"
#include "chainsim/registry.h"
#include "common.h"
#include "scn.h"

/* ---- the malformed corpus ---------------------------------------------- */

/* Each tests/scenario/malformed/NAME.chain begins "# expect: LINE:COL: PHRASE". */
Test(malformed, every_file_fails_where_its_header_says)
{
	char *dir = scn_test_path("malformed");
	GDir *gd = g_dir_open(dir, 0, NULL);
	cr_assert(gd, "cannot open %s", dir);
	const char *fn;
	unsigned n = 0, bad = 0;
	GString *report = g_string_new(NULL);
	while ((fn = g_dir_read_name(gd))) {
		if (!g_str_has_suffix(fn, ".chain"))
			continue;
		char *path = g_build_filename(dir, fn, NULL);
		gchar *text;
		gsize len;
		cr_assert(g_file_get_contents(path, &text, &len, NULL));
		unsigned line = 0, col = 0;
		char phrase[256] = "";
		int got = sscanf(text, "# expect: %u:%u: %255[^\n]", &line, &col, phrase);
		cr_assert_eq(got, 3, "%s: no '# expect: LINE:COL: PHRASE' header", fn);
		cs_diag d;
		cs_scenario *s = cs_scenario_load(path, &d);
		char msg[1024];
		cs_diag_format(&d, msg, sizeof(msg));
		if (s) {
			g_string_append_printf(report, "%s: parsed without error\n", fn);
			bad++;
			cs_scenario_free(s);
		} else if (d.line != line || d.col != col || !strstr(d.msg, phrase) ||
			   strcmp(d.file, path) != 0 || d.status != CS_ERR_INPUT) {
			g_string_append_printf(report, "%s: got '%s', expected %u:%u '%s'\n", fn, msg,
					       line, col, phrase);
			bad++;
		}
		n++;
		g_free(text);
		g_free(path);
	}
	g_dir_close(gd);
	g_free(dir);
	cr_assert_geq(n, 20, "only %u malformed scenarios", n);
	cr_assert_eq(bad, 0, "%u of %u malformed scenarios answered wrongly:\n%s", bad, n,
		     report->str);
	g_string_free(report, TRUE);
}

Test(malformed, a_missing_file_is_a_diagnosis)
{
	cs_diag d;
	cr_assert_null(cs_scenario_load("/nonexistent/x.chain", &d));
	cr_assert_eq(d.status, CS_ERR_INPUT);
	cr_assert_str_eq(d.file, "/nonexistent/x.chain");
}

/* ---- expressions ---------------------------------------------------------- */

typedef struct names {
	const char *name[4];
	uint64_t value[4];
} names;

static bool lookup(void *ctx, const scn_expr *e, uint64_t *out, cs_diag *d)
{
	names *n = ctx;
	for (unsigned i = 0; i < 4 && n->name[i]; i++)
		if (!strcmp(n->name[i], e->name)) {
			*out = n->value[i];
			return true;
		}
	cs_diag_at_text(d, CS_ERR_INPUT, "t", e->loc.line, e->loc.col, "no %s", e->name);
	return false;
}

#define EV_EQ(t, v) cr_assert_eq(ev(t), (uint64_t)(v), "%s = 0x%llx", t, (unsigned long long)ev(t))

static uint64_t ev(const char *text)
{
	cs_diag d;
	cs_scenario *s = scn_parse_ok("");
	size_t pos = 0;
	scn_expr *e = scn_expr_parse(s, text, strlen(text), &pos, 1, &d);
	cr_assert(e, "'%s': %s", text, d.msg);
	cr_assert_eq(pos, strlen(text), "'%s' stopped at %zu", text, pos);
	names n = { { "buf", "m.vadd", "l0.sem" }, { 0x200000000ull, 0x200001000ull, 0x200002010ull } };
	uint64_t v = 0;
	cr_assert(scn_expr_eval(s, e, lookup, &n, &v, &d), "'%s': %s", text, d.msg);
	cs_scenario_free(s);
	return v;
}

static void ev_fails(const char *text, uint32_t col, const char *phrase)
{
	cs_diag d;
	cs_scenario *s = scn_parse_ok("");
	size_t pos = 0;
	scn_expr *e = scn_expr_parse(s, text, strlen(text), &pos, 7, &d);
	if (e) {
		names n = { { "buf" }, { 0x1000 } };
		uint64_t v;
		cr_assert_not(scn_expr_eval(s, e, lookup, &n, &v, &d), "'%s' evaluated", text);
	}
	cr_assert_eq(d.line, 7);
	cr_assert_eq(d.col, col, "'%s': col %u, expected %u (%s)", text, d.col, col, d.msg);
	cr_assert(strstr(d.msg, phrase), "'%s': '%s' lacks '%s'", text, d.msg, phrase);
	cs_scenario_free(s);
}

Test(expr, numbers)
{
	EV_EQ("123", 123);
	EV_EQ("0x7b", 0x7b);
	EV_EQ("0XFFFFFFFFFFFFFFFF", UINT64_MAX);
	EV_EQ("18446744073709551615", UINT64_MAX);
	EV_EQ("f32:1.5", 0x3fc00000);
	EV_EQ("f32:-2", 0xc0000000);
	EV_EQ("f32:1e-3", 0x3a83126f);
	EV_EQ("f32:0", 0);
}

Test(expr, operators_and_precedence)
{
	EV_EQ("buf", 0x200000000ull);
	EV_EQ("buf+16", 0x200000010ull);
	EV_EQ("buf-0x10", 0x1fffffff0ull);
	EV_EQ("lo(buf+4)", 4);
	EV_EQ("hi(buf)", 2);
	EV_EQ("buf>>8", 0x2000000);
	EV_EQ("1<<40", 1ull << 40);
	EV_EQ("0xf0|0x0f&0x3", 0xf3);        /* & binds tighter than | */
	EV_EQ("1+2<<3", 24);                 /* + binds tighter than << */
	EV_EQ("(0xf0|0x0f)&0x3", 3);
	EV_EQ("( 1 + 2 )<<4", 48);         /* spaces inside parentheses */
	EV_EQ("-1", UINT64_MAX);
	EV_EQ("10-3-2", 5);                  /* left associative */
	EV_EQ("m.vadd", 0x200001000ull);
	EV_EQ("l0.sem+4", 0x200002014ull);
	EV_EQ("hi(lo(buf))", 0);
}

Test(expr, errors_name_the_column)
{
	ev_fails("", 1, "expected an expression");
	ev_fails("1+", 3, "expected an expression");
	ev_fails("(1+2", 5, "expected ')'");
	ev_fails("lo(1", 5, "expected ')'");
	ev_fails("0x", 3, "expected hex digits");
	ev_fails("12z", 3, "unexpected character in a number");
	ev_fails("f32:abc", 5, "expected a floating-point number");
	ev_fails("f32:1e39", 5, "does not fit an f32");
	ev_fails("1<<64", 1, "shift count above 63");
	ev_fails("buf+nope", 5, "no nope");
	ev_fails("99999999999999999999", 1, "does not fit 64 bits");
	ev_fails("$", 1, "expected an expression");
}

/* The parser and the evaluator recurse: a hostile expression is refused with
 * a diagnosis before it can overflow the stack (these crashed at 200000). */
Test(expr, depth_and_length_are_bounded)
{
	enum { N = 200000 };
	char *text = g_malloc(2 * N + 2);
	memset(text, '(', N);
	text[N] = '1';
	memset(text + N + 1, ')', N);
	text[2 * N + 1] = '\0';
	ev_fails(text, 65, "nested more than 64 deep");
	memset(text, '-', N);
	text[N] = '1';
	text[N + 1] = '\0';
	ev_fails(text, 65, "nested more than 64 deep");
	text[0] = '1';
	for (size_t i = 1; i + 1 < 2 * N; i += 2) {
		text[i] = '+';
		text[i + 1] = '1';
	}
	text[2 * N - 1] = '\0';
	ev_fails(text, 1024, "expression too long");
	g_free(text);
	/* what a person writes stays well inside */
	EV_EQ("((((((((1))))))))+-(-(2))", 3);
	EV_EQ("lo(hi(buf))+hi(buf<<4)", 0x22);
}

/* ---- names in file order ------------------------------------------------- */

Test(names, defined_before_use_in_file_order)
{
	cs_scenario *s = scn_parse_ok("alloc a 4096\n"
				      "alloc b 4096 at=a+0x100000\n"
				      "qmd q program=a cbank0=b,256\n"
				      "push p1\n  inc 1 SEND_PCAS_A q>>8\n  raw @q\nend\n"
				      "push p2\n  raw @p1 lo(p1) hi(q)\nend\n"
				      "gpfifo p2\n");
	cs_scenario_free(s);
	scn_parse_fails("push p\n  raw lo(p)\nend\n", 2, 10,
			"'p' is used inside its own push block (lines 1-3); it is placed at its 'end'");
	scn_parse_fails("gpfifo p\npush p\nend\n", 1, 8, "'p' is used before its definition at line 2");
	scn_parse_fails("alloc a 4096 at=b\nalloc b 4096\n", 1, 17, "before its definition at line 2");
	scn_parse_fails("alloc a 4096\nalloc a 8192\n", 2, 7, "'a' is already defined at line 1");
	scn_parse_fails("alloc a 4096\nqmd a\n", 2, 5, "already defined at line 1");
	scn_parse_fails("push a\nend\nmodule a x.cubin\n", 3, 8, "already defined at line 1");
	scn_parse_fails("gpfifo zz\n", 1, 8, "unknown name 'zz'");
}

Test(names, module_kernels_and_launch_names)
{
	/* MODULE.KERNEL resolves once MODULE is defined (the kernel is checked at
	 * execution); a launch defines LAUNCH.cb0/.qmd/.sem from its line on. */
	cs_scenario *s = scn_parse_ok("module m k.cubin\n"
				      "alloc out 4096\n"
				      "push p\n"
				      "  launch m.vadd grid=1 block=32 args=out,4\n"
				      "  release launch0.sem+8 1\n"
				      "  launch m.vadd grid=2,2 block=8,8,1 args=out,4 name=second path=inline\n"
				      "end\n"
				      "wait launch0.sem == 1\n"
				      "wait second.sem == 1\n"
				      "expect mem second.cb0 u32 0\n");
	cs_scenario_free(s);
	scn_parse_fails("push p\n  raw lo(launch0.sem)\n  launch m.k grid=1 block=1\nend\n", 2, 10,
			"'launch0.sem' is used before its definition at line 3");
	scn_parse_fails("module m k.cubin\npush p\n  launch m.k grid=1 block=1 name=x\n"
			"  launch m.k grid=1 block=1 name=x\nend\n", 4, 3, "'x.cb0' is already defined");
	scn_parse_fails("alloc m 4096\ndata m.k u32 1\n", 2, 6, "unknown name 'm.k'");
}

/* ---- every form parses ---------------------------------------------------- */

Test(forms, every_directive_and_push_line)
{
	const char *text =
		"# a comment line\n"
		"arch ampere   # trailing comment\n"
		"channel second entries=64\n"
		"channel default\n"
		"alloc buf 0x10000 align=0x10000\n"
		"alloc fixed 4096 at=0x300000000\n"
		"data buf u8 1 2 0xff -1\n"
		"data buf+16 u16 0xffff\n"
		"data buf+32 u32 1 lo(buf) hi(buf)\n"
		"data buf+64 u64 buf 0xffffffffffffffff\n"
		"data buf+128 f32 1.5 -2 1e-3 0x3f800000 f32:2.5 inf nan\n"
		"data buf+256 f64 3.25\n"
		"fill buf+512 64 0xab\n"
		"load buf+1024 \"some file.bin\"\n"
		"load buf+2048 plain.bin\n"
		"module m kernels/k.cubin\n"
		"random buf+4096 f32 256 seed=7 min=-1 max=1\n"
		"random buf+8192 u32 16 seed=0x1234 min=10 max=20\n"
		"qmd q program=m.k grid=4,1,1 block=128 shared=0 regs=32 cbank0=buf,0x210 "
		"release0=fixed,1 dependent=q2,SCHEDULE CTA_RASTER_WIDTH=4\n"
		"push pb\n"
		"  inc 1 SET_OBJECT 0xc6c0\n"
		"  1 SEND_PCAS_A q>>8\n"
		"  ninc 1 LOAD_INLINE_DATA 1 2 3\n"
		"  once 1 LOAD_INLINE_QMD_DATA(0) 1 2\n"
		"  imm 0 NOP 0x1fff\n"
		"  inc 0 0x5c 1 2 3 4 5\n"
		"  raw 0x20010000 0xc6c0 @q\n"
		"  @q\n"
		"  bind 3 0x902d\n"
		"  launch m.k grid=1 block=1 args=buf,1,2 shared=128 path=pcas\n"
		"  copy buf fixed 256\n"
		"  copy buf fixed 256 sem=fixed+16,7\n"
		"  release fixed 1\n"
		"  acquire fixed 0x100000000 u64\n"
		"end\n"
		"alloc q2 256\n"
		"gpfifo pb\n"
		"gpfifo pb+8,4 sync\n"
		"gpfifo-raw 0 0x1000\n"
		"submit\n"
		"wait fixed == 1\n"
		"wait fixed == 0x100000000 u64\n"
		"expect mem buf u32 1\n"
		"expect mem buf+128 f32 1.5 -2 tol=0.001\n"
		"expect stage 1 fired\n"
		"expect stage fe-exec not-fired\n"
		"expect stage 9 n/a\n"
		"expect break 5\n"
		"expect break none\n"
		"expect complete\n";
	/* q2 is used (dependent=q2) before it is defined */
	cs_diag d;
	cs_scenario *s = cs_scenario_parse(text, strlen(text), "t.chain", ".", &d);
	cr_assert_null(s);
	cr_assert(strstr(d.msg, "'q2' is used before its definition at line 36"), "%s", d.msg);
	/* with q2 defined first the whole file parses */
	GString *g = g_string_new(text);
	g_string_replace(g, "alloc q2 256\n", "", 1);
	g_string_replace(g, "module m kernels/k.cubin\n", "module m kernels/k.cubin\nalloc q2 256\n", 1);
	s = scn_parse_ok(g->str);
	cr_assert_eq(cs_scenario_arch(s), CS_ARCH_AMPERE);
	cr_assert_str_eq(cs_scenario_name(s), "t.chain");
	cs_scenario_free(s);
	g_string_free(g, TRUE);
}

Test(forms, defaults)
{
	cs_scenario *s = scn_parse_ok("\n\n# nothing\n");
	cr_assert_eq(cs_scenario_arch(s), CS_ARCH_HOPPER);
	cr_assert_eq(cs_scenario_expect_count(s), 0);
	cr_assert_null(cs_scenario_expect(s, 0));
	cs_scenario_free(s);
	/* CRLF line ends and tabs */
	s = scn_parse_ok("arch\tblackwell\r\nalloc\tb 16\r\n");
	cr_assert_eq(cs_scenario_arch(s), CS_ARCH_BLACKWELL);
	cs_scenario_free(s);
}

/* ---- the class registry ---------------------------------------------------- */

static uint32_t resolve_ok(cs_arch a, uint32_t cls, uint32_t subch, const char *name)
{
	uint32_t off = 0xdead;
	cs_diag d;
	cr_assert(cs_registry_resolve_method(a, cls, subch, name, &off, &d), "%s on %u: %s", name,
		  subch, d.msg);
	return off;
}

static void resolve_fails(cs_arch a, uint32_t cls, uint32_t subch, const char *name,
			  const char *phrase)
{
	uint32_t off;
	cs_diag d;
	cr_assert_not(cs_registry_resolve_method(a, cls, subch, name, &off, &d), "%s resolved", name);
	cr_assert(strstr(d.msg, phrase), "'%s' lacks '%s'", d.msg, phrase);
}

Test(registry, tables_behind_one_lookup)
{
	cr_assert_not_null(cs_registry_class(0xC56F));
	cr_assert_not_null(cs_registry_class(0xC86F));
	cr_assert_not_null(cs_registry_class(0xC96F));
	cr_assert_eq(cs_registry_class(0xC86F), cs_fe_host_class(0xC86F));
	const uint32_t gr[] = { 0xC6C0, 0xC7C0, 0xC9C0, 0xCBC0, 0xCDC0, 0xCEC0,
				0xC6B5, 0xC7B5, 0xC8B5, 0xC9B5 };
	for (unsigned i = 0; i < sizeof(gr) / sizeof(gr[0]); i++) {
		cr_assert_not_null(cs_registry_class(gr[i]), "0x%x", gr[i]);
		cr_assert_eq(cs_registry_class(gr[i]), cs_gr_class(gr[i]));
		cr_assert_eq(cs_registry_class(gr[i])->id, gr[i]);
	}
	cr_assert_null(cs_registry_class(0xCB97)); /* 3D: named, not modelled */
	cr_assert_null(cs_registry_class(0x1234));
}

Test(registry, naming_rules)
{
	cs_arch h = CS_ARCH_HOPPER;
	/* host names on any subchannel */
	for (uint32_t s = 0; s < 8; s++) {
		cr_assert_eq(resolve_ok(h, 0, s, "SEM_EXECUTE"), 0x6c);
		cr_assert_eq(resolve_ok(h, 0, s, "SET_OBJECT"), 0);
		cr_assert_eq(resolve_ok(h, 0xCBC0, s, "NOP"), 0x8);
	}
	/* conventional bindings */
	cr_assert_eq(resolve_ok(h, 0, 1, "SEND_PCAS_A"), 0x2b4);
	cr_assert_eq(resolve_ok(h, 0, 2, "LOAD_INLINE_DATA"), 0x1b4); /* I2M: the compute class */
	cr_assert_eq(resolve_ok(h, 0, 4, "LAUNCH_DMA"), 0x300);       /* copy */
	cr_assert_eq(resolve_ok(h, 0, 1, "LAUNCH_DMA"), 0x1b0);       /* compute's I2M launch */
	cr_assert_eq(resolve_ok(h, 0, 1, "LOAD_INLINE_QMD_DATA(95)"), 0x320 + 4 * 95);
	resolve_fails(h, 0, 0, "SEND_PCAS_A", "conventionally 3D");
	resolve_fails(h, 0, 3, "SEND_PCAS_A", "conventionally 2D");
	resolve_fails(h, 0, 6, "SEND_PCAS_A", "not bound");
	resolve_fails(h, 0, 1, "NO_SUCH", "not in HOPPER_CHANNEL_GPFIFO_A nor in HOPPER_COMPUTE_A");
	/* a SET_OBJECT binding wins over convention */
	cr_assert_eq(resolve_ok(h, 0xC8B5, 1, "LAUNCH_DMA"), 0x300);
	cr_assert_eq(resolve_ok(h, 0xCBC0, 4, "SEND_PCAS_A"), 0x2b4);
	cr_assert_eq(resolve_ok(h, 0xCBC0, 0, "SEND_PCAS_A"), 0x2b4);
	resolve_fails(h, 0xCB97, 1, "SEND_PCAS_A", "has no method table");
	/* byte offsets */
	cr_assert_eq(resolve_ok(h, 0, 0, "0x2b4"), 0x2b4);
	cr_assert_eq(resolve_ok(h, 0, 7, "16380"), 0x3ffc);
	resolve_fails(h, 0, 0, "0x2b5", "multiple of 4");
	resolve_fails(h, 0, 0, "0x4000", "multiple of 4 no larger than 0x3ffc");
	resolve_fails(h, 0, 0, "0x2bz", "bad method offset");
	/* per arch: Ampere's canonical classes */
	cr_assert_eq(resolve_ok(CS_ARCH_AMPERE, 0, 1, "SET_INLINE_QMD_ADDRESS_A"), 0x318);
	cr_assert_eq(cs_registry_conventional_class(CS_ARCH_ADA, 1), 0xC9C0);
	cr_assert_eq(cs_registry_conventional_class(CS_ARCH_BLACKWELL, 4), 0xC9B5);
	cr_assert_eq(cs_registry_conventional_class(CS_ARCH_HOPPER, 0), 0);
	cr_assert_eq(cs_registry_conventional_class(CS_ARCH_HOPPER, 7), 0);
}

Test(registry, labels_and_bindings)
{
	char buf[64];
	const cs_method_desc *m = NULL;
	cr_assert(cs_registry_method_label(CS_ARCH_HOPPER, 0, 5, 0x6c, buf, sizeof(buf), &m));
	cr_assert_str_eq(buf, "SEM_EXECUTE");
	cr_assert_gt(m->nfields, 0);
	cr_assert(cs_registry_method_label(CS_ARCH_HOPPER, 0, 1, 0x324, buf, sizeof(buf), NULL));
	cr_assert_str_eq(buf, "LOAD_INLINE_QMD_DATA(1)");
	cr_assert_not(cs_registry_method_label(CS_ARCH_HOPPER, 0, 0, 0x2b4, buf, sizeof(buf), NULL));
	cr_assert(cs_registry_method_label(CS_ARCH_HOPPER, 0xCBC0, 0, 0x2b4, buf, sizeof(buf), NULL));
	cs_binding b;
	cs_binding_init(&b, CS_ARCH_HOPPER);
	cr_assert_eq(cs_binding_class(&b, 1), 0xCBC0);
	cr_assert_eq(cs_binding_class(&b, 0), 0);
	cs_binding_note(&b, 0, 0, 0x0001C8B5); /* engine id bits above the class */
	cr_assert_eq(cs_binding_class(&b, 0), 0xC8B5);
	cs_binding_note(&b, 0, 4, 0xCBC0); /* not SET_OBJECT */
	cr_assert_eq(cs_binding_class(&b, 0), 0xC8B5);
	cr_assert_eq(cs_binding_class(&b, 9), 0);
}
