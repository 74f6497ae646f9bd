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

/* The inverse: one compressed expression naming every one of names[0..n),
 * as Slurm's `scontrol show hostlist` writes it: "gpu[003,017-018],login1".
 * Rules (Slurm's src/common/hostlist.c: host_prefix_end() splits a name
 * into a prefix and its trailing digits; hostrange_within_range() puts
 * ranges of one prefix into one bracket; _width_equiv() keeps padding):
 *   - a name's number is its trailing run of digits; the rest is its prefix
 *     ("gpu01-ib" has none and is written as it is, as Slurm does);
 *   - names of one prefix go into one bracket, numbers ascending, runs of
 *     consecutive numbers as "lo-hi"; zero padding is kept: a range starts
 *     a new item where a number would print differently at the range's
 *     width ("gpu[8-10]", "gpu[08-10]", "n[1,01]");
 *   - a prefix with one name is written without brackets;
 *   - groups are ordered by prefix (bytes), duplicates written once;
 *   - a run of more than 18 digits is no number (it would not fit the
 *     expander's range, nor 64 bits): such a name is written as it is;
 *   - a name holding '[' is written as it is when it expands to itself
 *     (an IPv6 literal, "[fe80::1]:22").
 * hostlist_expand() of the result gives the same set of names.  Returns a
 * malloc'd string the caller frees ("" when n is 0), or NULL with err set
 * when a name cannot be written in a host list (empty, or holding ',', ']'
 * outside a literal, whitespace or a control character). */
char *hostlist_compress(const char *const *names, size_t n, char *err, size_t err_len);

#endif
