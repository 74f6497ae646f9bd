/* test_history.c - ring buffer order, wrap-around, median and slope. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "history.h"

static history *new_history(void)
{
	history *h = malloc(sizeof *h);
	assert_non_null(h);
	history_init(h);
	return h;
}

static void push(history *h, double t, float offset)
{
	history_sample s = {.t = t};
	for (int i = 0; i < HISTORY_SERIES_COUNT; i++) {
		s.value[i] = NAN;
	}
	s.value[HISTORY_OFFSET_S] = offset;
	history_push(h, &s);
}

static void test_empty(void **state)
{
	(void)state;
	history *h = new_history();
	assert_int_equal(history_count(h), 0);
	assert_null(history_latest(h));
	assert_null(history_at(h, 0));
	assert_true(isnan(history_median(h, HISTORY_OFFSET_S, 0)));
	assert_true(isnan(history_slope(h, HISTORY_OFFSET_S, 0)));
	free(h);
}

static void test_wraps_and_keeps_newest(void **state)
{
	(void)state;
	history *h = new_history();
	for (int i = 0; i < HISTORY_CAPACITY + 10; i++) {
		push(h, i, (float)i);
	}
	assert_int_equal(history_count(h), HISTORY_CAPACITY);
	assert_float_equal(history_at(h, 0)->value[HISTORY_OFFSET_S], 10.0, 0);
	assert_float_equal(history_latest(h)->value[HISTORY_OFFSET_S], HISTORY_CAPACITY + 9, 0);
	assert_null(history_at(h, HISTORY_CAPACITY));
	free(h);
}

/* A short ring (a Prometheus node's) wraps at its own capacity and never
 * writes a slot past it. */
static void test_short_capacity(void **state)
{
	(void)state;
	history *h = new_history();
	h->samples[5].t = -1; /* a slot past the capacity: must stay as it is */
	history_set_capacity(h, 5);
	for (int i = 0; i < 12; i++) {
		push(h, i, (float)i);
	}
	assert_int_equal(history_count(h), 5);
	assert_true(history_at(h, 0)->t == 7);
	assert_true(history_latest(h)->t == 11);
	assert_true(h->samples[5].t == -1);
	assert_true(history_median(h, HISTORY_OFFSET_S, 0) == 9.0);
	history_set_capacity(h, 0); /* clamped to 1 */
	push(h, 20, 1);
	push(h, 21, 2);
	assert_int_equal(history_count(h), 1);
	assert_true(history_latest(h)->t == 21);
	free(h);
}

static void test_median_skips_unknown(void **state)
{
	(void)state;
	history *h = new_history();
	push(h, 1, 5);
	push(h, 2, NAN);
	push(h, 3, 1);
	push(h, 4, 3);
	assert_float_equal(history_median(h, HISTORY_OFFSET_S, 0), 3.0, 1e-9);
	push(h, 5, 7);
	assert_float_equal(history_median(h, HISTORY_OFFSET_S, 0), 4.0, 1e-9);
	/* only the newest two: 3 and 7 */
	assert_float_equal(history_median(h, HISTORY_OFFSET_S, 2), 5.0, 1e-9);
	free(h);
}

static void test_slope_of_a_line(void **state)
{
	(void)state;
	history *h = new_history();
	for (int i = 0; i < 100; i++) {
		push(h, 1.8e9 + i, 0.5f * (float)i + 2.0f);
	}
	assert_float_equal(history_slope(h, HISTORY_OFFSET_S, 0), 0.5, 1e-6);
	/* window restricted to the last 10 s still sees the same line */
	assert_float_equal(history_slope(h, HISTORY_OFFSET_S, 1.8e9 + 90), 0.5, 1e-6);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_wraps_and_keeps_newest),
		cmocka_unit_test(test_short_capacity),
		cmocka_unit_test(test_median_skips_unknown),
		cmocka_unit_test(test_slope_of_a_line),
	};
	return cmocka_run_group_tests_name("history", tests, NULL, NULL);
}
