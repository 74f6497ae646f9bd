/* test_phc_ctl.c - the PHC collector (`phc_ctl -q IFACE get cmp`) on
 * output captured from phc_ctl 3.1.1 and on states derived from linuxptp's
 * source (tests/fixtures/phc_ctl.source.md); phc2sys's options from ps; who
 * steers the system clock; the offset on the UTC timescale; the rules
 * ptp.phc_sys_offset and ptp.system_clock_unsteered; the collection
 * failures; JSON, Prometheus, history and the drill-down. */
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
#include "daemons_parse.h"
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "grid_column.h"
#include "health.h"
#include "node.h"
#include "node_update.h"
#include "phc_ctl_parse.h"
#include "report_json.h"
#include "report_prometheus.h"
#include "system_clock.h"

#define NOW 1796301923.0

static void parse_fixture(const char *name, int rc, phc_obs *phc)
{
	tool_output out = fixture_output(name, rc);
	phc_ctl_parse(&out, phc);
	fixture_output_free(&out);
}

static void parse_text(const char *text, const char *err, int rc, phc_obs *phc)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = err, .err_len = strlen(err), .rc = rc};
	phc_ctl_parse(&out, phc);
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle)) {
		fail_msg("\"%s\" does not contain \"%s\"", haystack, needle);
	}
}

/* ------------------------------------------------------------- parser */

/* phc_ctl 3.1.1's fallback on CLOCK_REALTIME (captured): "approximately
 * -5ns" is PHC - CLOCK_REALTIME in 3.1.1, so CLOCK_REALTIME - PHC is +5. */
static void test_capture_approximately_31(void **state)
{
	(void)state;
	phc_obs phc;
	parse_fixture("phc_ctl-3.1.1-clock-realtime-approximately.txt", 0, &phc);
	assert_int_equal(phc.state, OBS_OK);
	assert_string_equal(phc.interface, "CLOCK_REALTIME");
	assert_true(phc.approximate);
	assert_string_equal(phc.version, "3.1.1");
	assert_true(phc.realtime_minus_phc_ns == 5);
	assert_true(phc.phc_time_ns == 1796301886935473641LL);
}

/* The same state printed by 3.1.1 and by 4.4 gives the same value. */
static void test_approximately_sign_by_version(void **state)
{
	(void)state;
	phc_obs old, new;
	parse_fixture("synthetic-phc_ctl-3.1.1-approximately-37s.txt", 0, &old);
	parse_fixture("synthetic-phc_ctl-4.4-approximately.txt", 0, &new);
	assert_int_equal(old.state, OBS_OK);
	assert_int_equal(new.state, OBS_OK);
	assert_true(old.realtime_minus_phc_ns == -37000000150LL);
	assert_true(new.realtime_minus_phc_ns == -37000000150LL);
	assert_true(old.approximate && new.approximate);

	/* without the version the sign cannot be told: no value */
	phc_obs unknown;
	parse_text("synctop: phc_ctl eth0\nphc_ctl[1.0]: offset from CLOCK_REALTIME is approximately 5ns\n", "", 0,
		   &unknown);
	assert_int_equal(unknown.state, OBS_NOT_SUPPORTED);
	assert_true(unknown.realtime_minus_phc_ns == PTP_NS_UNKNOWN);
	assert_contains(unknown.error, "4.0");

	assert_int_equal(phc_ctl_version_major("3.1.1"), 3);
	assert_int_equal(phc_ctl_version_major("4.2-00012-g1234abc"), 4);
	assert_int_equal(phc_ctl_version_major("v4.0"), 4);
	assert_int_equal(phc_ctl_version_major("10"), 10);
	assert_int_equal(phc_ctl_version_major(""), -1);
	assert_int_equal(phc_ctl_version_major("unknown"), -1);
	assert_int_equal(phc_ctl_version_major("3x"), -1);
}

static void test_precise_offsets(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		int64_t raw;
	} cases[] = {
		{"synthetic-phc_ctl-offset-120ns.txt", -36999999880LL},
		{"synthetic-phc_ctl-offset-250us.txt", -36999750000LL},
		{"synthetic-phc_ctl-offset-4ms.txt", -37004000000LL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		phc_obs phc;
		parse_fixture(cases[i].file, 0, &phc);
		assert_int_equal(phc.state, OBS_OK);
		assert_false(phc.approximate);
		assert_string_equal(phc.interface, "eth0");
		assert_true(phc.realtime_minus_phc_ns == cases[i].raw);
		assert_true(phc.phc_time_ns != PTP_NS_UNKNOWN);
	}
	/* linuxptp 4.x's line without "get" first, and without a prefix */
	phc_obs phc;
	parse_text("offset from CLOCK_REALTIME is 12ns\n", "", 0, &phc);
	assert_int_equal(phc.state, OBS_OK);
	assert_true(phc.realtime_minus_phc_ns == 12);
	assert_true(phc.phc_time_ns == PTP_NS_UNKNOWN);
}

static void test_failures(void **state)
{
	(void)state;
	phc_obs phc;
	parse_fixture("phc_ctl-3.1.1-lo-no-phc.txt", 255, &phc);
	assert_int_equal(phc.state, OBS_NOT_SUPPORTED);
	assert_string_equal(phc.interface, "lo");
	assert_contains(phc.error, "interface lo does not have a PHC");

	parse_fixture("phc_ctl-3.1.1-no-such-device.txt", 255, &phc);
	assert_int_equal(phc.state, OBS_NO_DEVICE);
	assert_contains(phc.error, "unknown clock eth9: No such device");

	parse_fixture("synthetic-phc_ctl-permission-denied.txt", 255, &phc);
	assert_int_equal(phc.state, OBS_PERMISSION_DENIED);
	assert_contains(phc.error, "cannot open /dev/ptp0 for eth0: Permission denied");

	parse_fixture("synthetic-phc_ctl-sudo-password-required.txt", 1, &phc);
	assert_int_equal(phc.state, OBS_PERMISSION_DENIED);
	assert_contains(phc.error, "sudo -n refused");

	parse_fixture("phc_ctl-not-run-no-iface.txt", 0, &phc);
	assert_int_equal(phc.state, OBS_NOT_COLLECTED);
	assert_contains(phc.error, "not known yet");
	parse_fixture("phc_ctl-not-run-no-phc.txt", 0, &phc);
	assert_int_equal(phc.state, OBS_NOT_COLLECTED);
	assert_contains(phc.error, "no /dev/ptp");

	parse_text("synctop: phc_ctl eth0\n", "sh: 1: phc_ctl: not found\n", 127, &phc);
	assert_int_equal(phc.state, OBS_TOOL_MISSING);
	parse_text("synctop: phc_ctl eth0\n", "sudo: phc_ctl: command not found\n", 1, &phc);
	assert_int_equal(phc.state, OBS_TOOL_MISSING);
	/* phc_ctl exits 0 when a command fails (run_cmds' -1 is not < -1) */
	parse_text("synctop: phc_ctl eth0\nphc_ctl[2.0]: clock time is 5.000000001 or Thu Jan  1 00:00:05 1970\n\n",
		   "phc_ctl[2.0]: cmp: failed to compare clocks: Invalid argument\n", 0, &phc);
	assert_int_equal(phc.state, OBS_COMMAND_FAILED);
	assert_contains(phc.error, "cmp: failed to compare clocks");
	parse_text("synctop: phc_ctl eth0\n", "", 3, &phc);
	assert_int_equal(phc.state, OBS_COMMAND_FAILED);
	parse_text("synctop: phc_ctl eth0\n", "", 0, &phc);
	assert_int_equal(phc.state, OBS_EMPTY);
}

static void test_malformed(void **state)
{
	(void)state;
	phc_obs phc;
	parse_text("phc_ctl[1.0]: offset from CLOCK_REALTIME is -37000000008", "", -1, &phc);
	assert_int_equal(phc.state, OBS_TRUNCATED);
	static const char *const bad[] = {
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is ns\n",
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is 12\n",
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is 1.5ns\n",
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is --5ns\n",
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is 99999999999999999999ns\n",
		"phc_ctl[1.0]: offset from CLOCK_REALTIME is 5000000000000000000ns\n",
		"phc_ctl[1.0]: clock time is 17.12345 or x\nphc_ctl[1.0]: offset from CLOCK_REALTIME is 5ns\n",
		"phc_ctl[1.0]: clock time is x.000000000 or x\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		parse_text(bad[i], "", 0, &phc);
		if (phc.state != OBS_GARBAGE) {
			fail_msg("case %zu: %s", i, obs_state_name(phc.state));
		}
		assert_true(phc.realtime_minus_phc_ns == PTP_NS_UNKNOWN);
	}
	tool_output nul = {.out = "offset\0from", .out_len = 11, .err = "", .err_len = 0, .rc = 0};
	phc_ctl_parse(&nul, &phc);
	assert_int_equal(phc.state, OBS_GARBAGE);
	tool_output none = {.out = NULL, .out_len = 0, .err = NULL, .err_len = 0, .rc = -1};
	phc_ctl_parse(&none, &phc);
	assert_int_equal(phc.state, OBS_EMPTY);
	/* an over-long "interface" is not taken */
	parse_text("synctop: phc_ctl eth0-with-a-name-far-longer-than-any-interface\n"
		   "offset from CLOCK_REALTIME is 1ns\n", "", 0, &phc);
	assert_int_equal(phc.state, OBS_OK);
	assert_string_equal(phc.interface, "");
}

/* ------------------------------------------------------ phc2sys options */

static void test_phc2sys_from_ps(void **state)
{
	(void)state;
	size_t len;
	char *ps = fixture_read("ps-C-phc2sys-comm-args.txt", &len);
	char text[1024];
	snprintf(text, sizeof text, "systemd\nsshd\nptp4l\nphc2sys\nphc2sys\n%s", ps);
	free(ps);
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = 0};
	daemons_obs d;
	daemons_parse(&out, &d);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_PTP4L | DAEMON_PHC2SYS);
	assert_int_equal(d.n_phc2sys, 2);
	assert_true(d.phc2sys[0].automatic);
	assert_int_equal(d.phc2sys[0].realtime, 2);
	assert_string_equal(d.phc2sys[0].source, "");
	assert_false(d.phc2sys[0].ntpshm);
	assert_string_equal(d.phc2sys_cmdline[0], "/usr/sbin/phc2sys -a -r -r -n 24 -u 1 -m -q");
	assert_string_equal(d.phc2sys[1].source, "ens1f0");
	assert_string_equal(d.phc2sys[1].sink, "CLOCK_REALTIME");
	assert_true(d.phc2sys[1].ntpshm);
	assert_false(d.phc2sys[1].automatic);

	/* getopt's forms: grouped flags, glued values, 3.1's -i, long options */
	phc2sys_args a;
	daemons_parse_phc2sys_args((text_span){"phc2sys -ar -seth0", 18}, &a);
	assert_true(a.automatic);
	assert_int_equal(a.realtime, 1);
	assert_string_equal(a.source, "eth0");
	const char *l = "phc2sys --step_threshold 1 --first_step_threshold=0.1 -i eth1 -f /etc/p.conf -E linreg";
	daemons_parse_phc2sys_args((text_span){l, strlen(l)}, &a);
	assert_string_equal(a.source, "eth1");
	assert_true(a.config_file);
	assert_false(a.ntpshm);
	assert_int_equal(a.realtime, 0);
	daemons_parse_phc2sys_args((text_span){"phc2sys -s", 10}, &a);
	assert_string_equal(a.source, "");
	daemons_parse_phc2sys_args((text_span){"", 0}, &a);
	assert_false(a.automatic);

	/* more phc2sys lines than kept: the bit stays, the lines beyond go
	 * (command lines follow the process list, which shows phc2sys) */
	const char *many = "4242 10 phc2sys\nphc2sys         phc2sys -a -r\nphc2sys         phc2sys -a -r\n"
			   "phc2sys         phc2sys -s eth2\n";
	tool_output m = {.out = many, .out_len = strlen(many), .err = "", .err_len = 0, .rc = 0};
	daemons_parse(&m, &d);
	assert_int_equal(d.n_phc2sys, DAEMONS_MAX_PHC2SYS);
	assert_int_equal(d.running, DAEMON_PHC2SYS);
}

/* ------------------------------------------------------------ steering */

static node *new_node(void)
{
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu1");
	observation_init(&n->obs);
	n->reachable = true;
	n->has_observation = true;
	n->obs.taken_at = NOW;
	return n;
}

/* A SLAVE port on eth0 with HARDWARE timestamps, PTP timescale, UTC offset 37. */
static void ptp_slave(observation *o, const char *timestamping)
{
	ptp_obs *p = &o->ptp;
	ptp_obs_init(p);
	p->state = OBS_OK;
	p->gm_present = 1;
	p->offset_from_master_ns = -12;
	p->master_offset_ns = -12;
	p->mean_path_delay_ns = 500;
	p->ptp_timescale = 1;
	p->current_utc_offset = 37;
	p->current_utc_offset_valid = 1;
	p->n_ports = 1;
	p->ports[0].port_number = 1;
	p->ports[0].state = PTP_PORT_SLAVE;
	snprintf(p->ports[0].interface, sizeof p->ports[0].interface, "eth0");
	snprintf(p->ports[0].timestamping, sizeof p->ports[0].timestamping, "%s", timestamping);
}

static void daemons(observation *o, unsigned running, const char *cmdline)
{
	o->daemons.state = OBS_OK;
	o->daemons.running = running;
	o->daemons.n_phc2sys = 0;
	if (cmdline) {
		daemons_parse_phc2sys_args((text_span){cmdline, strlen(cmdline)}, &o->daemons.phc2sys[0]);
		snprintf(o->daemons.phc2sys_cmdline[0], sizeof o->daemons.phc2sys_cmdline[0], "%s", cmdline);
		o->daemons.n_phc2sys = 1;
	}
}

static void chrony_selected(observation *o, chrony_source_mode mode, const char *name)
{
	chrony_obs_init(&o->chrony);
	o->chrony.state = OBS_OK;
	o->chrony.tracking.leap = CHRONY_LEAP_NORMAL;
	o->chrony.n_sources = o->chrony.n_sources_total = 1;
	o->chrony.sources[0].mode = mode;
	o->chrony.sources[0].state = CHRONY_STATE_SELECTED;
	snprintf(o->chrony.sources[0].name, sizeof o->chrony.sources[0].name, "%s", name);
}

static void test_steering(void **state)
{
	(void)state;
	observation *o = calloc(1, sizeof *o);
	assert_non_null(o);
	observation_init(o);
	assert_int_equal(sysclk_steering(o), SYSCLK_UNKNOWN);

	ptp_slave(o, "HARDWARE");
	daemons(o, DAEMON_PTP4L, NULL);
	assert_int_equal(sysclk_steering(o), SYSCLK_NOBODY);
	assert_false(sysclk_follows_phc(o));

	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "/usr/sbin/phc2sys -a -r");
	assert_int_equal(sysclk_steering(o), SYSCLK_PHC2SYS);
	assert_true(sysclk_follows_phc(o));
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s eth0 -w");
	assert_int_equal(sysclk_steering(o), SYSCLK_PHC2SYS);
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, NULL); /* its command line was not read */
	assert_int_equal(sysclk_steering(o), SYSCLK_PHC2SYS);
	/* -a without -r leaves CLOCK_REALTIME alone; a grandmaster copies it into the PHC */
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -a");
	assert_int_equal(sysclk_steering(o), SYSCLK_NOBODY);
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s CLOCK_REALTIME -c eth0 -O 0");
	assert_int_equal(sysclk_steering(o), SYSCLK_NOBODY);
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s eth0 -c /dev/ptp1");
	assert_int_equal(sysclk_steering(o), SYSCLK_NOBODY);

	/* chronyd with a PHC refclock, or SHM fed by phc2sys -E ntpshm */
	daemons(o, DAEMON_PTP4L | DAEMON_CHRONYD, NULL);
	chrony_selected(o, CHRONY_MODE_REFCLOCK, "PHC0");
	assert_int_equal(sysclk_steering(o), SYSCLK_CHRONY_PHC);
	daemons(o, DAEMON_PTP4L | DAEMON_CHRONYD | DAEMON_PHC2SYS, "phc2sys -s eth0 -E ntpshm -M 0");
	chrony_selected(o, CHRONY_MODE_REFCLOCK, "SHM0");
	assert_int_equal(sysclk_steering(o), SYSCLK_CHRONY_PHC);
	assert_true(sysclk_follows_phc(o));
	daemons(o, DAEMON_PTP4L | DAEMON_CHRONYD, NULL); /* SHM from gpsd, say */
	assert_int_equal(sysclk_steering(o), SYSCLK_CHRONY_REFCLOCK);
	assert_false(sysclk_follows_phc(o));
	chrony_selected(o, CHRONY_MODE_SERVER, "10.0.0.1");
	assert_int_equal(sysclk_steering(o), SYSCLK_NTP);
	o->chrony.state = OBS_DAEMON_UNREACHABLE; /* chronyd runs: it steers */
	assert_int_equal(sysclk_steering(o), SYSCLK_NTP);
	daemons(o, DAEMON_PTP4L | DAEMON_TIMESYNCD, NULL);
	assert_int_equal(sysclk_steering(o), SYSCLK_NTP);

	/* software timestamping: ptp4l's clock is CLOCK_REALTIME */
	ptp_slave(o, "SOFTWARE");
	daemons(o, DAEMON_PTP4L, NULL);
	assert_int_equal(sysclk_steering(o), SYSCLK_PTP4L);
	assert_string_equal(sysclk_steerer_name(SYSCLK_PTP4L), "ptp4l");
	assert_string_equal(sysclk_steerer_name(SYSCLK_UNKNOWN), "unknown");
	free(o);
}

/* phc_ctl's -37000000008 ns on the PTP timescale is a system clock 8 ns
 * behind the PHC; phc2sys removes currentUtcOffset whenever ptpTimescale is
 * set, valid or not. */
static void test_offset_on_utc_timescale(void **state)
{
	(void)state;
	observation *o = calloc(1, sizeof *o);
	assert_non_null(o);
	observation_init(o);
	parse_text("synctop: phc_ctl eth0\nphc_ctl[1.0]: offset from CLOCK_REALTIME is -37000000008ns\n", "", 0,
		   &o->phc);
	assert_true(phc_sys_offset_ns(o) == PTP_NS_UNKNOWN); /* ptp4l not read */
	ptp_slave(o, "HARDWARE");
	assert_true(phc_sys_offset_ns(o) == -8);
	o->ptp.current_utc_offset_valid = 0;
	assert_true(phc_sys_offset_ns(o) == -8);
	o->ptp.ptp_timescale = 0; /* ARB: the PHC is not on TAI */
	assert_true(phc_sys_offset_ns(o) == -37000000008LL);
	o->ptp.ptp_timescale = INT_UNKNOWN;
	assert_true(phc_sys_offset_ns(o) == PTP_NS_UNKNOWN);
	o->ptp.ptp_timescale = 1;
	o->ptp.current_utc_offset = INT_UNKNOWN;
	assert_true(phc_sys_offset_ns(o) == PTP_NS_UNKNOWN);
	o->ptp.current_utc_offset = 37;

	/* judged only where the system clock follows that PHC */
	daemons(o, DAEMON_PTP4L | DAEMON_CHRONYD, NULL);
	chrony_selected(o, CHRONY_MODE_SERVER, "10.0.0.1");
	assert_false(phc_sys_offset_judged(o));
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s eth0 -w");
	assert_true(phc_sys_offset_judged(o));
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s eth1 -w"); /* another NIC's PHC */
	assert_false(phc_sys_offset_judged(o));
	daemons(o, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -s /dev/ptp0 -w");
	assert_true(phc_sys_offset_judged(o));
	free(o);
}

/* --------------------------------------------------------------- rules */

static const finding *evaluate_find(node *n, const thresholds *th, const char *code)
{
	health_apply(n, th);
	for (int i = 0; i < n->findings.count; i++) {
		const finding *f = &n->findings.items[i];
		assert_true(f->message[0] && f->hint[0]);
		if (strcmp(f->code, code) == 0) {
			return f;
		}
	}
	return NULL;
}

static void phc_offset(observation *o, int64_t sys_minus_phc_ns)
{
	char text[160];
	snprintf(text, sizeof text, "synctop: phc_ctl eth0\nphc_ctl[1.0]: offset from CLOCK_REALTIME is %lldns\n",
		 (long long)(sys_minus_phc_ns - 37000000000LL));
	parse_text(text, "", 0, &o->phc);
	assert_int_equal(o->phc.state, OBS_OK);
}

static void test_rule_phc_sys_offset(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	assert_true(th.phc_sys_offset_warn_ns == 1000 && th.phc_sys_offset_crit_ns == 100000);
	node *n = new_node();
	ptp_slave(&n->obs, "HARDWARE");
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -a -r");
	static const struct {
		int64_t ns;
		severity sev;
	} cases[] = {
		{120, SEVERITY_OK}, {1000, SEVERITY_OK}, {-1001, SEVERITY_WARN}, {100000, SEVERITY_WARN},
		{100001, SEVERITY_CRIT}, {250000, SEVERITY_CRIT}, {-4000000, SEVERITY_CRIT},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		phc_offset(&n->obs, cases[i].ns);
		const finding *f = evaluate_find(n, &th, "ptp.phc_sys_offset");
		if (cases[i].sev == SEVERITY_OK) {
			assert_null(f);
		} else if (!f || f->sev != cases[i].sev) {
			fail_msg("%lld ns: expected %s", (long long)cases[i].ns, severity_name(cases[i].sev));
		}
	}
	phc_offset(&n->obs, -4000000);
	const finding *f = evaluate_find(n, &th, "ptp.phc_sys_offset");
	assert_contains(f->message, "-4.000 ms");
	assert_contains(f->message, "eth0");
	assert_contains(f->message, "phc2sys");
	assert_contains(f->hint, "phc_ctl eth0 -q cmp");
	assert_int_equal(n->status, NODE_STATUS_CRIT);

	/* configurable */
	th.phc_sys_offset_crit_ns = 10000000;
	assert_int_equal(evaluate_find(n, &th, "ptp.phc_sys_offset")->sev, SEVERITY_WARN);
	thresholds_init_defaults(&th);

	/* shown, not judged, where the system clock follows NTP */
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_CHRONYD, NULL);
	chrony_selected(&n->obs, CHRONY_MODE_SERVER, "10.0.0.1");
	assert_null(evaluate_find(n, &th, "ptp.phc_sys_offset"));
	/* chronyd's PHC refclock is judged */
	chrony_selected(&n->obs, CHRONY_MODE_REFCLOCK, "PHC0");
	f = evaluate_find(n, &th, "ptp.phc_sys_offset");
	assert_non_null(f);
	assert_contains(f->hint, "chronyc sources");
	/* expect_ptp "no": not judged */
	th.expect_ptp = EXPECT_NO;
	assert_null(evaluate_find(n, &th, "ptp.phc_sys_offset"));
	free(n);
}

static void test_rule_unsteered(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	ptp_slave(&n->obs, "HARDWARE");
	daemons(&n->obs, DAEMON_PTP4L, NULL); /* phc2sys died */
	const finding *f = evaluate_find(n, &th, "ptp.system_clock_unsteered");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_CRIT);
	assert_contains(f->message, "eth0");
	assert_contains(f->hint, "phc2sys -a -r");
	assert_contains(f->hint, "refclock PHC");

	daemons(&n->obs, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -a -r");
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_NTPD, NULL);
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	/* software timestamping: ptp4l steers CLOCK_REALTIME itself */
	ptp_slave(&n->obs, "SOFTWARE");
	daemons(&n->obs, DAEMON_PTP4L, NULL);
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	/* not following a master: nothing to steer from */
	ptp_slave(&n->obs, "HARDWARE");
	n->obs.ptp.ports[0].state = PTP_PORT_MASTER;
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	n->obs.ptp.ports[0].state = PTP_PORT_SLAVE;
	/* the process list unknown: no claim */
	n->obs.daemons.state = OBS_COMMAND_FAILED;
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	daemons(&n->obs, DAEMON_PTP4L, NULL);
	th.expect_ptp = EXPECT_NO;
	assert_null(evaluate_find(n, &th, "ptp.system_clock_unsteered"));
	free(n);
}

/* phc_ctl failing is a collection finding where a PHC is in use, never a
 * failed poll. */
static void test_collection_findings(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = new_node();
	ptp_slave(&n->obs, "HARDWARE");
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_PHC2SYS, "phc2sys -a -r");

	parse_fixture("synthetic-phc_ctl-permission-denied.txt", 255, &n->obs.phc);
	const finding *f = evaluate_find(n, &th, "collector.tool_failed");
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_WARN);
	assert_contains(f->message, "phc_ctl");
	assert_contains(f->hint, "--sudo");
	assert_true(n->reachable);

	parse_fixture("phc_ctl-3.1.1-no-such-device.txt", 255, &n->obs.phc);
	f = evaluate_find(n, &th, "collector.tool_failed");
	assert_non_null(f);
	assert_contains(f->message, "no such device");

	parse_text("synctop: phc_ctl eth0\n", "sh: 1: phc_ctl: not found\n", 127, &n->obs.phc);
	f = evaluate_find(n, &th, "collector.tool_missing");
	assert_non_null(f);
	assert_contains(f->message, "phc_ctl");

	/* not run, or no PHC on a software-timestamping port: nothing to say */
	parse_fixture("phc_ctl-not-run-no-iface.txt", 0, &n->obs.phc);
	assert_null(evaluate_find(n, &th, "collector.tool_failed"));
	assert_null(evaluate_find(n, &th, "collector.tool_missing"));
	ptp_slave(&n->obs, "SOFTWARE");
	daemons(&n->obs, DAEMON_PTP4L, NULL);
	parse_fixture("phc_ctl-3.1.1-lo-no-phc.txt", 255, &n->obs.phc);
	assert_null(evaluate_find(n, &th, "collector.tool_failed"));
	parse_text("synctop: phc_ctl eth0\n", "sh: 1: phc_ctl: not found\n", 127, &n->obs.phc);
	assert_null(evaluate_find(n, &th, "collector.tool_missing"));
	free(n);
}

/* ------------------------------------------------------------- outputs */

static void test_outputs(void **state)
{
	(void)state;
	node *n = new_node();
	ptp_slave(&n->obs, "HARDWARE");
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_PHC2SYS, "/usr/sbin/phc2sys -a -r");
	const collector *c = collector_find("phc_ctl");
	assert_non_null(c);
	size_t len;
	char *text = fixture_read("synthetic-phc_ctl-offset-4ms.txt", &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	observation fresh = n->obs;
	c->decode(&out, &fresh);
	free(text);
	thresholds th;
	thresholds_init_defaults(&th);
	node_update_observation(n, &fresh, &th);
	assert_true(history_latest(&n->history)->value[HISTORY_PHC_SYS_OFFSET_NS] == -4000000.0f);

	json_t *root = report_json_build(n, 1, NOW);
	json_t *jn = json_array_get(json_object_get(root, "nodes"), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(jn, "ptp"), "phc_sys_offset_ns")), -4000000);
	json_t *phc = json_object_get(jn, "phc");
	assert_true(json_is_null(json_object_get(phc, "error")));
	assert_string_equal(json_string_value(json_object_get(phc, "interface")), "eth0");
	assert_int_equal(json_integer_value(json_object_get(phc, "realtime_minus_phc_ns")), -37004000000LL);
	assert_int_equal(json_integer_value(json_object_get(phc, "phc_sys_offset_ns")), -4000000);
	assert_string_equal(json_string_value(json_object_get(phc, "system_clock_steered_by")), "phc2sys");
	assert_true(json_is_true(json_object_get(phc, "judged")));
	assert_true(json_is_false(json_object_get(phc, "approximate")));
	assert_int_equal(json_integer_value(json_object_get(phc, "phc_time_ns")), 1796301922996000000LL);
	json_decref(root);

	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_int_equal(report_prometheus_format(f, n, 1, NULL, NOW), 0);
	fclose(f);
	assert_contains(buf, "\nsynctop_ptp_phc_sys_offset_seconds{node=\"gpu1\"} -0.004\n");
	assert_contains(buf, "\nsynctop_part_up{node=\"gpu1\",part=\"phc\"} 1\n");
	free(buf);

	/* the drill-down: who steers, the offset, the plot */
	doc d;
	doc_init(&d);
	detail_doc_build(&d, n, NOW, 140, false);
	bool steer = false, off = false, plot = false;
	for (size_t i = 0; i < d.n; i++) {
		steer |= strstr(d.lines[i].text, "System clock by") && strstr(d.lines[i].text, "phc2sys (/usr/sbin/phc2sys -a -r)");
		off |= strstr(d.lines[i].text, "System - PHC") && strstr(d.lines[i].text, "-4.000 ms");
		plot |= strstr(d.lines[i].text, "System clock - PHC") != NULL;
	}
	assert_true(steer && off && plot);
	doc_free(&d);

	/* on NTP: shown, not judged */
	daemons(&n->obs, DAEMON_PTP4L | DAEMON_CHRONYD, NULL);
	chrony_selected(&n->obs, CHRONY_MODE_SERVER, "10.0.0.1");
	health_apply(n, &th);
	doc_init(&d);
	detail_doc_build(&d, n, NOW, 160, false);
	bool shown = false;
	for (size_t i = 0; i < d.n; i++) {
		shown |= strstr(d.lines[i].text, "-4.000 ms") && strstr(d.lines[i].text, "not judged");
	}
	assert_true(shown);
	doc_free(&d);

	/* not collected: no object, no series */
	parse_fixture("phc_ctl-not-run-no-iface.txt", 0, &n->obs.phc);
	root = report_json_build(n, 1, NOW);
	jn = json_array_get(json_object_get(root, "nodes"), 0);
	assert_true(json_is_null(json_object_get(jn, "phc")));
	assert_true(json_is_null(json_object_get(json_object_get(jn, "ptp"), "phc_sys_offset_ns")));
	json_decref(root);
	free(n);
}

/* The demo renderer prints each state so that decoding gives it back, and
 * 3.1.1's fallback with its own sign; the grid column shows the offset. */
static void test_demo_render_and_column(void **state)
{
	(void)state;
	const collector *c = collector_find("phc_ctl");
	assert_non_null(c->demo_render);
	static const char *const fixtures[] = {
		"synthetic-phc_ctl-offset-4ms.txt", "synthetic-phc_ctl-3.1.1-approximately-37s.txt",
		"synthetic-phc_ctl-4.4-approximately.txt", "synthetic-phc_ctl-permission-denied.txt",
		"phc_ctl-3.1.1-no-such-device.txt", "phc_ctl-3.1.1-lo-no-phc.txt", "phc_ctl-not-run-no-phc.txt",
	};
	static const int rcs[] = {0, 0, 0, 255, 255, 255, 0};
	observation *truth = calloc(1, sizeof *truth), *back = calloc(1, sizeof *back);
	assert_non_null(truth);
	assert_non_null(back);
	for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		observation_init(truth);
		parse_fixture(fixtures[i], rcs[i], &truth->phc);
		char o1[1024], e1[512], o2[1024], e2[512];
		text_sink so1, se1, so2, se2;
		text_sink_init(&so1, o1, sizeof o1);
		text_sink_init(&se1, e1, sizeof e1);
		int rc = c->demo_render(truth, "eth0", &so1, &se1);
		tool_output out = {.out = o1, .out_len = so1.len, .err = e1, .err_len = se1.len, .rc = rc};
		observation_init(back);
		c->decode(&out, back);
		if (back->phc.state != truth->phc.state) {
			fail_msg("%s: rendered as %s, decoded as %s", fixtures[i], obs_state_name(truth->phc.state),
				 obs_state_name(back->phc.state));
		}
		assert_true(back->phc.realtime_minus_phc_ns == truth->phc.realtime_minus_phc_ns);
		assert_true(back->phc.approximate == truth->phc.approximate);
		text_sink_init(&so2, o2, sizeof o2);
		text_sink_init(&se2, e2, sizeof e2);
		assert_int_equal(c->demo_render(back, "eth0", &so2, &se2), rc);
		assert_string_equal(o1, o2);
		assert_string_equal(e1, e2);
	}
	/* 3.1.1 prints the fallback as PHC - CLOCK_REALTIME */
	observation_init(truth);
	parse_fixture("synthetic-phc_ctl-3.1.1-approximately-37s.txt", 0, &truth->phc);
	char o[1024], e[256];
	text_sink so, se;
	text_sink_init(&so, o, sizeof o);
	text_sink_init(&se, e, sizeof e);
	c->demo_render(truth, "eth0", &so, &se);
	assert_contains(o, "approximately 37000000150ns\nsynctop: phc_ctl version 3.1.1\n");

	/* the grid column: the offset where measured, "-" where not */
	assert_int_equal(c->n_columns, 1);
	const grid_column *col = &c->columns[0];
	char cell[64] = "";
	ptp_slave(truth, "HARDWARE");
	phc_offset(truth, -4000000);
	assert_int_equal(col->cell(truth, cell, sizeof cell), GRID_CELL_VALUE);
	assert_string_equal(cell, "-4.000 ms");
	assert_true(col->has_data(truth));
	grid_sort_key key = {.numeric = true, .num = NAN};
	col->sort(truth, &key);
	assert_true(key.num == 4000000.0);
	truth->ptp.ptp_timescale = INT_UNKNOWN;
	assert_int_equal(col->cell(truth, cell, sizeof cell), GRID_CELL_UNKNOWN);
	parse_fixture("phc_ctl-not-run-no-iface.txt", 0, &truth->phc);
	assert_int_equal(col->cell(truth, cell, sizeof cell), GRID_CELL_NA);
	assert_false(col->has_data(truth));
	free(truth);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_approximately_31),
		cmocka_unit_test(test_approximately_sign_by_version),
		cmocka_unit_test(test_precise_offsets),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_phc2sys_from_ps),
		cmocka_unit_test(test_steering),
		cmocka_unit_test(test_offset_on_utc_timescale),
		cmocka_unit_test(test_rule_phc_sys_offset),
		cmocka_unit_test(test_rule_unsteered),
		cmocka_unit_test(test_collection_findings),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_demo_render_and_column),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
