/* longest_selector.h - the longest --prometheus-selector synctop takes
 * (PROM_SELECTOR_MAX characters), for the tests that check every query
 * built from it fits its buffer.  Header only: each test program that
 * includes it uses it. */
#ifndef SYNCTOP_TEST_LONGEST_SELECTOR_H
#define SYNCTOP_TEST_LONGEST_SELECTOR_H

#include <string.h>

#include "prometheus_map.h"

/* sel: room for PROM_SELECTOR_MAX + 1 bytes. */
static inline void longest_selector(char *sel)
{
	strcpy(sel, "{job=~\"");
	size_t n = strlen(sel);
	memset(sel + n, '.', PROM_SELECTOR_MAX - 2 - n);
	strcpy(sel + PROM_SELECTOR_MAX - 2, "\"}");
}

#endif
