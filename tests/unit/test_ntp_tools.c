/* test_ntp_tools.c - an ntpd that runs but whose tool fails: ntpq missing,
 * not answering (real capture: ntpd stopped, `***Socket error`), stopped by
 * timeout(1); openntpd's ntpctl refused or finding no daemon (real
 * captures).  Each gets collector.tool_missing or collector.tool_failed
 * with the reason and the fix, and no "cannot inspect" time.other_daemon
 * (before, time.other_daemon was all the node got). */
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
#include "health.h"
#include "node.h"
#include "ntpctl_parse.h"
#include "ntpq_parse.h"
#include "thresholds.h"

static node *ntpd_node(void)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "n1");
	observation_init(&nd->obs);
	nd->has_observation = nd->reachable = true;
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_NTPD;
	nd->obs.chrony.state = OBS_TOOL_MISSING;
	nd->obs.ptp.state = OBS_NOT_COLLECTED;
	return nd;
}

static void decode(node *nd, const char *section, const char *out, const char *err, int rc)
{
	tool_output t = {.out = out, .out_len = strlen(out), .err = err, .err_len = strlen(err), .rc = rc};
	collector_find(section)->decode(&t, &nd->obs);
}

static void decode_fixture(node *nd, const char *section, const char *name, int rc)
{
	tool_output t = fixture_output(name, rc);
	collector_find(section)->decode(&t, &nd->obs);
	fixture_output_free(&t);
}

static const finding *judge(node *nd, const char *code)
{
	thresholds th;
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	const finding *hit = NULL;
	for (int i = 0; i < nd->findings.count; i++) {
		const finding *f = &nd->findings.items[i];
		assert_string_not_equal(f->code, "time.other_daemon");
		assert_string_not_equal(f->code, "time.no_service");
		if (strcmp(f->code, code) == 0) {
			hit = f;
		}
	}
	if (!hit) {
		fail_msg("no %s", code);
	}
	assert_int_equal(hit->sev, SEVERITY_WARN);
	return hit;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle)) {
		fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
	}
}

/* ntpq not installed, no ntpctl either (the shell function's own words) */
static void test_ntpq_missing(void **state)
{
	(void)state;
	node *nd = ntpd_node();
	decode(nd, "ntpq", "", "sh: ntpq: not found\n", 127);
	decode(nd, "ntpctl", "", "", 0); /* not installed: the function prints nothing */
	const finding *f = judge(nd, "collector.tool_missing");
	assert_contains(f->message, "ntpq not found");
	assert_contains(f->hint, "ntpsec-ntpq");
	free(nd);
}

/* ntpsec's ntpq with ntpd gone (real capture, exit 0) */
static void test_ntpq_no_answer(void **state)
{
	(void)state;
	node *nd = ntpd_node();
	decode_fixture(nd, "ntpq", "ntpq-n-rv-peers-no-daemon.txt", 0);
	assert_int_equal(nd->obs.ntp.state, OBS_DAEMON_UNREACHABLE);
	const finding *f = judge(nd, "collector.tool_failed");
	assert_contains(f->message, "ntpq failed (daemon unreachable)");
	assert_contains(f->message, "UDP 123");
	assert_contains(f->hint, "noquery");
	free(nd);
}

/* ntpq stopped by timeout(1): a hung ntpd, or queries dropped by restrict */
static void test_ntpq_timeout(void **state)
{
	(void)state;
	node *nd = ntpd_node();
	decode(nd, "ntpq", "", NTPQ_TIMEOUT_LINE "\n", NTPQ_TIMEOUT_RC);
	const finding *f = judge(nd, "collector.tool_failed");
	assert_contains(f->message, "stopped after 4 s");
	assert_contains(f->hint, "restrict 127.0.0.1");
	free(nd);
}

/* openntpd: ntpctl as a user (real capture: the socket is root's) */
static void test_ntpctl_refused(void **state)
{
	(void)state;
	node *nd = ntpd_node();
	decode(nd, "ntpq", "", NTPQ_OPENNTPD_LINE "\n", NTPQ_OPENNTPD_RC);
	decode_fixture(nd, "ntpctl", "ntpctl-s-all-permission-denied.txt", 1);
	const finding *f = judge(nd, "collector.tool_failed");
	assert_contains(f->message, "ntpctl failed (permission denied)");
	assert_contains(f->message, "openntpd cannot be checked");
	assert_contains(f->hint, "--sudo");
	free(nd);

	/* ntpctl finds no socket (real capture) */
	nd = ntpd_node();
	decode(nd, "ntpq", "", NTPQ_OPENNTPD_LINE "\n", NTPQ_OPENNTPD_RC);
	decode_fixture(nd, "ntpctl", "ntpctl-s-all-no-daemon.txt", 1);
	f = judge(nd, "collector.tool_failed");
	assert_contains(f->hint, "systemctl status openntpd");
	free(nd);
}

/* Not asked yet (ntpq is periodic): still the plain "cannot inspect". */
static void test_not_asked_is_other_daemon(void **state)
{
	(void)state;
	node *nd = ntpd_node();
	thresholds th;
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	bool other = false;
	for (int i = 0; i < nd->findings.count; i++) {
		other |= strcmp(nd->findings.items[i].code, "time.other_daemon") == 0;
		assert_string_not_equal(nd->findings.items[i].code, "collector.tool_failed");
		assert_string_not_equal(nd->findings.items[i].code, "collector.tool_missing");
	}
	assert_true(other);
	/* no ntpd process: nothing about its tools */
	nd->obs.daemons.running = 0;
	decode(nd, "ntpq", "", "sh: ntpq: not found\n", 127);
	health_apply(nd, &th);
	for (int i = 0; i < nd->findings.count; i++) {
		assert_string_not_equal(nd->findings.items[i].code, "collector.tool_missing");
	}
	free(nd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ntpq_missing),
		cmocka_unit_test(test_ntpq_no_answer),
		cmocka_unit_test(test_ntpq_timeout),
		cmocka_unit_test(test_ntpctl_refused),
		cmocka_unit_test(test_not_asked_is_other_daemon),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
