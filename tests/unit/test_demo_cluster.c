/* test_demo_cluster.c - the demo cluster's tool output goes through the real
 * splitter, parsers and health rules and gives every scenario node its
 * expected verdict; its numbers move realistically and deterministically;
 * the demo transport delivers the same text through the transport events.
 *
 * Nodes are malloc'd (their history is large) and polled the way the
 * scheduler does: decode, push a history sample, evaluate. */
#include <config.h>

#include <ev.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "chrony_select.h"
#include "cluster.h"
#include "collector.h"
#include "consistency.h"
#include "demo_cluster.h"
#include "text_sink.h"
#include "demo_transport.h"
#include "health.h"
#include "log.h"
#include "node.h"
#include "node_settings.h"
#include "probe.h"
#include "probe_decode.h"
#include "thresholds.h"

#define EPOCH 1796208000.0 /* a plausible unix time: the simulation's time 0 */
#define NONCE "0123456789abcdef"
#define MAX_CODES 4

/* What each scenario's node must look like after one poll. */
typedef struct {
	demo_scenario scenario;
	node_status status;
	const char *codes[MAX_CODES]; /* exactly these findings, in any order */
} verdict;

static const verdict verdicts[] = {
	{DEMO_NTP_SERVER, NODE_STATUS_OK, {NULL}},
	{DEMO_GRANDMASTER_A, NODE_STATUS_OK, {NULL}},
	/* B has lost its reference: holdover (clockClass 7), as its followers see */
	{DEMO_GRANDMASTER_B, NODE_STATUS_WARN, {"ptp.gm_clock_class"}},
	{DEMO_LOGIN, NODE_STATUS_OK, {NULL}},
	{DEMO_HEALTHY, NODE_STATUS_OK, {NULL}},
	{DEMO_DRIFT, NODE_STATUS_OK, {NULL}}, /* until 10 min of history: see test_drift_* */
	{DEMO_UNSYNC, NODE_STATUS_CRIT, {"chrony.leap", "chrony.no_selected_source", "chrony.reach"}},
	{DEMO_LEAP, NODE_STATUS_WARN, {"chrony.leap"}},
	{DEMO_OTHER_GM, NODE_STATUS_WARN, {"ptp.gm_clock_class"}},
	{DEMO_SOFT_TS, NODE_STATUS_WARN, {"ptp.offset", "nic.no_hw_timestamping"}},
	{DEMO_SLOW, NODE_STATUS_OK, {NULL}},
	{DEMO_UNREACHABLE, NODE_STATUS_UNKNOWN, {NULL}}, /* never answers: test_transport_unreachable */
	{DEMO_CHRONYD_DOWN, NODE_STATUS_CRIT, {"time.no_service"}},
	{DEMO_LARGE_OFFSET, NODE_STATUS_WARN, {"chrony.offset"}},
	{DEMO_PTP_FAULTY, NODE_STATUS_CRIT, {"ptp.port_state"}},
	/* its daemon's claim is fine: only the clock check (scheduler) sees it */
	{DEMO_WRONG_CLOCK, NODE_STATUS_OK, {NULL}},
	/* ptp4l locked, but nothing steers the system clock from its PHC */
	{DEMO_PHC2SYS_DIED, NODE_STATUS_CRIT, {"ptp.system_clock_unsteered"}},
	/* still SLAVE, but the last Sync is 42 s old */
	{DEMO_SYNC_STOPPED, NODE_STATUS_CRIT, {"ptp.no_sync"}},
	/* a training container's chronyd with CAP_SYS_TIME beside the host's */
	{DEMO_CONTAINER_CHRONYD, NODE_STATUS_CRIT, {"time.daemon_in_container"}},
	/* ntpd and systemd-timesyncd synchronised to ntp1: read by ntpq and
	 * timedatectl, nothing to say (no "cannot inspect") */
	{DEMO_NTPD, NODE_STATUS_OK, {NULL}},
	{DEMO_TIMESYNCD, NODE_STATUS_OK, {NULL}},
};

static const verdict *verdict_of(demo_scenario s)
{
	for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++) {
		if (verdicts[i].scenario == s) {
			return &verdicts[i];
		}
	}
	fail_msg("no verdict for scenario %d", (int)s);
	return NULL;
}

static bool runs_ptp(demo_scenario s)
{
	return s != DEMO_NTP_SERVER && s != DEMO_LOGIN && s != DEMO_CHRONYD_DOWN && s != DEMO_NTPD &&
	       s != DEMO_TIMESYNCD;
}

static size_t index_of(const demo_cluster *c, demo_scenario s)
{
	for (size_t i = 0; i < demo_cluster_count(c); i++) {
		if (demo_cluster_scenario(c, i) == s) {
			return i;
		}
	}
	fail_msg("no node plays scenario %s", demo_scenario_name(s));
	return 0;
}

static node *new_nodes(const demo_cluster *c)
{
	size_t n = demo_cluster_count(c);
	node *nodes = malloc(n * sizeof *nodes);
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++) {
		node_init(&nodes[i], demo_cluster_name(c, i));
	}
	return nodes;
}

/* One poll of node i at unix time now, as the scheduler does it. */
static void poll_node(const demo_cluster *c, size_t i, double now, unsigned flags, const char *iface, node *n)
{
	static char buf[DEMO_RESPONSE_MAX];
	char err[256] = "";
	/* ntpq runs once a minute and the scheduler carries its answer between
	 * (collector carry); this one-poll helper carries nothing: ask it every
	 * time (only the ntpd node answers it) */
	flags |= PROBE_FLAG_NTPQ;
	int len = demo_cluster_render_response(c, i, now, NONCE, flags, iface, false, buf, sizeof buf);
	assert_true(len > 0);
	assert_int_equal(probe_find_end(buf, (size_t)len, NONCE), (size_t)len);

	observation_init(&n->obs);
	if (probe_decode(buf, (size_t)len, NONCE, &n->obs, err, sizeof err) != 0) {
		fail_msg("%s: %s", n->host, err);
	}
	n->obs.taken_at = now;
	n->obs.rtt_s = demo_cluster_rtt_s(c, i, 0);
	n->has_observation = true;
	n->reachable = true;
	n->error[0] = '\0';

	history_sample s = {.t = now};
	const observation *o = &n->obs;
	s.value[HISTORY_OFFSET_S] = o->chrony.state == OBS_OK ? (float)o->chrony.tracking.system_time_offset_s : NAN;
	s.value[HISTORY_FREQUENCY_PPM] = o->chrony.state == OBS_OK ? (float)o->chrony.tracking.frequency_ppm : NAN;
	s.value[HISTORY_SKEW_PPM] = o->chrony.state == OBS_OK ? (float)o->chrony.tracking.skew_ppm : NAN;
	s.value[HISTORY_PTP_OFFSET_NS] = o->ptp.offset_from_master_ns == PTP_NS_UNKNOWN ?
		NAN : (float)o->ptp.offset_from_master_ns;
	s.value[HISTORY_PATH_DELAY_NS] = o->ptp.mean_path_delay_ns == PTP_NS_UNKNOWN ?
		NAN : (float)o->ptp.mean_path_delay_ns;
	history_push(&n->history, &s);
}

static bool has_code(const node *n, const char *code)
{
	for (int k = 0; k < n->findings.count; k++) {
		if (strcmp(n->findings.items[k].code, code) == 0) {
			return true;
		}
	}
	return false;
}

static void print_findings(const node *n)
{
	for (int k = 0; k < n->findings.count; k++) {
		print_message("  %s: %s %s\n", n->host, n->findings.items[k].code, n->findings.items[k].message);
	}
}

static void assert_verdict(const node *n, const verdict *v)
{
	int want = 0;
	for (; want < MAX_CODES && v->codes[want]; want++) {
		if (!has_code(n, v->codes[want])) {
			print_findings(n);
			fail_msg("%s (%s): missing finding %s", n->host, demo_scenario_name(v->scenario),
				 v->codes[want]);
		}
	}
	if (n->findings.count != want || n->status != v->status) {
		print_findings(n);
		fail_msg("%s (%s): status %s with %d findings, want %s with %d", n->host,
			 demo_scenario_name(v->scenario), node_status_name(n->status), n->findings.count,
			 node_status_name(v->status), want);
	}
}

/* ------------------------------------------------------------- layout */

static void test_layout(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	size_t n = demo_cluster_count(c);
	int per_scenario[DEMO_SCENARIO_COUNT] = {0};

	assert_int_equal(n, 50);
	assert_string_equal(demo_cluster_name(c, 0), "ntp1");
	assert_string_equal(demo_cluster_name(c, 1), "ptp-gm1");
	assert_string_equal(demo_cluster_name(c, 2), "ptp-gm2");
	assert_string_equal(demo_cluster_name(c, 3), "login1");
	assert_string_equal(demo_cluster_name(c, 4), "gpu001");
	assert_string_equal(demo_cluster_name(c, n - 3), "gpu044");
	assert_string_equal(demo_cluster_name(c, n - 2), "build1");
	assert_int_equal(demo_cluster_scenario(c, n - 2), DEMO_NTPD);
	assert_string_equal(demo_cluster_name(c, n - 1), "edge1");
	assert_int_equal(demo_cluster_scenario(c, n - 1), DEMO_TIMESYNCD);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(demo_cluster_name(c, i), demo_cluster_name(c, j));
		}
		demo_scenario s = demo_cluster_scenario(c, i);
		assert_true(s < DEMO_SCENARIO_COUNT);
		per_scenario[s]++;
		assert_true(probe_iface_valid(demo_cluster_iface(c, i)));
		assert_true(demo_cluster_reachable(c, i) == (s != DEMO_UNREACHABLE));
	}
	for (int s = 0; s < DEMO_SCENARIO_COUNT; s++) {
		assert_string_not_equal(demo_scenario_name((demo_scenario)s), "?");
		if (s != DEMO_HEALTHY) {
			assert_int_equal(per_scenario[s], 1);
		}
	}
	assert_true(per_scenario[DEMO_HEALTHY] >= 30);
	demo_cluster_free(c);
}

/* ------------------------------------------------------------ parsing */

static void test_every_section_parses(void **state)
{
	(void)state;
	static const double times[] = {0, 1.5, 61.25, 599.9, 3599.999, 2 * 86400 + 17.3, -30};
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *nodes = new_nodes(c);

	for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
		double now = EPOCH + times[k];
		for (size_t i = 0; i < demo_cluster_count(c); i++) {
			demo_scenario s = demo_cluster_scenario(c, i);
			node *n = &nodes[i];
			poll_node(c, i, now, PROBE_FLAG_ETHTOOL, "-", n);
			const observation *o = &n->obs;

			assert_int_equal(o->daemons.state, OBS_OK);
			assert_int_equal(o->nic.state, OBS_OK);
			assert_string_equal(o->nic.interface, demo_cluster_iface(c, i));
			assert_true(isfinite(o->node_time));
			if (s == DEMO_UNSYNC || s == DEMO_CHRONYD_DOWN) {
				/* a free-running clock: its own frequency error adds up */
				assert_true(fabs(o->node_time - now) < 0.5 + 20e-6 * fabs(times[k]));
				assert_true(fabs(o->node_time - now) > 0.01);
			} else if (s == DEMO_WRONG_CLOCK) {
				assert_true(fabs(o->node_time - now - 2.2) < 0.01);
			} else if (s == DEMO_PHC2SYS_DIED) {
				/* 4 ms off when phc2sys died, drifting since */
				assert_true(fabs(o->node_time - now - (4e-3 + 0.2e-6 * times[k])) < 1e-3);
			} else {
				assert_true(fabs(o->node_time - now) < 0.01);
			}
			if (s == DEMO_CHRONYD_DOWN || s == DEMO_PHC2SYS_DIED) {
				assert_int_equal(o->chrony.state, OBS_DAEMON_UNREACHABLE);
				assert_int_equal(o->daemons.running & DAEMON_CHRONYD, 0);
			} else if (s == DEMO_NTPD || s == DEMO_TIMESYNCD) {
				/* no chrony installed; the node's own daemon answers */
				assert_int_equal(o->chrony.state, OBS_TOOL_MISSING);
				assert_int_equal(o->daemons.running & DAEMON_CHRONYD, 0);
				assert_true(o->daemons.running & (s == DEMO_NTPD ? DAEMON_NTPD : DAEMON_TIMESYNCD));
				if (s == DEMO_NTPD) {
					assert_int_equal(o->ntp.state, OBS_OK);
					assert_non_null(ntp_system_peer(&o->ntp));
				} else {
					assert_int_equal(o->timesyncd.state, OBS_OK);
				}
			} else {
				assert_int_equal(o->chrony.state, OBS_OK);
				assert_true(o->daemons.running & DAEMON_CHRONYD);
				assert_true(o->chrony.n_sources >= 1);
				assert_int_equal(o->chrony.n_sourcestats, o->chrony.n_sources);
			}
			if (runs_ptp(s)) {
				assert_int_equal(o->ptp.state, OBS_OK);
				assert_true(o->daemons.running & DAEMON_PTP4L);
				assert_int_equal(o->ptp.n_ports, 1);
				assert_string_equal(o->ptp.ports[0].interface, demo_cluster_iface(c, i));
				assert_int_equal(o->ptp.foreign_responses, 0);
				assert_string_equal(o->ptp.error, "");
			} else {
				/* pmc exits 0 with only its "sending:" lines */
				assert_int_equal(o->ptp.state, OBS_DAEMON_UNREACHABLE);
				assert_int_equal(o->daemons.running & DAEMON_PTP4L, 0);
			}
		}
	}
	free(nodes);
	demo_cluster_free(c);
}

static void test_scenario_verdicts(void **state)
{
	(void)state;
	static const double times[] = {0, 2, 333.3, 1800, 4 * 3600 + 5, 86400 * 9};
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *nodes = new_nodes(c);
	thresholds th;
	thresholds_init_defaults(&th);

	for (size_t k = 0; k < sizeof times / sizeof times[0]; k++) {
		for (size_t i = 0; i < demo_cluster_count(c); i++) {
			const verdict *v = verdict_of(demo_cluster_scenario(c, i));
			node *n = &nodes[i];
			node_init(n, demo_cluster_name(c, i)); /* one poll: no history */
			if (!demo_cluster_reachable(c, i)) {
				health_apply(n, &th);
				assert_int_equal(n->status, NODE_STATUS_UNKNOWN);
				continue;
			}
			/* with and without the NIC section: ptp4l's own timestamping
			 * report must give the same verdict */
			poll_node(c, i, EPOCH + times[k], PROBE_FLAG_ETHTOOL, "-", n);
			health_apply(n, &th);
			assert_verdict(n, v);
			poll_node(c, i, EPOCH + times[k] + 1, 0, "-", n);
			assert_int_equal(n->obs.nic.state, OBS_NOT_COLLECTED);
			health_apply(n, &th);
			assert_verdict(n, v);
		}
	}
	free(nodes);
	demo_cluster_free(c);
}

/* Every node polled every 5 s: the drift rule needs 10 min of history. */
static void test_drift_fires_after_ten_minutes(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *nodes = new_nodes(c);
	thresholds th;
	thresholds_init_defaults(&th);
	size_t drift = index_of(c, DEMO_DRIFT);

	for (int p = 0; p <= 132; p++) {
		double now = EPOCH + 5.0 * p;
		for (size_t i = 0; i < demo_cluster_count(c); i++) {
			if (demo_cluster_reachable(c, i)) {
				poll_node(c, i, now, p == 0 ? PROBE_FLAG_ETHTOOL : 0, "-", &nodes[i]);
			}
		}
		if (p != 118 && p != 132) {
			continue;
		}
		/* 590 s of history: too short to call it a trend; 660 s: enough */
		for (size_t i = 0; i < demo_cluster_count(c); i++) {
			node *n = &nodes[i];
			health_apply(n, &th);
			if (!demo_cluster_reachable(c, i)) {
				assert_int_equal(n->status, NODE_STATUS_UNKNOWN);
			} else if (i == drift && p == 132) {
				assert_true(has_code(n, "chrony.drift"));
				assert_int_equal(n->findings.count, 1);
				assert_int_equal(n->status, NODE_STATUS_WARN);
			} else {
				assert_verdict(n, verdict_of(demo_cluster_scenario(c, i)));
			}
		}
	}
	free(nodes);
	demo_cluster_free(c);
}

/* ------------------------------------------------------------- motion */

static void test_values_move_realistically(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *n = malloc(sizeof *n);
	assert_non_null(n);

	static const demo_scenario looked_at[] = {DEMO_HEALTHY, DEMO_NTP_SERVER, DEMO_SOFT_TS, DEMO_LARGE_OFFSET,
						   DEMO_OTHER_GM};
	for (size_t k = 0; k < sizeof looked_at / sizeof looked_at[0]; k++) {
		size_t i = index_of(c, looked_at[k]);
		demo_scenario s = looked_at[k];
		double off_min = INFINITY, off_max = -INFINITY, freq_min = INFINITY, freq_max = -INFINITY;
		int64_t ptp_min = INT64_MAX, ptp_max = INT64_MIN, delay_min = INT64_MAX, delay_max = INT64_MIN;
		int changes = 0;
		double last = NAN;
		node_init(n, demo_cluster_name(c, i));
		for (int p = 0; p < 900; p++) { /* 30 min at a 2 s poll */
			poll_node(c, i, EPOCH + 2.0 * p, 0, "-", n);
			const observation *o = &n->obs;
			double off = o->chrony.tracking.system_time_offset_s;
			off_min = fmin(off_min, off);
			off_max = fmax(off_max, off);
			freq_min = fmin(freq_min, o->chrony.tracking.frequency_ppm);
			freq_max = fmax(freq_max, o->chrony.tracking.frequency_ppm);
			changes += off != last;
			last = off;
			if (s != DEMO_NTP_SERVER) {
				int64_t po = o->ptp.offset_from_master_ns, d = o->ptp.mean_path_delay_ns;
				assert_true(po == o->ptp.master_offset_ns);
				ptp_min = po < ptp_min ? po : ptp_min;
				ptp_max = po > ptp_max ? po : ptp_max;
				delay_min = d < delay_min ? d : delay_min;
				delay_max = d > delay_max ? d : delay_max;
			}
		}
		assert_true(changes > 800);          /* moves every poll */
		assert_true(freq_max - freq_min > 0.005);
		assert_true(freq_max - freq_min < 0.2); /* but a steady oscillator */
		assert_true(fabs(freq_min) < 30);
		switch (s) {
		case DEMO_HEALTHY:
		case DEMO_OTHER_GM:
			assert_true(off_max < 40e-6 && off_min > -40e-6);  /* tens of µs */
			assert_true(off_max - off_min > 5e-6);
			assert_true(ptp_max < 150 && ptp_min > -150);       /* tens of ns */
			assert_true(ptp_max - ptp_min > 20);
			assert_true(delay_min >= 500 && delay_max <= 2000); /* and stable */
			assert_true(delay_max - delay_min < 40);
			break;
		case DEMO_NTP_SERVER:
			assert_true(off_max < 80e-6 && off_min > -80e-6);
			break;
		case DEMO_SOFT_TS:
			assert_true(ptp_max < -1000 && ptp_min > -20000); /* software: µs */
			assert_true(delay_min > 10000 && delay_max < 30000);
			break;
		case DEMO_LARGE_OFFSET:
			assert_true(off_min > 2.5e-3 && off_max < 3.5e-3);
			break;
		default:
			break;
		}
	}
	free(n);
	demo_cluster_free(c);
}

static double frequency_at(const demo_cluster *c, size_t i, double t, node *n)
{
	node_init(n, demo_cluster_name(c, i));
	poll_node(c, i, EPOCH + t, 0, "-", n);
	return n->obs.chrony.tracking.frequency_ppm;
}

static void test_drift_ramps_five_ppm_per_hour(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	size_t i = index_of(c, DEMO_DRIFT);
	double f0 = frequency_at(c, i, 0, n);
	double f10 = frequency_at(c, i, 600, n);
	double f60 = frequency_at(c, i, 3600, n);
	double f240 = frequency_at(c, i, 4 * 3600, n);
	double f480 = frequency_at(c, i, 8 * 3600, n);
	assert_true(fabs(f10 - f0 - 5.0 / 6) < 0.1);
	assert_true(fabs(f60 - f0 - 5.0) < 0.1);
	assert_true(fabs(f240 - f0 - 20.0) < 0.1); /* the top of its thermal cycle */
	assert_true(fabs(f480 - f0) < 0.1);       /* and back */
	free(n);
	demo_cluster_free(c);
}

static void test_deterministic(void **state)
{
	(void)state;
	demo_cluster *a = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	demo_cluster *b = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	demo_cluster *other = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED + 1, EPOCH);
	static char x[DEMO_RESPONSE_MAX], y[DEMO_RESPONSE_MAX];
	size_t differ = 0;

	for (size_t i = 0; i < demo_cluster_count(a); i++) {
		double now = EPOCH + 123.456;
		int nx = demo_cluster_render_response(a, i, now, NONCE, PROBE_FLAG_ETHTOOL, "-", true, x, sizeof x);
		int ny = demo_cluster_render_response(b, i, now, NONCE, PROBE_FLAG_ETHTOOL, "-", true, y, sizeof y);
		assert_true(nx > 0);
		assert_int_equal(nx, ny);
		assert_memory_equal(x, y, (size_t)nx);
		/* the same node asked again later says the same as a fresh one */
		demo_cluster_render_response(a, i, now + 50, NONCE, 0, "-", false, x, sizeof x);
		nx = demo_cluster_render_response(a, i, now, NONCE, PROBE_FLAG_ETHTOOL, "-", true, x, sizeof x);
		assert_memory_equal(x, y, (size_t)nx);
		ny = demo_cluster_render_response(other, i, now, NONCE, PROBE_FLAG_ETHTOOL, "-", true, y, sizeof y);
		differ += nx != ny || memcmp(x, y, (size_t)nx) != 0;
	}
	assert_true(differ > demo_cluster_count(a) / 2);
	demo_cluster_free(a);
	demo_cluster_free(b);
	demo_cluster_free(other);
}

/* ---------------------------------------------------- request handling */

static void test_request_flags_and_iface(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	static char buf[DEMO_RESPONSE_MAX];
	size_t i = index_of(c, DEMO_HEALTHY);
	const char *iface = demo_cluster_iface(c, i);

	node_init(n, demo_cluster_name(c, i));
	poll_node(c, i, EPOCH, PROBE_FLAG_ETHTOOL, iface, n);
	assert_int_equal(n->obs.nic.state, OBS_OK);
	assert_true((n->obs.nic.caps & (NIC_CAP_HW_TX | NIC_CAP_HW_RX)) == (NIC_CAP_HW_TX | NIC_CAP_HW_RX));
	assert_int_equal(n->obs.nic.phc_index, 0);

	/* sudo -n pmc answers like pmc */
	poll_node(c, i, EPOCH, PROBE_FLAG_ETHTOOL | PROBE_FLAG_SUDO_PMC, "-", n);
	assert_int_equal(n->obs.ptp.state, OBS_OK);

	/* an interface the node does not have: ethtool's own error */
	poll_node(c, i, EPOCH, PROBE_FLAG_ETHTOOL, "eth9", n);
	assert_int_equal(n->obs.nic.state, OBS_NO_DEVICE);
	assert_int_equal(n->obs.chrony.state, OBS_OK);

	/* the soft-timestamping node's NIC */
	size_t soft = index_of(c, DEMO_SOFT_TS);
	poll_node(c, soft, EPOCH, PROBE_FLAG_ETHTOOL, "-", n);
	assert_int_equal(n->obs.nic.caps & (NIC_CAP_HW_TX | NIC_CAP_HW_RX), 0);
	assert_int_equal(n->obs.nic.phc_index, NIC_PHC_NONE);
	assert_string_equal(n->obs.ptp.ports[0].timestamping, "SOFTWARE");

	/* a new shell's ready line comes first and is skipped */
	int len = demo_cluster_render_response(c, i, EPOCH, NONCE, 0, "-", true, buf, sizeof buf);
	assert_true(len > 0);
	assert_memory_equal(buf, "@@synctop ready\n", 16);
	observation_init(&n->obs);
	char err[128];
	assert_int_equal(probe_decode(buf, (size_t)len, NONCE, &n->obs, err, sizeof err), 0);
	assert_int_equal(n->obs.chrony.state, OBS_OK);

	assert_int_equal(demo_cluster_render_response(c, i, EPOCH, "0123456789ABCDEF", 0, "-", false, buf,
						      sizeof buf), -1);
	assert_int_equal(demo_cluster_render_response(c, i, EPOCH, "0123", 0, "-", false, buf, sizeof buf), -1);
	free(n);
	demo_cluster_free(c);
}

static void test_tools_one_by_one(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	char out[8192], err[512];
	size_t on, en;
	size_t down = index_of(c, DEMO_CHRONYD_DOWN);
	size_t healthy = index_of(c, DEMO_HEALTHY);

	int rc = demo_cluster_render_tool(c, down, "chrony", EPOCH, NULL, out, sizeof out, &on, err,
					  sizeof err, &en);
	assert_int_equal(rc, 1);
	assert_string_equal(out, "506 Cannot talk to daemon\n");
	assert_int_equal(on, strlen(out));
	assert_int_equal(en, 0);

	rc = demo_cluster_render_tool(c, healthy, "ethtool", EPOCH, "nope0", out, sizeof out, &on, err,
				      sizeof err, &en);
	assert_int_equal(rc, 1);
	assert_int_equal(on, 0);
	assert_string_equal(err, "netlink error: no device matches name (offset 24)\n"
				 "netlink error: No such device\n");

	rc = demo_cluster_render_tool(c, healthy, "time", EPOCH + 0.5, "-", out, sizeof out, &on, err,
				      sizeof err, &en);
	assert_int_equal(rc, 0);
	assert_true(fabs(probe_decode_node_time(out, on) - (EPOCH + 0.5)) < 1e-3);

	/* every section the demo shows: the time and each collector's */
	assert_int_equal(demo_cluster_render_tool(c, healthy, "no-such-tool", EPOCH, "-", out, sizeof out, &on, err,
						  sizeof err, &en), DEMO_NO_SECTION);
	observation *truth = malloc(sizeof *truth);
	assert_non_null(truth);
	demo_cluster_truth(c, healthy, EPOCH, truth);
	for (size_t k = 0; k <= collector_registry_count; k++) {
		const char *section = k == 0 ? "time" : collector_registry[k - 1]->name;
		const collector *col = k == 0 ? NULL : collector_registry[k - 1];
		if (col && !col->command) {
			continue; /* filled by another source, no section (collector.h) */
		}
		if (col && col->demo_render && col->part_state && col->part_state(truth) == OBS_NOT_COLLECTED) {
			/* a tool the simulator gives this node nothing for (ntpq, timesyncd) */
			assert_int_equal(demo_cluster_render_tool(c, healthy, section, EPOCH, "-", out, sizeof out, &on,
								  err, sizeof err, &en), DEMO_NO_SECTION);
			continue;
		}
		rc = demo_cluster_render_tool(c, healthy, section, EPOCH, "-", out, sizeof out, &on, err,
					      sizeof err, &en);
		assert_int_equal(rc, 0);
		assert_true(on > 0);
		/* too small by one byte: refused, never overrun (ASan watches) */
		char *tight = malloc(on);
		assert_non_null(tight);
		rc = demo_cluster_render_tool(c, healthy, section, EPOCH, "-", tight, on, &on, err,
					      sizeof err, &en);
		assert_int_equal(rc, -1);
		free(tight);
	}
	free(truth);
	demo_cluster_free(c);
}

/* The demo's selectdata parses as chronyc's does: every node running
 * chronyd answers with its sources, the others as chronyc does without a
 * daemon; a healthy client selects its server. */
static void test_selectdata_parses(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	static char out[4096], err[512];
	for (size_t i = 0; i < demo_cluster_count(c); i++) {
		size_t on, en;
		int rc = demo_cluster_render_tool(c, i, "selectdata", EPOCH + 100, "-", out, sizeof out, &on,
						  err, sizeof err, &en);
		assert_true(rc == 0 || rc == 1 || rc == TOOL_RC_NOT_FOUND);
		tool_output t = {.out = out, .out_len = on, .err = err, .err_len = en, .rc = rc};
		chrony_selection sel;
		chrony_select_parse(&t, &sel);
		if (rc == TOOL_RC_NOT_FOUND) {
			assert_int_equal(sel.state, OBS_TOOL_MISSING); /* the ntpd and timesyncd nodes */
		} else if (rc == 0) {
			assert_int_equal(sel.state, OBS_OK);
			assert_true(sel.n_sources >= 1);
		} else {
			assert_int_equal(sel.state, OBS_DAEMON_UNREACHABLE);
		}
	}
	size_t healthy = index_of(c, DEMO_HEALTHY);
	size_t on, en;
	demo_cluster_render_tool(c, healthy, "selectdata", EPOCH + 100, "-", out, sizeof out, &on, err,
				 sizeof err, &en);
	assert_int_equal(out[0], '*');
	demo_cluster_free(c);
}

/* Each collector's demo renderer prints its part of a node's true state so
 * that its own parser reads the same state back: render, decode, render
 * again gives the same bytes, for every node at several times (a field the
 * parser dropped or misread would change the second rendering). */
static void test_renderers_round_trip(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	static char first[8192], second[8192], err1[512], err2[512];
	int rendered = 0;
	for (size_t k = 0; k < collector_registry_count; k++) {
		const collector *col = collector_registry[k];
		if (!col->demo_render) {
			continue;
		}
		for (size_t i = 0; i < demo_cluster_count(c); i++) {
			for (double t = 0; t < 4 * 3600; t += 1234.5) {
				observation truth, decoded;
				text_sink o1, e1, o2, e2;
				demo_cluster_truth(c, i, EPOCH + t, &truth);
				if (col->part_state(&truth) == OBS_NOT_COLLECTED) {
					continue;
				}
				text_sink_init(&o1, first, sizeof first);
				text_sink_init(&e1, err1, sizeof err1);
				int rc = col->demo_render(&truth, "-", &o1, &e1);
				assert_false(o1.overflow || e1.overflow);
				tool_output out = {.out = first, .out_len = o1.len, .err = err1, .err_len = e1.len,
						   .rc = rc};
				observation_init(&decoded);
				col->decode(&out, &decoded);
				assert_int_equal(col->part_state(&decoded), col->part_state(&truth));
				text_sink_init(&o2, second, sizeof second);
				text_sink_init(&e2, err2, sizeof err2);
				assert_int_equal(col->demo_render(&decoded, "-", &o2, &e2), rc);
				if (strcmp(first, second) != 0) {
					fail_msg("%s on %s at +%.1f s: decoding changed it:\n%s---\n%s", col->name,
						 demo_cluster_name(c, i), t, first, second);
				}
				rendered++;
			}
		}
	}
	assert_true(rendered > 100);
	demo_cluster_free(c);
}

static void test_small_buffers(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	static char full[DEMO_RESPONSE_MAX];
	size_t i = index_of(c, DEMO_HEALTHY);
	int len = demo_cluster_render_response(c, i, EPOCH, NONCE, PROBE_FLAG_ETHTOOL, "-", true, full, sizeof full);
	assert_true(len > 0);

	for (size_t cap = 0; cap <= (size_t)len; cap += cap < 64 ? 1 : 97) {
		char *buf = cap ? malloc(cap) : NULL;
		assert_int_equal(demo_cluster_render_response(c, i, EPOCH, NONCE, PROBE_FLAG_ETHTOOL, "-", true, buf,
							      cap), -1);
		free(buf);
	}
	char *exact = malloc((size_t)len + 1);
	assert_non_null(exact);
	assert_int_equal(demo_cluster_render_response(c, i, EPOCH, NONCE, PROBE_FLAG_ETHTOOL, "-", true, exact,
						      (size_t)len + 1), len);
	assert_memory_equal(exact, full, (size_t)len);
	free(exact);
	demo_cluster_free(c);
}

static void test_chunks(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	size_t ends[DEMO_MAX_CHUNKS];
	int seen_many = 0;
	for (uint64_t poll = 0; poll < 500; poll++) {
		size_t len = (size_t)(poll % 7 == 0 ? poll % 3 : 4000 + poll);
		int n = demo_cluster_chunks(c, 5, poll, len, ends);
		assert_true(n >= 1 && n <= DEMO_MAX_CHUNKS);
		assert_int_equal(ends[n - 1], len);
		for (int k = 1; k < n; k++) {
			assert_true(ends[k - 1] < ends[k]);
			assert_true(ends[k - 1] > 0);
		}
		seen_many += n > 1;
	}
	assert_true(seen_many > 200);
	demo_cluster_free(c);
}

static void test_cluster_view(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	node *nodes = new_nodes(c);
	thresholds th;
	thresholds_init_defaults(&th);
	cluster_summary sum;

	for (size_t i = 0; i < demo_cluster_count(c); i++) {
		if (demo_cluster_reachable(c, i)) {
			poll_node(c, i, EPOCH + 10, PROBE_FLAG_ETHTOOL, "-", &nodes[i]);
		}
		health_apply(&nodes[i], &th);
	}
	cluster_summarise(nodes, demo_cluster_count(c), &sum);
	assert_int_equal(sum.nodes, 50);
	assert_int_equal(sum.unknown, 1);
	assert_int_equal(sum.crit, 6);
	assert_int_equal(sum.warn, 5);
	assert_int_equal(sum.ok, 38); /* 36 + the ntpd and timesyncd nodes */
	/* grandmaster A and B (gm2 and gpu023); the FAULTY clock names itself
	 * as ptp4l does, but follows nobody and is not counted */
	assert_int_equal(sum.n_gms, 2);
	size_t gm_b = index_of(c, DEMO_GRANDMASTER_B);
	const char *b = nodes[gm_b].obs.ptp.clock_identity;
	bool found_b = false;
	for (size_t k = 0; k < sum.n_gms; k++) {
		if (strcmp(sum.gms[k].identity, b) == 0) {
			assert_int_equal(sum.gms[k].nodes, 2);
			found_b = true;
		}
	}
	assert_true(found_b);
	assert_true(sum.gms[0].nodes >= 35);
	assert_true(sum.ptp_max_abs_offset_ns > 1000); /* the software-timestamping node */
	free(nodes);
	demo_cluster_free(c);
}

/* The demo changes over time (demo_cluster.c: gpu044's chrony reference,
 * grandmaster B's clockClass, rack 2's chronyd restarts), so the events
 * screen has something to show, but no node's status changes: the tests
 * count them. */
static void test_changes_over_time(void **state)
{
	(void)state;
	static const double times[] = {10, 22, 26, 31, 45, 61, 86, 95};
	enum { N_TIMES = sizeof times / sizeof times[0] };
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, EPOCH);
	size_t n = demo_cluster_count(c);
	node *nodes = new_nodes(c);
	node_settings *settings = calloc(n, sizeof *settings);
	node_status *first = calloc(n, sizeof *first);
	assert_non_null(settings);
	assert_non_null(first);
	for (size_t i = 0; i < n; i++) {
		node_settings_init(&settings[i]);
		snprintf(settings[i].ntp_upstream, sizeof settings[i].ntp_upstream, "%s", demo_cluster_ntp_upstream(c, i));
	}
	size_t gpu044 = index_of(c, DEMO_PTP_FAULTY), gm_b = index_of(c, DEMO_GRANDMASTER_B), gpu020 = 4 + 19;
	assert_string_equal(demo_cluster_name(c, gpu044), "gpu044");
	assert_string_equal(demo_cluster_name(c, gpu020), "gpu020");
	char refs[N_TIMES][64];
	int classes[N_TIMES], pids[N_TIMES];
	for (size_t k = 0; k < N_TIMES; k++) {
		for (size_t i = 0; i < n; i++) {
			if (demo_cluster_reachable(c, i)) {
				poll_node(c, i, EPOCH + times[k], PROBE_FLAG_ETHTOOL, "-", &nodes[i]);
			}
			health_apply(&nodes[i], &settings[i].th);
		}
		consistency_evaluate(nodes, n, settings, NULL);
		for (size_t i = 0; i < n; i++) {
			if (k == 0) {
				first[i] = nodes[i].status;
			} else if (nodes[i].status != first[i]) {
				print_findings(&nodes[i]);
				fail_msg("%s at +%.0f s: %s, at +10 s %s", nodes[i].host, times[k],
					 node_status_name(nodes[i].status), node_status_name(first[i]));
			}
		}
		snprintf(refs[k], sizeof refs[k], "%s", nodes[gpu044].obs.chrony.tracking.reference_name);
		classes[k] = nodes[gm_b].obs.ptp.gm_clock_class;
		pids[k] = nodes[gpu020].obs.daemons.procs[daemon_index(DAEMON_CHRONYD)].pid;
		print_message("# +%.0f s: gpu044 on %s, B class %d, gpu020 chronyd %d\n", times[k], refs[k], classes[k],
			      pids[k]);
	}
	/* gpu044 reselects every 20 s: ntp1, the public server, ntp1 ... */
	assert_string_equal(refs[0], "10.20.0.10");
	assert_string_equal(refs[1], "198.51.100.7");
	assert_string_equal(refs[4], "10.20.0.10");
	assert_true(has_code(&nodes[gpu044], "ptp.port_state"));
	/* B: 7, then 52 from +30 s, 7 again from +60 s */
	assert_int_equal(classes[0], 7);
	assert_int_equal(classes[3], 52);
	assert_int_equal(classes[5], 7);
	/* rack 2's chronyd: restarted at +25 s and +85 s, a new PID each time */
	assert_int_equal(pids[0], pids[1]);
	assert_int_not_equal(pids[2], pids[1]);
	assert_int_equal(pids[2], pids[5]);
	assert_int_not_equal(pids[6], pids[5]);
	free(first);
	free(settings);
	free(nodes);
	demo_cluster_free(c);
}

/* ---------------------------------------------------------- transport */

typedef struct {
	struct ev_loop *loop;
	transport *t;
	int ready, failed, data_calls;
	transport_error kind;
	char msg[256];
	char buf[2 * DEMO_RESPONSE_MAX];
	size_t len;
	char nonce[PROBE_NONCE_LEN + 1];
	int answers, want_answers;
	bool banner_seen;
	observation obs;
} owner;

static void send_request(owner *o)
{
	char line[64];
	snprintf(o->nonce, sizeof o->nonce, "00000000000000%02x", o->answers);
	assert_true(probe_request_format(line, sizeof line, o->nonce, PROBE_FLAG_ETHTOOL, NULL) > 0);
	o->len = 0;
	/* in two writes, as a socket may take it */
	assert_int_equal(transport_send(o->t, line, 5), 0);
	assert_int_equal(transport_send(o->t, line + 5, strlen(line) - 5), 0);
}

static void on_ready(void *p)
{
	owner *o = p;
	o->ready++;
	send_request(o);
}

static void on_data(void *p, const char *buf, size_t len)
{
	owner *o = p;
	o->data_calls++;
	assert_true(o->len + len <= sizeof o->buf);
	memcpy(o->buf + o->len, buf, len);
	o->len += len;
	size_t end = probe_find_end(o->buf, o->len, o->nonce);
	if (end == 0) {
		return;
	}
	assert_int_equal(end, o->len); /* nothing after the end marker */
	if (o->len >= 16 && memcmp(o->buf, "@@synctop ready\n", 16) == 0) {
		o->banner_seen = true;
		assert_int_equal(o->answers, 0); /* only before the first answer */
	}
	char err[128];
	observation_init(&o->obs);
	assert_int_equal(probe_decode(o->buf, o->len, o->nonce, &o->obs, err, sizeof err), 0);
	assert_int_equal(o->obs.chrony.state, OBS_OK);
	assert_int_equal(o->obs.nic.state, OBS_OK);
	o->answers++;
	if (o->answers < o->want_answers) {
		send_request(o); /* from inside the callback, as the scheduler may */
	} else {
		transport_stop(o->t); /* likewise: no event may follow */
		ev_break(o->loop, EVBREAK_ALL);
	}
}

static void on_failed(void *p, transport_error kind, const char *message)
{
	owner *o = p;
	o->failed++;
	o->kind = kind;
	snprintf(o->msg, sizeof o->msg, "%s", message);
	ev_break(o->loop, EVBREAK_ALL);
}

static const transport_events test_events = {on_ready, on_data, on_failed};

static void on_watchdog(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void run_for(owner *o, double limit_s)
{
	ev_timer watchdog;
	ev_timer_init(&watchdog, on_watchdog, limit_s, 0);
	ev_timer_start(o->loop, &watchdog);
	ev_run(o->loop, 0);
	ev_timer_stop(o->loop, &watchdog);
}

static owner *new_owner(void)
{
	owner *o = calloc(1, sizeof *o);
	assert_non_null(o);
	o->loop = ev_loop_new(EVFLAG_AUTO);
	assert_non_null(o->loop);
	return o;
}

static void free_owner(owner *o)
{
	transport_destroy(o->t);
	ev_loop_destroy(o->loop);
	free(o);
}

/* --log into a new temporary file; path holds its name. */
static void log_to_temp(char *path, size_t len)
{
	snprintf(path, len, "/tmp/synctop-test-demo-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_open(path), 0);
}

/* Closes the log and checks it holds these lines' texts in this order. */
static void assert_logged_in_order(const char *path, const char *const *lines, size_t n)
{
	log_close();
	char logged[8192];
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t got = fread(logged, 1, sizeof logged - 1, f);
	logged[got] = '\0';
	fclose(f);
	unlink(path);
	const char *at = logged;
	for (size_t k = 0; k < n; k++) {
		const char *hit = strstr(at, lines[k]);
		if (!hit) {
			fail_msg("\"%s\" missing or out of order in:\n%s", lines[k], logged);
		}
		at = hit + strlen(lines[k]);
	}
}

static void test_transport_answers(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, ev_time());
	owner *o = new_owner();
	size_t i = index_of(c, DEMO_HEALTHY);
	o->t = demo_transport_new(o->loop, c, i, 0.2, &test_events, o);
	o->want_answers = 3;

	assert_int_equal(transport_send(o->t, "x\n", 2), -1); /* not started */
	transport_start(o->t);
	run_for(o, 5.0);
	assert_int_equal(o->ready, 1);
	assert_int_equal(o->failed, 0);
	assert_int_equal(o->answers, 3);
	assert_true(o->banner_seen);
	assert_true(o->data_calls >= 3);
	assert_string_equal(o->obs.ptp.ports[0].interface, demo_cluster_iface(c, i));
	assert_true(fabs(o->obs.node_time - ev_time()) < 1.0);

	/* stopped from the last data callback: nothing more arrives */
	int calls = o->data_calls;
	run_for(o, 0.3);
	assert_int_equal(o->data_calls, calls);
	assert_int_equal(transport_send(o->t, "x\n", 2), -1);

	/* a restarted shell greets again and answers */
	o->answers = 0;
	o->want_answers = 1;
	o->banner_seen = false;
	transport_start(o->t);
	run_for(o, 5.0);
	assert_int_equal(o->ready, 2);
	assert_int_equal(o->answers, 1);
	assert_true(o->banner_seen);
	free_owner(o);
	demo_cluster_free(c);
}

static void test_transport_restart_drops_the_answer(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, ev_time());
	owner *o = new_owner();
	size_t i = index_of(c, DEMO_SLOW);
	char log_path[64];
	log_to_temp(log_path, sizeof log_path);
	o->t = demo_transport_new(o->loop, c, i, 0.2, &test_events, o);
	o->want_answers = 1;

	transport_start(o->t);
	run_for(o, 1.4); /* connected (0.9 s) and asked; the answer takes 1.5 s */
	assert_int_equal(o->ready, 1);
	assert_int_equal(o->answers, 0);
	/* like the scheduler's deadline: a new shell, the old answer is gone */
	transport_restart_shell(o->t);
	run_for(o, 5.0);
	assert_int_equal(o->ready, 2);
	assert_int_equal(o->answers, 1);
	assert_true(o->banner_seen);
	free_owner(o);
	char lines[5][128];
	static const char *const steps[5] = {
		"idle -> connecting (start)\n",
		"connecting -> running (shell started)\n",
		"running -> connecting (shell restart)\n",
		"connecting -> running (shell started)\n",
		"running -> idle (stopped)\n",
	};
	const char *want[5];
	for (int k = 0; k < 5; k++) {
		snprintf(lines[k], sizeof lines[k], "demo %s: %s", demo_cluster_name(c, i), steps[k]);
		want[k] = lines[k];
	}
	assert_logged_in_order(log_path, want, 5);
	demo_cluster_free(c);
}

static void test_transport_unreachable(void **state)
{
	(void)state;
	demo_cluster *c = demo_cluster_new(DEMO_CLUSTER_DEFAULT_SEED, ev_time());
	owner *o = new_owner();
	size_t i = index_of(c, DEMO_UNREACHABLE);
	char want[128];
	snprintf(want, sizeof want, "connect to %s port 22: Connection timed out", demo_cluster_name(c, i));
	char log_path[64];
	log_to_temp(log_path, sizeof log_path);
	o->t = demo_transport_new(o->loop, c, i, 0.1, &test_events, o);

	for (int attempt = 1; attempt <= 2; attempt++) {
		double t0 = ev_time();
		transport_start(o->t);
		run_for(o, 2.0);
		assert_int_equal(o->failed, attempt);
		assert_int_equal(o->kind, TRANSPORT_ERR_CONNECT);
		assert_string_equal(o->msg, want);
		assert_true(ev_time() - t0 >= 0.09); /* after the connect timeout */
	}
	assert_int_equal(o->ready, 0);
	assert_int_equal(o->data_calls, 0);
	free_owner(o);
	char started[128], gave_up[128];
	snprintf(started, sizeof started, "demo %s: idle -> connecting (start)\n", demo_cluster_name(c, i));
	snprintf(gave_up, sizeof gave_up, "demo %s: connecting -> idle (deadline)\n", demo_cluster_name(c, i));
	const char *const attempts[4] = {started, gave_up, started, gave_up};
	assert_logged_in_order(log_path, attempts, 4);
	demo_cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_every_section_parses),
		cmocka_unit_test(test_scenario_verdicts),
		cmocka_unit_test(test_drift_fires_after_ten_minutes),
		cmocka_unit_test(test_values_move_realistically),
		cmocka_unit_test(test_drift_ramps_five_ppm_per_hour),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_request_flags_and_iface),
		cmocka_unit_test(test_tools_one_by_one),
		cmocka_unit_test(test_selectdata_parses),
		cmocka_unit_test(test_renderers_round_trip),
		cmocka_unit_test(test_small_buffers),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_cluster_view),
		cmocka_unit_test(test_changes_over_time),
		cmocka_unit_test(test_transport_answers),
		cmocka_unit_test(test_transport_restart_drops_the_answer),
		cmocka_unit_test(test_transport_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
