/* SPDX-License-Identifier: MIT */
/* cs_file_read: regular files only, at most a cap (include/chainsim/file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chainsim/file.h"

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a folder";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static bool fail(cs_diag *d, cs_status st, const char *path, const char *what, const char *why)
{
	cs_diag_set(d, st, "%s: %s", what, why);
	if (d)
		snprintf(d->file, sizeof(d->file), "%s", cs_file_name(path));
	return false;
}

const char *cs_file_name(const char *path)
{
	return strcmp(path, CS_FILE_STDIN) ? path : "<stdin>";
}

bool cs_file_read(const char *path, size_t cap, const char *what, char **bytes, size_t *len,
		  cs_diag *d)
{
	*bytes = NULL;
	*len = 0;
	char why[160];
	bool from_stdin = !strcmp(path, CS_FILE_STDIN);
	/* O_NONBLOCK: opening a FIFO must not wait for a writer before fstat
	 * can refuse it; standard input is a duplicate, so closing it is ours */
	int fd = from_stdin ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
			    : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot read: %s", strerror(errno));
		return fail(d, CS_ERR_INPUT, path, what, why);
	}
	struct stat st = { 0 };
	if (fstat(fd, &st) != 0 || (!from_stdin && !S_ISREG(st.st_mode))) {
		snprintf(why, sizeof(why), "%s, and only regular files are read",
			 file_kind(st.st_mode));
		close(fd);
		return fail(d, CS_ERR_INPUT, path, what, why);
	}
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > cap) {
		snprintf(why, sizeof(why), "%llu bytes, above the limit of %zu",
			 (unsigned long long)st.st_size, cap);
		close(fd);
		return fail(d, CS_ERR_INPUT, path, what, why);
	}
	/* st_size is a hint (a /proc file says 0, a file may grow): read up to
	 * one byte past the cap to know */
	size_t hint = S_ISREG(st.st_mode) ? (size_t)st.st_size : cap < 4096 ? cap : 4096;
	size_t room = hint + 1, n = 0;
	char *buf = malloc(room + 1);
	if (!buf) {
		close(fd);
		return fail(d, CS_ERR_NOMEM, path, what, "out of memory for its bytes");
	}
	for (;;) {
		if (n == room) {
			if (room > cap) {
				free(buf);
				close(fd);
				snprintf(why, sizeof(why), "more than the limit of %zu bytes", cap);
				return fail(d, CS_ERR_INPUT, path, what, why);
			}
			size_t grow = room * 2 > cap + 1 ? cap + 1 : room * 2;
			char *nb = realloc(buf, grow + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return fail(d, CS_ERR_NOMEM, path, what, "out of memory for its bytes");
			}
			buf = nb;
			room = grow;
		}
		ssize_t got = read(fd, buf + n, room - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(why, sizeof(why), "read error: %s", strerror(errno));
			free(buf);
			close(fd);
			return fail(d, CS_ERR_INPUT, path, what, why);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = 0;
	*bytes = buf;
	*len = n;
	return true;
}
