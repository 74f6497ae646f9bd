/* test_ntpctl.c - the openntpd collector: its parser on real `ntpctl -s`
 * captures of openntpd 6.2p3 and on outputs written with the printf
 * formats of OpenBSD's ntpd.c (tests/fixtures/ntpctl.source.md), its
 * rules (ntpd's codes), the shared `ntp` JSON object and Prometheus
 * series, its grid view and its demo renderer. */
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

#include "cluster.h"
#include "collector.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "ntpctl_parse.h"
#include "ntpq_parse.h"
#include "report_json.h"
#include "report_prometheus.h"

static void parse_fixture(const char *name, int rc, openntpd_obs *o)
{
	tool_output out = fixture_output(name, rc);
	ntpctl_parse(&out, o);
	fixture_output_free(&out);
}

static void parse_text(const char *text, const char *err, int rc, openntpd_obs *o)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = err, .err_len = strlen(err), .rc = rc};
	ntpctl_parse(&out, o);
}

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-12;
}

/* openntpd 6.2p3 synced to a chronyd server in the lab (adjtime shimmed) */
static void test_synced(void **state)
{
	(void)state;
	openntpd_obs o;
	parse_fixture("ntpctl-s-all-synced.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_string_equal(o.error, "");
	assert_int_equal(o.synced, 1);
	assert_true(openntpd_synced(&o));
	assert_int_equal(o.stratum, 3);
	assert_int_equal(o.peers_valid, 1);
	assert_int_equal(o.peers_configured, 1);
	assert_false(o.constraints_configured);
	assert_int_equal(o.n_peers, 1);
	assert_int_equal(o.n_peers_total, 1);
	const openntpd_peer *p = openntpd_selected_peer(&o);
	assert_non_null(p);
	assert_string_equal(p->address, "10.64.1.1");
	assert_string_equal(p->description, "");
	assert_int_equal(p->weight, 1);
	assert_int_equal(p->trust_level, 10);
	assert_int_equal(p->stratum, 2);
	assert_int_equal(p->next_s, 31);
	assert_int_equal(p->poll_s, 34);
	assert_true(p->valid);
	assert_true(near(p->offset_s, -0.001e-3)); /* printed 0.001ms: server ahead, node behind */
	assert_true(near(p->delay_s, 0.042e-3));
	assert_true(near(p->jitter_s, 0.011e-3));
	assert_true(isnan(o.unsynced_offset_s));

	/* -s status and -s peers alone say the same parts */
	openntpd_obs s, q;
	parse_fixture("ntpctl-s-status-synced.txt", 0, &s);
	assert_int_equal(s.state, OBS_OK);
	assert_int_equal(s.synced, 1);
	assert_int_equal(s.stratum, 3);
	assert_int_equal(s.n_peers_total, 0);
	parse_fixture("ntpctl-s-peers-synced.txt", 0, &q);
	assert_int_equal(q.state, OBS_OK);
	assert_int_equal(q.synced, INT_UNKNOWN);
	assert_int_equal(q.n_peers, 1);
	assert_memory_equal(&q.peers[0], &o.peers[0], sizeof o.peers[0]);
}

/* The same daemon without CAP_SYS_TIME: adjtime fails, so openntpd never
 * calls the clock synced although its peer is valid. */
static void test_unsynced(void **state)
{
	(void)state;
	openntpd_obs o;
	parse_fixture("ntpctl-s-all-unsynced-no-cap-sys-time.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.synced, 0);
	assert_false(openntpd_synced(&o));
	assert_int_equal(o.stratum, INT_UNKNOWN);
	assert_int_equal(o.peers_valid, 1);
	assert_null(openntpd_selected_peer(&o));
	assert_true(o.peers[0].valid);
	assert_int_equal(o.peers[0].trust_level, 8);

	/* a server that never answered: no stratum, no numbers */
	/* the sign, on the real daemon: the server's clock 0.5 s behind under
	 * libfaketime (its transmit timestamps, not its kernel's receive ones:
	 * half shows as offset, the rest as delay); ntpctl prints -249.996ms,
	 * the node is ahead */
	parse_fixture("ntpctl-s-all-server-behind-faketime.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.peers[0].valid);
	assert_true(near(o.peers[0].offset_s, 0.249996));
	assert_true(near(o.peers[0].delay_s, 0.500038));

	parse_fixture("ntpctl-s-all-unreachable.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.peers_valid, 0);
	assert_false(o.peers[0].valid);
	assert_int_equal(o.peers[0].stratum, INT_UNKNOWN);
	assert_int_equal(o.peers[0].trust_level, 2);
	assert_int_equal(o.peers[0].next_s, 3012);
	assert_int_equal(o.peers[0].poll_s, 3044);
	assert_true(isnan(o.peers[0].offset_s) && isnan(o.peers[0].delay_s) && isnan(o.peers[0].jitter_s));
}

/* Shapes written with show_status_msg's and show_peer_msg's formats. */
static void test_formats(void **state)
{
	(void)state;
	openntpd_obs o;
	parse_fixture("synthetic-ntpctl-s-all-pool-constraint.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.peers_valid, 2);
	assert_int_equal(o.peers_configured, 3);
	assert_true(o.constraint_known);
	assert_true(o.constraint_offset_s == -1);
	assert_int_equal(o.constraint_errors, 2);
	assert_int_equal(o.stratum, 2);
	assert_int_equal(o.n_peers, 3);
	assert_string_equal(o.peers[0].address, "162.159.200.1");
	assert_string_equal(o.peers[0].description, "from pool pool.ntp.org");
	assert_true(o.peers[0].selected);
	assert_true(near(o.peers[0].offset_s, 0.512e-3)); /* -0.512ms: server behind */
	assert_true(near(o.peers[1].offset_s, -1.802e-3));
	assert_false(o.peers[2].valid);

	parse_fixture("synthetic-ntpctl-s-all-no-constraint-offset.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_true(o.constraints_configured);
	assert_false(o.constraint_known);
	assert_int_equal(o.synced, 0);
	assert_true(near(o.unsynced_offset_s, -3.5e-3)); /* adjtime still has +3.5 ms to add */

	parse_fixture("synthetic-ntpctl-s-all-sensor.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.sensors_valid, 1);
	assert_int_equal(o.sensors_configured, 1);
	assert_int_equal(o.n_sensors, 1);
	assert_true(o.sensor_selected);
	assert_int_equal(o.n_peers_total, 0);

	parse_fixture("synthetic-ntpctl-s-all-nothing-configured.txt", 0, &o);
	assert_int_equal(o.state, OBS_OK);
	assert_int_equal(o.synced, 0);
	assert_int_equal(o.peers_configured, 0);
}

static void test_failures(void **state)
{
	(void)state;
	openntpd_obs o;
	parse_fixture("ntpctl-s-all-no-daemon.txt", 1, &o);
	assert_int_equal(o.state, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(o.error, "No such file or directory"));
	parse_fixture("ntpctl-s-all-permission-denied.txt", 1, &o);
	assert_int_equal(o.state, OBS_PERMISSION_DENIED);
	assert_non_null(strstr(o.error, "ntpd.sock"));
	parse_text("", "", NTPCTL_TIMEOUT_RC, &o);
	assert_int_equal(o.state, OBS_DAEMON_UNREACHABLE);
	parse_text("", "sh: ntpctl: not found\n", TOOL_RC_NOT_FOUND, &o);
	assert_int_equal(o.state, OBS_TOOL_MISSING);
	parse_text("", "ntpctl: pipe closed\n", 1, &o);
	assert_int_equal(o.state, OBS_DAEMON_UNREACHABLE);
	parse_text("", "weird\n", 3, &o);
	assert_int_equal(o.state, OBS_COMMAND_FAILED);
	/* the collector's function prints nothing without ntpd or ntpctl */
	parse_text("", "", 0, &o);
	assert_int_equal(o.state, OBS_NOT_COLLECTED);
	assert_true(obs_state_absent(o.state));
}

static void test_malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"1/0 peers valid, clock synced, stratum 3\n",
		"1/1 peers valid, clock synced, stratum x\n",
		"1/1 peers valid, clock unsynced, stratum 3\n",
		"1/1 peers valid, clock synced, stratum 3,\n",
		"1/1 peers happy, clock synced\n",
		"clock synced, stratum 3\n\npeer\nwt tl\n",
		"clock synced, stratum 3\n\npeer\n   wt tl st  next  poll          offset       delay      jitter\n"
		"10.0.0.1\n x  1 10  2    1s   33s         0.000ms     0.040ms     0.009ms\n",
		"clock synced, stratum 3\n\npeer\n   wt tl st  next  poll          offset       delay      jitter\n"
		"10.0.0.1\n *  1 10  2    1s   33s         0.000ms    -0.040ms     0.009ms\n",
		"clock synced, stratum 3\n\npeer\n   wt tl st  next  poll          offset       delay      jitter\n"
		"10.0.0.1\n *  1 10  2    1s   33           0.000ms     0.040ms     0.009ms\n",
		"clock synced, stratum 3\n\npeer\n   wt tl st  next  poll          offset       delay      jitter\n"
		"10.0.0.1\n *  1 10  2    1s   33s         1e3ms     0.040ms     0.009ms\n",
		"constraint offset 5 s, clock synced, stratum 3\n",
		"constraint offset 5s (x errors), clock synced, stratum 3\n",
		"\x01\x02\n",
	};
	openntpd_obs o;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		parse_text(bad[i], "", 0, &o);
		if (o.state != OBS_GARBAGE) {
			fail_msg("case %zu parsed as %s", i, obs_state_name(o.state));
		}
		assert_true(o.error[0] != '\0');
		assert_int_equal(o.n_peers, 0);
		assert_int_equal(o.synced, INT_UNKNOWN);
	}
	/* every cut of a real capture: a whole answer or a clear failure */
	size_t len;
	char *text = fixture_read("ntpctl-s-all-synced.txt", &len);
	for (size_t n = 1; n < len; n++) {
		tool_output out = {.out = text, .out_len = n, .err = "", .err_len = 0, .rc = 0};
		ntpctl_parse(&out, &o);
		assert_true(o.state == OBS_OK || o.state == OBS_TRUNCATED || o.state == OBS_GARBAGE);
		if (o.state != OBS_OK) {
			assert_true(o.error[0] != '\0');
		}
	}
	/* ends after a peer's name: cut short */
	tool_output out = {.out = text, .out_len = (size_t)(strstr(text, "10.64.1.1 \n") + 11 - text), .err = "",
			   .err_len = 0, .rc = 0};
	ntpctl_parse(&out, &o);
	assert_int_equal(o.state, OBS_TRUNCATED);
	free(text);
}

/* ----------------------------------------------------------------- rules */

static bool has_code(const finding_list *fl, const char *code, severity sev)
{
	for (int i = 0; i < fl->count; i++) {
		if (strcmp(fl->items[i].code, code) == 0 && fl->items[i].sev == sev) {
			return true;
		}
	}
	return false;
}

/* An openntpd node as the probe sees it: ps lists ntpd, ntpq's part is
 * absent (the function says openntpd), ntpctl's part from the fixture. */
static node *openntpd_node(const char *fixture, int rc)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "n1");
	observation_init(&nd->obs);
	nd->has_observation = nd->reachable = true;
	parse_fixture(fixture, rc, &nd->obs.openntpd);
	tool_output q = {.out = "", .out_len = 0, .err = NTPQ_OPENNTPD_LINE "\n",
			 .err_len = strlen(NTPQ_OPENNTPD_LINE "\n"), .rc = NTPQ_OPENNTPD_RC};
	ntpq_parse(&q, &nd->obs.ntp);
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_NTPD;
	nd->obs.chrony.state = OBS_TOOL_MISSING;
	nd->obs.ptp.state = OBS_NOT_COLLECTED;
	return nd;
}

static void judge(const char *fixture, int rc, finding_list *fl)
{
	node *nd = openntpd_node(fixture, rc);
	thresholds th;
	thresholds_init_defaults(&th);
	health_evaluate(nd, &th, fl);
	free(nd);
}

static void test_rules(void **state)
{
	(void)state;
	finding_list fl;
	judge("ntpctl-s-all-synced.txt", 0, &fl);
	for (int i = 0; i < fl.count; i++) {
		fail_msg("unexpected finding %s: %s", fl.items[i].code, fl.items[i].message);
	}

	judge("ntpctl-s-all-unsynced-no-cap-sys-time.txt", 0, &fl);
	assert_true(has_code(&fl, "ntp.leap", SEVERITY_CRIT));
	assert_true(has_code(&fl, "ntp.no_system_peer", SEVERITY_CRIT));
	assert_false(has_code(&fl, "ntp.reach", SEVERITY_WARN));
	assert_false(has_code(&fl, "time.other_daemon", SEVERITY_WARN));
	assert_false(has_code(&fl, "time.no_service", SEVERITY_CRIT));

	judge("ntpctl-s-all-unreachable.txt", 0, &fl);
	assert_true(has_code(&fl, "ntp.reach", SEVERITY_CRIT));
	assert_true(has_code(&fl, "ntp.leap", SEVERITY_CRIT));

	/* one of three pool peers not valid; the clock synced 0.512 ms off:
	 * below chrony's 1 ms warn limit */
	judge("synthetic-ntpctl-s-all-pool-constraint.txt", 0, &fl);
	assert_true(has_code(&fl, "ntp.reach", SEVERITY_WARN));
	assert_false(has_code(&fl, "ntp.offset", SEVERITY_WARN));
	assert_false(has_code(&fl, "ntp.leap", SEVERITY_CRIT));
	assert_false(has_code(&fl, "ntp.no_system_peer", SEVERITY_CRIT));

	/* a server 250 ms behind (chronyd under libfaketime), before openntpd
	 * synced: the offset is not judged before the clock is synced (as
	 * ntpd's without a reference) */
	judge("ntpctl-s-all-server-behind-faketime.txt", 0, &fl);
	assert_true(has_code(&fl, "ntp.leap", SEVERITY_CRIT));
	assert_false(has_code(&fl, "ntp.offset", SEVERITY_CRIT));

	/* synced to a sensor: no peer needed */
	judge("synthetic-ntpctl-s-all-sensor.txt", 0, &fl);
	assert_false(has_code(&fl, "ntp.no_system_peer", SEVERITY_CRIT));
	judge("synthetic-ntpctl-s-all-nothing-configured.txt", 0, &fl);
	assert_true(has_code(&fl, "ntp.no_system_peer", SEVERITY_CRIT));

	/* ntpctl refused: openntpd is not read; the finding says why and how
	 * to allow it (health_ntp_tools.c), no "cannot inspect" beside it */
	judge("ntpctl-s-all-permission-denied.txt", 1, &fl);
	assert_true(has_code(&fl, "collector.tool_failed", SEVERITY_WARN));
	assert_false(has_code(&fl, "time.other_daemon", SEVERITY_WARN));
}

/* ---------------------------------------------------------------- outputs */

static json_t *keys_of(json_t *o)
{
	json_t *arr = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		json_array_append_new(arr, json_string(k));
	}
	return arr;
}

/* ntpd's keys come first in the same order: one schema for either daemon. */
static void assert_prefix_keys(json_t *ntpd, json_t *openntpd)
{
	json_t *a = keys_of(ntpd), *b = keys_of(openntpd);
	assert_true(json_array_size(b) > json_array_size(a));
	for (size_t i = 0; i < json_array_size(a); i++) {
		assert_string_equal(json_string_value(json_array_get(a, i)), json_string_value(json_array_get(b, i)));
	}
	json_decref(a);
	json_decref(b);
}

static void test_outputs(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpctl"), *q = collector_find("ntpq");
	assert_non_null(c);
	assert_non_null(q);
	assert_string_equal(c->json_key, q->json_key);
	assert_int_equal(c->daemon, DAEMON_NTPD);
	observation *obs = calloc(1, sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	parse_fixture("ntpctl-s-all-synced.txt", 0, &obs->openntpd);
	size_t len;
	char *text = fixture_read("ntpq-n-rv-peers-synced.txt", &len);
	tool_output t = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	q->decode(&t, obs);
	free(text);
	assert_int_equal(obs->ntp.state, OBS_OK);

	bool ok = true;
	json_t *o = c->json(obs, &ok), *n = q->json(obs, &ok);
	assert_true(ok);
	assert_string_equal(json_string_value(json_object_get(o, "daemon")), "openntpd");
	assert_string_equal(json_string_value(json_object_get(o, "leap_status")), "Normal");
	assert_string_equal(json_string_value(json_object_get(o, "leap")), "00");
	assert_int_equal(json_integer_value(json_object_get(o, "stratum")), 3);
	assert_string_equal(json_string_value(json_object_get(o, "reference_name")), "10.64.1.1");
	assert_true(near(json_real_value(json_object_get(o, "system_time_offset_s")), -0.001e-3));
	assert_true(json_is_null(json_object_get(o, "root_delay_s")));
	assert_true(json_is_true(json_object_get(o, "synced")));
	assert_true(json_real_value(json_object_get(o, "age_s")) == 0.0); /* every poll */
	assert_prefix_keys(n, o);
	assert_prefix_keys(json_array_get(json_object_get(n, "peers"), 0),
			   json_array_get(json_object_get(o, "peers"), 0));
	json_t *p = json_array_get(json_object_get(o, "peers"), 0);
	assert_string_equal(json_string_value(json_object_get(p, "tally")), "*");
	assert_int_equal(json_integer_value(json_object_get(p, "trust_level")), 10);
	assert_true(json_is_null(json_object_get(p, "reach")));
	json_decref(o);
	json_decref(n);

	time_service_view v;
	assert_true(c->time_service(obs, &v));
	assert_true(v.referenced);
	assert_string_equal(v.daemon, "openntpd");
	assert_string_equal(v.source, "10.64.1.1");
	assert_int_equal(v.stratum, 3);
	assert_int_equal(v.leap, CHRONY_LEAP_NORMAL);
	assert_true(isnan(v.frequency_ppm));

	parse_fixture("ntpctl-s-all-unsynced-no-cap-sys-time.txt", 0, &obs->openntpd);
	o = c->json(obs, &ok);
	assert_string_equal(json_string_value(json_object_get(o, "leap")), "11");
	assert_true(json_is_null(json_object_get(o, "system_time_offset_s")));
	assert_true(json_is_null(json_object_get(o, "stratum")));
	json_decref(o);
	assert_true(c->time_service(obs, &v));
	assert_false(v.referenced);
	assert_int_equal(v.leap, CHRONY_LEAP_UNSYNC);

	/* a failed part: the error, no values */
	parse_fixture("ntpctl-s-all-permission-denied.txt", 1, &obs->openntpd);
	o = c->json(obs, &ok);
	assert_non_null(strstr(json_string_value(json_object_get(o, "error")), "Permission denied"));
	assert_true(json_is_null(json_object_get(o, "peers")));
	json_decref(o);
	assert_false(c->time_service(obs, &v));
	free(obs);
}

/* The node's `ntp` object is openntpd's where ntpq's part is absent, at
 * ntpq's place, and ntpd's where ntpq answered; one synctop_part_up for
 * the key either way. */
static void test_shared_key(void **state)
{
	(void)state;
	node *nd = openntpd_node("ntpctl-s-all-synced.txt", 0);
	json_t *root = report_json_build(nd, 1, 1796300000.0);
	assert_non_null(root);
	json_t *jn = json_array_get(json_object_get(root, "nodes"), 0);
	json_t *ntp = json_object_get(jn, "ntp");
	assert_string_equal(json_string_value(json_object_get(ntp, "daemon")), "openntpd");
	/* "ntp" stays where ntpq's collector put it: right after "daemons" */
	json_t *keys = keys_of(jn);
	size_t at = 0;
	for (size_t i = 0; i < json_array_size(keys); i++) {
		if (strcmp(json_string_value(json_array_get(keys, i)), "daemons") == 0) {
			at = i;
		}
	}
	assert_string_equal(json_string_value(json_array_get(keys, at + 1)), "ntp");
	json_decref(keys);
	json_decref(root);

	cluster_summary s;
	cluster_summarise(nd, 1, &s);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_prometheus_format(f, nd, 1, &s, 1796300000.0), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "synctop_part_up{node=\"n1\",part=\"ntp\"} 1\n"));
	assert_null(strstr(buf, "part=\"ntp\"} 0"));
	assert_non_null(strstr(buf, "synctop_chrony_stratum{node=\"n1\",daemon=\"openntpd\"} 3\n"));
	assert_non_null(strstr(buf, "synctop_chrony_leap_status{node=\"n1\",daemon=\"openntpd\"} 0\n"));
	free(buf);

	/* ntpd answered ntpq: its object, and ntpctl's part (absent) adds nothing */
	size_t tl;
	char *text = fixture_read("ntpq-n-rv-peers-synced.txt", &tl);
	tool_output t = {.out = text, .out_len = tl, .err = "", .err_len = 0, .rc = 0};
	ntpq_parse(&t, &nd->obs.ntp);
	free(text);
	tool_output none = {.out = "", .out_len = 0, .err = "", .err_len = 0, .rc = 0};
	ntpctl_parse(&none, &nd->obs.openntpd);
	root = report_json_build(nd, 1, 1796300000.0);
	ntp = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "ntp");
	assert_string_equal(json_string_value(json_object_get(ntp, "daemon")), "ntpd");
	json_decref(root);

	/* neither: null */
	ntpq_parse(&none, &nd->obs.ntp);
	nd->obs.ntp.state = OBS_NOT_COLLECTED;
	root = report_json_build(nd, 1, 1796300000.0);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "ntp")));
	json_decref(root);
	free(nd);
}

/* The demo renderer prints what the parser reads back; the outputs written
 * with ntpd.c's formats come out byte for byte. */
static void test_renderer_round_trip(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		bool exact;
	} fixtures[] = {
		{"ntpctl-s-all-synced.txt", false}, /* 6.2p3 ends a bare address with a space */
		{"ntpctl-s-all-unsynced-no-cap-sys-time.txt", false},
		{"ntpctl-s-all-unreachable.txt", false},
		{"ntpctl-s-all-server-behind-faketime.txt", false},
		{"synthetic-ntpctl-s-all-pool-constraint.txt", true},
		{"synthetic-ntpctl-s-all-nothing-configured.txt", true},
	};
	const collector *c = collector_find("ntpctl");
	observation *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		static char out1[4096], out2[4096], err[256];
		text_sink o1, o2, e;
		observation_init(a);
		parse_fixture(fixtures[i].name, 0, &a->openntpd);
		assert_int_equal(a->openntpd.state, OBS_OK);
		text_sink_init(&o1, out1, sizeof out1);
		text_sink_init(&e, err, sizeof err);
		int rc = c->demo_render(a, "-", &o1, &e);
		assert_int_equal(rc, 0);
		if (fixtures[i].exact) {
			size_t len;
			char *want = fixture_read(fixtures[i].name, &len);
			assert_string_equal(out1, want);
			free(want);
		}
		tool_output t = {.out = out1, .out_len = o1.len, .err = err, .err_len = e.len, .rc = rc};
		observation_init(b);
		c->decode(&t, b);
		assert_int_equal(b->openntpd.state, OBS_OK);
		assert_memory_equal(&b->openntpd, &a->openntpd, sizeof a->openntpd);
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
		cmocka_unit_test(test_synced),
		cmocka_unit_test(test_unsynced),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_shared_key),
		cmocka_unit_test(test_renderer_round_trip),
	};
	return cmocka_run_group_tests_name("ntpctl", tests, NULL, NULL);
}
