/* SPDX-License-Identifier: MIT */
/* Built against the installed libchainsim-gsp through pkg-config: a machine on
 * Unicorn over a raw image, and its first instruction decoded. */
#include <stdio.h>
#include <string.h>

#include <chainsim/gsp.h>

int main(void)
{
	/* addi a0,a0,1, which binutils 2.40's objdump (and so the decoder) prints as add */
	static const uint8_t code[] = { 0x13, 0x05, 0x15, 0x00 };
	cs_diag d;
	cs_gsp_map map;
	cs_gsp_map_default(&map);
	cs_gsp_image *img = NULL;
	cs_gsp *m = NULL;
	if (cs_gsp_image_from_raw(code, sizeof(code), 0x80000000u, &img, &d) != CS_OK ||
	    cs_gsp_create(&map, img, &m, &d) != CS_OK) {
		fprintf(stderr, "hello-gsp: %s\n", d.msg);
		cs_gsp_image_free(img);
		return 1;
	}
	cs_rv_insn insn;
	char text[64];
	int rc = cs_rv_decode(code, sizeof(code), 0x80000000u, &insn) ? 0 : 1;
	cs_rv_format(&insn, text, sizeof(text));
	if (strcmp(text, "add\ta0,a0,1") != 0)
		rc = 1;
	printf("hello-gsp: %s%s\n", rc ? "FAILED: " : "", text);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	return rc;
}
