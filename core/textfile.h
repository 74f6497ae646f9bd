/* textfile.h - read a whole configuration-sized file, bounded. */
#ifndef SYNCTOP_TEXTFILE_H
#define SYNCTOP_TEXTFILE_H

#include <stddef.h>

/* Reads fd (regular file, pipe or /dev/fd/N) to its end into a malloc'd
 * buffer (not NUL-terminated; caller frees) of at most max bytes.  NULL with
 * err = "path: why" on a read error, out of memory or a larger file.  Does
 * not close fd. */
char *textfile_read_fd(int fd, const char *path, size_t max, size_t *len, char *err, size_t err_len);

#endif
