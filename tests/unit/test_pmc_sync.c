/* test_pmc_sync.c - ptp.no_sync: the age of the last Sync (pure function),
 * its limits from the port's own intervals, the rx Sync count across polls
 * (moved, stood still, polls too close, counter reset), and the whole path
 * through pmc_parse and node_update on the lab's real SLAVE captures. */
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

#include "fixture.h"
#include "node.h"
#include "node_update.h"
#include "pmc_parse.h"
#include "pmc_sync.h"
#include "ptp_sync.h"
#include "thresholds.h"

#define NS 1000000000LL
#define T0 1.8e9 /* client time of the first poll */
/* ingress_time of the lab's SLAVE batch (pmc-batch-multi-get-slave.txt) */
#define LAB_INGRESS 1796207937145201190LL

/* ------------------------------------------------------ the age itself */

static ptp_sync_reference realtime(int64_t before, int64_t after)
{
	ptp_sync_reference r = {.before_ns = before, .after_ns = after, .scale = PTP_SYNC_UTC};
	return r;
}

static void test_age_from_the_read_before(void **state)
{
	(void)state;
	int64_t in = 1000 * NS;
	ptp_sync_reference r = realtime(in + 400000000, in + 520000000);
	assert_float_equal(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37), 0.4, 1e-9);
	/* without the read before, the one after (an upper bound) */
	r = realtime(PTP_NS_UNKNOWN, in + 520000000);
	assert_float_equal(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37), 0.52, 1e-9);
	r = realtime(in + 2 * NS, PTP_NS_UNKNOWN);
	assert_float_equal(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37), 2.0, 1e-9);
}

static void test_age_sync_during_the_request(void **state)
{
	(void)state;
	int64_t in = 1000 * NS;
	ptp_sync_reference r = realtime(in - 1000, in + 100000000);
	assert_float_equal(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37), 0.0, 0);
	/* later than the read after: another clock's timestamp */
	r = realtime(in - 1000, in - 10);
	assert_true(isnan(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37)));
	/* later than the only read: cannot tell */
	r = realtime(in - 1000, PTP_NS_UNKNOWN);
	assert_true(isnan(ptp_sync_age_s(in, PTP_SYNC_UTC, &r, 37)));
}

static void test_age_unknown(void **state)
{
	(void)state;
	ptp_sync_reference r = realtime(1001 * NS, 1002 * NS);
	/* 0: no Sync since ptp4l started, stepped the clock or changed GM */
	assert_true(isnan(ptp_sync_age_s(0, PTP_SYNC_UTC, &r, 37)));
	assert_true(isnan(ptp_sync_age_s(PTP_NS_UNKNOWN, PTP_SYNC_UTC, &r, 37)));
	r = realtime(PTP_NS_UNKNOWN, PTP_NS_UNKNOWN);
	assert_true(isnan(ptp_sync_age_s(1000 * NS, PTP_SYNC_UTC, &r, 37)));
}

/* A PHC on the PTP timescale against CLOCK_REALTIME: the PHC runs ahead by
 * currentUtcOffset; read from the PHC itself, no shift at all. */
static void test_age_across_timescales(void **state)
{
	(void)state;
	int64_t utc = 1000 * NS;
	int64_t phc_ingress = utc + 37 * NS;
	ptp_sync_reference r = realtime(utc + 250000000, utc + 300000000);
	assert_float_equal(ptp_sync_age_s(phc_ingress, PTP_SYNC_PTP, &r, 37), 0.25, 1e-9);
	assert_true(isnan(ptp_sync_age_s(phc_ingress, PTP_SYNC_PTP, &r, INT_UNKNOWN)));
	/* without the shift the same numbers are a Sync from the future */
	assert_true(isnan(ptp_sync_age_s(phc_ingress, PTP_SYNC_UTC, &r, 37)));
	ptp_sync_reference phc = {.before_ns = phc_ingress + 250000000, .after_ns = PTP_NS_UNKNOWN,
				  .scale = PTP_SYNC_PTP};
	assert_float_equal(ptp_sync_age_s(phc_ingress, PTP_SYNC_PTP, &phc, INT_UNKNOWN), 0.25, 1e-9);
	/* UTC ingress, a PTP-timescale reading of the same instant plus 0.25 s */
	assert_float_equal(ptp_sync_age_s(utc, PTP_SYNC_UTC, &phc, 37), 0.25, 1e-9);
}

/* ------------------------------------------------------------ limits */

static ptp_port slave_port(int log_sync, int log_announce, int receipt)
{
	ptp_port p;
	memset(&p, 0, sizeof p);
	p.state = PTP_PORT_SLAVE;
	p.log_sync_interval = log_sync;
	ptp_port_sync_init(&p.sync);
	p.sync.log_announce_interval = log_announce;
	p.sync.announce_receipt_timeout = receipt;
	return p;
}

static void test_limits_from_the_port(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	ptp_port p = slave_port(0, 1, 3); /* ptp4l's defaults */
	assert_float_equal(ptp_sync_warn_s(&p, &th), 3.0, 0);
	assert_float_equal(ptp_sync_crit_s(&p, &th), 6.0, 0);
	p = slave_port(-4, -3, 3); /* G.8275.1: 16 Sync/s, 8 Announce/s */
	assert_float_equal(ptp_sync_warn_s(&p, &th), 0.1875, 0);
	assert_float_equal(ptp_sync_crit_s(&p, &th), 0.375, 0);
	p = slave_port(INT_UNKNOWN, INT_UNKNOWN, INT_UNKNOWN);
	assert_true(isnan(ptp_sync_warn_s(&p, &th)));
	assert_true(isnan(ptp_sync_crit_s(&p, &th)));
	th.ptp_sync_age_warn_intervals = 5;
	th.ptp_sync_age_crit_receipt_timeouts = 2;
	p = slave_port(0, 1, 3);
	assert_float_equal(ptp_sync_warn_s(&p, &th), 5.0, 0);
	assert_float_equal(ptp_sync_crit_s(&p, &th), 12.0, 0);
	th.ptp_sync_age_warn_intervals = -1; /* disabled */
	assert_true(isnan(ptp_sync_warn_s(&p, &th)));
}

static void test_grades(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	ptp_port p = slave_port(0, 1, 3);
	assert_int_equal(pmc_sync_grade_age(3.0, &p, &th), SEVERITY_OK); /* a limit must be exceeded */
	assert_int_equal(pmc_sync_grade_age(3.01, &p, &th), SEVERITY_WARN);
	assert_int_equal(pmc_sync_grade_age(6.0, &p, &th), SEVERITY_WARN);
	assert_int_equal(pmc_sync_grade_age(6.01, &p, &th), SEVERITY_CRIT);
	assert_int_equal(pmc_sync_grade_age(NAN, &p, &th), SEVERITY_OK);
	/* a count still for 3 s: its last Sync is older than that */
	assert_int_equal(pmc_sync_grade_still(2.99, &p, &th), SEVERITY_OK);
	assert_int_equal(pmc_sync_grade_still(3.0, &p, &th), SEVERITY_WARN);
	assert_int_equal(pmc_sync_grade_still(6.0, &p, &th), SEVERITY_CRIT);
	assert_int_equal(pmc_sync_grade_still(NAN, &p, &th), SEVERITY_OK);
	/* crit below warn (slow Sync, fast Announce): crit wins */
	p = slave_port(1, 0, 3);
	assert_int_equal(pmc_sync_grade_age(4.0, &p, &th), SEVERITY_CRIT);
	/* unknown announce settings: warn only */
	p = slave_port(0, INT_UNKNOWN, INT_UNKNOWN);
	assert_int_equal(pmc_sync_grade_age(100.0, &p, &th), SEVERITY_WARN);
}

/* ------------------------------------------------ across two polls */

static ptp_obs stats_obs(const char *port_id, int64_t rx_sync)
{
	ptp_obs o;
	ptp_obs_init(&o);
	o.state = OBS_OK;
	o.n_ports = 1;
	snprintf(o.ports[0].port_identity, sizeof o.ports[0].port_identity, "%s", port_id);
	o.ports[0].state = PTP_PORT_SLAVE;
	o.ports[0].sync.rx_sync = rx_sync;
	return o;
}

#define PORT_A "1aed80.fffe.1a0b51-1"

static void test_count_moved(void **state)
{
	(void)state;
	ptp_obs a = stats_obs(PORT_A, 98), b = stats_obs(PORT_A, 101);
	pmc_sync_compare(&b, T0 + 3, &a, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0 + 3, 0);
	assert_float_equal(ptp_sync_still_s(&b.ports[0], T0 + 3), 0.0, 0);
}

static void test_count_stood_still(void **state)
{
	(void)state;
	ptp_obs a = stats_obs(PORT_A, 98), b = stats_obs(PORT_A, 98), c = stats_obs(PORT_A, 98);
	/* a first observation has no baseline: the previous poll's time is it */
	pmc_sync_compare(&b, T0 + 2, &a, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0, 0);
	pmc_sync_compare(&c, T0 + 4, &b, T0 + 2);
	assert_float_equal(c.ports[0].sync.rx_sync_since, T0, 0);
	assert_float_equal(ptp_sync_still_s(&c.ports[0], T0 + 4), 4.0, 0);
}

/* Two polls 2 s apart with the same count: not yet 3 sync intervals. */
static void test_polls_too_close(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	ptp_obs a = stats_obs(PORT_A, 98), b = stats_obs(PORT_A, 98);
	b.ports[0].log_sync_interval = 0;
	b.ports[0].sync.log_announce_interval = 1;
	b.ports[0].sync.announce_receipt_timeout = 3;
	pmc_sync_compare(&b, T0 + 2, &a, T0);
	double still = ptp_sync_still_s(&b.ports[0], T0 + 2);
	assert_float_equal(still, 2.0, 0);
	assert_int_equal(pmc_sync_grade_still(still, &b.ports[0], &th), SEVERITY_OK);
}

/* ptp4l restarted: the count went back; also a different port, or a poll
 * without the count. */
static void test_counter_reset(void **state)
{
	(void)state;
	ptp_obs a = stats_obs(PORT_A, 98), b = stats_obs(PORT_A, 3);
	a.ports[0].sync.rx_sync_since = T0 - 100;
	pmc_sync_compare(&b, T0 + 3, &a, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0 + 3, 0);

	ptp_obs other = stats_obs("96bec0.fffe.dfca68-1", 98);
	b = stats_obs(PORT_A, 98);
	pmc_sync_compare(&b, T0 + 3, &other, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0 + 3, 0);

	b = stats_obs(PORT_A, PTP_COUNT_UNKNOWN);
	pmc_sync_compare(&b, T0 + 3, &a, T0);
	assert_true(isnan(b.ports[0].sync.rx_sync_since));

	/* the previous poll failed: start over */
	ptp_obs failed;
	ptp_obs_init(&failed);
	failed.state = OBS_DAEMON_UNREACHABLE;
	b = stats_obs(PORT_A, 98);
	pmc_sync_compare(&b, T0 + 3, &failed, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0 + 3, 0);

	/* the client's clock went back */
	b = stats_obs(PORT_A, 98);
	pmc_sync_compare(&b, T0 - 10, &a, T0);
	assert_float_equal(b.ports[0].sync.rx_sync_since, T0 - 10, 0);
}

static void test_service_timeouts_growth(void **state)
{
	(void)state;
	ptp_obs a = stats_obs(PORT_A, 98), b = stats_obs(PORT_A, 110);
	a.ports[0].sync.announce_timeouts = 1;
	a.ports[0].sync.sync_timeouts = 4;
	b.ports[0].sync.announce_timeouts = 2;
	b.ports[0].sync.sync_timeouts = 6;
	pmc_sync_compare(&b, T0 + 3, &a, T0);
	assert_int_equal(b.ports[0].sync.timeouts_new, 3);
	/* linuxptp 3.1: unknown on both sides */
	ptp_obs c = stats_obs(PORT_A, 98), d = stats_obs(PORT_A, 110);
	pmc_sync_compare(&d, T0 + 3, &c, T0);
	assert_int_equal(d.ports[0].sync.timeouts_new, PTP_COUNT_UNKNOWN);
}

/* ------------------------------------- the whole path, real captures */

/* The lab's SLAVE batch (software timestamping on eth0, logSyncInterval 0,
 * announce 3 x 2^0 s) plus its PORT_PROPERTIES_NP and PORT_STATS_NP
 * captures, inside the collector's realtime lines read age_s after the
 * Sync (composed: see pmc-synctop-command.source.md). */
static void lab_slave(observation *obs, double taken_at, double age_s, int64_t rx_sync)
{
	static const char *const parts[] = {
		"pmc-batch-multi-get-slave.txt", "pmc-port-properties-np-slave.txt", "pmc-port-stats-np-slave.txt",
	};
	char *text = NULL;
	size_t len = 0;
	char line[96];
	int64_t before = LAB_INGRESS + (int64_t)(age_s * 1e9);
	int n = snprintf(line, sizeof line, "synctop-realtime-ns before %lld\n", (long long)before);
	text = realloc(text, len + (size_t)n);
	assert_non_null(text);
	memcpy(text + len, line, (size_t)n);
	len += (size_t)n;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		size_t flen;
		char *f = fixture_read(parts[i], &flen);
		if (i == 2) {
			/* the capture's count, replaced by the poll's */
			char *at = strstr(f, "rx_Sync                   98\n");
			assert_non_null(at);
			char repl[64];
			int rn = snprintf(repl, sizeof repl, "rx_Sync                   %lld\n", (long long)rx_sync);
			size_t head = (size_t)(at - f), old = strlen("rx_Sync                   98\n");
			text = realloc(text, len + head + (size_t)rn + flen - head - old);
			assert_non_null(text);
			memcpy(text + len, f, head);
			memcpy(text + len + head, repl, (size_t)rn);
			memcpy(text + len + head + (size_t)rn, f + head + old, flen - head - old);
			len += head + (size_t)rn + flen - head - old;
		} else {
			text = realloc(text, len + flen);
			assert_non_null(text);
			memcpy(text + len, f, flen);
			len += flen;
		}
		free(f);
	}
	n = snprintf(line, sizeof line, "synctop-realtime-ns after %lld\n", (long long)(before + 110000000));
	text = realloc(text, len + (size_t)n);
	assert_non_null(text);
	memcpy(text + len, line, (size_t)n);
	len += (size_t)n;

	observation_init(obs);
	obs->taken_at = taken_at;
	tool_output t = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	pmc_parse(&t, &obs->ptp);
	assert_int_equal(obs->ptp.state, OBS_OK);
	obs->daemons.state = OBS_OK;
	obs->daemons.running = DAEMON_PTP4L;
	free(text);
}

static const finding *find(const node *n, const char *code)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, code) == 0) {
			return &n->findings.items[i];
		}
	}
	return NULL;
}

static node *new_node(void)
{
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	node_init(n, "node2");
	return n;
}

static void test_lab_slave_fresh_sync(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	observation obs;
	lab_slave(&obs, T0, 0.4, 98);
	assert_float_equal(ptp_sync_last_age_s(&obs), 0.4, 1e-6);
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));
	/* the count moved: still nothing */
	lab_slave(&obs, T0 + 2, 0.5, 100);
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));
	free(n);
}

/* The master stopped: ptp4l still says SLAVE (the capture).  The lab's
 * limits: warn above 3 x 2^0 s, crit above 3 x 2^0 s (announce receipt
 * timeout): crit wins; with crit at 2 timeouts, 3.5 s is a warn. */
static void test_lab_slave_sync_age(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	observation obs;
	lab_slave(&obs, T0, 2.5, 98);
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));
	lab_slave(&obs, T0 + 1, 3.5, 99);
	node_update_observation(n, &obs, &th);
	const finding *f = find(n, "ptp.no_sync");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_CRIT);
	assert_int_equal(n->status, NODE_STATUS_CRIT);
	assert_non_null(strstr(f->message, "is SLAVE but its last Sync arrived 3.500 s ago"));

	th.ptp_sync_age_crit_receipt_timeouts = 2;
	lab_slave(&obs, T0 + 2, 3.5, 100);
	node_update_observation(n, &obs, &th);
	f = find(n, "ptp.no_sync");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_WARN);
	lab_slave(&obs, T0 + 3, 6.5, 101);
	node_update_observation(n, &obs, &th);
	assert_int_equal(find(n, "ptp.no_sync")->sev, SEVERITY_CRIT);
	free(n);
}

/* Hardware timestamping: ingress_time is in the PHC's time; phc_ctl's cmp
 * on the port's interface moves the CLOCK_REALTIME reads into it (here a
 * PHC on the PTP timescale, 37 s ahead). */
static void test_hardware_age_through_phc_ctl(void **state)
{
	(void)state;
	observation obs;
	lab_slave(&obs, T0, 0.4, 98);
	ptp_port *port = &obs.ptp.ports[0];
	snprintf(port->timestamping, sizeof port->timestamping, "HARDWARE");
	/* the Sync arrived 0.4 s before the read, in PHC time: 37 s ahead */
	obs.ptp.ingress_time_ns += 37000000000LL;
	phc_obs_init(&obs.phc);
	obs.phc.state = OBS_OK;
	snprintf(obs.phc.interface, sizeof obs.phc.interface, "%s", port->interface);
	obs.phc.realtime_minus_phc_ns = -37000000000LL;
	assert_float_equal(ptp_sync_last_age_s(&obs), 0.4, 1e-6);
	/* phc_ctl read another interface: not this port's clock */
	snprintf(obs.phc.interface, sizeof obs.phc.interface, "other0");
	assert_true(isnan(ptp_sync_last_age_s(&obs)));
	/* phc_ctl did not run */
	phc_obs_init(&obs.phc);
	assert_true(isnan(ptp_sync_last_age_s(&obs)));
}

/* Hardware timestamping without a PHC read: no age; the count still
 * judges. */
static void test_lab_slave_count_stood_still(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	observation obs;
	lab_slave(&obs, T0, 0.1, 98);
	snprintf(obs.ptp.ports[0].timestamping, sizeof obs.ptp.ports[0].timestamping, "HARDWARE");
	assert_true(isnan(ptp_sync_last_age_s(&obs)));
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));

	lab_slave(&obs, T0 + 2, 0.1, 98);
	snprintf(obs.ptp.ports[0].timestamping, sizeof obs.ptp.ports[0].timestamping, "HARDWARE");
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync")); /* 2 s: under 3 sync intervals */

	lab_slave(&obs, T0 + 3, 0.1, 98);
	snprintf(obs.ptp.ports[0].timestamping, sizeof obs.ptp.ports[0].timestamping, "HARDWARE");
	node_update_observation(n, &obs, &th);
	const finding *f = find(n, "ptp.no_sync");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_CRIT); /* 3 s = the announce receipt timeout */
	assert_non_null(strstr(f->message, "rx Sync count has not moved for 3.000 s"));

	/* ptp4l restarted: counts from 0 again, no finding */
	lab_slave(&obs, T0 + 4, 0.1, 1);
	snprintf(obs.ptp.ports[0].timestamping, sizeof obs.ptp.ports[0].timestamping, "HARDWARE");
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));
	free(n);
}

/* Not following a master: no Sync expected, no finding. */
static void test_master_port_is_not_judged(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	observation obs;
	lab_slave(&obs, T0, 100.0, 98);
	obs.ptp.ports[0].state = PTP_PORT_MASTER;
	assert_true(isnan(ptp_sync_last_age_s(&obs)));
	node_update_observation(n, &obs, &th);
	assert_null(find(n, "ptp.no_sync"));
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_age_from_the_read_before),
		cmocka_unit_test(test_age_sync_during_the_request),
		cmocka_unit_test(test_age_unknown),
		cmocka_unit_test(test_age_across_timescales),
		cmocka_unit_test(test_limits_from_the_port),
		cmocka_unit_test(test_grades),
		cmocka_unit_test(test_count_moved),
		cmocka_unit_test(test_count_stood_still),
		cmocka_unit_test(test_polls_too_close),
		cmocka_unit_test(test_counter_reset),
		cmocka_unit_test(test_service_timeouts_growth),
		cmocka_unit_test(test_lab_slave_fresh_sync),
		cmocka_unit_test(test_lab_slave_sync_age),
		cmocka_unit_test(test_hardware_age_through_phc_ctl),
		cmocka_unit_test(test_lab_slave_count_stood_still),
		cmocka_unit_test(test_master_port_is_not_judged),
	};
	return cmocka_run_group_tests_name("pmc_sync", tests, NULL, NULL);
}
