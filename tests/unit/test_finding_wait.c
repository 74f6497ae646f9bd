/* test_finding_wait.c - a finding's `for` (finding_wait.h): `since` carried
 * from poll to poll, pending until it has lasted, a flap starting the wait
 * again, the node as the live view shows it, --check --for's cut, the
 * configuration's `for` key, and the header's counts. */
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
#include "conffile.h"
#include "consistency.h"
#include "finding_wait.h"
#include "health.h"
#include "node.h"
#include "thresholds.h"

#define T0 1.8e9

/* A chronyd node synchronised to one good server, polled at t. */
static void chrony_at(node *n, double t, double offset_s)
{
	n->reachable = true;
	n->has_observation = true;
	n->obs.taken_at = t;
	n->obs.daemons.state = OBS_OK;
	n->obs.daemons.running = DAEMON_CHRONYD;
	n->obs.ptp.state = OBS_DAEMON_UNREACHABLE;
	chrony_obs *c = &n->obs.chrony;
	chrony_obs_init(c);
	c->state = OBS_OK;
	chrony_tracking *tr = &c->tracking;
	tr->reference_id = 0x0A4D0001;
	tr->has_reference_id = true;
	snprintf(tr->reference_name, sizeof tr->reference_name, "10.77.0.1");
	tr->stratum = 9;
	tr->ref_time = t - 1;
	tr->system_time_offset_s = offset_s;
	tr->frequency_ppm = -0.38;
	tr->skew_ppm = 0.25;
	tr->root_delay_s = 20e-6;
	tr->root_dispersion_s = 2e-6;
	tr->update_interval_s = 1.0;
	tr->leap = CHRONY_LEAP_NORMAL;
	chrony_source *s = &c->sources[c->n_sources++];
	c->n_sources_total = c->n_sources;
	memset(s, 0, sizeof *s);
	s->mode = CHRONY_MODE_SERVER;
	s->state = CHRONY_STATE_SELECTED;
	snprintf(s->name, sizeof s->name, "10.77.0.1");
	s->stratum = 8;
	s->reach = 0377;
	s->adjusted_offset_s = s->measured_offset_s = s->error_s = NAN;
}

static node *new_node(void)
{
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu001");
	return n;
}

static thresholds live(void)
{
	thresholds th;
	thresholds_init_defaults(&th);
	th.findings_wait = true;
	return th;
}

static const finding *find(const node *n, const char *code)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (n->findings.items[i].code && strcmp(n->findings.items[i].code, code) == 0) {
			return &n->findings.items[i];
		}
	}
	return NULL;
}

static void test_table(void **state)
{
	(void)state;
	assert_true(finding_code_count() >= 47);
	for (size_t i = 0; i < finding_code_count(); i++) {
		const char *c = finding_code_at(i);
		assert_ptr_equal(finding_code_lookup(c), c);
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(c, finding_code_at(j)); /* no code twice */
		}
	}
	assert_null(finding_code_at(finding_code_count()));
	assert_null(finding_code_lookup("chrony.ofset"));
	assert_null(finding_code_lookup(NULL));
	/* measured values settle; states are real at once (the list) */
	const char *settle[] = {"chrony.offset", "ptp.offset", "ptp.path_delay", "chrony.drift",
				"cluster.offset_spread", "cluster.ptp_spread", "ntp.offset", "ptp.phc_sys_offset"};
	for (size_t i = 0; i < sizeof settle / sizeof settle[0]; i++) {
		assert_true(finding_wait_default(settle[i]) == 30.0);
	}
	const char *at_once[] = {"time.no_service", "chrony.leap", "ptp.port_state", "time.conflicting_daemons",
				 "timesyncd.unsynchronised", "ptp.no_sync"};
	for (size_t i = 0; i < sizeof at_once / sizeof at_once[0]; i++) {
		assert_true(finding_wait_default(at_once[i]) == 0.0);
	}
}

static void test_override(void **state)
{
	(void)state;
	thresholds th = live();
	assert_true(finding_wait_for(&th, "chrony.offset") == 30.0);
	assert_int_equal(finding_wait_set(&th, finding_code_lookup("chrony.offset"), 90), 0);
	assert_int_equal(finding_wait_set(&th, finding_code_lookup("chrony.offset"), 120), 0);
	assert_int_equal(th.n_waits, 1);
	assert_true(finding_wait_for(&th, "chrony.offset") == 120.0);
	assert_true(finding_wait_for(&th, "ptp.offset") == 30.0);
	/* every code fits at once */
	for (size_t i = 0; i < finding_code_count(); i++) {
		assert_int_equal(finding_wait_set(&th, finding_code_at(i), 5), 0);
	}
	assert_true(finding_wait_for(&th, "time.no_service") == 5.0);
}

/* chrony.offset (warn above 1 ms, `for` 30 s) polled every 10 s. */
static void test_pending_until_lasted(void **state)
{
	(void)state;
	thresholds th = live();
	node *n = new_node();

	chrony_at(n, T0, 2e-3);
	health_apply(n, &th);
	const finding *f = find(n, "chrony.offset");
	assert_non_null(f);
	assert_true(f->pending);
	assert_true(f->since == T0);
	assert_int_equal(n->status, NODE_STATUS_WARN);            /* judged now: JSON, Prometheus */
	assert_int_equal(health_live_status(n), NODE_STATUS_PENDING); /* the dashboard */

	chrony_at(n, T0 + 20, 2e-3);
	health_apply(n, &th);
	f = find(n, "chrony.offset");
	assert_true(f->pending);
	assert_true(f->since == T0);

	chrony_at(n, T0 + 30, 2e-3); /* lasted exactly its `for` */
	health_apply(n, &th);
	f = find(n, "chrony.offset");
	assert_false(f->pending);
	assert_true(f->since == T0);
	assert_int_equal(health_live_status(n), NODE_STATUS_WARN);

	/* gone at one poll: back, it waits again */
	chrony_at(n, T0 + 40, 1e-6);
	health_apply(n, &th);
	assert_null(find(n, "chrony.offset"));
	assert_int_equal(health_live_status(n), NODE_STATUS_OK);
	chrony_at(n, T0 + 50, 2e-3);
	health_apply(n, &th);
	f = find(n, "chrony.offset");
	assert_true(f->pending);
	assert_true(f->since == T0 + 50);
	free(n);
}

static void test_no_wait_outside_live(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th); /* --once, --check, Prometheus */
	node *n = new_node();
	chrony_at(n, T0, 2e-3);
	health_apply(n, &th);
	const finding *f = find(n, "chrony.offset");
	assert_false(f->pending);
	assert_true(f->since == T0); /* JSON still says since when */
	assert_int_equal(health_live_status(n), NODE_STATUS_WARN);
	free(n);
}

/* A state that is real at once (`for` 0) raises the node at once, while a
 * pending offset beside it does not lower it. */
static void test_live_status_mix(void **state)
{
	(void)state;
	thresholds th = live();
	node *n = new_node();
	chrony_at(n, T0, 20e-3); /* crit offset: pending */
	n->obs.chrony.tracking.leap = CHRONY_LEAP_INSERT; /* warn at once */
	health_apply(n, &th);
	const finding *leap = find(n, "chrony.leap");
	const finding *offset = find(n, "chrony.offset");
	assert_non_null(leap);
	assert_non_null(offset);
	assert_false(leap->pending);
	assert_true(offset->pending);
	assert_int_equal(n->status, NODE_STATUS_CRIT);
	assert_int_equal(health_live_status(n), NODE_STATUS_WARN);

	/* unknown stays unknown */
	n->reachable = false;
	n->status = NODE_STATUS_UNKNOWN;
	assert_int_equal(health_live_status(n), NODE_STATUS_UNKNOWN);
	free(n);
}

static void test_drop_pending(void **state)
{
	(void)state;
	thresholds th = live();
	assert_int_equal(finding_wait_set(&th, finding_code_lookup("chrony.offset"), 60), 0);
	node *n = new_node();
	chrony_at(n, T0, 2e-3);
	health_apply(n, &th);
	chrony_at(n, T0 + 30, 2e-3);
	health_apply(n, &th);
	assert_int_equal(n->status, NODE_STATUS_WARN);
	health_drop_pending(n); /* lasted 30 s of the 60 it needs */
	assert_null(find(n, "chrony.offset"));
	assert_int_equal(n->status, NODE_STATUS_OK);
	assert_int_equal(n->n_own_findings, n->findings.count);
	free(n);
}

/* The cluster pass keeps its own findings' since: cluster.offset_spread
 * seen by two passes of one poll, then by the next poll. */
static void test_cluster_findings_since(void **state)
{
	(void)state;
	node *nodes = malloc(3 * sizeof *nodes);
	assert_non_null(nodes);
	node_settings settings[3];
	double offsets[3] = {0, 1e-4, 4e-3};
	for (int i = 0; i < 3; i++) {
		node_init(&nodes[i], i == 0 ? "a" : i == 1 ? "b" : "c");
		node_settings_init(&settings[i]);
		settings[i].th.findings_wait = true;
		chrony_at(&nodes[i], T0, offsets[i]);
		health_apply(&nodes[i], &settings[i].th);
	}
	consistency_evaluate(nodes, 3, settings, NULL);
	const finding *f = find(&nodes[2], "cluster.offset_spread");
	assert_non_null(f);
	assert_true(f->pending);
	assert_true(f->since == T0);
	for (int i = 0; i < 3; i++) {
		chrony_at(&nodes[i], T0 + 31, offsets[i]);
		health_apply(&nodes[i], &settings[i].th);
	}
	f = find(&nodes[2], "cluster.offset_spread"); /* kept until the pass runs */
	assert_non_null(f);
	consistency_evaluate(nodes, 3, settings, NULL);
	f = find(&nodes[2], "cluster.offset_spread");
	assert_non_null(f);
	assert_false(f->pending);
	assert_true(f->since == T0);

	cluster_summary s;
	cluster_summarise(nodes, 3, &s);
	assert_int_equal(s.shown[NODE_STATUS_WARN] + s.shown[NODE_STATUS_CRIT], s.warn + s.crit);
	free(nodes);
}

static void test_header_counts_pending_apart(void **state)
{
	(void)state;
	thresholds th = live();
	node *nodes = malloc(2 * sizeof *nodes);
	assert_non_null(nodes);
	node_init(&nodes[0], "a");
	node_init(&nodes[1], "b");
	chrony_at(&nodes[0], T0, 2e-3); /* pending offset */
	chrony_at(&nodes[1], T0, 1e-6);
	health_apply(&nodes[0], &th);
	health_apply(&nodes[1], &th);
	cluster_summary s;
	cluster_summarise(nodes, 2, &s);
	assert_int_equal(s.warn, 1); /* judged now, as JSON and Prometheus count */
	assert_int_equal(s.ok, 1);
	assert_int_equal(s.shown[NODE_STATUS_PENDING], 1);
	assert_int_equal(s.shown[NODE_STATUS_WARN], 0);
	assert_int_equal(s.shown[NODE_STATUS_OK], 1);
	free(nodes);
}

static void test_config_for(void **state)
{
	(void)state;
	const char *text = "{\"defaults\": {\"for\": {\"chrony.offset\": 60, \"ptp.offset\": 0}},\n"
			   " \"groups\": [{\"name\": \"gpu\", \"hosts\": \"gpu[1-2]\",\n"
			   "              \"for\": {\"chrony.offset\": 120, \"time.no_service\": 15}}]}";
	conffile *cf = NULL;
	char err[256];
	assert_int_equal(conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err), 0);
	node_settings ns;
	conffile_resolve(cf, "gpu1", &ns);
	assert_true(finding_wait_for(&ns.th, "chrony.offset") == 120.0);
	assert_true(finding_wait_for(&ns.th, "ptp.offset") == 0.0);
	assert_true(finding_wait_for(&ns.th, "time.no_service") == 15.0);
	assert_true(finding_wait_for(&ns.th, "ptp.path_delay") == 30.0);
	conffile_resolve(cf, "login1", &ns);
	assert_true(finding_wait_for(&ns.th, "chrony.offset") == 60.0);
	assert_true(finding_wait_for(&ns.th, "time.no_service") == 0.0);
	conffile_free(cf);

	const char *bad[][2] = {
		{"{\"defaults\": {\"for\": {\"chrony.ofset\": 60}}}", "chrony.ofset"},
		{"{\"defaults\": {\"for\": {\"chrony.offset\": -1}}}", "between 0 and"},
		{"{\"defaults\": {\"for\": {\"chrony.offset\": \"1m\"}}}", "number of seconds"},
		{"{\"defaults\": {\"for\": {\"chrony.offset\": 1e9}}}", "between 0 and"},
		{"{\"defaults\": {\"for\": [1]}}", "for"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cf = NULL;
		err[0] = '\0';
		assert_int_equal(conffile_parse(bad[i][0], strlen(bad[i][0]), "t.json", &cf, err, sizeof err), -1);
		assert_null(cf);
		assert_non_null(strstr(err, "t.json:1:"));
		if (!strstr(err, bad[i][1])) {
			fail_msg("error '%s' lacks '%s'", err, bad[i][1]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_override),
		cmocka_unit_test(test_pending_until_lasted),
		cmocka_unit_test(test_no_wait_outside_live),
		cmocka_unit_test(test_live_status_mix),
		cmocka_unit_test(test_drop_pending),
		cmocka_unit_test(test_cluster_findings_since),
		cmocka_unit_test(test_header_counts_pending_apart),
		cmocka_unit_test(test_config_for),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
