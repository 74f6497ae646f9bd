/* hostlist.h - Slurm/pdsh host list expansion: "login1,gpu[001-128]" -> names.
 *
 * Grammar (what pdsh and Slurm accept, minus their set operations):
 *   list    = element { "," element }      commas inside [] belong to the range
 *   element = text { "[" ranges "]" text }  several groups: cartesian product,
 *                                           the leftmost group varies slowest
 *   ranges  = item { "," item }
 *   item    = N | N "-" M                   N <= M, zero padding taken from N's
 *                                           width ("[08-10]" -> 08 09 10)
 * A bracket group holding a ':' is an IPv6 literal ("[fe80::1]:22") and is
 * copied verbatim, never expanded.  Names come out in the order written and
 * are not de-duplicated.
 *
 * The whole expression is checked before the first name is delivered, so an
 * invalid or oversized list never yields a partial result. */
#ifndef SYNCTOP_HOSTLIST_H
#define SYNCTOP_HOSTLIST_H

#include <stddef.h>

/* Most names one expression may expand to: far above any cluster synctop
 * polls, low enough that a typo like "n[1-1000000000]" fails at once. */
#define HOSTLIST_MAX_HOSTS 100000
/* Longest expanded name, bytes (room for user@[v6 address]:port). */
#define HOSTLIST_NAME_MAX 511
/* Most bracket groups in one element. */
#define HOSTLIST_MAX_GROUPS 32

/* Called once per name, in order.  Return 0 to go on, non-zero to stop.
 * A NULL callback only validates the expression. */
typedef int (*hostlist_cb)(const char *host, void *ctx);

/* Expand the NUL-terminated expr.  Returns 0, or -1 with err holding
 * "column N: what is wrong" (N counts bytes from 1).  If cb stops the
 * expansion, -1 is returned and err is not written: the callback explains. */
int hostlist_expand(const char *expr, hostlist_cb cb, void *ctx, char *err, size_t err_len);

/* The same for len bytes of text that need not be NUL-terminated (a line of a
 * file).  On failure *column is the 1-based column of the problem and err
 * holds the message without it.  If cb stops the expansion, *column is where
 * the element that produced the rejected name starts and err is not written. */
int hostlist_expand_n(const char *expr, size_t len, hostlist_cb cb, void *ctx, size_t *column,
		      char *err, size_t err_len);

#endif
