/* test_dayview.c - the drill-down's day view reads a node's offset and
 * frequency over the chosen range from a --state-dir database, averaged per
 * plot column, and says plainly when there is nothing to show (no
 * --state-dir, no rows, an unreadable file). */
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

#include "dayview.h"
#include "doc.h"
#include "state_store.h"

#define NOW 1800000000.0

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/synctop-dayview-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Whether any line of d holds text. */
static bool doc_has(const doc *d, const char *text)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->lines[i].text && strstr(d->lines[i].text, text)) {
			return true;
		}
	}
	return false;
}

/* Two days of a node at one sample a minute: frequency rising 1 ppm a day. */
static void fill(void)
{
	char err[STATE_ERROR_LEN];
	state_store *s = state_store_open(dir, NULL, err, sizeof err);
	assert_non_null(s);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int m = 0; m < 2 * 1440; m++) {
		double t = NOW - 2 * 86400.0 + m * 60.0;
		state_sample x = {.t = t, .clock_check_s = NAN};
		for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
			x.value[k] = NAN;
		}
		x.value[HISTORY_OFFSET_S] = 1e-6f;
		x.value[HISTORY_FREQUENCY_PPM] = (float)(5.0 + (t - NOW) / 86400.0);
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
	}
	assert_int_equal(state_store_commit(s), 0);
	state_store_close(s);
}

static void test_ranges(void **state)
{
	(void)state;
	fill();
	dayview dv;
	dayview_init(&dv);
	dayview_refresh(&dv, dir, DAYVIEW_1H, "n1", 60, NOW);
	assert_int_equal(dv.found, 60); /* a sample a minute, a column a minute */
	assert_true(fabs(dv.frequency_ppm[59] - (5.0 - 30.0 / 86400.0)) < 1e-3);
	dayview_refresh(&dv, dir, DAYVIEW_7D, "n1", 70, NOW);
	/* two days of seven: 20 of 70 columns */
	assert_int_equal(dv.found, 20);
	assert_true(isnan(dv.offset_s[0]));
	assert_true(fabs(dv.offset_s[69] - 1e-6) < 1e-9);
	doc d;
	doc_init(&d);
	dayview_doc(&d, &dv, dir, DAYVIEW_7D, NOW, 100, true);
	assert_true(doc_has(&d, "Day view: the last 7 d"));
	assert_true(doc_has(&d, "20 of 70 columns"));
	assert_true(doc_has(&d, "-7.0d"));
	assert_true(doc_has(&d, "Frequency"));
	doc_free(&d);
	/* the same range within DAYVIEW_REFRESH_S is not read again */
	dv.found = 12345;
	dayview_refresh(&dv, dir, DAYVIEW_7D, "n1", 70, NOW + 1);
	assert_int_equal(dv.found, 12345);
	dayview_refresh(&dv, dir, DAYVIEW_7D, "n1", 70, NOW + DAYVIEW_REFRESH_S + 1);
	assert_true(dv.found == 20 || dv.found == 21); /* the columns moved by 6 s */
	dayview_free(&dv);
}

static void test_nothing_to_show(void **state)
{
	(void)state;
	dayview dv;
	dayview_init(&dv);
	doc d;
	doc_init(&d);
	dayview_doc(&d, &dv, NULL, DAYVIEW_24H, NOW, 100, true);
	assert_true(doc_has(&d, "start synctop with --state-dir"));
	doc_free(&d);
	fill();
	dayview_refresh(&dv, dir, DAYVIEW_24H, "someone-else", 50, NOW);
	assert_int_equal(dv.found, 0);
	dayview_doc(&d, &dv, dir, DAYVIEW_24H, NOW, 100, true);
	assert_true(doc_has(&d, "nothing stored for this node"));
	doc_free(&d);
	/* off: nothing at all */
	dayview_doc(&d, &dv, dir, DAYVIEW_OFF, NOW, 100, true);
	assert_int_equal(d.n, 0);
	doc_free(&d);
	dayview_free(&dv);
}

static void test_unreadable(void **state)
{
	(void)state;
	char path[400];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 300; i++) {
		fputs("not a database at all ", f);
	}
	fclose(f);
	dayview dv;
	dayview_init(&dv);
	dayview_refresh(&dv, dir, DAYVIEW_1H, "n1", 60, NOW);
	assert_int_equal(dv.found, -1);
	doc d;
	doc_init(&d);
	dayview_doc(&d, &dv, dir, DAYVIEW_1H, NOW, 200, true);
	assert_true(doc_has(&d, "cannot read it"));
	doc_free(&d);
	dayview_free(&dv);
}

static void test_cycle(void **state)
{
	(void)state;
	assert_int_equal(dayview_next(DAYVIEW_OFF), DAYVIEW_1H);
	assert_int_equal(dayview_next(DAYVIEW_1H), DAYVIEW_24H);
	assert_int_equal(dayview_next(DAYVIEW_24H), DAYVIEW_7D);
	assert_int_equal(dayview_next(DAYVIEW_7D), DAYVIEW_OFF);
	assert_string_equal(dayview_name(DAYVIEW_24H), "24 h");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ranges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_to_show, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test(test_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
