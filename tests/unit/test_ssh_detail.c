/* test_ssh_detail.c - a Prometheus node's one SSH poll (core/ssh_detail.h)
 * as the model keeps it and the sinks show it: its states, the JSON's
 * "ssh_detail" object beside the node's own values (never in place of
 * them, and the key present for every node exactly when some node has
 * one), and the drill-down's report, which says which source each value
 * came from, the two side by side, and the poll's error.  The SSH answer
 * is a real capture decoded through its collector, as a poll does. */
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
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "node_update.h"
#include "remote_history.h"
#include "report_json.h"
#include "ssh_detail.h"
#include "thresholds.h"

#define NOW 1796208290.0

/* n answered one poll whose chrony section is the fixture. */
static void answer(node *n, const char *fixture)
{
	size_t len;
	char *text = fixture_read(fixture, &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	observation obs;
	observation_init(&obs);
	const collector *c = collector_find("chrony");
	assert_non_null(c);
	c->decode(&out, &obs);
	free(text);
	obs.taken_at = NOW - 1;
	obs.rtt_s = 0.002;
	thresholds th;
	thresholds_init_defaults(&th);
	node_update_observation(n, &obs, &th);
}

/* A node as the Prometheus source leaves it: the same chrony state, but
 * named after another reference (so the two sources differ visibly). */
static node *prometheus_node(void)
{
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu001");
	answer(n, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	snprintf(n->obs.chrony.tracking.reference_name, sizeof n->obs.chrony.tracking.reference_name, "promref");
	n->obs.chrony.n_sources = 0; /* chrony_exporter without --collector.sources */
	n->obs.chrony.n_sources_total = 0;
	n->obs.chrony.n_sourcestats = 0;
	return n;
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

/* The line of text holding every one of the words, in order, or NULL. */
static const char *line_with(const char *text, const char *a, const char *b, const char *c)
{
	static char line[512];
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
		const char *x = strstr(line, a);
		const char *y = x && b ? strstr(x + strlen(a), b) : x;
		const char *z = y && c ? strstr(y + (b ? strlen(b) : 0), c) : y;
		if (x && y && z) {
			return line;
		}
	}
	return NULL;
}

static void test_states(void **state)
{
	(void)state;
	assert_true(ssh_detail_can_ask(NULL));
	ssh_detail *d = ssh_detail_new("gpu001", NOW);
	assert_string_equal(d->node.host, "gpu001");
	assert_int_equal(d->state, SSH_DETAIL_POLLING);
	assert_false(ssh_detail_can_ask(d)); /* one poll per request */
	assert_false(ssh_detail_answered(d));
	answer(&d->node, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	assert_false(ssh_detail_answered(d)); /* not finished yet */
	ssh_detail_finish(d, NOW + 2);
	assert_true(ssh_detail_answered(d));
	assert_true(ssh_detail_can_ask(d));
	ssh_detail_finish(d, NOW + 9); /* the end is the first end */
	assert_true(d->done_at == NOW + 2);
	ssh_detail_free(d);

	d = ssh_detail_new("gpu001", NOW);
	thresholds th;
	thresholds_init_defaults(&th);
	node_update_unreachable(&d->node, "auth: authentication as root on gpu001 failed", &th);
	ssh_detail_finish(d, NOW + 1);
	assert_false(ssh_detail_answered(d));
	ssh_detail_free(d);
}

static void test_json(void **state)
{
	(void)state;
	node *nodes = calloc(2, sizeof *nodes);
	assert_non_null(nodes);
	node_init(&nodes[0], "gpu001");
	answer(&nodes[0], "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	nodes[0].obs.chrony.tracking.system_time_offset_s = 0.5; /* Prometheus's */
	node_init(&nodes[1], "gpu002");
	answer(&nodes[1], "chronyc-c-m-tracking-sources-sourcestats-synced.txt");

	/* no detail anywhere: no key (the document's shape as before) */
	json_t *root = report_json_build(nodes, 2, NOW);
	assert_non_null(root);
	json_t *arr = json_object_get(root, "nodes");
	assert_null(json_object_get(json_array_get(arr, 0), "ssh_detail"));
	json_decref(root);

	nodes[0].ssh_detail = ssh_detail_new("gpu001", NOW - 3);
	answer(&nodes[0].ssh_detail->node, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	ssh_detail_finish(nodes[0].ssh_detail, NOW - 2);
	root = report_json_build(nodes, 2, NOW);
	assert_non_null(root);
	arr = json_object_get(root, "nodes");
	json_t *n0 = json_array_get(arr, 0), *n1 = json_array_get(arr, 1);
	/* the node's own value stays Prometheus's */
	assert_true(json_real_value(json_object_get(json_object_get(n0, "chrony"), "system_time_offset_s")) == 0.5);
	json_t *sd = json_object_get(n0, "ssh_detail");
	assert_true(json_is_object(sd));
	assert_true(json_is_true(json_object_get(sd, "reachable")));
	assert_true(json_is_true(json_object_get(sd, "finished")));
	assert_string_equal(json_string_value(json_object_get(sd, "host")), "gpu001");
	assert_true(json_is_string(json_object_get(sd, "asked_at")));
	json_t *sources = json_object_get(json_object_get(sd, "chrony"), "sources");
	assert_int_equal(json_array_size(sources), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sources, 0), "name")), "10.77.0.1");
	assert_true(fabs(json_real_value(json_object_get(json_object_get(sd, "chrony"), "system_time_offset_s")) -
			 0.5) > 0.1);
	/* every node has the key once one has: null when not polled */
	assert_true(json_is_null(json_object_get(n1, "ssh_detail")));
	json_decref(root);

	/* a poll still running */
	ssh_detail_free(nodes[0].ssh_detail);
	nodes[0].ssh_detail = ssh_detail_new("gpu001", NOW);
	root = report_json_build(nodes, 2, NOW);
	sd = json_object_get(json_array_get(json_object_get(root, "nodes"), 0), "ssh_detail");
	assert_true(json_is_false(json_object_get(sd, "finished")));
	assert_true(json_is_null(json_object_get(sd, "observed_at")));
	json_decref(root);
	ssh_detail_free(nodes[0].ssh_detail);
	free(nodes);
}

static void test_drill_down_before_and_while(void **state)
{
	(void)state;
	node *n = prometheus_node();
	char *text = drill_down(n);
	/* an SSH node (no remote history, no detail): nothing about S */
	assert_null(strstr(text, "Over SSH"));
	free(text);

	/* a node a source gave (its history asked for there): S offered */
	n->remote = remote_history_new(NOW, NOW - 86400, NOW, 600);
	text = drill_down(n);
	assert_non_null(strstr(text, "not polled: S polls this node once over SSH"));
	assert_null(strstr(text, "(from Prometheus)"));
	free(text);

	n->ssh_detail = ssh_detail_new("gpu001", NOW - 1);
	text = drill_down(n);
	assert_non_null(line_with(text, "Over SSH (one poll; S: poll again)", NULL, NULL));
	assert_non_null(line_with(text, "Poll", "asked at", "polling..."));
	assert_non_null(strstr(text, "(from Prometheus)"));
	free(text);
	ssh_detail_free(n->ssh_detail);
	remote_history_free(n->remote);
	free(n);
}

static void test_drill_down_answered(void **state)
{
	(void)state;
	node *n = prometheus_node();
	n->ssh_detail = ssh_detail_new("gpu001", NOW - 3);
	answer(&n->ssh_detail->node, "chronyc-c-m-tracking-sources-sourcestats-synced.txt");
	ssh_detail_finish(n->ssh_detail, NOW - 1.5);
	char *text = drill_down(n);
	assert_non_null(line_with(text, "Poll", "answered in 1.5 s", NULL));
	/* side by side, through the grid's cells */
	assert_non_null(line_with(text, "value", "from Prometheus", "over SSH"));
	assert_non_null(line_with(text, "source", "promref", "10.77.0.1"));
	assert_non_null(line_with(text, "status", "OK", "OK"));
	/* the Prometheus node's own sections, and the poll's, each marked */
	assert_non_null(line_with(text, "chrony tracking", "(from Prometheus)", NULL));
	assert_non_null(line_with(text, "chrony sources", "(over SSH)", NULL));
	assert_non_null(line_with(text, "Diagnosis", "(over SSH)", NULL));
	/* the SSH sources appear only in the SSH part: Prometheus had none */
	const char *ssh_part = strstr(text, "Over SSH (one poll");
	assert_non_null(ssh_part);
	const char *first_source = strstr(text, "10.77.0.2");
	assert_non_null(first_source);
	assert_true(first_source > ssh_part);
	free(text);
	ssh_detail_free(n->ssh_detail);
	free(n);
}

static void test_drill_down_failed(void **state)
{
	(void)state;
	node *n = prometheus_node();
	n->ssh_detail = ssh_detail_new("gpu001", NOW - 3);
	thresholds th;
	thresholds_init_defaults(&th);
	node_log_event(&n->ssh_detail->node, NOW - 3, "connecting");
	node_update_unreachable(&n->ssh_detail->node, "connect: connect to 10.0.0.1 port 22: Connection refused",
				&th);
	ssh_detail_finish(n->ssh_detail, NOW - 2);
	char *text = drill_down(n);
	assert_non_null(line_with(text, "Poll", "failed after 1.0 s", NULL));
	assert_non_null(line_with(text, "Error", "Connection refused", NULL));
	assert_non_null(line_with(text, "Connection", "(over SSH)", NULL));
	assert_non_null(line_with(text, "connecting", NULL, NULL));
	/* nothing to compare: no table */
	assert_null(line_with(text, "value", "from Prometheus", "over SSH"));
	/* the node's own values are still Prometheus's, whole */
	assert_non_null(line_with(text, "chrony tracking", "(from Prometheus)", NULL));
	free(text);
	ssh_detail_free(n->ssh_detail);
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_drill_down_before_and_while),
		cmocka_unit_test(test_drill_down_answered),
		cmocka_unit_test(test_drill_down_failed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
