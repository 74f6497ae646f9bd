/* test_outputs_agree.c - one observation, every output: the JSON snapshot,
 * the Prometheus textfile, the plain-text table, the grid cells, the
 * drill-down and the health rules must tell the same story about which
 * values are known.  Each case decodes real captured output through its
 * collector (collector.h), as a poll does, so the part's validity rule is
 * the one a real node gets. */
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
#include "columns.h"
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "report_json.h"
#include "report_prometheus.h"
#include "report_text.h"
#include "thresholds.h"

#define ALL_COLUMNS (~(column_mask)0)

/* A collector's grid column by key; the test fails if it is not there. */
static column_id column_of(const char *key)
{
	column_id id = columns_find(key);
	if (id < 0) {
		fail_msg("no grid column \"%s\"", key);
	}
	return id;
}

#define NOW 1796208290.0

/* A node that answered one poll whose sections are the named fixtures. */
static node *polled_node(const char *collector_name, const char *fixture)
{
	node *nd = calloc(1, sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "gpu001");
	observation_init(&nd->obs);
	size_t len;
	char *text = fixture_read(fixture, &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	const collector *c = collector_find(collector_name);
	assert_non_null(c);
	c->decode(&out, &nd->obs);
	free(text);
	nd->obs.taken_at = NOW - 1;
	nd->obs.rtt_s = 0.002;
	nd->has_observation = true;
	nd->reachable = true;
	thresholds th;
	thresholds_init_defaults(&th);
	health_apply(nd, &th);
	return nd;
}

static json_t *json_chrony(const node *nd)
{
	json_t *root = report_json_build(nd, 1, NOW);
	assert_non_null(root);
	json_t *chrony = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "chrony");
	assert_non_null(chrony);
	json_incref(chrony);
	json_decref(root);
	return chrony;
}

static char *prometheus_text(const node *nd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, NOW), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *text_table(const node *nd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text_write(f, nd, 1, NOW);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static char *drill_down(const node *nd)
{
	doc d;
	doc_init(&d);
	detail_doc_build(&d, nd, NOW, 120, false);
	char *s = doc_text(&d);
	doc_free(&d);
	return s;
}

/* The drill-down line that starts with key (after indentation). */
static const char *doc_value(const char *text, const char *key, char *line, size_t len)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *q = p;
		while (*q == ' ') {
			q++;
		}
		if (strncmp(q, key, strlen(key)) == 0) {
			const char *end = strchr(q, '\n');
			size_t n = end ? (size_t)(end - q) : strlen(q);
			snprintf(line, len, "%.*s", (int)(n < len ? n : len - 1), q);
			return line;
		}
	}
	fail_msg("no drill-down line %s", key);
	return NULL;
}

static bool has_finding(const node *nd, const char *code)
{
	for (int i = 0; i < nd->findings.count && i < MAX_FINDINGS; i++) {
		if (nd->findings.items[i].code && strcmp(nd->findings.items[i].code, code) == 0) {
			return true;
		}
	}
	return false;
}

/* A node whose own Prometheus series of this family exists. */
static bool has_series(const char *prom, const char *family)
{
	char want[128];
	snprintf(want, sizeof want, "\n%s{", family);
	return strstr(prom, want) != NULL;
}

/* chronyd running but not synchronised (real capture: no reachable source).
 * Without a reference its tracking values are placeholders (0 offset, stratum
 * 0, reference 00000000, 1 s root delay and dispersion); every output must say
 * "unknown" for them and keep the values chrony does know. */
static void test_chrony_unsynchronised(void **state)
{
	(void)state;
	node *nd = polled_node("chrony", "chronyc-c-m-tracking-sources-unsync.txt");
	assert_int_equal(nd->obs.chrony.state, OBS_OK);
	assert_int_equal(nd->obs.chrony.tracking.leap, CHRONY_LEAP_UNSYNC);

	json_t *c = json_chrony(nd);
	static const char *const unknown[] = {
		"system_time_offset_s", "stratum", "reference_id", "reference_name",
		"root_delay_s", "root_dispersion_s", "residual_frequency_ppm", "skew_ppm",
	};
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
		json_t *v = json_object_get(c, unknown[i]);
		if (!json_is_null(v)) {
			fail_msg("JSON chrony.%s is not null", unknown[i]);
		}
	}
	assert_true(json_is_number(json_object_get(c, "frequency_ppm")));
	assert_true(json_is_number(json_object_get(c, "last_offset_s")));
	assert_true(json_is_number(json_object_get(c, "rms_offset_s")));
	assert_string_equal(json_string_value(json_object_get(c, "leap_status")), "Not synchronised");
	json_decref(c);

	char *prom = prometheus_text(nd);
	assert_false(has_series(prom, "synctop_chrony_offset_seconds"));
	assert_false(has_series(prom, "synctop_chrony_stratum"));
	assert_false(has_series(prom, "synctop_chrony_root_delay_seconds"));
	assert_false(has_series(prom, "synctop_chrony_root_dispersion_seconds"));
	assert_false(has_series(prom, "synctop_chrony_skew_ratio"));
	assert_true(has_series(prom, "synctop_chrony_frequency_ratio"));
	assert_true(has_series(prom, "synctop_chrony_leap_status"));
	free(prom);

	column_cell cell;
	columns_cell(nd, COL_OFFSET, 10, NOW, false, &cell);
	assert_string_equal(cell.text, "-");
	columns_cell(nd, COL_STRATUM, 10, NOW, false, &cell);
	assert_string_equal(cell.text, "-");
	columns_cell(nd, COL_SKEW, 10, NOW, false, &cell);
	assert_string_equal(cell.text, "-");
	columns_cell(nd, COL_FREQ, 10, NOW, false, &cell);
	assert_string_not_equal(cell.text, "-");
	assert_string_not_equal(cell.text, "?");

	char *table = text_table(nd);
	const char *row = strstr(table, "gpu001");
	assert_non_null(row);
	assert_null(strstr(row, "0 ns"));
	assert_non_null(strstr(row, "Not synchronised"));
	free(table);

	char *dd = drill_down(nd);
	char line[256];
	assert_non_null(strstr(doc_value(dd, "System time", line, sizeof line), "not synchronised"));
	assert_non_null(strstr(doc_value(dd, "Stratum", line, sizeof line), "not synchronised"));
	assert_non_null(strstr(doc_value(dd, "Root delay", line, sizeof line), "not synchronised"));
	assert_null(strstr(doc_value(dd, "Frequency", line, sizeof line), "not synchronised"));
	free(dd);

	assert_true(has_finding(nd, "chrony.leap"));
	assert_false(has_finding(nd, "chrony.offset"));
	assert_false(has_finding(nd, "chrony.error_bound"));
	free(nd);
}

/* A synchronised chronyd (real capture): every tracking value is known and
 * every output shows it. */
static void test_chrony_synchronised(void **state)
{
	(void)state;
	node *nd = polled_node("chrony", "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	assert_int_equal(nd->obs.chrony.state, OBS_OK);
	assert_true(chrony_tracking_has_reference(&nd->obs.chrony.tracking));

	json_t *c = json_chrony(nd);
	assert_true(json_is_number(json_object_get(c, "system_time_offset_s")));
	assert_true(json_is_integer(json_object_get(c, "stratum")));
	assert_true(json_is_string(json_object_get(c, "reference_id")));
	assert_true(json_is_number(json_object_get(c, "root_delay_s")));
	json_decref(c);

	char *prom = prometheus_text(nd);
	assert_true(has_series(prom, "synctop_chrony_offset_seconds"));
	assert_true(has_series(prom, "synctop_chrony_stratum"));
	free(prom);

	column_cell cell;
	columns_cell(nd, COL_OFFSET, 10, NOW, false, &cell);
	assert_string_not_equal(cell.text, "-");
	assert_string_not_equal(cell.text, "?");

	char *dd = drill_down(nd);
	char line[256];
	assert_null(strstr(doc_value(dd, "System time", line, sizeof line), "not synchronised"));
	free(dd);
	free(nd);
}

/* ptp4l keeps its last offset after its port stops following a master:
 * the same PTP part, once following and once LISTENING, through every
 * output. */
static void test_ptp_stale_offset(void **state)
{
	(void)state;
	node *nd = polled_node("pmc", "pmc-batch-multi-get-slave.txt");
	assert_non_null(ptp_following_port(&nd->obs.ptp));
	int64_t offset = nd->obs.ptp.offset_from_master_ns;
	assert_true(offset != PTP_NS_UNKNOWN);

	column_cell cell;
	columns_cell(nd, column_of("ptp-offset"), 10, NOW, false, &cell);
	assert_string_not_equal(cell.text, "-");
	char *prom = prometheus_text(nd);
	assert_true(has_series(prom, "synctop_ptp_offset_seconds"));
	free(prom);

	/* The port goes LISTENING; the value stays in the part. */
	for (int i = 0; i < ptp_port_count(&nd->obs.ptp); i++) {
		nd->obs.ptp.ports[i].state = PTP_PORT_LISTENING;
	}
	assert_null(ptp_following_port(&nd->obs.ptp));
	columns_cell(nd, column_of("ptp-offset"), 10, NOW, false, &cell);
	assert_string_equal(cell.text, "-");
	prom = prometheus_text(nd);
	assert_false(has_series(prom, "synctop_ptp_offset_seconds"));
	free(prom);
	json_t *root = report_json_build(nd, 1, NOW);
	json_t *ptp = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "ptp");
	assert_true(json_is_null(json_object_get(ptp, "offset_from_master_ns")));
	json_decref(root);
	free(nd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chrony_unsynchronised),
		cmocka_unit_test(test_chrony_synchronised),
		cmocka_unit_test(test_ptp_stale_offset),
	};
	return cmocka_run_group_tests_name("outputs agree", tests, NULL, NULL);
}
