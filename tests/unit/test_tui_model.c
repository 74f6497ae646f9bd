/* test_tui_model.c - the TUI's pure parts: row order, the filter, column
 * layout and cells, sparklines, plots, text width, the help text and the
 * drill-down report (built from real captured tool output). */
#include <config.h>

#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chrony_parse.h"
#include "collector.h"
#include "columns.h"
#include "detail_doc.h"
#include "doc.h"
#include "ethtool_parse.h"
#include "filter.h"
#include "fixture.h"
#include "health.h"
#include "help.h"
#include "order.h"
#include "plot.h"
#include "pmc_parse.h"
#include "sparkline.h"
#include "textwidth.h"

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

/* ------------------------------------------------------------- helpers */

static node *new_nodes(size_t n)
{
	node *nodes = calloc(n, sizeof *nodes);
	assert_non_null(nodes);
	return nodes;
}

/* A node that answered, with chrony's offset and reference (NAN offset:
 * chrony did not answer). */
static void make_node(node *nd, const char *host, node_status status, double offset, const char *ref)
{
	node_init(nd, host);
	nd->status = status;
	if (status == NODE_STATUS_UNKNOWN) {
		return;
	}
	nd->has_observation = true;
	nd->reachable = true;
	nd->obs.taken_at = NOW - 1;
	nd->obs.rtt_s = 0.0123;
	if (!isnan(offset)) {
		nd->obs.chrony.state = OBS_OK;
		nd->obs.chrony.tracking.system_time_offset_s = offset;
		nd->obs.chrony.tracking.frequency_ppm = -3.25;
		nd->obs.chrony.tracking.skew_ppm = 0.021;
		nd->obs.chrony.tracking.stratum = 3;
		nd->obs.chrony.tracking.leap = CHRONY_LEAP_NORMAL;
		snprintf(nd->obs.chrony.tracking.reference_name, sizeof nd->obs.chrony.tracking.reference_name,
			 "%s", ref ? ref : "");
	} else {
		nd->obs.chrony.state = OBS_DAEMON_UNREACHABLE;
	}
}

static void make_ptp_slave(node *nd, const char *host, int64_t offset_ns)
{
	node_init(nd, host);
	nd->status = NODE_STATUS_OK;
	nd->has_observation = true;
	nd->reachable = true;
	nd->obs.taken_at = NOW - 1;
	ptp_obs *p = &nd->obs.ptp;
	p->state = OBS_OK;
	p->n_ports = 1;
	p->ports[0].state = PTP_PORT_SLAVE;
	snprintf(p->ports[0].timestamping, sizeof p->ports[0].timestamping, "HARDWARE");
	p->offset_from_master_ns = offset_ns;
	p->mean_path_delay_ns = 8737;
	p->steps_removed = 1;
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "96bec0.fffe.dfca68");
	p->leap61 = 0;
	p->leap59 = 0;
}

static void add_finding(node *nd, severity sev, const char *code)
{
	finding *f = &nd->findings.items[nd->findings.count++];
	memset(f, 0, sizeof *f);
	f->sev = sev;
	f->code = code;
	snprintf(f->message, sizeof f->message, "%s is off", code);
	snprintf(f->hint, sizeof f->hint, "fix %s", code);
}

static void assert_order(const node *nodes, const size_t *rows, size_t n, const char *const *hosts)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(nodes[rows[i]].host, hosts[i]) != 0) {
			fail_msg("row %zu: %s, expected %s", i, nodes[rows[i]].host, hosts[i]);
		}
	}
}

/* ---------------------------------------------------------------- order */

static node *seven_nodes(void)
{
	node *nodes = new_nodes(7);
	make_node(&nodes[0], "a", NODE_STATUS_OK, 1e-6, "ntp1");
	make_node(&nodes[1], "b", NODE_STATUS_CRIT, 5e-3, "ntp1");
	make_node(&nodes[2], "c", NODE_STATUS_WARN, -2e-3, "ntp2");
	make_node(&nodes[3], "d", NODE_STATUS_UNKNOWN, NAN, NULL);
	make_node(&nodes[4], "e", NODE_STATUS_OK, -3e-6, "ntp1");
	make_node(&nodes[5], "f", NODE_STATUS_CRIT, -9e-3, "ntp2");
	make_node(&nodes[6], "g", NODE_STATUS_WARN, NAN, NULL);
	return nodes;
}

static void test_default_order_worst_first(void **state)
{
	(void)state;
	node *nodes = seven_nodes();
	size_t rows[7];
	assert_int_equal(order_build(nodes, 7, NULL, COL_STATUS, false, NOW, rows), 7);
	assert_order(nodes, rows, 7, (const char *const[]){"f", "b", "d", "c", "g", "e", "a"});
	/* reversed: best first, smallest |offset| first, unknown offsets last */
	order_build(nodes, 7, NULL, COL_STATUS, true, NOW, rows);
	assert_order(nodes, rows, 7, (const char *const[]){"a", "e", "c", "g", "d", "b", "f"});
	free(nodes);
}

static void test_sort_by_column(void **state)
{
	(void)state;
	node *nodes = seven_nodes();
	size_t rows[7];
	/* |offset|, biggest first; unknown last, ties in the default order */
	order_build(nodes, 7, NULL, COL_OFFSET, false, NOW, rows);
	assert_order(nodes, rows, 7, (const char *const[]){"f", "b", "c", "e", "a", "d", "g"});
	order_build(nodes, 7, NULL, COL_OFFSET, true, NOW, rows);
	assert_order(nodes, rows, 7, (const char *const[]){"a", "e", "c", "b", "f", "d", "g"});
	/* text: A-Z, nodes without a source last */
	order_build(nodes, 7, NULL, COL_SOURCE, false, NOW, rows);
	assert_order(nodes, rows, 7, (const char *const[]){"b", "e", "a", "f", "c", "d", "g"});
	free(nodes);
}

static void test_sort_by_name_is_natural(void **state)
{
	(void)state;
	node *nodes = new_nodes(4);
	size_t rows[4];
	make_node(&nodes[0], "n10", NODE_STATUS_OK, 0, NULL);
	make_node(&nodes[1], "n2", NODE_STATUS_OK, 0, NULL);
	make_node(&nodes[2], "n1", NODE_STATUS_OK, 0, NULL);
	make_node(&nodes[3], "m99", NODE_STATUS_OK, 0, NULL);
	order_build(nodes, 4, NULL, COL_NODE, false, NOW, rows);
	assert_order(nodes, rows, 4, (const char *const[]){"m99", "n1", "n2", "n10"});
	order_build(nodes, 4, NULL, COL_NODE, true, NOW, rows);
	assert_order(nodes, rows, 4, (const char *const[]){"n10", "n2", "n1", "m99"});

	/* ranked once (the dashboard's way): the same orders, ties by name too */
	size_t rank[4];
	order_rank_hosts(nodes, 4, rank);
	assert_int_equal(rank[0], 3);
	assert_int_equal(rank[3], 0);
	order_build_ranked(nodes, 4, rank, NULL, COL_NODE, false, NOW, rows);
	assert_order(nodes, rows, 4, (const char *const[]){"m99", "n1", "n2", "n10"});
	order_build_ranked(nodes, 4, rank, NULL, COL_NODE, true, NOW, rows);
	assert_order(nodes, rows, 4, (const char *const[]){"n10", "n2", "n1", "m99"});
	order_build_ranked(nodes, 4, rank, NULL, COL_STATUS, false, NOW, rows);
	assert_order(nodes, rows, 4, (const char *const[]){"m99", "n1", "n2", "n10"});
	free(nodes);
}

/* --------------------------------------------------------------- filter */

static size_t filtered(const node *nodes, size_t n, const char *text, size_t *rows, int *rc)
{
	node_filter f;
	char err[160] = "";
	filter_init(&f);
	*rc = filter_set(&f, text, err, sizeof err);
	assert_true(*rc == 0 ? err[0] == '\0' : err[0] != '\0');
	size_t count = order_build(nodes, n, &f, COL_NODE, false, NOW, rows);
	filter_free(&f);
	return count;
}

static void test_filter(void **state)
{
	(void)state;
	node *nodes = new_nodes(4);
	size_t rows[4];
	int rc;
	make_node(&nodes[0], "gpu01", NODE_STATUS_OK, 0, "ntp1.example");
	make_node(&nodes[1], "gpu02", NODE_STATUS_CRIT, 0, "ntp2.example");
	make_node(&nodes[2], "login1", NODE_STATUS_WARN, 0, "ntp1.example");
	make_ptp_slave(&nodes[3], "ptp-a", -42);

	assert_int_equal(filtered(nodes, 4, "GPU", rows, &rc), 2);
	assert_order(nodes, rows, 2, (const char *const[]){"gpu01", "gpu02"});
	assert_int_equal(filtered(nodes, 4, "crit", rows, &rc), 1);
	assert_order(nodes, rows, 1, (const char *const[]){"gpu02"});
	assert_int_equal(filtered(nodes, 4, "ntp1", rows, &rc), 2);
	assert_order(nodes, rows, 2, (const char *const[]){"gpu01", "login1"});
	/* the source of a PTP node is its grandmaster */
	assert_int_equal(filtered(nodes, 4, "dfca68", rows, &rc), 1);
	assert_order(nodes, rows, 1, (const char *const[]){"ptp-a"});
	/* a regex */
	assert_int_equal(filtered(nodes, 4, "^gpu0[2-9]$", rows, &rc), 1);
	assert_int_equal(rc, 0);
	assert_order(nodes, rows, 1, (const char *const[]){"gpu02"});
	assert_int_equal(filtered(nodes, 4, "^(login|ptp)", rows, &rc), 2);
	/* negated */
	assert_int_equal(filtered(nodes, 4, "!gpu", rows, &rc), 2);
	assert_order(nodes, rows, 2, (const char *const[]){"login1", "ptp-a"});
	assert_int_equal(filtered(nodes, 4, "!^gpu0[12]$", rows, &rc), 2);
	/* not a valid regex: literal text, which no node contains */
	assert_int_equal(filtered(nodes, 4, "gpu[", rows, &rc), 0);
	assert_int_equal(rc, 1);
	/* empty: all */
	assert_int_equal(filtered(nodes, 4, "", rows, &rc), 4);
	free(nodes);
}

/* --------------------------------------------------------------- layout */

static bool has_column(const column_layout *l, column_id id)
{
	for (int i = 0; i < l->n; i++) {
		if (l->id[i] == id) {
			return true;
		}
	}
	return false;
}

static void assert_layout_sane(const column_layout *l, int width)
{
	for (int i = 0; i < l->n; i++) {
		const column_info *info = columns_info(l->id[i]);
		assert_true(l->width[i] <= info->max_width);
		if (i > 0) {
			/* left to right by place */
			assert_true(columns_info(l->id[i])->place > columns_info(l->id[i - 1])->place);
			assert_true(l->x[i] >= l->x[i - 1] + l->width[i - 1] + 1);
		}
	}
	assert_true(l->x[l->n - 1] + l->width[l->n - 1] <= width);
}

/* The grid's columns and the collectors' (core/grid_column.h) fit the
 * column mask, and each has a key, a place and a cell of its own. */
static void test_columns_from_the_registry(void **state)
{
	(void)state;
	size_t offered = 0;
	for (size_t c = 0; c < collector_registry_count; c++) {
		offered += collector_registry[c]->n_columns;
	}
	assert_int_equal(columns_count(), COL_CORE_COUNT + (int)offered);
	assert_true(columns_count() <= COLUMNS_MAX);
	for (int a = 0; a < columns_count(); a++) {
		const column_info *ia = columns_info(a);
		assert_non_null(ia->key);
		assert_non_null(ia->help);
		assert_int_equal(columns_find(ia->key), a);
		assert_true(ia->min_width >= 1 && ia->min_width <= ia->max_width);
		if (a >= COL_CORE_COUNT) {
			assert_non_null(ia->cell);
			assert_non_null(ia->has_data);
		}
		for (int b = a + 1; b < columns_count(); b++) {
			assert_true(ia->place != columns_info(b)->place);
			assert_string_not_equal(ia->title, columns_info(b)->title);
		}
	}
	assert_int_equal(columns_find("no-such-column"), -1);
}

static void test_layout_80(void **state)
{
	(void)state;
	column_layout l;
	/* what an operator needs most stays, whatever the name width */
	for (int node_w = 4; node_w <= 32; node_w += 4) {
		columns_layout(80, ALL_COLUMNS, node_w, &l);
		assert_layout_sane(&l, 80);
		assert_true(has_column(&l, COL_NODE));
		assert_true(has_column(&l, COL_STATUS));
		assert_true(has_column(&l, COL_OFFSET));
		assert_true(has_column(&l, COL_FREQ));
		assert_true(has_column(&l, COL_LEAP));
		assert_true(has_column(&l, COL_HWTS));
		assert_true(l.n < columns_count());
	}
	columns_layout(80, ALL_COLUMNS, 12, &l);
	assert_true(has_column(&l, COL_SOURCE));
	/* no room for the PTP offset's own column: OFFSET shows it */
	assert_false(has_column(&l, column_of("ptp-offset")));
	assert_true(l.offset_shares_ptp);
	assert_string_equal(columns_offset_title(&l), "OFFSET/PTP");
	/* ... but not when no node has one */
	columns_layout(80, ALL_COLUMNS & ~(COLUMN_BIT(column_of("ptp-offset"))), 12, &l);
	assert_false(l.offset_shares_ptp);
	assert_string_equal(columns_offset_title(&l), "OFFSET");
	columns_layout(200, ALL_COLUMNS, 12, &l);
	assert_true(has_column(&l, column_of("ptp-offset")));
	assert_false(l.offset_shares_ptp);
}

/* The shared OFFSET cell: chrony's offset when there is one, else the PTP
 * offset, marked. */
static void test_offset_cell_shares_ptp(void **state)
{
	(void)state;
	node *nodes = new_nodes(3);
	column_cell c;
	make_node(&nodes[0], "chrony", NODE_STATUS_OK, 12e-6, "ntp1");
	make_ptp_slave(&nodes[1], "ptp", -1500);
	make_node(&nodes[2], "down", NODE_STATUS_UNKNOWN, NAN, NULL);
	columns_offset_cell(&nodes[0], NOW, false, &c);
	assert_string_equal(c.text, "+12.000 us");
	columns_offset_cell(&nodes[1], NOW, false, &c);
	assert_string_equal(c.text, "P -1.500 us");
	assert_int_equal(c.tone, TONE_PLAIN);
	add_finding(&nodes[1], SEVERITY_CRIT, "ptp.offset");
	columns_offset_cell(&nodes[1], NOW, false, &c);
	assert_int_equal(c.tone, TONE_CRIT);
	columns_offset_cell(&nodes[2], NOW, false, &c);
	assert_string_equal(c.text, "-");
	free(nodes);
}

static void test_layout_250_uses_the_width(void **state)
{
	(void)state;
	column_layout l;
	columns_layout(250, ALL_COLUMNS, 24, &l);
	assert_layout_sane(&l, 250);
	assert_int_equal(l.n, columns_count());
	assert_int_equal(l.width[COL_NODE], 24);
	assert_int_equal(l.width[COL_SOURCE], columns_info(COL_SOURCE)->max_width);
	assert_true(l.width[COL_SPARK] > 60);
	assert_int_equal(l.x[l.n - 1] + l.width[l.n - 1], 250);
}

/* Columns no node has data for give way first. */
static void test_layout_prefers_columns_with_data(void **state)
{
	(void)state;
	node *nodes = new_nodes(1);
	column_layout l;
	make_node(&nodes[0], "chrony-only-node", NODE_STATUS_OK, 1e-6, "ntp1");
	column_mask mask = columns_data_mask(&nodes[0]);
	assert_false(mask & (COLUMN_BIT(column_of("ptp-offset"))));
	columns_layout(100, mask, 16, &l);
	assert_layout_sane(&l, 100);
	assert_true(has_column(&l, COL_FREQ));
	assert_true(has_column(&l, COL_SKEW));
	assert_true(has_column(&l, COL_SPARK));
	assert_false(has_column(&l, column_of("ptp-offset")));
	assert_false(has_column(&l, column_of("path-delay")));
	free(nodes);
}

static void test_layout_narrow(void **state)
{
	(void)state;
	column_layout l;
	columns_layout(20, ALL_COLUMNS, 30, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.id[0], COL_NODE);
	assert_int_equal(l.id[1], COL_STATUS);
	assert_true(l.x[1] + l.width[1] <= 20);
	/* short names: a short column */
	columns_layout(200, COLUMN_BIT(COL_NODE) | COLUMN_BIT(COL_STATUS), 2, &l);
	assert_int_equal(l.width[0], 4);
}

/* ---------------------------------------------------------------- cells */

static void cell_of(const node *nd, column_id id, bool utf8, column_cell *c)
{
	columns_cell(nd, id, 10, NOW, utf8, c);
}

static void test_cells(void **state)
{
	(void)state;
	node *nodes = new_nodes(4);
	column_cell c;

	make_node(&nodes[0], "n1", NODE_STATUS_WARN, 1.5e-3, "ntp1");
	add_finding(&nodes[0], SEVERITY_WARN, "chrony.offset");
	cell_of(&nodes[0], COL_OFFSET, true, &c);
	assert_string_equal(c.text, "+1.500 ms");
	assert_int_equal(c.tone, TONE_WARN);
	cell_of(&nodes[0], COL_FREQ, true, &c);
	assert_string_equal(c.text, "-3.250");
	assert_int_equal(c.tone, TONE_PLAIN);
	cell_of(&nodes[0], COL_STATUS, true, &c);
	assert_int_equal(c.tone, TONE_BADGE);
	assert_non_null(strstr(c.text, "WARN"));
	cell_of(&nodes[0], COL_SOURCE, true, &c);
	assert_string_equal(c.text, "ntp1");
	cell_of(&nodes[0], COL_LEAP, true, &c);
	assert_string_equal(c.text, "normal");
	cell_of(&nodes[0], COL_RTT, true, &c);
	assert_string_equal(c.text, "12 ms");
	cell_of(&nodes[0], COL_AGE, true, &c);
	assert_string_equal(c.text, "1s");
	/* PTP does not apply */
	cell_of(&nodes[0], column_of("ptp-offset"), true, &c);
	assert_string_equal(c.text, "-");
	assert_int_equal(c.tone, TONE_DIM);

	/* µ on a terminal that is not UTF-8 */
	nodes[0].obs.chrony.tracking.system_time_offset_s = -12.345e-6;
	cell_of(&nodes[0], COL_OFFSET, true, &c);
	assert_string_equal(c.text, "-12.345 \xc2\xb5s");
	cell_of(&nodes[0], COL_OFFSET, false, &c);
	assert_string_equal(c.text, "-12.345 us");

	/* unknown value of a part that answered */
	nodes[0].obs.chrony.tracking.frequency_ppm = NAN;
	cell_of(&nodes[0], COL_FREQ, true, &c);
	assert_string_equal(c.text, "?");

	/* stale: last values, dimmed, never a warning colour */
	nodes[0].reachable = false;
	cell_of(&nodes[0], COL_OFFSET, true, &c);
	assert_string_equal(c.text, "-12.345 \xc2\xb5s");
	assert_int_equal(c.tone, TONE_DIM);
	nodes[0].obs.taken_at = NOW - 125;
	cell_of(&nodes[0], COL_AGE, true, &c);
	assert_string_equal(c.text, "2m");
	assert_int_equal(c.tone, TONE_DIM);

	/* never answered */
	make_node(&nodes[1], "n2", NODE_STATUS_UNKNOWN, NAN, NULL);
	cell_of(&nodes[1], COL_OFFSET, true, &c);
	assert_string_equal(c.text, "-");
	cell_of(&nodes[1], COL_AGE, true, &c);
	assert_string_equal(c.text, "-");
	cell_of(&nodes[1], COL_HWTS, true, &c);
	assert_string_equal(c.text, "-");

	/* PTP slave */
	make_ptp_slave(&nodes[2], "p1", -42);
	add_finding(&nodes[2], SEVERITY_CRIT, "ptp.offset");
	cell_of(&nodes[2], column_of("ptp-offset"), true, &c);
	assert_string_equal(c.text, "-42 ns");
	assert_int_equal(c.tone, TONE_CRIT);
	cell_of(&nodes[2], column_of("port"), true, &c);
	assert_string_equal(c.text, "SLAVE");
	cell_of(&nodes[2], COL_SOURCE, true, &c);
	assert_string_equal(c.text, "96bec0.fffe.dfca68");
	cell_of(&nodes[2], COL_STRATUM, true, &c);
	assert_string_equal(c.text, "1");
	cell_of(&nodes[2], column_of("path-delay"), true, &c);
	assert_string_equal(c.text, "8.737 \xc2\xb5s");
	cell_of(&nodes[2], COL_HWTS, true, &c);
	assert_string_equal(c.text, "HW");
	nodes[2].obs.nic.state = OBS_OK;
	nodes[2].obs.nic.caps = NIC_CAP_SW_TX | NIC_CAP_SW_RX;
	cell_of(&nodes[2], COL_HWTS, true, &c);
	assert_string_equal(c.text, "SW");
	cell_of(&nodes[2], COL_OFFSET, true, &c);
	assert_string_equal(c.text, "-");

	/* remote text is cleaned: no escape reaches the screen */
	make_node(&nodes[3], "evil", NODE_STATUS_OK, 0, "x\x1b]0;pwned\x07y\x1b[2Jz");
	cell_of(&nodes[3], COL_SOURCE, true, &c);
	assert_string_equal(c.text, "xyz");
	free(nodes);
}

/* ------------------------------------------------------------ sparkline */

static void test_sparkline_levels(void **state)
{
	(void)state;
	const double v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	char out[64];
	assert_int_equal(sparkline_render(v, 8, 8, true, out, sizeof out), 24);
	assert_string_equal(out, "\xe2\x96\x81\xe2\x96\x82\xe2\x96\x83\xe2\x96\x84"
				 "\xe2\x96\x85\xe2\x96\x86\xe2\x96\x87\xe2\x96\x88");
	sparkline_render(v, 8, 8, false, out, sizeof out);
	assert_string_equal(out, " .:-=+*#");
	/* scale follows the values shown, whatever their magnitude */
	const double tiny[3] = {-2e-9, 0, 2e-9};
	sparkline_render(tiny, 3, 3, false, out, sizeof out);
	assert_string_equal(out, " =#");
}

static void test_sparkline_edges(void **state)
{
	(void)state;
	char out[64];
	/* fewer values than columns: right-aligned */
	const double two[2] = {1, 2};
	sparkline_render(two, 2, 5, false, out, sizeof out);
	assert_string_equal(out, "    #");
	/* more values than columns: the newest */
	const double many[6] = {100, 100, 0, 1, 2, 3};
	sparkline_render(many, 6, 4, false, out, sizeof out);
	assert_string_equal(out, " :+#");
	/* unknown is blank; flat is mid-height */
	const double gaps[4] = {5, NAN, 5, 5};
	sparkline_render(gaps, 4, 4, false, out, sizeof out);
	assert_string_equal(out, "- --");
	/* all unknown */
	const double none[3] = {NAN, NAN, NAN};
	sparkline_render(none, 3, 3, true, out, sizeof out);
	assert_string_equal(out, "   ");
	/* a short buffer gets whole bars only */
	char small[8];
	assert_int_equal(sparkline_render(many, 6, 4, true, small, sizeof small), 6);
	assert_int_equal(strlen(small), 6);
	assert_int_equal(sparkline_render(many, 6, 4, true, small, 0), 0);
}

static void test_sparkline_history_fallback(void **state)
{
	(void)state;
	history *h = calloc(1, sizeof *h);
	char out[64];
	assert_non_null(h);
	history_init(h);
	for (int i = 0; i < 4; i++) {
		history_sample s = {.t = NOW - 4 + i};
		for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
			s.value[k] = NAN;
		}
		s.value[HISTORY_PTP_OFFSET_NS] = (float)(i * 10);
		history_push(h, &s);
	}
	sparkline_history(h, HISTORY_OFFSET_S, HISTORY_PTP_OFFSET_NS, 4, false, out, sizeof out);
	assert_string_equal(out, " :+#");
	sparkline_history(h, HISTORY_OFFSET_S, HISTORY_OFFSET_S, 4, false, out, sizeof out);
	assert_string_equal(out, "    ");
	free(h);
}

/* ----------------------------------------------------------------- plot */

static void format_us(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%+.1f us", v * 1e6);
}

static void test_plot(void **state)
{
	(void)state;
	double t[61], v[61];
	plot_grid g;
	char row[512];
	for (int i = 0; i <= 60; i++) {
		t[i] = NOW - 60 + i;
		v[i] = (i - 30) * 1e-7; /* -3 us .. +3 us */
	}
	plot_series s = {t, v, 61, NOW, format_us, 0};
	assert_int_equal(plot_render(&s, 40, 9, false, &g), 0);
	assert_int_equal(g.width, 40);
	assert_int_equal(g.height, 9);

	/* labels: max at the top, min at the bottom data row, zero between */
	plot_row_text(&g, 0, row, sizeof row);
	assert_int_equal(strncmp(row, "+3.0 us + ", 10), 0);
	plot_row_text(&g, 6, row, sizeof row);
	assert_int_equal(strncmp(row, "-3.0 us +*", 10), 0);
	plot_row_text(&g, 3, row, sizeof row);
	assert_non_null(strstr(row, "      0 +"));
	assert_non_null(strstr(row, "."));
	/* a rising line: top right, bottom left */
	assert_int_equal(row[strlen(row) - 1], '.');
	plot_row_text(&g, 0, row, sizeof row);
	assert_int_equal(row[39], '*');
	/* x axis and its labels */
	plot_row_text(&g, 7, row, sizeof row);
	assert_int_equal(strncmp(row, "        +-", 10), 0);
	plot_row_text(&g, 8, row, sizeof row);
	assert_non_null(strstr(row, "-60s"));
	assert_non_null(strstr(row, "-30s"));
	assert_string_equal(row + 37, "now");
	plot_free(&g);

	/* too small, or nothing to draw */
	assert_int_equal(plot_render(&s, 19, 9, false, &g), -1);
	assert_int_equal(plot_render(&s, 40, 3, false, &g), -1);
	for (int i = 0; i <= 60; i++) {
		v[i] = NAN;
	}
	assert_int_equal(plot_render(&s, 40, 9, true, &g), -1);
	assert_null(g.cells);
}

static void test_plot_flat_and_gaps(void **state)
{
	(void)state;
	double t[5] = {NOW - 4, NOW - 3, NOW - 2, NOW - 1, NOW};
	double v[5] = {2e-6, 2e-6, NAN, 2e-6, 2e-6};
	plot_series s = {t, v, 5, NOW, format_us, 0};
	plot_grid g;
	char row[512];
	int dots = 0;
	assert_int_equal(plot_render(&s, 30, 7, true, &g), 0);
	for (int r = 0; r < g.height; r++) {
		for (int c = 0; c < g.width; c++) {
			dots += g.cells[r * g.width + c].kind == PLOT_LINE;
		}
	}
	/* columns 0, 5, 10, 15, 20 hold the samples: 0-5 and 15-20 are joined
	 * lines, the unknown sample at 10 breaks the trace */
	assert_int_equal(dots, 12);
	int data_row = -1;
	for (int r = 0; r < g.height; r++) {
		if (g.cells[r * g.width + 9].kind == PLOT_LINE) {
			data_row = r;
		}
	}
	assert_true(data_row >= 0);
	for (int c = 0; c <= 20; c++) {
		plot_kind want = (c <= 5 || c >= 15) ? PLOT_LINE : PLOT_BLANK;
		assert_int_equal(g.cells[data_row * g.width + 9 + c].kind, want);
	}
	/* one label, on the line's row */
	plot_row_text(&g, data_row, row, sizeof row);
	assert_int_equal(strncmp(row, "+2.0 us \xe2\x94\xa4", 11), 0); /* ┤ */
	for (int r = 0; r < g.height - 1; r++) {
		if (r != data_row) {
			assert_int_equal(g.cells[r * g.width].kind, PLOT_BLANK);
		}
	}
	plot_row_text(&g, 5, row, sizeof row);
	assert_non_null(strstr(row, "\xe2\x94\x94")); /* └ */
	plot_free(&g);
}

/* Polls that stopped for a while leave a hole, not a straight line. */
static void test_plot_outage_not_joined(void **state)
{
	(void)state;
	double t[6] = {NOW - 22, NOW - 21, NOW - 20, NOW - 2, NOW - 1, NOW};
	double v[6] = {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 1e-6};
	plot_series s = {t, v, 6, NOW, format_us, 0};
	plot_grid g;
	assert_int_equal(plot_render(&s, 40, 7, false, &g), 0);
	int axis = 0; /* the corner of the axes */
	while (axis < g.width && strcmp(g.cells[(g.height - 2) * g.width + axis].glyph, "+") != 0) {
		axis++;
	}
	int cols = g.width - axis - 1, data_row = -1;
	for (int r = 0; r < g.height; r++) {
		if (g.cells[r * g.width + axis + 1].kind == PLOT_LINE) {
			data_row = r;
		}
	}
	assert_true(data_row >= 0);
	/* the middle of the time axis (the outage) is empty */
	for (int c = cols / 4; c < 3 * cols / 4; c++) {
		assert_int_equal(g.cells[data_row * g.width + axis + 1 + c].kind, PLOT_BLANK);
	}
	assert_int_equal(g.cells[data_row * g.width + g.width - 1].kind, PLOT_LINE);
	plot_free(&g);
}

/* ------------------------------------------------------------ textwidth */

static void test_textwidth(void **state)
{
	(void)state;
	char out[64];
	const char *next;
	assert_int_equal(tw_width("abc"), 3);
	assert_int_equal(tw_width("\xc2\xb5s"), 2);
	assert_int_equal(tw_width("\xe6\x97\xa5\xe6\x9c\xac"), 4); /* two CJK: wide */
	assert_int_equal(tw_fit("abcdef", 4, true, out, sizeof out), 4);
	assert_string_equal(out, "abc\xe2\x80\xa6");
	assert_int_equal(tw_fit("abcdef", 4, false, out, sizeof out), 4);
	assert_string_equal(out, "abc~");
	assert_int_equal(tw_fit("abcd", 4, true, out, sizeof out), 4);
	assert_string_equal(out, "abcd");
	/* a wide character is never split */
	assert_int_equal(tw_fit("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4, true, out, sizeof out), 3);
	assert_string_equal(out, "\xe6\x97\xa5\xe2\x80\xa6");
	assert_int_equal(tw_fit("abc", 0, true, out, sizeof out), 0);
	assert_string_equal(out, "");
	/* the buffer bounds the copy too */
	char tiny[4];
	tw_fit("abcdefgh", 8, true, tiny, sizeof tiny);
	assert_int_equal(strlen(tiny), 3);

	size_t n = tw_wrap("hello world foo", 11, &next);
	assert_int_equal(n, 11);
	assert_string_equal(next, "foo");
	n = tw_wrap("abcdefghij", 4, &next);
	assert_int_equal(n, 4);
	assert_string_equal(next, "efghij");
	assert_int_equal(tw_wrap("", 4, &next), 0);

	tw_clean("a\x1b[31mb\nc\x9b", 64, true, out, sizeof out);
	assert_string_equal(out, "ab c\xef\xbf\xbd");
	tw_clean("caf\xc3\xa9", 64, false, out, sizeof out);
	assert_string_equal(out, "caf?");
	/* bounded read of a field that is not NUL-terminated */
	const char field[4] = {'a', 'b', 'c', 'd'};
	tw_clean(field, sizeof field, true, out, sizeof out);
	assert_string_equal(out, "abcd");
}

/* ----------------------------------------------------------------- help */

static void test_help_lists_every_key(void **state)
{
	(void)state;
	doc d;
	static const char *const keys[] = {
		"Up Down  k j", "PgUp PgDn", "Home End  g G", "Enter", "n  N", "/", "Esc", "s >   S <",
		"\n  r ", "q  Ctrl-C", "\n  R ", "\n  p ", "+  -", "t  T", "Ctrl-L", "?  F1", "click",
		"double-click", "wheel", "--no-mouse",
	};
	doc_init(&d);
	help_build(&d, true);
	char *text = doc_text(&d);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (!strstr(text, keys[i])) {
			fail_msg("help does not mention \"%s\"", keys[i]);
		}
	}
	/* and every column */
	for (int c = 0; c < columns_count(); c++) {
		assert_non_null(strstr(text, columns_info((column_id)c)->title));
	}
	free(text);
	doc_free(&d);
}

/* ----------------------------------------------------------- drill-down */

static void parse_fixture(const char *name, void (*parse)(const tool_output *, void *), void *dst)
{
	size_t len;
	char *text = fixture_read(name, &len);
	tool_output out = {text, len, "", 0, 0};
	parse(&out, dst);
	free(text);
}

static void chrony_parse_any(const tool_output *out, void *dst)
{
	chrony_parse_csv(out, dst);
}

static void pmc_parse_any(const tool_output *out, void *dst)
{
	pmc_parse(out, dst);
}

static void ethtool_parse_any(const tool_output *out, void *dst)
{
	ethtool_parse(out, dst);
}

static node *fixture_node(void)
{
	node *nd = new_nodes(1);
	thresholds th;
	node_init(nd, "node2");
	nd->has_observation = true;
	nd->reachable = true;
	nd->obs.taken_at = NOW - 3;
	nd->obs.rtt_s = 0.004;
	parse_fixture("chronyc-c-m-tracking-sources-sourcestats-synced.txt", chrony_parse_any, &nd->obs.chrony);
	parse_fixture("pmc-batch-multi-get-slave.txt", pmc_parse_any, &nd->obs.ptp);
	parse_fixture("ethtool-T-eth0-virtio.txt", ethtool_parse_any, &nd->obs.nic);
	for (int i = 0; i < 120; i++) {
		history_sample s = {.t = NOW - 120 + i};
		for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
			s.value[k] = NAN;
		}
		s.value[HISTORY_OFFSET_S] = (float)(3e-6 * sin(i / 10.0));
		s.value[HISTORY_FREQUENCY_PPM] = (float)(-0.38 + i * 1e-4);
		history_push(&nd->history, &s);
	}
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	return nd;
}

static long line_of(const doc *d, const char *needle)
{
	for (size_t i = 0; i < d->n; i++) {
		if (strstr(d->lines[i].text, needle)) {
			return (long)i;
		}
	}
	return -1;
}

/* The frequency's trends from Prometheus (or --state-dir): a section of
 * their own, only when one is known; the finding colours the hour's. */
static void test_detail_doc_drift(void **state)
{
	(void)state;
	node *nd = fixture_node();
	thresholds th;
	doc d;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_int_equal(line_of(&d, "Frequency drift"), -1);
	assert_int_equal(line_of(&d, "Last hour"), -1);
	doc_free(&d);
	nd->history.remote_drift_hourly_ppm = 2.5;
	nd->history.drift_daily_ppm = 0.25; /* the database's, until Prometheus says */
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_true(line_of(&d, "Frequency drift") > 0);
	assert_non_null(strstr(d.lines[line_of(&d, "Last hour")].text, "+2.500 ppm/h (Prometheus's deriv)"));
	assert_non_null(strstr(d.lines[line_of(&d, "Over days")].text, "+0.25 ppm/day (--state-dir, up to 7 days)"));
	doc_free(&d);
	nd->history.remote_drift_daily_ppm = -3.0;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_non_null(strstr(d.lines[line_of(&d, "Over days")].text, "-3.00 ppm/day (Prometheus's deriv, last 7 days)"));
	doc_free(&d);
	free(nd);
}

/* A boundary clock's drill-down lists every interface ethtool checked,
 * the primary PTP interface's first, a failed one with its error. */
static void test_detail_doc_every_nic(void **state)
{
	(void)state;
	node *nd = fixture_node();
	observation *o = &nd->obs;
	nic_obs *sw = &o->nics[0], *gone = &o->nics[1];
	*sw = o->nic;
	snprintf(sw->interface, sizeof sw->interface, "eth0");
	nic_obs_init(gone);
	gone->state = OBS_NO_DEVICE;
	snprintf(gone->interface, sizeof gone->interface, "swp9");
	snprintf(gone->error, sizeof gone->error, "swp9: no such interface");
	o->n_nics = 2;
	observation_settle_nic(o);
	doc d;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	long title = line_of(&d, "NIC timestamping");
	long first = line_of(&d, "software-transmit");
	long second = line_of(&d, "swp9: no such interface");
	assert_true(title >= 0 && first > title && second > first);
	assert_true(line_of(&d, "swp9") > first); /* the failed one's name */
	doc_free(&d);

	/* the daemons section: each one's PID and age, a restart found */
	daemons_obs *dm = &o->daemons;
	dm->state = OBS_OK;
	dm->running = DAEMON_PTP4L | DAEMON_PHC2SYS;
	daemon_proc *p = &dm->procs[daemon_index(DAEMON_PTP4L)];
	p->count = 1;
	p->pid = 9123;
	p->age_s = 42;
	p->restarted_at = NOW - 30;
	dm->procs[daemon_index(DAEMON_PHC2SYS)].count = 1; /* no PID: no line */
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	long running = line_of(&d, "Time daemons running");
	assert_true(running >= 0);
	assert_true(line_of(&d, "PID 9123, running 42 s; restart found 30 s ago") > running);
	doc_free(&d);
	free(nd);
}

static void test_detail_doc(void **state)
{
	(void)state;
	node *nd = fixture_node();
	doc d;

	/* a problem to diagnose: the fixture node lacks hardware timestamps */
	assert_true(nd->findings.count > 0);
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);

	long diag = line_of(&d, "Diagnosis"), tracking = line_of(&d, "chrony tracking");
	assert_true(diag >= 0 && tracking > diag);
	assert_true(line_of(&d, "fix: ") > diag);
	assert_true(line_of(&d, "fix: ") < tracking);
	assert_true(line_of(&d, "chrony sources") > tracking);
	assert_true(line_of(&d, "chrony sourcestats") > tracking);
	assert_true(line_of(&d, "10.77.0.2") > tracking);
	assert_true(line_of(&d, "96bec0.fffe.dfca68") > 0);
	assert_true(line_of(&d, "SLAVE") > 0);
	assert_true(line_of(&d, "software-transmit") > 0);
	assert_true(line_of(&d, "Offset, chrony System time") > 0);
	assert_true(line_of(&d, "Frequency, chrony") > 0);
	assert_true(line_of(&d, "ppm \xe2\x94\xa4") > 0); /* a labelled y axis */
	assert_true(line_of(&d, "now") > 0);
	assert_int_equal(line_of(&d, "UNREACHABLE"), -1);
	assert_true(line_of(&d, "Offset from master") > 0);
	assert_int_equal(line_of(&d, "is stale"), -1);
	/* the grandmaster's quality in words (the capture's master: ptp4l defaults) */
	static const char *const gm_rows[][2] = {
		{"GM clock class", ": 248: free-running default: no reference at all"},
		{"GM clock accuracy", ": 0xFE (unknown)"},
		{"GM log variance", ": 0xFFFF (not computed)"},
		{"Time source", ": 0xA0 (INTERNAL_OSCILLATOR)"},
		{"Traceable", ": time no, frequency no"},
	};
	for (size_t i = 0; i < sizeof gm_rows / sizeof gm_rows[0]; i++) {
		long at = line_of(&d, gm_rows[i][0]);
		assert_true(at > tracking);
		if (!strstr(d.lines[at].text, gm_rows[i][1])) {
			fail_msg("\"%s\" lacks \"%s\"", d.lines[at].text, gm_rows[i][1]);
		}
	}
	for (size_t i = 0; i < d.n; i++) {
		if (tw_width(d.lines[i].text) > 100) {
			fail_msg("line %zu is %d columns: %s", i, tw_width(d.lines[i].text), d.lines[i].text);
		}
	}
	doc_free(&d);

	/* the master gone, the port LISTENING: ptp4l's last offset is shown as
	 * stale, not as the node's offset */
	for (int i = 0; i < nd->obs.ptp.n_ports; i++) {
		nd->obs.ptp.ports[i].state = PTP_PORT_LISTENING;
	}
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	long stale = line_of(&d, "Offset from master");
	assert_true(stale > 0);
	assert_non_null(strstr(d.lines[stale].text, "is stale"));
	assert_int_equal(line_of(&d, "Mean path delay"), -1);
	/* a LISTENING ptp4l's PARENT_DATA_SET is its own default, nobody's quality */
	assert_non_null(strstr(d.lines[line_of(&d, "GM clock class")].text, ": - (no port follows a master or is one)"));
	assert_int_equal(line_of(&d, "GM clock accuracy"), -1);
	doc_free(&d);
	for (int i = 0; i < nd->obs.ptp.n_ports; i++) {
		nd->obs.ptp.ports[i].state = PTP_PORT_SLAVE;
	}

	/* the Sync lines (ptp.no_sync's evidence): software timestamping with
	 * the realtime reads around pmc, the rx Sync count standing still */
	ptp_obs *pt = &nd->obs.ptp;
	ptp_port *port = &pt->ports[0];
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_non_null(strstr(d.lines[line_of(&d, "Last Sync")].text, ": unknown"));
	assert_int_equal(line_of(&d, "Syncs received"), -1);
	doc_free(&d);
	snprintf(port->timestamping, sizeof port->timestamping, "SOFTWARE");
	pt->realtime_before_ns = pt->ingress_time_ns + 400000000;
	pt->realtime_after_ns = pt->ingress_time_ns + 510000000;
	port->sync.rx_sync = 98;
	port->sync.rx_sync_since = nd->obs.taken_at - 2;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_true(line_of(&d, "Last Sync") > line_of(&d, "Offset from master"));
	assert_true(line_of(&d, "400.000 ms ago") > 0);
	assert_true(line_of(&d, "98 (unchanged for 2.000 s)") > 0);
	doc_free(&d);
	snprintf(port->timestamping, sizeof port->timestamping, "HARDWARE");
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_true(line_of(&d, "the age needs phc_ctl") > 0);
	doc_free(&d);
	pt->ingress_time_ns = 0;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_true(line_of(&d, "none since ptp4l started") > 0);
	doc_free(&d);

#ifdef NODE_EVENTS
	/* the connection log, when the model keeps one */
	nd->polls_completed = 41;
	nd->polls_failed = 2;
	node_log_event(nd, NOW - 30, "connected to node2 port 22");
	node_log_event(nd, NOW - 10, "lost: kex \x1b[31mfailed");
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	long conn = line_of(&d, "Connection");
	assert_true(conn > tracking);
	assert_true(line_of(&d, "41 completed, 2 failed") > conn);
	assert_true(line_of(&d, "connected to node2 port 22") > conn);
	assert_true(line_of(&d, "lost: kex failed") > line_of(&d, "connected to node2 port 22"));
	doc_free(&d);
#endif

	/* the raw answer of the last poll, line by line and sanitised */
	const char raw[] = "@@synctop 0123456789abcdef begin\nchronyc \x1b]0;PWNED\x07\x1b[31mRED\x1b[0m\n\xc2\x9b" "1mevil";
	memcpy(nd->last_raw, raw, sizeof raw - 1);
	nd->last_raw_len = sizeof raw - 1;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	long raw_at = line_of(&d, "Raw output of the last poll");
	assert_true(raw_at > 0);
	assert_true(line_of(&d, "@@synctop 0123456789abcdef begin") > raw_at);
	assert_true(line_of(&d, "chronyc RED") > raw_at);
	assert_true(line_of(&d, "evil") > raw_at);
	assert_int_equal(line_of(&d, "PWNED"), -1);
	assert_int_equal(line_of(&d, "first 16 KiB"), -1);
	nd->last_raw_truncated = true;
	doc_free(&d);
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 100, true);
	assert_true(line_of(&d, "first 16 KiB shown") > raw_at);
	doc_free(&d);
	nd->last_raw_len = 0;
	nd->last_raw_truncated = false;

	/* stale, with hostile remote text */
	nd->reachable = false;
	snprintf(nd->error, sizeof nd->error, "connection lost\x1b[2J\x1b]0;owned\x07 here");
	snprintf(nd->obs.chrony.tracking.reference_name, sizeof nd->obs.chrony.tracking.reference_name,
		 "ref\x1b[31m");
	thresholds th;
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 80, false);
	assert_true(line_of(&d, "UNREACHABLE") >= 0);
	assert_true(line_of(&d, "connection lost here") > 0);
	char *text = doc_text(&d);
	for (const char *p = text; *p; p++) {
		if ((unsigned char)*p < 0x20 && *p != '\n') {
			fail_msg("control character 0x%02x in the report", (unsigned char)*p);
		}
		assert_true((unsigned char)*p < 0x80); /* ASCII terminal */
	}
	free(text);
	doc_free(&d);
	free(nd);
}

int main(void)
{
	/* widths of non-ASCII characters need a UTF-8 LC_CTYPE */
	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		setlocale(LC_CTYPE, "en_US.UTF-8");
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_order_worst_first),
		cmocka_unit_test(test_sort_by_column),
		cmocka_unit_test(test_sort_by_name_is_natural),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_columns_from_the_registry),
		cmocka_unit_test(test_layout_80),
		cmocka_unit_test(test_offset_cell_shares_ptp),
		cmocka_unit_test(test_layout_250_uses_the_width),
		cmocka_unit_test(test_layout_prefers_columns_with_data),
		cmocka_unit_test(test_layout_narrow),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_sparkline_levels),
		cmocka_unit_test(test_sparkline_edges),
		cmocka_unit_test(test_sparkline_history_fallback),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_plot_flat_and_gaps),
		cmocka_unit_test(test_plot_outage_not_joined),
		cmocka_unit_test(test_textwidth),
		cmocka_unit_test(test_help_lists_every_key),
		cmocka_unit_test(test_detail_doc),
		cmocka_unit_test(test_detail_doc_every_nic),
		cmocka_unit_test(test_detail_doc_drift),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
