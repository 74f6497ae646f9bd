/* xalloc.c - allocation wrappers that die cleanly on OOM. */
#include <config.h>

#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

static void (*fatal_hook)(void);

void xalloc_set_fatal_hook(void (*hook)(void))
{
	fatal_hook = hook;
}

#if defined(__GNUC__)
__attribute__((noreturn))
#endif
static void out_of_memory(size_t size);

static void out_of_memory(size_t size)
{
	if (fatal_hook) {
		fatal_hook();
	}
	fprintf(stderr, "synctop: out of memory (allocating %zu bytes)\n", size);
	_exit(EX_SOFTWARE);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p) {
		out_of_memory(size);
	}
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p) {
		out_of_memory(nmemb * size);
	}
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p) {
		out_of_memory(size);
	}
	return p;
}

void xalloc_fail(size_t size)
{
	out_of_memory(size);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = xmalloc(n);
	memcpy(p, s, n);
	return p;
}
