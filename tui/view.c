/* view.c - the grid's rows, selection and scroll position (no curses). */
#include <config.h>

#include "view.h"

#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "order.h"
#include "xalloc.h"

void view_init(view *v)
{
	memset(v, 0, sizeof *v);
	v->selected = NO_NODE;
	v->pinned_top = true;
	v->sort = COL_STATUS;
	v->page = 1;
	v->stale = true;
	filter_init(&v->filter);
}

void view_free(view *v)
{
	filter_free(&v->filter);
	free(v->rows);
	free(v->host_rank);
	free(v->keys);
	v->rows = NULL;
	v->host_rank = NULL;
	v->keys = NULL;
}

void view_attach(view *v, const node *nodes, size_t n)
{
	free(v->rows);
	free(v->host_rank);
	free(v->keys);
	v->nodes = nodes;
	v->n_nodes = n;
	v->rows = xcalloc(n ? n : 1, sizeof *v->rows);
	v->host_rank = xcalloc(n ? n : 1, sizeof *v->host_rank);
	v->keys = xcalloc(n ? n : 1, sizeof *v->keys);
	order_rank_hosts(nodes, n, v->host_rank);
	v->n_rows = 0;
	v->selected = NO_NODE;
	v->stale = true;
	v->keys_stale = true;
}

void view_data_changed(view *v)
{
	v->generation++;
	v->keys_stale = true;
}

void view_node_changed(view *v, size_t node_index)
{
	v->generation++;
	if (node_index >= v->n_nodes) {
		return;
	}
	if (!v->keys_stale) {
		order_key_of(&v->nodes[node_index], v->sort, &v->filter, &v->keys[node_index]);
	}
}

/* Keeps the selection on screen and the screen inside the rows. */
static void follow_selection(view *v)
{
	long sel = view_selected_row(v);
	if (sel >= 0) {
		if ((size_t)sel < v->top) {
			v->top = (size_t)sel;
		} else if ((size_t)sel >= v->top + v->page) {
			v->top = (size_t)sel - v->page + 1;
		}
	}
	if (v->n_rows <= v->page) {
		v->top = 0;
	} else if (v->top > v->n_rows - v->page) {
		v->top = v->n_rows - v->page;
	}
}

/* Moves the selection without saying anything about the user's intent. */
static void place_selection(view *v, long r)
{
	if (v->n_rows == 0) {
		v->selected = NO_NODE;
		v->selected_row = 0;
		return;
	}
	if (r < 0) {
		r = 0;
	}
	if ((size_t)r >= v->n_rows) {
		r = (long)v->n_rows - 1;
	}
	v->selected_row = (size_t)r;
	v->selected = v->rows[r];
}

long view_row_of(const view *v, size_t node_index)
{
	for (size_t r = 0; r < v->n_rows; r++) {
		if (v->rows[r] == node_index) {
			return (long)r;
		}
	}
	return -1;
}

long view_selected_row(const view *v)
{
	if (v->selected == NO_NODE) {
		return -1;
	}
	if (v->selected_row < v->n_rows && v->rows[v->selected_row] == v->selected) {
		return (long)v->selected_row;
	}
	return view_row_of(v, v->selected);
}

/* What the layout and the header need, from the keys (not the nodes). */
static void measure(view *v)
{
	v->data_mask = 0;
	v->node_width = 4;
	v->connecting = 0;
	for (size_t i = 0; i < v->n_nodes; i++) {
		const order_key *k = &v->keys[i];
		v->connecting += k->connecting;
		if (k->match) {
			v->data_mask |= k->data_mask;
			v->node_width = k->host_width > v->node_width ? k->host_width : v->node_width;
		}
	}
}

bool view_update(view *v, double now)
{
	if (!v->stale && !v->keys_stale && v->built == v->generation) {
		return false;
	}
	long was = view_selected_row(v);
	size_t keep_row = was >= 0 ? (size_t)was : v->selected_row;

	(void)now; /* the keys sort the age on the poll time */
	if (v->keys_stale) {
		for (size_t i = 0; i < v->n_nodes; i++) {
			order_key_of(&v->nodes[i], v->sort, &v->filter, &v->keys[i]);
		}
		v->keys_stale = false;
	}
	v->n_rows = order_sort_keys(v->keys, v->n_nodes, v->host_rank, v->sort, v->reverse, v->rows);
	measure(v);
	long now_at = view_selected_row(v);
	if (v->pinned_top) {
		place_selection(v, 0);
	} else if (now_at >= 0) {
		v->selected_row = (size_t)now_at;
	} else {
		/* the node left the view: stay at the same place in the list */
		place_selection(v, (long)keep_row);
	}
	v->built = v->generation;
	v->stale = false;
	v->builds++;
	follow_selection(v);
	return true;
}

void view_set_page(view *v, size_t page)
{
	v->page = page > 0 ? page : 1;
	follow_selection(v);
}

void view_select_row(view *v, long r)
{
	place_selection(v, r);
	/* On the first row the view stays at the top of the list (the worst
	 * nodes) whichever node comes first; elsewhere it follows the node. */
	v->pinned_top = v->selected_row == 0;
	follow_selection(v);
}

void view_move(view *v, long delta)
{
	long r = view_selected_row(v);
	view_select_row(v, (r < 0 ? 0 : r) + delta);
}

bool view_select_node(view *v, size_t node_index)
{
	long r = view_row_of(v, node_index);
	if (r < 0) {
		return false;
	}
	view_select_row(v, r);
	return true;
}

long view_problem_row(const view *v, long from, int dir)
{
	long n = (long)v->n_rows;
	if (n == 0) {
		return -1;
	}
	if (from < 0 || from >= n) {
		from = dir > 0 ? -1 : n;
	}
	for (long k = 1; k <= n; k++) {
		long r = ((from + dir * k) % n + n) % n;
		if (cluster_node_status(&v->nodes[v->rows[r]]) != NODE_STATUS_OK) {
			return r;
		}
	}
	return -1;
}

void view_sort_by(view *v, column_id id, bool reverse)
{
	if (id < 0 || id >= columns_count() || !columns_info(id)->sortable) {
		return;
	}
	if (v->sort != id) {
		v->keys_stale = true; /* the keys are the column's */
	}
	if (v->sort != id || v->reverse != reverse) {
		v->sort = id;
		v->reverse = reverse;
		v->stale = true;
	}
}

/* Walks the sortable columns left to right as the grid shows them. */
void view_cycle_sort(view *v, int dir)
{
	column_id ids[COLUMNS_MAX];
	int n = columns_in_place_order(ids);
	int at = 0;
	for (int k = 0; k < n; k++) {
		if (ids[k] == v->sort) {
			at = k;
		}
	}
	do {
		at = (at + dir + n) % n;
	} while (!columns_info(ids[at])->sortable);
	view_sort_by(v, ids[at], false);
}

void view_toggle_reverse(view *v)
{
	view_sort_by(v, v->sort, !v->reverse);
}

int view_set_filter(view *v, const char *text, char *err, size_t err_len)
{
	bool changed = strcmp(text, v->filter.text) != 0;
	int rc = filter_set(&v->filter, text, err, err_len);
	if (changed) {
		v->stale = true;
		v->keys_stale = true; /* the keys say which nodes match */
		v->top = 0;
	}
	follow_selection(v);
	return rc;
}
