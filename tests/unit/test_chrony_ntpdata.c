/* test_chrony_ntpdata.c - `chronyc -c ntpdata` on real captures (chrony
 * 4.3 in a namespace lab: interleaved, Kernel timestamps, a source that
 * never answered, a refusal over UDP) and public samples (Hardware, the
 * chrony 4.6 counters): the parser, its failures, and the collector's
 * JSON, Prometheus, drill-down and TS column. */
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
#include <jansson.h>

#include "chrony_ntpdata.h"
#include "chrony_parse.h"
#include "collector.h"
#include "detail_sink.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "report_json.h"
#include "report_prometheus.h"
#include "text_sink.h"

#define NOW 1796323100.0

static void parse_fixture(const char *name, int rc, chrony_ntpdata *nd)
{
	tool_output out = fixture_output(name, rc);
	chrony_ntpdata_parse(&out, nd);
	fixture_output_free(&out);
}

static void parse_text(const char *text, int rc, chrony_ntpdata *nd)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = rc};
	chrony_ntpdata_parse(&out, nd);
}

static void test_lab_capture(void **state)
{
	(void)state;
	chrony_ntpdata nd;
	parse_fixture("chronyc-c-ntpdata-interleaved-kernel.txt", 0, &nd);
	assert_int_equal(nd.state, OBS_OK);
	assert_int_equal(nd.n_sources, 2);
	const chrony_ntp_source *s = &nd.sources[0];
	assert_string_equal(s->remote, "10.83.0.1");
	assert_string_equal(s->local, "10.83.0.2");
	assert_int_equal(s->remote_port, 123);
	assert_int_equal(s->version, 4);
	assert_string_equal(s->mode, "Server");
	assert_int_equal(s->stratum, 3);
	assert_int_equal(s->poll, -4);
	assert_int_equal(s->leap, CHRONY_LEAP_NORMAL);
	assert_true(s->interleaved);
	assert_false(s->authenticated);
	assert_int_equal(s->tx_ts, CHRONY_TS_KERNEL);
	assert_int_equal(s->rx_ts, CHRONY_TS_KERNEL);
	assert_int_equal(s->total_tx, 185);
	assert_int_equal(s->total_good_rx, 183);
	assert_int_equal(s->hw_rx, CHRONY_COUNT_UNKNOWN); /* chrony 4.3: no such counter */
	/* chronyc prints source - node (+0.000000106); `sources` of the same
	 * capture gives the measured offset node - source -0.000000106 */
	assert_true(s->offset_s == -0.000000106);
	assert_true(s->peer_delay_s == 0.000002625);

	const chrony_ntp_source *u = &nd.sources[1];
	assert_string_equal(u->remote, "10.83.0.3");
	assert_string_equal(u->local, "[UNSPEC]");
	assert_string_equal(u->mode, "Invalid");
	assert_int_equal(u->version, 0);
	assert_int_equal(u->rx_ts, CHRONY_TS_INVALID);
	assert_int_equal(u->total_tx, 17);
	assert_int_equal(u->total_rx, 0);

	/* the earlier lab capture (chrony 4.3, not interleaved) */
	parse_fixture("chronyc-c-ntpdata-synced.txt", 0, &nd);
	assert_int_equal(nd.state, OBS_OK);
	assert_false(nd.sources[0].interleaved);
	assert_true(nd.sources[0].offset_s == 0.000000989);
}

static void test_public_samples(void **state)
{
	(void)state;
	chrony_ntpdata nd;
	/* chrony 3.x, RHEL 7 guide: hardware both ways, three counters */
	parse_fixture("chronyc-c-ntpdata-hardware-rhel-docs.txt", 0, &nd);
	assert_int_equal(nd.state, OBS_OK);
	assert_int_equal(nd.n_sources, 1);
	assert_int_equal(nd.sources[0].tx_ts, CHRONY_TS_HARDWARE);
	assert_int_equal(nd.sources[0].rx_ts, CHRONY_TS_HARDWARE);
	assert_true(nd.sources[0].interleaved);
	assert_int_equal(nd.sources[0].stratum, 1);
	assert_int_equal(nd.sources[0].total_valid_rx, 27);
	assert_int_equal(nd.sources[0].total_good_rx, CHRONY_COUNT_UNKNOWN);
	/* chrony 4.6: eight counters */
	parse_fixture("chronyc-c-ntpdata-46-counters-ansible.txt", 0, &nd);
	assert_int_equal(nd.state, OBS_OK);
	assert_int_equal(nd.sources[0].total_tx, 9);
	assert_int_equal(nd.sources[0].kernel_tx, 9);
	assert_int_equal(nd.sources[0].kernel_rx, 0);
	assert_int_equal(nd.sources[0].hw_tx, 0);
	assert_int_equal(nd.sources[0].hw_rx, 0);
}

static void test_refusals_and_failures(void **state)
{
	(void)state;
	chrony_ntpdata nd;
	/* as user nobody over UDP: tracking answered, ntpdata refused */
	parse_fixture("chronyc-c-ntpdata-udp-not-authorised.txt", 1, &nd);
	assert_int_equal(nd.state, OBS_PERMISSION_DENIED);
	assert_non_null(strstr(nd.error, "501 Not authorised"));
	assert_int_equal(nd.n_sources, 0);
	parse_text("", 127, &nd);
	assert_int_equal(nd.state, OBS_TOOL_MISSING);
	parse_fixture("chronyc-c-m-no-daemon.txt", 1, &nd);
	assert_int_equal(nd.state, OBS_DAEMON_UNREACHABLE);
	parse_text("", 0, &nd); /* refclocks only: no record */
	assert_int_equal(nd.state, OBS_OK);
	assert_int_equal(nd.n_sources, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char head[] = "10.83.0.1,0A530001,123,10.83.0.2,0A530002,Normal,4,";
	static const char tail[] = ",Yes,No,Kernel,Kernel,185,185,185,183\n";
	static const char mid[] = "Server,3,-4,0,-25,0.000000030,0.000000,0.000000,7F7F0101,,1796323082.983149785,"
				  "0.000000106,0.000002625,0.000000059,0.000087864,0.00,111,111,1111";
	static const struct {
		const char *text;
		obs_state want;
		const char *says;
	} cases[] = {
		{",0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,0.1,"
		 "0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "remote address"},
		{"a,0A530001,99999,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "port"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Client,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "mode"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,nan,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "offset"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Maybe,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "interleaved"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,NIC,Kernel,1,1,1,1\n", OBS_GARBAGE, "timestamping"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,-1,1,1\n", OBS_GARBAGE, "packet count"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,0.1,"
		 "0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1,1\n", OBS_GARBAGE, "35 field(s)"},
		{"a,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1", OBS_TRUNCATED, "field(s)"},
		{"\x1b[2J,0A530001,123,10.83.0.2,0A530002,Normal,4,Server,3,-4,0,-25,0.1,0.0,0.0,7F7F0101,,1.0,0.1,0.1,"
		 "0.1,0.1,0.00,111,111,1111,Yes,No,Kernel,Kernel,1,1,1,1\n", OBS_GARBAGE, "?[2J"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s%s%s", head, mid, tail, cases[i].text);
		chrony_ntpdata nd;
		parse_text(text, 0, &nd);
		if (nd.state != cases[i].want || !strstr(nd.error, cases[i].says) || nd.n_sources != 0 ||
		    !strstr(nd.error, "line 2")) {
			fail_msg("case %zu: state %d error \"%s\"", i, (int)nd.state, nd.error);
		}
		for (const char *c = nd.error; *c; c++) {
			assert_true(*c >= 0x20 && *c < 0x7f);
		}
	}
}

/* A chrony node: its sources and its ntpdata from the same lab capture. */
static node *chrony_node(const char *ntpdata_fixture, int rc)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "ntp7");
	observation_init(&nd->obs);
	size_t len, tlen;
	char *tracking = fixture_read("chronyc-c-tracking-synced.txt", &tlen);
	char *sources = fixture_read("chronyc-c-n-sources-ntpdata-capture.txt", &len);
	char *both = malloc(tlen + len + 1);
	assert_non_null(both);
	memcpy(both, tracking, tlen);
	memcpy(both + tlen, sources, len);
	tool_output out = {.out = both, .out_len = tlen + len, .err = "", .err_len = 0, .rc = 0};
	chrony_parse_csv(&out, &nd->obs.chrony);
	assert_int_equal(nd->obs.chrony.state, OBS_OK);
	free(tracking);
	free(sources);
	free(both);
	char *text = fixture_read(ntpdata_fixture, &len);
	tool_output nout = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = rc};
	const collector *c = collector_find("ntpdata");
	assert_non_null(c);
	c->decode(&nout, &nd->obs);
	free(text);
	nd->has_observation = nd->reachable = true;
	nd->obs.taken_at = NOW;
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_CHRONYD;
	return nd;
}

static void test_collector_outputs(void **state)
{
	(void)state;
	node *nd = chrony_node("chronyc-c-ntpdata-interleaved-kernel.txt", 0);
	/* the selected source (10.83.0.1) has kernel timestamps */
	assert_string_equal(observation_timestamping(&nd->obs), "SW");

	json_t *root = report_json_build(nd, 1, NOW);
	json_t *o = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "chrony_ntpdata");
	assert_true(json_is_null(json_object_get(o, "error")));
	json_t *s0 = json_array_get(json_object_get(o, "sources"), 0);
	assert_string_equal(json_string_value(json_object_get(s0, "remote")), "10.83.0.1");
	assert_string_equal(json_string_value(json_object_get(s0, "rx_timestamping")), "kernel");
	assert_true(json_is_true(json_object_get(s0, "interleaved")));
	assert_int_equal(json_integer_value(json_object_get(s0, "total_good_rx")), 183);
	assert_true(json_is_null(json_object_get(s0, "hw_rx")));
	json_t *s1 = json_array_get(json_object_get(o, "sources"), 1);
	assert_true(json_is_null(json_object_get(s1, "rx_timestamping")));
	assert_true(json_is_null(json_object_get(s1, "mode")));
	json_decref(root);

	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, NOW), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nsynctop_chrony_ntp_timestamping{node=\"ntp7\",source=\"10.83.0.1\","
				    "direction=\"rx\",timestamping=\"Kernel\"} 1\n"));
	assert_null(strstr(buf, "source=\"10.83.0.3\",direction"));
	assert_non_null(strstr(buf, "\nsynctop_part_up{node=\"ntp7\",part=\"chrony_ntpdata\"} 1\n"));
	free(buf);

	/* hardware both ways on the selected source: HW; one way: HW rx */
	nd->obs.ntpdata.sources[0].rx_ts = CHRONY_TS_HARDWARE;
	assert_string_equal(observation_timestamping(&nd->obs), "HW rx");
	nd->obs.ntpdata.sources[0].tx_ts = CHRONY_TS_HARDWARE;
	assert_string_equal(observation_timestamping(&nd->obs), "HW");
	/* a PTP node keeps what ptp4l and ethtool say */
	nd->obs.nic.state = OBS_OK;
	nd->obs.nic.caps = NIC_CAP_SW_TX | NIC_CAP_SW_RX;
	nd->obs.ptp.state = OBS_OK;
	nd->obs.ptp.n_ports = 1;
	nd->obs.ptp.ports[0].state = PTP_PORT_SLAVE;
	assert_string_equal(observation_timestamping(&nd->obs), "SW");
	free(nd);

	/* refused: nothing of chrony's own part is lost, the column falls back */
	nd = chrony_node("chronyc-c-ntpdata-udp-not-authorised.txt", 1);
	assert_int_equal(nd->obs.ntpdata.state, OBS_PERMISSION_DENIED);
	assert_int_equal(nd->obs.chrony.state, OBS_OK);
	assert_null(observation_timestamping(&nd->obs));
	free(nd);
}

typedef struct {
	char text[4096];
	int warn;
	int good;
} captured;

static void cap_kv(void *ctx, const char *key, const char *value, detail_tone tone)
{
	captured *c = ctx;
	size_t n = strlen(c->text);
	snprintf(c->text + n, sizeof c->text - n, "%s | %s\n", key, value);
	c->warn += tone == DETAIL_WARN;
	c->good += tone == DETAIL_GOOD;
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

static void test_detail_section(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpdata");
	observation *obs = calloc(1, sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	detail_sink sink;
	captured cap = {"", 0, 0};
	sink = (detail_sink){&cap, cap_kv, cap_text, cap_section, cap_table_begin, cap_table_row, cap_text,
			     cap_table_end, cap_finding_tone};
	parse_fixture("chronyc-c-ntpdata-interleaved-kernel.txt", 0, &obs->ntpdata);
	c->detail(obs, &sink);
	assert_non_null(strstr(cap.text, "10.83.0.1 | RX Kernel, TX Kernel, interleaved\n"));
	assert_non_null(strstr(cap.text, "packets | TX 185, RX 185, valid 185, good 183\n"));
	assert_non_null(strstr(cap.text, "10.83.0.3 | no answer yet (17 sent)\n"));
	assert_int_equal(cap.warn, 1);

	captured hw = {"", 0, 0};
	sink.ctx = &hw;
	parse_fixture("chronyc-c-ntpdata-hardware-rhel-docs.txt", 0, &obs->ntpdata);
	c->detail(obs, &sink);
	assert_non_null(strstr(hw.text, "203.0.113.15 | RX Hardware, TX Hardware, interleaved\n"));
	assert_int_equal(hw.good, 1);

	captured refused = {"", 0, 0};
	sink.ctx = &refused;
	parse_fixture("chronyc-c-ntpdata-udp-not-authorised.txt", 1, &obs->ntpdata);
	c->detail(obs, &sink);
	assert_non_null(strstr(refused.text, "501 Not authorised"));
	assert_non_null(strstr(refused.text, "refused `chronyc ntpdata`"));
	assert_non_null(strstr(refused.text, "cmdallow"));
	free(obs);
}

/* The demo renderer prints what the parser reads back. */
static void test_render_round_trip(void **state)
{
	(void)state;
	const collector *c = collector_find("ntpdata");
	const char *names[] = {"chronyc-c-ntpdata-interleaved-kernel.txt", "chronyc-c-ntpdata-46-counters-ansible.txt",
			       "chronyc-c-ntpdata-udp-not-authorised.txt"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		observation *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
		assert_non_null(a);
		assert_non_null(b);
		observation_init(a);
		observation_init(b);
		parse_fixture(names[k], k == 2 ? 1 : 0, &a->ntpdata);
		char out[4096], err[512];
		text_sink o, e;
		text_sink_init(&o, out, sizeof out);
		text_sink_init(&e, err, sizeof err);
		int rc = c->demo_render(a, "-", &o, &e);
		tool_output t = {.out = out, .out_len = o.len, .err = err, .err_len = e.len, .rc = rc};
		chrony_ntpdata_parse(&t, &b->ntpdata);
		assert_int_equal(b->ntpdata.state, a->ntpdata.state);
		assert_int_equal(b->ntpdata.n_sources, a->ntpdata.n_sources);
		for (int i = 0; i < a->ntpdata.n_sources; i++) {
			const chrony_ntp_source *x = &a->ntpdata.sources[i], *y = &b->ntpdata.sources[i];
			assert_string_equal(x->remote, y->remote);
			assert_int_equal(x->tx_ts, y->tx_ts);
			assert_int_equal(x->rx_ts, y->rx_ts);
			assert_int_equal(x->interleaved, y->interleaved);
			assert_true(x->offset_s == y->offset_s);
			assert_int_equal(x->total_good_rx, y->total_good_rx);
			assert_int_equal(x->hw_rx, y->hw_rx);
		}
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_capture),
		cmocka_unit_test(test_public_samples),
		cmocka_unit_test(test_refusals_and_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_collector_outputs),
		cmocka_unit_test(test_detail_section),
		cmocka_unit_test(test_render_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
