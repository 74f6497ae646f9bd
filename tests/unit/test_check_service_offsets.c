/* test_check_service_offsets.c - the --check (and --once) summary's
 * max |offset| and spread cover every NTP daemon: chronyd, ntpd (ntpq),
 * openntpd (ntpctl) and systemd-timesyncd (timedatectl), from real
 * captures.  Before, they covered chronyd alone: a cluster of ntpd nodes
 * said "max |offset| -". */
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

#include "cluster.h"
#include "collector.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "report_check.h"
#include "time_service.h"
#include "units.h"

static void decode(node *nd, const char *section, const char *fixture)
{
	size_t len;
	char *text = fixture_read(fixture, &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	collector_find(section)->decode(&out, &nd->obs);
	free(text);
}

static void init(node *nd, const char *host, unsigned daemons)
{
	node_init(nd, host);
	observation_init(&nd->obs);
	nd->has_observation = nd->reachable = true;
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = daemons;
	nd->obs.ptp.state = OBS_NOT_COLLECTED;
}

static double offset_of(const node *nd, const char *section)
{
	time_service_view v;
	assert_true(collector_find(section)->time_service(&nd->obs, &v));
	assert_true(v.referenced && isfinite(v.offset_s));
	return v.offset_s;
}

static char *summary(node *nodes, size_t n)
{
	thresholds th;
	thresholds_init_defaults(&th);
	for (size_t i = 0; i < n; i++) {
		health_apply(&nodes[i], &th);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	report_check_write(f, nodes, n, NULL, SEVERITY_WARN, false);
	fclose(f);
	return text;
}

static void expect_range(const char *text, double max_abs, double spread)
{
	char a[UNITS_BUF_LEN], b[UNITS_BUF_LEN], want[128];
	snprintf(want, sizeof want, "max |offset| %s, spread %s", units_unsigned(units_format_seconds(max_abs, a, sizeof a)),
		 units_unsigned(units_format_seconds(spread, b, sizeof b)));
	if (!strstr(text, want)) {
		fail_msg("\"%s\" lacks \"%s\"", text, want);
	}
}

static void test_ntpd_only(void **state)
{
	(void)state;
	node *nodes = calloc(1, sizeof *nodes);
	assert_non_null(nodes);
	init(&nodes[0], "ntp1", DAEMON_NTPD);
	nodes[0].obs.chrony.state = OBS_TOOL_MISSING;
	decode(&nodes[0], "ntpq", "ntpq-n-rv-peers-synced.txt");
	double off = offset_of(&nodes[0], "ntpq");
	char *text = summary(nodes, 1);
	expect_range(text, fabs(off), 0.0);
	free(text);
	free(nodes);
}

/* chronyd, ntpd, openntpd, systemd-timesyncd: one range over all four */
static void test_every_daemon(void **state)
{
	(void)state;
	node *nodes = calloc(4, sizeof *nodes);
	assert_non_null(nodes);
	init(&nodes[0], "c1", DAEMON_CHRONYD);
	decode(&nodes[0], "chrony", "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	init(&nodes[1], "n1", DAEMON_NTPD);
	nodes[1].obs.chrony.state = OBS_TOOL_MISSING;
	decode(&nodes[1], "ntpq", "ntpq-n-rv-peers-synced.txt");
	init(&nodes[2], "o1", DAEMON_NTPD);
	nodes[2].obs.chrony.state = OBS_TOOL_MISSING;
	decode(&nodes[2], "ntpctl", "ntpctl-s-all-synced.txt");
	init(&nodes[3], "t1", DAEMON_TIMESYNCD);
	nodes[3].obs.chrony.state = OBS_TOOL_MISSING;
	decode(&nodes[3], "timesyncd", "timedatectl-timesyncd-synced.txt");
	double v[4] = {offset_of(&nodes[0], "chrony"), offset_of(&nodes[1], "ntpq"), offset_of(&nodes[2], "ntpctl"),
		       offset_of(&nodes[3], "timesyncd")};
	double lo = v[0], hi = v[0];
	for (int i = 1; i < 4; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	cluster_summary s;
	cluster_summarise(nodes, 4, &s);
	assert_int_equal(s.service_nodes, 4);
	assert_int_equal(s.chrony_nodes, 1); /* the chrony-only fields are unchanged */
	char *text = summary(nodes, 4);
	expect_range(text, fmax(fabs(lo), fabs(hi)), hi - lo);
	free(text);
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ntpd_only),
		cmocka_unit_test(test_every_daemon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
