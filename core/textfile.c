/* textfile.c - bounded whole-file reads for hosts files and ssh config. */
#include <config.h>

#include "textfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *textfile_read_fd(int fd, const char *path, size_t max, size_t *len, char *err, size_t err_len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);
	if (!buf) {
		snprintf(err, err_len, "%s: out of memory", path);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				snprintf(err, err_len, "%s: file too large (limit %zu bytes)", path, max);
				free(buf);
				return NULL;
			}
			char *bigger = realloc(buf, cap * 2);
			if (!bigger) {
				snprintf(err, err_len, "%s: out of memory", path);
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0) {
			if (errno == EINTR) {
				continue;
			}
			snprintf(err, err_len, "%s: %s", path, strerror(errno));
			free(buf);
			return NULL;
		}
		if (got == 0) {
			break;
		}
		n += (size_t)got;
	}
	*len = n;
	return buf;
}
