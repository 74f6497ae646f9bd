/* test_timesyncd.c - the systemd-timesyncd collector: its parser on the
 * fixtures (timedatectl.source.md: one real capture without systemd as
 * PID 1, the rest written from systemd 252's formats), its validity rule,
 * rules, outputs, grid view and demo renderer. */
#include <config.h>

#include <jansson.h>
#include <math.h>
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
#include "timesyncd_parse.h"

static void parse_fixture(const char *name, int rc, timesyncd_obs *t)
{
	tool_output out = fixture_output(name, rc);
	timesyncd_parse(&out, t);
	fixture_output_free(&out);
}

static void parse_text(const char *text, int rc, timesyncd_obs *t)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = rc};
	timesyncd_parse(&out, t);
}

static bool span(const char *text, double *out)
{
	return timesyncd_parse_span((text_span){text, strlen(text)}, out);
}

/* format_timespan's shapes (time-util.c), and what is not one. */
static void test_spans(void **state)
{
	(void)state;
	double v;
	assert_true(span("0", &v));
	assert_true(v == 0);
	assert_true(span("34min 8s", &v));
	assert_true(fabs(v - 2048) < 1e-9);
	assert_true(span("6.011ms", &v));
	assert_true(fabs(v - 6.011e-3) < 1e-12);
	assert_true(span("145us", &v));
	assert_true(fabs(v - 145e-6) < 1e-12);
	assert_true(span("1min 2.500001s", &v));
	assert_true(fabs(v - 62.500001) < 1e-9);
	assert_true(span("1month 2w 3d 4h", &v));
	assert_true(fabs(v - (2629800.0 + 2 * 604800.0 + 3 * 86400.0 + 4 * 3600.0)) < 1e-6);
	assert_true(span("infinity", &v));
	assert_true(isinf(v));
	assert_false(span("", &v));
	assert_false(span("5", &v));       /* no unit */
	assert_false(span("5 s", &v));     /* unit apart */
	assert_false(span("5sec", &v));
	assert_false(span("-5s", &v));
	assert_false(span("1e3s", &v));
	assert_false(span("5s junk", &v));
}

static void test_synced(void **state)
{
	(void)state;
	timesyncd_obs t;
	parse_fixture("timedatectl-timesyncd-synced.txt", 0, &t);
	assert_int_equal(t.state, OBS_OK);
	assert_int_equal(t.ntp_enabled, 1);
	assert_int_equal(t.kernel_synchronised, 1);
	assert_string_equal(t.server_name, "10.20.0.10");
	assert_string_equal(t.server_address, "10.20.0.10");
	assert_true(fabs(t.poll_interval_s - 2048) < 1e-9);
	assert_int_equal(t.packet_count, 42);
	assert_int_equal(t.leap, 0);
	assert_int_equal(t.stratum, 3);
	assert_int_equal(t.precision, -25);
	assert_string_equal(t.reference, "C000020B");
	assert_true(fabs(t.root_delay_s - 1.151e-3) < 1e-12);
	assert_true(fabs(t.root_dispersion_s - 228e-6) < 1e-12);
	/* printed "-215us" = server minus node: the node is 215 µs ahead */
	assert_true(fabs(t.offset_s - 215e-6) < 1e-12);
	assert_true(fabs(t.delay_s - 412e-6) < 1e-12);
	assert_true(fabs(t.jitter_s - 145e-6) < 1e-12);
	/* the raw 2^-16 ppm value, more precise than the table's */
	assert_true(fabs(t.frequency_ppm - (-1348833 / 65536.0)) < 1e-9);
	assert_true(timesyncd_has_reference(&t));
}

static void test_no_answer(void **state)
{
	(void)state;
	timesyncd_obs t;
	parse_fixture("timedatectl-timesyncd-no-answer.txt", 0, &t);
	assert_int_equal(t.state, OBS_OK);
	assert_int_equal(t.kernel_synchronised, 0);
	assert_int_equal(t.packet_count, 0);
	assert_string_equal(t.server_name, "10.20.0.10");
	assert_string_equal(t.server_address, ""); /* "n/a" */
	assert_false(timesyncd_has_reference(&t));
	assert_true(isnan(t.offset_s));
	assert_int_equal(t.stratum, INT_UNKNOWN);
	assert_true(fabs(t.frequency_ppm) < 1e-12);
}

static void test_leap_and_sign(void **state)
{
	(void)state;
	timesyncd_obs t;
	parse_fixture("timedatectl-timesyncd-large-offset.txt", 0, &t);
	assert_int_equal(t.state, OBS_OK);
	assert_int_equal(t.leap, 1);
	assert_string_equal(t.reference, "GPS");
	/* "+1min 2.500001s": the server is ahead, the node behind */
	assert_true(fabs(t.offset_s + 62.500001) < 1e-9);
	assert_true(fabs(t.frequency_ppm - 50.0) < 1e-9);
	assert_true(fabs(t.jitter_s - 1.250123e-3) < 1e-12);
}

static void test_failures(void **state)
{
	(void)state;
	timesyncd_obs t;
	/* real: no systemd as PID 1 */
	parse_fixture("timedatectl-no-systemd.txt", 1, &t);
	assert_int_equal(t.state, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(t.error, "D-Bus"));
	assert_non_null(strstr(t.error, "not been booted with systemd"));
	/* no timesyncd: nothing run, nothing printed */
	parse_fixture("timedatectl-timesyncd-not-running.txt", 0, &t);
	assert_int_equal(t.state, OBS_NOT_COLLECTED);
	assert_true(obs_state_absent(t.state));

	tool_output missing = {.out = "", .out_len = 0, .err = "sh: 1: timedatectl: not found\n",
			       .err_len = 30, .rc = 127};
	timesyncd_parse(&missing, &t);
	assert_int_equal(t.state, OBS_TOOL_MISSING);

	tool_output gone = {.out = "NTP=yes\n", .out_len = 8,
			    .err = "Command requires systemd-timesyncd.service, but it is not available: x\n",
			    .err_len = 71, .rc = 1};
	timesyncd_parse(&gone, &t);
	assert_int_equal(t.state, OBS_DAEMON_UNREACHABLE);
}

static void test_malformed(void **state)
{
	(void)state;
	timesyncd_obs t;
	parse_text("NTPSynchronized=maybe\n", 0, &t);
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("this is not timedatectl\n", 0, &t);
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("       Offset: 5ms\n", 0, &t); /* no sign */
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("NTPMessage={ Leap=9, Stratum=2 }\n", 0, &t);
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("NTPMessage=Leap=0\n", 0, &t);
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("NTP=yes\nNTPSynchronized=ye", 0, &t); /* cut short */
	assert_int_equal(t.state, OBS_GARBAGE);
	parse_text("NTP=yes\nNTPSynchronized=yes", 0, &t); /* the last line unterminated */
	assert_int_equal(t.state, OBS_TRUNCATED);
	/* control bytes in a name are kept out */
	parse_text("NTP=yes\nServerName=ev\x1b[2Jil\n", 0, &t);
	assert_int_equal(t.state, OBS_OK);
	assert_null(strchr(t.server_name, '\x1b'));
}

static bool has_code(const finding_list *fl, const char *code, severity sev)
{
	for (int i = 0; i < fl->count; i++) {
		if (strcmp(fl->items[i].code, code) == 0 && fl->items[i].sev == sev) {
			return true;
		}
	}
	return false;
}

static void judge(const char *fixture, int rc, finding_list *fl)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "n1");
	observation_init(&nd->obs);
	nd->has_observation = nd->reachable = true;
	parse_fixture(fixture, rc, &nd->obs.timesyncd);
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_TIMESYNCD;
	nd->obs.chrony.state = OBS_DAEMON_UNREACHABLE;
	nd->obs.ptp.state = OBS_DAEMON_UNREACHABLE;
	thresholds th;
	thresholds_init_defaults(&th);
	health_evaluate(nd, &th, fl);
	free(nd);
}

/* A timesyncd-only node is judged by what timesyncd says, not called one
 * synctop "cannot inspect". */
static void test_rules(void **state)
{
	(void)state;
	finding_list fl;
	judge("timedatectl-timesyncd-synced.txt", 0, &fl);
	assert_false(has_code(&fl, "time.other_daemon", SEVERITY_WARN));
	assert_false(has_code(&fl, "time.no_service", SEVERITY_CRIT));
	assert_false(has_code(&fl, "timesyncd.offset", SEVERITY_WARN)); /* 215 µs < 1 ms */
	assert_int_equal(fl.count, 0);

	judge("timedatectl-timesyncd-no-answer.txt", 0, &fl);
	assert_true(has_code(&fl, "timesyncd.unsynchronised", SEVERITY_CRIT));
	assert_false(has_code(&fl, "time.no_service", SEVERITY_CRIT));

	judge("timedatectl-timesyncd-large-offset.txt", 0, &fl);
	assert_true(has_code(&fl, "timesyncd.offset", SEVERITY_CRIT));
	assert_true(has_code(&fl, "timesyncd.leap", SEVERITY_WARN));

	/* timedatectl could not ask: the daemon is not read, so it stays one
	 * synctop cannot inspect */
	judge("timedatectl-no-systemd.txt", 1, &fl);
	assert_true(has_code(&fl, "time.other_daemon", SEVERITY_WARN));
}

static void test_outputs(void **state)
{
	(void)state;
	const collector *c = collector_find("timesyncd");
	assert_non_null(c);
	observation *obs = calloc(1, sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	parse_fixture("timedatectl-timesyncd-synced.txt", 0, &obs->timesyncd);
	bool ok = true;
	json_t *o = c->json(obs, &ok);
	assert_true(ok);
	assert_true(fabs(json_real_value(json_object_get(o, "offset_s")) - 215e-6) < 1e-12);
	assert_string_equal(json_string_value(json_object_get(o, "leap_status")), "Normal");
	assert_int_equal(json_integer_value(json_object_get(o, "packet_count")), 42);
	json_decref(o);

	/* the grid's time daemon view */
	time_service_view v;
	assert_true(c->time_service(obs, &v));
	assert_true(v.referenced);
	assert_string_equal(v.source, "10.20.0.10");
	assert_int_equal(v.stratum, 3);
	assert_true(isnan(v.skew_ppm));

	/* without an answer: the values are null, not 0 */
	parse_fixture("timedatectl-timesyncd-no-answer.txt", 0, &obs->timesyncd);
	o = c->json(obs, &ok);
	assert_true(json_is_null(json_object_get(o, "offset_s")));
	assert_true(json_is_null(json_object_get(o, "stratum")));
	json_decref(o);
	assert_true(c->time_service(obs, &v));
	assert_false(v.referenced);

	/* absent: no object */
	parse_fixture("timedatectl-timesyncd-not-running.txt", 0, &obs->timesyncd);
	o = c->json(obs, &ok);
	assert_true(json_is_null(o));
	json_decref(o);
	assert_false(c->time_service(obs, &v));
	free(obs);
}

/* The demo renderer prints what the parser reads back, on every fixture. */
static void test_renderer_round_trip(void **state)
{
	(void)state;
	static const char *const fixtures[] = {
		"timedatectl-timesyncd-synced.txt",
		"timedatectl-timesyncd-no-answer.txt",
		"timedatectl-timesyncd-large-offset.txt",
	};
	const collector *c = collector_find("timesyncd");
	observation *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		static char out1[4096], out2[4096], err[256];
		text_sink o1, o2, e;
		observation_init(a);
		parse_fixture(fixtures[i], 0, &a->timesyncd);
		text_sink_init(&o1, out1, sizeof out1);
		text_sink_init(&e, err, sizeof err);
		int rc = c->demo_render(a, "-", &o1, &e);
		assert_int_equal(rc, 0);
		tool_output t = {.out = out1, .out_len = o1.len, .err = err, .err_len = e.len, .rc = rc};
		observation_init(b);
		c->decode(&t, b);
		assert_int_equal(b->timesyncd.state, OBS_OK);
		assert_true(b->timesyncd.offset_s == a->timesyncd.offset_s ||
			    (isnan(b->timesyncd.offset_s) && isnan(a->timesyncd.offset_s)));
		assert_int_equal(b->timesyncd.packet_count, a->timesyncd.packet_count);
		text_sink_init(&o2, out2, sizeof out2);
		c->demo_render(b, "-", &o2, &e);
		assert_string_equal(out1, out2);
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_synced),
		cmocka_unit_test(test_no_answer),
		cmocka_unit_test(test_leap_and_sign),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_renderer_round_trip),
	};
	return cmocka_run_group_tests_name("timesyncd", tests, NULL, NULL);
}
