/* test_ntpq.c - the ntpd collector (`ntpq -n -c rv -c peers`) on output
 * captured from real ntpsec 1.2.2 in a lab namespace and on classic ntp
 * 4.2.8 output published by its users (tests/fixtures/ntpq.source.md):
 * parser, validity rule, rules, JSON, Prometheus, drill-down and the demo
 * renderer. */
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
#include "ntpq_parse.h"
#include "report_json.h"
#include "report_prometheus.h"

#define NOW 1796287700.0
#define EPS 1e-12
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void parse_files(const char *const *names, int rc, ntp_obs *n)
{
	char *text = NULL;
	size_t len = 0;
	for (int i = 0; names[i]; i++) {
		size_t l;
		char *part = fixture_read(names[i], &l);
		text = realloc(text, len + l + 1);
		assert_non_null(text);
		memcpy(text + len, part, l + 1);
		len += l;
		free(part);
	}
	size_t err_len;
	char *err = fixture_read_stderr(names[0], &err_len);
	tool_output out = {.out = text, .out_len = len, .err = err, .err_len = err_len, .rc = rc};
	ntpq_parse(&out, n);
	ntp_obs_settle(n);
	free(text);
	free(err);
}

static void parse_fixture(const char *name, ntp_obs *n)
{
	const char *names[] = {name, NULL};
	parse_files(names, 0, n);
}

static void parse_text(const char *out, const char *err, int rc, ntp_obs *n)
{
	tool_output o = {.out = out, .out_len = strlen(out), .err = err, .err_len = strlen(err), .rc = rc};
	ntpq_parse(&o, n);
}

/* ntpsec synchronised to the lab's chronyd: units (ms, ppm) and the sign
 * (ntpq's offset is the server's, relative to this host). */
static void test_synced(void **state)
{
	(void)state;
	ntp_obs n;
	parse_fixture("ntpq-n-rv-peers-synced.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_true(n.ran);
	assert_int_equal(n.status, 0x0014);
	assert_int_equal(n.leap, 0);
	assert_int_equal(n.stratum, 9);
	assert_string_equal(n.refid, "10.217.17.1");
	assert_string_equal(n.version, "ntpd ntpsec-1.2.2");
	assert_near(n.offset_s, -0.010088e-3, EPS);
	assert_near(n.root_delay_s, 0.057e-3, EPS);
	assert_near(n.root_dispersion_s, 1.105e-3, EPS);
	assert_near(n.clk_jitter_s, 0.003549e-3, EPS);
	assert_near(n.frequency_ppm, 0.0, EPS);
	assert_int_equal(n.tc, 3);
	assert_int_equal(n.n_peers, 1);
	const ntp_peer *p = ntp_system_peer(&n);
	assert_non_null(p);
	assert_int_equal(p->tally, '*');
	assert_string_equal(p->remote, "10.217.17.1");
	assert_string_equal(p->refid, "127.127.1.1");
	assert_int_equal(p->stratum, 8);
	assert_int_equal(p->type, 'u');
	assert_int_equal(p->when_s, 7);
	assert_int_equal(p->poll_s, 8);
	assert_int_equal(p->reach, 0377);
	assert_near(p->delay_s, 0.0565e-3, EPS);
	assert_near(p->offset_s, -0.0132e-3, EPS);
	assert_near(p->jitter_s, 0.0046e-3, EPS);

	/* the same values from `ntpq -c rv` and `ntpq -pn` run apart */
	ntp_obs apart;
	const char *names[] = {"ntpq-c-rv-synced.txt", "ntpq-pn-synced.txt", NULL};
	parse_files(names, 0, &apart);
	assert_int_equal(apart.state, OBS_OK);
	assert_int_equal(apart.leap, 0);
	assert_int_equal(apart.n_peers, 1);
}

/* The sign, from a real ntpd: its server's clock (chronyd under faketime)
 * stamped its transmit times 0.5 s ahead and ntpq printed offset +250 ms
 * (the receive stamps come from the kernel, unfaked: half of it shows, and
 * the other half as delay).  A server ahead is a node behind: negative. */
static void test_sign(void **state)
{
	(void)state;
	ntp_obs n;
	parse_fixture("ntpq-n-rv-peers-server-ahead-faketime.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_near(n.peers[0].offset_s, -0.2500065, EPS);
	assert_near(n.offset_s, -0.250000789, EPS);
	assert_near(n.peers[0].delay_s, 0.4999357, EPS);
}

/* Started with its server down: leap 11, and the startup placeholders
 * (stratum 16, refid INIT, offset 0) become unknown. */
static void test_unsync_start(void **state)
{
	(void)state;
	ntp_obs n;
	parse_fixture("ntpq-n-rv-peers-unsync-start.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.leap, NTP_LEAP_UNSYNC);
	assert_int_equal(n.status, 0xc016);
	assert_false(ntp_has_reference(&n));
	assert_true(isnan(n.offset_s));
	assert_true(isnan(n.root_delay_s));
	assert_int_equal(n.stratum, INT_UNKNOWN);
	assert_string_equal(n.refid, "");
	assert_near(n.clk_jitter_s, 6e-05 * 1e-3, EPS); /* "6e-05": ntpsec's exponent */
	assert_near(n.frequency_ppm, 0.0, EPS);
	assert_int_equal(n.n_peers, 1);
	assert_int_equal(n.peers[0].tally, ' ');
	assert_string_equal(n.peers[0].refid, ".INIT.");
	assert_int_equal(n.peers[0].stratum, 16);
	assert_int_equal(n.peers[0].when_s, INT_UNKNOWN);
	assert_int_equal(n.peers[0].reach, 0);
	assert_null(ntp_system_peer(&n));
}

static void test_server_stopped(void **state)
{
	(void)state;
	ntp_obs n;
	parse_fixture("ntpq-n-rv-peers-server-stopped-reach370.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(ntp_system_peer(&n)->reach, 0370);
	parse_fixture("ntpq-n-rv-peers-server-stopped-reach0.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.leap, 0); /* ntpd keeps leap 00 after losing its peer */
	assert_int_equal(n.status, 0x0018);
	assert_null(ntp_system_peer(&n));
	assert_int_equal(n.peers[0].reach, 0);
	assert_int_equal(n.peers[0].when_s, 80);
	parse_fixture("ntpq-n-rv-peers-no-associations.txt", &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.n_peers, 0);
	assert_int_equal(n.n_peers_total, 0);
}

/* Classic ntp 4.2.8 as published: "+" signs, a remote with a space, the
 * pool placeholder, a PPS peer ('o'), timestamps with commas. */
static void test_classic_428(void **state)
{
	(void)state;
	ntp_obs n;
	const char *p1[] = {"ntpq428p1-rv-stratum1-gps.txt", "ntpq428p1-p-stratum1-gps.txt", NULL};
	parse_files(p1, 0, &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.status, 0x041d);
	assert_int_equal(n.stratum, 1);
	assert_string_equal(n.refid, "GPS");
	assert_near(n.offset_s, 0.000130e-3, EPS);
	assert_near(n.frequency_ppm, -13.457, EPS);
	assert_near(n.sys_jitter_s, 0.004033e-3, EPS);
	assert_near(n.clk_wander_ppm, 0.031, EPS);
	assert_string_equal(n.version, "ntpd 4.2.8p1@1.3265-o Mon Feb  9 09:59:02 UTC 2015 (1)");
	assert_int_equal(n.n_peers, 10);
	assert_int_equal(n.peers[0].type, 'p');
	assert_string_equal(n.peers[0].remote, "2.us.pool.ntp.o");
	assert_int_equal(n.peers[1].tally, 'o');
	assert_string_equal(n.peers[1].remote, "GPS_NMEA(0)");
	assert_string_equal(n.peers[8].remote, "198.110.48.12 (");
	assert_near(n.peers[9].offset_s, 5.521e-3, EPS);
	assert_int_equal(n.peers[7].tally, '*');
	/* `ntpq -p -c rv` prints the peers first: the same answer */
	ntp_obs swapped;
	const char *p1_swapped[] = {"ntpq428p1-p-stratum1-gps.txt", "ntpq428p1-rv-stratum1-gps.txt", NULL};
	parse_files(p1_swapped, 0, &swapped);
	assert_int_equal(swapped.state, OBS_OK);
	assert_int_equal(swapped.n_peers, 10);
	assert_int_equal(swapped.status, 0x041d);

	const char *p15[] = {"ntpq428p15-rv-client.txt", "ntpq428p15-p-pps.txt", NULL};
	parse_files(p15, 0, &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.status, 0x0615);
	assert_near(n.offset_s, -0.156207e-3, EPS);
	assert_near(n.frequency_ppm, 1.166, EPS);
	assert_int_equal(n.peers[1].tally, 'x');
	assert_near(n.peers[1].offset_s, -22.963e-3, EPS);
	assert_string_equal(n.peers[2].remote, "217.114.59.3 (d");
	assert_int_equal(n.peers[0].poll_s, 16);
}

/* The ways the call fails, each with its state. */
static void test_failures(void **state)
{
	(void)state;
	ntp_obs n;
	parse_fixture("ntpq-n-rv-peers-no-daemon.txt", &n); /* rc 0! */
	assert_int_equal(n.state, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(n.error, "Socket error"));
	parse_fixture("ntpq-collector-no-ntpd.txt", &n);
	assert_int_equal(n.state, OBS_NOT_COLLECTED);
	assert_true(n.ran);
	assert_true(obs_state_absent(n.state));
	parse_text("", "sh: ntpq: not found\n", 127, &n);
	assert_int_equal(n.state, OBS_TOOL_MISSING);
	parse_text("", NTPQ_OPENNTPD_LINE "\n", NTPQ_OPENNTPD_RC, &n);
	assert_int_equal(n.state, OBS_TOOL_MISSING);
	assert_non_null(strstr(n.error, "openntpd"));
	parse_text("", "localhost: timed out, nothing received\n***Request timed out\n", 0, &n);
	assert_int_equal(n.state, OBS_DAEMON_UNREACHABLE);
	/* timeout(1) stopped ntpq (the collector's function says so): a hung
	 * ntpd, even with part of rv printed */
	parse_text("associd=0 status=0615\n", NTPQ_TIMEOUT_LINE "\n", NTPQ_TIMEOUT_RC, &n);
	assert_int_equal(n.state, OBS_DAEMON_UNREACHABLE);
	assert_non_null(strstr(n.error, "stopped after " NTPQ_TIMEOUT_S " s"));
	parse_text("", "", 0, &n);
	assert_int_equal(n.state, OBS_EMPTY);
	parse_text("", "boom\n", 2, &n);
	assert_int_equal(n.state, OBS_COMMAND_FAILED);
	assert_non_null(strstr(n.error, "boom"));
}

/* Malformed or cut-short output fails the part whole. */
static void test_malformed(void **state)
{
	(void)state;
	ntp_obs n;
	size_t len;
	char *text = fixture_read("ntpq-n-rv-peers-synced.txt", &len);
	char *cut = strstr(text, "*10.217");
	tool_output o = {.out = text, .out_len = (size_t)(cut - text) + 40, .err = "", .err_len = 0, .rc = 0};
	ntpq_parse(&o, &n);
	assert_int_equal(n.state, OBS_TRUNCATED);
	assert_int_equal(n.n_peers, 0);
	o.out_len = (size_t)(strstr(text, "leap=00") - text) + 20; /* mid-variables */
	ntpq_parse(&o, &n);
	assert_int_equal(n.state, OBS_TRUNCATED);
	free(text);

	parse_text("hello world\n", "", 0, &n);
	assert_int_equal(n.state, OBS_GARBAGE);
	parse_text("leap=21,\n     remote refid\n=====================\n", "", 0, &n);
	assert_int_equal(n.state, OBS_GARBAGE);
	assert_non_null(strstr(n.error, "leap"));
	parse_text("leap=00, offset=1e999,\n", "", 0, &n);
	assert_int_equal(n.state, OBS_GARBAGE);
	parse_text("leap=00,\n     remote refid\n====================\n"
		   "?10.0.0.1 .INIT. 16 u - 64 0 0.000 0.000 0.000\n", "", 0, &n);
	assert_int_equal(n.state, OBS_GARBAGE);
	assert_non_null(strstr(n.error, "tally"));
	parse_text("leap=00,\n     remote refid\n====================\n"
		   "*10.0.0.1 .INIT. 16 u - 64 999 0.000 0.000 0.000\n", "", 0, &n);
	assert_int_equal(n.state, OBS_GARBAGE);
	assert_non_null(strstr(n.error, "reach"));
	/* more peers than kept: counted */
	char big[8192] = "leap=00,\n     remote refid\n====================\n";
	for (int i = 0; i < NTP_MAX_PEERS + 2; i++) {
		char row[96];
		snprintf(row, sizeof row, "+10.0.0.%-8d .GPS.  1 u 1 64 377 1.0 0.1 0.01\n", i);
		strcat(big, row);
	}
	parse_text(big, "", 0, &n);
	assert_int_equal(n.state, OBS_OK);
	assert_int_equal(n.n_peers, NTP_MAX_PEERS);
	assert_int_equal(n.n_peers_total, NTP_MAX_PEERS + 2);
}

static int has_finding(const node *nd, const char *code, severity sev)
{
	for (int i = 0; i < nd->findings.count; i++) {
		if (strcmp(nd->findings.items[i].code, code) == 0 && nd->findings.items[i].sev == sev) {
			return 1;
		}
	}
	return 0;
}

static int has_code(const node *nd, const char *code)
{
	for (int i = 0; i < nd->findings.count; i++) {
		if (strcmp(nd->findings.items[i].code, code) == 0) {
			return 1;
		}
	}
	return 0;
}

static node *ntp_node(const char *name, const char *fixture)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, name);
	observation_init(&nd->obs);
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_NTPD;
	nd->obs.taken_at = NOW;
	nd->has_observation = nd->reachable = true;
	if (fixture) {
		size_t len;
		char *text = fixture_read(fixture, &len);
		tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
		collector_find("ntpq")->decode(&out, &nd->obs);
		free(text);
	}
	return nd;
}

static void test_rules(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *nd = ntp_node("n1", "ntpq-n-rv-peers-synced.txt");
	health_apply(nd, &th);
	assert_false(has_code(nd, "ntp.leap") || has_code(nd, "ntp.offset") || has_code(nd, "ntp.reach") ||
		     has_code(nd, "ntp.no_system_peer") || has_code(nd, "ntp.frequency"));
	/* ntpq answered: synctop inspects ntpd, no "cannot inspect" */
	assert_false(has_code(nd, "time.other_daemon"));
	assert_false(has_code(nd, "time.no_service"));

	/* limits shared with chrony: 1 ms warn, 10 ms crit, 100/500 ppm */
	nd->obs.ntp.offset_s = -5e-3;
	nd->obs.ntp.frequency_ppm = -150;
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.offset", SEVERITY_WARN));
	assert_true(has_finding(nd, "ntp.frequency", SEVERITY_WARN));
	th.chrony_offset_crit_s = 4e-3;
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.offset", SEVERITY_CRIT));
	free(nd);
	thresholds_init_defaults(&th);

	nd = ntp_node("n2", "ntpq-n-rv-peers-unsync-start.txt");
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.leap", SEVERITY_CRIT));
	assert_true(has_finding(nd, "ntp.no_system_peer", SEVERITY_CRIT));
	assert_true(has_finding(nd, "ntp.reach", SEVERITY_CRIT));
	assert_false(has_code(nd, "ntp.offset"));
	free(nd);

	nd = ntp_node("n3", "ntpq-n-rv-peers-server-stopped-reach370.txt");
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.reach", SEVERITY_WARN));
	assert_false(has_code(nd, "ntp.no_system_peer"));
	free(nd);

	nd = ntp_node("n4", "ntpq-n-rv-peers-server-stopped-reach0.txt");
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.no_system_peer", SEVERITY_CRIT));
	assert_true(has_finding(nd, "ntp.reach", SEVERITY_CRIT));
	assert_false(has_code(nd, "ntp.leap"));
	free(nd);

	nd = ntp_node("n5", "ntpq-n-rv-peers-no-associations.txt");
	health_apply(nd, &th);
	assert_true(has_finding(nd, "ntp.no_system_peer", SEVERITY_CRIT));
	free(nd);

	/* ntpq did not answer (or was not asked): still "cannot inspect" */
	nd = ntp_node("n6", NULL);
	health_apply(nd, &th);
	assert_true(has_code(nd, "time.other_daemon"));
	free(nd);

	/* openntpd: absent, no ntp.* finding and no failure */
	nd = ntp_node("n7", NULL);
	tool_output out = {.out = "", .out_len = 0, .err = NTPQ_OPENNTPD_LINE "\n",
			   .err_len = strlen(NTPQ_OPENNTPD_LINE) + 1, .rc = NTPQ_OPENNTPD_RC};
	collector_find("ntpq")->decode(&out, &nd->obs);
	health_apply(nd, &th);
	for (int i = 0; i < nd->findings.count; i++) {
		assert_true(strncmp(nd->findings.items[i].code, "ntp.", 4) != 0);
		assert_true(nd->findings.items[i].sev != SEVERITY_CRIT);
	}
	free(nd);
}

/* The periodic part: a poll that did not ask keeps the last answer, one
 * that found no ntpd does not. */
static void test_carry(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpq");
	assert_int_equal(c->cadence, COLLECT_PERIODIC);
	observation *before = calloc(1, sizeof *before), *now = calloc(1, sizeof *now);
	assert_non_null(before);
	assert_non_null(now);
	observation_init(before);
	parse_fixture("ntpq-n-rv-peers-synced.txt", &before->ntp);
	observation_init(now);
	c->carry(now, before);
	assert_int_equal(now->ntp.state, OBS_OK);
	assert_false(now->ntp.ran);
	observation_init(now);
	parse_fixture("ntpq-collector-no-ntpd.txt", &now->ntp);
	c->carry(now, before);
	assert_int_equal(now->ntp.state, OBS_NOT_COLLECTED);
	free(before);
	free(now);
}

/* JSON, Prometheus and the findings read the same part; chrony's series
 * stay as they were, ntpd's join their families with a daemon label. */
static void test_outputs_agree(void **state)
{
	(void)state;
	node *nodes = calloc(2, sizeof *nodes);
	assert_non_null(nodes);
	node *chrony = &nodes[0], *ntp = &nodes[1];
	node_init(chrony, "c1");
	observation_init(&chrony->obs);
	size_t len;
	char *text = fixture_read("chronyc-c-m-tracking-sources-sourcestats-synced.txt", &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	collector_find("chrony")->decode(&out, &chrony->obs);
	free(text);
	chrony->has_observation = chrony->reachable = true;
	node *tmp = ntp_node("n1", "ntpq-n-rv-peers-synced.txt");
	node_init(ntp, "n1");
	ntp->obs = tmp->obs;
	ntp->has_observation = ntp->reachable = true;
	free(tmp);

	json_t *root = report_json_build(nodes, 2, NOW);
	json_t *jn = json_array_get(json_object_get(root, "nodes"), 1);
	json_t *o = json_object_get(jn, "ntp");
	assert_true(json_is_object(o));
	assert_true(json_is_null(json_object_get(o, "error")));
	assert_string_equal(json_string_value(json_object_get(o, "leap_status")), "Normal");
	assert_string_equal(json_string_value(json_object_get(o, "leap")), "00");
	assert_string_equal(json_string_value(json_object_get(o, "status_word")), "0014");
	assert_near(json_real_value(json_object_get(o, "system_time_offset_s")), -0.010088e-3, EPS);
	json_t *peer = json_array_get(json_object_get(o, "peers"), 0);
	assert_string_equal(json_string_value(json_object_get(peer, "tally")), "*");
	assert_string_equal(json_string_value(json_object_get(peer, "state")), "system_peer");
	assert_int_equal(json_integer_value(json_object_get(peer, "reach")), 255);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "ntp")));
	json_decref(root);

	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_int_equal(report_prometheus_format(f, nodes, 2, NULL, NOW), 0);
	fclose(f);
	const char *type = "# TYPE synctop_chrony_offset_seconds gauge\n";
	char *first = strstr(buf, type);
	assert_non_null(first);
	assert_null(strstr(first + 1, type)); /* one family, both daemons */
	assert_non_null(strstr(buf, "\nsynctop_chrony_offset_seconds{node=\"c1\"} "));
	assert_non_null(strstr(buf, "\nsynctop_chrony_offset_seconds{node=\"n1\",daemon=\"ntpd\"} -1.0088e-05\n"));
	assert_non_null(strstr(buf, "\nsynctop_chrony_leap_status{node=\"n1\",daemon=\"ntpd\"} 0\n"));
	assert_non_null(strstr(buf, "\nsynctop_chrony_stratum{node=\"n1\",daemon=\"ntpd\"} 9\n"));
	assert_non_null(strstr(buf, "\nsynctop_ntpd_peer_reach{node=\"n1\",daemon=\"ntpd\",peer=\"10.217.17.1\",tally=\"*\"} 255\n"));
	assert_non_null(strstr(buf, "\nsynctop_part_up{node=\"n1\",part=\"ntp\"} 1\n"));
	assert_null(strstr(buf, "synctop_part_up{node=\"c1\",part=\"ntp\"}"));
	free(buf);
	free(nodes);
}

typedef struct {
	char text[4096];
} captured;

static void cap_kv(void *ctx, const char *key, const char *value, detail_tone tone)
{
	captured *c = ctx;
	size_t n = strlen(c->text);
	(void)tone;
	snprintf(c->text + n, sizeof c->text - n, "%s | %s\n", key, value);
}

static void cap_text(void *ctx, const char *text, detail_tone tone)
{
	cap_kv(ctx, "", text, tone);
}

static void cap_section(void *ctx, const char *title)
{
	cap_kv(ctx, "#", title, DETAIL_PLAIN);
}

static void cap_table_begin(void *ctx, int n, const detail_column *cols)
{
	(void)ctx;
	(void)n;
	(void)cols;
}

static void cap_table_row(void *ctx)
{
	(void)ctx;
}

static void cap_table_end(void *ctx)
{
	(void)ctx;
}

static detail_tone cap_finding_tone(void *ctx, const char *const *codes)
{
	(void)ctx;
	(void)codes;
	return DETAIL_PLAIN;
}

static void test_detail_and_columns(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpq");
	observation *obs = calloc(1, sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	parse_fixture("ntpq-n-rv-peers-synced.txt", &obs->ntp);
	captured cap = {""};
	detail_sink sink = {&cap,	     cap_kv,	    cap_text,	  cap_section,	    cap_table_begin,
			    cap_table_row, cap_text, cap_table_end, cap_finding_tone};
	c->detail(obs, &sink);
	assert_non_null(strstr(cap.text, "Leap | Normal (leap 00, status 0014)"));
	assert_non_null(strstr(cap.text, "10.217.17.1 | * system_peer  st 8  reach 377"));

	/* the grid's view: the system peer, the offset (node minus reference) */
	time_service_view v;
	assert_true(c->time_service(obs, &v));
	assert_true(v.referenced);
	assert_string_equal(v.source, "10.217.17.1");
	assert_true(v.offset_s < 0 && v.offset_s > -20e-6); /* -10 µs */
	assert_int_equal(v.leap, CHRONY_LEAP_NORMAL);
	assert_true(isnan(v.frequency_ppm)); /* ntpd's sign not settled */
	parse_fixture("ntpq-n-rv-peers-server-stopped-reach0.txt", &obs->ntp);
	assert_true(c->time_service(obs, &v));
	assert_false(v.referenced); /* no system peer */
	parse_fixture("ntpq-n-rv-peers-unsync-start.txt", &obs->ntp);
	assert_true(c->time_service(obs, &v));
	assert_false(v.referenced);
	assert_int_equal(v.leap, CHRONY_LEAP_UNSYNC);
	observation_init(obs);
	assert_false(c->time_service(obs, &v));
	free(obs);
}

static void assert_same(double a, double b)
{
	if (isnan(a) || isnan(b)) {
		assert_true(isnan(a) && isnan(b));
	} else {
		assert_true(fabs(a - b) <= 1e-9 * fmax(1.0, fabs(a)));
	}
}

/* The demo renderer: parse(render(x)) gives x back, and rendering that
 * again gives the same bytes, for every captured state. */
static void test_render_round_trip(void **state)
{
	(void)state;
	static const char *const fixtures[] = {
		"ntpq-n-rv-peers-synced.txt", "ntpq-n-rv-peers-startup-synced.txt",
		"ntpq-n-rv-peers-server-stopped-reach370.txt", "ntpq-n-rv-peers-server-stopped-reach0.txt",
		"ntpq-n-rv-peers-unsync-start.txt", "ntpq-n-rv-peers-no-associations.txt",
		"ntpq-n-rv-peers-no-daemon.txt", "ntpq-collector-no-ntpd.txt",
		"ntpq-n-rv-peers-server-ahead-faketime.txt",
	};
	const collector *c = collector_find("ntpq");
	observation *truth = calloc(2, sizeof *truth);
	assert_non_null(truth);
	for (size_t k = 0; k < sizeof fixtures / sizeof fixtures[0]; k++) {
		observation_init(&truth[0]);
		parse_fixture(fixtures[k], &truth[0].ntp);
		char o1[8192], e1[1024], o2[8192], e2[1024];
		text_sink out, err;
		text_sink_init(&out, o1, sizeof o1);
		text_sink_init(&err, e1, sizeof e1);
		int rc = c->demo_render(&truth[0], "-", &out, &err);
		observation_init(&truth[1]);
		tool_output t = {.out = o1, .out_len = out.len, .err = e1, .err_len = err.len, .rc = rc};
		c->decode(&t, &truth[1]);
		const ntp_obs *a = &truth[0].ntp, *b = &truth[1].ntp;
		assert_int_equal(a->state, b->state);
		assert_int_equal(a->leap, b->leap);
		assert_int_equal(a->status, b->status);
		assert_int_equal(a->stratum, b->stratum);
		assert_string_equal(a->refid, b->refid);
		assert_string_equal(a->version, b->version);
		assert_int_equal(a->tc, b->tc);
		assert_same(a->offset_s, b->offset_s);
		assert_same(a->sys_jitter_s, b->sys_jitter_s);
		assert_same(a->clk_jitter_s, b->clk_jitter_s);
		assert_same(a->clk_wander_ppm, b->clk_wander_ppm);
		assert_same(a->frequency_ppm, b->frequency_ppm);
		assert_same(a->root_delay_s, b->root_delay_s);
		assert_same(a->root_dispersion_s, b->root_dispersion_s);
		assert_int_equal(a->n_peers, b->n_peers);
		for (int i = 0; i < a->n_peers; i++) {
			const ntp_peer *p = &a->peers[i], *q = &b->peers[i];
			assert_int_equal(p->tally, q->tally);
			assert_string_equal(p->remote, q->remote);
			assert_string_equal(p->refid, q->refid);
			assert_int_equal(p->stratum, q->stratum);
			assert_int_equal(p->type, q->type);
			assert_int_equal(p->when_s, q->when_s);
			assert_int_equal(p->poll_s, q->poll_s);
			assert_int_equal(p->reach, q->reach);
			assert_same(p->delay_s, q->delay_s);
			assert_same(p->offset_s, q->offset_s);
			assert_same(p->jitter_s, q->jitter_s);
		}
		text_sink_init(&out, o2, sizeof o2);
		text_sink_init(&err, e2, sizeof e2);
		int rc2 = c->demo_render(&truth[1], "-", &out, &err);
		assert_int_equal(rc, rc2);
		assert_int_equal(out.len, t.out_len);
		assert_memory_equal(o1, o2, out.len);
	}
	free(truth);
}

/* Between ntpq's runs the node keeps its last answer with its age: 0 at
 * the poll that ran it, then the time since that poll, in JSON and the
 * drill-down; a new run starts again at 0. */
static void test_carry_age(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpq");
	observation *first = calloc(1, sizeof *first), *second = calloc(1, sizeof *second),
		    *third = calloc(1, sizeof *third);
	assert_non_null(first);
	assert_non_null(second);
	assert_non_null(third);
	observation_init(first);
	first->taken_at = 1000.0;
	parse_fixture("ntpq-n-rv-peers-synced.txt", &first->ntp);
	bool ok = true;
	json_t *j = c->json(first, &ok);
	assert_true(ok);
	assert_true(json_real_value(json_object_get(j, "age_s")) == 0.0);
	json_decref(j);

	observation_init(second);
	second->taken_at = 1042.5; /* a poll that did not ask for ntpq */
	c->carry(second, first);
	j = c->json(second, &ok);
	assert_true(json_real_value(json_object_get(j, "age_s")) == 42.5);
	assert_true(json_real_value(json_object_get(j, "system_time_offset_s")) == first->ntp.offset_s);
	json_decref(j);
	observation_init(third);
	third->taken_at = 1060.0; /* another: the age counts from the first */
	c->carry(third, second);
	j = c->json(third, &ok);
	assert_true(json_real_value(json_object_get(j, "age_s")) == 60.0);
	json_decref(j);
	captured cap = {""};
	detail_sink sink = {&cap,	     cap_kv,	    cap_text,	  cap_section,	    cap_table_begin,
			    cap_table_row, cap_text, cap_table_end, cap_finding_tone};
	c->detail(third, &sink);
	assert_non_null(strstr(cap.text, "Answered | 60 s ago"));

	observation_init(third);
	third->taken_at = 1061.0; /* ntpq ran again */
	parse_fixture("ntpq-n-rv-peers-synced.txt", &third->ntp);
	c->carry(third, second);
	j = c->json(third, &ok);
	assert_true(json_real_value(json_object_get(j, "age_s")) == 0.0);
	json_decref(j);
	free(first);
	free(second);
	free(third);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synced),
		cmocka_unit_test(test_sign),
		cmocka_unit_test(test_unsync_start),
		cmocka_unit_test(test_server_stopped),
		cmocka_unit_test(test_classic_428),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_carry_age),
		cmocka_unit_test(test_outputs_agree),
		cmocka_unit_test(test_detail_and_columns),
		cmocka_unit_test(test_render_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
