/* test_drift_trend.c - chrony.drift_daily's trend: the least-squares slope
 * of frequency against time in ppm/day, known only once the samples span a
 * day, robust to a daily temperature swing and to gaps. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "drift_trend.h"

#define T0 1800000000.0
#define N (3 * 1440) /* three days, a point a minute */

static double t[N], f[N];

static void test_steady_ageing(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++) {
		t[i] = T0 + i * 60.0;
		f[i] = -12.5 + 1.5 * (i * 60.0) / 86400.0; /* +1.5 ppm/day */
	}
	double slope = drift_trend_ppm_per_day(t, f, N, DRIFT_TREND_MIN_SPAN_S);
	assert_true(fabs(slope - 1.5) < 1e-9);
	assert_true(drift_trend_exceeds(slope, 1.0));
	assert_false(drift_trend_exceeds(slope, 2.0));
	assert_false(drift_trend_exceeds(-slope, 2.0));
	assert_true(drift_trend_exceeds(-slope, 1.0)); /* either direction */
}

/* A daily temperature swing of +-2 ppm over whole days is no trend. */
static void test_daily_swing_is_not_a_trend(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++) {
		t[i] = T0 + i * 60.0;
		f[i] = 3.0 + 2.0 * sin(2 * M_PI * (i * 60.0) / 86400.0);
	}
	double slope = drift_trend_ppm_per_day(t, f, N, DRIFT_TREND_MIN_SPAN_S);
	assert_true(fabs(slope) < 0.5);
	assert_false(drift_trend_exceeds(slope, 1.0));
}

/* Less than a day is not judged; NANs and order do not matter. */
static void test_span_gaps_and_order(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++) {
		t[i] = T0 + i * 60.0;
		f[i] = 0.5 * (i * 60.0) / 86400.0;
	}
	assert_true(isnan(drift_trend_ppm_per_day(t, f, 1000, DRIFT_TREND_MIN_SPAN_S))); /* 16.7 h */
	assert_true(isfinite(drift_trend_ppm_per_day(t, f, 1000, 3600)));
	for (int i = 100; i < 2000; i++) {
		f[i] = NAN; /* chronyd was down */
	}
	double tmp = t[0];
	t[0] = t[N - 1];
	t[N - 1] = tmp;
	tmp = f[0];
	f[0] = f[N - 1];
	f[N - 1] = tmp;
	assert_true(fabs(drift_trend_ppm_per_day(t, f, N, DRIFT_TREND_MIN_SPAN_S) - 0.5) < 1e-9);
	assert_false(drift_trend_exceeds(NAN, 1.0));
}

static void test_too_few(void **state)
{
	(void)state;
	double tt[3] = {T0, T0 + 86400, T0 + 2 * 86400}, ff[3] = {1, 2, 3};
	assert_true(isnan(drift_trend_ppm_per_day(tt, ff, 3, DRIFT_TREND_MIN_SPAN_S)));
	assert_true(isnan(drift_trend_ppm_per_day(tt, ff, 0, DRIFT_TREND_MIN_SPAN_S)));
}

/* Hourly sums (x from each hour's start) merged over seven days give the
 * slope the points give, a daily swing and gaps included; one point short
 * of the span is not judged. */
static void test_hourly_sums_match(void **state)
{
	(void)state;
	enum { DAYS = 7, M = DAYS * 1440 };
	static double tt[M], ff[M];
	drift_sums hour[DAYS * 24];
	for (int h = 0; h < DAYS * 24; h++) {
		drift_sums_init(&hour[h]);
	}
	for (int i = 0; i < M; i++) {
		tt[i] = T0 + i * 60.0 + 30.0;
		ff[i] = i % 500 == 7 ? NAN : -4.0 + 0.8 * (i * 60.0) / 86400.0 + 1.5 * sin(2 * M_PI * i / 1440.0);
		int h = (int)((tt[i] - T0) / 3600.0);
		drift_sums_add(&hour[h], tt[i] - (T0 + h * 3600.0), ff[i]);
	}
	drift_sums all;
	drift_sums_init(&all);
	for (int h = 0; h < DAYS * 24; h++) {
		drift_sums_merge(&all, &hour[h], h * 3600.0);
	}
	double want = drift_trend_ppm_per_day(tt, ff, M, DRIFT_TREND_MIN_SPAN_S);
	double got = drift_sums_ppm_per_day(&all, DRIFT_TREND_MIN_SPAN_S);
	assert_true(isfinite(want));
	assert_true(fabs(got - want) < 1e-9);
	/* the last 23 hours alone: less than a day */
	drift_sums part;
	drift_sums_init(&part);
	for (int h = DAYS * 24 - 23; h < DAYS * 24; h++) {
		drift_sums_merge(&part, &hour[h], (h - (DAYS * 24 - 23)) * 3600.0);
	}
	assert_true(isnan(drift_sums_ppm_per_day(&part, DRIFT_TREND_MIN_SPAN_S)));
	drift_sums none;
	drift_sums_init(&none);
	assert_true(isnan(drift_sums_ppm_per_day(&none, DRIFT_TREND_MIN_SPAN_S)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_ageing),
		cmocka_unit_test(test_daily_swing_is_not_a_trend),
		cmocka_unit_test(test_span_gaps_and_order),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_hourly_sums_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
