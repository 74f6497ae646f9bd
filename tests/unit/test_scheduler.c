/* test_scheduler.c - the poll state machine against a scripted transport:
 * first poll on connect, deadlines restart the shell, floods are cut off,
 * failures back off exponentially, refused host keys are never retried. */
#include <config.h>

#include <ev.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "node_settings.h"
#include "collector_period.h"
#include "probe.h"
#include "log.h"
#include "scheduler.h"
#include "thresholds.h"
#include "transport.h"

/* A transport whose behaviour each test scripts. */
typedef struct {
	transport base;
	struct ev_loop *loop;
	int starts, restarts, stops, sends;
	char last_request[128];
	bool running;
	enum { ANSWER, SILENT, FLOOD, FAIL_CONNECT, FAIL_HOSTKEY, STALL_CONNECT, PTP_ON_VETH, PTP_BOUNDARY } mode;
	char requests[4][128];  /* the first requests, for PTP_ON_VETH and PTP_BOUNDARY */
	double start_times[16];
	double clock_offset_s;  /* added to the client's clock in clock exchanges */
	int date_rc;            /* exit status of `date` in clock exchanges */
	int exchanges;          /* time-only requests answered */
	int asked_ntpq;         /* requests whose flags asked for ntpq ('N') */
} fake_transport;

static double real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A clock exchange: the time section alone, read from the client's clock
 * plus the node's offset. */
static void fake_answer_exchange(fake_transport *f, const char *nonce)
{
	char resp[512];
	f->exchanges++;
	int n = snprintf(resp, sizeof resp,
			 "@@synctop %s begin\n@@synctop %s section time\n%.9f\n\n@@synctop %s stderr\n\n"
			 "@@synctop %s rc %d\n@@synctop %s end\n",
			 nonce, nonce, f->date_rc == 0 ? real_now() + f->clock_offset_s : 0.0, nonce, nonce,
			 f->date_rc, nonce);
	f->base.events->data(f->base.owner, resp, (size_t)n);
}

static void fake_answer(fake_transport *f)
{
	char nonce[PROBE_NONCE_LEN + 1];
	char resp[1024];
	memcpy(nonce, f->last_request, PROBE_NONCE_LEN);
	nonce[PROBE_NONCE_LEN] = '\0';
	if (strncmp(f->last_request + PROBE_NONCE_LEN, " T ", 3) == 0) {
		fake_answer_exchange(f, nonce);
		return;
	}
	int n = snprintf(resp, sizeof resp,
			 "@@synctop ready\n@@synctop %s begin\n"
			 "@@synctop %s section time\n1796208285.806246273\n\n@@synctop %s stderr\n\n@@synctop %s rc 0\n"
			 "@@synctop %s end\n",
			 nonce, nonce, nonce, nonce, nonce);
	f->base.events->data(f->base.owner, resp, (size_t)n);
}

/* ptp4l follows its master on veth1 (PORT_PROPERTIES_NP as pmc prints it,
 * fixture pmc-port-properties-np-slave.txt); the default route is eth0, so
 * ethtool on "-" answers for eth0 (the real ethtool's first line).  As a
 * boundary clock it has a second port, MASTER on veth2, and ethtool answers
 * each interface of the list in its frame (ethtool_parse.h). */
static void fake_answer_ptp_on_veth(fake_transport *f, bool boundary)
{
	char nonce[PROBE_NONCE_LEN + 1], flags[8] = "", iface[64] = "";
	char resp[4096], eth[1536] = "", port2[512] = "";
	memcpy(nonce, f->last_request, PROBE_NONCE_LEN);
	nonce[PROBE_NONCE_LEN] = '\0';
	if (f->sends <= 4) {
		snprintf(f->requests[f->sends - 1], sizeof f->requests[0], "%s", f->last_request);
	}
	sscanf(f->last_request + PROBE_NONCE_LEN, " %7s %63s", flags, iface);
	if (strchr(flags, 'E')) {
		size_t used = (size_t)snprintf(eth, sizeof eth, "@@synctop %s section ethtool\n", nonce);
		char *save = NULL;
		for (char *name = strtok_r(iface, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
			const char *asked = strcmp(name, "-") == 0 ? "eth0" : name;
			used += (size_t)snprintf(eth + used, sizeof eth - used,
						 "@@ethtool iface %s\nTime stamping parameters for %s:\nCapabilities:\n"
						 "\tsoftware-transmit\n\tsoftware-receive\n\tsoftware-system-clock\n"
						 "PTP Hardware Clock: none\nHardware Transmit Timestamp Modes: none\n"
						 "Hardware Receive Filter Modes: none\n\n@@ethtool stderr\n\n@@ethtool rc 0\n",
						 asked, asked);
		}
		snprintf(eth + used, sizeof eth - used, "\n@@synctop %s stderr\n\n@@synctop %s rc 0\n", nonce, nonce);
	}
	if (boundary) {
		snprintf(port2, sizeof port2,
			 "\t1aed80.fffe.1a0b51-2 seq 0 RESPONSE MANAGEMENT PORT_PROPERTIES_NP \n"
			 "\t\tportIdentity            1aed80.fffe.1a0b51-2\n"
			 "\t\tportState               MASTER\n"
			 "\t\ttimestamping            SOFTWARE\n"
			 "\t\tinterface               veth2\n");
	}
	int n = snprintf(resp, sizeof resp,
			 "@@synctop %s begin\n"
			 "@@synctop %s section pmc\nsending: GET PORT_PROPERTIES_NP\n"
			 "\t1aed80.fffe.1a0b51-1 seq 0 RESPONSE MANAGEMENT PORT_PROPERTIES_NP \n"
			 "\t\tportIdentity            1aed80.fffe.1a0b51-1\n"
			 "\t\tportState               SLAVE\n"
			 "\t\ttimestamping            SOFTWARE\n"
			 "\t\tinterface               veth1\n%s\n@@synctop %s stderr\n\n@@synctop %s rc 0\n"
			 "%s@@synctop %s end\n",
			 nonce, nonce, port2, nonce, nonce, eth, nonce);
	f->base.events->data(f->base.owner, resp, (size_t)n);
}

static void fake_start(transport *t)
{
	fake_transport *f = (fake_transport *)t;
	if (f->starts < 16) {
		f->start_times[f->starts] = ev_now(f->loop);
	}
	f->starts++;
	if (f->mode == FAIL_CONNECT) {
		f->base.events->failed(f->base.owner, TRANSPORT_ERR_CONNECT, "connection refused");
		return;
	}
	if (f->mode == FAIL_HOSTKEY) {
		f->base.events->failed(f->base.owner, TRANSPORT_ERR_HOSTKEY, "host key has CHANGED");
		return;
	}
	if (f->mode == STALL_CONNECT) {
		return; /* a handshake that never finishes */
	}
	f->running = true;
	f->base.events->ready(f->base.owner);
}

static int fake_send(transport *t, const char *buf, size_t len)
{
	fake_transport *f = (fake_transport *)t;
	f->sends++;
	snprintf(f->last_request, sizeof f->last_request, "%.*s", (int)len, buf);
	char flags[16] = "";
	if (sscanf(f->last_request, "%*s %15s", flags) == 1 && strchr(flags, 'N')) {
		f->asked_ntpq++;
	}
	if (f->mode == ANSWER) {
		fake_answer(f);
	} else if (f->mode == PTP_ON_VETH || f->mode == PTP_BOUNDARY) {
		fake_answer_ptp_on_veth(f, f->mode == PTP_BOUNDARY);
	} else if (f->mode == FLOOD) {
		static char junk[64 * 1024];
		memset(junk, 'x', sizeof junk);
		for (int i = 0; i < 8 && f->running; i++) {
			f->base.events->data(f->base.owner, junk, sizeof junk);
		}
	}
	return 0;
}

static void fake_restart(transport *t)
{
	fake_transport *f = (fake_transport *)t;
	f->restarts++;
	f->running = true;
	f->base.events->ready(f->base.owner);
}

static void fake_stop(transport *t)
{
	fake_transport *f = (fake_transport *)t;
	f->stops++;
	f->running = false;
}

static void fake_destroy(transport *t)
{
	free(t);
}

static const transport_ops fake_ops = {fake_start, fake_send, fake_restart, fake_stop, fake_destroy, NULL};

static void fake_describe(const transport *t, char *buf, size_t len)
{
	(void)t;
	snprintf(buf, len, "to 10.2.0.7 port 22 through jump host bastion");
}

static const transport_ops fake_jump_ops = {fake_start, fake_send,    fake_restart,
					    fake_stop,  fake_destroy, fake_describe};

typedef struct {
	struct ev_loop *loop;
	scheduler *s;
	node *n;
	fake_transport *f;
	thresholds th;
	int all_done;
} fixture;

/* The clock check adds exchanges after polls; the tests that count polls
 * leave it off. */
static double clock_check_every_s = 0;
/* --period for the next fixture (NULL: every collector's own). */
static const collector_periods *fixture_periods;

static void on_all_done(void *ctx)
{
	fixture *fx = ctx;
	fx->all_done++;
	ev_break(fx->loop, EVBREAK_ALL);
}

static fixture *setup_with(bool once, int mode, double timeout, const node_settings *settings)
{
	fixture *fx = calloc(1, sizeof *fx);
	scheduler_config cfg;
	assert_non_null(fx);
	fx->loop = ev_loop_new(EVFLAG_AUTO);
	thresholds_init_defaults(&fx->th);
	scheduler_config_init(&cfg);
	cfg.once = once;
	cfg.interval_s = 0.05;
	cfg.poll_timeout_s = timeout;
	cfg.backoff_min_s = 0.01;
	cfg.backoff_max_s = 0.08;
	cfg.clock_check_every_s = clock_check_every_s;
	cfg.periods = fixture_periods;
	cfg.thresholds = &fx->th;
	cfg.on_all_done = on_all_done;
	cfg.ctx = fx;
	fx->s = scheduler_new(fx->loop, &cfg);
	fx->n = calloc(1, sizeof *fx->n);
	assert_non_null(fx->n);
	node_init(fx->n, "n1");
	sched_node *sn = scheduler_add(fx->s, fx->n, settings);
	fx->f = calloc(1, sizeof *fx->f);
	assert_non_null(fx->f);
	fx->f->base.ops = &fake_ops;
	fx->f->base.events = scheduler_transport_events();
	fx->f->base.owner = sn;
	fx->f->loop = fx->loop;
	fx->f->mode = mode;
	scheduler_attach(sn, &fx->f->base);
	return fx;
}

static fixture *setup(bool once, int mode, double timeout)
{
	return setup_with(once, mode, timeout, NULL);
}

static void teardown_fx(fixture *fx)
{
	scheduler_free(fx->s); /* destroys the transport */
	ev_loop_destroy(fx->loop);
	free(fx->n);
	free(fx);
}

static void on_stop(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void run_for(fixture *fx, double seconds)
{
	ev_timer stop;
	ev_timer_init(&stop, on_stop, seconds, 0);
	ev_timer_start(fx->loop, &stop);
	ev_run(fx->loop, 0);
	ev_timer_stop(fx->loop, &stop);
}

static void test_once_polls_on_connect(void **state)
{
	(void)state;
	fixture *fx = setup(true, ANSWER, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(fx->all_done, 1);
	assert_int_equal(fx->f->sends, 1);
	assert_true(fx->n->reachable);
	assert_true(fx->n->has_observation);
	assert_true(fabs(fx->n->obs.node_time - 1796208285.806246273) < 1e-6);
	assert_int_equal(fx->f->stops, 1); /* once mode closes the node when done */
	teardown_fx(fx);
}

/* Once mode: the poll, then CLOCK_CHECK_EXCHANGES time-only exchanges,
 * and the node's clock measured against ours. */
static void test_once_clock_check(void **state)
{
	(void)state;
	clock_check_every_s = 30;
	fixture *fx = setup(true, ANSWER, 1.0);
	clock_check_every_s = 0;
	fx->f->clock_offset_s = 2.0;
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(fx->all_done, 1);
	assert_int_equal(fx->f->sends, 1 + CLOCK_CHECK_EXCHANGES);
	assert_int_equal(fx->f->exchanges, CLOCK_CHECK_EXCHANGES);
	const clock_check_obs *cc = &fx->n->obs.clock;
	assert_int_equal(cc->state, OBS_OK);
	assert_int_equal(cc->exchanges, CLOCK_CHECK_EXCHANGES);
	/* the fake answers at once: the offset is 2 s within a round trip */
	assert_true(fabs(cc->offset_s - 2.0) < 0.05);
	assert_true(cc->uncertainty_s >= 0 && cc->uncertainty_s < 0.05);
	assert_true(fabs(cc->measured_at - real_now()) < 5.0);
	teardown_fx(fx);
}

/* A node whose `date` fails: the check says so, the poll still counts. */
static void test_clock_check_date_fails(void **state)
{
	(void)state;
	clock_check_every_s = 30;
	fixture *fx = setup(true, ANSWER, 1.0);
	clock_check_every_s = 0;
	fx->f->date_rc = 127;
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(fx->all_done, 1);
	assert_true(fx->n->reachable);
	assert_int_equal(fx->n->obs.clock.state, OBS_COMMAND_FAILED);
	assert_non_null(strstr(fx->n->obs.clock.error, "127"));
	assert_true(isnan(fx->n->obs.clock.offset_s));
	teardown_fx(fx);
}

/* Live mode: the check repeats no more often than asked, and the polls
 * between checks keep its result. */
static void test_live_clock_check_interval(void **state)
{
	(void)state;
	clock_check_every_s = 0.2;
	fixture *fx = setup(false, ANSWER, 1.0);
	clock_check_every_s = 0;
	fx->f->clock_offset_s = -0.5;
	scheduler_start(fx->s);
	ev_now_update(fx->loop);
	double t0 = ev_now(fx->loop);
	run_for(fx, 0.5);
	/* 0.5 s at 0.05 s: about 10 polls; a loaded machine (the parallel
	 * suite, ASan) runs timers late, never early: wait for three */
	for (int i = 0; i < 50 && fx->f->sends - fx->f->exchanges < 3; i++) {
		run_for(fx, 0.1);
	}
	ev_now_update(fx->loop);
	double elapsed = ev_now(fx->loop) - t0;
	int polls = fx->f->sends - fx->f->exchanges;
	int checks = fx->f->exchanges / CLOCK_CHECK_EXCHANGES;
	/* checks at 0, 0.2, 0.4 s ...: one per 0.2 s at most */
	assert_true(polls >= 3);
	assert_in_range(checks, 1, (int)(elapsed / 0.2) + 1);
	assert_true(checks < polls);
	assert_int_equal(fx->n->obs.clock.state, OBS_OK);
	assert_true(fabs(fx->n->obs.clock.offset_s + 0.5) < 0.05);
	teardown_fx(fx);
}

static void test_live_polls_every_interval(void **state)
{
	(void)state;
	fixture *fx = setup(false, ANSWER, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.5);
	/* 0.05 s interval over 0.5 s: about 10 polls; allow for a slow machine */
	assert_in_range(fx->f->sends, 2, 12); /* timers run late on a loaded machine, never early */
	assert_int_equal(fx->f->starts, 1); /* one connection for all polls */
	assert_int_equal(history_count(&fx->n->history), (size_t)fx->f->sends);
	assert_int_equal(fx->n->polls_completed, (unsigned long)fx->f->sends);
	teardown_fx(fx);
}

/* A transport that can say how it reaches the node (a jump host) has it
 * in the connection log's "connecting" and "reconnecting" lines: the
 * drill-down names the route of a node behind a bastion. */
static void test_connecting_names_the_route(void **state)
{
	(void)state;
	fixture *fx = setup(false, FAIL_CONNECT, 1.0);
	fx->f->base.ops = &fake_jump_ops;
	scheduler_start(fx->s);
	run_for(fx, 0.1);
	assert_true(fx->f->starts >= 2);
	assert_string_equal(node_event_at(fx->n, 0)->text, "connecting to 10.2.0.7 port 22 through jump host bastion");
	bool reconnect = false;
	for (unsigned i = 1; node_event_at(fx->n, i); i++) {
		reconnect |= strcmp(node_event_at(fx->n, i)->text,
				    "reconnecting to 10.2.0.7 port 22 through jump host bastion") == 0;
	}
	assert_true(reconnect);
	teardown_fx(fx);
}

static void test_deadline_restarts_shell(void **state)
{
	(void)state;
	fixture *fx = setup(false, SILENT, 0.1);
	scheduler_start(fx->s);
	run_for(fx, 0.45);
	assert_true(fx->f->restarts >= 1);
	assert_false(fx->n->reachable);
	assert_non_null(strstr(fx->n->error, "no answer to the probe within 0.1 s"));
	assert_int_equal(fx->n->status, NODE_STATUS_UNKNOWN);
	/* the connection log tells the story, oldest first */
	assert_string_equal(node_event_at(fx->n, 0)->text, "connecting");
	assert_string_equal(node_event_at(fx->n, 1)->text, "remote shell started");
	assert_non_null(strstr(node_event_at(fx->n, 2)->text, "no answer to the probe"));
	assert_true(fx->n->polls_failed >= 1);
	assert_int_equal(fx->n->polls_completed, 0);
	teardown_fx(fx);
}

static void test_flood_is_cut_off(void **state)
{
	(void)state;
	fixture *fx = setup(true, FLOOD, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.5);
	assert_int_equal(fx->all_done, 1);
	assert_non_null(strstr(fx->n->error, "more than 256 KiB"));
	assert_false(fx->n->reachable);
	teardown_fx(fx);
}

/* Live mode: a node that floods loses its connection, not just its shell
 * (closing a channel the node keeps filling only times out), and comes back
 * after a backoff. */
static void test_live_flood_drops_the_connection(void **state)
{
	(void)state;
	fixture *fx = setup(false, FLOOD, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.3);
	assert_int_equal(fx->f->restarts, 0);
	assert_true(fx->f->stops >= 1);
	assert_true(fx->f->starts >= 2);
	assert_non_null(strstr(fx->n->error, "more than 256 KiB"));
	assert_true(fx->n->polls_failed >= 1);
	teardown_fx(fx);
}

static int count_lines_with(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		n += strstr(line, needle) != NULL;
	}
	fclose(f);
	return n;
}

/* Sends the debug log to a new temporary file; path is the mkstemp template
 * and gets the file's name. */
static void log_to_temp(char *path)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(log_open(path), 0);
}

/* A node that is not connected has no poll in flight: its due times are not
 * "skipped" polls, and the first poll after connecting is due then. */
static void test_no_skipped_polls_while_connecting(void **state)
{
	(void)state;
	char path[] = "/tmp/synctop-test-sched-XXXXXX";
	log_to_temp(path);
	fixture *fx = setup(false, STALL_CONNECT, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.3);
	log_close();
	assert_int_equal(count_lines_with(path, "poll skipped"), 0);
	assert_int_equal(fx->f->sends, 0);
	teardown_fx(fx);
	unlink(path);
}

/* With a poll in flight longer than the interval, the due times that pass
 * are dropped (and logged); the answer is followed by one poll, not many. */
static void test_slow_answer_skips_due_polls(void **state)
{
	(void)state;
	char path[] = "/tmp/synctop-test-sched-XXXXXX";
	log_to_temp(path);
	fixture *fx = setup(false, SILENT, 10.0);
	scheduler_start(fx->s);
	run_for(fx, 0.4);
	log_close();
	assert_int_equal(fx->f->sends, 1);
	/* 0.4 s at 0.05 s: the first due time is kept, the others skipped */
	assert_true(count_lines_with(path, "poll skipped") >= 2);
	teardown_fx(fx);
	unlink(path);
}

static void test_backoff_delay(void **state)
{
	(void)state;
	/* no jitter at unit 0.5: 0.5, 1, 2, 4 ... capped at 60 */
	assert_float_equal(scheduler_backoff_delay(0, 0.5, 60, 0.5), 0.5, 1e-12);
	assert_float_equal(scheduler_backoff_delay(1, 0.5, 60, 0.5), 1.0, 1e-12);
	assert_float_equal(scheduler_backoff_delay(3, 0.5, 60, 0.5), 4.0, 1e-12);
	assert_float_equal(scheduler_backoff_delay(7, 0.5, 60, 0.5), 60.0, 1e-12);
	assert_float_equal(scheduler_backoff_delay(1000, 0.5, 60, 0.5), 60.0, 1e-12);
	/* the jitter spans +-25% */
	assert_float_equal(scheduler_backoff_delay(2, 0.5, 60, 0.0), 1.5, 1e-12);
	assert_float_equal(scheduler_backoff_delay(2, 0.5, 60, 1.0), 2.5, 1e-12);
	assert_float_equal(scheduler_backoff_delay(9, 0.5, 60, 1.0), 75.0, 1e-12);
}

static void test_failures_back_off(void **state)
{
	(void)state;
	fixture *fx = setup(false, FAIL_CONNECT, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.6);
	fake_transport *f = fx->f;
	/* Only lower bounds: a loaded machine runs timers late, never early.
	 * Waits are at least 0.75 x 0.01, 0.02, 0.04, 0.08, 0.08 ... */
	assert_true(f->starts >= 3);
	assert_true(f->starts <= 2 + (int)(0.6 / (0.75 * 0.08)) + 4);
	for (int i = 1; i < f->starts && i < 16; i++) {
		double want = 0.01 * (1 << (i - 1 < 3 ? i - 1 : 3));
		double gap = f->start_times[i] - f->start_times[i - 1];
		assert_true(gap >= 0.75 * want - 0.002);
	}
	assert_non_null(strstr(fx->n->error, "connect: connection refused"));
	teardown_fx(fx);
}

/* Every state change but the routine poll cycle is in --log with the node,
 * the two states and the reason; the poll cycle is there as its own lines. */
static void test_state_transitions_logged(void **state)
{
	(void)state;
	char path[] = "/tmp/synctop-test-sched-XXXXXX";
	log_to_temp(path);
	fixture *fx = setup(false, FAIL_CONNECT, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.2);
	teardown_fx(fx);
	fx = setup(false, SILENT, 10.0);
	scheduler_start(fx->s);
	run_for(fx, 0.1);
	log_close();
	assert_true(count_lines_with(path, ": scheduler idle -> connecting (started)") >= 1);
	assert_true(count_lines_with(path, ": scheduler connecting -> backoff (failed)") >= 1);
	assert_true(count_lines_with(path, ": scheduler backoff -> connecting (backoff over)") >= 1);
	assert_true(count_lines_with(path, ": scheduler connecting -> ready (remote shell started)") >= 1);
	assert_int_equal(count_lines_with(path, "ready -> waiting"), 0);
	teardown_fx(fx);
	unlink(path);
}

/* The first poll cannot know ptp4l's interface, so ethtool looks at the
 * default route's: the scheduler asks again at once on ptp4l's, and --once
 * reports that interface (issue: a lab node on a veth came out ok). */
static void test_ethtool_follows_ptp_interface(void **state)
{
	(void)state;
	fixture *fx = setup(true, PTP_ON_VETH, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(fx->all_done, 1);
	assert_int_equal(fx->f->sends, 2);
	assert_non_null(strstr(fx->f->requests[0], "E -"));
	assert_non_null(strstr(fx->f->requests[1], "E veth1"));
	assert_string_equal(fx->n->obs.nic.interface, "veth1");
	teardown_fx(fx);

	/* live: one follow-up, then the usual cadence (no loop) */
	fx = setup(false, PTP_ON_VETH, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.3);
	assert_true(fx->f->sends >= 3);
	assert_non_null(strstr(fx->f->requests[1], "E veth1"));
	assert_null(strchr(fx->f->requests[2] + PROBE_NONCE_LEN + 1, 'E'));
	teardown_fx(fx);
}

/* A boundary clock: the follow-up asks about every port's interface in one
 * request, and --once reports each (nic is the SLAVE port's). */
static void test_ethtool_follows_every_ptp_interface(void **state)
{
	(void)state;
	fixture *fx = setup(true, PTP_BOUNDARY, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(fx->all_done, 1);
	assert_int_equal(fx->f->sends, 2);
	assert_non_null(strstr(fx->f->requests[0], "E -"));
	assert_non_null(strstr(fx->f->requests[1], "E veth1,veth2\n"));
	assert_int_equal(fx->n->obs.n_nics, 2);
	assert_string_equal(fx->n->obs.nics[0].interface, "veth1");
	assert_string_equal(fx->n->obs.nics[1].interface, "veth2");
	assert_string_equal(fx->n->obs.nic.interface, "veth1");
	teardown_fx(fx);
}

static void test_refused_host_key_is_not_retried(void **state)
{
	(void)state;
	fixture *fx = setup(false, FAIL_HOSTKEY, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.3);
	assert_int_equal(fx->f->starts, 1);
	assert_non_null(strstr(fx->n->error, "host key: host key has CHANGED"));
	const node_event *last = node_event_at(fx->n, fx->n->events.count - 1);
	assert_non_null(last);
	assert_non_null(strstr(last->text, "not retried"));
	teardown_fx(fx);
}

/* A key refused after it worked (sshd restarting, LDAP down on the node) is
 * retried with backoff; a key refused from the start is not (above). */
static void test_auth_refused_after_success_is_retried(void **state)
{
	(void)state;
	fixture *fx = setup(false, ANSWER, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 0.1);
	assert_true(fx->n->polls_completed > 0);
	int starts = fx->f->starts;
	fx->f->base.events->failed(fx->f->base.owner, TRANSPORT_ERR_AUTH, "publickey refused");
	assert_false(fx->n->reachable);
	run_for(fx, 0.3);
	assert_true(fx->f->starts > starts); /* reconnected after the backoff */
	assert_true(fx->n->reachable);
	teardown_fx(fx);
}

static void test_event_log_keeps_the_newest(void **state)
{
	(void)state;
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "n");
	assert_null(node_event_at(n, 0));
	for (int i = 0; i < NODE_EVENTS + 5; i++) {
		node_log_event(n, i, "event %d", i);
	}
	assert_int_equal(n->events.count, NODE_EVENTS);
	assert_string_equal(node_event_at(n, 0)->text, "event 5");
	assert_string_equal(node_event_at(n, NODE_EVENTS - 1)->text, "event 20");
	assert_null(node_event_at(n, NODE_EVENTS));
	free(n);
}

/* A node's own settings beat the scheduler_config's: its pmc_sudo and iface
 * go into the request. */
static void test_node_settings_drive_the_probe(void **state)
{
	(void)state;
	fixture *fx = setup(true, ANSWER, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	char flags[8] = "", iface[32] = "";
	assert_int_equal(sscanf(fx->f->last_request, "%*s %7s %31s", flags, iface), 2);
	assert_null(strchr(flags, 'S'));
	assert_string_equal(iface, "-"); /* scheduler_config: no sudo, no iface */
	teardown_fx(fx);

	node_settings ns;
	node_settings_init(&ns);
	ns.pmc_sudo = true;
	snprintf(ns.iface, sizeof ns.iface, "ens9");
	fx = setup_with(true, ANSWER, 1.0, &ns);
	scheduler_start(fx->s);
	run_for(fx, 1.0);
	assert_int_equal(sscanf(fx->f->last_request, "%*s %7s %31s", flags, iface), 2);
	assert_non_null(strchr(flags, 'S'));
	assert_string_equal(iface, "ens9");
	teardown_fx(fx);
}

/* --period ntpq=SEC: ntpq is asked every SEC seconds, not every poll and
 * not once a minute (its own period); in between the request leaves it out. */
static void test_period_override(void **state)
{
	(void)state;
	fixture *fx = setup(false, ANSWER, 1.0);
	scheduler_start(fx->s);
	run_for(fx, 1.3);
	assert_true(fx->f->sends > 10);
	assert_int_equal(fx->f->asked_ntpq, 1); /* the first poll only: 60 s */
	teardown_fx(fx);

	collector_periods p;
	char why[256];
	memset(&p, 0, sizeof p);
	assert_int_equal(collector_period_parse("ntpq=1", &p, why, sizeof why), 0);
	fixture_periods = &p;
	fx = setup(false, ANSWER, 1.0);
	fixture_periods = NULL;
	scheduler_start(fx->s);
	run_for(fx, 2.3);
	assert_true(fx->f->sends > 10);
	/* at 0 s, after 1 s and after 2 s (a loaded machine's late timers
	 * may miss the third), never every poll */
	assert_in_range(fx->f->asked_ntpq, 2, 3);
	assert_true(fx->f->asked_ntpq < fx->f->sends);
	teardown_fx(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once_polls_on_connect),
		cmocka_unit_test(test_period_override),
		cmocka_unit_test(test_once_clock_check),
		cmocka_unit_test(test_clock_check_date_fails),
		cmocka_unit_test(test_live_clock_check_interval),
		cmocka_unit_test(test_live_polls_every_interval),
		cmocka_unit_test(test_deadline_restarts_shell),
		cmocka_unit_test(test_connecting_names_the_route),
		cmocka_unit_test(test_flood_is_cut_off),
		cmocka_unit_test(test_live_flood_drops_the_connection),
		cmocka_unit_test(test_no_skipped_polls_while_connecting),
		cmocka_unit_test(test_slow_answer_skips_due_polls),
		cmocka_unit_test(test_backoff_delay),
		cmocka_unit_test(test_failures_back_off),
		cmocka_unit_test(test_state_transitions_logged),
		cmocka_unit_test(test_ethtool_follows_ptp_interface),
		cmocka_unit_test(test_ethtool_follows_every_ptp_interface),
		cmocka_unit_test(test_refused_host_key_is_not_retried),
		cmocka_unit_test(test_auth_refused_after_success_is_retried),
		cmocka_unit_test(test_event_log_keeps_the_newest),
		cmocka_unit_test(test_node_settings_drive_the_probe),
	};
	return cmocka_run_group_tests_name("scheduler", tests, NULL, NULL);
}
