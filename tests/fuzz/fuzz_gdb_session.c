/* SPDX-License-Identifier: MIT */
/* libFuzzer: the GDB stub's packet loop (cs_gdb_session) on a socketpair,
 * with `c`, `s`, `vCont`, `k` and `D` among the seeds. The input is the whole
 * client side; the write end is then shut, so a running target is stopped by
 * the watcher seeing the end of the connection, as with a client that left.
 * A thread drains the replies. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chainsim/gsp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *drain(void *arg)
{
	int fd = *(int *)arg;
	char buf[4096];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	cs_diag d;
	cs_diag_clear(&d);
	cs_gsp_image *img = NULL;
	cs_gsp_map map;
	if (cs_gsp_map_load(CS_FUZZ_ROOT "/fixtures/firmware/gsp-fixture.map", &map, &d) != CS_OK ||
	    cs_gsp_image_load(CS_FUZZ_ROOT "/fixtures/firmware/gsp-fixture.elf", 0x80000000u, &img,
			      &d) != CS_OK)
		abort();
	cs_gsp *m = NULL;
	if (cs_gsp_create(&map, img, &m, &d) != CS_OK) {
		cs_gsp_image_free(img);
		return 0;
	}
	cs_gsp_set_guard_ms(m, 20);
	cs_gsp_set_gdb_idle_ms(m, 1000);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		abort();
	pthread_t th;
	pthread_create(&th, NULL, drain, &sv[0]);
	for (size_t off = 0; off < size;) {
		ssize_t n = write(sv[0], data + off, size - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(sv[0], SHUT_WR);
	cs_gdb_session(m, sv[1], &d); /* closes sv[1] */
	pthread_join(th, NULL);
	close(sv[0]);
	cs_gsp_destroy(m);
	cs_gsp_image_free(img);
	return 0;
}
