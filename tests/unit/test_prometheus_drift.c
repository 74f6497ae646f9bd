/* test_prometheus_drift.c - the frequency's trends from Prometheus: the
 * PromQL of each window (deriv per family with its unit and sign, the
 * enough-history conditions, the selector, nodename's join) and its answer
 * mapped to nodes (the most trusted family per node, unknown stays NAN),
 * on answers shaped as Prometheus 2.42 sends them. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prometheus_drift.h"
#include "prometheus_query.h"

static void test_hour_query(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, "{job=\"node\"}", NULL, q, sizeof q) > 0);
	/* chrony_exporter's ppm, per second -> per hour */
	assert_non_null(strstr(q, "label_replace((deriv(chrony_tracking_frequency_ppms{job=\"node\"}[3600s]) * 3600 "
				  "and count_over_time(chrony_tracking_frequency_ppms{job=\"node\"}[3600s]) >= 10 "
				  "and count_over_time(chrony_tracking_frequency_ppms{job=\"node\"}[3000s] offset 600s) > 0), "
				  "\"synctop_from\", \"chrony\", \"\", \"\")"));
	/* synctop's ratio in ppm */
	assert_non_null(strstr(q, "deriv(synctop_chrony_frequency_ratio{job=\"node\"}[3600s]) * 3600000000 and"));
	/* the kernel's correction is minus chrony's frequency; a tick change is no trend */
	assert_non_null(strstr(q, "deriv(node_timex_frequency_adjustment_ratio{job=\"node\"}[3600s]) * -3600000000 and"));
	assert_non_null(strstr(q, " unless changes(node_timex_tick_seconds{job=\"node\"}[3600s]) > 0), \"synctop_from\", "
				  "\"timex\""));
	/* in order of trust, joined by or */
	const char *c = strstr(q, "\"chrony\""), *s = strstr(q, "\"synctop\""), *t = strstr(q, "\"timex\"");
	assert_true(c && s && t && c < s && s < t);
	assert_non_null(strstr(q, "\"\") or label_replace("));
}

static void test_week_query(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_WEEK, "", NULL, q, sizeof q) > 0);
	/* per day over 7 days; a sample a day old at least */
	assert_non_null(strstr(q, "(deriv(chrony_tracking_frequency_ppms[604800s]) * 86400 and "
				  "count_over_time(chrony_tracking_frequency_ppms[518400s] offset 86400s) > 0)"));
	assert_non_null(strstr(q, "deriv(node_timex_frequency_adjustment_ratio[604800s]) * -86400000000 and"));
	assert_null(strstr(q, ">= 10")); /* no second scan of a week */
	assert_null(strstr(q, "{}"));
}

static void test_query_nodename_and_limits(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, "{a=\"b\"}", "nodename", q, sizeof q) > 0);
	assert_non_null(strstr(q, "> 0) * on(instance) group_left(nodename) node_uname_info{a=\"b\"} or (deriv("));
	assert_non_null(strstr(q, "unless on(instance) node_uname_info{a=\"b\"}, \"synctop_from\", \"chrony\""));
	/* synctop's series are named by node: no join */
	assert_non_null(strstr(q, "> 0), \"synctop_from\", \"synctop\""));
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_HOUR, "", NULL, q, 100), -1);
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_COUNT, "", NULL, q, sizeof q), -1);
}

/* An answer to the hour's query as Prometheus 2.42 gives it for a range
 * of one instant (start == end): n1 has chrony_exporter and timex (chrony's
 * decides), n2 timex only, n3 synctop's textfile, [fe80::1]:9100 by its
 * address; a NaN slope and an untagged series say nothing. */
static const char hour_answer[] =
	"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
	"{\"metric\":{\"instance\":\"n1:9100\",\"job\":\"node\",\"synctop_from\":\"timex\"},"
	"\"values\":[[1764950400,\"-0.5\"]]},"
	"{\"metric\":{\"instance\":\"n1:9123\",\"job\":\"chrony\",\"synctop_from\":\"chrony\"},"
	"\"values\":[[1764950400,\"2.25\"]]},"
	"{\"metric\":{\"instance\":\"n2:9100\",\"job\":\"node\",\"synctop_from\":\"timex\"},"
	"\"values\":[[1764950400,\"0\"]]},"
	"{\"metric\":{\"instance\":\"agg:9100\",\"job\":\"node\",\"node\":\"n3\",\"synctop_from\":\"synctop\"},"
	"\"values\":[[1764950400,\"-1.5\"]]},"
	"{\"metric\":{\"instance\":\"[fe80::1]:9100\",\"job\":\"node\",\"synctop_from\":\"timex\"},"
	"\"values\":[[1764950400,\"1e-3\"]]},"
	"{\"metric\":{\"instance\":\"n4:9100\",\"job\":\"node\",\"synctop_from\":\"timex\"},"
	"\"values\":[[1764950400,\"NaN\"]]},"
	"{\"metric\":{\"instance\":\"n5:9100\",\"job\":\"node\"},\"values\":[[1764950400,\"9\"]]}"
	"]}}";

static void test_map_answer(void **state)
{
	(void)state;
	prom_matrix m;
	prom_drift_result r;
	char err[256];
	assert_int_equal(prometheus_range_parse(hour_answer, strlen(hour_answer), 1, &m, err, sizeof err), 0);
	prometheus_drift_map_matrix(&m, NULL, &r);
	assert_int_equal(r.n, 4);
	assert_true(prometheus_drift_find(&r, "n1") == 2.25); /* chrony_exporter's, not the kernel's */
	assert_true(prometheus_drift_find(&r, "n2") == 0.0);  /* steady: known, 0 */
	assert_true(prometheus_drift_find(&r, "n3") == -1.5);
	assert_true(prometheus_drift_find(&r, "fe80::1") == 1e-3);
	assert_true(isnan(prometheus_drift_find(&r, "n4"))); /* NaN: unknown */
	assert_true(isnan(prometheus_drift_find(&r, "n5"))); /* no family tag */
	assert_true(isnan(prometheus_drift_find(&r, "agg")));
	assert_true(isnan(prometheus_drift_find(&r, "n9")));
	prometheus_drift_free(&r);

	/* named by a label: where a series has none, by its instance */
	prometheus_drift_map_matrix(&m, "job", &r);
	assert_true(prometheus_drift_find(&r, "chrony") == 2.25);
	assert_true(prometheus_drift_find(&r, "node") == -0.5); /* the first timex series of job node */
	assert_true(prometheus_drift_find(&r, "n3") == -1.5);   /* synctop's: by node, always */
	prometheus_drift_free(&r);
	prom_matrix_free(&m);
}

/* nodename: the join's label names the node; an instance without
 * node_uname_info keeps its own name.  An instant query's vector maps the same. */
static void test_map_nodename_vector(void **state)
{
	(void)state;
	static const char answer[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
		"{\"metric\":{\"instance\":\"10.0.0.7:9100\",\"nodename\":\"gpu7\",\"synctop_from\":\"timex\"},"
		"\"value\":[1764950400,\"3.5\"]},"
		"{\"metric\":{\"instance\":\"10.0.0.8:9100\",\"synctop_from\":\"timex\"},"
		"\"value\":[1764950400,\"-4\"]}]}}";
	prom_vector v;
	prom_drift_result r;
	char err[256];
	assert_int_equal(prometheus_query_parse(answer, strlen(answer), &v, err, sizeof err), 0);
	prometheus_drift_map_vector(&v, "nodename", &r);
	assert_int_equal(r.n, 2);
	assert_true(prometheus_drift_find(&r, "gpu7") == 3.5);
	assert_true(prometheus_drift_find(&r, "10.0.0.8") == -4.0);
	prometheus_drift_free(&r);
	prom_vector_free(&v);
	prometheus_drift_map_vector(NULL, NULL, &r); /* a failed query: nothing known */
	assert_int_equal(r.n, 0);
	assert_true(isnan(prometheus_drift_find(&r, "gpu7")));
	prometheus_drift_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hour_query),
		cmocka_unit_test(test_week_query),
		cmocka_unit_test(test_query_nodename_and_limits),
		cmocka_unit_test(test_map_answer),
		cmocka_unit_test(test_map_nodename_vector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
