/* SPDX-License-Identifier: MIT */
/* LeakSanitizer suppressions for the gsp tests, linked into each of their
 * programs (so CI needs no LSAN_OPTIONS). They name Unicorn 2.0.1's own
 * frames only: its translation-block invalidation keeps a per-page bitmap
 * that uc_close does not free. Our own leaks stay reported. */
/* Visible: the project builds with -fvisibility=hidden, and a hidden hook is
 * one the sanitizer runtime never finds. */
__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void);

__attribute__((visibility("default"))) const char *__lsan_default_suppressions(void)
{
	return "leak:tb_invalidate_phys_page_fast_riscv64\n";
}
