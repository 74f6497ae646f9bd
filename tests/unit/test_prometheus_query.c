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

/* ------------------------------------------------ the fast path */

/* a and b hold the same samples: labels in order, times and values to the bit. */
static void assert_same_samples(const prom_vector *a, const prom_vector *b, const char *what)
{
	if (a->n_samples != b->n_samples) {
		fail_msg("%s: %zu samples, the general parser %zu", what, a->n_samples, b->n_samples);
	}
	for (size_t i = 0; i < a->n_samples; i++) {
		const prom_sample *x = &a->samples[i], *y = &b->samples[i];
		if (x->n_labels != y->n_labels || memcmp(&x->t, &y->t, sizeof x->t) != 0 ||
		    memcmp(&x->value, &y->value, sizeof x->value) != 0 || x->digest != y->digest) {
			fail_msg("%s: sample %zu differs", what, i);
		}
		for (size_t k = 0; k < x->n_labels; k++) {
			if (strcmp(x->labels[k].name, y->labels[k].name) != 0 ||
			    strcmp(x->labels[k].value, y->labels[k].value) != 0) {
				fail_msg("%s: sample %zu label %zu: %s=%s, the general parser %s=%s", what, i, k,
					 x->labels[k].name, x->labels[k].value, y->labels[k].name, y->labels[k].value);
			}
		}
	}
	assert_int_equal(a->n_warnings, b->n_warnings);
	assert_string_equal(a->warnings, b->warnings);
}

/* The general parser's reading of text: a space before it is still JSON,
 * and no longer the layout the fast path takes. */
static int parse_general(const char *text, size_t len, prom_vector *v, char *err, size_t err_len)
{
	char *spaced = malloc(len + 1);
	assert_non_null(spaced);
	spaced[0] = ' ';
	memcpy(spaced + 1, text, len);
	prom_vector fast;
	assert_false(prometheus_query_parse_fast(spaced, len + 1, &fast));
	assert_int_equal(fast.n_samples, 0);
	int rc = prometheus_query_parse(spaced, len + 1, v, err, err_len);
	free(spaced);
	return rc;
}

/* Prometheus's own answers (captured from 2.42) take the fast path, to the
 * samples the general parser reads from them. */
static void test_fast_path_same_samples(void **state)
{
	(void)state;
	static const char *const names[] = {
		"prometheus-timex.json",	  "prometheus-timex-time.json", "prometheus-chrony.json",
		"prometheus-synctop.json",	  "prometheus-openshift.json",	"prometheus-openshift-time.json",
		"prometheus-served.json",	  "prometheus-uname.json",	"prometheus-up.json",
		"prometheus-up-down.json",	  "prometheus-empty.json",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		size_t len;
		char *text = fixture_read(names[i], &len);
		prom_vector fast, general, parsed;
		char err[256];
		if (!prometheus_query_parse_fast(text, len, &fast)) {
			fail_msg("%s: not taken by the fast path", names[i]);
		}
		assert_non_null(fast.samples);
		assert_int_equal(parse_general(text, len, &general, err, sizeof err), 0);
		assert_same_samples(&fast, &general, names[i]);
		assert_int_equal(prometheus_query_parse(text, len, &parsed, err, sizeof err), 0);
		assert_same_samples(&parsed, &general, names[i]);
		prom_vector_free(&fast);
		prom_vector_free(&general);
		prom_vector_free(&parsed);
		free(text);
	}
}

/* An answer cut at any byte, or with any byte changed to one that matters
 * to JSON: the fast path refuses it, or reads what the general parser
 * reads from the same text (so every error comes from the general parser). */
static void test_fast_path_cut_or_changed_anywhere(void **state)
{
	(void)state;
	static const char mutants[] = {'"', '\\', ' ', '}', ']', ',', ':', '0', '-', 'e', '.', 'x', '\x01', '\x80', '\0'};
	const char *text = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			   "{\"metric\":{\"__name__\":\"node_timex_offset_seconds\",\"instance\":\"h:9100\",\"job\":\"n\"},"
			   "\"value\":[1796302996.020,\"-1.5e-07\"]},"
			   "{\"metric\":{},\"value\":[17,\"NaN\"]},"
			   "{\"metric\":{\"a\":\"\"},\"value\":[-0.5E+2,\"+Inf\"]}]}}";
	size_t len = strlen(text);
	char *buf = malloc(len);
	assert_non_null(buf);
	for (size_t cut = 0; cut < len; cut++) {
		prom_vector fast, v;
		char err[256];
		assert_false(prometheus_query_parse_fast(text, cut, &fast));
		assert_int_equal(fast.n_samples, 0);
		assert_null(fast.samples);
		/* and parse says what the general parser says: not JSON */
		assert_int_equal(prometheus_query_parse(text, cut, &v, err, sizeof err), -1);
		prom_vector_free(&v);
	}
	for (size_t at = 0; at < len; at++) {
		for (size_t m = 0; m < sizeof mutants; m++) {
			prom_vector fast, general;
			char err[256], what[64];
			memcpy(buf, text, len);
			buf[at] = mutants[m];
			if (!prometheus_query_parse_fast(buf, len, &fast)) {
				assert_null(fast.samples);
				continue;
			}
			snprintf(what, sizeof what, "byte %zu as 0x%02x", at, (unsigned char)mutants[m]);
			if (parse_general(buf, len, &general, err, sizeof err) != 0) {
				fail_msg("%s: the fast path read it, the general parser says %s", what, err);
			}
			assert_same_samples(&fast, &general, what);
			prom_vector_free(&fast);
			prom_vector_free(&general);
		}
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timex_answer),
		cmocka_unit_test(test_fast_path_same_samples),
		cmocka_unit_test(test_fast_path_cut_or_changed_anywhere),
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
