/* atomic_file.c - temporary file, fsync, rename. */
#include <config.h>

#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int atomic_file_replace(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
	static const char suffix[] = ".XXXXXX";
	size_t path_len = strlen(path);
	char *tmp = xmalloc(path_len + sizeof suffix);
	memcpy(tmp, path, path_len);
	memcpy(tmp + path_len, suffix, sizeof suffix);

	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, err_len, "%s: cannot create a temporary file next to it: %s", path, strerror(errno));
		free(tmp);
		return -1;
	}
	const char *what = NULL;
	if (fchmod(fd, 0644) != 0) {
		what = "cannot make the temporary file readable";
	} else if (write_all(fd, data, len) != 0) {
		what = "cannot write";
	} else if (fsync(fd) != 0) {
		what = "cannot sync";
	}
	int e = errno;
	if (close(fd) != 0 && !what) {
		what = "cannot write";
		e = errno;
	}
	if (!what && rename(tmp, path) != 0) {
		what = "cannot replace it";
		e = errno;
	}
	if (what) {
		unlink(tmp);
		snprintf(err, err_len, "%s: %s: %s", path, what, strerror(e ? e : EIO));
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
