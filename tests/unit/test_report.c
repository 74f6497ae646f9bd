/* test_report.c - the three script-facing sinks over hand-built nodes:
 * cluster_summarise (counts, offset spread, grandmaster set), the JSON
 * snapshot (every key, types, nulls for unknowns, parsed back with jansson)
 * and the --check lines, summary and exit codes. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cluster.h"
#include "node.h"
#include "report_check.h"
#include "report_json.h"
#include "ssh_detail.h"
#include "report_text.h"

/* cmocka 1.1.5 compares floats only as float */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* ------------------------------------------------------------- builders */

/* Nodes are large (their history), so tests keep them on the heap. */
static node *make_nodes(size_t n, const char *const *hosts)
{
	node *nodes = calloc(n ? n : 1, sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "node%zu", i + 1);
		node_init(&nodes[i], hosts ? hosts[i] : name);
	}
	return nodes;
}

/* A node that answered its last poll with a synchronised chronyd. */
static void set_chrony(node *nd, double offset_s)
{
	nd->reachable = true;
	nd->has_observation = true;
	nd->status = NODE_STATUS_OK;
	nd->obs.taken_at = 1796207937.25;
	nd->obs.rtt_s = 0.0021;

	chrony_obs *c = &nd->obs.chrony;
	chrony_obs_init(c);
	c->state = OBS_OK;
	c->tracking.reference_id = 0xC0A80101;
	c->tracking.has_reference_id = true;
	snprintf(c->tracking.reference_name, sizeof c->tracking.reference_name, "ntp1.example.org");
	c->tracking.stratum = 3;
	c->tracking.system_time_offset_s = offset_s;
	c->tracking.last_offset_s = 1.2345678901234567e-05;
	c->tracking.rms_offset_s = 2e-5;
	c->tracking.frequency_ppm = -12.5;
	c->tracking.residual_frequency_ppm = 0.001;
	c->tracking.skew_ppm = 0.02;
	c->tracking.root_delay_s = 0.0004;
	c->tracking.root_dispersion_s = 0.0002;
	c->tracking.update_interval_s = 64.2;
	c->tracking.leap = CHRONY_LEAP_NORMAL;

	c->n_sources = c->n_sources_total = 1;
	chrony_source *s = &c->sources[0];
	s->mode = CHRONY_MODE_SERVER;
	s->state = CHRONY_STATE_SELECTED;
	snprintf(s->name, sizeof s->name, "192.168.1.1");
	s->stratum = 2;
	s->poll = 6;
	s->reach = 0377;
	s->last_rx_s = 33;
	s->adjusted_offset_s = -1e-6;
	s->measured_offset_s = -1.5e-6;
	s->error_s = 3e-5;

	c->n_sourcestats = 1;
	chrony_sourcestat *st = &c->sourcestats[0];
	snprintf(st->name, sizeof st->name, "192.168.1.1");
	st->samples = 10;
	st->runs = 6;
	st->span_s = 580;
	st->frequency_ppm = 0.01;
	st->skew_ppm = 0.2;
	st->offset_s = -2e-6;
	st->std_dev_s = 1e-5;
}

static void set_ptp(node *nd, ptp_port_state state, int64_t offset_ns, const char *gm)
{
	nd->reachable = true;
	nd->has_observation = true;
	ptp_obs *p = &nd->obs.ptp;
	ptp_obs_init(p);
	p->state = OBS_OK;
	snprintf(p->clock_identity, sizeof p->clock_identity, "1aed80.fffe.1a0b51");
	p->domain_number = 0;
	p->gm_present = 1;
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm);
	snprintf(p->gm_identity, sizeof p->gm_identity, "%s", gm);
	p->steps_removed = 1;
	p->offset_from_master_ns = offset_ns;
	p->mean_path_delay_ns = 8737;
	p->current_utc_offset = 37;
	p->n_ports = 1;
	snprintf(p->ports[0].port_identity, sizeof p->ports[0].port_identity, "1aed80.fffe.1a0b51-1");
	p->ports[0].port_number = 1;
	p->ports[0].state = state;
	p->ports[0].peer_mean_path_delay_ns = 0;
	p->ports[0].log_sync_interval = 0;
	p->ports[0].delay_mechanism = 1;
}

static void add_finding(node *nd, severity sev, const char *code, const char *msg, const char *hint)
{
	assert_true(nd->findings.count < MAX_FINDINGS);
	finding *f = &nd->findings.items[nd->findings.count++];
	f->sev = sev;
	f->code = code;
	snprintf(f->message, sizeof f->message, "%s", msg);
	snprintf(f->hint, sizeof f->hint, "%s", hint);
	if (sev == SEVERITY_CRIT || (sev == SEVERITY_WARN && nd->status != NODE_STATUS_CRIT)) {
		nd->status = sev == SEVERITY_CRIT ? NODE_STATUS_CRIT : NODE_STATUS_WARN;
	}
}

/* ------------------------------------------------------------- cluster */

static void test_cluster_counts(void **state)
{
	(void)state;
	node *nodes = make_nodes(6, NULL);
	nodes[0].status = NODE_STATUS_OK;
	nodes[1].status = NODE_STATUS_OK;
	nodes[2].status = NODE_STATUS_WARN;
	nodes[3].status = NODE_STATUS_CRIT;
	nodes[4].status = NODE_STATUS_UNKNOWN;
	nodes[5].status = (node_status)42; /* corrupt: counted, as unknown */

	cluster_summary s;
	cluster_summarise(nodes, 6, &s);
	assert_int_equal(s.nodes, 6);
	assert_int_equal(s.ok, 2);
	assert_int_equal(s.warn, 1);
	assert_int_equal(s.crit, 1);
	assert_int_equal(s.unknown, 2);
	/* nobody answered: no offsets, no grandmasters */
	assert_int_equal(s.chrony_nodes, 0);
	assert_true(isnan(s.max_abs_offset_s));
	assert_true(isnan(s.offset_spread_s));
	assert_int_equal(s.ptp_nodes, 0);
	assert_true(isnan(s.ptp_max_abs_offset_ns));
	assert_true(isnan(s.ptp_offset_spread_ns));
	assert_int_equal(s.n_gms, 0);
	assert_int_equal(s.gms_more, 0);

	cluster_summarise(NULL, 0, &s);
	assert_int_equal(s.nodes, 0);
	assert_true(isnan(s.max_abs_offset_s));
	free(nodes);
}

static void test_cluster_chrony_spread(void **state)
{
	(void)state;
	node *nodes = make_nodes(9, NULL);
	set_chrony(&nodes[0], 0.001);
	set_chrony(&nodes[1], -0.002);
	set_chrony(&nodes[2], 0.0005);
	/* not counted: chrony failed, node unreachable (stale data), offset
	 * unknown, never polled, unsynchronised (placeholder offset), serving
	 * its own clock (`local`) */
	set_chrony(&nodes[3], 5.0);
	nodes[3].obs.chrony.state = OBS_DAEMON_UNREACHABLE;
	set_chrony(&nodes[4], -7.0);
	nodes[4].reachable = false;
	set_chrony(&nodes[5], NAN);
	set_chrony(&nodes[7], 0.5);
	nodes[7].obs.chrony.tracking.leap = CHRONY_LEAP_UNSYNC;
	set_chrony(&nodes[8], -0.5);
	nodes[8].obs.chrony.tracking.reference_id = 0x7F7F0101;

	cluster_summary s;
	cluster_summarise(nodes, 9, &s);
	assert_int_equal(s.chrony_nodes, 3);
	assert_near(s.max_abs_offset_s, 0.002, 1e-15);
	assert_near(s.offset_spread_s, 0.003, 1e-15);

	/* one node: no spread, but an offset */
	cluster_summarise(nodes, 1, &s);
	assert_int_equal(s.chrony_nodes, 1);
	assert_near(s.max_abs_offset_s, 0.001, 0);
	assert_near(s.offset_spread_s, 0.0, 0);

	/* all negative: max |offset| is the most negative one */
	set_chrony(&nodes[0], -0.004);
	cluster_summarise(nodes, 2, &s);
	assert_near(s.max_abs_offset_s, 0.004, 0);
	assert_near(s.offset_spread_s, 0.002, 1e-15);
	free(nodes);
}

static void test_cluster_ptp_spread(void **state)
{
	(void)state;
	node *nodes = make_nodes(6, NULL);
	set_ptp(&nodes[0], PTP_PORT_SLAVE, 100, "96bec0.fffe.dfca68");
	set_ptp(&nodes[1], PTP_PORT_SLAVE, -50, "96bec0.fffe.dfca68");
	set_ptp(&nodes[2], PTP_PORT_SLAVE, 20, "96bec0.fffe.dfca68");
	/* not counted: the master itself, an uncalibrated port, an unknown
	 * offset, a slave we lost */
	set_ptp(&nodes[3], PTP_PORT_MASTER, 0, "96bec0.fffe.dfca68");
	set_ptp(&nodes[4], PTP_PORT_UNCALIBRATED, 900000, "96bec0.fffe.dfca68");
	set_ptp(&nodes[5], PTP_PORT_SLAVE, PTP_NS_UNKNOWN, "96bec0.fffe.dfca68");

	cluster_summary s;
	cluster_summarise(nodes, 6, &s);
	assert_int_equal(s.ptp_nodes, 3);
	assert_near(s.ptp_max_abs_offset_ns, 100, 0);
	assert_near(s.ptp_offset_spread_ns, 150, 0);
	/* everyone with a PTP answer names the same grandmaster */
	assert_int_equal(s.n_gms, 1);
	assert_string_equal(s.gms[0].identity, "96bec0.fffe.dfca68");
	assert_int_equal(s.gms[0].nodes, 6);
	assert_int_equal(s.gms_more, 0);

	nodes[0].reachable = false;
	cluster_summarise(nodes, 6, &s);
	assert_int_equal(s.ptp_nodes, 2);
	assert_near(s.ptp_offset_spread_ns, 70, 0);
	assert_int_equal(s.gms[0].nodes, 5);

	/* the slave port need not be the first one */
	ptp_obs *p = &nodes[3].obs.ptp;
	p->n_ports = 2;
	p->ports[1] = p->ports[0];
	p->ports[1].state = PTP_PORT_SLAVE;
	p->offset_from_master_ns = -400;
	cluster_summarise(nodes, 6, &s);
	assert_int_equal(s.ptp_nodes, 3);
	assert_near(s.ptp_max_abs_offset_ns, 400, 0);
	free(nodes);
}

static void test_cluster_grandmasters(void **state)
{
	(void)state;
	/* 12 distinct grandmasters; gm k is followed by counts[k] nodes */
	static const int counts[12] = {1, 5, 2, 2, 9, 1, 3, 1, 2, 4, 1, 1};
	size_t total = 0;
	for (int k = 0; k < 12; k++) {
		total += (size_t)counts[k];
	}
	node *nodes = make_nodes(total + 2, NULL);
	size_t i = 0;
	/* interleave so equal identities are not adjacent in node order */
	for (int round = 0; round < 9; round++) {
		for (int k = 0; k < 12; k++) {
			if (round < counts[k]) {
				char gm[PTP_ID_LEN];
				snprintf(gm, sizeof gm, "00000%c.fffe.000000", 'a' + k);
				set_ptp(&nodes[i++], PTP_PORT_SLAVE, 10, gm);
			}
		}
	}
	assert_int_equal(i, total);
	/* TIME_STATUS_NP only: gm_identity is the fallback */
	set_ptp(&nodes[i], PTP_PORT_SLAVE, 10, "");
	snprintf(nodes[i].obs.ptp.gm_identity, PTP_ID_LEN, "00000e.fffe.000000");
	i++;
	/* pmc failed: its stale identity does not count */
	set_ptp(&nodes[i], PTP_PORT_SLAVE, 10, "00000z.fffe.000000");
	nodes[i].obs.ptp.state = OBS_GARBAGE;

	cluster_summary s;
	cluster_summarise(nodes, total + 2, &s);
	assert_int_equal(s.n_gms, CLUSTER_MAX_GMS);
	assert_int_equal(s.gms_more, 12 - CLUSTER_MAX_GMS);
	/* most followed first, ties by identity */
	assert_string_equal(s.gms[0].identity, "00000e.fffe.000000");
	assert_int_equal(s.gms[0].nodes, 10);
	assert_string_equal(s.gms[1].identity, "00000b.fffe.000000");
	assert_int_equal(s.gms[1].nodes, 5);
	assert_string_equal(s.gms[2].identity, "00000j.fffe.000000");
	assert_int_equal(s.gms[2].nodes, 4);
	assert_string_equal(s.gms[3].identity, "00000g.fffe.000000");
	assert_int_equal(s.gms[3].nodes, 3);
	assert_string_equal(s.gms[4].identity, "00000c.fffe.000000");
	assert_string_equal(s.gms[5].identity, "00000d.fffe.000000");
	assert_string_equal(s.gms[6].identity, "00000i.fffe.000000");
	assert_int_equal(s.gms[6].nodes, 2);
	assert_string_equal(s.gms[7].identity, "00000a.fffe.000000");
	assert_int_equal(s.gms[7].nodes, 1);
	size_t listed = 0;
	for (size_t k = 0; k < s.n_gms; k++) {
		listed += s.gms[k].nodes;
	}
	assert_int_equal(listed, 10 + 5 + 4 + 3 + 2 + 2 + 2 + 1);
	free(nodes);
}

/* Each grandmaster carries its class as its followers report it; should
 * they disagree mid-sweep, the least good (highest) one; unknown when none
 * knows it. */
static void test_cluster_grandmaster_class(void **state)
{
	(void)state;
	node *nodes = make_nodes(6, NULL);
	set_ptp(&nodes[0], PTP_PORT_SLAVE, 10, "00000a.fffe.000000");
	nodes[0].obs.ptp.gm_clock_class = 6;
	set_ptp(&nodes[1], PTP_PORT_SLAVE, 10, "00000a.fffe.000000");
	nodes[1].obs.ptp.gm_clock_class = 7; /* the grandmaster went into holdover */
	set_ptp(&nodes[2], PTP_PORT_SLAVE, 10, "00000a.fffe.000000"); /* class unknown */
	set_ptp(&nodes[3], PTP_PORT_SLAVE, 10, "00000b.fffe.000000"); /* class unknown */
	set_ptp(&nodes[4], PTP_PORT_SLAVE, 10, "00000c.fffe.000000");
	nodes[4].obs.ptp.gm_clock_class = 248;
	set_ptp(&nodes[5], PTP_PORT_LISTENING, 10, "00000d.fffe.000000"); /* names itself: not counted */
	nodes[5].obs.ptp.gm_clock_class = 255;

	cluster_summary s;
	cluster_summarise(nodes, 6, &s);
	assert_int_equal(s.n_gms, 3);
	assert_string_equal(s.gms[0].identity, "00000a.fffe.000000");
	assert_int_equal(s.gms[0].clock_class, 7);
	assert_string_equal(s.gms[1].identity, "00000b.fffe.000000");
	assert_int_equal(s.gms[1].clock_class, INT_UNKNOWN);
	assert_string_equal(s.gms[2].identity, "00000c.fffe.000000");
	assert_int_equal(s.gms[2].clock_class, 248);
	free(nodes);
}

/* ---------------------------------------------------------------- JSON */

/* Serialise, check no non-finite number slipped through, and parse back. */
static json_t *round_trip(const node *nodes, size_t n, double generated_at)
{
	json_t *built = report_json_build(nodes, n, generated_at);
	assert_non_null(built);
	char *text = json_dumps(built, JSON_INDENT(1));
	assert_non_null(text);
	assert_null(strstr(text, "nan"));
	assert_null(strstr(text, "NaN"));
	assert_null(strstr(text, "inf"));
	assert_null(strchr(text, 0x1B));
	json_error_t err;
	json_t *parsed = json_loads(text, JSON_REJECT_DUPLICATES, &err);
	if (!parsed) {
		fail_msg("report does not parse: %s at line %d", err.text, err.line);
	}
	free(text);
	json_decref(built);
	return parsed;
}

static json_t *get(json_t *obj, const char *key)
{
	assert_true(json_is_object(obj));
	json_t *v = json_object_get(obj, key);
	if (!v) {
		fail_msg("key \"%s\" missing", key);
	}
	return v;
}

static void want_keys(json_t *obj, const char *const *keys)
{
	size_t n = 0;
	for (; keys[n]; n++) {
		get(obj, keys[n]);
	}
	if (json_object_size(obj) != n) {
		fail_msg("object has %zu keys, expected %zu", json_object_size(obj), n);
	}
}

/* The keys in exactly this order (jansson keeps insertion order). */
static void want_key_order(json_t *obj, const char *const *keys)
{
	want_keys(obj, keys);
	const char *k;
	json_t *v;
	size_t i = 0;
	json_object_foreach(obj, k, v) {
		(void)v;
		if (strcmp(k, keys[i]) != 0) {
			fail_msg("key %zu is \"%s\", expected \"%s\"", i, k, keys[i]);
		}
		i++;
	}
}

static void want_str(json_t *obj, const char *key, const char *want)
{
	json_t *v = get(obj, key);
	if (!json_is_string(v)) {
		fail_msg("\"%s\" is not a string", key);
	}
	assert_string_equal(json_string_value(v), want);
}

static void want_null(json_t *obj, const char *key)
{
	if (!json_is_null(get(obj, key))) {
		fail_msg("\"%s\" should be null", key);
	}
}

static void want_int(json_t *obj, const char *key, json_int_t want)
{
	json_t *v = get(obj, key);
	if (!json_is_integer(v)) {
		fail_msg("\"%s\" is not an integer", key);
	}
	assert_int_equal(json_integer_value(v), want);
}

static void want_real(json_t *obj, const char *key, double want)
{
	json_t *v = get(obj, key);
	if (!json_is_real(v)) {
		fail_msg("\"%s\" is not a real", key);
	}
	/* full precision: the exact double comes back */
	assert_true(json_real_value(v) == want);
}

/* In this order (test_json_healthy_node checks it): the collectors' objects
 * follow the registry, and ntpq runs after daemons (its shell function
 * reads $synctop_ps), so `ntp` comes after `daemons`. */
static const char *const node_keys[] = {
	"host", "status", "reachable", "error", "observed_at", "rtt_s", "chrony", "chrony_selection", "chrony_ntpdata", "ptp",
	"daemons", "ntp", "phc", "nic", "nics", "timesyncd", "kernel_clock", "clock_check",
	"frequency_drift_ppm_per_day", "frequency_drift_ppm_per_hour", "findings", NULL,
};
static const char *const clock_keys[] = {
	"error", "offset_s", "uncertainty_s", "exchanges", "measured_at", NULL,
};
static const char *const chrony_keys[] = {
	"error", "leap_status", "stratum", "reference_id", "reference_name", "system_time_offset_s",
	"last_offset_s", "rms_offset_s", "frequency_ppm", "residual_frequency_ppm", "skew_ppm", "root_delay_s",
	"root_dispersion_s", "update_interval_s", "sources_total", "sources", "sourcestats", NULL,
};
static const char *const source_keys[] = {
	"mode", "state", "name", "stratum", "poll", "reach", "last_rx_s", "adjusted_offset_s",
	"measured_offset_s", "error_s", NULL,
};
static const char *const sourcestat_keys[] = {
	"name", "samples", "runs", "span_s", "frequency_ppm", "skew_ppm", "offset_s", "std_dev_s", NULL,
};
static const char *const ptp_keys[] = {
	"error", "port_state", "offset_from_master_ns", "mean_path_delay_ns", "gm_identity", "gm_present",
	"steps_removed", "clock_identity", "domain_number", "current_utc_offset", "ports", "last_sync_age_s",
	"phc_sys_offset_ns", "gm_clock_class", "gm_clock_accuracy", "gm_offset_scaled_log_variance", "time_source", "ptp_timescale",
	"time_traceable", "frequency_traceable", NULL,
};
static const char *const port_keys[] = {
	"port_identity", "port_number", "state", "peer_mean_path_delay_ns", "log_sync_interval",
	"delay_mechanism", "interface", "timestamping", "log_announce_interval", "announce_receipt_timeout",
	"rx_sync", "rx_follow_up", "rx_delay_resp", "rx_announce", "tx_sync", "tx_delay_req", "tx_announce",
	"announce_timeouts", "sync_timeouts", "rx_sync_unchanged_s", NULL,
};
static const char *const nic_keys[] = {
	"error", "interface", "hw_transmit", "hw_receive", "hw_raw_clock", "phc_index", NULL,
};
static const char *const finding_keys[] = {"severity", "code", "message", "hint", "pending", "since", NULL};
static const char *const daemons_keys[] = {
	"error", "running", "chronyd", "ntpd", "systemd-timesyncd", "ptp4l", "phc2sys", "list", "list_more", NULL,
};
static const char *const place_keys[] = {"pid", "daemon", "cgroup", "container", "runtime", "can_set_time", NULL};
static const char *const daemon_keys[] = {"processes", "pid", "age_s", "restarted_at", NULL};

static void test_json_healthy_node(void **state)
{
	(void)state;
	node *nodes = make_nodes(1, NULL);
	node *nd = &nodes[0];
	set_chrony(nd, -0.00012345678901234567);
	set_ptp(nd, PTP_PORT_SLAVE, -6600, "96bec0.fffe.dfca68");
	nd->obs.ptp.gm_clock_class = 6;
	nd->obs.ptp.gm_clock_accuracy = 0x21;
	nd->obs.ptp.gm_offset_scaled_log_variance = 0x4e5d;
	nd->obs.ptp.time_source = 0x20;
	nd->obs.ptp.ptp_timescale = 1;
	nd->obs.ptp.time_traceable = 1;
	nd->obs.ptp.frequency_traceable = 0;
	nd->obs.daemons.state = OBS_OK;
	nd->obs.daemons.running = DAEMON_CHRONYD | DAEMON_PTP4L;
	daemon_proc *ptp4l = &nd->obs.daemons.procs[daemon_index(DAEMON_PTP4L)];
	ptp4l->count = 1;
	ptp4l->pid = 9123;
	ptp4l->age_s = 42;
	ptp4l->restarted_at = 1796207937.0;
	nd->obs.daemons.procs[daemon_index(DAEMON_CHRONYD)].count = 1; /* ps without pid/etimes */
	daemon_place *pl = &nd->obs.daemons.places[0];
	pl->pid = 9123;
	pl->bit = DAEMON_PTP4L;
	pl->cgroup_read = true;
	snprintf(pl->cgroup, sizeof pl->cgroup, "/kubepods.slice/kubepods-pod1.slice/crio-ab12.scope");
	pl->container = CONTAINER_KUBEPODS;
	pl->runtime = CONTAINER_CRIO;
	pl->can_set = CAN_SET_TIME_YES;
	nd->obs.daemons.places[1].pid = 9200; /* its /proc files were gone */
	nd->obs.daemons.places[1].bit = DAEMON_PTP4L;
	nd->obs.daemons.n_places = 2;
	nd->obs.daemons.n_places_total = 3;
	nic_obs *nic = &nd->obs.nic;
	nic->state = OBS_OK;
	snprintf(nic->interface, sizeof nic->interface, "eth0");
	nic->caps = NIC_CAP_HW_TX | NIC_CAP_HW_RX | NIC_CAP_SW_RX;
	nic->phc_index = 0;

	json_t *root = round_trip(nodes, 1, 1796207937.1234);
	static const char *const root_keys[] = {"version", "generated_at", "summary", "nodes", NULL};
	want_keys(root, root_keys);
	want_int(root, "version", 1);
	want_str(root, "generated_at", "2026-12-02T10:38:57.123Z");

	json_t *sum = get(root, "summary");
	static const char *const summary_keys[] = {
		"nodes", "ok", "warn", "crit", "unknown", "max_abs_offset_s", "offset_spread_s",
		"ptp_max_abs_offset_ns", "ptp_offset_spread_ns", "grandmasters", "grandmasters_more", NULL,
	};
	want_keys(sum, summary_keys);
	want_int(sum, "nodes", 1);
	want_int(sum, "ok", 1);
	want_int(sum, "warn", 0);
	want_real(sum, "max_abs_offset_s", 0.00012345678901234567);
	want_real(sum, "offset_spread_s", 0.0);
	want_int(sum, "ptp_max_abs_offset_ns", 6600);
	want_int(sum, "ptp_offset_spread_ns", 0);
	json_t *gms = get(sum, "grandmasters");
	assert_int_equal(json_array_size(gms), 1);
	want_str(json_array_get(gms, 0), "identity", "96bec0.fffe.dfca68");
	want_int(json_array_get(gms, 0), "nodes", 1);
	want_int(json_array_get(gms, 0), "clock_class", 6);
	want_int(sum, "grandmasters_more", 0);

	json_t *arr = get(root, "nodes");
	assert_int_equal(json_array_size(arr), 1);
	json_t *jn = json_array_get(arr, 0);
	want_key_order(jn, node_keys);
	want_str(jn, "host", "node1");
	want_str(jn, "status", "ok");
	assert_true(json_is_true(get(jn, "reachable")));
	want_null(jn, "error");
	want_str(jn, "observed_at", "2026-12-02T10:38:57.250Z");
	want_real(jn, "rtt_s", 0.0021);

	json_t *c = get(jn, "chrony");
	want_keys(c, chrony_keys);
	want_null(c, "error");
	want_str(c, "leap_status", "Normal");
	want_int(c, "stratum", 3);
	want_str(c, "reference_id", "C0A80101");
	want_str(c, "reference_name", "ntp1.example.org");
	want_real(c, "system_time_offset_s", -0.00012345678901234567);
	want_real(c, "last_offset_s", 1.2345678901234567e-05);
	want_real(c, "frequency_ppm", -12.5);
	want_real(c, "update_interval_s", 64.2);
	want_int(c, "sources_total", 1);
	json_t *src = json_array_get(get(c, "sources"), 0);
	want_keys(src, source_keys);
	want_str(src, "mode", "server");
	want_str(src, "state", "selected");
	want_str(src, "name", "192.168.1.1");
	want_int(src, "reach", 255);
	want_int(src, "last_rx_s", 33);
	want_real(src, "measured_offset_s", -1.5e-6);
	json_t *st = json_array_get(get(c, "sourcestats"), 0);
	want_keys(st, sourcestat_keys);
	want_int(st, "span_s", 580);
	want_real(st, "std_dev_s", 1e-5);

	json_t *p = get(jn, "ptp");
	want_keys(p, ptp_keys);
	want_null(p, "error");
	want_str(p, "port_state", "SLAVE");
	want_int(p, "offset_from_master_ns", -6600);
	want_int(p, "mean_path_delay_ns", 8737);
	want_str(p, "gm_identity", "96bec0.fffe.dfca68");
	assert_true(json_is_true(get(p, "gm_present")));
	want_int(p, "steps_removed", 1);
	want_str(p, "clock_identity", "1aed80.fffe.1a0b51");
	want_int(p, "domain_number", 0);
	want_int(p, "current_utc_offset", 37);
	want_null(p, "phc_sys_offset_ns"); /* phc_ctl not run */
	want_null(jn, "phc");
	want_int(p, "gm_clock_class", 6);
	want_int(p, "gm_clock_accuracy", 0x21);
	want_int(p, "gm_offset_scaled_log_variance", 0x4e5d);
	want_int(p, "time_source", 0x20);
	assert_true(json_is_true(get(p, "ptp_timescale")));
	assert_true(json_is_true(get(p, "time_traceable")));
	assert_true(json_is_false(get(p, "frequency_traceable")));
	json_t *port = json_array_get(get(p, "ports"), 0);
	want_keys(port, port_keys);
	want_str(port, "port_identity", "1aed80.fffe.1a0b51-1");
	want_str(port, "state", "SLAVE");
	want_int(port, "delay_mechanism", 1);
	want_null(port, "interface");

	json_t *jnic = get(jn, "nic");
	want_keys(jnic, nic_keys);
	want_null(jnic, "error");
	want_str(jnic, "interface", "eth0");
	assert_true(json_is_true(get(jnic, "hw_transmit")));
	assert_true(json_is_true(get(jnic, "hw_receive")));
	assert_true(json_is_false(get(jnic, "hw_raw_clock")));
	want_int(jnic, "phc_index", 0);
	/* daemons: pid and age where ps gave them, the restart found */
	json_t *jd = get(jn, "daemons");
	want_keys(jd, daemons_keys);
	want_null(jd, "error");
	assert_int_equal(json_array_size(get(jd, "running")), 2);
	assert_string_equal(json_string_value(json_array_get(get(jd, "running"), 0)), "chronyd");
	assert_string_equal(json_string_value(json_array_get(get(jd, "running"), 1)), "ptp4l");
	json_t *jp = get(jd, "ptp4l");
	want_keys(jp, daemon_keys);
	want_int(jp, "pid", 9123);
	want_int(jp, "age_s", 42);
	want_int(jp, "processes", 1);
	want_str(jp, "restarted_at", "2026-12-02T10:38:57.000Z");
	want_keys(get(jd, "chronyd"), daemon_keys);
	want_null(get(jd, "chronyd"), "pid");
	want_null(get(jd, "chronyd"), "age_s");
	want_null(get(jd, "chronyd"), "restarted_at");
	/* every process with a PID, where it runs, whether it may set the clock */
	assert_int_equal(json_array_size(get(jd, "list")), 2);
	json_t *jl = json_array_get(get(jd, "list"), 0);
	want_keys(jl, place_keys);
	want_int(jl, "pid", 9123);
	want_str(jl, "daemon", "ptp4l");
	want_str(jl, "cgroup", "/kubepods.slice/kubepods-pod1.slice/crio-ab12.scope");
	want_str(jl, "container", "kubepods");
	want_str(jl, "runtime", "cri-o");
	assert_true(json_is_true(get(jl, "can_set_time")));
	jl = json_array_get(get(jd, "list"), 1);
	want_null(jl, "cgroup");
	want_null(jl, "container");
	want_null(jl, "runtime");
	want_null(jl, "can_set_time");
	want_int(jd, "list_more", 1);
	want_null(jd, "phc2sys");
	want_null(jd, "ntpd");
	/* one interface checked: nics holds it alone, in nic's shape */
	json_t *jnics = get(jn, "nics");
	assert_int_equal(json_array_size(jnics), 1);
	want_keys(json_array_get(jnics, 0), nic_keys);
	want_str(json_array_get(jnics, 0), "interface", "eth0");

	/* not measured (yet): null, not zeros */
	assert_true(json_is_null(get(jn, "clock_check")));
	assert_true(json_is_null(get(jn, "frequency_drift_ppm_per_day"))); /* no --state-dir */
	assert_true(json_is_null(get(jn, "frequency_drift_ppm_per_hour"))); /* not from Prometheus */
	assert_int_equal(json_array_size(get(jn, "findings")), 0);
	json_decref(root);
	free(nodes);
}

static void test_json_clock_check(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.0001);
	set_chrony(&nodes[1], 0.0001);
	clock_check_obs *cc = &nodes[0].obs.clock;
	cc->state = OBS_OK;
	cc->exchanges = 4;
	cc->offset_s = 2.0000123;
	cc->uncertainty_s = 0.00025;
	cc->measured_at = 1796208285.5;
	cc = &nodes[1].obs.clock;
	cc->state = OBS_COMMAND_FAILED;
	snprintf(cc->error, sizeof cc->error, "date +%%s.%%N failed with status 127");

	json_t *root = report_json_build(nodes, 2, 1796208290.0);
	assert_non_null(root);
	json_t *jc = get(json_array_get(get(root, "nodes"), 0), "clock_check");
	want_keys(jc, clock_keys);
	want_null(jc, "error");
	want_real(jc, "offset_s", 2.0000123);
	want_real(jc, "uncertainty_s", 0.00025);
	want_int(jc, "exchanges", 4);
	want_str(jc, "measured_at", "2026-12-02T10:44:45.500Z");
	jc = get(json_array_get(get(root, "nodes"), 1), "clock_check");
	want_keys(jc, clock_keys);
	want_str(jc, "error", "date +%s.%N failed with status 127");
	want_null(jc, "offset_s");
	want_null(jc, "uncertainty_s");
	want_null(jc, "measured_at");
	json_decref(root);
	free(nodes);
}

/* A boundary clock: nic is the SLAVE port's interface (whatever the order
 * asked), nics every interface checked, failed ones with their error. */
static void test_json_nics_boundary_clock(void **state)
{
	(void)state;
	node *nodes = make_nodes(1, NULL);
	node *nd = &nodes[0];
	set_ptp(nd, PTP_PORT_MASTER, -6600, "96bec0.fffe.dfca68");
	ptp_obs *p = &nd->obs.ptp;
	p->n_ports = 3;
	p->ports[1] = p->ports[0];
	p->ports[2] = p->ports[0];
	p->ports[1].state = PTP_PORT_SLAVE;
	snprintf(p->ports[0].interface, sizeof p->ports[0].interface, "swp2");
	snprintf(p->ports[1].interface, sizeof p->ports[1].interface, "swp1");
	snprintf(p->ports[2].interface, sizeof p->ports[2].interface, "swp3");
	observation *o = &nd->obs;
	static const char *const names[] = {"swp2", "swp1", "swp3"};
	for (int i = 0; i < 3; i++) {
		nic_obs_init(&o->nics[i]);
		snprintf(o->nics[i].interface, sizeof o->nics[i].interface, "%s", names[i]);
		o->nics[i].state = OBS_OK;
		o->nics[i].phc_index = i;
		o->nics[i].caps = NIC_CAP_HW_TX | NIC_CAP_HW_RX;
	}
	o->nics[2].state = OBS_NO_DEVICE;
	snprintf(o->nics[2].error, sizeof o->nics[2].error, "swp3: no such interface");
	o->n_nics = 3;
	observation_settle_nic(o);

	json_t *root = round_trip(nodes, 1, 1796207937.0);
	json_t *jn = json_array_get(get(root, "nodes"), 0);
	json_t *nic = get(jn, "nic");
	want_keys(nic, nic_keys);
	want_str(nic, "interface", "swp1");
	want_int(nic, "phc_index", 1);
	json_t *nics = get(jn, "nics");
	assert_int_equal(json_array_size(nics), 3);
	for (size_t i = 0; i < 3; i++) {
		want_keys(json_array_get(nics, i), nic_keys);
		want_str(json_array_get(nics, i), "interface", names[i]);
	}
	want_null(json_array_get(nics, 0), "error");
	want_str(json_array_get(nics, 2), "error", "swp3: no such interface");
	want_null(json_array_get(nics, 2), "hw_transmit");
	json_decref(root);
	free(nodes);
}

static void test_json_unknowns_are_null(void **state)
{
	(void)state;
	node *nodes = make_nodes(3, NULL);

	/* 0: never polled, and obs zeroed rather than initialised: rtt 0
	 * and taken_at 0 must not leak out as data */
	memset(&nodes[0].obs, 0, sizeof nodes[0].obs);
	snprintf(nodes[0].error, sizeof nodes[0].error, "connection refused");
	nodes[0].status = NODE_STATUS_UNKNOWN;

	/* 1: answered, but every optional value unknown */
	set_chrony(&nodes[1], NAN);
	chrony_tracking *t = &nodes[1].obs.chrony.tracking;
	t->stratum = INT_UNKNOWN;
	t->has_reference_id = false;
	t->reference_name[0] = '\0';
	t->leap = CHRONY_LEAP_UNKNOWN;
	t->skew_ppm = INFINITY;
	nodes[1].obs.rtt_s = NAN;
	nodes[1].obs.chrony.sources[0].last_rx_s = -1;
	nodes[1].obs.chrony.sources[0].stratum = INT_UNKNOWN;
	nodes[1].obs.chrony.sourcestats[0].samples = INT_UNKNOWN;
	set_ptp(&nodes[1], PTP_PORT_UNKNOWN, PTP_NS_UNKNOWN, "");
	nodes[1].obs.ptp.mean_path_delay_ns = PTP_NS_UNKNOWN;
	nodes[1].obs.ptp.gm_present = INT_UNKNOWN;
	nodes[1].obs.ptp.steps_removed = INT_UNKNOWN;
	nodes[1].obs.ptp.clock_identity[0] = '\0';
	nodes[1].obs.ptp.domain_number = INT_UNKNOWN;
	nodes[1].obs.ptp.current_utc_offset = INT_UNKNOWN;
	nodes[1].obs.ptp.ports[0].peer_mean_path_delay_ns = PTP_NS_UNKNOWN;
	nodes[1].obs.ptp.ports[0].delay_mechanism = INT_UNKNOWN;
	nodes[1].obs.nic.state = OBS_OK;
	nodes[1].obs.nic.phc_index = NIC_PHC_NONE;

	/* 2: answered, NIC phc index unknown, no ports at all */
	set_ptp(&nodes[2], PTP_PORT_SLAVE, 5, "96bec0.fffe.dfca68");
	nodes[2].obs.ptp.n_ports = 0;
	nodes[2].obs.nic.state = OBS_OK;
	nodes[2].obs.nic.phc_index = NIC_PHC_UNKNOWN;

	json_t *root = round_trip(nodes, 3, NAN);
	want_null(root, "generated_at");
	json_t *sum = get(root, "summary");
	want_null(sum, "max_abs_offset_s");
	want_null(sum, "offset_spread_s");
	json_t *arr = get(root, "nodes");

	json_t *n0 = json_array_get(arr, 0);
	want_keys(n0, node_keys);
	want_str(n0, "status", "unknown");
	assert_true(json_is_false(get(n0, "reachable")));
	want_str(n0, "error", "connection refused");
	want_null(n0, "observed_at");
	want_null(n0, "rtt_s");
	want_null(n0, "chrony");
	want_null(n0, "ptp");
	want_null(n0, "nic");
	want_null(n0, "nics");

	json_t *n1 = json_array_get(arr, 1);
	want_null(n1, "rtt_s");
	json_t *c = get(n1, "chrony");
	static const char *const unknown_chrony[] = {
		"leap_status", "stratum", "reference_id", "reference_name", "system_time_offset_s", "skew_ppm",
	};
	for (size_t i = 0; i < sizeof unknown_chrony / sizeof unknown_chrony[0]; i++) {
		want_null(c, unknown_chrony[i]);
	}
	json_t *src = json_array_get(get(c, "sources"), 0);
	want_null(src, "last_rx_s");
	want_null(src, "stratum");
	want_null(json_array_get(get(c, "sourcestats"), 0), "samples");
	json_t *p = get(n1, "ptp");
	static const char *const unknown_ptp[] = {
		"port_state", "offset_from_master_ns", "mean_path_delay_ns", "gm_identity", "gm_present",
		"steps_removed", "clock_identity", "domain_number", "current_utc_offset", "gm_clock_class",
		"gm_clock_accuracy", "gm_offset_scaled_log_variance", "time_source", "ptp_timescale",
		"time_traceable", "frequency_traceable",
	};
	for (size_t i = 0; i < sizeof unknown_ptp / sizeof unknown_ptp[0]; i++) {
		want_null(p, unknown_ptp[i]);
	}
	json_t *port = json_array_get(get(p, "ports"), 0);
	want_null(port, "state");
	want_null(port, "peer_mean_path_delay_ns");
	want_null(port, "delay_mechanism");
	want_null(get(n1, "nic"), "phc_index");
	want_null(get(n1, "nic"), "interface");

	json_t *n2 = json_array_get(arr, 2);
	want_null(get(n2, "ptp"), "port_state");
	assert_int_equal(json_array_size(get(get(n2, "ptp"), "ports")), 0);
	want_null(get(n2, "nic"), "phc_index");

	json_decref(root);
	free(nodes);
}

/* A port that stopped following its master (LISTENING after the master went
 * away) still carries ptp4l's last offset and delay: JSON says null, the
 * text table "-". */
static void test_stale_ptp_values_not_reported(void **state)
{
	(void)state;
	node *nodes = make_nodes(1, NULL);
	set_ptp(&nodes[0], PTP_PORT_LISTENING, -6600, "96bec0.fffe.dfca68");
	json_t *root = round_trip(nodes, 1, 1796207937.0);
	json_t *p = get(json_array_get(get(root, "nodes"), 0), "ptp");
	want_str(p, "port_state", "LISTENING");
	want_null(p, "offset_from_master_ns");
	want_null(p, "mean_path_delay_ns");
	json_decref(root);

	/* a LISTENING ptp4l reports its own defaults as grandmaster: no class */
	nodes[0].obs.ptp.gm_clock_class = 248;
	nodes[0].obs.ptp.gm_clock_accuracy = 0xfe;
	root = round_trip(nodes, 1, 1796207937.0);
	p = get(json_array_get(get(root, "nodes"), 0), "ptp");
	want_null(p, "gm_identity");
	want_null(p, "gm_clock_class");
	want_null(p, "gm_clock_accuracy");
	json_decref(root);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text_write(f, nodes, 1, 1796207937.0);
	fclose(f);
	assert_non_null(strstr(buf, " LISTENING "));
	assert_null(strstr(buf, "6.6"));
	assert_null(strstr(buf, "6600"));
	free(buf);
	free(nodes);
}

static void test_json_failed_parts(void **state)
{
	(void)state;
	node *nodes = make_nodes(5, NULL);
	for (int i = 0; i < 5; i++) {
		set_chrony(&nodes[i], 0.001);
		set_ptp(&nodes[i], PTP_PORT_SLAVE, 10, "96bec0.fffe.dfca68");
	}
	/* 0: chronyd down, with stale half-parsed values left behind; pmc got
	 * no answer and the daemon list says no ptp4l runs: no PTP here */
	nodes[0].obs.chrony.state = OBS_DAEMON_UNREACHABLE;
	snprintf(nodes[0].obs.chrony.error, OBS_ERROR_LEN, "506 Cannot talk to daemon");
	nodes[0].obs.ptp.state = OBS_DAEMON_UNREACHABLE;
	nodes[0].obs.daemons.state = OBS_OK;
	nodes[0].obs.daemons.running = DAEMON_CHRONYD;
	nodes[0].obs.nic.state = OBS_NO_DEVICE;
	snprintf(nodes[0].obs.nic.interface, sizeof nodes[0].obs.nic.interface, "eth7");

	/* 1: no answer from ptp4l, and the daemon list says it runs: broken */
	nodes[1].obs.ptp.state = OBS_DAEMON_UNREACHABLE;
	snprintf(nodes[1].obs.ptp.error, OBS_ERROR_LEN, "no response from ptp4l");
	nodes[1].obs.daemons.state = OBS_OK;
	nodes[1].obs.daemons.running = DAEMON_PTP4L;

	/* 2: no answer and no daemon list: cannot rule ptp4l out; the error
	 * text is empty, so the state's name stands in */
	nodes[2].obs.ptp.state = OBS_DAEMON_UNREACHABLE;

	/* 3: tools not installed / not asked */
	nodes[3].obs.chrony.state = OBS_TOOL_MISSING;
	nodes[3].obs.ptp.state = OBS_NOT_COLLECTED;
	nodes[3].obs.nic.state = OBS_TOOL_MISSING;

	/* 4: pmc permission denied */
	nodes[4].obs.ptp.state = OBS_PERMISSION_DENIED;
	snprintf(nodes[4].obs.ptp.error, OBS_ERROR_LEN, "permission denied on /var/run/ptp4l");

	json_t *root = round_trip(nodes, 5, 0);
	want_str(root, "generated_at", "1970-01-01T00:00:00.000Z");
	json_t *arr = get(root, "nodes");

	json_t *n0 = json_array_get(arr, 0);
	json_t *c = get(n0, "chrony");
	want_keys(c, chrony_keys);
	want_str(c, "error", "506 Cannot talk to daemon");
	for (size_t i = 1; chrony_keys[i]; i++) {
		want_null(c, chrony_keys[i]);
	}
	want_null(n0, "ptp");
	json_t *nic = get(n0, "nic");
	want_keys(nic, nic_keys);
	want_str(nic, "error", "no such device");
	want_str(nic, "interface", "eth7");
	want_null(nic, "hw_transmit");
	want_null(nic, "phc_index");

	json_t *p1 = get(json_array_get(arr, 1), "ptp");
	want_keys(p1, ptp_keys);
	want_str(p1, "error", "no response from ptp4l");
	for (size_t i = 1; ptp_keys[i]; i++) {
		want_null(p1, ptp_keys[i]);
	}
	want_str(get(json_array_get(arr, 2), "ptp"), "error", "daemon unreachable");

	json_t *n3 = json_array_get(arr, 3);
	want_null(n3, "chrony");
	want_null(n3, "ptp");
	want_null(n3, "nic");
	want_str(get(json_array_get(arr, 4), "ptp"), "error", "permission denied on /var/run/ptp4l");

	/* failed parts never feed the summary, whatever values they hold */
	json_t *sum = get(root, "summary");
	want_null(sum, "ptp_max_abs_offset_ns");
	assert_int_equal(json_array_size(get(sum, "grandmasters")), 0);
	want_real(sum, "max_abs_offset_s", 0.001);
	json_decref(root);
	free(nodes);
}

static void test_json_findings_and_status(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.002);
	add_finding(&nodes[0], SEVERITY_WARN, "chrony.offset", "System time +2.000 ms from reference",
		    "chronyc sources -v");
	add_finding(&nodes[0], SEVERITY_CRIT, "chrony.leap", "Not synchronised", "");
	nodes[0].findings.items[0].since = 1.5;
	nodes[0].findings.items[0].pending = true;
	nodes[1].status = (node_status)42;

	json_t *root = round_trip(nodes, 2, 1.9996);
	want_str(root, "generated_at", "1970-01-01T00:00:02.000Z");
	json_t *n0 = json_array_get(get(root, "nodes"), 0);
	want_str(n0, "status", "crit");
	json_t *fs = get(n0, "findings");
	assert_int_equal(json_array_size(fs), 2);
	json_t *f0 = json_array_get(fs, 0);
	want_keys(f0, finding_keys);
	want_str(f0, "severity", "warn");
	want_str(f0, "code", "chrony.offset");
	want_str(f0, "message", "System time +2.000 ms from reference");
	want_str(f0, "hint", "chronyc sources -v");
	assert_true(json_is_true(get(f0, "pending")));
	want_str(f0, "since", "1970-01-01T00:00:01.500Z");
	json_t *f1 = json_array_get(fs, 1);
	want_str(f1, "severity", "crit");
	want_null(f1, "hint");
	assert_true(json_is_false(get(f1, "pending")));
	want_null(f1, "since"); /* never settled: no since */
	/* a corrupt status is reported as the summary counts it */
	want_str(json_array_get(get(root, "nodes"), 1), "status", "unknown");
	want_int(get(root, "summary"), "unknown", 1);
	want_int(get(root, "summary"), "crit", 1);
	json_decref(root);
	free(nodes);
}

static void test_json_sanitises_remote_text(void **state)
{
	(void)state;
	node *nodes = make_nodes(1, NULL);
	node *nd = &nodes[0];
	set_chrony(nd, 0.0);
	snprintf(nd->host, sizeof nd->host, "evil\x1b]0;pwned\x07host");
	snprintf(nd->error, sizeof nd->error, "bad \xC0\xAF utf8 \x1b[31mred\x1b[0m\r\n2nd line");
	snprintf(nd->obs.chrony.tracking.reference_name, sizeof nd->obs.chrony.tracking.reference_name,
		 "\xED\xA0\x80\x9B" "31m");
	snprintf(nd->obs.chrony.sources[0].name, sizeof nd->obs.chrony.sources[0].name, "a\x01\x7F" "b");
	add_finding(nd, SEVERITY_WARN, "chrony.offset", "msg \x1b[2J", "hint \xFF");
	/* a field without its NUL: read no further than the field */
	memset(nd->obs.chrony.sourcestats[0].name, 'x', sizeof nd->obs.chrony.sourcestats[0].name);

	json_t *root = round_trip(nodes, 1, 0);
	json_t *jn = json_array_get(get(root, "nodes"), 0);
	want_str(jn, "host", "evilhost");
	want_str(jn, "error", "bad \xEF\xBF\xBD\xEF\xBF\xBD utf8 red\n2nd line");
	json_t *c = get(jn, "chrony");
	want_str(c, "reference_name", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD" "31m");
	want_str(json_array_get(get(c, "sources"), 0), "name", "ab");
	const char *ssname = json_string_value(get(json_array_get(get(c, "sourcestats"), 0), "name"));
	assert_non_null(ssname);
	assert_int_equal(strlen(ssname), sizeof nd->obs.chrony.sourcestats[0].name);
	json_t *f = json_array_get(get(jn, "findings"), 0);
	want_str(f, "message", "msg ");
	want_str(f, "hint", "hint \xEF\xBF\xBD");
	json_decref(root);
	free(nodes);
}

static void test_json_write(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.0015);
	set_chrony(&nodes[1], -0.0005);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_json_write(f, nodes, 2, 1796207937.9999), 0);
	fclose(f);
	assert_true(len > 2);
	assert_int_equal(buf[len - 1], '\n');

	json_error_t err;
	json_t *root = json_loads(buf, 0, &err);
	assert_non_null(root);
	want_str(root, "generated_at", "2026-12-02T10:38:58.000Z");
	json_t *sum = get(root, "summary");
	want_int(sum, "nodes", 2);
	want_real(sum, "max_abs_offset_s", 0.0015);
	want_real(sum, "offset_spread_s", 0.0015 - -0.0005);
	want_null(sum, "ptp_max_abs_offset_ns");
	assert_int_equal(json_array_size(get(sum, "grandmasters")), 0);
	json_decref(root);

	/* written a node at a time, it is the whole tree's text byte for byte,
	 * with and without a source (a newline in a string stays escaped), and
	 * with a node's SSH detail (--ssh-detail: every node then has the key) */
	snprintf(nodes[1].error, sizeof nodes[1].error, "two\nlines");
	report_json_source src = {"prometheus", (const char *const[]){"http://p:9090"}, 1, 1, "no answer"};
	for (int with_src = 0; with_src < 3; with_src++) {
		if (with_src == 2) {
			nodes[0].ssh_detail = ssh_detail_new(nodes[0].host, 1796207930.0);
			ssh_detail_finish(nodes[0].ssh_detail, 1796207932.0);
		}
		json_t *tree = report_json_build(nodes, 2, 1796207937.9999);
		if (with_src) {
			report_json_source *sp = &src;
			json_t *so = json_object();
			json_object_set_new(so, "kind", json_string(sp->kind));
			json_t *servers = json_array();
			json_array_append_new(servers, json_string(sp->servers[0]));
			json_object_set_new(so, "servers", servers);
			json_object_set_new(so, "answered", json_integer(1));
			json_object_set_new(so, "error", json_string("no answer"));
			json_object_set_new(tree, "source", so);
		}
		char *want = json_dumps(tree, JSON_INDENT(2));
		json_decref(tree);
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_int_equal(report_json_write_sourced(f, nodes, 2, 1796207937.9999, with_src ? &src : NULL), 0);
		fclose(f);
		assert_int_equal(len, strlen(want) + 1);
		assert_memory_equal(buf, want, strlen(want));
		if (with_src == 2) {
			assert_non_null(strstr(want, "\"ssh_detail\": null"));
			assert_non_null(strstr(want, "\"finished\": true"));
		}
		free(want);
	}
	ssh_detail_free(nodes[0].ssh_detail);
	nodes[0].ssh_detail = NULL;
	free(buf);

	/* an empty fleet is still a complete document */
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_json_write(f, NULL, 0, -0.5), 0);
	fclose(f);
	root = json_loads(buf, 0, &err);
	assert_non_null(root);
	want_str(root, "generated_at", "1969-12-31T23:59:59.500Z");
	want_int(get(root, "summary"), "nodes", 0);
	assert_int_equal(json_array_size(get(root, "nodes")), 0);
	json_decref(root);
	free(buf);
	free(nodes);
}

/* --------------------------------------------------------------- check */

typedef struct {
	char *text;
	int rc;
} check_result;

static check_result run_check(const node *nodes, size_t n, severity fail_on, bool verbose)
{
	check_result r = {NULL, -1};
	size_t len = 0;
	FILE *f = open_memstream(&r.text, &len);
	assert_non_null(f);
	cluster_summary s;
	cluster_summarise(nodes, n, &s);
	r.rc = report_check_write(f, nodes, n, &s, fail_on, verbose);
	fclose(f);

	/* passing no summary computes the same one */
	char *again = NULL;
	f = open_memstream(&again, &len);
	assert_non_null(f);
	assert_int_equal(report_check_write(f, nodes, n, NULL, fail_on, verbose), r.rc);
	fclose(f);
	assert_string_equal(again, r.text);
	free(again);
	return r;
}

static void test_check_all_ok(void **state)
{
	(void)state;
	node *nodes = make_nodes(3, NULL);
	set_chrony(&nodes[0], 0.002);
	set_chrony(&nodes[1], -0.001);
	set_chrony(&nodes[2], 0.0);
	check_result r = run_check(nodes, 3, SEVERITY_WARN, true);
	assert_int_equal(r.rc, REPORT_CHECK_OK);
	assert_string_equal(r.text, "synctop check: 3 nodes: 3 ok, 0 warn, 0 crit, 0 unknown; "
				    "max |offset| 2.000 ms, spread 3.000 ms\n");
	free(r.text);
	free(nodes);
}

static void test_check_warn_and_fail_on(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.0);
	set_chrony(&nodes[1], 0.0);
	add_finding(&nodes[1], SEVERITY_WARN, "chrony.skew", "skew 2.1 ppm", "check the source");

	check_result r = run_check(nodes, 2, SEVERITY_WARN, false);
	assert_int_equal(r.rc, REPORT_CHECK_WARN);
	assert_string_equal(r.text, "node2 WARN chrony.skew: skew 2.1 ppm\n"
				    "hosts not ok: node2\n"
				    "synctop check: 2 nodes: 1 ok, 1 warn, 0 crit, 0 unknown; "
				    "max |offset| 0 ns, spread 0 ns\n");
	free(r.text);

	/* fail on crit: warnings alone pass, but are still printed; the host
	 * list names only what fails */
	r = run_check(nodes, 2, SEVERITY_CRIT, false);
	assert_int_equal(r.rc, REPORT_CHECK_OK);
	assert_non_null(strstr(r.text, "node2 WARN chrony.skew: skew 2.1 ppm\n"));
	assert_null(strstr(r.text, "hosts not ok"));
	free(r.text);

	/* an SEVERITY_OK finding is not a problem line */
	nodes[1].findings.count = 0;
	nodes[1].status = NODE_STATUS_OK;
	add_finding(&nodes[1], SEVERITY_OK, "info", "fine", "");
	r = run_check(nodes, 2, SEVERITY_WARN, true);
	assert_int_equal(r.rc, REPORT_CHECK_OK);
	assert_null(strstr(r.text, "info"));
	free(r.text);
	free(nodes);
}

static void test_check_order_and_codes(void **state)
{
	(void)state;
	static const char *const hosts[] = {"zeta", "alpha", "mid", "beta", "gamma"};
	node *nodes = make_nodes(5, hosts);
	for (int i = 0; i < 5; i++) {
		set_chrony(&nodes[i], 0.0);
	}
	add_finding(&nodes[0], SEVERITY_WARN, "chrony.skew", "skew high", "look at skew");
	add_finding(&nodes[0], SEVERITY_CRIT, "chrony.offset", "offset huge", "chronyc makestep");
	add_finding(&nodes[1], SEVERITY_WARN, "ptp.delay", "delay high", "");
	add_finding(&nodes[3], SEVERITY_CRIT, "chrony.leap", "Not synchronised", "chronyc tracking");
	/* gamma: unreachable, as health leaves it */
	nodes[4].reachable = false;
	nodes[4].status = NODE_STATUS_UNKNOWN;
	snprintf(nodes[4].error, sizeof nodes[4].error, "connect: No route to host");

	check_result r = run_check(nodes, 5, SEVERITY_WARN, true);
	assert_int_equal(r.rc, REPORT_CHECK_CRIT);
	assert_string_equal(r.text, "beta CRIT chrony.leap: Not synchronised\n"
				    "  fix: chronyc tracking\n"
				    "zeta CRIT chrony.offset: offset huge\n"
				    "  fix: chronyc makestep\n"
				    "gamma UNKNOWN: connect: No route to host\n"
				    "alpha WARN ptp.delay: delay high\n"
				    "zeta WARN chrony.skew: skew high\n"
				    "  fix: look at skew\n"
				    "hosts not ok: alpha,beta,gamma,zeta\n"
				    "synctop check: 5 nodes: 1 ok, 1 warn, 2 crit, 1 unknown; "
				    "max |offset| 0 ns, spread 0 ns\n");
	free(r.text);

	/* unknown and no crit: 3, whatever fail_on says */
	nodes[0].findings.count = 0;
	nodes[0].status = NODE_STATUS_OK;
	nodes[3].findings.count = 0;
	nodes[3].status = NODE_STATUS_OK;
	r = run_check(nodes, 5, SEVERITY_WARN, false);
	assert_int_equal(r.rc, REPORT_CHECK_UNKNOWN);
	assert_null(strstr(r.text, "fix:"));
	free(r.text);
	r = run_check(nodes, 5, SEVERITY_CRIT, false);
	assert_int_equal(r.rc, REPORT_CHECK_UNKNOWN);
	free(r.text);

	/* unknown without error text: say what is known */
	nodes[4].error[0] = '\0';
	r = run_check(nodes, 5, SEVERITY_WARN, false);
	assert_non_null(strstr(r.text, "gamma UNKNOWN: unreachable\n"));
	free(r.text);
	nodes[4].reachable = true;
	r = run_check(nodes, 5, SEVERITY_WARN, false);
	assert_non_null(strstr(r.text, "gamma UNKNOWN: status unknown\n"));
	free(r.text);

	/* never polled, no error text */
	nodes[4].error[0] = '\0';
	nodes[4].has_observation = false;
	r = run_check(nodes, 5, SEVERITY_WARN, false);
	assert_non_null(strstr(r.text, "gamma UNKNOWN: no completed poll yet\n"));
	free(r.text);

	/* crit outranks unknown in the exit code too */
	add_finding(&nodes[2], SEVERITY_CRIT, "chrony.offset", "offset huge", "");
	r = run_check(nodes, 5, SEVERITY_CRIT, false);
	assert_int_equal(r.rc, REPORT_CHECK_CRIT);
	free(r.text);
	free(nodes);
}

static void test_check_no_nodes(void **state)
{
	(void)state;
	check_result r = run_check(NULL, 0, SEVERITY_WARN, false);
	assert_int_equal(r.rc, REPORT_CHECK_UNKNOWN);
	assert_string_equal(r.text, "synctop check: 0 nodes: 0 ok, 0 warn, 0 crit, 0 unknown; "
				    "max |offset| unknown, spread unknown\n");
	free(r.text);
}

static void test_check_ptp_and_grandmasters(void **state)
{
	(void)state;
	node *nodes = make_nodes(3, NULL);
	set_ptp(&nodes[0], PTP_PORT_SLAVE, 85, "96bec0.fffe.dfca68");
	set_ptp(&nodes[1], PTP_PORT_SLAVE, -35, "96bec0.fffe.dfca68");
	set_ptp(&nodes[2], PTP_PORT_MASTER, 0, "e6b683.fffe.859fc1");
	for (int i = 0; i < 3; i++) {
		nodes[i].status = NODE_STATUS_OK;
	}
	check_result r = run_check(nodes, 3, SEVERITY_WARN, false);
	assert_int_equal(r.rc, REPORT_CHECK_OK);
	assert_string_equal(r.text, "synctop check: 3 nodes: 3 ok, 0 warn, 0 crit, 0 unknown; "
				    "max |offset| unknown, spread unknown; "
				    "ptp max |offset| 85 ns, spread 120 ns; "
				    "2 grandmasters: 96bec0.fffe.dfca68 (2 nodes), e6b683.fffe.859fc1 (1 node)\n");
	free(r.text);
	free(nodes);
}

static void test_check_sanitises(void **state)
{
	(void)state;
	node *nodes = make_nodes(2, NULL);
	set_chrony(&nodes[0], 0.0);
	snprintf(nodes[0].host, sizeof nodes[0].host, "ho\x1b[2Jst");
	add_finding(&nodes[0], SEVERITY_WARN, "chrony.offset", "two\nlines\x1b]0;t\x07", "a\tb\x9b");
	nodes[1].status = NODE_STATUS_UNKNOWN;
	snprintf(nodes[1].error, sizeof nodes[1].error, "ssh: \x1b[31mfailed\r\nagain");

	check_result r = run_check(nodes, 2, SEVERITY_WARN, true);
	assert_int_equal(r.rc, REPORT_CHECK_UNKNOWN);
	assert_null(strchr(r.text, 0x1B));
	assert_null(strchr(r.text, '\r'));
	assert_null(strchr(r.text, '\t'));
	assert_string_equal(r.text, "node2 UNKNOWN: ssh: failed again\n"
				    "host WARN chrony.offset: two lines\n"
				    "  fix: a b\xEF\xBF\xBD\n"
				    /* no host list can hold an escape: said, not printed */
				    "hosts not ok: (no host list: host name 'ho\\x1b[2Jst' cannot be "
				    "written in a host list)\n"
				    "synctop check: 2 nodes: 0 ok, 1 warn, 0 crit, 1 unknown; "
				    "max |offset| 0 ns, spread 0 ns\n");
	free(r.text);
	free(nodes);
}

/* --hostlist-only: the failing nodes as one compressed expression, the same
 * exit code as the full report, nothing at all when every node is ok. */
static char *run_hostlist(const node *nodes, size_t n, severity fail_on, int *rc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	*rc = report_check_write_hostlist(f, nodes, n, NULL, fail_on);
	fclose(f);
	return text;
}

static void test_check_hostlist(void **state)
{
	(void)state;
	static const char *const hosts[] = {"gpu017", "gpu003", "login1", "gpu018", "gpu004", "gpu0100"};
	node *nodes = make_nodes(6, hosts);
	for (int i = 0; i < 6; i++) {
		set_chrony(&nodes[i], 0.0);
	}
	int rc;
	char *text = run_hostlist(nodes, 6, SEVERITY_WARN, &rc);
	assert_int_equal(rc, REPORT_CHECK_OK);
	assert_string_equal(text, "");
	free(text);

	add_finding(&nodes[0], SEVERITY_CRIT, "chrony.offset", "offset huge", "");
	add_finding(&nodes[1], SEVERITY_WARN, "chrony.skew", "skew high", "");
	add_finding(&nodes[3], SEVERITY_WARN, "chrony.skew", "skew high", "");
	nodes[5].reachable = false;
	nodes[5].status = NODE_STATUS_UNKNOWN;
	text = run_hostlist(nodes, 6, SEVERITY_WARN, &rc);
	assert_int_equal(rc, REPORT_CHECK_CRIT);
	assert_string_equal(text, "gpu[003,017-018,0100]\n");
	free(text);
	check_result r = run_check(nodes, 6, SEVERITY_WARN, false);
	assert_int_equal(r.rc, rc);
	assert_non_null(strstr(r.text, "\nhosts not ok: gpu[003,017-018,0100]\nsynctop check: "));
	free(r.text);

	/* fail on crit: the warned nodes are not drained */
	text = run_hostlist(nodes, 6, SEVERITY_CRIT, &rc);
	assert_int_equal(rc, REPORT_CHECK_CRIT);
	assert_string_equal(text, "gpu[017,0100]\n");
	free(text);

	/* warnings only, fail on crit: exit 0, nothing printed */
	nodes[0].findings.count = 0;
	nodes[0].status = NODE_STATUS_OK;
	nodes[5].reachable = true;
	nodes[5].status = NODE_STATUS_OK;
	text = run_hostlist(nodes, 6, SEVERITY_CRIT, &rc);
	assert_int_equal(rc, REPORT_CHECK_OK);
	assert_string_equal(text, "");
	free(text);
	text = run_hostlist(nodes, 6, SEVERITY_WARN, &rc);
	assert_int_equal(rc, REPORT_CHECK_WARN);
	assert_string_equal(text, "gpu[003,018]\n");
	free(text);

	/* no nodes: nothing to name, and 3 as ever */
	text = run_hostlist(nodes, 0, SEVERITY_WARN, &rc);
	assert_int_equal(rc, REPORT_CHECK_UNKNOWN);
	assert_string_equal(text, "");
	free(text);
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster_counts),
		cmocka_unit_test(test_cluster_chrony_spread),
		cmocka_unit_test(test_cluster_ptp_spread),
		cmocka_unit_test(test_cluster_grandmasters),
		cmocka_unit_test(test_cluster_grandmaster_class),
		cmocka_unit_test(test_json_healthy_node),
		cmocka_unit_test(test_json_unknowns_are_null),
		cmocka_unit_test(test_json_nics_boundary_clock),
		cmocka_unit_test(test_stale_ptp_values_not_reported),
		cmocka_unit_test(test_json_clock_check),
		cmocka_unit_test(test_json_failed_parts),
		cmocka_unit_test(test_json_findings_and_status),
		cmocka_unit_test(test_json_sanitises_remote_text),
		cmocka_unit_test(test_json_write),
		cmocka_unit_test(test_check_all_ok),
		cmocka_unit_test(test_check_warn_and_fail_on),
		cmocka_unit_test(test_check_order_and_codes),
		cmocka_unit_test(test_check_no_nodes),
		cmocka_unit_test(test_check_ptp_and_grandmasters),
		cmocka_unit_test(test_check_sanitises),
		cmocka_unit_test(test_check_hostlist),
	};
	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
