/* test_pmc_instances.c - several ptp4l on one node: the framed pmc section
 * (pmc_instances.h) on real captures (tests/fixtures/pmc-instances.source.md)
 * and on the shapes a remote node can send (cut anywhere, garbage between
 * frames, more instances than kept), the primary instance, the decode into
 * the observation, the rules per instance and the JSON. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "collector.h"
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "health.h"
#include "node.h"
#include "node_update.h"
#include "pmc_instances.h"
#include "pmc_parse.h"
#include "daemons_parse.h"
#include "report_json.h"
#include "report_prometheus.h"
#include "system_clock.h"

#define SOCK_A "/run/lab/ptp4l-npa.sock"
#define SOCK_B "/run/lab/ptp4l-npb.sock"
#define CONF_A "/run/lab/ptp4l-npa.conf"
#define CONF_B "/run/lab/ptp4l-npb.conf"
#define PMC31_STDERR "bad command: GET PORT_SERVICE_STATS_NP\n"

static int parse(const char *text, size_t len, ptp_instance *list, int max, int *more)
{
	tool_output t = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	return pmc_instances_parse(&t, list, max, more);
}

static int parse_fixture(const char *name, ptp_instance list[PTP_MAX_INSTANCES])
{
	size_t len;
	char *text = fixture_read(name, &len);
	int more = -1;
	int n = parse(text, len, list, PTP_MAX_INSTANCES, &more);
	assert_int_equal(more, 0);
	free(text);
	return n;
}

/* A frame as the shell prints it, around a body (pmc's stdout). */
static char *frame(char *dst, const char *config, const char *socket, const char *body, const char *err, int rc)
{
	char *p = dst + strlen(dst);
	p += sprintf(p, "synctop-ptp4l instance\n");
	if (config) {
		p += sprintf(p, "synctop-ptp4l config %s\n", config);
	}
	if (socket) {
		p += sprintf(p, "synctop-ptp4l socket %s\n", socket);
	}
	sprintf(p, "%ssynctop-ptp4l stderr\n%s\nsynctop-ptp4l rc %d\n", body, err, rc);
	return dst;
}

static void want_slave_on(const ptp_instance *inst, const char *sock, const char *conf, const char *iface)
{
	assert_string_equal(inst->socket, sock);
	assert_string_equal(inst->config, conf);
	assert_string_equal(inst->config_error, "");
	assert_int_equal(inst->ptp.state, OBS_OK);
	assert_string_equal(inst->ptp.error, ""); /* pmc 3.1's stderr line is no error */
	assert_int_equal(ptp_port_count(&inst->ptp), 1);
	assert_int_equal(inst->ptp.ports[0].state, PTP_PORT_SLAVE);
	assert_string_equal(inst->ptp.ports[0].interface, iface);
	assert_string_equal(inst->ptp.ports[0].timestamping, "SOFTWARE");
	assert_int_equal(inst->ptp.gm_clock_class, 248);
	assert_true(inst->ptp.realtime_before_ns != PTP_NS_UNKNOWN);
	assert_true(inst->ptp.realtime_after_ns >= inst->ptp.realtime_before_ns);
}

/* ------------------------------------------------------------ parsing */

static void test_unframed_is_one_pmc_run(void **state)
{
	(void)state;
	ptp_instance list[PTP_MAX_INSTANCES];
	assert_int_equal(parse_fixture("pmc-synctop-master.txt", list), 0);
	assert_int_equal(parse_fixture("pmc-batch-multi-get-slave.txt", list), 0);
	int more = -1;
	assert_int_equal(parse("", 0, list, PTP_MAX_INSTANCES, &more), 0);
	assert_int_equal(more, 0);
	/* the tag elsewhere than at the very start is pmc output, not a frame */
	static const char late[] = "sending: GET PORT_DATA_SET\nsynctop-ptp4l instance\n";
	assert_int_equal(parse(late, sizeof late - 1, list, PTP_MAX_INSTANCES, &more), 0);
}

static void test_two_slaves_captured(void **state)
{
	(void)state;
	ptp_instance list[PTP_MAX_INSTANCES];
	int n = parse_fixture("pmc-instances-two-slaves.txt", list);
	assert_int_equal(n, 2);
	want_slave_on(&list[0], SOCK_A, CONF_A, "pa");
	want_slave_on(&list[1], SOCK_B, CONF_B, "pb");
	assert_string_not_equal(list[0].ptp.clock_identity, list[1].ptp.clock_identity);
	assert_string_not_equal(list[0].ptp.grandmaster_identity, list[1].ptp.grandmaster_identity);
	assert_int_equal(pmc_instances_primary(list, n), 0);
}

static void test_config_gone_captured(void **state)
{
	(void)state;
	ptp_instance list[PTP_MAX_INSTANCES];
	int n = parse_fixture("pmc-instances-config-gone.txt", list);
	assert_int_equal(n, 2);
	want_slave_on(&list[0], SOCK_A, CONF_A, "pa");
	assert_string_equal(list[1].config, CONF_B);
	assert_string_equal(list[1].socket, ""); /* never guessed */
	assert_string_equal(list[1].config_error, "No such file or directory");
	assert_int_equal(list[1].ptp.state, OBS_NOT_COLLECTED);
	assert_non_null(strstr(list[1].ptp.error, CONF_B));
	assert_int_equal(ptp_port_count(&list[1].ptp), 0);
	assert_int_equal(pmc_instances_primary(list, n), 0);
}

/* Each frame keeps its own stderr and exit status. */
static void test_stderr_and_rc_per_frame(void **state)
{
	(void)state;
	size_t len;
	char *body = fixture_read("pmc-synctop-master.txt", &len);
	static char text[65536];
	text[0] = '\0';
	frame(text, CONF_A, SOCK_A, body, PMC31_STDERR, 0);
	/* no ptp4l behind the second socket: pmc sends, nothing answers */
	frame(text, NULL, SOCK_B,
	      "synctop-realtime-ns before 1\nsending: GET TIME_STATUS_NP\nsynctop-realtime-ns after 2\n", "", 0);
	/* pmc refused to run: its own message, its own status */
	frame(text, NULL, "/run/lab/c.sock", "synctop-realtime-ns before 1\nsynctop-realtime-ns after 2\n",
	      "sh: 1: pmc: not found", 127);
	ptp_instance list[PTP_MAX_INSTANCES];
	int more = -1;
	int n = parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more);
	assert_int_equal(n, 3);
	assert_int_equal(list[0].ptp.state, OBS_OK);
	assert_int_equal(list[0].ptp.ports[0].state, PTP_PORT_MASTER);
	assert_string_equal(list[1].socket, SOCK_B);
	assert_int_equal(list[1].ptp.state, OBS_DAEMON_UNREACHABLE);
	assert_int_equal(list[2].ptp.state, OBS_TOOL_MISSING);
	/* no SLAVE anywhere: the first that answered */
	assert_int_equal(pmc_instances_primary(list, n), 0);
	free(body);
}

/* The instance with a SLAVE port speaks for the node, wherever it is. */
static void test_primary_is_the_slave(void **state)
{
	(void)state;
	size_t len_l, len_s;
	char *listening = fixture_read("pmc-synctop-listening.txt", &len_l);
	char *two = fixture_read("pmc-instances-two-slaves.txt", &len_s);
	static char text[65536];
	text[0] = '\0';
	frame(text, NULL, "/run/lab/listening.sock", listening, PMC31_STDERR, 0);
	strncat(text, two, len_s);
	ptp_instance list[PTP_MAX_INSTANCES];
	int more = -1;
	int n = parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more);
	assert_int_equal(n, 3);
	assert_int_equal(list[0].ptp.ports[0].state, PTP_PORT_LISTENING);
	assert_int_equal(pmc_instances_primary(list, n), 1);
	/* none answered: the first */
	list[1].ptp.state = list[2].ptp.state = OBS_DAEMON_UNREACHABLE;
	list[0].ptp.state = OBS_NOT_COLLECTED;
	assert_int_equal(pmc_instances_primary(list, n), 0);
	assert_int_equal(pmc_instances_primary(list, 0), 0);
	free(listening);
	free(two);
}

/* Five frames, four kept. */
static void test_more_than_kept(void **state)
{
	(void)state;
	size_t len;
	char *body = fixture_read("pmc-synctop-master.txt", &len);
	static char text[131072];
	text[0] = '\0';
	for (int i = 0; i < PTP_MAX_INSTANCES + 1; i++) {
		char sock[32];
		snprintf(sock, sizeof sock, "/run/ptp4l-%d", i);
		frame(text, NULL, sock, body, PMC31_STDERR, 0);
	}
	ptp_instance list[PTP_MAX_INSTANCES];
	int more = -1;
	int n = parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more);
	assert_int_equal(n, PTP_MAX_INSTANCES);
	assert_int_equal(more, 1);
	assert_string_equal(list[PTP_MAX_INSTANCES - 1].socket, "/run/ptp4l-3");
	free(body);
}

/* Cut anywhere: never a crash, and a frame cut inside is never OK. */
static void test_cut_anywhere(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_read("pmc-instances-two-slaves.txt", &len);
	const char *second = strstr(text + 1, "synctop-ptp4l instance\n");
	assert_non_null(second);
	size_t boundary = (size_t)(second - text);
	for (size_t cut = 1; cut < len; cut++) {
		char *copy = malloc(cut);
		assert_non_null(copy);
		memcpy(copy, text, cut);
		ptp_instance list[PTP_MAX_INSTANCES];
		int more = -1;
		int n = parse(copy, cut, list, PTP_MAX_INSTANCES, &more);
		if (cut < sizeof "synctop-ptp4l instance\n" - 1) {
			assert_int_equal(n, 0);
		} else if (cut == boundary) {
			assert_int_equal(n, 1);
			assert_int_equal(list[0].ptp.state, OBS_OK);
		} else {
			assert_true(n >= 1 && n <= 2);
			assert_int_not_equal(list[n - 1].ptp.state, OBS_OK);
		}
		free(copy);
	}
	free(text);
}

static void test_garbage(void **state)
{
	(void)state;
	ptp_instance list[PTP_MAX_INSTANCES];
	int more = -1;
	size_t len;
	char *body = fixture_read("pmc-synctop-master.txt", &len);
	static char text[65536];
	/* text after a frame */
	text[0] = '\0';
	frame(text, NULL, SOCK_A, body, "", 0);
	strcat(text, "hello\n");
	assert_int_equal(parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more), 1);
	assert_int_equal(list[0].ptp.state, OBS_GARBAGE);
	/* a socket path longer than a Unix socket's: never cut into another */
	char path[PTP_PATH_LEN + 8];
	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	path[sizeof path - 1] = '\0';
	text[0] = '\0';
	frame(text, NULL, path, body, "", 0);
	assert_int_equal(parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more), 1);
	assert_int_equal(list[0].ptp.state, OBS_GARBAGE);
	assert_string_equal(list[0].socket, "");
	/* an exit status that is not one */
	text[0] = '\0';
	frame(text, NULL, SOCK_A, body, "", 0);
	char *rc = strstr(text, "rc 0\n");
	memcpy(rc, "rc x\n", 5);
	assert_int_equal(parse(text, strlen(text), list, PTP_MAX_INSTANCES, &more), 1);
	assert_int_equal(list[0].ptp.state, OBS_TRUNCATED);
	/* a NUL in a frame's body */
	text[0] = '\0';
	frame(text, NULL, SOCK_A, body, "", 0);
	size_t tl = strlen(text);
	char *nul = strstr(text, "sending:");
	*nul = '\0';
	assert_int_equal(parse(text, tl, list, PTP_MAX_INSTANCES, &more), 1);
	assert_int_equal(list[0].ptp.state, OBS_GARBAGE);
	free(body);
}

/* ------------------------------------------------ the collector and rules */

static node *decoded_node(const char *fixture)
{
	node *nd = malloc(sizeof *nd);
	assert_non_null(nd);
	node_init(nd, "node1");
	nd->reachable = true;
	nd->has_observation = true;
	observation_init(&nd->obs);
	nd->obs.taken_at = 1796313664.2;
	size_t len;
	char *text = fixture_read(fixture, &len);
	tool_output t = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	collector_find("pmc")->decode(&t, &nd->obs);
	free(text);
	return nd;
}

static const finding *find_code(const finding_list *l, const char *code, const char *in_message)
{
	for (int i = 0; i < l->count; i++) {
		if (strcmp(l->items[i].code, code) == 0 &&
		    (!in_message || strstr(l->items[i].message, in_message))) {
			return &l->items[i];
		}
	}
	return NULL;
}

static void test_decode_and_rules_per_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	const observation *o = &nd->obs;
	assert_int_equal(o->n_ptp_instances, 2);
	assert_int_equal(o->ptp_primary, 0);
	assert_int_equal(o->ptp.state, OBS_OK);
	assert_string_equal(o->ptp.clock_identity, o->ptp_instances[0].ptp.clock_identity);
	const char *names[NIC_MAX];
	assert_int_equal(node_update_probe_ifaces(nd, names), 2);
	assert_string_equal(names[0], "pa");
	assert_string_equal(names[1], "pb");

	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	/* both masters announce clockClass 248: one warn each, naming the socket */
	assert_non_null(find_code(&out, "ptp.gm_clock_class", "ptp4l socket " SOCK_A ": "));
	assert_non_null(find_code(&out, "ptp.gm_clock_class", "ptp4l socket " SOCK_B ": "));
	assert_null(find_code(&out, "ptp.config_unreadable", NULL));
	free(nd);
}

static void test_config_unreadable_finding(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-config-gone.txt");
	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	const finding *f = find_code(&out, "ptp.config_unreadable", CONF_B);
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_WARN);
	assert_non_null(strstr(f->message, "No such file or directory"));
	/* the readable one is still judged */
	assert_non_null(find_code(&out, "ptp.gm_clock_class", SOCK_A));

	/* the only ptp4l's config gone: the finding all the same, no PTP part */
	nd->obs.ptp_instances[0] = nd->obs.ptp_instances[1];
	nd->obs.n_ptp_instances = 1;
	nd->obs.ptp_primary = 0;
	nd->obs.ptp = nd->obs.ptp_instances[0].ptp;
	out.count = 0;
	health_evaluate(nd, &th, &out);
	assert_non_null(find_code(&out, "ptp.config_unreadable", CONF_B));
	assert_null(find_code(&out, "ptp.gm_clock_class", NULL));
	free(nd);
}

/* A second ptp4l that stopped answering: said, with its socket. */
static void test_second_instance_unreachable(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	nd->obs.ptp_instances[1].ptp.state = OBS_DAEMON_UNREACHABLE;
	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	const finding *f = find_code(&out, "collector.daemon_unreachable", SOCK_B);
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_CRIT);
	assert_null(find_code(&out, "ptp.gm_clock_class", SOCK_B));
	free(nd);
}

/* Every instance's NIC: the second ptp4l follows its master on pb with
 * software timestamping as the first does on pa; both are said (the NIC
 * rule looked at the primary's ports only before). */
static void test_nic_rule_every_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	assert_non_null(find_code(&out, "nic.no_hw_timestamping", "on pa with software timestamping"));
	assert_non_null(find_code(&out, "nic.no_hw_timestamping", "on pb with software timestamping"));
	/* the second instance on hardware timestamping: only pa is said */
	ptp_obs *b = &nd->obs.ptp_instances[1].ptp;
	snprintf(b->ports[0].timestamping, sizeof b->ports[0].timestamping, "HARDWARE");
	out.count = 0;
	health_evaluate(nd, &th, &out);
	assert_non_null(find_code(&out, "nic.no_hw_timestamping", "on pa "));
	assert_null(find_code(&out, "nic.no_hw_timestamping", "pb"));
	free(nd);
}

/* phc2sys running with these arguments (daemons_parse_phc2sys_args). */
static void run_phc2sys(observation *o, const char *args)
{
	o->daemons.state = OBS_OK;
	o->daemons.running |= DAEMON_PHC2SYS;
	o->daemons.n_phc2sys = 1;
	daemons_parse_phc2sys_args((text_span){args, strlen(args)}, &o->daemons.phc2sys[0]);
}

/* The system clock follows one ptp4l's PHC: the one phc2sys names (-s
 * IFACE, or -a on its -z socket).  phc_ctl reads that one first. */
static void test_system_clock_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	observation *o = &nd->obs;
	const char *names[NIC_MAX];
	assert_int_equal(sysclk_instance(o), -1); /* nobody steers from a PHC */

	run_phc2sys(o, "phc2sys -s pb -c CLOCK_REALTIME -w");
	assert_int_equal(sysclk_instance(o), 1);
	assert_int_equal(node_update_probe_ifaces(nd, names), 2);
	assert_string_equal(names[0], "pb");
	assert_string_equal(names[1], "pa");

	run_phc2sys(o, "phc2sys -a -rr -z " SOCK_A);
	assert_int_equal(sysclk_instance(o), 0);
	run_phc2sys(o, "phc2sys -ar --uds_address=" SOCK_B);
	assert_int_equal(sysclk_instance(o), 1);
	assert_string_equal(o->daemons.phc2sys[0].uds, SOCK_B);
	run_phc2sys(o, "phc2sys -a -r --uds_address " SOCK_B " -m");
	assert_int_equal(sysclk_instance(o), 1);
	assert_int_equal(node_update_probe_ifaces(nd, names), 2);
	assert_string_equal(names[0], "pb");
	/* -a on the default socket: neither instance listens there */
	run_phc2sys(o, "phc2sys -a -r");
	assert_int_equal(sysclk_instance(o), -1);
	/* ... then the PHC phc_ctl read says which */
	o->phc.state = OBS_OK;
	snprintf(o->phc.interface, sizeof o->phc.interface, "pb");
	assert_int_equal(sysclk_instance(o), 1);
	/* one ptp4l: nothing to choose */
	o->n_ptp_instances = 1;
	assert_int_equal(sysclk_instance(o), -1);
	free(nd);
}

/* phc_ctl read pb's PHC: the system clock's offset from it takes pb's ptp4l
 * timescale and UTC offset, not the primary's (pa). */
static void test_phc_offset_uses_its_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	observation *o = &nd->obs;
	run_phc2sys(o, "phc2sys -s pb -w");
	/* both NICs timestamp in hardware (on software, ptp4l would steer
	 * CLOCK_REALTIME itself); pa's ptp4l on the ARB timescale */
	for (int i = 0; i < 2; i++) {
		ptp_obs *p = i == 0 ? &o->ptp : &o->ptp_instances[0].ptp;
		snprintf(p->ports[0].timestamping, sizeof p->ports[0].timestamping, "HARDWARE");
		p->ptp_timescale = 0;
	}
	ptp_obs *b = &o->ptp_instances[1].ptp;
	b->ptp_timescale = 1;
	b->current_utc_offset = 37;
	snprintf(b->ports[0].timestamping, sizeof b->ports[0].timestamping, "HARDWARE");
	o->phc.state = OBS_OK;
	snprintf(o->phc.interface, sizeof o->phc.interface, "pb");
	o->phc.realtime_minus_phc_ns = -37000000120LL;
	assert_true(phc_sys_offset_ns(o) == -120);
	assert_true(phc_sys_offset_judged(o));
	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	assert_null(find_code(&out, "ptp.phc_sys_offset", NULL));
	o->phc.realtime_minus_phc_ns = -37004000000LL; /* 4 ms: phc2sys lost it */
	out.count = 0;
	health_evaluate(nd, &th, &out);
	const finding *f = find_code(&out, "ptp.phc_sys_offset", "pb");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_CRIT);
	free(nd);
}

/* A second instance on hardware timestamping whose PHC phc_ctl read: its
 * last Sync's age is judged on that PHC's time (ptp.no_sync for its
 * socket); the PHC was dropped for every instance but the primary before. */
static void test_sync_age_second_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	observation *o = &nd->obs;
	ptp_obs *b = &o->ptp_instances[1].ptp;
	ptp_port *port = &b->ports[0];
	snprintf(port->timestamping, sizeof port->timestamping, "HARDWARE");
	assert_true(b->realtime_before_ns != PTP_NS_UNKNOWN);
	assert_true(port->log_sync_interval != INT_UNKNOWN);
	/* the PHC on the PTP timescale, 37 s ahead; the last Sync 1 hour ago */
	o->phc.state = OBS_OK;
	snprintf(o->phc.interface, sizeof o->phc.interface, "pb");
	o->phc.realtime_minus_phc_ns = -37000000000LL;
	b->ingress_time_ns = b->realtime_before_ns + 37000000000LL - 3600LL * 1000000000LL;
	thresholds th;
	thresholds_init_defaults(&th);
	finding_list out = {0};
	health_evaluate(nd, &th, &out);
	const finding *f = find_code(&out, "ptp.no_sync", "ptp4l socket " SOCK_B ": ");
	assert_non_null(f);
	/* the PHC of another interface: no age, no finding for that port */
	snprintf(o->phc.interface, sizeof o->phc.interface, "pa");
	out.count = 0;
	health_evaluate(nd, &th, &out);
	assert_null(find_code(&out, "ptp.no_sync", SOCK_B));
	free(nd);
}

/* The grid's PORT cell: the primary's state, and with several ptp4l how
 * many follow a master, of how many. */
static void test_grid_port_cell(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	const collector *c = collector_find("pmc");
	const grid_column *port = NULL;
	for (size_t i = 0; i < c->n_columns; i++) {
		if (strcmp(c->columns[i].key, "port") == 0) {
			port = &c->columns[i];
		}
	}
	assert_non_null(port);
	char cell[64];
	assert_int_equal(port->cell(&nd->obs, cell, sizeof cell), GRID_CELL_VALUE);
	assert_string_equal(cell, "SLAVE 2/2");
	nd->obs.ptp_instances[1].ptp.state = OBS_DAEMON_UNREACHABLE;
	port->cell(&nd->obs, cell, sizeof cell);
	assert_string_equal(cell, "SLAVE 1/2");
	free(nd);
	nd = decoded_node("pmc-batch-multi-get-slave.txt");
	port->cell(&nd->obs, cell, sizeof cell);
	assert_string_equal(cell, "SLAVE");
	free(nd);
}

/* Prometheus: the unlabelled series stay the primary's; each instance's
 * own carry a uds label, which nothing else does. */
static void test_prometheus_per_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	nd->obs.ptp_instances[1].ptp.offset_from_master_ns = -1234;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_non_null(f);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, 1796313664.0), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\nsynctop_ptp_instance_primary{node=\"node1\",uds=\"" SOCK_A "\"} 1\n"));
	assert_non_null(strstr(buf, "\nsynctop_ptp_instance_primary{node=\"node1\",uds=\"" SOCK_B "\"} 0\n"));
	assert_non_null(strstr(buf, "\nsynctop_ptp_instance_offset_seconds{node=\"node1\",uds=\"" SOCK_B
				    "\"} -1.234e-06\n"));
	assert_non_null(strstr(buf, "\nsynctop_ptp_instance_port_state{node=\"node1\",uds=\"" SOCK_B
				    "\",port=\"1\",state=\"SLAVE\"} 1\n"));
	assert_non_null(strstr(buf, "\nsynctop_ptp_instance_gm_clock_class{node=\"node1\",uds=\"" SOCK_A "\"} 248\n"));
	/* the unlabelled series: the primary's, once */
	assert_non_null(strstr(buf, "\nsynctop_ptp_port_state{node=\"node1\",port=\"1\",state=\"SLAVE\"} 1\n"));
	const char *p = strstr(buf, "\nsynctop_ptp_offset_seconds{");
	assert_non_null(p);
	assert_null(strstr(p + 1, "\nsynctop_ptp_offset_seconds{"));
	assert_null(strstr(p, "-1.234e-06\nsynctop_ptp_offset"));
	free(buf);

	/* one ptp4l on pmc's default socket: no per-instance series */
	free(nd);
	nd = decoded_node("pmc-batch-multi-get-slave.txt");
	assert_int_equal(nd->obs.n_ptp_instances, 0);
	f = open_memstream(&buf, &blen);
	assert_int_equal(report_prometheus_format(f, nd, 1, NULL, 1796313664.0), 0);
	fclose(f);
	assert_null(strstr(buf, "synctop_ptp_instance_primary{"));
	assert_null(strstr(buf, "uds=\""));
	free(buf);
	free(nd);
}

static void test_json(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-two-slaves.txt");
	json_t *root = report_json_build(nd, 1, 1796313665.0);
	json_t *jn = json_array_get(json_object_get(root, "nodes"), 0);
	/* the last key of the node object */
	const char *last = NULL;
	for (void *it = json_object_iter(jn); it; it = json_object_iter_next(jn, it)) {
		last = json_object_iter_key(it);
	}
	assert_string_equal(last, "ptp_instances");
	json_t *arr = json_object_get(jn, "ptp_instances");
	assert_int_equal(json_array_size(arr), 2);
	json_t *b = json_array_get(arr, 1);
	assert_string_equal(json_string_value(json_object_get(b, "socket")), SOCK_B);
	assert_string_equal(json_string_value(json_object_get(b, "config")), CONF_B);
	assert_true(json_is_null(json_object_get(b, "config_error")));
	assert_true(json_is_false(json_object_get(b, "primary")));
	json_t *bp = json_object_get(b, "ptp");
	assert_string_equal(json_string_value(json_object_get(bp, "port_state")), "SLAVE");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(bp, "ports"), 0),
							      "interface")),
			    "pb");
	json_decref(root);

	/* one ptp4l on pmc's default socket: no such key at all */
	node *plain = decoded_node("pmc-synctop-master.txt");
	assert_int_equal(plain->obs.n_ptp_instances, 0);
	root = report_json_build(plain, 1, 1796313665.0);
	jn = json_array_get(json_object_get(root, "nodes"), 0);
	assert_null(json_object_get(jn, "ptp_instances"));
	json_decref(root);
	free(plain);
	free(nd);
}

/* The drill-down lists every instance, the unreadable one too. */
static void test_detail_lists_every_instance(void **state)
{
	(void)state;
	node *nd = decoded_node("pmc-instances-config-gone.txt");
	doc d;
	doc_init(&d);
	detail_doc_build(&d, nd, 1796313665.0, 160, false);
	bool first = false, second = false;
	for (size_t i = 0; i < d.n; i++) {
		first |= strstr(d.lines[i].text, "ptp4l 1 (below)") && strstr(d.lines[i].text, SOCK_A) &&
			 strstr(d.lines[i].text, "SLAVE on pa");
		second |= strstr(d.lines[i].text, "ptp4l 2") && strstr(d.lines[i].text, CONF_B) &&
			  strstr(d.lines[i].text, "cannot be read (No such file or directory)");
	}
	assert_true(first);
	assert_true(second);
	doc_free(&d);
	free(nd);
}

/* ---------------------------------------- the collector's shell, for real */

/* Runs the pmc collector's shell functions (collectors/pmc.c) with `sh` (and
 * bash where present) as the probe does, PATH holding a `ps` that prints
 * ps_lines and a `pmc` that answers with a real capture and names its
 * arguments on stderr; returns the section's stdout (malloc'ed). */
static char *run_shell(const char *shell, const char *dir, const char *ps_lines, size_t *len)
{
	char path[512], cmd[2048];
	snprintf(path, sizeof path, "%s/bin", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/bin/ps", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat <<'PS'\n%sPS\n", ps_lines);
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof path, "%s/bin/pmc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\ncat '%s/pmc-synctop-master.txt'\necho \"pmc $*\" | cut -d' ' -f1-6 >&2\n",
		getenv("SYNCTOP_FIXTURES"));
	fclose(f);
	chmod(path, 0755);
	snprintf(path, sizeof path, "%s/probe.sh", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s", collector_find("pmc")->shell_functions);
	fprintf(f, "e=$(mktemp); sudo=; synctop_ps=\nsynctop_pmc\nrm -f \"$e\"\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "PATH='%s/bin':/usr/bin:/bin %s '%s/probe.sh' >'%s/out' 2>/dev/null", dir, shell,
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof path, "%s/out", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 20);
	assert_non_null(buf);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void shell_finds_instances(const char *shell)
{
	char dir[] = "/tmp/synctop-pmcinst-XXXXXX";
	assert_non_null(mkdtemp(dir));
	/* as linuxptp's config.c reads it: [global] without case, blanks
	 * around, a port section's key is not the global one */
	write_file(dir, "a.conf", "# a\n[global]\nuds_address   /run/a sock  \n[eth0]\nuds_address /wrong\n");
	write_file(dir, "b.conf", "#uds_address /commented\n  [GLOBAL]\n\tuds_address /run/b");
	write_file(dir, "d.conf", "[global]\nlogging_level 6\n");
	char ps[2048];
	snprintf(ps, sizeof ps,
		 "    101 /usr/sbin/ptp4l -f %s/a.conf -i eth0 -m\n"
		 "    102 ptp4l -2 -Smf%s/b.conf -i eth1\n"
		 "    103 ptp4l -i eth2 --uds_address=/run/c -f /nonexistent.conf\n"
		 "    104 ptp4l -f %s/gone.conf -i eth3\n"
		 "    105 ptp4l -i eth4 -f %s/d.conf\n"
		 "    106 ptp4l -i eth5 --logging_level 6 --uds_address /run/e -f %s\n"
		 /* getopt_long's unambiguous prefixes, as ptp4l takes them */
		 "    108 ptp4l -i eth6 --uds_addr=/run/f\n"
		 "    109 ptp4l -i eth7 --uds_a /run/g --uds_axx /x\n"
		 /* the config on ptp4l's stdin: nobody else can read it */
		 "    110 ptp4l -i eth8 -f -\n"
		 "  phc2sys -a -r\n"
		 "    107 /usr/sbin/phc2sys -f %s/a.conf\n",
		 dir, dir, dir, dir, dir, dir);
	size_t len;
	char *out = run_shell(shell, dir, ps, &len);
	ptp_instance list[12];
	int more = -1;
	int n = parse(out, len, list, 12, &more);
	assert_int_equal(more, 0);
	assert_int_equal(n, 9);
	static const char *const sockets[] = {"/run/a sock", "/run/b", "/run/c", "", "", "/run/e", "/run/f", "/run/g", ""};
	for (int i = 0; i < n; i++) {
		assert_string_equal(list[i].socket, sockets[i]);
		if (i == 8) {
			assert_string_equal(list[i].config, "-");
			assert_string_equal(list[i].config_error, "read from the standard input of ptp4l");
			assert_int_equal(list[i].ptp.state, OBS_NOT_COLLECTED);
		} else if (i == 3) {
			assert_string_equal(list[i].config_error, "No such file or directory");
			assert_int_equal(list[i].ptp.state, OBS_NOT_COLLECTED);
		} else {
			assert_string_equal(list[i].config_error, "");
			assert_int_equal(list[i].ptp.state, OBS_OK);
			assert_int_equal(list[i].ptp.ports[0].state, PTP_PORT_MASTER);
		}
	}
	/* the command line wins: the unreadable config is not needed */
	assert_string_equal(list[2].config, "/nonexistent.conf");
	free(out);

	/* one ptp4l on pmc's default socket: the section of before */
	snprintf(ps, sizeof ps, "    105 ptp4l -i eth4 -f %s/d.conf\n", dir);
	out = run_shell(shell, dir, ps, &len);
	assert_int_equal(parse(out, len, list, 8, &more), 0);
	assert_memory_equal(out, "synctop-realtime-ns before ", 27);
	ptp_obs one;
	tool_output t = {.out = out, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	pmc_parse(&t, &one);
	assert_int_equal(one.state, OBS_OK);
	free(out);

	/* a ps that ignores -C (a shim printing names only): no instance */
	out = run_shell(shell, dir, "systemd\nptp4l\nsshd\n", &len);
	assert_int_equal(parse(out, len, list, 8, &more), 0);
	free(out);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_shell_finds_instances(void **state)
{
	(void)state;
	shell_finds_instances("/bin/sh");
	if (access("/bin/bash", X_OK) == 0) {
		shell_finds_instances("/bin/bash --posix");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unframed_is_one_pmc_run),
		cmocka_unit_test(test_two_slaves_captured),
		cmocka_unit_test(test_config_gone_captured),
		cmocka_unit_test(test_stderr_and_rc_per_frame),
		cmocka_unit_test(test_primary_is_the_slave),
		cmocka_unit_test(test_more_than_kept),
		cmocka_unit_test(test_cut_anywhere),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_decode_and_rules_per_instance),
		cmocka_unit_test(test_config_unreadable_finding),
		cmocka_unit_test(test_second_instance_unreachable),
		cmocka_unit_test(test_nic_rule_every_instance),
		cmocka_unit_test(test_system_clock_instance),
		cmocka_unit_test(test_phc_offset_uses_its_instance),
		cmocka_unit_test(test_sync_age_second_instance),
		cmocka_unit_test(test_prometheus_per_instance),
		cmocka_unit_test(test_grid_port_cell),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_detail_lists_every_instance),
		cmocka_unit_test(test_shell_finds_instances),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
