/* xalloc.h - allocation that never returns NULL.
 *
 * Running out of memory is not recoverable for a monitoring tool; we restore
 * the terminal (via the registered hook) and exit with a message. */
#ifndef SYNCTOP_XALLOC_H
#define SYNCTOP_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);

/* Allocation of size bytes failed elsewhere (mmap): exit as above. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
void xalloc_fail(size_t size);

/* Called before exiting on allocation failure (e.g. endwin()). */
void xalloc_set_fatal_hook(void (*hook)(void));

#endif
