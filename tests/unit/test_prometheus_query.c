/* test_prometheus_query.c - the instant-query answer parser, on answers
 * captured from Prometheus 2.42 (tests/fixtures/prometheus-*.source.md) and
 * on hostile text. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "prometheus_query.h"

static int parse_text(const char *text, prom_vector *v, char *err, size_t err_len)
{
	return prometheus_query_parse(text, strlen(text), v, err, err_len);
}

static int parse_fixture(const char *name, prom_vector *v, char *err, size_t err_len)
{
	size_t len;
	char *text = fixture_read(name, &len);
	int rc = prometheus_query_parse(text, len, v, err, err_len);
	free(text);
	return rc;
}

static void test_timex_answer(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-timex.json", &v, err, sizeof err), 0);
	assert_int_equal(v.n_samples, 9);
	assert_string_equal(prom_sample_label(&v.samples[0], "__name__"), "node_timex_estimated_error_seconds");
	assert_string_equal(prom_sample_label(&v.samples[0], "instance"), "127.0.0.1:36921");
	assert_string_equal(prom_sample_label(&v.samples[0], "job"), "node");
	assert_null(prom_sample_label(&v.samples[0], "node"));
	assert_true(v.samples[0].value == 16.0);
	assert_true(fabs(v.samples[0].t - 1796302996.020) < 1e-3);
	assert_true(v.samples[5].value == 64.0); /* node_timex_status: STA_UNSYNC */
	assert_true(v.samples[8].value == 0.01);
	assert_int_equal(v.n_warnings, 0);
	assert_string_equal(v.warnings, "");
	prom_vector_free(&v);
}

static void test_timestamp_answer_has_no_name(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-timex-time.json", &v, err, sizeof err), 0);
	assert_int_equal(v.n_samples, 1);
	/* timestamp() drops the metric name; the value is the scrape time */
	assert_null(prom_sample_label(&v.samples[0], "__name__"));
	assert_true(v.samples[0].value > 1.7e9 && v.samples[0].value <= v.samples[0].t);
	prom_vector_free(&v);
}

static void test_large_answer(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-synctop.json", &v, err, sizeof err), 0);
	assert_int_equal(v.n_samples, 1367);
	prom_vector_free(&v);
}

static void test_empty_result(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-empty.json", &v, err, sizeof err), 0);
	assert_int_equal(v.n_samples, 0);
	/* an answer, empty, is not a missing one (prometheus_source.c merges by it) */
	assert_non_null(v.samples);
	prom_vector_free(&v);
}

static void test_status_error(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-error-bad-data.json", &v, err, sizeof err), -1);
	assert_string_equal(err, "Prometheus says bad_data: invalid parameter \"query\": 1:5: parse error: "
				 "unexpected end of input inside braces");
	prom_vector_free(&v);
}

static void test_matrix_refused(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_fixture("prometheus-matrix.json", &v, err, sizeof err), -1);
	assert_string_equal(err, "expected an instant vector, got a matrix");
	prom_vector_free(&v);
}

static void test_special_values(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_text("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
				    "{\"metric\":{},\"value\":[1.5,\"NaN\"]},"
				    "{\"metric\":{\"a\":\"b\"},\"value\":[2,\"+Inf\"]},"
				    "{\"metric\":{},\"value\":[3,\"-Inf\"]},"
				    "{\"metric\":{},\"value\":[4,\"-1.5e-07\"]}]}}",
				    &v, err, sizeof err),
			 0);
	assert_int_equal(v.n_samples, 4);
	assert_true(isnan(v.samples[0].value));
	assert_true(isinf(v.samples[1].value) && v.samples[1].value > 0);
	assert_true(isinf(v.samples[2].value) && v.samples[2].value < 0);
	assert_true(v.samples[3].value == -1.5e-07);
	assert_string_equal(prom_sample_label(&v.samples[1], "a"), "b");
	prom_vector_free(&v);
}

/* Numbers read without strtod (the fast path) are strtod's to the bit, and
 * those it cannot take (too many digits, powers past 1e22, hex, "1e",
 * "NaN") go to strtod or are refused as before. */
static void test_numbers_as_strtod(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"0", "-0", "19", "-19", "3e-06", "0.0004", "1796489302.650", "1.", ".5", "+2.5", "123456789012345",
		"1234567890123456", "0.1", "0.3", "9007199254740993", "1e22", "1e23", "-1e-22", "1e-23", "5E+3",
		"0.000000000000000000000000123", "0x1p3", "4.9406564584124654e-324", "1.7976931348623157e308",
		"2.2250738585072014e-308", "0.00000000000000000000001", "100000000000000000000000",
		"1.000000000000001", "8.589973e9", "2e0", "1e", "1e+", "-", ".", "1.2.3", "1e5x", "Inf",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		char body[512];
		prom_vector v;
		char err[256];
		char *end = NULL;
		double want = strtod(texts[i], &end);
		bool whole = end != texts[i] && *end == '\0';
		snprintf(body, sizeof body,
			 "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			 "{\"metric\":{},\"value\":[1796489302.650,\"%s\"]}]}}",
			 texts[i]);
		int rc = parse_text(body, &v, err, sizeof err);
		if (!whole) {
			assert_int_equal(rc, -1);
			prom_vector_free(&v);
			continue;
		}
		assert_int_equal(rc, 0);
		if (memcmp(&v.samples[0].value, &want, sizeof want) != 0) {
			fail_msg("\"%s\": %.17g, strtod %.17g", texts[i], v.samples[0].value, want);
		}
		assert_true(v.samples[0].t == strtod("1796489302.650", NULL));
		prom_vector_free(&v);
	}
}

static void test_warnings_kept(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_text("{\"status\":\"success\",\"warnings\":[\"partial\\nresponse\",\"store down\"],"
				    "\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
				    &v, err, sizeof err),
			 0);
	assert_int_equal(v.n_warnings, 2);
	assert_string_equal(v.warnings, "partial response; store down");
	prom_vector_free(&v);
}

/* The event parser follows keys in any order and steps over what it does
 * not read, however nested (Thanos and Mimir add their own keys). */
static void test_any_key_order(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_text("{\"data\":{\"result\":["
				    "{\"value\":[1.5,\"2\"],\"extra\":{\"a\":[{\"b\":[1,2,{\"c\":null}]}]},"
				    "\"metric\":{\"__name__\":\"up\",\"instance\":\"h:9100\",\"zone\":\"a\"}},"
				    "{\"metric\":{},\"value\":[2e0,\"-0.5\"]}],"
				    "\"stats\":{\"timings\":{\"evalTotalTime\":0.1}},\"resultType\":\"vector\"},"
				    "\"infos\":[\"x\"],\"status\":\"success\"}",
				    &v, err, sizeof err),
			 0);
	assert_int_equal(v.n_samples, 2);
	assert_int_equal(v.samples[0].n_labels, 3);
	assert_string_equal(prom_sample_label(&v.samples[0], "__name__"), "up");
	assert_string_equal(prom_sample_label(&v.samples[0], "instance"), "h:9100");
	assert_string_equal(prom_sample_label(&v.samples[0], "zone"), "a");
	assert_true(v.samples[0].t == 1.5 && v.samples[0].value == 2.0);
	assert_int_equal(v.samples[1].n_labels, 0);
	assert_true(v.samples[1].t == 2.0 && v.samples[1].value == -0.5);
	prom_vector_free(&v);
}

/* A failed answer holds no samples, only its warnings. */
static void test_failure_keeps_no_samples(void **state)
{
	(void)state;
	prom_vector v;
	char err[256];
	assert_int_equal(parse_text("{\"status\":\"success\",\"warnings\":[\"w\"],\"data\":{\"resultType\":"
				    "\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"1\"]},"
				    "{\"metric\":{},\"value\":[1,\"x\"]}]}}",
				    &v, err, sizeof err),
			 -1);
	assert_string_equal(err, "result 1: value \"x\" is not a number");
	assert_int_equal(v.n_samples, 0);
	assert_null(v.samples);
	assert_string_equal(v.warnings, "w");
	prom_vector_free(&v);
}

/* Each case: text, and the start of the error it must give. */
static void test_hostile_input(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *error;
	} cases[] = {
		{"", "empty answer"},
		{"<html>500 Internal Server Error</html>", "not JSON"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"val",
		 "not JSON"},
		{"[1,2]", "not a Prometheus API answer (the JSON is not an object)"},
		{"{\"data\":{}}", "not a Prometheus API answer (no \"status\")"},
		{"{\"status\":\"error\"}", "Prometheus says error: (no error text)"},
		{"{\"status\":\"success\"}", "not a Prometheus API answer (no \"data\""},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":{}}}", "\"result\" is not an array"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[1]}}", "result 0 is not an object"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"value\":[1,\"1\"]}]}}",
		 "result 0 has no \"metric\" object"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,1]}]}}",
		 "result 0: \"value\" is not [time, \"value\"]"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"1x\"]}]}}",
		 "result 0: value \"1x\" is not a number"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,\"\"]}]}}",
		 "result 0: value \"\" is not a number"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":1},\"value\":[1,\"1\"]}]}}",
		 "result 0: label a is not a string"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":\"x\",\"a\":\"y\"},"
		 "\"value\":[1,\"1\"]}]}}",
		 "not JSON"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[1,\"1\"]}}",
		 "expected an instant vector, got a scalar"},
		{"{\"status\":\"error\",\"errorType\":\"x\\u001b[2Jy\",\"error\":\"a\\nb\"}", "Prometheus says x"},
		{"{\"status\":\"success\",\"status\":\"success\",\"data\":{}}", "not JSON (duplicate key"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":\"x\\u0000y\"},"
		 "\"value\":[1,\"1\"]}]}}",
		 "not JSON"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{\"a\":\"\xff\"},"
		 "\"value\":[1,\"1\"]}]}}",
		 "not JSON"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}} trailing", "not JSON"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
		 "\"value\":[1,\"1\",3]}]}}",
		 "result 0: \"value\" is not [time, \"value\"]"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
		 "\"values\":[[1,\"1\"]]}]}}",
		 "result 0: \"value\" is not [time, \"value\"] (a range vector"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		prom_vector v;
		char err[256];
		err[0] = '\0';
		int rc = parse_text(cases[i].text, &v, err, sizeof err);
		if (rc != -1 || strncmp(err, cases[i].error, strlen(cases[i].error)) != 0) {
			fail_msg("case %zu: rc %d, error \"%s\", expected \"%s\"", i, rc, err, cases[i].error);
		}
		/* one clean line whatever the server sent */
		assert_null(strchr(err, '\n'));
		assert_null(strchr(err, '\x1b'));
		prom_vector_free(&v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timex_answer),
		cmocka_unit_test(test_timestamp_answer_has_no_name),
		cmocka_unit_test(test_large_answer),
		cmocka_unit_test(test_empty_result),
		cmocka_unit_test(test_status_error),
		cmocka_unit_test(test_matrix_refused),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_numbers_as_strtod),
		cmocka_unit_test(test_warnings_kept),
		cmocka_unit_test(test_any_key_order),
		cmocka_unit_test(test_failure_keeps_no_samples),
		cmocka_unit_test(test_hostile_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
