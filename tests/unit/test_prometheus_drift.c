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

#include "longest_selector.h"
#include "prometheus_drift.h"
#include "prometheus_query.h"
#include "thresholds.h"

/* the built-in hour (thresholds.c) and the week */
#define HOUR ((prom_drift_span){3600.0, 600.0})
#define WEEK ((prom_drift_span){7 * 86400.0, 86400.0})
#define ALL PROM_DRIFT_ALL_FAMILIES

static void test_hour_query(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, HOUR, ALL, "{job=\"node\"}", q, sizeof q) > 0);
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
	assert_true(prometheus_drift_query(PROM_DRIFT_WEEK, WEEK, ALL, "", q, sizeof q) > 0);
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
	/* nodename: no join in PromQL (it would evaluate each family twice);
	 * node_uname_info is asked apart and joined by the mapping */
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, HOUR, ALL, "{a=\"b\"}", q, sizeof q) > 0);
	assert_null(strstr(q, "node_uname_info"));
	assert_int_equal(strstr(q, "deriv(chrony_tracking_frequency_ppms{a=\"b\"}[3600s])") -
				 strstr(q, "deriv(chrony_tracking_frequency_ppms"),
			 0);
	assert_null(strstr(strstr(q, "deriv(chrony_tracking_frequency_ppms") + 1, "deriv(chrony_tracking_frequency_ppms"));
	assert_true(prometheus_drift_names_query("{a=\"b\"}", q, sizeof q) > 0);
	assert_string_equal(q, "group by (instance, nodename) (node_uname_info{a=\"b\"})");
	assert_int_equal(prometheus_drift_names_query("{a=\"b\"}", q, 10), -1);
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_HOUR, HOUR, ALL, "", q, 100), -1);
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_COUNT, HOUR, ALL, "", q, sizeof q), -1);
}

/* The hour's window is the node's thresholds' (as the SSH rule's), the
 * week's fixed; a window no longer than its span, or under PromQL's 1 ms,
 * is never asked. */
static void test_span_of_thresholds(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	prom_drift_span s = prometheus_drift_span(PROM_DRIFT_HOUR, &th);
	assert_true(s.range_s == 3600.0 && s.min_span_s == 600.0);
	th.chrony_drift_window_s = 1800;
	th.chrony_drift_min_span_s = 300;
	s = prometheus_drift_span(PROM_DRIFT_HOUR, &th);
	assert_true(s.range_s == 1800.0 && s.min_span_s == 300.0);
	s = prometheus_drift_span(PROM_DRIFT_WEEK, &th);
	assert_true(s.range_s == 7 * 86400.0 && s.min_span_s == 86400.0);

	char q[16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, (prom_drift_span){1800, 300}, ALL, "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "(deriv(chrony_tracking_frequency_ppms[1800s]) * 3600 "
				  "and count_over_time(chrony_tracking_frequency_ppms[1800s]) >= 10 "
				  "and count_over_time(chrony_tracking_frequency_ppms[1500s] offset 300s) > 0)"));
	assert_non_null(strstr(q, "unless changes(node_timex_tick_seconds[1800s]) > 0"));
	assert_null(strstr(q, "3600s"));
	/* fractions in milliseconds; no span needed: the whole range */
	assert_true(prometheus_drift_query(PROM_DRIFT_HOUR, (prom_drift_span){90.5, 0}, ALL, "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "deriv(chrony_tracking_frequency_ppms[90500ms]) * 3600 "));
	assert_non_null(strstr(q, "count_over_time(chrony_tracking_frequency_ppms[90500ms] offset 0s) > 0"));
	assert_true(prometheus_drift_span_askable((prom_drift_span){90.5, 0}));
	assert_false(prometheus_drift_span_askable((prom_drift_span){600, 600}));
	assert_false(prometheus_drift_span_askable((prom_drift_span){0, 0}));
	assert_false(prometheus_drift_span_askable((prom_drift_span){NAN, 0}));
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_HOUR, (prom_drift_span){600, 900}, ALL, "", q, sizeof q),
			 -1);
}

/* The week asked a family at a time: each part is its family's part of
 * the whole, alone; the parts' answers merged keep the most trusted family
 * per node, as the whole's answer does. */
static void test_family_parts(void **state)
{
	(void)state;
	char whole[16384], part[PROM_DRIFT_FAMILIES][16384];
	assert_true(prometheus_drift_query(PROM_DRIFT_WEEK, WEEK, ALL, "{a=\"b\"}", whole, sizeof whole) > 0);
	char joined[3 * 16384 + 16] = "";
	for (int f = 0; f < PROM_DRIFT_FAMILIES; f++) {
		assert_true(prometheus_drift_query(PROM_DRIFT_WEEK, WEEK, f, "{a=\"b\"}", part[f], sizeof part[f]) >
			    0);
		assert_null(strstr(part[f], " or label_replace(")); /* one family */
		if (f) {
			strcat(joined, " or ");
		}
		strcat(joined, part[f]);
	}
	assert_string_equal(joined, whole);
	assert_non_null(strstr(part[0], "\"chrony\""));
	assert_non_null(strstr(part[2], "changes(node_timex_tick_seconds{a=\"b\"}[604800s])"));
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_WEEK, WEEK, PROM_DRIFT_FAMILIES, "", whole, sizeof whole),
			 -1);
	assert_int_equal(prometheus_drift_query(PROM_DRIFT_WEEK, WEEK, -2, "", whole, sizeof whole), -1);

	/* n1's chrony part and its timex part answered apart: chrony's decides */
	static const char timex[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
				    "{\"metric\":{\"instance\":\"n1:9100\",\"synctop_from\":\"timex\"},"
				    "\"values\":[[1764950400,\"-0.5\"]]},"
				    "{\"metric\":{\"instance\":\"n2:9100\",\"synctop_from\":\"timex\"},"
				    "\"values\":[[1764950400,\"0.25\"]]}]}}";
	static const char chrony[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
				     "{\"metric\":{\"instance\":\"n1:9123\",\"synctop_from\":\"chrony\"},"
				     "\"values\":[[1764950400,\"2.25\"]]}]}}";
	prom_matrix m;
	prom_drift_result all, one;
	char err[256];
	assert_int_equal(prometheus_range_parse(timex, strlen(timex), 1, &m, err, sizeof err), 0);
	prometheus_drift_map_matrix(&m, NULL, NULL, &all);
	prom_matrix_free(&m);
	assert_int_equal(prometheus_range_parse(chrony, strlen(chrony), 1, &m, err, sizeof err), 0);
	prometheus_drift_map_matrix(&m, NULL, NULL, &one);
	prom_matrix_free(&m);
	prometheus_drift_merge(&all, &one);
	assert_int_equal(all.n, 2);
	assert_true(prometheus_drift_find(&all, "n1") == 2.25);
	assert_true(prometheus_drift_find(&all, "n2") == 0.25);
	prometheus_drift_free(&one);
	prometheus_drift_map_matrix(NULL, NULL, NULL, &one); /* a part with nothing */
	prometheus_drift_merge(&all, &one);
	assert_int_equal(all.n, 2);
	prometheus_drift_free(&one);
	prometheus_drift_free(&all);
}

/* One query per server set and span, in order of first appearance, never
 * one per node: groups on the same servers with different windows each get
 * their own; the same window on other servers too. */
static void test_plan(void **state)
{
	(void)state;
	const prom_drift_key keys[] = {
		{0, {3600, 600}}, {1, {3600, 600}}, {0, {3600, 600}}, {0, {1800, 300}},
		{1, {3600, 600}}, {0, {1800, 600}}, {0, {1800, 300}},
	};
	size_t query_of[7], *first = NULL;
	size_t n = prometheus_drift_plan(keys, 7, query_of, &first);
	assert_int_equal(n, 4);
	const size_t want[] = {0, 1, 0, 2, 1, 3, 2};
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(query_of[i], want[i]);
	}
	assert_int_equal(first[0], 0);
	assert_int_equal(first[1], 1);
	assert_int_equal(first[2], 3);
	assert_int_equal(first[3], 5);
	free(first);
	assert_int_equal(prometheus_drift_plan(keys, 0, query_of, &first), 0);
	free(first);
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
	prometheus_drift_map_matrix(&m, NULL, NULL, &r);
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
	prometheus_drift_map_matrix(&m, "job", NULL, &r);
	assert_true(prometheus_drift_find(&r, "chrony") == 2.25);
	assert_true(prometheus_drift_find(&r, "node") == -0.5); /* the first timex series of job node */
	assert_true(prometheus_drift_find(&r, "n3") == -1.5);   /* synctop's: by node, always */
	prometheus_drift_free(&r);
	prom_matrix_free(&m);
}

/* nodename: node_uname_info's by instance names the node (a nodename label
 * on the series itself is not it: prometheus_map.c's naming); an instance
 * without one keeps its own name.  An instant query's vector maps the same. */
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
	prometheus_drift_map_vector(&v, "nodename", NULL, &r);
	assert_int_equal(r.n, 2);
	assert_true(prometheus_drift_find(&r, "10.0.0.7") == 3.5); /* no names given */
	assert_true(prometheus_drift_find(&r, "10.0.0.8") == -4.0);
	prometheus_drift_free(&r);
	prom_vector_free(&v);
	prometheus_drift_map_vector(NULL, NULL, NULL, &r); /* a failed query: nothing known */
	assert_int_equal(r.n, 0);
	assert_true(isnan(prometheus_drift_find(&r, "gpu7")));
	prometheus_drift_free(&r);
}

/* nodename joined by the mapping: node_uname_info's answer (a range of one
 * instant) names each exporter series by its instance; an instance without
 * it keeps its own name; synctop's series stay by node; an instance with
 * two nodenames takes the answer's first, as prometheus_map.c. */
static void test_map_nodename_joined(void **state)
{
	(void)state;
	static const char uname[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
		"{\"metric\":{\"__name__\":\"node_uname_info\",\"instance\":\"10.0.0.9:9100\",\"nodename\":\"zz\"},"
		"\"values\":[[1764950400,\"1\"]]},"
		"{\"metric\":{\"__name__\":\"node_uname_info\",\"instance\":\"10.0.0.7:9100\",\"nodename\":\"gpu7\"},"
		"\"values\":[[1764950400,\"1\"]]},"
		"{\"metric\":{\"__name__\":\"node_uname_info\",\"instance\":\"10.0.0.9:9100\",\"nodename\":\"gpu9\"},"
		"\"values\":[[1764950400,\"1\"]]},"
		"{\"metric\":{\"__name__\":\"node_uname_info\",\"instance\":\"10.0.0.5:9100\"},"
		"\"values\":[[1764950400,\"1\"]]}]}}";
	static const char trends[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
		"{\"metric\":{\"instance\":\"10.0.0.7:9100\",\"synctop_from\":\"timex\"},\"values\":[[1764950400,\"3.5\"]]},"
		"{\"metric\":{\"instance\":\"10.0.0.7:9123\",\"synctop_from\":\"chrony\"},\"values\":[[1764950400,\"1\"]]},"
		"{\"metric\":{\"instance\":\"10.0.0.8:9100\",\"synctop_from\":\"timex\"},\"values\":[[1764950400,\"-4\"]]},"
		"{\"metric\":{\"instance\":\"10.0.0.9:9100\",\"synctop_from\":\"timex\"},\"values\":[[1764950400,\"2\"]]},"
		"{\"metric\":{\"instance\":\"10.0.0.5:9100\",\"synctop_from\":\"timex\"},\"values\":[[1764950400,\"5\"]]},"
		"{\"metric\":{\"instance\":\"10.0.0.7:9100\",\"node\":\"agg1\",\"synctop_from\":\"synctop\"},"
		"\"values\":[[1764950400,\"6\"]]}]}}";
	prom_matrix m;
	prom_drift_names names;
	prom_drift_result r;
	char err[256];
	assert_int_equal(prometheus_range_parse(uname, strlen(uname), 1, &m, err, sizeof err), 0);
	prometheus_drift_names_read(&m, &names);
	prom_matrix_free(&m);
	assert_int_equal(names.n, 3); /* the one without a nodename says nothing */
	assert_string_equal(names.names[1].instance, "10.0.0.9:9100");
	assert_string_equal(names.names[1].nodename, "zz"); /* the answer's first */
	assert_int_equal(prometheus_range_parse(trends, strlen(trends), 1, &m, err, sizeof err), 0);
	prometheus_drift_map_matrix(&m, "nodename", &names, &r);
	assert_true(prometheus_drift_find(&r, "gpu7") == 3.5);     /* its node_exporter's instance */
	assert_true(prometheus_drift_find(&r, "10.0.0.7") == 1.0); /* chrony_exporter's port: another instance */
	assert_true(prometheus_drift_find(&r, "10.0.0.8") == -4.0);
	assert_true(prometheus_drift_find(&r, "zz") == 2.0);
	assert_true(isnan(prometheus_drift_find(&r, "gpu9")));
	assert_true(prometheus_drift_find(&r, "10.0.0.5") == 5.0);
	assert_true(prometheus_drift_find(&r, "agg1") == 6.0);
	prometheus_drift_free(&r);
	/* by the instance, names or not */
	prometheus_drift_map_matrix(&m, NULL, &names, &r);
	assert_true(prometheus_drift_find(&r, "10.0.0.7") == 1.0);
	assert_true(isnan(prometheus_drift_find(&r, "gpu7")));
	prometheus_drift_free(&r);
	prom_matrix_free(&m);
	prometheus_drift_names_free(&names);
	prometheus_drift_names_read(NULL, &names); /* no answer: no names */
	assert_int_equal(names.n, 0);
	prometheus_drift_names_free(&names);
}

/* Every window's query, each family's and all of them, fits
 * PROM_DRIFT_QUERY_MAX with the longest selector synctop takes (1,024
 * characters: prometheus_map_check_selector): it was cut at 1 and 2 KiB
 * inside, and the trends were never asked ("the query does not fit"). */
static void test_queries_fit_longest_selector(void **state)
{
	(void)state;
	char sel[PROM_SELECTOR_MAX + 1], buf[PROM_DRIFT_QUERY_MAX];
	longest_selector(sel);
	thresholds th;
	thresholds_init_defaults(&th);
	for (int w = 0; w < PROM_DRIFT_COUNT; w++) {
		prom_drift_span span = prometheus_drift_span((prom_drift_window)w, &th);
		for (int f = -1; f < PROM_DRIFT_FAMILIES; f++) {
			int family = f < 0 ? PROM_DRIFT_ALL_FAMILIES : f;
			assert_true(prometheus_drift_query((prom_drift_window)w, span, family, sel, buf, sizeof buf) > 2048);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hour_query),
		cmocka_unit_test(test_week_query),
		cmocka_unit_test(test_query_nodename_and_limits),
		cmocka_unit_test(test_span_of_thresholds),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_family_parts),
		cmocka_unit_test(test_map_answer),
		cmocka_unit_test(test_map_nodename_vector),
		cmocka_unit_test(test_map_nodename_joined),
		cmocka_unit_test(test_queries_fit_longest_selector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
