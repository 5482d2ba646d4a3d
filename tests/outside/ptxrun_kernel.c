/* SPDX-License-Identifier: MIT */
/* Evidence harness for the tinygrad corpus (not part of the build): run one
 * kernel's PTX text through chainsim's PTX executor (libchainsim's cs_ptx_run)
 * on a memory image, outside the launch chain. check_replay.py drives it.
 *   usage: ptxrun_kernel PTX ENTRY gx gy gz bx by bz IMG_IN IMG_OUT PARAMHEX
 *   IMG: repeated (u64 va, u64 size, size bytes), little-endian
 * Build: gcc -Iinclude tests/outside/ptxrun_kernel.c -o /tmp/ptxrun_kernel \
 *          -Lbuild/sim -lchainsim -lm $(pkg-config --libs glib-2.0 json-glib-1.0 libelf) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "chainsim/ptx.h"
#include "chainsim/mem.h"
#include "chainsim/ports.h"
#include "chainsim/diag.h"
static void nop_emit(void *c, const cs_event *e) { (void)c; (void)e; }
int main(int argc, char **argv) {
	if (argc < 12) return 2;
	FILE *f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
	char *b = malloc(n + 1); fread(b, 1, n, f); fclose(f); b[n] = 0;
	cs_diag d; memset(&d, 0, sizeof d);
	cs_ptx_program *p = cs_ptx_parse(b, strlen(b), argv[1], &d);
	char fb[800];
	if (!p) { cs_diag_format(&d, fb, sizeof fb); printf("PARSE %s\n", fb); return 3; }
	size_t entry; if (!cs_ptx_entry_find(p, argv[2], &entry)) { printf("NOENTRY\n"); return 3; }
	cs_mem *mem = cs_mem_new(57);
	FILE *im = fopen(argv[9], "rb");
	uint64_t hdr[2]; int nreg = 0; uint64_t vas[256], szs[256];
	while (fread(hdr, 8, 2, im) == 2) {
		uint8_t *buf = malloc(hdr[1]); fread(buf, 1, hdr[1], im);
		char nm[32]; snprintf(nm, sizeof nm, "r%d", nreg);
		if (!cs_mem_map(mem, nm, hdr[0], hdr[1], &d)) { cs_diag_format(&d, fb, sizeof fb); printf("MAP %s\n", fb); return 3; }
		cs_mem_write(mem, hdr[0], buf, hdr[1], NULL); free(buf);
		vas[nreg] = hdr[0]; szs[nreg] = hdr[1]; nreg++;
	}
	fclose(im);
	const char *ph = argv[11]; size_t pl = strlen(ph) / 2; uint8_t params[4096];
	for (size_t i = 0; i < pl; i++) sscanf(ph + 2 * i, "%2hhx", &params[i]);
	uint64_t now = 0;
	cs_bus bus = { .mem = cs_mem_port_of(mem), .trace = { .ctx = NULL, .emit = nop_emit, .level = 0 }, .now_ns = &now };
	cs_ptx_launch l; memset(&l, 0, sizeof l);
	for (int i = 0; i < 3; i++) { l.grid[i] = atoi(argv[3 + i]); l.block[i] = atoi(argv[6 + i]); }
	l.params = params; l.param_bytes = pl;
	cs_grid_result out; memset(&out, 0, sizeof out);
	cs_ptx_run(p, entry, &l, &bus, &out);
	if (out.outcome != CS_GRID_EXECUTED) { cs_diag_format(&out.diag, fb, sizeof fb); printf("RUN outcome %d: %s\n", out.outcome, fb); return 4; }
	printf("EXECUTED %llu ctas, %llu thread-instrs\n", (unsigned long long)out.ctas_executed, (unsigned long long)out.thread_instructions);
	FILE *o = fopen(argv[10], "wb");
	for (int i = 0; i < nreg; i++) {
		uint8_t *buf = malloc(szs[i]); cs_mem_read(mem, vas[i], buf, szs[i], NULL);
		uint64_t h[2] = { vas[i], szs[i] }; fwrite(h, 8, 2, o); fwrite(buf, 1, szs[i], o); free(buf);
	}
	fclose(o);
	return 0;
}
