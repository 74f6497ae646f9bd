/* test_daemons_parse.c - which daemons a ps listing shows, their PIDs and
 * ages (captures: tests/fixtures/ps-*.txt, ps-daemons.source.md), and
 * restarts from one poll to the next, through the model (node_update) and
 * the rule ptp.daemon_restarted; where each daemon runs and whether it may
 * set the clock, from the /proc block after the list
 * (tests/fixtures/daemons-places-*.txt, daemons-places.source.md). */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemons_parse.h"
#include "detail_doc.h"
#include "doc.h"
#include "fixture.h"
#include "health.h"
#include "node_update.h"

static daemons_obs parse(const char *text, int rc)
{
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = rc};
	daemons_obs d;
	daemons_parse(&out, &d);
	return d;
}

static void test_finds_daemons(void **state)
{
	(void)state;
	daemons_obs d = parse("systemd\nsshd\n  chronyd\nptp4l\nbash\nsystemd-timesyn\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_CHRONYD | DAEMON_PTP4L | DAEMON_TIMESYNCD);
}

static void test_exact_names_only(void **state)
{
	(void)state;
	/* prefixes and longer names must not count */
	daemons_obs d = parse("chrony\nchronyd-helper\nntpdate\nphc2sys\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_PHC2SYS);
}

static void test_last_line_without_newline(void **state)
{
	(void)state;
	daemons_obs d = parse("init\nntpd", 0);
	assert_int_equal(d.running, DAEMON_NTPD);
}

static void test_failures(void **state)
{
	(void)state;
	assert_int_equal(parse("", 127).state, OBS_TOOL_MISSING);
	assert_int_equal(parse("", 1).state, OBS_COMMAND_FAILED);
	assert_int_equal(parse("", 0).state, OBS_EMPTY);
	daemons_obs d = parse("\x1b[2J\xff\xfe\n\n\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, 0);
}

/* ps -C selected no daemon: it printed nothing and the probe says so */
static void test_none_selected(void **state)
{
	(void)state;
	daemons_obs d = parse("::none\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, 0);
	assert_int_equal(d.n_places, 0);
	/* -C's own lines: the daemons alone, right-aligned PIDs */
	d = parse("    612 1815211 chronyd\n   1204 1815190 ptp4l\n", 0);
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_CHRONYD | DAEMON_PTP4L);
}

static daemons_obs parse_fixture(const char *name)
{
	size_t len;
	char *text = fixture_read(name, &len);
	tool_output out = {.out = text, .out_len = len, .err = "", .err_len = 0, .rc = 0};
	daemons_obs d;
	daemons_parse(&out, &d);
	free(text);
	return d;
}

static const daemon_proc *proc(const daemons_obs *d, unsigned bit)
{
	return &d->procs[daemon_index(bit)];
}

static void test_pid_and_age(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("ps-pid-etimes-comm-daemons.txt");
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_CHRONYD | DAEMON_PTP4L | DAEMON_PHC2SYS);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->pid, 19503);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->age_s, 6);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->count, 1);
	assert_int_equal(proc(&d, DAEMON_CHRONYD)->pid, 19502);
	assert_int_equal(proc(&d, DAEMON_PHC2SYS)->pid, 19504);
	assert_true(isnan(proc(&d, DAEMON_PTP4L)->restarted_at));
	assert_int_equal(proc(&d, DAEMON_NTPD)->count, 0);
	assert_int_equal(proc(&d, DAEMON_NTPD)->age_s, -1);

	/* the fallback listing: names alone, no PID or age */
	d = parse_fixture("ps-comm-daemons.txt");
	assert_int_equal(d.running, DAEMON_CHRONYD | DAEMON_PTP4L | DAEMON_PHC2SYS);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->pid, 0);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->age_s, -1);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->count, 1);

	/* several instances (one ptp4l per NIC): the youngest speaks; a name
	 * with a blank; numbers that are not a PID and an age */
	d = parse("  700  5000 ptp4l\n  950    30 ptp4l\n  800  4000 ptp4l\n"
		  "  12 34 Web Content\n0 5 phc2sys\n 77 -3 chronyd\n 99 12 ntpd  \n", 0);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->count, 3);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->pid, 950);
	assert_int_equal(proc(&d, DAEMON_PTP4L)->age_s, 30);
	assert_int_equal(d.running & (DAEMON_PHC2SYS | DAEMON_CHRONYD), 0);
	assert_int_equal(proc(&d, DAEMON_NTPD)->pid, 99);
}

/* Two real captures 3 s apart: ptp4l killed and started again between. */
static void test_restart_by_younger_age(void **state)
{
	(void)state;
	daemons_obs before = parse_fixture("ps-pid-etimes-comm-daemons.txt");
	daemons_obs now = parse_fixture("ps-pid-etimes-comm-ptp4l-restarted.txt");
	daemons_track(&now, &before, 1000.0);
	assert_true(proc(&now, DAEMON_PTP4L)->restarted_now);
	assert_int_equal(proc(&now, DAEMON_PTP4L)->previous_pid, 19503);
	assert_int_equal(proc(&now, DAEMON_PTP4L)->pid, 19811);
	assert_true(proc(&now, DAEMON_PTP4L)->restarted_at == 1000.0);
	assert_false(proc(&now, DAEMON_PHC2SYS)->restarted_now);
	assert_true(isnan(proc(&now, DAEMON_PHC2SYS)->restarted_at));
	assert_false(proc(&now, DAEMON_CHRONYD)->restarted_now);

	/* the same PID, younger: the PID was reused by the new process */
	before = parse("100 5000 ptp4l\n", 0);
	now = parse("100 2 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_true(proc(&now, DAEMON_PTP4L)->restarted_now);

	/* another PID, older than the last one was (it had restarted just
	 * before the last poll): the PID says it */
	before = parse("100 1 phc2sys\n", 0);
	now = parse("230 3 phc2sys\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_true(proc(&now, DAEMON_PHC2SYS)->restarted_now);

	/* the same process, older: no restart; a second instance going away
	 * is not one either, a new instance appearing is (a start) */
	before = parse("100 50 ptp4l\n", 0);
	now = parse("100 52 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_false(proc(&now, DAEMON_PTP4L)->restarted_now);
	before = parse("100 50 ptp4l\n300 10 ptp4l\n", 0);
	now = parse("100 52 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_false(proc(&now, DAEMON_PTP4L)->restarted_now);
	before = parse("100 50 ptp4l\n", 0);
	now = parse("100 52 ptp4l\n400 1 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_true(proc(&now, DAEMON_PTP4L)->restarted_now);

	/* not running at the last poll, or no PIDs (fallback ps): nothing to
	 * compare */
	before = parse("100 50 chronyd\n", 0);
	now = parse("100 52 chronyd\n500 1 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_false(proc(&now, DAEMON_PTP4L)->restarted_now);
	before = parse("ptp4l\n", 0);
	now = parse("500 1 ptp4l\n", 0);
	daemons_track(&now, &before, 1.0);
	assert_false(proc(&now, DAEMON_PTP4L)->restarted_now);
}

/* One poll of a node: ps output and the node's own clock. */
static void poll(node *n, const char *ps, double at, double node_time, const thresholds *th)
{
	observation *obs = malloc(sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	obs->taken_at = at;
	obs->node_time = node_time;
	tool_output out = {.out = ps, .out_len = strlen(ps), .err = "", .err_len = 0, .rc = ps[0] ? 0 : 1};
	daemons_parse(&out, &obs->daemons);
	node_update_observation(n, obs, th);
	free(obs);
}

static const finding *restart_finding(const node *n)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, "ptp.daemon_restarted") == 0) {
			return &n->findings.items[i];
		}
	}
	return NULL;
}

/* Through the model: the first poll is never a restart, a clock step is
 * not one, a restart warns for daemon_restart_warn_s, chronyd's is recorded
 * but not judged, a failed ps in between loses nothing. */
static void test_restart_in_the_node(void **state)
{
	(void)state;
	thresholds th;
	thresholds_init_defaults(&th);
	assert_true(th.daemon_restart_warn_s == 600.0);
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	node_init(n, "node1");
	double t = 1796208000.0;

	/* first poll: ptp4l only 2 s old, never a restart */
	poll(n, "100 2 ptp4l\n200 2 phc2sys\n300 5000 chronyd\n", t, t, &th);
	assert_null(restart_finding(n));
	assert_true(isnan(proc(&n->obs.daemons, DAEMON_PTP4L)->restarted_at));

	/* the node's clock steps an hour forward and the client's too: the
	 * processes only grew older, no restart */
	poll(n, "100 4 ptp4l\n200 4 phc2sys\n300 5002 chronyd\n", t + 3602, t + 3602, &th);
	assert_null(restart_finding(n));
	/* and back */
	poll(n, "100 6 ptp4l\n200 6 phc2sys\n300 5004 chronyd\n", t + 4, t - 3600, &th);
	assert_null(restart_finding(n));

	/* phc2sys restarted (younger, another PID); chronyd too: recorded, not
	 * judged */
	poll(n, "100 8 ptp4l\n210 1 phc2sys\n310 1 chronyd\n", t + 6, t + 6, &th);
	const finding *f = restart_finding(n);
	assert_non_null(f);
	assert_int_equal(f->sev, SEVERITY_WARN);
	assert_non_null(strstr(f->message, "phc2sys restarted since the last poll (PID 210, was 200"));
	assert_true(proc(&n->obs.daemons, DAEMON_CHRONYD)->restarted_at == t + 6);
	int restarts = 0;
	for (int i = 0; i < n->findings.count; i++) {
		restarts += strcmp(n->findings.items[i].code, "ptp.daemon_restarted") == 0;
	}
	assert_int_equal(restarts, 1); /* chronyd's is not judged */
	assert_true(n->events.count >= 1);
	assert_non_null(strstr(node_event_at(n, n->events.count - 1)->text, "restarted"));

	/* a failed ps: still known, and compared with the last answer after */
	poll(n, "", t + 8, t + 8, &th);
	poll(n, "100 300 ptp4l\n210 293 phc2sys\n310 293 chronyd\n", t + 300, t + 300, &th);
	f = restart_finding(n);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "phc2sys restarted 5 min ago"));
	poll(n, "100 600 ptp4l\n210 599 phc2sys\n310 599 chronyd\n", t + 605, t + 605, &th);
	assert_non_null(restart_finding(n));
	poll(n, "100 602 ptp4l\n210 601 phc2sys\n310 601 chronyd\n", t + 606, t + 606, &th);
	assert_null(restart_finding(n)); /* 600 s after the poll that found it */

	/* a group that expects no PTP is not told */
	poll(n, "101 1 ptp4l\n210 602 phc2sys\n310 602 chronyd\n", t + 608, t + 608, &th);
	assert_non_null(restart_finding(n));
	th.expect_ptp = EXPECT_NO;
	health_apply(n, &th);
	assert_null(restart_finding(n));
	free(n);
}

static const daemon_place *place(const daemons_obs *d, int pid)
{
	for (int i = 0; i < d->n_places; i++) {
		if (d->places[i].pid == pid) {
			return &d->places[i];
		}
	}
	fail_msg("no place for PID %d", pid);
	return NULL;
}

/* Pure cgroup v2, a PTP pod under cri-o beside the host's timesyncd. */
static void test_places_v2_crio(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-v2-kubepods-crio.txt");
	assert_int_equal(d.state, OBS_OK);
	assert_int_equal(d.running, DAEMON_TIMESYNCD | DAEMON_PTP4L | DAEMON_PHC2SYS);
	assert_int_equal(d.n_places, 3);
	assert_int_equal(d.n_places_total, 3);
	assert_int_equal(d.n_phc2sys, 1); /* the args line is still phc2sys's */
	const daemon_place *t = place(&d, 812);
	assert_int_equal(t->bit, DAEMON_TIMESYNCD);
	assert_int_equal(t->container, CONTAINER_NONE);
	assert_string_equal(t->cgroup, "/system.slice/systemd-timesyncd.service");
	assert_int_equal(t->can_set, CAN_SET_TIME_YES); /* CapEff 0x2000000: CAP_SYS_TIME alone */
	const daemon_place *p = place(&d, 4021);
	assert_int_equal(p->bit, DAEMON_PTP4L);
	assert_int_equal(p->container, CONTAINER_KUBEPODS);
	assert_int_equal(p->runtime, CONTAINER_CRIO);
	assert_true(p->cgroup_read);
	assert_non_null(strstr(p->cgroup, "/crio-7d3b9a0c4e5f"));
	assert_int_equal(p->can_set, CAN_SET_TIME_YES);
	assert_int_equal(place(&d, 4077)->runtime, CONTAINER_CRIO);
}

/* Pure cgroup v2, a chronyd in a containerd pod given CAP_SYS_TIME. */
static void test_places_v2_containerd(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-v2-kubepods-containerd.txt");
	assert_int_equal(d.n_places, 2);
	assert_int_equal(place(&d, 690)->container, CONTAINER_NONE);
	assert_string_equal(place(&d, 690)->cgroup, "/system.slice/chrony.service");
	const daemon_place *c = place(&d, 51234);
	assert_int_equal(c->bit, DAEMON_CHRONYD);
	assert_int_equal(c->container, CONTAINER_KUBEPODS);
	assert_int_equal(c->runtime, CONTAINER_CONTAINERD);
	assert_int_equal(c->can_set, CAN_SET_TIME_YES); /* 0xaa0425fb: docker's default set + SYS_TIME */
	/* the youngest chronyd still speaks for the daemon */
	assert_int_equal(proc(&d, DAEMON_CHRONYD)->pid, 51234);
	assert_int_equal(proc(&d, DAEMON_CHRONYD)->count, 2);
}

/* cgroup v1 (and the hybrid's empty unified line): ntpd in docker with
 * docker's default capabilities, which lack CAP_SYS_TIME. */
static void test_places_v1_docker(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-v1-docker.txt");
	const daemon_place *h = place(&d, 602);
	assert_int_equal(h->container, CONTAINER_NONE);
	assert_string_equal(h->cgroup, "/system.slice/chrony.service");
	const daemon_place *n = place(&d, 9911);
	assert_int_equal(n->bit, DAEMON_NTPD);
	assert_int_equal(n->container, CONTAINER_DOCKER);
	assert_int_equal(n->runtime, CONTAINER_DOCKER);
	assert_string_equal(n->cgroup, "/docker/c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00");
	assert_int_equal(n->can_set, CAN_SET_TIME_NO);
}

/* A rootless podman container: CAP_SYS_TIME in its CapEff sets nothing,
 * its uid_map is not the initial namespace's. */
static void test_places_rootless(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-v2-libpod-rootless.txt");
	const daemon_place *c = place(&d, 70321);
	assert_int_equal(c->container, CONTAINER_LIBPOD);
	assert_int_equal(c->can_set, CAN_SET_TIME_NO);
	assert_int_equal(place(&d, 1544)->can_set, CAN_SET_TIME_YES);
}

/* lxc (an unprivileged LXD container), and a process whose /proc files
 * could not be read (it ended between ps and the read): unknown. */
static void test_places_lxc_and_unreadable(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-v2-lxc-unreadable.txt");
	assert_int_equal(place(&d, 701)->container, CONTAINER_NONE);
	assert_string_equal(place(&d, 701)->cgroup, "/init.scope");
	assert_int_equal(place(&d, 2210)->container, CONTAINER_LXC);
	assert_int_equal(place(&d, 2210)->can_set, CAN_SET_TIME_NO);
	const daemon_place *g = place(&d, 2290);
	assert_false(g->cgroup_read);
	assert_string_equal(g->cgroup, "");
	assert_int_equal(g->can_set, CAN_SET_TIME_UNKNOWN);
}

/* Without the /proc block (an older probe), places are known by PID only;
 * a "::proc" for a PID ps did not list, and stray "::" lines, change
 * nothing; more processes than kept are counted. */
static void test_places_edges(void **state)
{
	(void)state;
	daemons_obs d = parse("  5 9 chronyd\n::cg 0::/docker/x\n::proc 77\n::cap 2000000\n", 0);
	assert_int_equal(d.n_places, 1);
	assert_int_equal(d.places[0].can_set, CAN_SET_TIME_UNKNOWN);
	assert_false(d.places[0].cgroup_read);
	d = parse("chronyd\nptp4l\n", 0); /* the fallback listing: no PID, no place */
	assert_int_equal(d.n_places, 0);
	char many[1024] = "";
	for (int i = 1; i <= DAEMONS_MAX_PLACES + 3; i++) {
		char line[32];
		snprintf(line, sizeof line, "%d 1 ptp4l\n", i);
		strcat(many, line);
	}
	d = parse(many, 0);
	assert_int_equal(d.n_places, DAEMONS_MAX_PLACES);
	assert_int_equal(d.n_places_total, DAEMONS_MAX_PLACES + 3);
}

/* ------------------------------------------ time.daemon_in_container */

/* The findings of a node whose daemons section printed text (nothing
 * else collected). */
static node *judged_ptp(const char *text, const char *timestamping);

static node *judged(const char *text)
{
	return judged_ptp(text, NULL);
}

/* timestamping: ptp4l's port as pmc reports it ("SOFTWARE", "HARDWARE"),
 * NULL when pmc was not read. */
static node *judged_ptp(const char *text, const char *timestamping)
{
	thresholds th;
	thresholds_init_defaults(&th);
	node *n = malloc(sizeof *n);
	assert_non_null(n);
	node_init(n, "gpu1");
	observation *obs = malloc(sizeof *obs);
	assert_non_null(obs);
	observation_init(obs);
	obs->taken_at = 1796208000.0;
	obs->node_time = obs->taken_at;
	tool_output out = {.out = text, .out_len = strlen(text), .err = "", .err_len = 0, .rc = 0};
	daemons_parse(&out, &obs->daemons);
	if (timestamping) {
		obs->ptp.state = OBS_OK;
		obs->ptp.n_ports = 1;
		obs->ptp.ports[0].state = PTP_PORT_SLAVE;
		snprintf(obs->ptp.ports[0].timestamping, sizeof obs->ptp.ports[0].timestamping, "%s", timestamping);
	}
	node_update_observation(n, obs, &th);
	free(obs);
	return n;
}

static node *judged_fixture(const char *name)
{
	size_t len;
	char *text = fixture_read(name, &len);
	node *n = judged(text);
	free(text);
	return n;
}

static const finding *finding_of(const node *n, const char *code, severity sev)
{
	for (int i = 0; i < n->findings.count; i++) {
		if (strcmp(n->findings.items[i].code, code) == 0 && n->findings.items[i].sev == sev) {
			return &n->findings.items[i];
		}
	}
	return NULL;
}

static int count_of(const node *n, const char *code)
{
	int k = 0;
	for (int i = 0; i < n->findings.count; i++) {
		k += strcmp(n->findings.items[i].code, code) == 0;
	}
	return k;
}

/* chronyd in a pod with CAP_SYS_TIME beside the host's: crit, both named
 * with their cgroups, and said once (not time.conflicting_daemons too). */
static void test_container_beside_host(void **state)
{
	(void)state;
	node *n = judged_fixture("daemons-places-v2-kubepods-containerd.txt");
	const finding *f = finding_of(n, "time.daemon_in_container", SEVERITY_CRIT);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "chronyd (PID 51234, kubepods "
				"/kubepods.slice/.../cri-containerd-3f2e1d0c9b8a.scope) can set the clock beside "
				"chronyd (PID 690, /system.slice/chrony.service)"));
	assert_non_null(strstr(f->hint, "grep CapEff /proc/PID/status` (bit 25)."));
	assert_int_equal(count_of(n, "time.daemon_in_container"), 1);
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 0);
	assert_int_equal(n->status, NODE_STATUS_CRIT);
	free(n);

	/* phc2sys in a PTP pod steering the system clock, timesyncd on the host */
	n = judged_fixture("daemons-places-v2-kubepods-crio.txt");
	f = finding_of(n, "time.daemon_in_container", SEVERITY_CRIT);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "phc2sys (PID 4077, kubepods"));
	assert_non_null(strstr(f->message, "beside systemd-timesyncd (PID 812, /system.slice/systemd-timesyncd.service)"));
	free(n);
}

/* The pod's phc2sys feeds chronyd through SHM, or only its ptp4l runs
 * there (steering the PHC): no second master of the system clock. */
static void test_container_other_clock(void **state)
{
	(void)state;
	node *n = judged("812 9 systemd-timesyn\n4021 8 ptp4l\n4077 8 phc2sys\n"
			 "phc2sys /usr/sbin/phc2sys -s ens1f0 -E ntpshm -M 0\n"
			 "::proc 812\n::cg 0::/system.slice/systemd-timesyncd.service\n::cap 2000000\n::uid 0 0 4294967295\n"
			 "::proc 4021\n::cg 0::/kubepods.slice/kubepods-pod1.slice/crio-ab.scope\n::cap 2000000\n::uid 0 0 4294967295\n"
			 "::proc 4077\n::cg 0::/kubepods.slice/kubepods-pod1.slice/crio-ab.scope\n::cap 2000000\n::uid 0 0 4294967295\n");
	assert_int_equal(count_of(n, "time.daemon_in_container"), 0);
	free(n);
}

/* The pod's daemons are the node's only steering ones (a chrony DaemonSet,
 * OpenShift's PTP operator): no finding. */
static void test_container_only_master(void **state)
{
	(void)state;
	node *n = judged("4021 8 ptp4l\n4077 8 phc2sys\n9000 8 chronyd\n"
			 "::proc 4021\n::cg 0::/kubepods.slice/kubepods-pod1.slice/crio-ab.scope\n::cap 2000000\n::uid 0 0 4294967295\n"
			 "::proc 4077\n::cg 0::/kubepods.slice/kubepods-pod1.slice/crio-ab.scope\n::cap 2000000\n::uid 0 0 4294967295\n"
			 "::proc 9000\n::cg 0::/system.slice/chronyd.service\n::cap 0\n::uid 0 0 4294967295\n");
	/* the host's chronyd cannot set the clock (-x without CAP_SYS_TIME):
	 * only the pod's phc2sys steers */
	assert_int_equal(count_of(n, "time.daemon_in_container"), 0);
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 0);
	free(n);
}

/* Containerized daemons that cannot set the clock: docker's default
 * capabilities, a rootless container, an unprivileged lxc.  Before synctop
 * read /proc, the docker ntpd beside the host's chronyd was
 * time.conflicting_daemons crit. */
static void test_container_cannot_set(void **state)
{
	(void)state;
	node *n = judged_fixture("daemons-places-v1-docker.txt");
	const finding *f = finding_of(n, "time.daemon_in_container", SEVERITY_WARN);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "ntpd (PID 9911, docker /docker/c0ffee00c0ff) cannot set the clock"));
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 0);
	assert_int_equal(n->status, NODE_STATUS_WARN);
	free(n);
	n = judged_fixture("daemons-places-v2-libpod-rootless.txt");
	assert_non_null(finding_of(n, "time.daemon_in_container", SEVERITY_WARN));
	assert_null(finding_of(n, "time.daemon_in_container", SEVERITY_CRIT));
	free(n);
	n = judged_fixture("daemons-places-v2-lxc-unreadable.txt");
	f = finding_of(n, "time.daemon_in_container", SEVERITY_WARN);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "ntpd (PID 2210, lxc /lxc.payload.ntp1/.../ntpsec.service)"));
	free(n);
}

/* time.conflicting_daemons counts only daemons that may set the clock; an
 * unknown one (no /proc answer, a ps without PIDs) still counts. */
static void test_conflicting_counts_setters(void **state)
{
	(void)state;
	node *n = judged("10 9 chronyd\n20 9 ntpd\n::proc 10\n::cg 0::/system.slice/chronyd.service\n::cap 0\n"
			 "::uid 0 0 4294967295\n::proc 20\n::cg 0::/system.slice/ntpsec.service\n::cap 2000000\n"
			 "::uid 0 0 4294967295\n");
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 0);
	free(n);
	n = judged("10 9 chronyd\n20 9 ntpd\n");
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 1);
	free(n);
	n = judged("chronyd\nntpd\n");
	assert_int_equal(count_of(n, "time.conflicting_daemons"), 1);
	free(n);
}

/* The drill-down lists every daemon's process: PID, where, the cgroup
 * shortened, whether it may set the clock. */
static void test_drill_down_places(void **state)
{
	(void)state;
	node *n = judged_fixture("daemons-places-v2-kubepods-containerd.txt");
	doc d;
	doc_init(&d);
	detail_doc_build(&d, n, 1796208000.0, 140, false);
	bool title = false, host = false, pod = false;
	for (size_t i = 0; i < d.n; i++) {
		title |= strstr(d.lines[i].text, "Where the time daemons run") != NULL;
		host |= strstr(d.lines[i].text, "chronyd") && strstr(d.lines[i].text, "690") &&
			strstr(d.lines[i].text, "host") && strstr(d.lines[i].text, "/system.slice/chrony.service") &&
			strstr(d.lines[i].text, "yes");
		pod |= strstr(d.lines[i].text, "51234") && strstr(d.lines[i].text, "kubepods (containerd)") &&
		       strstr(d.lines[i].text, "/kubepods.slice/.../cri-containerd-3f2e1d0c9b8a.scope") &&
		       strstr(d.lines[i].text, "yes");
	}
	assert_true(title);
	assert_true(host);
	assert_true(pod);
	doc_free(&d);
	free(n);
}

/* The lab's real answer on this hybrid host (container_lab.sh): chronyd
 * in a kubepods scope and in a docker scope made in the unified,
 * name=systemd and pids trees, beside one in the lab's own cgroups. */
static void test_places_lab_capture(void **state)
{
	(void)state;
	daemons_obs d = parse_fixture("daemons-places-lab-hybrid.txt");
	assert_int_equal(d.running, DAEMON_CHRONYD);
	assert_int_equal(d.n_places, 3);
	const daemon_place *h = place(&d, 2), *pod = place(&d, 3), *dock = place(&d, 4);
	assert_int_equal(h->container, CONTAINER_NONE);
	assert_string_equal(h->cgroup, "/process_api/1150c6ee58018ff9b06da243e730a504");
	assert_int_equal(h->can_set, CAN_SET_TIME_YES);
	assert_int_equal(pod->container, CONTAINER_KUBEPODS);
	assert_int_equal(pod->runtime, CONTAINER_CONTAINERD);
	assert_int_equal(pod->can_set, CAN_SET_TIME_YES);
	assert_int_equal(dock->container, CONTAINER_DOCKER);
	assert_int_equal(dock->can_set, CAN_SET_TIME_NO); /* CapEff ...fcffffff: bit 25 dropped */
	node *n = judged_fixture("daemons-places-lab-hybrid.txt");
	assert_non_null(finding_of(n, "time.daemon_in_container", SEVERITY_CRIT));
	assert_non_null(finding_of(n, "time.daemon_in_container", SEVERITY_WARN));
	free(n);
}

/* ptp4l in a container with CAP_SYS_TIME beside the host's chronyd: it
 * steers its PHC under hardware timestamping (no second master of the
 * system clock), CLOCK_REALTIME itself under software timestamping (-S). */
static void test_container_ptp4l_clock(void **state)
{
	(void)state;
	static const char text[] =
		"600 9 chronyd\n4021 8 ptp4l\n"
		"::proc 600\n::cg 0::/system.slice/chronyd.service\n::cap 2000400\n::uid 0 0 4294967295\n"
		"::proc 4021\n::cg 0::/kubepods.slice/kubepods-pod1.slice/crio-ab.scope\n::cap 2000000\n"
		"::uid 0 0 4294967295\n";
	node *n = judged_ptp(text, "HARDWARE");
	assert_int_equal(count_of(n, "time.daemon_in_container"), 0);
	free(n);
	n = judged_ptp(text, "SOFTWARE");
	const finding *f = finding_of(n, "time.daemon_in_container", SEVERITY_CRIT);
	assert_non_null(f);
	assert_non_null(strstr(f->message, "ptp4l (PID 4021, kubepods /kubepods.slice/.../crio-ab.scope) can set the "
				"clock beside chronyd (PID 600"));
	free(n);
	/* pmc not read: its PHC is assumed */
	n = judged(text);
	assert_int_equal(count_of(n, "time.daemon_in_container"), 0);
	free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_daemons),
		cmocka_unit_test(test_exact_names_only),
		cmocka_unit_test(test_last_line_without_newline),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_none_selected),
		cmocka_unit_test(test_pid_and_age),
		cmocka_unit_test(test_restart_by_younger_age),
		cmocka_unit_test(test_restart_in_the_node),
		cmocka_unit_test(test_places_v2_crio),
		cmocka_unit_test(test_places_v2_containerd),
		cmocka_unit_test(test_places_v1_docker),
		cmocka_unit_test(test_places_rootless),
		cmocka_unit_test(test_places_lxc_and_unreadable),
		cmocka_unit_test(test_places_edges),
		cmocka_unit_test(test_container_beside_host),
		cmocka_unit_test(test_container_other_clock),
		cmocka_unit_test(test_container_only_master),
		cmocka_unit_test(test_container_cannot_set),
		cmocka_unit_test(test_conflicting_counts_setters),
		cmocka_unit_test(test_drill_down_places),
		cmocka_unit_test(test_places_lab_capture),
		cmocka_unit_test(test_container_ptp4l_clock),
	};
	return cmocka_run_group_tests_name("daemons_parse", tests, NULL, NULL);
}
