/* test_event.c - change detection (event_detect.h) for every event kind,
 * the no-debounce rule, the start-up baseline, grouping across nodes and
 * the ring (event_log.h), and the path through node_update. */
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
#include <ev.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#include "event.h"
#include "event_cluster.h"
#include "event_detect.h"
#include "event_file.h"
#include "event_log.h"
#include "events.h"
#include "filter.h"
#include "finding_wait.h"
#include "finding.h"
#include "health.h"
#include "node.h"
#include "conffile.h"
#include "node_settings.h"
#include "node_update.h"
#include "thresholds.h"

#define GM_A "1aed80.fffe.1a0b51"
#define GM_B "96bec0.fffe.dfca68"

static const event_limits limits = {.step_s = 0.1};

/* An answered node's state: ok, chrony on 10.0.0.1, ptp SLAVE of GM_A. */
static event_state base(void)
{
	event_state s;
	memset(&s, 0, sizeof s);
	s.answered_ever = true;
	s.reachable = true;
	s.status = NODE_STATUS_OK;
	s.chrony_ok = true;
	snprintf(s.chrony_reference, sizeof s.chrony_reference, "10.0.0.1");
	snprintf(s.chrony_leap, sizeof s.chrony_leap, "Normal");
	s.ntp_ok = true;
	snprintf(s.ntp_peer, sizeof s.ntp_peer, "10.0.0.2");
	s.ptp_ok = true;
	s.n_ports = 1;
	snprintf(s.ports[0].name, sizeof s.ports[0].name, "eth0");
	snprintf(s.ports[0].state, sizeof s.ports[0].state, "SLAVE");
	snprintf(s.grandmaster, sizeof s.grandmaster, GM_A);
	s.clock_class = 6;
	for (int k = 0; k < DAEMON_KINDS; k++) {
		s.daemons[k].restarted_at = NAN;
		s.daemons[k].pid = 100 + k;
		s.daemons[k].age_s = 1000;
	}
	s.chrony_offset_s = 1e-5;
	s.chrony_at = 100;
	s.ptp_offset_ns = 50;
	s.ptp_at = 100;
	s.clock_offset_s = 2e-3;
	s.clock_at = 100;
	return s;
}

/* The next poll of the same unchanged node. */
static event_state later(const event_state *s)
{
	event_state n = *s;
	n.chrony_at += 1;
	n.ptp_at += 1;
	n.clock_at += 1;
	return n;
}

static size_t compare(const event_state *a, const event_state *b, event *out, size_t max)
{
	return event_detect_compare(a, b, &limits, 200, 7, out, max);
}

/* Exactly one event, of this kind, from, to. */
static const event *one(const event_state *a, const event_state *b, event_kind kind, const char *from,
			const char *to)
{
	static event ev[8];
	size_t n = compare(a, b, ev, 8);
	for (size_t i = 0; i < n; i++) {
		print_message("# %s %s %s -> %s: %s\n", event_kind_name(ev[i].kind), ev[i].subject, ev[i].from,
			      ev[i].to, ev[i].message);
	}
	assert_int_equal(n, 1);
	assert_int_equal(ev[0].kind, kind);
	assert_string_equal(ev[0].from, from);
	assert_string_equal(ev[0].to, to);
	assert_int_equal(ev[0].node, 7);
	assert_true(ev[0].t == 200);
	assert_true(ev[0].message[0] != '\0');
	return &ev[0];
}

static void test_kind_names(void **state)
{
	(void)state;
	for (int k = 0; k < EVENT_KIND_COUNT; k++) {
		const char *name = event_kind_name((event_kind)k);
		assert_non_null(name);
		event_kind back;
		assert_true(event_kind_parse(name, &back));
		assert_int_equal(back, k);
	}
	assert_null(event_kind_name(EVENT_KIND_COUNT));
	event_kind k;
	assert_false(event_kind_parse("nonsense", &k));
}

static void test_unchanged_is_silent(void **state)
{
	(void)state;
	event ev[8];
	event_state a = base(), b = later(&a);
	assert_int_equal(compare(&a, &b, ev, 8), 0);
}

static void test_baseline(void **state)
{
	(void)state;
	event ev[8];
	event_state never = base(), b = base();
	never.answered_ever = false;
	never.reachable = false;
	never.status = NODE_STATUS_UNKNOWN;
	b.status = NODE_STATUS_CRIT;
	assert_int_equal(compare(&never, &b, ev, 8), 0);
}

static void test_status(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	b.status = NODE_STATUS_WARN;
	one(&a, &b, EVENT_STATUS, "ok", "warn");
}

static void test_findings(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	b.n_findings = 1;
	b.findings[0] = (event_finding){.code = "chrony.offset", .sev = SEVERITY_WARN, .message = "3 ms ahead"};
	const event *e = one(&a, &b, EVENT_FINDING_RAISED, "", "warn");
	assert_string_equal(e->subject, "chrony.offset");
	assert_non_null(strstr(e->message, "3 ms ahead"));

	event_state c = later(&b);
	c.findings[0].sev = SEVERITY_CRIT;
	one(&b, &c, EVENT_FINDING_CHANGED, "warn", "crit");

	event_state d = later(&c);
	d.n_findings = 0;
	e = one(&c, &d, EVENT_FINDING_CLEARED, "crit", "");
	assert_string_equal(e->subject, "chrony.offset");
}

/* ------------------------------------------------ cluster-scope events */

static void test_cluster_compare(void **state)
{
	(void)state;
	event ev[8];
	event_cluster_state none = {0}, three = {0}, worse = {0};
	for (int i = 0; i < 3; i++) {
		char host[16];
		snprintf(host, sizeof host, "gpu%03d", i + 1);
		event_cluster_add_finding(&three, "cluster.offset_spread", SEVERITY_WARN, host, "4 ms from the median");
		event_cluster_add_finding(&worse, "cluster.offset_spread", i == 2 ? SEVERITY_CRIT : SEVERITY_WARN, host,
					  "4 ms from the median");
	}
	assert_int_equal(three.count, 1);
	assert_int_equal(three.items[0].nodes, 3);
	assert_string_equal(three.items[0].first, "gpu001");

	/* three nodes out of line: one event about the cluster */
	assert_int_equal(event_cluster_compare(&none, &three, 300, ev, 8), 1);
	assert_int_equal(ev[0].kind, EVENT_CLUSTER_FINDING_RAISED);
	assert_int_equal(ev[0].node, EVENT_NODE_CLUSTER);
	assert_int_equal(ev[0].group, 0);
	assert_int_equal(ev[0].group_size, 3);
	assert_string_equal(ev[0].subject, "cluster.offset_spread");
	assert_string_equal(ev[0].from, "");
	assert_string_equal(ev[0].to, "warn");
	assert_true(ev[0].t == 300);
	assert_non_null(strstr(ev[0].message, "3 nodes (gpu001 and 2 more)"));
	assert_non_null(strstr(ev[0].message, "4 ms from the median"));

	/* the same: silent; worse on one node: raised again from warn */
	assert_int_equal(event_cluster_compare(&three, &three, 301, ev, 8), 0);
	assert_int_equal(event_cluster_compare(&three, &worse, 301, ev, 8), 1);
	assert_int_equal(ev[0].kind, EVENT_CLUSTER_FINDING_RAISED);
	assert_string_equal(ev[0].from, "warn");
	assert_string_equal(ev[0].to, "crit");

	/* gone from every node: cleared, once */
	assert_int_equal(event_cluster_compare(&worse, &none, 302, ev, 8), 1);
	assert_int_equal(ev[0].kind, EVENT_CLUSTER_FINDING_CLEARED);
	assert_int_equal(ev[0].node, EVENT_NODE_CLUSTER);
	assert_string_equal(ev[0].from, "crit");
	assert_string_equal(ev[0].to, "");
	assert_int_equal(ev[0].group_size, 0);

	/* max bounds what is written, not what is counted */
	event_cluster_state two = three;
	event_cluster_add_finding(&two, "cluster.leap", SEVERITY_WARN, "gpu009", "leap");
	assert_int_equal(event_cluster_compare(&none, &two, 303, ev, 1), 2);
}

/* n nodes with watches, answered, ok. */
static node *cluster_nodes(size_t n, event_log *l, event_watch *w)
{
	node *nodes = calloc(n, sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		char host[16];
		snprintf(host, sizeof host, "gpu%03zu", i + 1);
		node_init(&nodes[i], host);
		nodes[i].has_observation = true;
		nodes[i].reachable = true;
		nodes[i].obs.taken_at = 1000;
		nodes[i].status = NODE_STATUS_OK;
		w[i] = (event_watch){.log = l, .index = (uint32_t)i, .limits = limits};
		nodes[i].watch = &w[i];
	}
	return nodes;
}

static void give_cluster_finding(node *nd, const char *code, severity sev, const thresholds *th)
{
	finding f;
	finding_start(&f, sev, code);
	finding_message(&f, "out of line with the cluster");
	health_set_cluster_findings(nd, &f, code ? 1 : 0, th);
}

static void test_cluster_events_in_the_log(void **state)
{
	(void)state;
	enum { N = 10 };
	event_log *l = event_log_new(256);
	event_watch w[N];
	node *nodes = cluster_nodes(N, l, w);
	thresholds th;
	thresholds_init_defaults(&th);
	/* node 0 is out of line from the start: the baseline, not a change */
	give_cluster_finding(&nodes[0], "cluster.reference", SEVERITY_WARN, &th);
	event_log_refresh(l, nodes, N, 1000);
	assert_int_equal(event_log_commit(l, 5), 0);

	/* seven nodes out of line: one cluster event, and the status of each
	 * (the grid's colours) grouped; no per-node cluster finding events */
	for (int i = 1; i < 8; i++) {
		give_cluster_finding(&nodes[i], "cluster.offset_spread", SEVERITY_WARN, &th);
	}
	event_log_refresh(l, nodes, N, 1001);
	assert_int_equal(event_log_commit(l, 5), 1 + 1 + 7);
	int cluster = 0, groups = 0, status = 0;
	for (size_t i = 0; i < event_log_count(l); i++) {
		const event *e = event_log_at(l, i);
		if (e->kind == EVENT_CLUSTER_FINDING_RAISED) {
			cluster++;
			assert_int_equal(e->node, EVENT_NODE_CLUSTER);
			assert_int_equal(e->group, 0);
			assert_int_equal(e->group_size, 7);
			assert_string_equal(e->subject, "cluster.offset_spread");
			assert_non_null(strstr(e->message, "7 nodes (gpu002 and 6 more)"));
		} else if (e->kind == EVENT_GROUP) {
			groups++;
			assert_int_equal(e->group_kind, EVENT_STATUS);
		} else {
			status++;
			assert_int_equal(e->kind, EVENT_STATUS);
			/* the status event names the cluster finding that made it */
			assert_non_null(strstr(e->message, "cluster.offset_spread"));
		}
	}
	assert_int_equal(cluster, 1);
	assert_int_equal(groups, 1);
	assert_int_equal(status, 7);

	/* one more node joins: no cluster event (its status says it) */
	give_cluster_finding(&nodes[8], "cluster.offset_spread", SEVERITY_WARN, &th);
	event_log_refresh(l, nodes, N, 1002);
	assert_int_equal(event_log_commit(l, 5), 1);
	assert_int_equal(event_log_at(l, event_log_count(l) - 1)->kind, EVENT_STATUS);

	/* all back in line: one cleared */
	for (int i = 1; i < 9; i++) {
		give_cluster_finding(&nodes[i], NULL, SEVERITY_OK, &th);
	}
	size_t before = event_log_count(l);
	event_log_refresh(l, nodes, N, 1003);
	event_log_commit(l, 5);
	int cleared = 0;
	for (size_t i = before; i < event_log_count(l); i++) {
		const event *e = event_log_at(l, i);
		if (e->kind == EVENT_CLUSTER_FINDING_CLEARED) {
			cleared++;
			assert_int_equal(e->node, EVENT_NODE_CLUSTER);
			assert_string_equal(e->subject, "cluster.offset_spread");
		}
		assert_int_not_equal(e->kind, EVENT_CLUSTER_FINDING_RAISED);
	}
	assert_int_equal(cleared, 1);

	/* a node settling late brings its cluster finding as baseline */
	event_watch late = {.log = l, .index = 9, .limits = limits};
	nodes[9].watch = &late;
	w[9].settled = false;
	give_cluster_finding(&nodes[9], "cluster.leap", SEVERITY_WARN, &th);
	event_log_refresh(l, nodes, N, 1004);
	assert_int_equal(event_log_commit(l, 5), 0);

	/* its JSON line says scope cluster, no node, and how many carry it */
	give_cluster_finding(&nodes[9], NULL, SEVERITY_OK, &th);
	give_cluster_finding(&nodes[3], "cluster.utc_offset", SEVERITY_CRIT, &th);
	event_log_refresh(l, nodes, N, 1005);
	assert_true(event_log_commit(l, 5) >= 2);
	bool json_seen = false;
	for (size_t i = 0; i < event_log_count(l); i++) {
		const event *e = event_log_at(l, i);
		if (e->kind != EVENT_CLUSTER_FINDING_RAISED || strcmp(e->subject, "cluster.utc_offset") != 0) {
			continue;
		}
		size_t len;
		char *line = event_file_format(e, NULL, &len);
		assert_non_null(line);
		json_error_t jerr;
		json_t *o = json_loads(line, 0, &jerr);
		assert_non_null(o);
		assert_string_equal(json_string_value(json_object_get(o, "scope")), "cluster");
		assert_true(json_is_null(json_object_get(o, "node")));
		assert_int_equal(json_integer_value(json_object_get(o, "nodes")), 1);
		json_decref(o);
		free(line);
		json_seen = true;
	}
	assert_true(json_seen);
	event_log_free(l);
	free(nodes);
}

static void test_chrony(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	snprintf(b.chrony_reference, sizeof b.chrony_reference, "10.0.0.9");
	one(&a, &b, EVENT_CHRONY_REFERENCE, "10.0.0.1", "10.0.0.9");

	event_state c = later(&a);
	snprintf(c.chrony_leap, sizeof c.chrony_leap, "Insert second");
	one(&a, &c, EVENT_CHRONY_LEAP, "Normal", "Insert second");

	/* chronyd not answering: its values are not compared (its finding is) */
	event_state d = later(&a);
	d.chrony_ok = false;
	d.chrony_reference[0] = '\0';
	event ev[8];
	assert_int_equal(compare(&a, &d, ev, 8), 0);
	/* ... and compared with the last answer once it is back */
	event_state e = later(&d);
	e.chrony_ok = true;
	snprintf(e.chrony_reference, sizeof e.chrony_reference, "10.0.0.1");
	assert_int_equal(compare(&d, &e, ev, 8), 0);
}

static void test_ntp_peer(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	b.ntp_peer[0] = '\0';
	const event *e = one(&a, &b, EVENT_NTP_PEER, "10.0.0.2", "");
	assert_non_null(strstr(e->message, "none"));
}

static void test_ptp(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	snprintf(b.ports[0].state, sizeof b.ports[0].state, "LISTENING");
	const event *e = one(&a, &b, EVENT_PTP_PORT_STATE, "SLAVE", "LISTENING");
	assert_string_equal(e->subject, "eth0");

	event_state c = later(&a);
	snprintf(c.grandmaster, sizeof c.grandmaster, GM_B);
	one(&a, &c, EVENT_PTP_GRANDMASTER, GM_A, GM_B);

	event_state d = later(&a);
	d.clock_class = 7;
	one(&a, &d, EVENT_PTP_CLOCK_CLASS, "6", "7");
}

static void test_daemon_restarted_once(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	int k = 1;
	b.daemons[k].restarted_now = true;
	b.daemons[k].restarted_at = 150;
	b.daemons[k].previous_pid = 101;
	b.daemons[k].pid = 4242;
	b.daemons[k].age_s = 3;
	const event *e = one(&a, &b, EVENT_DAEMON_RESTARTED, "101", "4242");
	assert_string_equal(e->subject, daemon_name(1u << k));
	/* the same restart seen again (the refresh after the cluster rules) */
	event ev[8];
	event_state c = b;
	assert_int_equal(compare(&b, &c, ev, 8), 0);
	/* a second restart later is a second event */
	event_state d = later(&b);
	d.daemons[k].restarted_at = 300;
	d.daemons[k].previous_pid = 4242;
	d.daemons[k].pid = 4343;
	one(&b, &d, EVENT_DAEMON_RESTARTED, "4242", "4343");
}

static void test_clock_step(void **state)
{
	(void)state;
	event ev[8];
	event_state a = base(), b = later(&a);
	b.chrony_offset_s = a.chrony_offset_s + 0.099; /* a slew, not a step */
	b.ptp_offset_ns = a.ptp_offset_ns - 99000000;
	b.clock_offset_s = a.clock_offset_s + 0.05;
	assert_int_equal(compare(&a, &b, ev, 8), 0);

	event_state c = later(&a);
	c.chrony_offset_s = 0.5;
	const event *e = one(&a, &c, EVENT_CLOCK_STEP, "0.000010000", "0.500000000");
	assert_string_equal(e->subject, "chrony offset");

	event_state d = later(&a);
	d.ptp_offset_ns = -200000000;
	e = one(&a, &d, EVENT_CLOCK_STEP, "0.000000050", "-0.200000000");
	assert_string_equal(e->subject, "PTP offset");

	event_state f = later(&a);
	f.clock_offset_s = -1.0;
	e = one(&a, &f, EVENT_CLOCK_STEP, "0.002000000", "-1.000000000");
	assert_string_equal(e->subject, "clock check");

	/* the same measurement seen twice is not compared with itself */
	event_state g = a;
	g.clock_offset_s = 5;
	assert_int_equal(compare(&a, &g, ev, 8), 0);
}

static void test_connection(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a);
	a.n_findings = 1;
	a.findings[0] = (event_finding){.code = "chrony.offset", .sev = SEVERITY_WARN};
	/* unreachable: no findings judged, none cleared */
	b.reachable = false;
	b.n_findings = 0;
	event_detect_keep_findings(&a, &b);
	assert_int_equal(b.n_findings, 1);
	one(&a, &b, EVENT_CONNECTION_LOST, "up", "down");
	/* back with the same finding: nothing but the connection */
	event_state c = later(&a);
	one(&b, &c, EVENT_CONNECTION_RESTORED, "down", "up");
	/* back without it: cleared then */
	event_state d = later(&a);
	d.n_findings = 0;
	event ev[8];
	assert_int_equal(compare(&b, &d, ev, 8), 2);
	assert_int_equal(ev[1].kind, EVENT_FINDING_CLEARED);
	/* the pure comparison alone does not look at findings while unreachable */
	event_state e = later(&a);
	e.reachable = false;
	e.n_findings = 0;
	one(&a, &e, EVENT_CONNECTION_LOST, "up", "down");
}

/* No debounce: a flip and its flip back one poll later are two events. */
static void test_flip_back_is_two_events(void **state)
{
	(void)state;
	event_state a = base(), b = later(&a), c = later(&b);
	snprintf(b.grandmaster, sizeof b.grandmaster, GM_B);
	one(&a, &b, EVENT_PTP_GRANDMASTER, GM_A, GM_B);
	one(&b, &c, EVENT_PTP_GRANDMASTER, GM_B, GM_A);
}

static void test_max_counts_all(void **state)
{
	(void)state;
	event ev[2];
	event_state a = base(), b = later(&a);
	b.status = NODE_STATUS_CRIT;
	b.reachable = false;
	b.clock_class = 248;
	assert_int_equal(compare(&a, &b, ev, 2), 3);
}

/* ------------------------------------------------------------- the log */

static void stage(event_log *l, event_kind kind, uint32_t index, const char *from, const char *to)
{
	event e;
	event_set(&e, kind, index, 1000 + index, "", from, to, "m");
	event_log_stage(l, &e);
}

static void test_grouping(void **state)
{
	(void)state;
	event_log *l = event_log_new(100);
	/* 6 nodes change grandmaster (more than 5: a group), 5 change status
	 * (not more than 5: single events), one node something else */
	for (uint32_t i = 0; i < 6; i++) {
		stage(l, EVENT_PTP_GRANDMASTER, i, GM_A, GM_B);
	}
	for (uint32_t i = 0; i < 5; i++) {
		stage(l, EVENT_STATUS, i, "ok", "warn");
	}
	stage(l, EVENT_PTP_GRANDMASTER, 9, GM_A, "ffffff.fffe.000000");
	assert_int_equal(event_log_commit(l, 5), 1 + 6 + 5 + 1);
	const event *g = event_log_at(l, 0);
	assert_int_equal(g->kind, EVENT_GROUP);
	assert_int_equal(g->group_kind, EVENT_PTP_GRANDMASTER);
	assert_int_equal(g->group_size, 6);
	assert_int_equal(g->node, EVENT_NODE_GROUP);
	assert_string_equal(g->message, "6 nodes: grandmaster " GM_A " -> " GM_B);
	for (size_t i = 1; i <= 6; i++) {
		const event *m = event_log_at(l, i);
		assert_int_equal(m->kind, EVENT_PTP_GRANDMASTER);
		assert_int_equal(m->group, g->id);
		assert_int_equal(m->node, i - 1);
	}
	for (size_t i = 7; i < 13; i++) {
		assert_int_equal(event_log_at(l, i)->group, 0);
	}
	/* a group counts once */
	assert_int_equal(event_log_count_since(l, 0), 1 + 5 + 1);
	/* nothing staged: nothing appended */
	assert_int_equal(event_log_commit(l, 5), 0);

	/* restarts group although their PIDs differ */
	for (uint32_t i = 0; i < 7; i++) {
		event e;
		char from[16], to[16];
		snprintf(from, sizeof from, "%u", 100 + i);
		snprintf(to, sizeof to, "%u", 200 + i);
		event_set(&e, EVENT_DAEMON_RESTARTED, i, 2000, "phc2sys", from, to, "m");
		event_log_stage(l, &e);
	}
	assert_int_equal(event_log_commit(l, 5), 8);
	const event *r = event_log_at(l, 13);
	assert_int_equal(r->kind, EVENT_GROUP);
	assert_string_equal(r->message, "7 nodes: phc2sys restarted");
	event_log_free(l);
}

static void test_ring(void **state)
{
	(void)state;
	event_log *l = event_log_new(4);
	for (uint32_t i = 0; i < 6; i++) {
		stage(l, EVENT_STATUS, i, "ok", "crit");
		assert_int_equal(event_log_commit(l, 5), 1);
	}
	assert_int_equal(event_log_count(l), 4);
	assert_int_equal(event_log_overwritten(l), 2);
	assert_int_equal(event_log_last_id(l), 6);
	assert_int_equal(event_log_at(l, 0)->id, 3);
	assert_int_equal(event_log_at(l, 3)->id, 6);
	assert_null(event_log_at(l, 4));
	assert_null(event_log_find(l, 2));
	assert_int_equal(event_log_find(l, 5)->node, 4);
	assert_null(event_log_find(l, 7));
	/* times 1002..1005 */
	assert_int_equal(event_log_count_since(l, 1004), 2);
	event_log_free(l);
}

/* 100,000 events: the ring takes them without growing, and the newest is
 * found at once. */
static void test_hundred_thousand(void **state)
{
	(void)state;
	event_log *l = event_log_new(EVENT_LOG_DEFAULT_CAPACITY);
	for (uint32_t i = 0; i < 120000; i++) {
		stage(l, EVENT_STATUS, i % 1000, "ok", "warn");
		if (i % 1000 == 999) {
			event_log_commit(l, 1000); /* no group: 1000 nodes, group over 1000 */
		}
	}
	assert_int_equal(event_log_count(l), EVENT_LOG_DEFAULT_CAPACITY);
	assert_int_equal(event_log_last_id(l), 120000);
	assert_int_equal(event_log_find(l, 120000)->node, 999);
	event_log_free(l);
}

/* ----------------------------------------------- through node_update */

static void answered_obs(observation *o, double t, const char *gm, ptp_port_state port)
{
	observation_init(o);
	o->taken_at = t;
	o->rtt_s = 0.01;
	ptp_obs *p = &o->ptp;
	p->state = OBS_OK;
	p->gm_present = 1;
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm);
	snprintf(p->gm_identity, sizeof p->gm_identity, "%s", gm);
	p->gm_clock_class = 6;
	p->offset_from_master_ns = 40;
	p->n_ports = 1;
	p->ports[0].port_number = 1;
	p->ports[0].state = port;
	snprintf(p->ports[0].interface, sizeof p->ports[0].interface, "eth0");
}

static void test_node_update_detects(void **state)
{
	(void)state;
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu001");
	thresholds th;
	thresholds_init_defaults(&th);
	event_log *l = event_log_new(64);
	event_watch w = {.log = l, .index = 3, .limits = {.step_s = th.event_step_s}};
	n->watch = &w;
	observation o;

	answered_obs(&o, 1000, GM_A, PTP_PORT_SLAVE);
	node_update_observation(n, &o, &th);
	assert_int_equal(event_log_commit(l, 5), 0);
	assert_false(w.settled);
	/* a change before the first refresh is part of start-up */
	answered_obs(&o, 1000.5, GM_B, PTP_PORT_SLAVE);
	node_update_observation(n, &o, &th);
	event_log_watch_refresh(&w, n, 1000.6);
	assert_true(w.settled);
	assert_int_equal(event_log_commit(l, 5), 0); /* the baseline */

	answered_obs(&o, 1001, GM_A, PTP_PORT_SLAVE);
	node_update_observation(n, &o, &th);
	node_update_unreachable(n, "connection refused", &th);
	assert_true(event_log_commit(l, 5) >= 3);
	bool gm = false, lost = false, status = false;
	for (size_t i = 0; i < event_log_count(l); i++) {
		const event *e = event_log_at(l, i);
		assert_int_equal(e->node, 3);
		/* the baseline is the settled state (GM_B), not the first answer */
		gm |= e->kind == EVENT_PTP_GRANDMASTER && strcmp(e->from, GM_B) == 0 && strcmp(e->to, GM_A) == 0 &&
		      e->t == 1001;
		lost |= e->kind == EVENT_CONNECTION_LOST;
		status |= e->kind == EVENT_STATUS && strcmp(e->to, "unknown") == 0;
	}
	assert_true(gm);
	assert_true(lost);
	assert_true(status);
	event_log_free(l);
	free(n);
}

/* The kinds of the events committed since index from, as "kind subject"
 * lines, and how many. */
static size_t committed(event_log *l, size_t from, char *out, size_t out_len)
{
	out[0] = '\0';
	size_t used = 0;
	for (size_t i = from; i < event_log_count(l); i++) {
		const event *e = event_log_at(l, i);
		used += (size_t)snprintf(out + used, used < out_len ? out_len - used : 0, "%s %s %s>%s;",
					 event_kind_name(e->kind), e->subject, e->from, e->to);
		if (used >= out_len) {
			used = out_len - 1;
		}
	}
	print_message("# %s\n", out);
	return event_log_count(l) - from;
}

/* One poll of a PTP node whose offset is offset_ns, then the refresh. */
static size_t poll_offset(node *n, event_log *l, const thresholds *th, double t, int64_t offset_ns, char *what,
			  size_t what_len)
{
	observation o;
	answered_obs(&o, t, GM_A, PTP_PORT_SLAVE);
	o.ptp.offset_from_master_ns = offset_ns;
	node_update_observation(n, &o, th);
	size_t from = event_log_count(l);
	event_log_refresh(l, n, 1, t + 0.1);
	event_log_commit(l, 5);
	return committed(l, from, what, what_len);
}

/* Events follow what the live view shows (finding_wait.h): a finding is no
 * event while it waits its `for`, a flap shorter than that is none at all,
 * and the status event is the status the node is drawn in. */
static void test_events_wait_for(void **state)
{
	(void)state;
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu001");
	thresholds th;
	thresholds_init_defaults(&th);
	th.findings_wait = true; /* the live view */
	assert_true(finding_wait_for(&th, "ptp.offset") == 30.0);
	event_log *l = event_log_new(256);
	event_watch w = {.log = l, .index = 0, .limits = {.step_s = th.event_step_s}};
	n->watch = &w;
	char what[512];

	assert_int_equal(poll_offset(n, l, &th, 1000, 40, what, sizeof what), 0); /* the baseline */
	assert_true(w.settled);
	/* 5 µs off: ptp.offset, pending for 30 s: drawn "pending", no event */
	assert_int_equal(poll_offset(n, l, &th, 1001, 5000, what, sizeof what), 0);
	assert_int_equal(health_live_status(n), NODE_STATUS_PENDING);
	assert_int_equal(poll_offset(n, l, &th, 1011, 5000, what, sizeof what), 0);
	/* back before its `for`: a flap, and it costs no event */
	assert_int_equal(poll_offset(n, l, &th, 1021, 40, what, sizeof what), 0);
	/* off again: it waits from the start */
	assert_int_equal(poll_offset(n, l, &th, 1031, 5000, what, sizeof what), 0);
	assert_int_equal(poll_offset(n, l, &th, 1051, 5000, what, sizeof what), 0);
	/* lasted 30 s: now it is raised, and the node is warn */
	assert_int_equal(poll_offset(n, l, &th, 1061, 5000, what, sizeof what), 2);
	assert_non_null(strstr(what, "status  ok>warn;"));
	assert_non_null(strstr(what, "finding_raised ptp.offset >warn;"));
	const event *raised = event_log_at(l, event_log_count(l) - 1);
	if (raised->kind != EVENT_FINDING_RAISED) {
		raised = event_log_at(l, event_log_count(l) - 2);
	}
	assert_true(raised->t == 1061);
	assert_non_null(strstr(raised->message, "for 30 s"));
	/* gone: cleared, and ok */
	assert_int_equal(poll_offset(n, l, &th, 1071, 40, what, sizeof what), 2);
	assert_non_null(strstr(what, "status  warn>ok;"));
	assert_non_null(strstr(what, "finding_cleared ptp.offset warn>;"));

	/* a finding real at once (`for` 0) beside a pending one: raised at
	 * once, and the status is the lasting one */
	assert_int_equal(poll_offset(n, l, &th, 1081, 5000, what, sizeof what), 0);
	observation o;
	answered_obs(&o, 1082, GM_A, PTP_PORT_FAULTY);
	o.ptp.offset_from_master_ns = 5000;
	node_update_observation(n, &o, &th);
	size_t from = event_log_count(l);
	event_log_refresh(l, n, 1, 1082.1);
	event_log_commit(l, 5);
	committed(l, from, what, sizeof what);
	assert_non_null(strstr(what, "finding_raised ptp.port_state >"));
	assert_null(strstr(what, "ptp.offset"));
	char status[64];
	snprintf(status, sizeof status, "status  ok>%s;", node_status_name(health_live_status(n)));
	assert_non_null(strstr(what, status));

	/* a cluster finding waits its `for` too: cluster.offset_spread, 30 s */
	event_log_free(l);
	l = event_log_new(256);
	enum { N = 3 };
	event_watch cw[N];
	node *nodes = cluster_nodes(N, l, cw);
	event_log_refresh(l, nodes, N, 2000);
	for (double t = 2001; t < 2030; t += 10) {
		for (int i = 0; i < N; i++) {
			nodes[i].obs.taken_at = t;
		}
		give_cluster_finding(&nodes[0], "cluster.offset_spread", SEVERITY_WARN, &th);
		event_log_refresh(l, nodes, N, t);
		assert_int_equal(event_log_commit(l, 5), 0);
	}
	nodes[0].obs.taken_at = 2031;
	give_cluster_finding(&nodes[0], "cluster.offset_spread", SEVERITY_WARN, &th);
	event_log_refresh(l, nodes, N, 2031);
	assert_int_equal(committed(l, 0, what, sizeof what), 0);
	event_log_commit(l, 5);
	assert_int_equal(committed(l, 0, what, sizeof what), 2);
	assert_non_null(strstr(what, "cluster_finding_raised cluster.offset_spread >warn;"));
	event_log_free(l);
	free(nodes);
	free(n);
}

/* What is wrong at start-up is the baseline even while it waits its `for`:
 * how long it had lasted before synctop started is unknown. */
static void test_start_up_pending_is_baseline(void **state)
{
	(void)state;
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu001");
	thresholds th;
	thresholds_init_defaults(&th);
	th.findings_wait = true;
	event_log *l = event_log_new(256);
	event_watch w = {.log = l, .index = 0, .limits = {.step_s = th.event_step_s}};
	n->watch = &w;
	char what[512];
	assert_int_equal(poll_offset(n, l, &th, 1000, 5000, what, sizeof what), 0);
	assert_true(w.settled);
	assert_int_equal(health_live_status(n), NODE_STATUS_PENDING);
	for (double t = 1010; t <= 1040; t += 10) {
		assert_int_equal(poll_offset(n, l, &th, t, 5000, what, sizeof what), 0);
	}
	assert_int_equal(health_live_status(n), NODE_STATUS_WARN); /* lasted: no event, it was there */
	/* it goes: that is a change */
	assert_int_equal(poll_offset(n, l, &th, 1050, 40, what, sizeof what), 2);
	assert_non_null(strstr(what, "finding_cleared ptp.offset warn>;"));
	assert_non_null(strstr(what, "status  warn>ok;"));
	event_log_free(l);
	free(n);
}

/* ------------------------------------------------------ --events FILE */

static void test_file_format(void **state)
{
	(void)state;
	event e;
	/* remote text with an escape sequence, a quote and a newline */
	event_set(&e, EVENT_CHRONY_REFERENCE, 2, 1796312707.5, "", "10.0.0.1", "evil\x1b[31m\"x\"\nref",
		  "chrony reference moved");
	e.id = 42;
	size_t len;
	char *line = event_file_format(&e, "gpu\x1b]0;title\x07" "001", &len);
	assert_non_null(line);
	assert_int_equal(strlen(line), len);
	assert_int_equal(line[len - 1], '\n');
	assert_null(memchr(line, '\x1b', len));
	assert_null(memchr(line, '\n', len - 1)); /* one line */
	json_error_t err;
	json_t *o = json_loads(line, 0, &err);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "id")), 42);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "chrony_reference");
	assert_string_equal(json_string_value(json_object_get(o, "scope")), "node");
	assert_string_equal(json_string_value(json_object_get(o, "node")), "gpu001");
	assert_string_equal(json_string_value(json_object_get(o, "from")), "10.0.0.1");
	assert_string_equal(json_string_value(json_object_get(o, "to")), "evil\"x\" ref");
	assert_true(json_is_null(json_object_get(o, "subject")));
	assert_true(json_is_null(json_object_get(o, "group")));
	assert_string_equal(json_string_value(json_object_get(o, "time")), "2026-12-03T15:45:07.500Z");
	assert_null(json_object_get(o, "nodes"));
	json_decref(o);
	free(line);

	event g;
	event_set(&g, EVENT_GROUP, EVENT_NODE_GROUP, 1, "", "a", "b", "41 nodes: grandmaster a -> b");
	g.group_kind = EVENT_PTP_GRANDMASTER;
	g.group_size = 41;
	line = event_file_format(&g, NULL, &len);
	o = json_loads(line, 0, &err);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "scope")), "group");
	assert_true(json_is_null(json_object_get(o, "node")));
	assert_int_equal(json_integer_value(json_object_get(o, "nodes")), 41);
	assert_string_equal(json_string_value(json_object_get(o, "group_kind")), "ptp_grandmaster");
	json_decref(o);
	free(line);
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_file_appends(void **state)
{
	(void)state;
	char path[] = "/tmp/test_event_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4); /* appended to, not replaced */
	close(fd);
	struct ev_loop *loop = ev_loop_new(0);
	event_file *f = event_file_new(loop, path, 0, NULL, NULL);
	assert_non_null(f);
	for (int i = 0; i < 3; i++) {
		event e;
		event_set(&e, EVENT_STATUS, (uint32_t)i, 100 + i, "", "ok", "warn", "status ok -> warn");
		e.id = (uint64_t)i + 1;
		assert_true(event_file_submit(f, &e, "n"));
	}
	event_file_free(f, 5.0); /* drains the queue */
	const char *text = read_all(path);
	assert_int_equal(strncmp(text, "old\n{\"id\":1,", 12), 0);
	int lines = 0;
	for (const char *p = text; *p; p++) {
		lines += *p == '\n';
	}
	assert_int_equal(lines, 4);
	ev_loop_destroy(loop);
	unlink(path);
}

static void on_trouble(void *ctx, const char *err)
{
	(void)err;
	(*(int *)ctx)++;
}

/* A file system that never answers (a FIFO nobody reads: open blocks):
 * submitting never waits; past the queue's bound lines are dropped and
 * counted; freeing gives up on the stuck thread after its grace. */
static void test_file_hung_never_blocks(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_event_fifo_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[sizeof dir + 8];
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	signal(SIGPIPE, SIG_IGN);
	struct ev_loop *loop = ev_loop_new(0);
	int troubles = 0;
	event_file *f = event_file_new(loop, path, 1000, on_trouble, &troubles);
	assert_non_null(f);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t n = 1000 + 10;
	size_t queued = 0;
	for (size_t i = 0; i < n; i++) {
		event e;
		event_set(&e, EVENT_STATUS, 1, 100, "", "ok", "warn", "m");
		e.id = i + 1;
		queued += event_file_submit(f, &e, "n");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	print_message("# %zu submits took %.3f s, %zu queued, %lu dropped\n", n, took, queued, event_file_dropped(f));
	assert_int_equal(queued, 1000);
	assert_int_equal(event_file_dropped(f), 10);
	assert_int_equal(event_file_queued(f), 1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	event_file_free(f, 0.2);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	assert_true(took < 2.0);
	/* let the abandoned thread go: a reader that leaves at once makes its
	 * open succeed and its writes fail (EPIPE); it then frees itself */
	int rd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	usleep(100000);
	close(rd);
	usleep(300000);
	ev_loop_destroy(loop);
	unlink(path);
	rmdir(dir);
}

/* ------------------------------------------------- the events screen */

static void test_screen_rows(void **state)
{
	(void)state;
	node *nodes = calloc(3, sizeof *nodes);
	assert_non_null(nodes);
	node_init(&nodes[0], "gpu001");
	node_init(&nodes[1], "gpu002");
	node_init(&nodes[2], "login1");
	event_log *l = event_log_new(8);
	node_filter f;
	filter_init(&f);
	events_state s;
	events_init(&s);

	/* the screen open before any event (no rows yet), then the first ones
	 * arrive: appended to no rows at all (UBSan caught a memmove of NULL) */
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(s.n_rows, 0);
	stage(l, EVENT_STATUS, 0, "ok", "warn");
	stage(l, EVENT_STATUS, 2, "ok", "crit");
	event_log_commit(l, 5);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(s.n_rows, 2);
	assert_int_equal(events_row_id(&s, 0), 2); /* newest first */
	assert_int_equal(events_row_id(&s, 1), 1);
	assert_int_equal(events_row_id(&s, 2), 0);

	/* the user moved to the older one: new events keep it selected */
	assert_int_equal(events_key(&s, l, 3, 'j').flags & HR_HANDLED, HR_HANDLED);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(s.selected_id, 1);
	for (uint32_t i = 0; i < 6; i++) {
		stage(l, EVENT_PTP_GRANDMASTER, i % 2, GM_A, GM_B); /* 3 on each of two nodes: 6 > 5 */
	}
	stage(l, EVENT_STATUS, 1, "warn", "ok");
	assert_int_equal(event_log_commit(l, 5), 8); /* a group of 6 and one more: 10 in a ring of 8 */
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	/* ids 1 and 2 left the ring; the group (3) and id 10 are the rows */
	assert_int_equal(s.n_rows, 2);
	assert_int_equal(events_row_id(&s, 0), 10);
	assert_int_equal(events_row_id(&s, 1), 3);

	/* Enter on the group expands it under itself */
	s.selected = 1;
	assert_true(events_key(&s, l, 3, '\n').flags & HR_REDRAW);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(s.n_rows, 8);
	assert_int_equal(events_row_id(&s, 1), 3);
	assert_int_equal(events_row_id(&s, 2), 4);
	assert_int_equal(events_row_id(&s, 7), 9);
	/* Enter on a member opens its node */
	s.selected = 2;
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	handler_result r = events_key(&s, l, 3, '\n');
	assert_true(r.flags & HR_OPEN_DETAIL);
	assert_int_equal(s.open_node, 0);

	/* the grid's filter: host, kind, values, message */
	char err[64];
	filter_set(&f, "gpu002", err, sizeof err);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	/* id 10, and the expanded group with its members on gpu002 (i = 1, 3, 5) */
	assert_int_equal(s.n_rows, 1 + 1 + 3);
	assert_int_equal(events_row_id(&s, 0), 10);
	assert_int_equal(events_row_id(&s, 1), 3);
	assert_int_equal(events_row_id(&s, 2), 5);
	assert_int_equal(events_row_id(&s, 4), 9);
	filter_set(&f, "!ptp_grandmaster", err, sizeof err);
	s.expanded = 0;
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(s.n_rows, 1);
	assert_int_equal(events_row_id(&s, 0), 10);
	assert_true(events_key(&s, l, 3, 'e').flags & HR_BACK);

	events_free(&s);
	filter_free(&f);
	event_log_free(l);
	free(nodes);
}

/* The two settings are configuration keys: the step per node or group, the
 * grouping limit in "defaults". */
/* A new filter over a full ring is matched a budget a frame, newest first:
 * no frame tests every event; the rest fills in between frames. */
static void test_screen_scan_budget(void **state)
{
	(void)state;
	enum { N = 3 * EVENTS_SCAN_BUDGET + 100 };
	node *nodes = calloc(3, sizeof *nodes);
	assert_non_null(nodes);
	node_init(&nodes[0], "gpu001");
	node_init(&nodes[1], "gpu002");
	node_init(&nodes[2], "login1");
	event_log *l = event_log_new(N);
	for (uint32_t i = 0; i < N; i++) {
		stage(l, EVENT_STATUS, i % 3, "ok", "warn");
		event_log_commit(l, 5); /* one at a time: no groups */
	}
	node_filter f;
	filter_init(&f);
	events_state s;
	events_init(&s);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_true(events_scanning(&s));
	assert_int_equal(s.n_rows, EVENTS_SCAN_BUDGET); /* no filter: every event tested is a row */
	assert_int_equal(events_row_id(&s, 0), N);    /* newest first */
	while (events_scan_step(&s, l, nodes, 3, &f)) {
	}
	assert_int_equal(s.n_rows, N);
	assert_int_equal(events_row_id(&s, N - 1), 1);

	/* the user is on an older event; typing a filter keeps it selected once
	 * the scan reaches it, and new events arrive above the rows meanwhile */
	s.selected = 3 * EVENTS_SCAN_BUDGET; /* id N - 3 * budget */
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	uint64_t chosen = s.selected_id;
	assert_int_equal(chosen, (uint64_t)N - 3 * EVENTS_SCAN_BUDGET);
	assert_true(nodes[(chosen - 1) % 3].host[3] == '0'); /* a gpu node */
	char err[64];
	const char *host = nodes[(chosen - 1) % 3].host;
	filter_set(&f, host, err, sizeof err);
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_true(events_scanning(&s));
	size_t first = s.n_rows;
	assert_true(first > 0 && first <= EVENTS_SCAN_BUDGET);
	stage(l, EVENT_STATUS, (uint32_t)((chosen - 1) % 3), "warn", "crit");
	event_log_commit(l, 5); /* the ring is full: id 1 leaves it */
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	assert_int_equal(events_row_id(&s, 0), N + 1); /* the new one on top at once */
	while (events_scan_step(&s, l, nodes, 3, &f)) {
	}
	events_prepare(&s, l, nodes, 3, &f, 2, 12);
	/* every third event, less the one that left the ring, plus the new one */
	size_t want = 1;
	for (uint64_t id = 2; id <= (uint64_t)N; id++) {
		want += (id - 1) % 3 == (chosen - 1) % 3;
	}
	assert_int_equal(s.n_rows, want);
	assert_int_equal(s.selected_id, chosen);
	assert_int_equal(events_row_id(&s, s.selected), chosen);
	for (long r = 1; r < (long)s.n_rows; r++) {
		assert_true(events_row_id(&s, r) < events_row_id(&s, r - 1));
	}
	events_free(&s);
	filter_free(&f);
	event_log_free(l);
	free(nodes);
}

static void test_config_keys(void **state)
{
	(void)state;
	const char *text = "{\"defaults\": {\"thresholds\": {\"event_step_s\": 0.5, \"event_group_nodes\": 40}},"
			   " \"groups\": [{\"name\": \"gpu\", \"hosts\": \"gpu[1-9]\","
			   " \"thresholds\": {\"event_step_s\": 0.02}}]}";
	conffile *cf = NULL;
	char err[256];
	assert_int_equal(conffile_parse(text, strlen(text), "t.json", &cf, err, sizeof err), 0);
	node_settings ns;
	conffile_resolve(cf, "login1", &ns);
	assert_true(ns.th.event_step_s == 0.5);
	assert_int_equal(ns.th.event_group_nodes, 40);
	conffile_resolve(cf, "gpu3", &ns);
	assert_true(ns.th.event_step_s == 0.02);
	conffile_free(cf);

	thresholds th;
	thresholds_init_defaults(&th);
	assert_true(th.event_step_s == 0.1);
	assert_int_equal(th.event_group_nodes, 5);

	const char *bad = "{\"defaults\": {\"thresholds\": {\"event_group_nodes\": -1}}}";
	assert_int_not_equal(conffile_parse(bad, strlen(bad), "t.json", &cf, err, sizeof err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_unchanged_is_silent),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_cluster_compare),
		cmocka_unit_test(test_cluster_events_in_the_log),
		cmocka_unit_test(test_chrony),
		cmocka_unit_test(test_ntp_peer),
		cmocka_unit_test(test_ptp),
		cmocka_unit_test(test_daemon_restarted_once),
		cmocka_unit_test(test_clock_step),
		cmocka_unit_test(test_connection),
		cmocka_unit_test(test_flip_back_is_two_events),
		cmocka_unit_test(test_max_counts_all),
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_hundred_thousand),
		cmocka_unit_test(test_node_update_detects),
		cmocka_unit_test(test_events_wait_for),
		cmocka_unit_test(test_start_up_pending_is_baseline),
		cmocka_unit_test(test_file_format),
		cmocka_unit_test(test_file_appends),
		cmocka_unit_test(test_file_hung_never_blocks),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_screen_rows),
		cmocka_unit_test(test_screen_scan_budget),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
