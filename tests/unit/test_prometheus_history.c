/* test_prometheus_history.c - the drill-down's 24 h from query_range: the
 * PromQL per node (by instance, a label, nodename's join, the PTP offset),
 * the servers and naming a node's group gives it, the step per plot width,
 * the series chosen from a range answer (the shape Prometheus 2.42 answers
 * query_range with). */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conffile.h"
#include "longest_selector.h"
#include "node.h"
#include "prometheus_history.h"
#include "prometheus_query.h"

static void test_query_by_instance(void **state)
{
	(void)state;
	char q[4096];
	assert_true(prometheus_history_query(REMOTE_SERIES_OFFSET, "n1.example", NULL, "{job=\"node\"}", q, sizeof q) > 0);
	/* the name is a regular expression on instance, its dot escaped, any port */
	assert_non_null(strstr(q, "-chrony_tracking_system_time_seconds{job=\"node\",instance=~\"(n1\\\\.example|"
				  "\\\\[n1\\\\.example\\\\])(:[0-9]+)?\"}"));
	assert_non_null(strstr(q, "synctop_chrony_offset_seconds{job=\"node\",node=\"n1.example\"}"));
	assert_non_null(strstr(q, "-node_timex_offset_seconds{job=\"node\",instance=~"));
	assert_non_null(strstr(q, "\"synctop_from\", \"timex\""));
	assert_true(prometheus_history_query(REMOTE_SERIES_FREQUENCY, "h", "host", "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "chrony_tracking_frequency_ppms{host=\"h\"}"));
	/* the kernel's correction is minus the frequency chrony and the grid show
	 * (chrony sys_timex.c set_frequency; kernel_clock.c's time_service) */
	assert_non_null(strstr(q, "(1 - node_timex_frequency_adjustment_ratio{host=\"h\"}) * 1e6"));
	assert_non_null(strstr(q, "synctop_chrony_frequency_ratio{node=\"h\"} * 1e6"));
}

static void test_query_refused(void **state)
{
	(void)state;
	char q[4096];
	assert_int_equal(prometheus_history_query(REMOTE_SERIES_OFFSET, "", NULL, "", q, sizeof q), -1);
	assert_int_equal(prometheus_history_query(REMOTE_SERIES_OFFSET, "a\\b", NULL, "", q, sizeof q), -1);
	assert_int_equal(prometheus_history_query(REMOTE_SERIES_OFFSET, "a\nb", NULL, "", q, sizeof q), -1);
	assert_int_equal(prometheus_history_query(REMOTE_SERIES_OFFSET, "h", NULL, "", q, 40), -1);
	/* a quote in a name stays inside the string */
	assert_true(prometheus_history_query(REMOTE_SERIES_OFFSET, "a\"b", "host", "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "{host=\"a\\\"b\"}"));
}

/* nodename: the exporters' series of the instance whose node_uname_info
 * says the name, or, where an instance has none, those whose instance
 * names it (prometheus_map.c names them so) */
static void test_query_by_nodename(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_history_query(REMOTE_SERIES_OFFSET, "gpu1", "nodename", "{job=\"n\"}", q, sizeof q) > 0);
	assert_non_null(strstr(q, "label_replace(-(chrony_tracking_system_time_seconds{job=\"n\"} * on(instance) "
				  "group_left() node_uname_info{job=\"n\",nodename=\"gpu1\"} or "
				  "chrony_tracking_system_time_seconds{job=\"n\",instance=~\"(gpu1|\\\\[gpu1\\\\])(:[0-9]+)?\"} "
				  "unless on(instance) node_uname_info{job=\"n\"}), \"synctop_from\", \"chrony\""));
	assert_non_null(strstr(q, "-(node_timex_offset_seconds{job=\"n\"} * on(instance) group_left() "
				  "node_uname_info{job=\"n\",nodename=\"gpu1\"} or"));
	/* synctop's own series keep their node label */
	assert_non_null(strstr(q, "synctop_chrony_offset_seconds{job=\"n\",node=\"gpu1\"}"));
	assert_true(prometheus_history_query(REMOTE_SERIES_FREQUENCY, "gpu1", "nodename", "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "label_replace((1 - (node_timex_frequency_adjustment_ratio{} * on(instance) group_left() "
				  "node_uname_info{nodename=\"gpu1\"} or node_timex_frequency_adjustment_ratio{instance=~"));
	assert_non_null(strstr(q, "unless on(instance) node_uname_info{})) * 1e6"));
}

/* PTP offset: synctop's seconds in ns, linuxptp-daemon's ns without its
 * faultyOffset marker; both by the node label, whatever names the rest */
static void test_query_ptp(void **state)
{
	(void)state;
	char q[16384];
	assert_true(prometheus_history_query(REMOTE_SERIES_PTP_OFFSET, "w0", "nodename", "{c=\"a\"}", q, sizeof q) > 0);
	assert_string_equal(q, "label_replace(synctop_ptp_offset_seconds{c=\"a\",node=\"w0\"} * 1e9, \"synctop_from\", "
			       "\"synctop\", \"\", \"\") or label_replace(openshift_ptp_offset_ns{c=\"a\",from=\"master\","
			       "process=\"ptp4l\",node=\"w0\"} != 999999, \"synctop_from\", \"openshift\", \"\", \"\")");
	assert_true(prometheus_history_query(REMOTE_SERIES_PTP_OFFSET, "w0", NULL, "", q, sizeof q) > 0);
	assert_non_null(strstr(q, "openshift_ptp_offset_ns{from=\"master\",process=\"ptp4l\",node=\"w0\"}"));
	assert_int_equal(prometheus_history_query(REMOTE_SERIES_COUNT, "w0", NULL, "", q, sizeof q), -1);
}

/* A node's history comes from its group's own servers, selector and
 * naming; a node of no such group from the command line's. */
static void test_origin(void **state)
{
	(void)state;
	static const char text[] =
		"{\"groups\": [\n"
		"  {\"name\": \"plain\", \"hosts\": \"x1\"},\n"
		"  {\"name\": \"a\", \"hosts\": \"a[1-9]\",\n"
		"   \"prometheus\": {\"url\": \"http://pa:9090\", \"selector\": \"{cluster=\\\"a\\\"}\",\n"
		"                  \"node_label\": \"nodename\"}},\n"
		"  {\"name\": \"b\", \"hosts\": \"b[1-9]\", \"prometheus\": {\"url\": \"http://pb:9090\"}}]}";
	conffile *cf = NULL;
	char err[512] = "";
	assert_int_equal(conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err), 0);
	prom_history_origin o;
	prometheus_history_origin(cf, "a3", 1, "{job=\"cli\"}", "host", &o);
	assert_int_equal(o.set, 1); /* after the command line's */
	assert_string_equal(o.selector, "{cluster=\"a\"}");
	assert_string_equal(o.node_label, "nodename");
	prometheus_history_origin(cf, "b2", 1, "{job=\"cli\"}", "host", &o);
	assert_int_equal(o.set, 2);
	assert_string_equal(o.selector, "");
	assert_null(o.node_label);
	prometheus_history_origin(cf, "b2", 0, "", NULL, &o);
	assert_int_equal(o.set, 1); /* no command line servers: a's is 0 */
	prometheus_history_origin(cf, "x1", 1, "{job=\"cli\"}", "host", &o);
	assert_int_equal(o.set, 0);
	assert_string_equal(o.selector, "{job=\"cli\"}");
	assert_string_equal(o.node_label, "host");
	prometheus_history_origin(cf, "nowhere", 1, NULL, NULL, &o);
	assert_int_equal(o.set, 0);
	assert_string_equal(o.selector, "");
	prometheus_history_origin(NULL, "a3", 1, "{job=\"cli\"}", NULL, &o);
	assert_int_equal(o.set, 0);
	assert_string_equal(o.selector, "{job=\"cli\"}");
	conffile_free(cf);
}

static void test_step(void **state)
{
	(void)state;
	assert_true(prometheus_history_step(86400, 180) == 480);
	assert_true(prometheus_history_step(86400, 100000) == PROM_HISTORY_MIN_STEP_S);
	assert_true(prometheus_history_step(86400, 7) == ceil(86400.0 / 7));
	/* the newest point is at the end: a young server still answers it */
	double step = prometheus_history_step(86400, 134);
	double start = prometheus_history_start(1796320000.25, 86400, step);
	assert_true(step == 645);
	assert_true(start == 1796320000.25 - 645 * 133);
}

static void test_pick(void **state)
{
	(void)state;
	static const char answer[] =
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
		"{\"metric\":{\"instance\":\"h:9100\",\"job\":\"node\",\"synctop_from\":\"timex\"},"
		"\"values\":[[1796320000,\"-0.000001\"],[1796320480,\"0.000002\"],[1796320960,\"0\"]]},"
		"{\"metric\":{\"instance\":\"h:9123\",\"job\":\"chrony\",\"synctop_from\":\"chrony\"},"
		"\"values\":[[1796320480,\"0.0000005\"],[1796320960,\"NaN\"]]}]}}";
	prom_matrix m;
	char err[256];
	const char *what = NULL;
	assert_int_equal(prometheus_range_parse(answer, strlen(answer), 100, &m, err, sizeof err), 0);
	assert_int_equal(m.n_series, 2);
	const prom_series *s = prometheus_history_pick(&m, &what);
	/* chrony's decide, though the kernel's has more points */
	assert_non_null(s);
	assert_string_equal(what, "chrony_exporter");
	assert_int_equal(s->n_points, 2);
	assert_true(s->t[0] == 1796320480 && s->v[0] == 0.0000005 && isnan(s->v[1]));
	prom_matrix_free(&m);

	/* at most max_points, the newest */
	assert_int_equal(prometheus_range_parse(answer, strlen(answer), 2, &m, err, sizeof err), 0);
	assert_int_equal(m.series[0].n_points, 2);
	assert_true(m.series[0].t[0] == 1796320480 && m.series[0].v[1] == 0);
	prom_matrix_free(&m);

	static const char none[] = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}";
	assert_int_equal(prometheus_range_parse(none, strlen(none), 100, &m, err, sizeof err), 0);
	assert_null(prometheus_history_pick(&m, &what));
	prom_matrix_free(&m);
}

/* What a range answer must not be: each case, the start of its error. */
static void test_range_refused(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *error;
	} cases[] = {
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
		 "expected a range vector (matrix), got a vector"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":[[1,\"x\"]]}]}}",
		 "result 0: a point is not [time, \"value\"]"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":[[1]]}]}}",
		 "result 0: a point is not [time, \"value\"]"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":{}}]}}",
		 "result 0: \"values\" is not [[time, \"value\"], ...]"},
		{"{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"exceeded maximum resolution\"}",
		 "Prometheus says bad_data: exceeded maximum resolution"},
		{"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{},\"values\":[[1,\"1\"",
		 "not JSON"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		prom_matrix m;
		char err[256] = "";
		int rc = prometheus_range_parse(cases[i].text, strlen(cases[i].text), 100, &m, err, sizeof err);
		if (rc != -1 || strncmp(err, cases[i].error, strlen(cases[i].error)) != 0) {
			fail_msg("case %zu: rc %d, error \"%s\", expected \"%s\"", i, rc, err, cases[i].error);
		}
		assert_int_equal(m.n_series, 0);
		prom_matrix_free(&m);
	}
}

/* Every series' query fits PROM_HISTORY_QUERY_MAX for the longest
 * selector synctop takes (1,024 characters) and the longest node name,
 * every character of it quoted, named each way (the drill-down said "no
 * history query for this node" when a buffer inside was too small). */
static void test_queries_fit_longest_inputs(void **state)
{
	(void)state;
	char sel[PROM_SELECTOR_MAX + 1], name[NODE_NAME_LEN], buf[PROM_HISTORY_QUERY_MAX];
	longest_selector(sel);
	memset(name, '.', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	const char *namings[] = {NULL, "nodename", "hostname"};
	for (size_t k = 0; k < sizeof namings / sizeof namings[0]; k++) {
		for (int id = 0; id < REMOTE_SERIES_COUNT; id++) {
			assert_true(prometheus_history_query((remote_series_id)id, name, namings[k], sel, buf, sizeof buf) >
				    1024);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_by_instance),
		cmocka_unit_test(test_query_refused),
		cmocka_unit_test(test_query_by_nodename),
		cmocka_unit_test(test_query_ptp),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_range_refused),
		cmocka_unit_test(test_queries_fit_longest_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
