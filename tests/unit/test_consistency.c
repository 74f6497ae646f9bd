/* test_consistency.c - the cluster-wide checks over fleets built in memory:
 * majority and minority, ties, configured grandmaster/upstream winning over
 * the majority, nodes that did not answer left out, outliers named, the
 * summary's numbers, and no repeat of what a node's own rules said.
 *
 * Nodes are large (their history), so a fleet lives on the heap. */
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
#include "consistency.h"
#include "health.h"
#include "node.h"
#include "node_settings.h"

/* cmocka 1.1.5 compares floats only as float */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define GM_A "1aed80.fffe.1a0b51"
#define GM_B "96bec0.fffe.dfca68"
#define GM_C "0c42a1.fffe.55aa01"

/* ------------------------------------------------------------ builders */

typedef struct {
	size_t n;
	node *nodes;
	node_settings *settings;
} fleet;

static fleet fleet_new(size_t n)
{
	fleet f = {.n = n};
	f.nodes = calloc(n ? n : 1, sizeof *f.nodes);
	f.settings = calloc(n ? n : 1, sizeof *f.settings);
	assert_non_null(f.nodes);
	assert_non_null(f.settings);
	for (size_t i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof name, "node%zu", i + 1);
		node_init(&f.nodes[i], name);
		node_settings_init(&f.settings[i]);
	}
	return f;
}

static void fleet_free(fleet *f)
{
	free(f->nodes);
	free(f->settings);
}

static void answered(node *nd)
{
	nd->reachable = true;
	nd->has_observation = true;
}

/* A synchronised chronyd following `ref` (an IPv4 address, as chronyc -n
 * prints it) with the given System time offset. */
static void set_chrony(node *nd, const char *ref, double offset_s)
{
	answered(nd);
	chrony_obs *c = &nd->obs.chrony;
	chrony_obs_init(c);
	c->state = OBS_OK;
	chrony_tracking *t = &c->tracking;
	unsigned a = 0, b = 0, cc = 0, d = 0;
	if (sscanf(ref, "%u.%u.%u.%u", &a, &b, &cc, &d) == 4) {
		t->reference_id = a << 24 | b << 16 | cc << 8 | d;
		t->has_reference_id = true;
	}
	snprintf(t->reference_name, sizeof t->reference_name, "%s", ref);
	t->stratum = 3;
	t->system_time_offset_s = offset_s;
	t->root_delay_s = 1e-4;
	t->root_dispersion_s = 1e-5;
	t->frequency_ppm = 1.0;
	t->skew_ppm = 0.1;
	t->leap = CHRONY_LEAP_NORMAL;
	c->n_sources = c->n_sources_total = 1;
	chrony_source *s = &c->sources[0];
	s->mode = CHRONY_MODE_SERVER;
	s->state = CHRONY_STATE_SELECTED;
	snprintf(s->name, sizeof s->name, "%s", ref);
	s->stratum = 2;
	s->reach = 0377;
	s->adjusted_offset_s = s->measured_offset_s = s->error_s = 0;
}

/* chronyd serving its own clock (fixtures/chronyc-c-tracking-server-local-stratum8.txt) */
static void set_chrony_local(node *nd)
{
	answered(nd);
	chrony_obs *c = &nd->obs.chrony;
	chrony_obs_init(c);
	c->state = OBS_OK;
	c->tracking.reference_id = 0x7F7F0101;
	c->tracking.has_reference_id = true;
	c->tracking.stratum = 8;
	c->tracking.system_time_offset_s = 0;
	c->tracking.frequency_ppm = 0;
	c->tracking.skew_ppm = 0;
	c->tracking.root_delay_s = 0;
	c->tracking.root_dispersion_s = 0;
	c->tracking.leap = CHRONY_LEAP_NORMAL;
}

/* A PTP node in `state` following grandmaster `gm` in domain 0. */
static void set_ptp(node *nd, ptp_port_state state, const char *gm, int64_t offset_ns)
{
	answered(nd);
	ptp_obs *p = &nd->obs.ptp;
	ptp_obs_init(p);
	p->state = OBS_OK;
	p->domain_number = 0;
	p->gm_present = 1;
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm);
	snprintf(p->gm_identity, sizeof p->gm_identity, "%s", gm);
	p->offset_from_master_ns = offset_ns;
	p->master_offset_ns = offset_ns;
	p->mean_path_delay_ns = 8737;
	p->current_utc_offset = 37;
	p->current_utc_offset_valid = 1;
	p->leap61 = 0;
	p->leap59 = 0;
	p->n_ports = 1;
	p->ports[0].port_number = 1;
	p->ports[0].state = state;
	snprintf(p->ports[0].interface, sizeof p->ports[0].interface, "eth0");
}

static void set_clock(node *nd, double offset_s, double uncertainty_s)
{
	answered(nd);
	clock_check_obs *cc = &nd->obs.clock;
	clock_check_obs_init(cc);
	cc->state = OBS_OK;
	cc->exchanges = CLOCK_CHECK_EXCHANGES;
	cc->offset_s = offset_s;
	cc->uncertainty_s = uncertainty_s;
	cc->measured_at = 1.8e9;
}

/* --------------------------------------------------------------- checks */

static consistency_summary evaluate(fleet *f)
{
	consistency_summary s;
	memset(&s, 0xA5, sizeof s); /* every field must be written */
	consistency_evaluate(f->nodes, f->n, f->settings, &s);
	size_t flagged = 0;
	for (size_t i = 0; i < f->n; i++) {
		const node *nd = &f->nodes[i];
		const finding_list *l = &nd->findings;
		assert_in_range(l->count, 0, MAX_FINDINGS);
		assert_in_range(nd->n_own_findings, 0, l->count);
		flagged += l->count > nd->n_own_findings;
		for (int k = 0; k < l->count; k++) {
			const finding *fd = &l->items[k];
			assert_non_null(fd->code);
			assert_true(fd->sev == SEVERITY_WARN || fd->sev == SEVERITY_CRIT);
			assert_true(fd->message[0] != '\0');
			assert_true(fd->hint[0] != '\0');
			for (const char *p = fd->message; *p; p++) {
				assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
			}
			if (k > nd->n_own_findings) {
				assert_true(l->items[k - 1].sev >= fd->sev);
			}
		}
		if (!nd->reachable || !nd->has_observation) {
			assert_int_equal(l->count, nd->n_own_findings);
		}
	}
	assert_int_equal(s.flagged_nodes, flagged);
	return s;
}

static const finding *find(const node *nd, const char *code)
{
	for (int i = nd->n_own_findings; i < nd->findings.count; i++) {
		if (strcmp(nd->findings.items[i].code, code) == 0) {
			return &nd->findings.items[i];
		}
	}
	return NULL;
}

/* The cluster finding with this code; fails the test when there is none. */
static const finding *get(const node *nd, const char *code)
{
	static const finding none = {.sev = SEVERITY_OK, .code = "", .message = "", .hint = ""};
	const finding *f = find(nd, code);
	if (!f) {
		fail_msg("%s: no %s", nd->host, code);
		return &none; /* not reached: fail_msg() leaves the test */
	}
	return f;
}

/* sev == SEVERITY_OK means "no cluster finding with this code". */
static void expect(const node *nd, const char *code, severity sev)
{
	const finding *f = find(nd, code);
	if (sev == SEVERITY_OK) {
		if (f) {
			fail_msg("%s: unexpected %s %s: %s", nd->host, severity_name(f->sev), code,
				 f->message);
		}
		return;
	}
	if (!f) {
		fail_msg("%s: missing %s %s", nd->host, severity_name(sev), code);
		return; /* not reached: fail_msg() leaves the test */
	}
	if (f->sev != sev) {
		fail_msg("%s: %s is %s, expected %s: %s", nd->host, code, severity_name(f->sev),
			 severity_name(sev), f->message);
	}
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle)) {
		fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
	}
}

static int cluster_count(const node *nd)
{
	return nd->findings.count - nd->n_own_findings;
}

/* ---------------------------------------------------------------- empty */

static void test_empty_fleet(void **state)
{
	(void)state;
	consistency_summary s;
	memset(&s, 0xA5, sizeof s);
	consistency_evaluate(NULL, 0, NULL, &s);
	assert_int_equal(s.gm_nodes, 0);
	assert_int_equal(s.n_gms, 0);
	assert_string_equal(s.majority_gm, "");
	assert_false(s.gm_tied);
	assert_int_equal(s.reference_nodes, 0);
	assert_string_equal(s.majority_reference, "");
	assert_int_equal(s.local_clock_nodes, 0);
	assert_int_equal(s.chrony_nodes, 0);
	assert_true(isnan(s.chrony_spread_s));
	assert_true(isnan(s.chrony_median_s));
	assert_int_equal(s.ptp_nodes, 0);
	assert_true(isnan(s.ptp_spread_ns));
	assert_true(isnan(s.ptp_median_ns));
	assert_int_equal(s.clock_nodes, 0);
	assert_true(isnan(s.clock_median_s));
	assert_int_equal(s.flagged_nodes, 0);
	consistency_evaluate(NULL, 0, NULL, NULL); /* no summary wanted */
}

static void test_unanswered_nodes_ignored_and_cleared(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	set_ptp(&f.nodes[0], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, 20);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, 30);
	/* lost nodes that last saw other grandmasters: left out, or they would
	 * make a tie (2 x B) and a third grandmaster */
	set_ptp(&f.nodes[3], PTP_PORT_SLAVE, GM_B, 9000000);
	f.nodes[3].reachable = false;
	set_ptp(&f.nodes[4], PTP_PORT_SLAVE, GM_C, -9000000);
	f.nodes[4].has_observation = false;

	/* a cluster finding from an earlier pass must not outlive the node's answer */
	finding stale = {.sev = SEVERITY_CRIT, .code = "cluster.grandmaster",
			 .message = "stale", .hint = "stale"};
	thresholds th;
	thresholds_init_defaults(&th);
	health_set_cluster_findings(&f.nodes[3], &stale, 1, &th);
	assert_int_equal(f.nodes[3].findings.count, 1);

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.gm_nodes, 3);
	assert_int_equal(s.n_gms, 1);
	assert_string_equal(s.majority_gm, GM_A);
	assert_int_equal(s.majority_gm_nodes, 3);
	assert_int_equal(s.ptp_nodes, 3);
	assert_near(s.ptp_spread_ns, 20, 0);
	assert_near(s.ptp_median_ns, 20, 0);
	assert_int_equal(s.flagged_nodes, 0);
	assert_int_equal(f.nodes[3].findings.count, 0);
	assert_int_equal(f.nodes[3].status, NODE_STATUS_UNKNOWN);

	/* the lost node answers again: now it is the minority */
	f.nodes[3].reachable = true;
	s = evaluate(&f);
	expect(&f.nodes[3], "cluster.grandmaster", SEVERITY_CRIT);
	assert_int_equal(f.nodes[3].status, NODE_STATUS_CRIT);
	assert_int_equal(s.n_gms, 2);
	fleet_free(&f);
}

/* ---------------------------------------------------------- grandmaster */

static void test_grandmaster_minority(void **state)
{
	(void)state;
	fleet f = fleet_new(7);
	set_ptp(&f.nodes[0], PTP_PORT_MASTER, GM_A, 0); /* the grandmaster names itself */
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, -10);
	set_ptp(&f.nodes[3], PTP_PORT_SLAVE, GM_A, 5);
	set_ptp(&f.nodes[4], PTP_PORT_SLAVE, GM_B, 5);
	set_ptp(&f.nodes[5], PTP_PORT_MASTER, "1AED80.FFFE.1A0B51", 0); /* case does not matter */
	set_ptp(&f.nodes[6], PTP_PORT_LISTENING, "", 0); /* names none: no vote */

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.gm_nodes, 6);
	assert_int_equal(s.n_gms, 2);
	assert_string_equal(s.majority_gm, GM_A);
	assert_int_equal(s.majority_gm_nodes, 5);
	assert_false(s.gm_tied);
	assert_int_equal(s.flagged_nodes, 1);

	expect(&f.nodes[4], "cluster.grandmaster", SEVERITY_CRIT);
	const finding *fd = get(&f.nodes[4], "cluster.grandmaster");
	assert_contains(fd->message, "Follows grandmaster " GM_B " while 5 of 6 PTP nodes follow " GM_A);
	assert_contains(fd->hint, "GET PARENT_DATA_SET");
	assert_contains(fd->hint, "slaveOnly 1");
	for (size_t i = 0; i < f.n; i++) {
		if (i != 4) {
			expect(&f.nodes[i], "cluster.grandmaster", SEVERITY_OK);
		}
	}
	/* the node's status follows its cluster finding */
	assert_int_equal(f.nodes[4].status, NODE_STATUS_CRIT);

	/* PARENT_DATA_SET missing: TIME_STATUS_NP's gmIdentity is used */
	f.nodes[4].obs.ptp.grandmaster_identity[0] = '\0';
	evaluate(&f);
	expect(&f.nodes[4], "cluster.grandmaster", SEVERITY_CRIT);

	/* a node that should not run PTP is not judged on it */
	f.settings[4].th.expect_ptp = EXPECT_NO;
	evaluate(&f);
	expect(&f.nodes[4], "cluster.grandmaster", SEVERITY_OK);
	fleet_free(&f);
}

/* A LISTENING or FAULTY ptp4l names its own clock as grandmaster (PARENT_DATA_SET
 * falls back to itself; seen in the lab once node1's ptp4l stopped, and in the
 * demo's FAULTY port).  It keeps nobody's time: no vote, no cluster finding. */
static void test_grandmaster_ignores_ports_that_follow_nobody(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	set_ptp(&f.nodes[0], PTP_PORT_MASTER, GM_A, 0);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[2], PTP_PORT_UNCALIBRATED, GM_A, 900);
	set_ptp(&f.nodes[3], PTP_PORT_LISTENING, "c0ffee.fffe.000003", 0);
	set_ptp(&f.nodes[4], PTP_PORT_FAULTY, "c0ffee.fffe.000004", 0);

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.gm_nodes, 3);
	assert_int_equal(s.n_gms, 1);
	assert_false(s.gm_tied);
	assert_int_equal(s.flagged_nodes, 0);
	for (size_t i = 0; i < f.n; i++) {
		expect(&f.nodes[i], "cluster.grandmaster", SEVERITY_OK);
	}

	/* two unlocked nodes do not outvote the grandmaster and its slave */
	fleet g = fleet_new(4);
	set_ptp(&g.nodes[0], PTP_PORT_MASTER, GM_A, 0);
	set_ptp(&g.nodes[1], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&g.nodes[2], PTP_PORT_LISTENING, GM_B, 0);
	set_ptp(&g.nodes[3], PTP_PORT_LISTENING, GM_B, 0);
	s = evaluate(&g);
	assert_int_equal(s.n_gms, 1);
	assert_string_equal(s.majority_gm, GM_A);
	for (size_t i = 0; i < g.n; i++) {
		expect(&g.nodes[i], "cluster.grandmaster", SEVERITY_OK);
	}
	fleet_free(&g);
	fleet_free(&f);
}

static void test_grandmaster_tie_is_a_split(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	set_ptp(&f.nodes[0], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_B, 10);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[3], PTP_PORT_SLAVE, GM_B, 10);
	set_ptp(&f.nodes[4], PTP_PORT_SLAVE, GM_C, 10);

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.n_gms, 3);
	assert_true(s.gm_tied);
	assert_string_equal(s.majority_gm, "");
	assert_int_equal(s.majority_gm_nodes, 2);
	/* nobody is called the minority: everyone hears about the split */
	for (size_t i = 0; i < f.n; i++) {
		expect(&f.nodes[i], "cluster.grandmaster", SEVERITY_WARN);
		assert_contains(get(&f.nodes[i], "cluster.grandmaster")->message, "PTP split");
		assert_contains(get(&f.nodes[i], "cluster.grandmaster")->hint, "`grandmaster`");
	}
	assert_contains(get(&f.nodes[4], "cluster.grandmaster")->message,
			"grandmasters " GM_A " and " GM_B " have 2 nodes each; this node follows " GM_C);

	/* one more vote breaks the tie: B is the majority, A and C minorities */
	set_ptp(&f.nodes[4], PTP_PORT_SLAVE, GM_B, 10);
	s = evaluate(&f);
	assert_false(s.gm_tied);
	assert_string_equal(s.majority_gm, GM_B);
	assert_int_equal(s.majority_gm_nodes, 3);
	expect(&f.nodes[0], "cluster.grandmaster", SEVERITY_CRIT);
	expect(&f.nodes[1], "cluster.grandmaster", SEVERITY_OK);
	expect(&f.nodes[2], "cluster.grandmaster", SEVERITY_CRIT);
	fleet_free(&f);
}

static void test_grandmaster_configured_wins(void **state)
{
	(void)state;
	fleet f = fleet_new(4);
	set_ptp(&f.nodes[0], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[3], PTP_PORT_SLAVE, GM_B, 10);
	for (size_t i = 0; i < f.n; i++) {
		snprintf(f.settings[i].grandmaster, sizeof f.settings[i].grandmaster, "%s", GM_B);
	}
	consistency_summary s = evaluate(&f);
	assert_string_equal(s.majority_gm, GM_A); /* the summary still says what is seen */
	for (size_t i = 0; i < 3; i++) {
		expect(&f.nodes[i], "cluster.grandmaster", SEVERITY_CRIT);
		assert_contains(get(&f.nodes[i], "cluster.grandmaster")->message,
				"Follows grandmaster " GM_A ", not the configured " GM_B);
	}
	expect(&f.nodes[3], "cluster.grandmaster", SEVERITY_OK);

	/* configured on one group only: the rest go by the majority */
	f.settings[0].grandmaster[0] = '\0';
	f.settings[1].grandmaster[0] = '\0';
	f.settings[2].grandmaster[0] = '\0';
	evaluate(&f);
	expect(&f.nodes[0], "cluster.grandmaster", SEVERITY_OK);
	expect(&f.nodes[3], "cluster.grandmaster", SEVERITY_OK); /* on its configured GM */
	snprintf(f.settings[3].grandmaster, sizeof f.settings[3].grandmaster, "%s", GM_C);
	evaluate(&f);
	expect(&f.nodes[3], "cluster.grandmaster", SEVERITY_CRIT);
	fleet_free(&f);
}

static void test_ptp_domain(void **state)
{
	(void)state;
	fleet f = fleet_new(4);
	for (size_t i = 0; i < f.n; i++) {
		set_ptp(&f.nodes[i], PTP_PORT_SLAVE, GM_A, 10);
	}
	f.nodes[2].obs.ptp.domain_number = 24;
	evaluate(&f);
	expect(&f.nodes[2], "cluster.ptp_domain", SEVERITY_CRIT);
	const finding *fd = get(&f.nodes[2], "cluster.ptp_domain");
	assert_contains(fd->message, "domainNumber 24 while 3 of 4 PTP nodes use 0");
	assert_contains(fd->hint, "`domainNumber 0`");
	assert_contains(fd->hint, "pmc -u -b 0 -d 0");
	expect(&f.nodes[0], "cluster.ptp_domain", SEVERITY_OK);

	/* unknown domain: no vote */
	f.nodes[2].obs.ptp.domain_number = INT_UNKNOWN;
	evaluate(&f);
	expect(&f.nodes[2], "cluster.ptp_domain", SEVERITY_OK);

	/* 2 against 2 */
	f.nodes[2].obs.ptp.domain_number = 24;
	f.nodes[3].obs.ptp.domain_number = 24;
	evaluate(&f);
	for (size_t i = 0; i < f.n; i++) {
		expect(&f.nodes[i], "cluster.ptp_domain", SEVERITY_WARN);
	}
	fleet_free(&f);
}

/* ------------------------------------------------------------ reference */

static void test_reference_majority(void **state)
{
	(void)state;
	/* the hybrid cluster: most nodes on the on-premises server, one on the
	 * cloud provider's */
	fleet f = fleet_new(6);
	set_chrony(&f.nodes[0], "10.0.0.1", 1e-5);
	set_chrony(&f.nodes[1], "10.0.0.1", 2e-5);
	set_chrony(&f.nodes[2], "10.0.0.1", -1e-5);
	set_chrony(&f.nodes[3], "169.254.169.123", 3e-5);
	/* not voting: unsynchronised (placeholder reference), failed chronyc */
	set_chrony(&f.nodes[4], "192.0.2.7", 0);
	f.nodes[4].obs.chrony.tracking.leap = CHRONY_LEAP_UNSYNC;
	set_chrony(&f.nodes[5], "192.0.2.7", 0);
	f.nodes[5].obs.chrony.state = OBS_DAEMON_UNREACHABLE;

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.reference_nodes, 4);
	assert_int_equal(s.n_references, 2);
	assert_string_equal(s.majority_reference, "10.0.0.1");
	assert_int_equal(s.majority_reference_nodes, 3);
	assert_false(s.reference_tied);
	expect(&f.nodes[3], "cluster.reference", SEVERITY_WARN);
	const finding *fd = get(&f.nodes[3], "cluster.reference");
	assert_contains(fd->message, "Follows 169.254.169.123 while 3 of 4 chrony nodes follow 10.0.0.1");
	assert_contains(fd->hint, "`server 10.0.0.1 iburst prefer`");
	for (size_t i = 0; i < f.n; i++) {
		if (i != 3) {
			expect(&f.nodes[i], "cluster.reference", SEVERITY_OK);
		}
	}

	/* no tracking name: the selected source's name counts, then the
	 * reference ID as a dotted quad */
	f.nodes[0].obs.chrony.tracking.reference_name[0] = '\0';
	f.nodes[1].obs.chrony.tracking.reference_name[0] = '\0';
	f.nodes[1].obs.chrony.sources[0].state = CHRONY_STATE_COMBINED;
	s = evaluate(&f);
	assert_string_equal(s.majority_reference, "10.0.0.1");
	assert_int_equal(s.majority_reference_nodes, 3);
	expect(&f.nodes[0], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[1], "cluster.reference", SEVERITY_OK);

	/* 2 against 2 */
	set_chrony(&f.nodes[2], "169.254.169.123", 0);
	s = evaluate(&f);
	assert_true(s.reference_tied);
	assert_string_equal(s.majority_reference, "");
	for (size_t i = 0; i < 4; i++) {
		expect(&f.nodes[i], "cluster.reference", SEVERITY_WARN);
		assert_contains(get(&f.nodes[i], "cluster.reference")->message, "NTP split");
	}
	fleet_free(&f);
}

static void test_reference_configured_upstream(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	set_chrony(&f.nodes[0], "10.0.0.1", 0);
	set_chrony(&f.nodes[1], "10.0.0.1", 0);
	set_chrony(&f.nodes[2], "10.0.0.1", 0);
	set_chrony(&f.nodes[3], "169.254.169.123", 0);
	/* the upstream itself, listed in the inventory under its address */
	node_init(&f.nodes[4], "169.254.169.123");
	set_chrony(&f.nodes[4], "203.0.113.5", 0);
	for (size_t i = 0; i < f.n; i++) {
		snprintf(f.settings[i].ntp_upstream, sizeof f.settings[i].ntp_upstream,
			 "169.254.169.123");
	}
	evaluate(&f);
	for (size_t i = 0; i < 3; i++) {
		expect(&f.nodes[i], "cluster.reference", SEVERITY_CRIT);
		const finding *fd = get(&f.nodes[i], "cluster.reference");
		assert_contains(fd->message, "Follows 10.0.0.1, not the configured upstream 169.254.169.123");
		assert_contains(fd->hint, "`server 169.254.169.123 iburst prefer`");
		assert_contains(fd->hint, "chronyc -n");
	}
	expect(&f.nodes[3], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[4], "cluster.reference", SEVERITY_OK);

	/* matched by any name chronyc -n gives: selected source, reference ID */
	f.nodes[0].obs.chrony.tracking.reference_name[0] = '\0';
	f.nodes[0].obs.chrony.tracking.reference_id = 0xA9FEA97B; /* 169.254.169.123 */
	f.nodes[1].obs.chrony.tracking.reference_name[0] = '\0';
	f.nodes[1].obs.chrony.tracking.has_reference_id = false;
	snprintf(f.nodes[1].obs.chrony.sources[0].name, sizeof f.nodes[1].obs.chrony.sources[0].name,
		 "169.254.169.123");
	evaluate(&f);
	expect(&f.nodes[0], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[1], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[2], "cluster.reference", SEVERITY_CRIT);

	/* a name chronyc -n never prints does not match an address */
	snprintf(f.settings[3].ntp_upstream, sizeof f.settings[3].ntp_upstream,
		 "time.aws.example");
	evaluate(&f);
	expect(&f.nodes[3], "cluster.reference", SEVERITY_CRIT);
	fleet_free(&f);
}

/* The upstream listed with a port (host:port, [v6]:port) is still itself:
 * its name without the port is the address chrony follows. */
static void test_reference_upstream_listed_with_port(void **state)
{
	(void)state;
	fleet f = fleet_new(3);
	set_chrony(&f.nodes[0], "10.128.27.1", 0);
	set_chrony(&f.nodes[1], "10.128.27.1", 0);
	node_init(&f.nodes[2], "10.128.27.1:10865");
	set_chrony(&f.nodes[2], "203.0.113.5", 0);
	for (size_t i = 0; i < f.n; i++) {
		snprintf(f.settings[i].ntp_upstream, sizeof f.settings[i].ntp_upstream, "10.128.27.1");
	}
	evaluate(&f);
	expect(&f.nodes[0], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[2], "cluster.reference", SEVERITY_OK);

	node_init(&f.nodes[2], "[fd00::1]:22");
	set_chrony(&f.nodes[2], "203.0.113.5", 0);
	for (size_t i = 0; i < f.n; i++) {
		snprintf(f.settings[i].ntp_upstream, sizeof f.settings[i].ntp_upstream, "fd00::1");
	}
	evaluate(&f);
	expect(&f.nodes[2], "cluster.reference", SEVERITY_OK);
	expect(&f.nodes[0], "cluster.reference", SEVERITY_CRIT);
	fleet_free(&f);
}

static void test_reference_local_clock(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	fleet f = fleet_new(5);
	set_chrony(&f.nodes[0], "10.77.0.1", 0);
	set_chrony(&f.nodes[1], "10.77.0.1", 0);
	set_chrony_local(&f.nodes[2]);
	set_chrony_local(&f.nodes[3]);
	set_chrony_local(&f.nodes[4]);
	for (size_t i = 0; i < f.n; i++) {
		health_apply(&f.nodes[i], &th);
	}
	assert_int_equal(f.nodes[2].n_own_findings, 1);
	assert_string_equal(f.nodes[2].findings.items[0].code, "chrony.local_reference");

	/* three own clocks are three references, not a majority of one */
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.local_clock_nodes, 3);
	assert_int_equal(s.reference_nodes, 2);
	assert_string_equal(s.majority_reference, "10.77.0.1");
	assert_int_equal(s.majority_reference_nodes, 2);
	/* chrony.local_reference said it already */
	expect(&f.nodes[2], "cluster.reference", SEVERITY_OK);
	assert_int_equal(f.nodes[2].status, NODE_STATUS_WARN);

	/* when the node's own rule could not say it (sources cut short), the
	 * cluster check does */
	f.nodes[3].obs.chrony.n_sources_total = 40;
	health_apply(&f.nodes[3], &th);
	assert_int_equal(f.nodes[3].n_own_findings, 0);
	evaluate(&f);
	expect(&f.nodes[3], "cluster.reference", SEVERITY_WARN);
	assert_contains(get(&f.nodes[3], "cluster.reference")->message,
			"Serves its own clock (chrony `local`) while 2 of 2 chrony nodes follow 10.77.0.1");

	/* the server the others follow, listed under its address */
	node_init(&f.nodes[4], "10.77.0.1");
	set_chrony_local(&f.nodes[4]);
	f.nodes[4].obs.chrony.n_sources_total = 40;
	health_apply(&f.nodes[4], &th);
	evaluate(&f);
	expect(&f.nodes[4], "cluster.reference", SEVERITY_OK);

	/* a configured upstream makes `local` wrong, not just odd */
	snprintf(f.settings[2].ntp_upstream, sizeof f.settings[2].ntp_upstream, "10.77.0.1");
	evaluate(&f);
	expect(&f.nodes[2], "cluster.reference", SEVERITY_CRIT);
	assert_contains(get(&f.nodes[2], "cluster.reference")->message,
			"Follows its own clock (chrony `local`), not the configured upstream 10.77.0.1");
	assert_int_equal(f.nodes[2].n_own_findings, 1); /* its own finding is kept */
	assert_int_equal(f.nodes[2].status, NODE_STATUS_CRIT);
	fleet_free(&f);
}

/* --------------------------------------------------------------- spreads */

static void test_chrony_spread_outliers(void **state)
{
	(void)state;
	fleet f = fleet_new(6);
	set_chrony(&f.nodes[0], "10.0.0.1", 0);
	set_chrony(&f.nodes[1], "10.0.0.1", 1e-4);
	set_chrony(&f.nodes[2], "10.0.0.1", -1e-4);
	set_chrony(&f.nodes[3], "10.0.0.1", 2e-4);
	set_chrony(&f.nodes[4], "10.0.0.1", 5e-3);  /* the outlier */
	set_chrony_local(&f.nodes[5]);              /* 0 against itself: not counted */

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.chrony_nodes, 5);
	assert_near(s.chrony_spread_s, 5.1e-3, 1e-12);
	assert_near(s.chrony_median_s, 1e-4, 1e-12);
	assert_int_equal(s.chrony_outliers, 1);
	/* the summary and the header's cluster_summarise count the same nodes */
	cluster_summary cs;
	cluster_summarise(f.nodes, f.n, &cs);
	assert_int_equal(cs.chrony_nodes, s.chrony_nodes);
	assert_near(cs.offset_spread_s, s.chrony_spread_s, 0);

	expect(&f.nodes[4], "cluster.offset_spread", SEVERITY_WARN);
	const finding *fd = get(&f.nodes[4], "cluster.offset_spread");
	assert_contains(fd->message, "System time offset +5.000 ms is +4.900 ms from the median "
			"+100.000 µs; spread 5.100 ms over 5 chrony nodes (warn above 2.000 ms)");
	assert_contains(fd->hint, "chronyc makestep");
	for (size_t i = 0; i < 4; i++) {
		expect(&f.nodes[i], "cluster.offset_spread", SEVERITY_OK);
	}

	/* far beyond the crit spread: crit for the far node, warn for one just
	 * past half the warn spread */
	set_chrony(&f.nodes[4], "10.0.0.1", 30e-3);
	set_chrony(&f.nodes[3], "10.0.0.1", 1.5e-3);
	s = evaluate(&f);
	expect(&f.nodes[4], "cluster.offset_spread", SEVERITY_CRIT);
	expect(&f.nodes[3], "cluster.offset_spread", SEVERITY_WARN);
	expect(&f.nodes[0], "cluster.offset_spread", SEVERITY_OK);
	assert_int_equal(s.chrony_outliers, 2);

	/* each node by its own thresholds */
	f.settings[3].th.cluster_chrony_spread_warn_s = 4e-3;
	f.settings[4].th.cluster_chrony_spread_crit_s = 0.1;
	evaluate(&f);
	expect(&f.nodes[3], "cluster.offset_spread", SEVERITY_OK);
	expect(&f.nodes[4], "cluster.offset_spread", SEVERITY_WARN);
	fleet_free(&f);
}

static void test_chrony_spread_boundaries(void **state)
{
	(void)state;
	/* binary fractions keep the arithmetic exact */
	const double warn = 0.0078125, crit = 0.0625;
	fleet f = fleet_new(3);
	for (size_t i = 0; i < f.n; i++) {
		f.settings[i].th.cluster_chrony_spread_warn_s = warn;
		f.settings[i].th.cluster_chrony_spread_crit_s = crit;
	}
	/* median 0; the spread exactly at warn: nothing */
	set_chrony(&f.nodes[0], "10.0.0.1", -warn / 2);
	set_chrony(&f.nodes[1], "10.0.0.1", 0);
	set_chrony(&f.nodes[2], "10.0.0.1", warn / 2);
	consistency_summary s = evaluate(&f);
	assert_near(s.chrony_spread_s, warn, 0);
	assert_int_equal(s.chrony_outliers, 0);

	/* spread past warn, but node 0 exactly at half of it from the median */
	set_chrony(&f.nodes[2], "10.0.0.1", warn);
	evaluate(&f);
	expect(&f.nodes[0], "cluster.offset_spread", SEVERITY_OK);
	expect(&f.nodes[2], "cluster.offset_spread", SEVERITY_WARN);

	/* the spread exactly at crit: warn */
	set_chrony(&f.nodes[0], "10.0.0.1", -crit / 2);
	set_chrony(&f.nodes[2], "10.0.0.1", crit / 2);
	evaluate(&f);
	expect(&f.nodes[0], "cluster.offset_spread", SEVERITY_WARN);
	expect(&f.nodes[2], "cluster.offset_spread", SEVERITY_WARN);
	/* past crit, with node 2 past half of it: crit */
	set_chrony(&f.nodes[2], "10.0.0.1", crit / 2 + 0.0009765625);
	evaluate(&f);
	expect(&f.nodes[0], "cluster.offset_spread", SEVERITY_WARN);
	expect(&f.nodes[2], "cluster.offset_spread", SEVERITY_CRIT);
	expect(&f.nodes[1], "cluster.offset_spread", SEVERITY_OK);
	fleet_free(&f);
}

static void test_ptp_spread_outliers(void **state)
{
	(void)state;
	fleet f = fleet_new(6);
	set_ptp(&f.nodes[0], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, -20);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, 30);
	set_ptp(&f.nodes[3], PTP_PORT_SLAVE, GM_A, 5000);
	/* not counted: the master, an uncalibrated port */
	set_ptp(&f.nodes[4], PTP_PORT_MASTER, GM_A, 900000);
	set_ptp(&f.nodes[5], PTP_PORT_UNCALIBRATED, GM_A, -900000);

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.ptp_nodes, 4);
	assert_near(s.ptp_spread_ns, 5020, 0);
	assert_near(s.ptp_median_ns, 20, 0);
	assert_int_equal(s.ptp_outliers, 1);
	expect(&f.nodes[3], "cluster.ptp_spread", SEVERITY_WARN);
	const finding *fd = get(&f.nodes[3], "cluster.ptp_spread");
	assert_contains(fd->message, "offsetFromMaster +5.000 µs is +4.980 µs from the median +20 ns; "
			"spread 5.020 µs over 4 PTP slaves (warn above 2.000 µs)");
	assert_contains(fd->hint, "GET CURRENT_DATA_SET");
	for (size_t i = 0; i < f.n; i++) {
		if (i != 3) {
			expect(&f.nodes[i], "cluster.ptp_spread", SEVERITY_OK);
		}
	}

	f.nodes[3].obs.ptp.offset_from_master_ns = -300000;
	evaluate(&f);
	expect(&f.nodes[3], "cluster.ptp_spread", SEVERITY_CRIT);

	/* exactly at the warn spread: nothing */
	f.nodes[3].obs.ptp.offset_from_master_ns = 1980; /* -20 .. 1980 */
	s = evaluate(&f);
	assert_near(s.ptp_spread_ns, 2000, 0);
	assert_int_equal(s.ptp_outliers, 0);
	f.nodes[3].obs.ptp.offset_from_master_ns = 1981;
	evaluate(&f);
	expect(&f.nodes[3], "cluster.ptp_spread", SEVERITY_WARN);
	fleet_free(&f);
}

/* ------------------------------------------------------- leap, TAI-UTC */

static void test_leap_minority(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	for (size_t i = 0; i < 4; i++) {
		set_chrony(&f.nodes[i], "10.0.0.1", 0);
	}
	f.nodes[1].obs.chrony.tracking.leap = CHRONY_LEAP_INSERT;
	/* unsynchronised: no vote */
	set_chrony(&f.nodes[4], "10.0.0.1", 0);
	f.nodes[4].obs.chrony.tracking.leap = CHRONY_LEAP_UNSYNC;
	evaluate(&f);
	expect(&f.nodes[1], "cluster.leap", SEVERITY_WARN);
	const finding *fd = get(&f.nodes[1], "cluster.leap");
	assert_contains(fd->message, "Announces a leap second insertion while 3 of 4 nodes announce "
			"no leap second (chrony: Insert second)");
	assert_contains(fd->hint, "leapsectz right/UTC");
	expect(&f.nodes[0], "cluster.leap", SEVERITY_OK);
	expect(&f.nodes[4], "cluster.leap", SEVERITY_OK);

	/* the other way round: the node that misses the announcement */
	f.nodes[0].obs.chrony.tracking.leap = CHRONY_LEAP_INSERT;
	f.nodes[2].obs.chrony.tracking.leap = CHRONY_LEAP_INSERT;
	evaluate(&f);
	expect(&f.nodes[3], "cluster.leap", SEVERITY_WARN);
	assert_contains(get(&f.nodes[3], "cluster.leap")->message,
			"Announces no leap second while 3 of 4 nodes announce a leap second insertion");
	expect(&f.nodes[1], "cluster.leap", SEVERITY_OK);

	/* PTP nodes vote with leap61/leap59, and a node's chrony and PTP
	 * announcements combine */
	fleet_free(&f);
	f = fleet_new(4);
	for (size_t i = 0; i < f.n; i++) {
		set_ptp(&f.nodes[i], PTP_PORT_SLAVE, GM_A, 10);
	}
	f.nodes[2].obs.ptp.leap59 = 1;
	f.nodes[3].obs.ptp.leap61 = INT_UNKNOWN; /* not known: no vote */
	evaluate(&f);
	expect(&f.nodes[2], "cluster.leap", SEVERITY_WARN);
	assert_contains(get(&f.nodes[2], "cluster.leap")->message, "a leap second deletion while 2 of 3");
	assert_contains(get(&f.nodes[2], "cluster.leap")->message, "PTP: leap61 0, leap59 1");
	expect(&f.nodes[3], "cluster.leap", SEVERITY_OK);
	f.nodes[2].obs.ptp.leap59 = 0;
	f.nodes[2].obs.ptp.leap61 = 1;
	evaluate(&f);
	assert_contains(get(&f.nodes[2], "cluster.leap")->message,
			"Announces a leap second insertion while 2 of 3 nodes announce no leap second "
			"(PTP: leap61 1, leap59 0)");
	f.nodes[2].obs.ptp.leap61 = 0;
	f.nodes[2].obs.ptp.leap59 = 1;

	set_chrony(&f.nodes[3], "10.0.0.1", 0);
	f.nodes[3].obs.chrony.tracking.leap = CHRONY_LEAP_DELETE;
	evaluate(&f);
	/* 2 none against 2 delete: a split, everyone hears */
	for (size_t i = 0; i < f.n; i++) {
		expect(&f.nodes[i], "cluster.leap", SEVERITY_WARN);
		assert_contains(get(&f.nodes[i], "cluster.leap")->message, "Leap split");
	}
	fleet_free(&f);
}

static void test_utc_offset(void **state)
{
	(void)state;
	fleet f = fleet_new(5);
	for (size_t i = 0; i < f.n; i++) {
		set_ptp(&f.nodes[i], PTP_PORT_SLAVE, GM_A, 10);
	}
	f.nodes[1].obs.ptp.current_utc_offset = 36;
	f.nodes[4].obs.ptp.current_utc_offset = 0;
	f.nodes[4].obs.ptp.current_utc_offset_valid = 0; /* not valid: no vote */
	evaluate(&f);
	expect(&f.nodes[1], "cluster.utc_offset", SEVERITY_CRIT);
	const finding *fd = get(&f.nodes[1], "cluster.utc_offset");
	assert_contains(fd->message, "currentUtcOffset 36 s while 3 of 4 PTP nodes have 37 s: its UTC "
			"is +1 s from theirs");
	assert_contains(fd->hint, "utc_offset 37");
	expect(&f.nodes[0], "cluster.utc_offset", SEVERITY_OK);
	expect(&f.nodes[4], "cluster.utc_offset", SEVERITY_OK);
	fleet_free(&f);
}

/* --------------------------------------------------------- clock median */

static void test_clock_median(void **state)
{
	(void)state;
	fleet f = fleet_new(6);
	set_clock(&f.nodes[0], 1e-3, 1e-4);
	set_clock(&f.nodes[1], -2e-3, 1e-4);
	set_clock(&f.nodes[2], 5e-4, 1e-4);
	set_clock(&f.nodes[3], 0, 1e-4);
	set_clock(&f.nodes[4], 0.05, 1e-4);   /* 50 ms off: the others agree */
	set_clock(&f.nodes[5], 0.05, 1e-4);
	f.nodes[5].obs.clock.state = OBS_COMMAND_FAILED; /* no check: left out */

	consistency_summary s = evaluate(&f);
	assert_int_equal(s.clock_nodes, 5);
	assert_near(s.clock_median_s, 5e-4, 1e-15);
	expect(&f.nodes[4], "cluster.clock_median", SEVERITY_WARN);
	const finding *fd = get(&f.nodes[4], "cluster.clock_median");
	assert_contains(fd->message, "Clock +50.000 ms ± 100.000 µs is +49.500 ms from the median "
			"+500.000 µs of 5 nodes' clocks (warn above 10.000 ms");
	assert_contains(fd->hint, "`chronyc sources -v`");
	for (size_t i = 0; i < 4; i++) {
		expect(&f.nodes[i], "cluster.clock_median", SEVERITY_OK);
	}
	expect(&f.nodes[5], "cluster.clock_median", SEVERITY_OK);

	/* within the uncertainty of the measurement: not flagged */
	f.nodes[4].obs.clock.uncertainty_s = 0.045;
	evaluate(&f);
	expect(&f.nodes[4], "cluster.clock_median", SEVERITY_OK);

	/* the daemon's claim goes into the hint */
	set_chrony(&f.nodes[4], "10.0.0.1", 3e-6);
	f.nodes[4].obs.clock.uncertainty_s = 1e-4;
	evaluate(&f);
	assert_contains(get(&f.nodes[4], "cluster.clock_median")->hint, "chronyd claims +3.000 µs");

	/* the node's own clock.offset rule fires first (here with a 40 ms
	 * limit): not repeated */
	thresholds th;
	thresholds_init_defaults(&th);
	th.clock_offset_warn_s = 0.04;
	health_apply(&f.nodes[4], &th);
	assert_string_equal(f.nodes[4].findings.items[0].code, "clock.offset");
	evaluate(&f);
	expect(&f.nodes[4], "cluster.clock_median", SEVERITY_OK);
	fleet_free(&f);
}

/* A loaded client: most exchanges come back late, with offsets as vague as
 * their round trips; they must not set the median the precise ones are
 * judged against (seen in the soak: a median of +40 ms from measurements
 * good to +-30 ms flagged every precise node). */
static void test_clock_median_from_precise_measurements(void **state)
{
	(void)state;
	fleet f = fleet_new(10);
	for (size_t i = 0; i < 4; i++) {
		set_clock(&f.nodes[i], -5e-3 + 2e-3 * (double)i, 6e-3);
	}
	for (size_t i = 4; i < 10; i++) {
		set_clock(&f.nodes[i], 0.04, 0.03 + 0.01 * (double)i);
	}
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.clock_nodes, 4);
	assert_true(fabs(s.clock_median_s) < 5e-3);
	for (size_t i = 0; i < 10; i++) {
		expect(&f.nodes[i], "cluster.clock_median", SEVERITY_OK);
	}
	fleet_free(&f);
}

/* ------------------------------------------------------------- the whole */

static void test_findings_order_and_status(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	fleet f = fleet_new(4);
	for (size_t i = 0; i < f.n; i++) {
		set_chrony(&f.nodes[i], "10.0.0.1", 0);
		set_ptp(&f.nodes[i], PTP_PORT_SLAVE, GM_A, 10);
		f.nodes[i].obs.daemons.state = OBS_OK;
		f.nodes[i].obs.daemons.running = DAEMON_CHRONYD | DAEMON_PTP4L;
		health_apply(&f.nodes[i], &th);
		assert_int_equal(f.nodes[i].status, NODE_STATUS_OK);
	}
	/* node 3: a warn (reference) checked after... and a crit (grandmaster) */
	set_chrony(&f.nodes[3], "10.0.0.9", 0);
	f.nodes[3].obs.chrony.tracking.system_time_offset_s = 5e-4; /* own rules: fine */
	snprintf(f.nodes[3].obs.ptp.grandmaster_identity,
		 sizeof f.nodes[3].obs.ptp.grandmaster_identity, "%s", GM_B);
	health_apply(&f.nodes[3], &th);
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.flagged_nodes, 1);
	const node *nd = &f.nodes[3];
	assert_int_equal(cluster_count(nd), 2);
	assert_string_equal(nd->findings.items[nd->n_own_findings].code, "cluster.grandmaster");
	assert_string_equal(nd->findings.items[nd->n_own_findings + 1].code, "cluster.reference");
	assert_int_equal(nd->status, NODE_STATUS_CRIT);

	/* fixed: the next pass clears them and the status recovers */
	set_chrony(&f.nodes[3], "10.0.0.1", 0);
	snprintf(f.nodes[3].obs.ptp.grandmaster_identity,
		 sizeof f.nodes[3].obs.ptp.grandmaster_identity, "%s", GM_A);
	s = evaluate(&f);
	assert_int_equal(s.flagged_nodes, 0);
	assert_int_equal(cluster_count(&f.nodes[3]), 0);
	assert_int_equal(f.nodes[3].status, NODE_STATUS_OK);

	/* a node polled again keeps its cluster findings until the next pass */
	snprintf(f.nodes[3].obs.ptp.grandmaster_identity,
		 sizeof f.nodes[3].obs.ptp.grandmaster_identity, "%s", GM_B);
	evaluate(&f);
	health_apply(&f.nodes[3], &th);
	expect(&f.nodes[3], "cluster.grandmaster", SEVERITY_CRIT);
	fleet_free(&f);
}

static void test_remote_names_sanitised(void **state)
{
	(void)state;
	fleet f = fleet_new(3);
	set_ptp(&f.nodes[0], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[1], PTP_PORT_SLAVE, GM_A, 10);
	set_ptp(&f.nodes[2], PTP_PORT_SLAVE, GM_A, 10);
	/* an identity with an escape sequence and no terminating NUL */
	ptp_obs *p = &f.nodes[2].obs.ptp;
	memset(p->grandmaster_identity, 'Z', sizeof p->grandmaster_identity);
	memcpy(p->grandmaster_identity, "\x1b]0;pwned\x07X", 11);
	evaluate(&f);
	const finding *fd = get(&f.nodes[2], "cluster.grandmaster");
	assert_non_null(fd);
	assert_contains(fd->message, "Follows grandmaster xzzz"); /* identities are lower-cased */
	assert_null(strstr(fd->message, "pwned"));
	fleet_free(&f);
}

static void test_many_nodes_many_values(void **state)
{
	(void)state;
	/* 300 nodes over 40 grandmasters: node i follows gm (i % 40) except
	 * that gm 7 also takes every node with i % 3 == 0, and the nodes are not
	 * grouped by grandmaster */
	const size_t n = 300;
	fleet f = fleet_new(n);
	size_t on7 = 0;
	for (size_t i = 0; i < n; i++) {
		char gm[32];
		size_t g = i % 3 == 0 ? 7 : i % 40;
		snprintf(gm, sizeof gm, "%06zx.fffe.000000", g);
		set_ptp(&f.nodes[i], PTP_PORT_SLAVE, gm, (int64_t)(i % 11));
		on7 += g == 7;
	}
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.gm_nodes, n);
	assert_int_equal(s.n_gms, 40);
	assert_string_equal(s.majority_gm, "000007.fffe.000000");
	assert_int_equal(s.majority_gm_nodes, on7);
	assert_int_equal(s.flagged_nodes, n - on7);
	for (size_t i = 0; i < n; i++) {
		bool minority = !(i % 3 == 0 || i % 40 == 7);
		expect(&f.nodes[i], "cluster.grandmaster", minority ? SEVERITY_CRIT : SEVERITY_OK);
	}
	assert_near(s.ptp_spread_ns, 10, 0);
	fleet_free(&f);
}

/* ------------------------------------------------------ upstream split */

/* Put nodes [from, to) in --config group `group` named `name` (0: none),
 * following `ref`, their clocks at `clock_s` (+ i µs, so the medians are
 * exact: clock_s + the middle node's i). */
static void hybrid(fleet *f, size_t from, size_t to, int group, const char *name, const char *ref,
		   double clock_s)
{
	for (size_t i = from; i < to; i++) {
		f->settings[i].group = group;
		snprintf(f->settings[i].group_name, sizeof f->settings[i].group_name, "%s", name);
		set_chrony(&f->nodes[i], ref, 0.0);
		set_clock(&f->nodes[i], clock_s + (double)(i - from) * 1e-6, 0.5e-3);
	}
}

static size_t count_code(const fleet *f, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++) {
		n += find(&f->nodes[i], code) != NULL;
	}
	return n;
}

static void test_upstream_split_groups_apart(void **state)
{
	(void)state;
	/* on-premises racks on their own server, cloud nodes on the cloud's:
	 * 25 ms apart as one client measures them (the guide's 20-50 ms) */
	fleet f = fleet_new(9);
	hybrid(&f, 0, 5, 1, "onprem", "10.0.0.1", 0.5e-3);
	hybrid(&f, 5, 9, 2, "cloud", "169.254.169.123", 25.5005e-3);
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 9);
	for (size_t i = 0; i < 9; i++) {
		const finding *fd = get(&f.nodes[i], "cluster.upstream_split");
		assert_int_equal(fd->sev, SEVERITY_WARN);
	}
	/* medians: 0.5 ms + 2 µs and 25.5005 ms + 1.5 µs */
	assert_string_equal(get(&f.nodes[0], "cluster.upstream_split")->message,
			    "Group onprem follows 10.0.0.1, group cloud follows 169.254.169.123: clocks "
			    "25.000 ms apart (medians of 5 and 4 clock checks, warn above 10.000 ms)");
	assert_string_equal(get(&f.nodes[8], "cluster.upstream_split")->message,
			    "Group cloud follows 169.254.169.123, group onprem follows 10.0.0.1: clocks "
			    "25.000 ms apart (medians of 4 and 5 clock checks, warn above 10.000 ms)");

	/* the header's summary counts them and quotes the first */
	cluster_summary cs;
	cluster_summarise(f.nodes, f.n, &cs);
	assert_int_equal(cs.upstream_split_nodes, 9);
	assert_string_equal(cs.upstream_split, get(&f.nodes[0], "cluster.upstream_split")->message);
	fleet_free(&f);
}

static void test_upstream_split_needs_both(void **state)
{
	(void)state;
	/* one upstream, clocks apart: not a split of upstreams */
	fleet f = fleet_new(6);
	hybrid(&f, 0, 3, 1, "a", "10.0.0.1", 0.0);
	hybrid(&f, 3, 6, 2, "b", "10.0.0.1", 30e-3);
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 0);
	assert_int_equal(count_code(&f, "cluster.upstream_split"), 0);

	/* two upstreams, clocks close (5 ms < 10 ms): no split either */
	hybrid(&f, 3, 6, 2, "b", "10.0.0.2", 5e-3);
	s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 0);

	/* no --config: every node in one set, nothing to compare */
	hybrid(&f, 0, 3, 0, "", "10.0.0.1", 0.0);
	hybrid(&f, 3, 6, 0, "", "10.0.0.2", 40e-3);
	s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 0);
	consistency_evaluate(f.nodes, f.n, NULL, &s);
	assert_int_equal(s.upstream_split_nodes, 0);
	fleet_free(&f);
}

static void test_upstream_split_own_limit_and_ungrouped(void **state)
{
	(void)state;
	/* the nodes no group names form a set of their own; each node is judged
	 * by its own group's limit (clock_offset_warn_s) */
	fleet f = fleet_new(6);
	hybrid(&f, 0, 3, 0, "", "10.0.0.1", 0.0);
	hybrid(&f, 3, 6, 1, "cloud", "169.254.169.123", 20e-3);
	for (size_t i = 3; i < 6; i++) {
		f.settings[i].th.clock_offset_warn_s = 50e-3;
	}
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_non_null(strstr(get(&f.nodes[i], "cluster.upstream_split")->message,
				       "Group (no group) follows 10.0.0.1, group cloud follows"));
	}
	for (size_t i = 3; i < 6; i++) {
		expect(&f.nodes[i], "cluster.upstream_split", SEVERITY_OK);
	}
	fleet_free(&f);
}

static void test_upstream_split_unclear_groups_left_out(void **state)
{
	(void)state;
	fleet f = fleet_new(8);
	hybrid(&f, 0, 3, 1, "a", "10.0.0.1", 0.0);
	/* group b ties between two references: it follows no one upstream */
	hybrid(&f, 3, 5, 2, "b", "10.0.0.2", 50e-3);
	set_chrony(&f.nodes[4], "10.0.0.3", 0.0);
	/* group c follows another upstream but has no clock check */
	hybrid(&f, 5, 7, 3, "c", "10.0.0.4", 0.0);
	f.nodes[5].obs.clock.state = OBS_COMMAND_FAILED;
	f.nodes[6].obs.clock.state = OBS_COMMAND_FAILED;
	/* group d's one node did not answer its last poll */
	hybrid(&f, 7, 8, 4, "d", "10.0.0.5", 80e-3);
	f.nodes[7].reachable = false;
	consistency_summary s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 0);
	assert_int_equal(count_code(&f, "cluster.upstream_split"), 0);

	/* group c's clocks come back, 12 ms from a's: a and c are told, b not */
	set_clock(&f.nodes[5], 12e-3, 0.5e-3);
	set_clock(&f.nodes[6], 12e-3, 0.5e-3);
	s = evaluate(&f);
	assert_int_equal(s.upstream_split_nodes, 5);
	expect(&f.nodes[0], "cluster.upstream_split", SEVERITY_WARN);
	expect(&f.nodes[3], "cluster.upstream_split", SEVERITY_OK);
	expect(&f.nodes[6], "cluster.upstream_split", SEVERITY_WARN);
	fleet_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_fleet),
		cmocka_unit_test(test_unanswered_nodes_ignored_and_cleared),
		cmocka_unit_test(test_grandmaster_minority),
		cmocka_unit_test(test_grandmaster_ignores_ports_that_follow_nobody),
		cmocka_unit_test(test_grandmaster_tie_is_a_split),
		cmocka_unit_test(test_grandmaster_configured_wins),
		cmocka_unit_test(test_ptp_domain),
		cmocka_unit_test(test_reference_majority),
		cmocka_unit_test(test_reference_configured_upstream),
		cmocka_unit_test(test_reference_upstream_listed_with_port),
		cmocka_unit_test(test_reference_local_clock),
		cmocka_unit_test(test_chrony_spread_outliers),
		cmocka_unit_test(test_chrony_spread_boundaries),
		cmocka_unit_test(test_ptp_spread_outliers),
		cmocka_unit_test(test_leap_minority),
		cmocka_unit_test(test_utc_offset),
		cmocka_unit_test(test_clock_median),
		cmocka_unit_test(test_clock_median_from_precise_measurements),
		cmocka_unit_test(test_findings_order_and_status),
		cmocka_unit_test(test_remote_names_sanitised),
		cmocka_unit_test(test_many_nodes_many_values),
		cmocka_unit_test(test_upstream_split_groups_apart),
		cmocka_unit_test(test_upstream_split_needs_both),
		cmocka_unit_test(test_upstream_split_own_limit_and_ungrouped),
		cmocka_unit_test(test_upstream_split_unclear_groups_left_out),
	};
	return cmocka_run_group_tests_name("consistency", tests, NULL, NULL);
}
