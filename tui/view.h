/* view.h - what the grid shows, without curses: the rows (the nodes the
 * filter keeps, in the chosen order), the selection and the scroll
 * position.  Screens change it through these calls only; drawing reads it.
 *
 * The rows are rebuilt (filtered and sorted) only when something they
 * depend on changed: a node (view_node_changed, at each node update), the
 * whole model (view_data_changed), the sort column or direction, or the
 * filter.  A frame where nothing changed costs no sort.  The sort reads
 * keys taken from each node when it changed (order_key_of), while the
 * node is still in the cache, not the nodes themselves.
 *
 * Invariants after every call: selected is NO_NODE exactly when there is
 * no row; top <= selected row < top + page (the selection is on screen);
 * top + page <= n_rows unless all rows fit (then top is 0). */
#ifndef SYNCTOP_VIEW_H
#define SYNCTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "filter.h"
#include "node.h"
#include "order.h"

#define NO_NODE SIZE_MAX

typedef struct {
	/* the model, borrowed */
	const node *nodes;
	size_t n_nodes;
	size_t *host_rank;       /* each node's place by name (order_rank_hosts) */
	order_key *keys;         /* each node's, for the current column and filter */
	bool keys_stale;         /* every key must be taken again */

	/* rows */
	size_t *rows;            /* node indexes, filtered and sorted */
	size_t n_rows;
	column_id sort;
	bool reverse;
	node_filter filter;

	/* selection and scrolling */
	size_t selected;         /* node index, NO_NODE when no row */
	size_t selected_row;     /* its row, kept when the node leaves the view */
	bool pinned_top;         /* selection on the first row, whichever node it is */
	size_t top;              /* first row on screen */
	size_t page;             /* rows that fit on screen (>= 1) */

	/* what the rows were built from */
	uint64_t generation;     /* bumped by view_data_changed and view_node_changed */
	uint64_t built;          /* the generation of the last build */
	bool stale;              /* order or filter changed since */
	uint64_t builds;         /* rebuilds so far (tests, bench) */

	/* found while building, for the layout and the header */
	column_mask data_mask;   /* columns_data_mask of every row, or-ed */
	int node_width;          /* longest host name among the rows */
	size_t connecting;       /* nodes (all, not only rows) that never answered and have no error */
} view;

void view_init(view *v);
void view_free(view *v);

/* Borrows the node array (not copied; it must outlive the view) and ranks
 * the host names: the inventory does not change while it is shown. */
void view_attach(view *v, const node *nodes, size_t n);

/* The model changed (any node, or the cluster-wide findings): the next
 * view_update takes every node's key again and rebuilds the rows. */
void view_data_changed(view *v);

/* One node changed: its key is taken now (the caller just wrote it) and
 * the next view_update rebuilds the rows from the keys. */
void view_node_changed(view *v, size_t node_index);

/* Rebuilds the rows when the model, the order or the filter changed since
 * the last build, keeping the selection on its node (or, when the node
 * left, at its place).  now is for the age column.  Returns true when it
 * rebuilt. */
bool view_update(view *v, double now);

/* Rows that fit on screen; the scroll position follows. */
void view_set_page(view *v, size_t page);

/* Row of the selected node, or -1. */
long view_selected_row(const view *v);

/* Selects row r (clamped), as the user asked: row 0 pins the selection to
 * the top of the list, any other row follows its node. */
void view_select_row(view *v, long r);

/* Moves the selection by delta rows (clamped). */
void view_move(view *v, long delta);

/* Selects the node if it has a row; returns false when it has none. */
bool view_select_node(view *v, size_t node_index);

/* Row of a node index, or -1. */
long view_row_of(const view *v, size_t node_index);

/* Next (dir +1) or previous (-1) row after `from` whose node is not ok,
 * wrapping; -1 when there is none. */
long view_problem_row(const view *v, long from, int dir);

/* Sorts by a column (its natural direction, or reversed).  The rows are
 * rebuilt at the next view_update. */
void view_sort_by(view *v, column_id id, bool reverse);

/* The next (dir +1) or previous (-1) sortable column, natural direction. */
void view_cycle_sort(view *v, int dir);

/* Flips the direction. */
void view_toggle_reverse(view *v);

/* Sets the filter text ("" clears it); a new text scrolls to the top.  As
 * filter_set: 1 with the reason in err when the text is not a valid
 * regex (it is then matched as text). */
int view_set_filter(view *v, const char *text, char *err, size_t err_len);

#endif
