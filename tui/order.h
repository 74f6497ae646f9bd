/* order.h - the grid's rows: the nodes the filter keeps, sorted.
 *
 * The default order is the one an operator wants first: worst status
 * (crit, unknown, warn, ok), then the largest |offset|.  Any other column
 * sorts on its own value (worst/biggest first for numbers, A-Z for text),
 * unknown values last in either direction, ties in the default order. */
#ifndef SYNCTOP_ORDER_H
#define SYNCTOP_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "columns.h"
#include "filter.h"
#include "node.h"

/* Writes the indexes (into nodes) of the rows to out, which has room for
 * n; returns how many.  f may be NULL (no filter).  reverse flips the
 * column's direction (unknowns stay last).  now is not needed any more
 * (the age sorts on the poll time) and is kept for the callers. */
size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out);

/* What the order needs to know of one node, read once when the node
 * changes (order_key_of) so that a re-sort reads no node: a node is big,
 * and a pass over 10,000 of them costs milliseconds in cache and TLB
 * misses alone.  Also what the view needs for the layout and the header. */
#define ORDER_TEXT_LEN 80

typedef struct {
	double num;          /* the column's numeric key, NAN = unknown */
	double abs_offset;   /* the default order's tie-break (columns_abs_offset) */
	int rank;            /* status, worst first (node_status_rank) */
	bool text;           /* the key is str, not num */
	bool match;          /* the filter keeps the node */
	bool connecting;     /* never answered, no error yet */
	int host_width;      /* bytes of the host name */
	column_mask data_mask; /* columns_data_mask */
	char str[ORDER_TEXT_LEN];
} order_key;

/* The key of a node for a column and a filter (NULL: none).  The age column
 * sorts on the poll time (its key does not depend on when it is taken). */
void order_key_of(const node *nd, column_id column, const node_filter *f, order_key *out);

/* Writes the indexes of the keys the filter keeps, sorted, to out (room for
 * n); returns how many.  host_rank as order_rank_hosts gives it. */
size_t order_sort_keys(const order_key *keys, size_t n, const size_t *host_rank, column_id column, bool reverse,
		       size_t *out);

/* The same from the nodes, with host_rank[i] = the place of nodes[i].host
 * in version order (order_rank_hosts): a node array that does not change
 * is ranked once, not compared by name in every sort. */
size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out);
void order_rank_hosts(const node *nodes, size_t n, size_t *rank);

#endif
