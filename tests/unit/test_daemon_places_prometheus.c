/* test_daemon_places_prometheus.c - synctop_time_daemon_processes: where
 * each time daemon runs and whether it may set the clock, on the real
 * hybrid-cgroup capture of the container lab (chronyd on the host, in a
 * kubepods scope, and in a docker scope without CAP_SYS_TIME), with no PID
 * or cgroup path in the labels. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collector.h"
#include "fixture.h"
#include "node.h"
#include "report_prometheus.h"

#define NOW 1796287700.0

static char *prometheus_of(const char *text, size_t len)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "gpu5");
	observation_init(&nd->obs);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	collector_find("daemons")->decode(&out, &nd->obs);
	assert_int_equal(nd->obs.daemons.state, OBS_OK);
	nd->has_observation = nd->reachable = true;
	nd->obs.taken_at = NOW;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_non_null(f);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, NOW), 0);
	fclose(f);
	free(nd);
	return buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) {
		n++;
	}
	return n;
}

static void test_lab_hybrid(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_read("daemons-places-lab-hybrid.txt", &len);
	char *prom = prometheus_of(text, len);
	free(text);
	assert_non_null(strstr(prom, "# TYPE synctop_time_daemon_processes gauge\n"));
	assert_non_null(strstr(prom, "\nsynctop_time_daemon_processes{node=\"gpu5\",daemon=\"chronyd\",container=\"host\","
				     "can_set_time=\"yes\"} 1\n"));
	assert_non_null(strstr(prom, "\nsynctop_time_daemon_processes{node=\"gpu5\",daemon=\"chronyd\",container=\"kubepods\","
				     "can_set_time=\"yes\"} 1\n"));
	assert_non_null(strstr(prom, "\nsynctop_time_daemon_processes{node=\"gpu5\",daemon=\"chronyd\",container=\"docker\","
				     "can_set_time=\"no\"} 1\n"));
	assert_int_equal(count(prom, "\nsynctop_time_daemon_processes{"), 3);
	assert_null(strstr(prom, "pid=")); /* no label that changes on a restart */
	free(prom);
}

/* Two processes with the same labels are one series counting 2 (a
 * Prometheus textfile may not repeat a label set); a ps without PIDs (no
 * place read) gives none. */
static void test_same_labels_counted(void **state)
{
	(void)state;
	static const char text[] =
		"600 9 chronyd\n601 9 chronyd\n"
		"::proc 600\n::cg 0::/system.slice/chronyd.service\n::cap 2000400\n::uid 0 0 4294967295\n"
		"::proc 601\n::cg 0::/system.slice/chronyd.service\n::cap 2000400\n::uid 0 0 4294967295\n";
	char *prom = prometheus_of(text, sizeof text - 1);
	assert_non_null(strstr(prom, "\nsynctop_time_daemon_processes{node=\"gpu5\",daemon=\"chronyd\",container=\"host\","
				     "can_set_time=\"yes\"} 2\n"));
	assert_int_equal(count(prom, "\nsynctop_time_daemon_processes{"), 1);
	free(prom);
	static const char no_pids[] = "chronyd\nsshd\n";
	prom = prometheus_of(no_pids, sizeof no_pids - 1);
	assert_int_equal(count(prom, "\nsynctop_time_daemon_processes{"), 0);
	free(prom);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_hybrid),
		cmocka_unit_test(test_same_labels_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
