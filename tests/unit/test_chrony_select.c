/* test_chrony_select.c - the selection collector (`chronyc -c -n
 * selectdata`) on output captured from real chronyd 4.3 (fixtures
 * chronyc-c-n-selectdata-*.txt: three local servers, one run under
 * faketime +3 s; see chronyc-selectdata.source.md), through its parser,
 * its rule and its JSON and Prometheus outputs. */
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

#include "chrony_parse.h"
#include "chrony_select.h"
#include "collector.h"
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "report_json.h"
#include "report_prometheus.h"

#define NOW 1796287700.0

static void parse_fixture(const char *name, int rc, chrony_selection *sel)
{
	tool_output out = fixture_output(name, rc);
	chrony_select_parse(&out, sel);
	fixture_output_free(&out);
}

static void parse_text(const char *text, int rc, chrony_selection *sel)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = rc};
	chrony_select_parse(&out, sel);
}

static void test_falseticker_capture(void **state)
{
	(void)state;
	chrony_selection sel;
	parse_fixture("chronyc-c-n-selectdata-falseticker.txt", 0, &sel);
	assert_int_equal(sel.state, OBS_OK);
	assert_int_equal(sel.n_sources, 4);
	const chrony_select_source *s = sel.sources;
	assert_int_equal(s[0].state, '*');
	assert_string_equal(s[0].name, "127.0.0.1");
	assert_false(s[0].authenticated);
	assert_int_equal(s[0].conf_options, 0);
	assert_true(s[0].interval_lo_s == -0.000002441 && s[0].interval_hi_s == 0.000002474);
	assert_int_equal(s[0].leap, CHRONY_LEAP_NORMAL);
	/* the server under faketime +3 s: node - source is -3 s */
	assert_int_equal(s[1].state, 'x');
	assert_true(s[1].interval_lo_s < -2.99 && s[1].interval_hi_s < -2.99);
	assert_int_equal(s[2].state, '+');
	assert_int_equal(s[3].state, 's');
	assert_int_equal(s[3].leap, CHRONY_LEAP_UNSYNC);
	assert_non_null(chrony_select_state_reason('x'));
	assert_null(chrony_select_state_reason('q'));
}

static void test_options_capture(void **state)
{
	(void)state;
	chrony_selection sel;
	parse_fixture("chronyc-c-n-selectdata-noselect-prefer.txt", 0, &sel);
	assert_int_equal(sel.state, OBS_OK);
	assert_int_equal(sel.n_sources, 4);
	assert_int_equal(sel.sources[0].conf_options, CHRONY_SELECT_OPT_PREFER);
	assert_int_equal(sel.sources[0].eff_options, CHRONY_SELECT_OPT_PREFER);
	assert_int_equal(sel.sources[2].state, 'N');
	assert_int_equal(sel.sources[2].conf_options, CHRONY_SELECT_OPT_NOSELECT);
	/* two sources that disagree: no majority, both falsetickers */
	assert_int_equal(sel.sources[0].state, 'x');
	assert_int_equal(sel.sources[1].state, 'x');
}

static void test_refusals_and_failures(void **state)
{
	(void)state;
	chrony_selection sel;
	/* chronyc over UDP as a user: tracking is allowed, selectdata is not */
	parse_fixture("chronyc-c-n-selectdata-udp-not-authorised.txt", 1, &sel);
	assert_int_equal(sel.state, OBS_PERMISSION_DENIED);
	assert_non_null(strstr(sel.error, "501 Not authorised"));
	assert_int_equal(sel.n_sources, 0);

	parse_text("", 127, &sel);
	assert_int_equal(sel.state, OBS_TOOL_MISSING);
	parse_fixture("chronyc-c-m-no-daemon.txt", 1, &sel);
	assert_int_equal(sel.state, OBS_DAEMON_UNREACHABLE);

	/* a chronyd without sources prints nothing */
	parse_text("", 0, &sel);
	assert_int_equal(sel.state, OBS_OK);
	assert_int_equal(sel.n_sources, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	static const char good[] = "*,127.0.0.1,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.000003271,0.000002870,Normal\n";
	static const struct {
		const char *text;
		obs_state want;
		const char *says;
	} cases[] = {
		{"q,127.0.0.1,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "unknown state"},
		{"*,,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "invalid name"},
		{"*,a b,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "invalid name"},
		{"*,a,Q,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "authentication"},
		{"*,a,N,P,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "options"},
		{"*,a,N,-,-,-,-,X,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "options"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,-1,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "last sample"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,0,nan,-0.1,0.1,Normal\n", OBS_GARBAGE, "score"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,0,1.0,1e-3,0.1,Normal\n", OBS_GARBAGE, "interval"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Sometimes\n", OBS_GARBAGE, "leap"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1\n", OBS_GARBAGE, "16 field(s)"},
		{"*,a,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal,extra,\n", OBS_GARBAGE, "field(s)"},
		{"*,127.0.0.1,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.000003", OBS_TRUNCATED, "field(s)"},
		{"\x1b[2J,a,N,-,-,-,-,-,-,-,-,-,-,0,1.0,-0.1,0.1,Normal\n", OBS_GARBAGE, "?[2J"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[512];
		snprintf(text, sizeof text, "%s%s", good, cases[i].text);
		chrony_selection sel;
		parse_text(text, 0, &sel);
		if (sel.state != cases[i].want || !strstr(sel.error, cases[i].says) || sel.n_sources != 0 ||
		    !strstr(sel.error, "line 2")) {
			fail_msg("case %zu: state %d error \"%s\"", i, (int)sel.state, sel.error);
		}
		for (const char *c = sel.error; *c; c++) {
			assert_true(*c >= 0x20 && *c < 0x7f);
		}
	}
}

/* More sources than the part holds: counted, the first ones kept. */
static void test_many_sources(void **state)
{
	(void)state;
	char text[8192] = "";
	for (int i = 0; i < CHRONY_MAX_SOURCES + 3; i++) {
		char line[128];
		snprintf(line, sizeof line, "+,10.0.0.%d,N,-,-,-,-,-,-,-,-,-,-,%d,1.0,-0.001,0.001,Normal\n", i, i);
		strcat(text, line);
	}
	chrony_selection sel;
	parse_text(text, 0, &sel);
	assert_int_equal(sel.state, OBS_OK);
	assert_int_equal(sel.n_sources, CHRONY_MAX_SOURCES);
	assert_int_equal(sel.n_sources_total, CHRONY_MAX_SOURCES + 3);
}

/* The collector end to end: decode, rule, JSON and Prometheus agree. */
static void test_collector_outputs(void **state)
{
	(void)state;
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "ntp7");
	observation_init(&nd->obs);
	size_t len;
	char *text = fixture_read("chronyc-c-n-selectdata-falseticker.txt", &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	const collector *c = collector_find("selectdata");
	assert_non_null(c);
	c->decode(&out, &nd->obs);
	free(text);
	nd->has_observation = nd->reachable = true;
	nd->obs.taken_at = NOW;
	thresholds th;
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	bool found = false;
	for (int i = 0; i < nd->findings.count; i++) {
		if (strcmp(nd->findings.items[i].code, "chrony.falseticker") == 0) {
			found = true;
			assert_int_equal(nd->findings.items[i].sev, SEVERITY_WARN);
			assert_non_null(strstr(nd->findings.items[i].message, "127.0.0.4"));
		}
	}
	assert_true(found);
	/* expect_chrony "no": the selection is not judged either */
	th.expect_chrony = EXPECT_NO;
	health_apply(nd, &th);
	for (int i = 0; i < nd->findings.count; i++) {
		assert_string_not_equal(nd->findings.items[i].code, "chrony.falseticker");
	}

	json_t *root = report_json_build(nd, 1, NOW);
	json_t *sel = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "chrony_selection");
	assert_true(json_is_null(json_object_get(sel, "error")));
	json_t *x = json_array_get(json_object_get(sel, "sources"), 1);
	assert_string_equal(json_string_value(json_object_get(x, "name")), "127.0.0.4");
	assert_string_equal(json_string_value(json_object_get(x, "state")), "x");
	assert_non_null(strstr(json_string_value(json_object_get(x, "reason")), "falseticker"));
	assert_true(json_real_value(json_object_get(x, "interval_low_s")) < -2.99);
	json_decref(root);

	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, NOW), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nsynctop_chrony_falsetickers{node=\"ntp7\"} 1\n"));
	assert_non_null(strstr(buf, "\nsynctop_chrony_source_selection{node=\"ntp7\",source=\"127.0.0.4\",state=\"x\"} 1\n"));
	assert_non_null(strstr(buf, "\nsynctop_part_up{node=\"ntp7\",part=\"chrony_selection\"} 1\n"));
	free(buf);
	free(nd);
}

typedef struct {
	char text[4096];
	int warn;
} captured;

static void cap_kv(void *ctx, const char *key, const char *value, detail_tone tone)
{
	captured *c = ctx;
	size_t n = strlen(c->text);
	snprintf(c->text + n, sizeof c->text - n, "%s | %s\n", key, value);
	c->warn += tone == DETAIL_WARN;
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
	for (int i = 0; i < n; i++) {
		cap_kv(ctx, "col", cols[i].title, DETAIL_PLAIN);
	}
}

static void cap_table_row(void *ctx)
{
	cap_kv(ctx, "row", "", DETAIL_PLAIN);
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

/* The drill-down section: every source with its state in words, the
 * falseticker marked; a refusal says how to allow selectdata. */
static void test_detail_section(void **state)
{
	(void)state;
	const collector *c = collector_find("selectdata");
	observation *obs = calloc(1, sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	parse_fixture("chronyc-c-n-selectdata-falseticker.txt", 0, &obs->selection);
	captured cap = {"", 0};
	detail_sink sink = {&cap,	     cap_kv,	    cap_text,	  cap_section,	    cap_table_begin,
			    cap_table_row, cap_text, cap_table_end, cap_finding_tone};
	assert_non_null(c->detail_title);
	c->detail(obs, &sink);
	assert_non_null(strstr(cap.text, "127.0.0.4 | x  a falseticker"));
	assert_non_null(strstr(cap.text, "127.0.0.1 | *  selected"));
	assert_non_null(strstr(cap.text, "127.0.0.3 | s  not synchronised"));
	assert_int_equal(cap.warn, 1);

	parse_fixture("chronyc-c-n-selectdata-udp-not-authorised.txt", 1, &obs->selection);
	captured refused = {"", 0};
	sink.ctx = &refused;
	c->detail(obs, &sink);
	assert_non_null(strstr(refused.text, "501 Not authorised"));
	assert_non_null(strstr(refused.text, "poll as root"));
	free(obs);
}

/* The dashboard's drill-down shows the section. */
static void test_drill_down(void **state)
{
	(void)state;
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "ntp7");
	observation_init(&nd->obs);
	parse_fixture("chronyc-c-n-selectdata-falseticker.txt", 0, &nd->obs.selection);
	nd->has_observation = nd->reachable = true;
	doc d;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 120, false);
	bool title = false, x = false, micro = false;
	for (size_t i = 0; i < d.n; i++) {
		title |= strstr(d.lines[i].text, "chrony source selection") != NULL;
		x |= strstr(d.lines[i].text, "127.0.0.4") && strstr(d.lines[i].text, "falseticker");
		/* not a UTF-8 terminal: the interval's microseconds as "us", not
		 * an escaped byte sequence */
		micro |= strstr(d.lines[i].text, "127.0.0.1") && strstr(d.lines[i].text, " us,");
		assert_null(strstr(d.lines[i].text, "\\x"));
	}
	assert_true(title && x && micro);
	doc_free(&d);
	free(nd);
}

/* What the demo prints for a chronyc that failed reads back as the same
 * failure (chrony_render_failure against chrony_parse_failure). */
static void test_render_failure_round_trip(void **state)
{
	(void)state;
	static const obs_state states[] = {OBS_DAEMON_UNREACHABLE, OBS_PERMISSION_DENIED, OBS_TOOL_MISSING};
	for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
		char o[128], e[128], why[OBS_ERROR_LEN];
		text_sink out, err;
		text_sink_init(&out, o, sizeof o);
		text_sink_init(&err, e, sizeof e);
		int rc = chrony_render_failure(states[i], "", &out, &err);
		tool_output t = {.out = o, .out_len = out.len, .err = e, .err_len = err.len, .rc = rc};
		obs_state got;
		assert_true(chrony_parse_failure(&t, &got, why, sizeof why));
		assert_int_equal(got, states[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_falseticker_capture),
		cmocka_unit_test(test_options_capture),
		cmocka_unit_test(test_refusals_and_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_many_sources),
		cmocka_unit_test(test_collector_outputs),
		cmocka_unit_test(test_detail_section),
		cmocka_unit_test(test_drill_down),
		cmocka_unit_test(test_render_failure_round_trip),
	};
	return cmocka_run_group_tests_name("chrony_select", tests, NULL, NULL);
}
