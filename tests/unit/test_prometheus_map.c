/* test_prometheus_map.c - Prometheus answers into nodes and observation
 * parts: answers captured from Prometheus 2.42 scraping node_exporter 1.5
 * and a synctop --demo textfile (tests/fixtures/prometheus-*.source.md),
 * and small answers written here for what this machine cannot show (a
 * synchronised kernel, chrony_exporter, a target that is down). */
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
#include "longest_selector.h"
#include "node_update.h"
#include "prometheus_map.h"
#include "system_clock.h"
#include "thresholds.h"

#define NOW 1796303000.0

typedef struct {
	prom_vector v[PROM_Q_COUNT];
	const prom_vector *answers[PROM_Q_COUNT];
	char *text[PROM_Q_COUNT]; /* parsed again for prometheus_map_build_owning */
	size_t len[PROM_Q_COUNT];
} answers;

static void keep_text(answers *a, prom_query_id id, const char *text, size_t len)
{
	free(a->text[id]);
	a->text[id] = malloc(len + 1);
	assert_non_null(a->text[id]);
	memcpy(a->text[id], text, len);
	a->len[id] = len;
}

static void set_text(answers *a, prom_query_id id, const char *text)
{
	char err[256];
	if (prometheus_query_parse(text, strlen(text), &a->v[id], err, sizeof err) != 0) {
		fail_msg("bad test answer: %s", err);
	}
	a->answers[id] = &a->v[id];
	keep_text(a, id, text, strlen(text));
}

static void set_fixture(answers *a, prom_query_id id, const char *name)
{
	size_t len;
	char *text = fixture_read(name, &len);
	char err[256];
	if (prometheus_query_parse(text, len, &a->v[id], err, sizeof err) != 0) {
		fail_msg("%s: %s", name, err);
	}
	keep_text(a, id, text, len);
	free(text);
	a->answers[id] = &a->v[id];
}

static void answers_free(answers *a)
{
	for (int i = 0; i < PROM_Q_COUNT; i++) {
		prom_vector_free(&a->v[i]);
		free(a->text[i]);
		a->text[i] = NULL;
	}
}

/* Every test's answers also go through prometheus_map_build_owning, whose
 * nodes are put together one at a time: they must be the eager map's, byte
 * for byte, found by the same names. */
static void check_owning_same(answers *a, const prom_map_options *opt, const prom_map *eager)
{
	prom_vector v[PROM_Q_COUNT];
	prom_vector *moved[PROM_Q_COUNT] = {0};
	char err[256];
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		if (a->answers[q]) {
			assert_int_equal(prometheus_query_parse(a->text[q], a->len[q], &v[q], err, sizeof err), 0);
			moved[q] = &v[q];
		}
	}
	prom_map lazy;
	prometheus_map_build_owning(moved, opt, &lazy);
	for (int q = 0; q < PROM_Q_COUNT; q++) {
		if (moved[q]) {
			assert_int_equal(moved[q]->n_samples, 0); /* moved into the map */
			prom_vector_free(moved[q]);
		}
	}
	assert_int_equal(lazy.n_nodes, eager->n_nodes);
	assert_int_equal(lazy.unnamed, eager->unnamed);
	assert_null(prometheus_map_node(&lazy, lazy.n_nodes));
	for (size_t i = 0; i < eager->n_nodes; i++) {
		assert_string_equal(prometheus_map_name(&lazy, i), eager->nodes[i].name);
		const prom_node *pn = prometheus_map_node(&lazy, i);
		assert_memory_equal(pn, &eager->nodes[i], sizeof *pn);
		assert_ptr_equal(prometheus_map_find(&lazy, eager->nodes[i].name), pn);
	}
	/* again in reverse: a node put together after another is the same */
	for (size_t i = eager->n_nodes; i-- > 0;) {
		assert_memory_equal(prometheus_map_node(&lazy, i), &eager->nodes[i], sizeof eager->nodes[i]);
	}
	prometheus_map_free(&lazy);
}

static void build(answers *a, const char *node_label, prom_map *m)
{
	prom_map_options opt = {node_label, NOW, 120.0};
	prometheus_map_build(a->answers, &opt, m);
	check_owning_same(a, &opt, m);
}

/* One vector sample line of a hand-written answer. */
#define SAMPLE(labels, value) "{\"metric\":{" labels "},\"value\":[1796302999.5,\"" value "\"]}"
#define VECTOR(...) "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[" __VA_ARGS__ "]}}"
#define TIMEX(name, inst) "\"__name__\":\"node_timex_" name "\",\"instance\":\"" inst "\",\"job\":\"node\""

static void test_queries(void **state)
{
	(void)state;
	char q[2048];
	char err[128];
	/* the queries the fixtures were captured with */
	assert_true(prometheus_map_query(PROM_Q_TIMEX, "{job=\"node\"}", q, sizeof q) > 0);
	assert_string_equal(q, "{__name__=~\"node_timex_(sync_status|status|offset_seconds|maxerror_seconds|"
			       "estimated_error_seconds|frequency_adjustment_ratio|loop_time_constant|tick_seconds|"
			       "tai_offset_seconds)\",job=\"node\"}");
	assert_true(prometheus_map_query(PROM_Q_TIMEX_TIME, "{job=\"node\"}", q, sizeof q) > 0);
	assert_string_equal(q, "timestamp(node_timex_status{job=\"node\"})");
	assert_true(prometheus_map_query(PROM_Q_UP, "", q, sizeof q) > 0);
	assert_string_equal(q, "up{}");
	assert_true(prometheus_map_query(PROM_Q_CHRONY, "", q, sizeof q) > 0);
	assert_string_equal(q, "{__name__=~\"chrony_(up|tracking_.+|sources_.+)\"}");
	assert_true(prometheus_map_query(PROM_Q_CHRONY_TIME, "{job=\"chrony\"}", q, sizeof q) > 0);
	assert_string_equal(q, "timestamp(chrony_up{job=\"chrony\"})");
	assert_true(prometheus_map_query(PROM_Q_SERVED, "{job=\"ptp\"}", q, sizeof q) > 0);
	assert_string_equal(q, "group by (instance, node) (last_over_time({__name__=~\"synctop_node_up|"
			       "openshift_ptp_process_status\",job=\"ptp\"}[10m]))");
	assert_true(prometheus_map_query(PROM_Q_OPENSHIFT_PTP, "", q, sizeof q) > 0);
	assert_string_equal(q, "{__name__=~\"openshift_ptp_(offset_ns|delay_ns|clock_class|interface_role|"
			       "process_status|clock_state)\"}");
	assert_int_equal(prometheus_map_query(PROM_Q_UP, "{job=\"node\"}", q, 8), -1);
	assert_int_equal(prometheus_map_check_selector("", err, sizeof err), 0);
	assert_int_equal(prometheus_map_check_selector("{job=\"a\"}", err, sizeof err), 0);
	assert_int_equal(prometheus_map_check_selector("job=\"a\"", err, sizeof err), -1);
	assert_int_equal(prometheus_map_check_selector("{", err, sizeof err), -1);
}

/* This machine's kernel, unsynchronised (no time daemon in the lab). */
static void test_timex_unsynchronised(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_fixture(&a, PROM_Q_TIMEX, "prometheus-timex.json");
	set_fixture(&a, PROM_Q_TIMEX_TIME, "prometheus-timex-time.json");
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 1);
	const prom_node *pn = prometheus_map_find(&m, "127.0.0.1");
	assert_non_null(pn);
	assert_string_equal(pn->instance, "127.0.0.1:36921");
	const kernel_clock_obs *k = &pn->obs.kernel;
	assert_int_equal(k->state, OBS_OK);
	assert_int_equal(k->synchronised, 0);
	assert_int_equal(k->status, KERNEL_STA_UNSYNC);
	assert_false(kernel_clock_synchronised(k));
	/* 16 s maxerror and esterror and a 0 offset are placeholders: unknown */
	assert_true(isnan(k->offset_s));
	assert_true(isnan(k->max_error_s));
	assert_true(isnan(k->est_error_s));
	assert_true(k->freq_adjust_ppm == 0.0);
	assert_int_equal(k->time_constant, 2);
	assert_true(k->tick_s == 0.01);
	assert_int_equal(k->tai_offset_s, 0);
	/* the scrape's time, not the query's */
	assert_true(fabs(pn->obs.taken_at - 1796302995.679) < 1.0 || pn->obs.taken_at < 1796302996.020);
	assert_int_equal(pn->obs.chrony.state, OBS_NOT_COLLECTED);
	assert_string_equal(pn->error, "");
	prometheus_map_free(&m);
	answers_free(&a);
}

/* ntpd's kernel discipline (STA_PLL) with a leap second announced. */
static void test_timex_synchronised_pll(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_text(&a, PROM_Q_TIMEX,
		 VECTOR(SAMPLE(TIMEX("sync_status", "n1:9100"), "1") "," SAMPLE(TIMEX("status", "n1:9100"), "8209") ","
			SAMPLE(TIMEX("offset_seconds", "n1:9100"), "0.000250") ","
			SAMPLE(TIMEX("maxerror_seconds", "n1:9100"), "0.0155") ","
			SAMPLE(TIMEX("estimated_error_seconds", "n1:9100"), "0.000012") ","
			SAMPLE(TIMEX("frequency_adjustment_ratio", "n1:9100"), "1.0000123") ","
			SAMPLE(TIMEX("tai_offset_seconds", "n1:9100"), "37") ","
			SAMPLE(TIMEX("offset_seconds", "n2:9100"), "0.5") "," SAMPLE(TIMEX("status", "n2:9100"), "8192") ","
			SAMPLE(TIMEX("sync_status", "n2:9100"), "1")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 2);
	const kernel_clock_obs *k = &prometheus_map_find(&m, "n1")->obs.kernel;
	assert_true(kernel_clock_synchronised(k));
	/* 8209 = STA_NANO | STA_INS | STA_PLL */
	assert_int_equal(k->status, KERNEL_STA_NANO | KERNEL_STA_INS | KERNEL_STA_PLL);
	/* the kernel holds reference - node: the node is 250 us behind */
	assert_true(fabs(k->offset_s - -0.000250) < 1e-12);
	assert_true(k->max_error_s == 0.0155);
	assert_true(k->est_error_s == 0.000012);
	assert_true(fabs(k->freq_adjust_ppm - 12.3) < 1e-6);
	assert_int_equal(k->tai_offset_s, 37);
	/* n2 is synchronised but not by the kernel PLL (chronyd): no offset */
	k = &prometheus_map_find(&m, "n2")->obs.kernel;
	assert_true(kernel_clock_synchronised(k));
	assert_true(isnan(k->offset_s));
	/* no timestamp() answer: as of the refresh */
	assert_true(prometheus_map_find(&m, "n2")->obs.taken_at == NOW);
	prometheus_map_free(&m);
	answers_free(&a);
}

static void test_instance_names(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_text(&a, PROM_Q_TIMEX,
		 VECTOR(SAMPLE(TIMEX("status", "[fe80::1]:9100"), "0") "," SAMPLE(TIMEX("status", "gpu7.example:9100"), "0") ","
			SAMPLE(TIMEX("status", "fe80::2"), "0") "," SAMPLE(TIMEX("status", "plain"), "0") ","
			SAMPLE("\"__name__\":\"node_timex_status\"", "0")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 4);
	assert_non_null(prometheus_map_find(&m, "fe80::1"));
	assert_non_null(prometheus_map_find(&m, "gpu7.example"));
	assert_non_null(prometheus_map_find(&m, "fe80::2"));
	assert_non_null(prometheus_map_find(&m, "plain"));
	assert_int_equal(m.unnamed, 1); /* no instance label */
	prometheus_map_free(&m);
	answers_free(&a);
}

static void test_nodename_join(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_fixture(&a, PROM_Q_TIMEX, "prometheus-timex.json");
	set_fixture(&a, PROM_Q_UNAME, "prometheus-uname.json");
	build(&a, "nodename", &m);
	assert_int_equal(m.n_nodes, 1);
	assert_non_null(prometheus_map_find(&m, "vm"));
	prometheus_map_free(&m);
	/* another label: used where present */
	answers_free(&a);
	memset(&a, 0, sizeof a);
	set_text(&a, PROM_Q_TIMEX,
		 VECTOR(SAMPLE(TIMEX("status", "10.1.1.1:9100") ",\"host\":\"gpu01\"", "0") ","
			SAMPLE(TIMEX("status", "10.1.1.2:9100"), "0")));
	build(&a, "host", &m);
	assert_non_null(prometheus_map_find(&m, "gpu01"));
	assert_non_null(prometheus_map_find(&m, "10.1.1.2"));
	prometheus_map_free(&m);
	answers_free(&a);
}

/* synctop --demo's textfile, back into the parts it came from. */
static void test_synctop_textfile(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_fixture(&a, PROM_Q_SYNCTOP, "prometheus-synctop.json");
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 48);
	const prom_node *pn = prometheus_map_find(&m, "gpu001");
	assert_non_null(pn);
	const observation *o = &pn->obs;
	assert_true(fabs(o->taken_at - 1796302978.4386048) < 1e-6);
	assert_true(fabs(o->rtt_s - 0.12493586540222168) < 1e-9);
	assert_int_equal(o->chrony.state, OBS_OK);
	assert_true(o->chrony.tracking.system_time_offset_s == -1.69e-07);
	assert_true(o->chrony.tracking.last_offset_s == -3.98e-07);
	assert_true(fabs(o->chrony.tracking.frequency_ppm - -0.508) < 1e-9);
	assert_true(fabs(o->chrony.tracking.skew_ppm - 0.059) < 1e-9);
	assert_int_equal(o->chrony.tracking.stratum, 3);
	assert_int_equal(o->chrony.tracking.leap, CHRONY_LEAP_NORMAL);
	assert_true(o->chrony.tracking.update_interval_s == 64.7);
	/* the sources are not listed: how many there are, from the selection */
	assert_int_equal(o->chrony.n_sources, 0);
	assert_int_equal(o->chrony.n_sources_total, 1);
	assert_int_equal(o->selection.state, OBS_OK);
	assert_int_equal(o->selection.n_sources, 1);
	assert_int_equal(o->selection.sources[0].state, '*');
	assert_string_equal(o->selection.sources[0].name, "10.20.0.10");
	assert_int_equal(o->ptp.state, OBS_OK);
	assert_true(o->ptp.offset_from_master_ns == -20);
	assert_true(o->ptp.mean_path_delay_ns == 1140);
	assert_int_equal(o->ptp.steps_removed, 1);
	assert_int_equal(o->ptp.gm_present, 1);
	assert_int_equal(o->ptp.n_ports, 1);
	assert_int_equal(o->ptp.ports[0].state, PTP_PORT_SLAVE);
	assert_int_equal(o->ptp.ports[0].port_number, 1);
	assert_string_equal(o->ptp.grandmaster_identity, "a0369f.fffe.abe391");
	assert_int_equal(o->nic.state, OBS_OK);
	assert_string_equal(o->nic.interface, "ens1f0np0");
	assert_string_equal(observation_timestamping(o), "HW");
	assert_int_equal(o->clock.state, OBS_OK);
	assert_true(o->clock.offset_s == -0.0016665458679199219);
	assert_int_equal(o->kernel.state, OBS_NOT_COLLECTED);
	/* the file is 21 s older than NOW: not stale at 120 s */
	assert_string_equal(pn->error, "");

	/* synctop could not poll it */
	pn = prometheus_map_find(&m, "gpu037");
	assert_non_null(strstr(pn->error, "could not poll this node"));
	/* chronyc failed there: the part failed, not absent */
	pn = prometheus_map_find(&m, "gpu041");
	assert_int_equal(pn->obs.chrony.state, OBS_COMMAND_FAILED);
	assert_int_equal(pn->obs.selection.state, OBS_COMMAND_FAILED);
	assert_string_equal(pn->error, "");
	prometheus_map_free(&m);

	/* the same file seen ten minutes later: stale */
	prom_map_options late = {NULL, NOW + 600, 120.0};
	prometheus_map_build(a.answers, &late, &m);
	assert_non_null(strstr(prometheus_map_find(&m, "gpu001")->error, "stale"));
	prometheus_map_free(&m);
	answers_free(&a);
}

static void test_chrony_exporter(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
#define CHRONY(name, inst) "\"__name__\":\"chrony_tracking_" name "\",\"instance\":\"" inst "\""
	set_text(&a, PROM_Q_CHRONY,
		 VECTOR(SAMPLE(CHRONY("system_time_seconds", "c1:9123"), "0.000123") ","
			SAMPLE(CHRONY("last_offset_seconds", "c1:9123"), "-0.0000021") ","
			SAMPLE(CHRONY("frequency_ppms", "c1:9123"), "-12.5") ","
			SAMPLE(CHRONY("skew_ppms", "c1:9123"), "0.02") "," SAMPLE(CHRONY("stratum", "c1:9123"), "2") ","
			SAMPLE(CHRONY("root_delay_seconds", "c1:9123"), "0.004") ","
			SAMPLE(CHRONY("info", "c1:9123") ",\"tracking_refid\":\"C0A80001\",\"tracking_name\":\"ntp1\","
						     "\"tracking_address\":\"192.168.0.1\"",
			       "1") ","
			SAMPLE(CHRONY("system_time_seconds", "c2:9123"), "0") "," SAMPLE(CHRONY("stratum", "c2:9123"), "0") ","
			SAMPLE(CHRONY("root_delay_seconds", "c2:9123"), "1")));
	set_text(&a, PROM_Q_TIMEX, VECTOR(SAMPLE(TIMEX("status", "c1:9100"), "16") "," SAMPLE(TIMEX("sync_status", "c1:9100"), "1")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 2);
	const chrony_tracking *t = &prometheus_map_find(&m, "c1")->obs.chrony.tracking;
	/* 0.000123 s "slow of NTP time": the node is behind */
	assert_true(t->system_time_offset_s == -0.000123);
	assert_true(t->last_offset_s == -0.0000021);
	assert_true(t->frequency_ppm == -12.5);
	assert_int_equal(t->stratum, 2);
	assert_true(t->has_reference_id);
	assert_int_equal(prometheus_map_find(&m, "c1")->obs.chrony.n_sources_total, 1);
	assert_int_equal(t->reference_id, 0xC0A80001u);
	assert_string_equal(t->reference_name, "ntp1");
	/* no leap status from chrony_exporter: the kernel's STA_INS says it */
	assert_int_equal(t->leap, CHRONY_LEAP_INSERT);
	/* stratum 0: chronyd is unsynchronised; its placeholders are unknown */
	t = &prometheus_map_find(&m, "c2")->obs.chrony.tracking;
	assert_int_equal(t->leap, CHRONY_LEAP_UNSYNC);
	assert_true(isnan(t->system_time_offset_s));
	assert_true(isnan(t->root_delay_s));
	prometheus_map_free(&m);
	answers_free(&a);
}

/* w1's linuxptp-daemon now scraped through another target */
#define OPTP_MOVED(node) \
	"\"__name__\":\"openshift_ptp_process_status\",\"node\":\"" node "\",\"instance\":\"10.1.0.6:9091\"," \
	"\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\""

static void test_up(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_fixture(&a, PROM_Q_SYNCTOP, "prometheus-synctop.json");
	set_text(&a, PROM_Q_UP,
		 VECTOR(SAMPLE("\"__name__\":\"up\",\"instance\":\"127.0.0.1:36921\",\"job\":\"node\"", "0") ","
			SAMPLE("\"__name__\":\"up\",\"instance\":\"10.0.0.9:9100\",\"job\":\"node\"", "0") ","
			SAMPLE("\"__name__\":\"up\",\"instance\":\"localhost:9090\",\"job\":\"prometheus\"", "1")));
	build(&a, NULL, &m);
	/* the 48 the down target served, and the other down target itself */
	assert_int_equal(m.n_nodes, 49);
	assert_non_null(strstr(prometheus_map_find(&m, "gpu001")->error,
			       "Prometheus cannot scrape 127.0.0.1:36921 (job node): up == 0"));
	const prom_node *pn = prometheus_map_find(&m, "10.0.0.9");
	assert_non_null(pn);
	assert_false(pn->has_data);
	assert_non_null(strstr(pn->error, "up == 0"));
	assert_null(prometheus_map_find(&m, "localhost"));
	prometheus_map_free(&m);
	answers_free(&a);

	/* another exporter on a host whose node_exporter answers: not that node's */
	memset(&a, 0, sizeof a);
	set_text(&a, PROM_Q_TIMEX, VECTOR(SAMPLE(TIMEX("status", "h1:9100"), "0")));
	set_text(&a, PROM_Q_UP, VECTOR(SAMPLE("\"__name__\":\"up\",\"instance\":\"h1:9123\",\"job\":\"chrony\"", "0")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 1);
	assert_string_equal(prometheus_map_find(&m, "h1")->error, "");
	prometheus_map_free(&m);
	answers_free(&a);

	/* the data query failed, the scrape times came: unknown, saying so */
	memset(&a, 0, sizeof a);
	set_fixture(&a, PROM_Q_TIMEX_TIME, "prometheus-timex-time.json");
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 1);
	assert_false(m.nodes[0].has_data);
	assert_non_null(strstr(m.nodes[0].error, "none of its values"));
	prometheus_map_free(&m);
	answers_free(&a);

	/* a target that just went down: its series are stale, gone from the
	 * answers; the nodes it served lately are unknown with the reason, a
	 * node another target serves now keeps its values */
	memset(&a, 0, sizeof a);
	set_text(&a, PROM_Q_UP, VECTOR(SAMPLE("\"__name__\":\"up\",\"instance\":\"10.1.0.5:9091\",\"job\":\"ptp\"", "0")));
	set_text(&a, PROM_Q_SERVED,
		 VECTOR(SAMPLE("\"instance\":\"10.1.0.5:9091\",\"node\":\"w0\"", "1") ","
			SAMPLE("\"instance\":\"10.1.0.5:9091\",\"node\":\"w1\"", "1") ","
			SAMPLE("\"instance\":\"10.1.0.6:9091\",\"node\":\"w9\"", "1")));
	set_text(&a, PROM_Q_OPENSHIFT_PTP,
		 VECTOR(SAMPLE(OPTP_MOVED("w1"), "1")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 2);
	assert_non_null(strstr(prometheus_map_find(&m, "w0")->error, "Prometheus cannot scrape 10.1.0.5:9091 (job ptp)"));
	assert_false(prometheus_map_find(&m, "w0")->has_data);
	assert_string_equal(prometheus_map_find(&m, "w1")->error, "");
	assert_null(prometheus_map_find(&m, "w9"));
	assert_null(prometheus_map_find(&m, "10.1.0.5"));
	prometheus_map_free(&m);
	answers_free(&a);
}

/* Through node_update: what the rules make of a Prometheus node. */
static void test_health_from_timex(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	thresholds th;
	node *n = calloc(1, sizeof *n);
	thresholds_init_defaults(&th);
	set_fixture(&a, PROM_Q_TIMEX, "prometheus-timex.json");
	build(&a, NULL, &m);
	node_init(n, "127.0.0.1");
	observation obs = m.nodes[0].obs;
	node_update_observation(n, &obs, &th);
	assert_int_equal(n->status, NODE_STATUS_WARN);
	assert_int_equal(n->findings.count, 1);
	assert_string_equal(n->findings.items[0].code, "kernel.unsynchronised");
	prometheus_map_free(&m);
	answers_free(&a);

	/* ntpd's PLL 250 us off: judged by the offset thresholds */
	memset(&a, 0, sizeof a);
	set_text(&a, PROM_Q_TIMEX,
		 VECTOR(SAMPLE(TIMEX("sync_status", "n1:9100"), "1") "," SAMPLE(TIMEX("status", "n1:9100"), "8193") ","
			SAMPLE(TIMEX("offset_seconds", "n1:9100"), "0.25") ","
			SAMPLE(TIMEX("maxerror_seconds", "n1:9100"), "0.0005")));
	build(&a, NULL, &m);
	node_init(n, "n1");
	obs = m.nodes[0].obs;
	node_update_observation(n, &obs, &th);
	assert_int_equal(n->status, NODE_STATUS_CRIT);
	assert_string_equal(n->findings.items[0].code, "kernel.offset");
	prometheus_map_free(&m);
	answers_free(&a);

	/* chrony_exporter's tracking alone: no source list is no "no sources" */
	memset(&a, 0, sizeof a);
	set_text(&a, PROM_Q_CHRONY,
		 VECTOR(SAMPLE("\"__name__\":\"chrony_tracking_stratum\",\"instance\":\"c1:9123\"", "2") ","
			SAMPLE("\"__name__\":\"chrony_tracking_system_time_seconds\",\"instance\":\"c1:9123\"", "0.00001") ","
			SAMPLE("\"__name__\":\"chrony_tracking_info\",\"instance\":\"c1:9123\",\"tracking_refid\":\"C0A80001\","
			       "\"tracking_name\":\"ntp1\"",
			       "1")));
	build(&a, NULL, &m);
	node_init(n, "c1");
	obs = m.nodes[0].obs;
	node_update_observation(n, &obs, &th);
	assert_int_equal(n->status, NODE_STATUS_OK);
	assert_int_equal(n->findings.count, 0);
	prometheus_map_free(&m);
	answers_free(&a);
	free(n);
}

/* chrony_exporter's sources collector (collector/sources.go): labels
 * source_address, source_name, and on state_info source_state/source_mode
 * (facebook/time ntp/chrony packet.go names); chrony_up 0 when chronyd does
 * not answer. */
#define SRC(name, inst, src) \
	"\"__name__\":\"chrony_sources_" name "\",\"instance\":\"" inst "\",\"source_address\":\"" src \
	"\",\"source_name\":\"" src "\""
#define SRC_STATE(inst, src, st, mode) SRC("state_info", inst, src) ",\"source_state\":\"" st "\",\"source_mode\":\"" mode "\""

static void has_finding(const node *n, const char *code, severity sev)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, code) == 0) {
			assert_int_equal(n->findings.items[i].sev, sev);
			return;
		}
	}
	fail_msg("no %s finding (%d findings)", code, n->findings.count);
}

static void test_chrony_exporter_sources(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	thresholds th;
	node *n = calloc(1, sizeof *n);
	thresholds_init_defaults(&th);
	set_text(&a, PROM_Q_CHRONY,
		 VECTOR(SAMPLE("\"__name__\":\"chrony_up\",\"instance\":\"c1:9123\"", "1") ","
			SAMPLE(CHRONY("stratum", "c1:9123"), "3") "," SAMPLE(CHRONY("system_time_seconds", "c1:9123"), "0.00001") ","
			SAMPLE(SRC_STATE("c1:9123", "10.0.0.1", "sync", "client"), "1") ","
			SAMPLE(SRC("reachability_ratio", "c1:9123", "10.0.0.1"), "1") ","
			SAMPLE(SRC("reachability_success", "c1:9123", "10.0.0.1"), "1") ","
			SAMPLE(SRC("stratum", "c1:9123", "10.0.0.1"), "2") ","
			SAMPLE(SRC("polling_interval_seconds", "c1:9123", "10.0.0.1"), "64") ","
			SAMPLE(SRC("last_sample_age_seconds", "c1:9123", "10.0.0.1"), "17") ","
			SAMPLE(SRC("last_sample_offset_seconds", "c1:9123", "10.0.0.1"), "-0.000012") ","
			SAMPLE(SRC("last_sample_error_margin_seconds", "c1:9123", "10.0.0.1"), "0.0003") ","
			SAMPLE(SRC_STATE("c1:9123", "10.0.0.2", "candidate", "client"), "1") ","
			SAMPLE(SRC("reachability_ratio", "c1:9123", "10.0.0.2"), "0.625") ","
			SAMPLE(SRC("reachability_success", "c1:9123", "10.0.0.2"), "0") ","
			SAMPLE(SRC_STATE("c1:9123", "PHC0", "outlier", "reference clock"), "1") ","
			SAMPLE(SRC("reachability_ratio", "c1:9123", "PHC0"), "0") ","
			/* a source whose reach did not come: dropped, counted */
			SAMPLE(SRC_STATE("c1:9123", "10.0.0.9", "jittery", "peer"), "1") ","
			SAMPLE("\"__name__\":\"chrony_up\",\"instance\":\"c2:9123\"", "0") ","
			SAMPLE(SRC_STATE("c3:9123", "10.0.0.1", "unreach", "client"), "1") ","
			SAMPLE(SRC("reachability_ratio", "c3:9123", "10.0.0.1"), "0") ","
			SAMPLE(SRC_STATE("c3:9123", "10.0.0.2", "falseticker", "client"), "1") ","
			SAMPLE(SRC("reachability_ratio", "c3:9123", "10.0.0.2"), "0")));
	build(&a, NULL, &m);
	const chrony_obs *c = &prometheus_map_find(&m, "c1")->obs.chrony;
	assert_int_equal(c->state, OBS_OK);
	assert_int_equal(c->n_sources, 3);
	assert_int_equal(c->n_sources_total, 4);
	assert_string_equal(c->sources[0].name, "10.0.0.1");
	assert_int_equal(c->sources[0].state, CHRONY_STATE_SELECTED);
	assert_int_equal(c->sources[0].mode, CHRONY_MODE_SERVER);
	assert_int_equal(c->sources[0].reach, 0377);
	assert_int_equal(c->sources[0].stratum, 2);
	assert_int_equal(c->sources[0].poll, 6);
	assert_int_equal(c->sources[0].last_rx_s, 17);
	assert_true(c->sources[0].adjusted_offset_s == -0.000012);
	assert_true(c->sources[0].error_s == 0.0003);
	assert_true(isnan(c->sources[0].measured_offset_s));
	/* 5 of 8 answered, not the newest */
	assert_int_equal(c->sources[1].state, CHRONY_STATE_COMBINED);
	assert_int_equal(c->sources[1].reach, 076);
	assert_int_equal(c->sources[1].stratum, INT_UNKNOWN);
	assert_int_equal(c->sources[1].last_rx_s, -1);
	assert_int_equal(c->sources[2].mode, CHRONY_MODE_REFCLOCK);
	assert_int_equal(c->sources[2].state, CHRONY_STATE_NOT_COMBINED);
	assert_int_equal(c->sources[2].reach, 0);
	assert_ptr_equal(chrony_selected_source(c), &c->sources[0]);
	/* chronyd did not answer the exporter: the part failed, not absent */
	assert_int_equal(prometheus_map_find(&m, "c2")->obs.chrony.state, OBS_COMMAND_FAILED);

	/* the chrony rules judge them as over SSH */
	node_init(n, "c1");
	observation obs = prometheus_map_find(&m, "c1")->obs;
	node_update_observation(n, &obs, &th);
	has_finding(n, "chrony.reach", SEVERITY_WARN);
	assert_int_equal(n->status, NODE_STATUS_WARN);
	node_init(n, "c3");
	obs = prometheus_map_find(&m, "c3")->obs;
	node_update_observation(n, &obs, &th);
	has_finding(n, "chrony.no_selected_source", SEVERITY_CRIT);
	has_finding(n, "chrony.reach", SEVERITY_CRIT);
	prometheus_map_free(&m);
	answers_free(&a);
	free(n);
}

/* linuxptp-daemon (openshift/linuxptp-daemon pkg/daemon/metrics.go): by the
 * `node` label; what its series mean is in prometheus_map.c. */
#define OPTP(name, node, labels) "\"__name__\":\"openshift_ptp_" name "\",\"node\":\"" node "\",\"instance\":\"10.1.0.5:9091\"," labels

static void test_openshift_ptp(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	thresholds th;
	node *n = calloc(1, sizeof *n);
	thresholds_init_defaults(&th);
	set_text(&a, PROM_Q_OPENSHIFT_PTP,
		 VECTOR(SAMPLE(OPTP("offset_ns", "w0", "\"from\":\"master\",\"process\":\"ptp4l\",\"iface\":\"ens1fx\""), "-25") ","
			SAMPLE(OPTP("delay_ns", "w0", "\"from\":\"master\",\"process\":\"ptp4l\",\"iface\":\"ens1fx\""), "310") ","
			SAMPLE(OPTP("offset_ns", "w0", "\"from\":\"phc\",\"process\":\"phc2sys\",\"iface\":\"CLOCK_REALTIME\""), "7") ","
			SAMPLE(OPTP("clock_class", "w0", "\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\""), "6") ","
			SAMPLE(OPTP("interface_role", "w0", "\"process\":\"ptp4l\",\"iface\":\"ens1f0\""), "1") ","
			SAMPLE(OPTP("interface_role", "w0", "\"process\":\"ptp4l\",\"iface\":\"ens1f1\""), "2") ","
			SAMPLE(OPTP("process_status", "w0", "\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\""), "1") ","
			SAMPLE(OPTP("process_status", "w0", "\"process\":\"phc2sys\",\"config\":\"phc2sys.0.config\""), "1") ","
			SAMPLE(OPTP("offset_ns", "w0", "\"from\":\"master\",\"process\":\"ts2phc\",\"iface\":\"ens2fx\""), "999") ","
			SAMPLE(OPTP("offset_ns", "w1", "\"from\":\"master\",\"process\":\"ptp4l\",\"iface\":\"ens1fx\""), "5000") ","
			SAMPLE(OPTP("offset_ns", "w1", "\"from\":\"phc\",\"process\":\"phc2sys\",\"iface\":\"CLOCK_REALTIME\""), "-200000") ","
			SAMPLE(OPTP("clock_class", "w1", "\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\""), "248") ","
			SAMPLE(OPTP("interface_role", "w1", "\"process\":\"ptp4l\",\"iface\":\"ens1f0\""), "1") ","
			SAMPLE(OPTP("process_status", "w2", "\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\""), "0") ","
			SAMPLE(OPTP("process_status", "w2", "\"process\":\"phc2sys\",\"config\":\"phc2sys.0.config\""), "0") ","
			SAMPLE("\"__name__\":\"openshift_ptp_offset_ns\",\"from\":\"master\",\"process\":\"ptp4l\"", "1")));
	set_text(&a, PROM_Q_OPENSHIFT_TIME,
		 VECTOR(SAMPLE("\"node\":\"w0\",\"process\":\"ptp4l\",\"config\":\"ptp4l.0.config\"", "1796302990")));
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 3);
	assert_int_equal(m.unnamed, 1);
	const prom_node *pn = prometheus_map_find(&m, "w0");
	const ptp_obs *p = &pn->obs.ptp;
	assert_true(pn->obs.taken_at == 1796302990.0);
	assert_int_equal(p->state, OBS_OK);
	assert_int_equal(p->offset_from_master_ns, -25);
	assert_int_equal(p->mean_path_delay_ns, 310);
	assert_int_equal(p->gm_clock_class, 6);
	assert_int_equal(p->n_ports, 2);
	assert_int_equal(p->ports[0].state, PTP_PORT_SLAVE);
	assert_string_equal(p->ports[0].interface, "ens1f0");
	assert_int_equal(p->ports[1].state, PTP_PORT_MASTER);
	assert_int_equal(phc_sys_offset_ns(&pn->obs), 7);
	assert_true(phc_sys_offset_judged(&pn->obs));
	assert_string_equal(pn->obs.phc.interface, "ens1f0");
	/* nothing unknown became 0 */
	assert_int_equal(pn->obs.chrony.state, OBS_NOT_COLLECTED);
	assert_int_equal(p->gm_present, INT_UNKNOWN);
	node_init(n, "w0");
	observation obs = pn->obs;
	node_update_observation(n, &obs, &th);
	assert_int_equal(n->findings.count, 0);
	assert_int_equal(n->status, NODE_STATUS_OK);

	node_init(n, "w1");
	obs = prometheus_map_find(&m, "w1")->obs;
	node_update_observation(n, &obs, &th);
	has_finding(n, "ptp.offset", SEVERITY_WARN);
	has_finding(n, "ptp.phc_sys_offset", SEVERITY_CRIT);
	has_finding(n, "ptp.gm_clock_class", SEVERITY_WARN);

	pn = prometheus_map_find(&m, "w2");
	assert_int_equal(pn->obs.ptp.state, OBS_COMMAND_FAILED);
	assert_non_null(strstr(pn->obs.ptp.error, "ptp4l (ptp4l.0.config) is down"));
	assert_int_equal(pn->obs.phc.state, OBS_COMMAND_FAILED);
	node_init(n, "w2");
	obs = pn->obs;
	node_update_observation(n, &obs, &th);
	assert_true(n->status == NODE_STATUS_WARN || n->status == NODE_STATUS_CRIT);
	prometheus_map_free(&m);
	answers_free(&a);
	free(n);
}

/* has_finding's opposite */
static void lacks_finding(const node *n, const char *code)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, code) == 0) {
			fail_msg("%s: unexpected finding %s", n->host, code);
		}
	}
}

/* linuxptp-daemon's clock_state (pkg/daemon/metrics.go ClockState: 0
 * FREERUN, 1 LOCKED, 2 HOLDOVER) and its faultyOffset marker (999999, written
 * as ptp4l's and phc2sys's offsets with a path delay of 0 when the slave
 * port turns FAULTY), as the daemon sends them. */
static void test_openshift_clock_state(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	thresholds th;
	node *n = calloc(1, sizeof *n);
	thresholds_init_defaults(&th);
#define ROLE(node, iface, v) SAMPLE(OPTP("interface_role", node, "\"process\":\"ptp4l\",\"iface\":\"" iface "\""), v)
#define CSTATE(node, iface, v) SAMPLE(OPTP("clock_state", node, "\"process\":\"ptp4l\",\"iface\":\"" iface "\""), v)
#define MOFF(node, v) SAMPLE(OPTP("offset_ns", node, "\"from\":\"master\",\"process\":\"ptp4l\",\"iface\":\"ens1fx\""), v)
#define MDELAY(node, v) SAMPLE(OPTP("delay_ns", node, "\"from\":\"master\",\"process\":\"ptp4l\",\"iface\":\"ens1fx\""), v)
#define SYSOFF(node, v) SAMPLE(OPTP("offset_ns", node, "\"from\":\"phc\",\"process\":\"phc2sys\",\"iface\":\"CLOCK_REALTIME\""), v)
	set_text(&a, PROM_Q_OPENSHIFT_PTP,
		 VECTOR(CSTATE("free", "ens1fx", "0") "," MOFF("free", "1200") "," MDELAY("free", "310") ","
			ROLE("free", "ens1f0", "1") "," ROLE("free", "ens1f1", "2") ","
			CSTATE("locked", "ens1fx", "1") "," MOFF("locked", "-12") "," MDELAY("locked", "310") ","
			ROLE("locked", "ens1f0", "1") ","
			ROLE("hold", "ens1f0", "1") "," CSTATE("hold", "ens1fx", "2") ","
			CSTATE("mixed", "ens1fx", "1") "," CSTATE("mixed", "ens2fx", "0") "," ROLE("mixed", "ens1f0", "1") ","
			MOFF("faulty", "999999") "," MDELAY("faulty", "0") "," SYSOFF("faulty", "999999") ","
			ROLE("faulty", "ens1f0", "3") "," CSTATE("faulty", "ens1fx", "0")));
#undef ROLE
#undef CSTATE
#undef MOFF
#undef MDELAY
#undef SYSOFF
	build(&a, NULL, &m);
	const prom_node *pn = prometheus_map_find(&m, "free");
	assert_int_equal(pn->obs.ptp.ports[0].state, PTP_PORT_UNCALIBRATED);
	assert_int_equal(pn->obs.ptp.ports[1].state, PTP_PORT_MASTER);
	assert_int_equal(pn->obs.ptp.offset_from_master_ns, 1200);
	node_init(n, "free");
	observation obs = pn->obs;
	node_update_observation(n, &obs, &th);
	has_finding(n, "ptp.port_state", SEVERITY_WARN);

	pn = prometheus_map_find(&m, "locked");
	assert_int_equal(pn->obs.ptp.ports[0].state, PTP_PORT_SLAVE);
	node_init(n, "locked");
	obs = pn->obs;
	node_update_observation(n, &obs, &th);
	assert_int_equal(n->findings.count, 0);
	assert_int_equal(prometheus_map_find(&m, "hold")->obs.ptp.ports[0].state, PTP_PORT_UNCALIBRATED);
	/* several ptp4l: one not locked is enough */
	assert_int_equal(prometheus_map_find(&m, "mixed")->obs.ptp.ports[0].state, PTP_PORT_UNCALIBRATED);

	pn = prometheus_map_find(&m, "faulty");
	assert_int_equal(pn->obs.ptp.offset_from_master_ns, PTP_NS_UNKNOWN);
	assert_int_equal(pn->obs.ptp.mean_path_delay_ns, PTP_NS_UNKNOWN);
	assert_false(phc_sys_offset_judged(&pn->obs));
	assert_int_equal(pn->obs.ptp.ports[0].state, PTP_PORT_FAULTY);
	node_init(n, "faulty");
	obs = pn->obs;
	node_update_observation(n, &obs, &th);
	has_finding(n, "ptp.port_state", SEVERITY_CRIT);
	lacks_finding(n, "ptp.offset");
	lacks_finding(n, "ptp.path_delay");
	lacks_finding(n, "ptp.phc_sys_offset");
	prometheus_map_free(&m);
	answers_free(&a);
	free(n);
}

/* synctop's own export, read back: the grandmaster's class is judged; the
 * system clock's offset from the PHC is shown, not judged (who steers it
 * was not exported). */
static void test_synctop_ptp_readback(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_text(&a, PROM_Q_SYNCTOP,
		 VECTOR(SAMPLE("\"__name__\":\"synctop_ptp_gm_clock_class\",\"node\":\"g1\"", "7") ","
			SAMPLE("\"__name__\":\"synctop_ptp_phc_sys_offset_seconds\",\"node\":\"g1\"", "-0.000004")));
	build(&a, NULL, &m);
	const prom_node *pn = prometheus_map_find(&m, "g1");
	assert_int_equal(pn->obs.ptp.gm_clock_class, 7);
	assert_int_equal(phc_sys_offset_ns(&pn->obs), -4000);
	assert_false(phc_sys_offset_judged(&pn->obs));
	prometheus_map_free(&m);
	answers_free(&a);
}

/* The same, from real Prometheus 2.42 answers (prometheus-answers.source.md),
 * and the target serving them gone down. */
static void test_captured_exporters(void **state)
{
	(void)state;
	answers a = {0};
	prom_map m;
	set_fixture(&a, PROM_Q_CHRONY, "prometheus-chrony.json");
	set_fixture(&a, PROM_Q_OPENSHIFT_PTP, "prometheus-openshift.json");
	set_fixture(&a, PROM_Q_OPENSHIFT_TIME, "prometheus-openshift-time.json");
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 5);
	assert_int_equal(m.unnamed, 0);
	const chrony_obs *c = &prometheus_map_find(&m, "chrony-sim")->obs.chrony;
	assert_int_equal(c->state, OBS_OK);
	assert_int_equal(c->n_sources, 2);
	assert_int_equal(c->sources[0].state, CHRONY_STATE_SELECTED);
	assert_int_equal(c->sources[1].reach, 076);
	assert_int_equal(prometheus_map_find(&m, "chrony-down")->obs.chrony.state, OBS_COMMAND_FAILED);
	const prom_node *w0 = prometheus_map_find(&m, "ptp-w0");
	assert_int_equal(w0->obs.ptp.offset_from_master_ns, -25);
	assert_int_equal(phc_sys_offset_ns(&w0->obs), 7);
	assert_true(w0->obs.taken_at == 1796313686.781); /* its scrape time, not the query's */
	assert_int_equal(prometheus_map_find(&m, "ptp-w1")->obs.ptp.gm_clock_class, 248);
	assert_int_equal(prometheus_map_find(&m, "ptp-w2")->obs.ptp.state, OBS_COMMAND_FAILED);
	prometheus_map_free(&m);
	answers_free(&a);

	memset(&a, 0, sizeof a);
	set_fixture(&a, PROM_Q_UP, "prometheus-up-down.json");
	set_fixture(&a, PROM_Q_SERVED, "prometheus-served.json");
	build(&a, NULL, &m);
	assert_int_equal(m.n_nodes, 3);
	for (size_t i = 0; i < m.n_nodes; i++) {
		assert_non_null(strstr(m.nodes[i].error, "Prometheus cannot scrape 127.0.0.1:19601 (job textfile): up == 0"));
		assert_false(m.nodes[i].has_data);
	}
	assert_non_null(prometheus_map_find(&m, "ptp-w2"));
	prometheus_map_free(&m);
	answers_free(&a);
}

/* Every query fits PROM_QUERY_MAX, whatever selector synctop accepts (a
 * query that did not fit was a failed request at every refresh). */
static void test_queries_fit_longest_selector(void **state)
{
	(void)state;
	char sel[PROM_SELECTOR_MAX + 2], buf[PROM_QUERY_MAX], err[200];
	longest_selector(sel);
	assert_int_equal(strlen(sel), PROM_SELECTOR_MAX);
	assert_int_equal(prometheus_map_check_selector(sel, err, sizeof err), 0);
	sel[PROM_SELECTOR_MAX - 2] = '.'; /* one more character: refused */
	strcpy(sel + PROM_SELECTOR_MAX - 1, "\"}");
	assert_int_equal(prometheus_map_check_selector(sel, err, sizeof err), -1);
	longest_selector(sel);
	for (int id = 0; id < PROM_Q_COUNT; id++) {
		assert_true(prometheus_map_query((prom_query_id)id, sel, buf, sizeof buf) > 1024);
	}
}

/* ------------------------------------------------- unchanged samples */

#define TIMEX_AT(inst, t) "{\"metric\":{\"instance\":\"" inst "\",\"job\":\"node\"},\"value\":[" t ",\"1796302990\"]}"

/* An owning map of three nodes: n1 and n2 with a scrape time, n3 without;
 * eval is the evaluation time of every sample, v1 n1's offset, chrony's
 * reference name name. */
static void digest_map(prom_map *m, prom_vector *v, const char *eval, const char *v1, const char *name, double now)
{
	char text[3][2048];
	char err[256];
	prom_vector *in[PROM_Q_COUNT] = {0};
	snprintf(text[0], sizeof text[0],
		 VECTOR("{\"metric\":{" TIMEX("offset_seconds", "n1:9100") "},\"value\":[%s,\"%s\"]},"
			"{\"metric\":{" TIMEX("offset_seconds", "n2:9100") "},\"value\":[%s,\"0.25\"]},"
			"{\"metric\":{" TIMEX("offset_seconds", "n3:9100") "},\"value\":[%s,\"0.25\"]}"),
		 eval, v1, eval, eval);
	snprintf(text[1], sizeof text[1],
		 VECTOR("{\"metric\":{\"instance\":\"n1:9100\",\"job\":\"node\"},\"value\":[%s,\"1796302990\"]},"
			"{\"metric\":{\"instance\":\"n2:9100\",\"job\":\"node\"},\"value\":[%s,\"1796302990\"]}"),
		 eval, eval);
	snprintf(text[2], sizeof text[2],
		 VECTOR("{\"metric\":{\"__name__\":\"chrony_tracking_info\",\"instance\":\"n2:9123\","
			"\"tracking_name\":\"%s\",\"tracking_refid\":\"0A000001\"},\"value\":[%s,\"1\"]}"),
		 name, eval);
	const prom_query_id ids[3] = {PROM_Q_TIMEX, PROM_Q_TIMEX_TIME, PROM_Q_CHRONY};
	for (int k = 0; k < 3; k++) {
		assert_int_equal(prometheus_query_parse(text[k], strlen(text[k]), &v[k], err, sizeof err), 0);
		in[ids[k]] = &v[k];
	}
	prom_map_options opt = {NULL, now, 120.0};
	prometheus_map_build_owning(in, &opt, m);
	for (int k = 0; k < 3; k++) {
		prom_vector_free(&v[k]);
	}
}

static uint64_t digest_of(const prom_map *m, const char *name)
{
	for (size_t i = 0; i < m->n_nodes; i++) {
		if (strcmp(prometheus_map_name(m, i), name) == 0) {
			return prometheus_map_digest(m, i);
		}
	}
	fail_msg("no node %s", name);
	return 0;
}

/* The same samples at another evaluation time: the same digests; a value or
 * a label changed: that node's digest changes; a node without a scrape
 * time, or an eager map's, has none (0). */
static void test_digest_of_unchanged_samples(void **state)
{
	(void)state;
	prom_vector v[3];
	prom_map a, b, c, d;
	digest_map(&a, v, "1796302999.5", "0.125", "ntp1", NOW);
	digest_map(&b, v, "1796303004.5", "0.125", "ntp1", NOW + 5);
	digest_map(&c, v, "1796303004.5", "0.126", "ntp1", NOW + 5);
	digest_map(&d, v, "1796303004.5", "0.125", "ntp2", NOW + 5);
	assert_int_equal(a.n_nodes, 3);
	assert_true(digest_of(&a, "n1") != 0 && digest_of(&a, "n2") != 0);
	assert_true(digest_of(&a, "n1") != digest_of(&a, "n2"));
	assert_true(digest_of(&a, "n3") == 0); /* dated by the refresh itself */
	assert_true(digest_of(&a, "n1") == digest_of(&b, "n1"));
	assert_true(digest_of(&a, "n2") == digest_of(&b, "n2"));
	assert_true(digest_of(&c, "n1") != digest_of(&b, "n1")); /* its offset changed */
	assert_true(digest_of(&c, "n2") == digest_of(&b, "n2"));
	assert_true(digest_of(&d, "n2") != digest_of(&b, "n2")); /* a label changed */
	assert_true(digest_of(&d, "n1") == digest_of(&b, "n1"));
	assert_true(prometheus_map_digest(&a, a.n_nodes) == 0);
	/* stale as put_together judges it: more than stale_after_s (120 s) old */
	assert_false(prometheus_map_stale(&a, NOW - 120));
	assert_true(prometheus_map_stale(&a, NOW - 120.5));
	assert_false(prometheus_map_stale(&a, NAN));
	prometheus_map_free(&a);
	prometheus_map_free(&b);
	prometheus_map_free(&c);
	prometheus_map_free(&d);

	answers e = {0};
	prom_map eager;
	set_text(&e, PROM_Q_TIMEX, VECTOR(SAMPLE(TIMEX("offset_seconds", "n1:9100"), "0.125")));
	set_text(&e, PROM_Q_TIMEX_TIME, VECTOR(TIMEX_AT("n1:9100", "1796302999.5")));
	build(&e, NULL, &eager);
	assert_int_equal(eager.n_nodes, 1);
	assert_true(prometheus_map_digest(&eager, 0) == 0);
	assert_true(prometheus_map_stale(&eager, NOW));
	prometheus_map_free(&eager);
	answers_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_digest_of_unchanged_samples),
		cmocka_unit_test(test_timex_unsynchronised),
		cmocka_unit_test(test_timex_synchronised_pll),
		cmocka_unit_test(test_instance_names),
		cmocka_unit_test(test_nodename_join),
		cmocka_unit_test(test_synctop_textfile),
		cmocka_unit_test(test_chrony_exporter),
		cmocka_unit_test(test_up),
		cmocka_unit_test(test_health_from_timex),
		cmocka_unit_test(test_chrony_exporter_sources),
		cmocka_unit_test(test_openshift_ptp),
		cmocka_unit_test(test_openshift_clock_state),
		cmocka_unit_test(test_synctop_ptp_readback),
		cmocka_unit_test(test_captured_exporters),
		cmocka_unit_test(test_queries_fit_longest_selector),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
