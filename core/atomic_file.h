/* atomic_file.h - replace a file so that readers see the old content or the
 * new, never a part (the way node_exporter's textfile collector wants its
 * files written). */
#ifndef SYNCTOP_ATOMIC_FILE_H
#define SYNCTOP_ATOMIC_FILE_H

#include <stddef.h>

/* Write data to a temporary file next to path (path + ".XXXXXX": same file
 * system, and a name a *.prom glob ignores), mode 0644 whatever the umask
 * (node_exporter runs as another user), fsync it, rename it over path.
 * Returns 0, or -1 with err = "PATH: what failed: why"; on failure the
 * temporary file is removed and path is left as it was.  Blocking I/O: on a
 * slow or hung file system it takes as long as the file system does. */
int atomic_file_replace(const char *path, const char *data, size_t len, char *err, size_t err_len);

#endif
