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
 * column's direction (unknowns stay last).  now is for the age column. */
size_t order_build(const node *nodes, size_t n, const node_filter *f, column_id column, bool reverse,
		   double now, size_t *out);

/* What the view needs besides the rows, found in the same pass over the
 * nodes (a second pass over 10,000 big nodes costs milliseconds in cache
 * misses alone). */
typedef struct {
	unsigned data_mask; /* columns_data_mask of the rows, or-ed */
	int node_width;     /* longest host name among the rows, at least 4 */
	size_t connecting;  /* nodes, kept or not, that never answered and have no error */
} order_found;

/* The same, with host_rank[i] = the place of nodes[i].host in version order
 * (order_rank_hosts): a node array that does not change is ranked once, not
 * compared by name in every sort.  found may be NULL. */
size_t order_build_ranked(const node *nodes, size_t n, const size_t *host_rank, const node_filter *f,
			  column_id column, bool reverse, double now, size_t *out, order_found *found);
void order_rank_hosts(const node *nodes, size_t n, size_t *rank);

#endif
