/* test_view.c - the grid's curses-free view: rows rebuilt only when the
 * model, the order or the filter changed; the selection kept on its node
 * or its place; the scroll position kept around the selection and inside
 * the rows; the counts the header and the layout read. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "columns.h"
#include "view.h"

#define ALL_COLUMNS (~(column_mask)0)

/* A collector's grid column by key; the test fails if it is not there. */
static column_id column_of(const char *key)
{
	column_id id = columns_find(key);
	if (id < 0) {
		fail_msg("no grid column \"%s\"", key);
	}
	return id;
}

#define NOW 1800000000.0

/* n nodes "n00".."n(n-1)", chrony ok, |offset| growing with the index (so
 * the default order is the reverse of the index), all status ok. */
static node *make_nodes(size_t n)
{
	node *nodes = calloc(n, sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		char host[16];
		snprintf(host, sizeof host, "n%02zu", i);
		node_init(&nodes[i], host);
		nodes[i].status = NODE_STATUS_OK;
		nodes[i].has_observation = true;
		nodes[i].reachable = true;
		nodes[i].obs.taken_at = NOW - 1;
		nodes[i].obs.chrony.state = OBS_OK;
		nodes[i].obs.chrony.tracking.system_time_offset_s = 1e-6 * (double)(i + 1);
	}
	return nodes;
}

static const char *host_at(const view *v, size_t r)
{
	return v->nodes[v->rows[r]].host;
}

static const char *selected_host(const view *v)
{
	return v->selected == NO_NODE ? "(none)" : v->nodes[v->selected].host;
}

static void assert_on_screen(const view *v)
{
	long sel = view_selected_row(v);
	if (v->n_rows == 0) {
		assert_int_equal(v->selected, NO_NODE);
		return;
	}
	assert_true(sel >= 0);
	assert_true((size_t)sel >= v->top && (size_t)sel < v->top + v->page);
	if (v->n_rows <= v->page) {
		assert_int_equal(v->top, 0);
	} else {
		assert_true(v->top + v->page <= v->n_rows);
	}
}

static void test_rebuilds_only_on_change(void **state)
{
	(void)state;
	node *nodes = make_nodes(5);
	view v;
	char err[64];
	view_init(&v);
	view_attach(&v, nodes, 5);

	assert_true(view_update(&v, NOW));
	assert_int_equal(v.n_rows, 5);
	assert_string_equal(host_at(&v, 0), "n04"); /* largest |offset| first */
	/* nothing changed: no sort */
	assert_false(view_update(&v, NOW));
	assert_false(view_update(&v, NOW + 10));
	assert_int_equal(v.builds, 1);

	/* the model changed: n00 is now the worst */
	nodes[0].obs.chrony.tracking.system_time_offset_s = 1;
	assert_false(view_update(&v, NOW));
	assert_string_equal(host_at(&v, 0), "n04"); /* not told yet: the last build stands */
	view_data_changed(&v);
	assert_true(view_update(&v, NOW));
	assert_string_equal(host_at(&v, 0), "n00");
	assert_false(view_update(&v, NOW));

	/* the same key again is no change; another key or direction is */
	view_sort_by(&v, COL_STATUS, false);
	assert_false(view_update(&v, NOW));
	view_toggle_reverse(&v);
	assert_true(view_update(&v, NOW));
	assert_string_equal(host_at(&v, 4), "n00");
	view_sort_by(&v, COL_NODE, false);
	assert_true(view_update(&v, NOW));
	assert_string_equal(host_at(&v, 0), "n00");
	assert_string_equal(host_at(&v, 4), "n04");

	/* the filter: the same text is no change */
	assert_int_equal(view_set_filter(&v, "n0[12]", err, sizeof err), 0);
	assert_true(view_update(&v, NOW));
	assert_int_equal(v.n_rows, 2);
	assert_int_equal(view_set_filter(&v, "n0[12]", err, sizeof err), 0);
	assert_false(view_update(&v, NOW));
	assert_int_equal(v.builds, 5);

	/* an invalid regex is said, and matched as text */
	assert_int_equal(view_set_filter(&v, "n0[", err, sizeof err), 1);
	assert_true(strlen(err) > 0);
	assert_true(view_update(&v, NOW));
	assert_int_equal(v.n_rows, 0);
	assert_int_equal(v.selected, NO_NODE);
	assert_on_screen(&v);

	view_free(&v);
	free(nodes);
}

/* A selection away from the top follows its node through a re-sort; on
 * the first row it stays on the first row. */
static void test_selection_follows_node_or_top(void **state)
{
	(void)state;
	node *nodes = make_nodes(5);
	view v;
	view_init(&v);
	view_attach(&v, nodes, 5);
	view_set_page(&v, 10);
	view_update(&v, NOW);
	assert_string_equal(selected_host(&v), "n04");
	assert_true(v.pinned_top);

	/* pinned: a new worst node takes the selection */
	nodes[1].obs.chrony.tracking.system_time_offset_s = 1;
	view_data_changed(&v);
	view_update(&v, NOW);
	assert_string_equal(selected_host(&v), "n01");
	assert_int_equal(view_selected_row(&v), 0);

	/* row 2 (n03) follows its node when the order changes */
	view_select_row(&v, 2);
	assert_false(v.pinned_top);
	assert_string_equal(selected_host(&v), "n03");
	nodes[3].obs.chrony.tracking.system_time_offset_s = 2;
	view_data_changed(&v);
	view_update(&v, NOW);
	assert_string_equal(selected_host(&v), "n03");
	assert_int_equal(view_selected_row(&v), 0);
	assert_false(v.pinned_top); /* moved to the top by the data, not by the user */

	/* the node leaves the view: the selection stays at its place */
	char err[8];
	assert_true(view_select_node(&v, 3));
	long at = view_selected_row(&v);
	view_set_filter(&v, "!n03", err, sizeof err);
	view_update(&v, NOW);
	assert_int_equal(v.n_rows, 4);
	assert_int_equal(view_selected_row(&v), at);
	assert_string_not_equal(selected_host(&v), "n03");
	assert_false(view_select_node(&v, 3)); /* filtered out: not selectable */

	view_free(&v);
	free(nodes);
}

/* The scroll position follows the selection, the page size and the rows;
 * drawing never has to fix it. */
static void test_scroll_follows(void **state)
{
	(void)state;
	node *nodes = make_nodes(20);
	view v;
	char err[8];
	view_init(&v);
	view_attach(&v, nodes, 20);
	view_sort_by(&v, COL_NODE, false); /* row r = node r */
	view_update(&v, NOW);
	view_set_page(&v, 5);
	assert_int_equal(v.top, 0);

	view_select_row(&v, 7);
	assert_int_equal(v.top, 3); /* the selection on the last line of the page */
	assert_on_screen(&v);
	view_move(&v, -5);
	assert_int_equal(view_selected_row(&v), 2);
	assert_int_equal(v.top, 2);
	view_move(&v, 100);
	assert_int_equal(view_selected_row(&v), 19);
	assert_int_equal(v.top, 15);
	view_move(&v, -100);
	assert_int_equal(view_selected_row(&v), 0);
	assert_true(v.pinned_top);
	assert_int_equal(v.top, 0);

	/* a smaller window: the selection stays on screen */
	view_select_row(&v, 12);
	view_set_page(&v, 8);
	assert_on_screen(&v);
	view_set_page(&v, 3);
	assert_int_equal(v.top, 10);
	assert_on_screen(&v);
	/* a window taller than the rows: top is 0 */
	view_set_page(&v, 50);
	assert_int_equal(v.top, 0);
	view_set_page(&v, 0); /* never less than a row */
	assert_int_equal(v.page, 1);
	assert_int_equal(v.top, 12);

	/* fewer rows (a filter) pull the screen back inside them */
	view_set_page(&v, 5);
	view_select_row(&v, 19);
	assert_int_equal(v.top, 15);
	/* the same filter text again is no change: the screen stays */
	view_set_filter(&v, "", err, sizeof err);
	assert_false(view_update(&v, NOW));
	assert_int_equal(v.top, 15);
	assert_on_screen(&v);
	view_set_filter(&v, "n0", err, sizeof err);
	view_update(&v, NOW);
	assert_int_equal(v.n_rows, 10);
	assert_on_screen(&v);
	assert_true(v.top <= 5);

	view_free(&v);
	free(nodes);
}

static void test_problem_rows_and_sort_cycle(void **state)
{
	(void)state;
	node *nodes = make_nodes(6);
	view v;
	view_init(&v);
	view_attach(&v, nodes, 6);
	view_sort_by(&v, COL_NODE, false);
	view_update(&v, NOW);
	assert_int_equal(view_problem_row(&v, 0, 1), -1);
	nodes[1].status = NODE_STATUS_WARN;
	nodes[4].status = NODE_STATUS_CRIT;
	view_data_changed(&v);
	view_update(&v, NOW);
	assert_int_equal(view_problem_row(&v, -1, 1), 1);
	assert_int_equal(view_problem_row(&v, 1, 1), 4);
	assert_int_equal(view_problem_row(&v, 4, 1), 1);  /* wraps */
	assert_int_equal(view_problem_row(&v, 1, -1), 4); /* wraps back */
	assert_int_equal(view_problem_row(&v, -1, -1), 4);

	/* s walks the sortable columns only: the trend is not one */
	view_sort_by(&v, COL_OFFSET, true);
	view_cycle_sort(&v, 1);
	assert_int_equal(v.sort, COL_CLOCK);
	assert_false(v.reverse);
	view_cycle_sort(&v, 1);
	assert_int_equal(v.sort, COL_FREQ);
	view_cycle_sort(&v, -1);
	assert_int_equal(v.sort, COL_CLOCK);
	view_sort_by(&v, COL_SPARK, false); /* refused */
	assert_int_equal(v.sort, COL_CLOCK);

	view_free(&v);
	free(nodes);
}

/* Counted while building: the layout's columns and name width, and the
 * nodes still connecting (never answered, no error yet). */
static void test_build_counts(void **state)
{
	(void)state;
	node *nodes = make_nodes(4);
	view v;
	char err[8];
	node_init(&nodes[2], "a-much-longer-host-name");
	node_init(&nodes[3], "down");
	snprintf(nodes[3].error, sizeof nodes[3].error, "Connection refused");
	view_init(&v);
	view_attach(&v, nodes, 4);
	view_update(&v, NOW);
	assert_int_equal(v.connecting, 1); /* n02 renamed: fresh, no error; "down" has one */
	assert_int_equal(v.node_width, (int)strlen("a-much-longer-host-name"));
	assert_true(v.data_mask & (COLUMN_BIT(COL_OFFSET)));
	assert_false(v.data_mask & (COLUMN_BIT(column_of("ptp-offset"))));

	/* the layout counts the rows shown; connecting counts every node */
	view_set_filter(&v, "^n0", err, sizeof err);
	view_update(&v, NOW);
	assert_int_equal(v.n_rows, 2);
	assert_int_equal(v.node_width, 4);
	assert_int_equal(v.connecting, 1);

	nodes[2].has_observation = true;
	nodes[2].reachable = true;
	view_data_changed(&v);
	view_update(&v, NOW);
	assert_int_equal(v.connecting, 0);

	view_free(&v);
	free(nodes);
}

/* One node's update takes that node's key only; the rows follow it. */
static void test_node_changed_takes_its_key(void **state)
{
	(void)state;
	node *nodes = make_nodes(4);
	view v;
	view_init(&v);
	view_attach(&v, nodes, 4);
	view_update(&v, NOW);
	assert_string_equal(host_at(&v, 0), "n03");

	nodes[1].obs.chrony.tracking.system_time_offset_s = -5;
	nodes[1].status = NODE_STATUS_WARN;
	view_node_changed(&v, 1);
	/* n2 changed too, but nobody said so: its old key stands */
	nodes[2].obs.chrony.tracking.system_time_offset_s = 9;
	assert_true(view_update(&v, NOW));
	assert_string_equal(host_at(&v, 0), "n01"); /* warn before ok */
	assert_string_equal(host_at(&v, 1), "n03");
	assert_string_equal(host_at(&v, 2), "n02");
	view_node_changed(&v, 2);
	view_update(&v, NOW);
	assert_string_equal(host_at(&v, 1), "n02");
	view_node_changed(&v, 99); /* not a node: ignored */
	assert_true(view_update(&v, NOW));

	/* by age: oldest poll first, whenever the keys were taken */
	nodes[0].obs.taken_at = NOW - 100;
	view_node_changed(&v, 0);
	view_sort_by(&v, COL_AGE, false);
	view_update(&v, NOW);
	assert_string_equal(host_at(&v, 0), "n00");
	nodes[3].obs.taken_at = NOW - 500;
	view_node_changed(&v, 3);
	view_update(&v, NOW + 1000);
	assert_string_equal(host_at(&v, 0), "n03");
	assert_string_equal(host_at(&v, 1), "n00");

	view_free(&v);
	free(nodes);
}

/* The sort turns keys into integers: signs, zeros, infinities and unknowns
 * keep their order in both directions. */
static void test_sort_keys_numbers(void **state)
{
	(void)state;
	static const double nums[] = {3, -2, NAN, 0.5, -0.0, INFINITY, 0.0, -INFINITY};
	enum { N = sizeof nums / sizeof nums[0] };
	order_key keys[N];
	size_t rank[N], out[N];
	memset(keys, 0, sizeof keys);
	for (size_t i = 0; i < N; i++) {
		keys[i].num = nums[i];
		keys[i].abs_offset = NAN;
		keys[i].rank = 3;
		keys[i].match = true;
		rank[i] = i; /* ties: the lower index first */
	}
	/* skew: biggest first; -0 and 0 tie (so -0, index 4, comes first by
	 * host rank in both directions) */
	assert_int_equal(order_sort_keys(keys, N, rank, COL_SKEW, false, out), N);
	const size_t down[N] = {5, 0, 3, 4, 6, 1, 7, 2};
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(out[i], down[i]);
	}
	order_sort_keys(keys, N, rank, COL_SKEW, true, out);
	const size_t up[N] = {7, 1, 4, 6, 3, 0, 5, 2}; /* unknown still last */
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(out[i], up[i]);
	}
	/* a filtered-out key has no row */
	keys[0].match = false;
	assert_int_equal(order_sort_keys(keys, N, rank, COL_SKEW, false, out), N - 1);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuilds_only_on_change),
		cmocka_unit_test(test_selection_follows_node_or_top),
		cmocka_unit_test(test_scroll_follows),
		cmocka_unit_test(test_problem_rows_and_sort_cycle),
		cmocka_unit_test(test_build_counts),
		cmocka_unit_test(test_node_changed_takes_its_key),
		cmocka_unit_test(test_sort_keys_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
