/* scheduler.c - per-node poll timers, deadlines, backoff and response handling. */
#include <config.h>

#include "scheduler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bytebuf.h"
#include "collector.h"
#include "log.h"
#include "node_update.h"
#include "sanitize.h"
#include "probe.h"
#include "probe_decode.h"
#include "walltime.h"
#include "xalloc.h"

typedef enum {
	SN_IDLE,        /* not started / stopped */
	SN_CONNECTING,  /* transport starting */
	SN_READY,       /* shell up, no poll in flight */
	SN_WAITING,     /* request sent, collecting the answer */
	SN_CLOCK,       /* clock exchange sent, collecting its answer */
	SN_BACKOFF,     /* failed; reconnect when the timer fires */
	SN_REFUSED,     /* host key refused: never retried on our own */
	SN_DONE,        /* once mode: finished */
	SN_UNPOLLABLE,
	SN_STATE_COUNT
} sn_state;

static const char *const sn_state_names[] = {
	[SN_IDLE] = "idle",
	[SN_CONNECTING] = "connecting",
	[SN_READY] = "ready",
	[SN_WAITING] = "waiting",
	[SN_CLOCK] = "clock check",
	[SN_BACKOFF] = "backoff",
	[SN_REFUSED] = "refused",
	[SN_DONE] = "done",
	[SN_UNPOLLABLE] = "unpollable",
};
_Static_assert(sizeof sn_state_names / sizeof sn_state_names[0] == SN_STATE_COUNT,
	       "one name per scheduler state");

struct sched_node {
	scheduler *s;
	node *model;
	transport *t;
	sn_state state;
	ev_timer poll_timer;
	ev_timer deadline;
	ev_timer backoff;
	char nonce[PROBE_NONCE_LEN + 1];
	bytebuf answer;            /* response bytes until the end marker */
	bool discarding;           /* over the cap: drop until the shell restarts */
	double sent_at;
	double due_at;             /* loop time the poll in flight fell due */
	double pending_due;        /* ... and the one waiting to be sent, 0 = none */
	int failures;              /* consecutive, for the backoff */
	unsigned asked;            /* PROBE_FLAG_* of the poll in flight */
	bool recheck_sent;         /* the poll in flight re-asks the periodic collectors */
	double *last_run;          /* per registry entry: loop time a periodic collector last ran, 0 = never */
	bool poll_due;             /* a poll was due while not ready */
	/* The independent clock check (observation.h clock_check_obs). */
	int exchanges_left;        /* of the check in progress */
	double exchange_sent_wall; /* client CLOCK_REALTIME when the exchange was sent */
	clock_check_obs clock;     /* the check in progress: best exchange so far */
	double last_clock_check;   /* loop time the last check finished, 0 = never */
	bool has_settings;         /* else the scheduler_config's apply */
	node_settings settings;
};

struct scheduler {
	struct ev_loop *loop;
	scheduler_config cfg;
	sched_node **nodes;
	size_t n, cap;
	bool paused;
	bool started;
	size_t pending;           /* once mode: nodes not finished */
};

static void send_poll(sched_node *sn);
static void send_exchange(sched_node *sn);
static void retry_later(sched_node *sn, const char *why);

void scheduler_config_init(scheduler_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->interval_s = 2.0;
	cfg->poll_timeout_s = 10.0;
	cfg->backoff_min_s = 0.5;
	cfg->backoff_max_s = 60.0;
	cfg->clock_check_every_s = 30.0;
}

double scheduler_backoff_delay(int failures, double min_s, double max_s, double unit)
{
	double delay = min_s * pow(2.0, failures < 16 ? failures : 16);
	if (delay > max_s) {
		delay = max_s;
	}
	/* +-25%: nodes that failed together (a switch reboot) come back spread out */
	return delay * (0.75 + 0.5 * unit);
}

static double jitter(double base, double spread)
{
	/* uniform in [base * (1 - spread), base * (1 + spread)] */
	return base * (1.0 - spread + 2.0 * spread * ((double)random() / (double)RAND_MAX));
}

static void notify(sched_node *sn)
{
	if (sn->s->cfg.on_update) {
		sn->s->cfg.on_update(sn->s->cfg.ctx, sn->model);
	}
}

/* The request bits of every periodic collector. */
static unsigned periodic_bits(void)
{
	unsigned bits = 0;
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (collector_registry[i]->cadence == COLLECT_PERIODIC) {
			bits |= collector_registry[i]->request_bit;
		}
	}
	return bits;
}

/* The routine poll cycle, in --log already as its "poll complete" and
 * "clock check" lines. */
static bool routine_transition(sn_state from, sn_state to)
{
	bool busy_from = from == SN_WAITING || from == SN_CLOCK;
	bool busy_to = to == SN_WAITING || to == SN_CLOCK;
	return (from == SN_READY && busy_to) || (busy_from && to == SN_READY) || (busy_from && busy_to);
}

/* The only way to change a node's scheduler state: every transition but the
 * routine poll cycle is in --log with its reason. */
static void set_state(sched_node *sn, sn_state to, const char *reason)
{
	if (sn->state == to) {
		return;
	}
	if (!routine_transition(sn->state, to)) {
		log_printf("%s: scheduler %s -> %s (%s)", sn->model->host, sn_state_names[sn->state],
			   sn_state_names[to], reason);
	}
	sn->state = to;
}

static void finish_once(sched_node *sn)
{
	scheduler *s = sn->s;
	if (!s->cfg.once || sn->state == SN_DONE) {
		return;
	}
	ev_timer_stop(s->loop, &sn->poll_timer);
	ev_timer_stop(s->loop, &sn->deadline);
	ev_timer_stop(s->loop, &sn->backoff);
	if (sn->t) {
		transport_stop(sn->t);
	}
	set_state(sn, SN_DONE, "once mode: finished");
	if (s->pending > 0 && --s->pending == 0 && s->cfg.on_all_done) {
		s->cfg.on_all_done(s->cfg.ctx);
	}
}

/* Record a connection event in the node's log (for the drill-down) and in the
 * debug log.  Messages may hold remote text: made one printable line first. */
static void event(sched_node *sn, const char *msg)
{
	char clean[NODE_EVENT_LEN];
	sanitize_text(msg, strlen(msg), clean, sizeof clean, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
	node_log_event(sn->model, walltime_now(), "%s", clean);
	log_printf("%s: %s", sn->model->host, clean);
}

/* "connecting" / "reconnecting", with the route when the transport has one
 * (a node behind a bastion: the drill-down says which jump hosts it goes
 * through before anything fails there). */
static void connecting_event(sched_node *sn, const char *what)
{
	char route[NODE_EVENT_LEN - 16], msg[NODE_EVENT_LEN];
	transport_describe(sn->t, route, sizeof route);
	snprintf(msg, sizeof msg, "%s%s%s", what, route[0] ? " " : "", route);
	event(sn, msg);
}

static const thresholds *node_thresholds(const sched_node *sn)
{
	return sn->has_settings ? &sn->settings.th : sn->s->cfg.thresholds;
}

static void set_node_error(sched_node *sn, const char *msg)
{
	node_update_unreachable(sn->model, msg, node_thresholds(sn));
}

/* The poll in flight is lost (hung, flooding): once mode is done with the
 * node; live mode drops the shell and starts a fresh one. */
static void abandon_poll(sched_node *sn)
{
	bytebuf_clear(&sn->answer);
	if (sn->s->cfg.once) {
		finish_once(sn);
		return;
	}
	set_state(sn, SN_CONNECTING, "shell restart");
	transport_restart_shell(sn->t);
}

/* ------------------------------------------------------- transport events */

static void on_ready(void *owner)
{
	sched_node *sn = owner;
	if (sn->state == SN_DONE) {
		return; /* once mode finished this node while the shell was starting */
	}
	set_state(sn, SN_READY, "remote shell started");
	bytebuf_clear(&sn->answer);
	sn->discarding = false;
	event(sn, "remote shell started");
	/* Poll straight away on a fresh connection: the operator is waiting. */
	send_poll(sn);
}

/* The drill-down shows what the node really printed, decodable or not. */
static void keep_raw(node *n, const bytebuf *answer)
{
	size_t len = answer->len < NODE_RAW_LEN ? answer->len : NODE_RAW_LEN;
	memcpy(n->last_raw, answer->data, len);
	n->last_raw_len = len;
	n->last_raw_truncated = answer->len > NODE_RAW_LEN;
}

/* The node is ready again: finish it (once mode) or send a poll that fell
 * due meanwhile. */
static void after_answer(sched_node *sn)
{
	finish_once(sn);
	if (sn->poll_due && sn->state == SN_READY) {
		sn->poll_due = false;
		send_poll(sn);
	}
}

/* --------------------------------------------------- the clock check */

static bool clock_check_due(const sched_node *sn)
{
	const scheduler_config *cfg = &sn->s->cfg;
	if (cfg->clock_check_every_s <= 0) {
		return false;
	}
	return cfg->once || sn->last_clock_check == 0 ||
	       ev_now(sn->s->loop) - sn->last_clock_check >= cfg->clock_check_every_s;
}

static void start_clock_check(sched_node *sn)
{
	clock_check_obs_init(&sn->clock);
	sn->exchanges_left = CLOCK_CHECK_EXCHANGES;
	send_exchange(sn);
}

static void finish_clock_check(sched_node *sn)
{
	node *n = sn->model;
	sn->last_clock_check = ev_now(sn->s->loop);
	if (sn->clock.exchanges > 0) {
		sn->clock.state = OBS_OK;
		log_printf("%s: clock check offset_s=%.6f uncertainty_s=%.6f exchanges=%d", n->host,
			   sn->clock.offset_s, sn->clock.uncertainty_s, sn->clock.exchanges);
	} else if (sn->clock.state == OBS_NOT_COLLECTED) {
		sn->clock.state = OBS_GARBAGE;
		snprintf(sn->clock.error, sizeof sn->clock.error, "no exchange returned the node's time");
	}
	node_update_clock_check(n, &sn->clock, node_thresholds(sn));
	notify(sn);
	after_answer(sn);
}

/* One exchange answered: keep it if its round trip is the shortest yet
 * (the smaller the round trip, the less room for asymmetry). */
static void complete_exchange(sched_node *sn)
{
	double received = walltime_now();
	probe_response resp;
	ev_timer_stop(sn->s->loop, &sn->deadline);
	set_state(sn, SN_READY, "clock exchange answered");
	if (probe_split(sn->answer.data, sn->answer.len, sn->nonce, &resp) == PROBE_COMPLETE) {
		const probe_section *sec = probe_section_find(&resp, "time");
		double node_time = sec && sec->rc == 0 ? probe_decode_node_time(sec->out, sec->out_len) : NAN;
		double rtt = received - sn->exchange_sent_wall;
		if (isfinite(node_time) && rtt >= 0) {
			sn->clock.exchanges++;
			if (!(rtt / 2 >= sn->clock.uncertainty_s)) { /* NAN: the first one */
				sn->clock.offset_s = node_time - (sn->exchange_sent_wall + received) / 2;
				sn->clock.uncertainty_s = rtt / 2;
				sn->clock.measured_at = received;
			}
		} else if (sec && sec->rc != 0) {
			sn->clock.state = OBS_COMMAND_FAILED;
			snprintf(sn->clock.error, sizeof sn->clock.error, "date +%%s.%%N failed with status %d",
				 sec->rc);
		}
	}
	bytebuf_clear(&sn->answer);
	if (--sn->exchanges_left > 0) {
		send_exchange(sn);
		return;
	}
	finish_clock_check(sn);
}

static void send_exchange(sched_node *sn)
{
	scheduler *s = sn->s;
	char line[64];
	probe_nonce_generate(sn->nonce);
	if (probe_request_format(line, sizeof line, sn->nonce, PROBE_FLAG_TIME_ONLY, NULL) < 0) {
		finish_clock_check(sn);
		return;
	}
	bytebuf_clear(&sn->answer);
	set_state(sn, SN_CLOCK, "clock exchange sent");
	ev_timer_set(&sn->deadline, s->cfg.poll_timeout_s, 0);
	ev_timer_start(s->loop, &sn->deadline);
	sn->exchange_sent_wall = walltime_now();
	if (transport_send(sn->t, line, strlen(line)) != 0) {
		ev_timer_stop(s->loop, &sn->deadline);
		set_state(sn, SN_CONNECTING, "send failed");
	}
}

/* ------------------------------------------------------- the answer */

static void complete_poll(sched_node *sn)
{
	scheduler *s = sn->s;
	node *n = sn->model;
	observation *obs = xmalloc(sizeof *obs);
	char err[256] = "";

	ev_timer_stop(s->loop, &sn->deadline);
	set_state(sn, SN_READY, "poll answered");
	keep_raw(n, &sn->answer);
	observation_init(obs);
	if (probe_decode(sn->answer.data, sn->answer.len, sn->nonce, obs, err, sizeof err) != 0) {
		set_node_error(sn, err);
		free(obs);
		bytebuf_clear(&sn->answer);
		notify(sn);
		finish_once(sn);
		return;
	}
	obs->taken_at = walltime_now();
	obs->rtt_s = ev_now(s->loop) - sn->sent_at;
	log_printf("%s: poll complete rtt_s=%.6f bytes=%zu due=%.6f sent=%.6f", n->host, obs->rtt_s,
		   sn->answer.len, sn->due_at, sn->sent_at);
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (sn->asked & collector_registry[i]->request_bit &&
		    collector_registry[i]->cadence == COLLECT_PERIODIC) {
			sn->last_run[i] = sn->sent_at;
		}
	}
	node_update_observation(n, obs, node_thresholds(sn));
	free(obs);
	sn->failures = 0;
	bytebuf_clear(&sn->answer);
	/* ethtool looked at the default route's interface before ptp4l's was
	 * known: ask again at once, on ptp4l's (one follow-up, and only after a
	 * poll that ran every periodic collector, as the first one does) */
	const char *iface = sn->has_settings ? sn->settings.iface : s->cfg.iface;
	unsigned periodic = periodic_bits();
	bool recheck = !sn->recheck_sent && !iface[0] && periodic != 0 &&
		       (sn->asked & periodic) == periodic && node_update_nic_elsewhere(n);
	sn->recheck_sent = recheck;
	if (recheck) {
		log_printf("%s: periodic collectors asked again on the interface ptp4l reports", n->host);
		for (size_t i = 0; i < collector_registry_count; i++) {
			sn->last_run[i] = 0;
		}
		notify(sn);
		send_poll(sn);
		return;
	}
	notify(sn);
	if (clock_check_due(sn)) {
		start_clock_check(sn);
		return;
	}
	after_answer(sn);
}

static void on_data(void *owner, const char *data, size_t len)
{
	sched_node *sn = owner;
	if ((sn->state != SN_WAITING && sn->state != SN_CLOCK) || sn->discarding) {
		return; /* the ready banner, or leftovers of an abandoned poll */
	}
	if (sn->answer.len + len > SCHEDULER_MAX_OUTPUT) {
		char msg[160];
		snprintf(msg, sizeof msg, "the node sent more than %d KiB in one poll; output discarded",
			 SCHEDULER_MAX_OUTPUT / 1024);
		sn->discarding = true;
		ev_timer_stop(sn->s->loop, &sn->deadline);
		sn->model->polls_failed++;
		set_node_error(sn, msg);
		notify(sn);
		bytebuf_clear(&sn->answer);
		/* A channel the node keeps filling cannot be closed politely (the
		 * close only times out): drop the connection and come back later. */
		transport_stop(sn->t);
		if (sn->s->cfg.once) {
			event(sn, msg);
			finish_once(sn);
			return;
		}
		retry_later(sn, msg);
		return;
	}
	bytebuf_append(&sn->answer, data, len);
	if (probe_find_end(sn->answer.data, sn->answer.len, sn->nonce) != 0) {
		if (sn->state == SN_CLOCK) {
			complete_exchange(sn);
		} else {
			complete_poll(sn);
		}
	}
}

static const char *error_kind_text(transport_error kind)
{
	switch (kind) {
	case TRANSPORT_ERR_RESOLVE: return "resolve";
	case TRANSPORT_ERR_CONNECT: return "connect";
	case TRANSPORT_ERR_HANDSHAKE: return "ssh handshake";
	case TRANSPORT_ERR_HOSTKEY: return "host key";
	case TRANSPORT_ERR_AUTH: return "auth";
	case TRANSPORT_ERR_CHANNEL: return "remote shell";
	case TRANSPORT_ERR_LOST: return "connection lost";
	}
	return "error";
}

/* Reconnect after a backoff that grows with each consecutive failure. */
static void retry_later(sched_node *sn, const char *why)
{
	scheduler *s = sn->s;
	double delay = scheduler_backoff_delay(sn->failures, s->cfg.backoff_min_s, s->cfg.backoff_max_s,
					       (double)random() / (double)RAND_MAX);
	sn->failures++;
	set_state(sn, SN_BACKOFF, "failed");
	sn->poll_due = false; /* the next connection polls at once */
	sn->pending_due = 0;
	char note[NODE_ERROR_LEN + 48];
	snprintf(note, sizeof note, "%s; reconnecting in %.1f s", why, delay);
	event(sn, note);
	ev_timer_set(&sn->backoff, delay, 0);
	ev_timer_start(s->loop, &sn->backoff);
}

static void on_failed(void *owner, transport_error kind, const char *message)
{
	sched_node *sn = owner;
	scheduler *s = sn->s;
	char msg[NODE_ERROR_LEN];

	ev_timer_stop(s->loop, &sn->deadline);
	snprintf(msg, sizeof msg, "%s: %s", error_kind_text(kind), message);
	set_node_error(sn, msg);
	sn->model->polls_failed++;
	bytebuf_clear(&sn->answer);
	notify(sn);

	/* A key that was accepted before and is refused now is most likely the
	 * node's trouble (sshd restarting, its directory service down), not a
	 * wrong key: retried with the growing backoff, never given up. */
	bool refused_after_success = kind == TRANSPORT_ERR_AUTH && sn->model->polls_completed > 0;
	if (refused_after_success && !s->cfg.once) {
		retry_later(sn, msg);
		return;
	}
	if (kind == TRANSPORT_ERR_HOSTKEY || kind == TRANSPORT_ERR_AUTH) {
		/* Retrying cannot fix these and would hammer the node's sshd. */
		event(sn, msg);
		event(sn, "not retried: fix the cause, then restart synctop");
		set_state(sn, SN_REFUSED, "refused, not retried");
		if (s->cfg.once) {
			set_state(sn, SN_BACKOFF, "refused in once mode"); /* let finish_once account for it */
			finish_once(sn);
		}
		return;
	}
	if (s->cfg.once) {
		event(sn, msg);
		finish_once(sn);
		return;
	}
	retry_later(sn, msg);
}

static const transport_events events = {
	.ready = on_ready,
	.data = on_data,
	.failed = on_failed,
};

const transport_events *scheduler_transport_events(void)
{
	return &events;
}

/* ----------------------------------------------------------------- timers */

static void send_poll(sched_node *sn)
{
	scheduler *s = sn->s;
	char line[128];
	unsigned flags = 0;
	const char *iface = sn->has_settings ? sn->settings.iface : s->cfg.iface;
	bool pmc_sudo = sn->has_settings ? sn->settings.pmc_sudo : s->cfg.pmc_sudo;

	if (sn->state != SN_READY) {
		/* poll now: after the answer in flight; a connection that is not
		 * up yet polls as soon as it is */
		sn->poll_due = sn->state == SN_WAITING || sn->state == SN_CLOCK;
		return;
	}
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		if (c->cadence == COLLECT_PERIODIC &&
		    (sn->last_run[i] == 0 ||
		     ev_now(s->loop) - sn->last_run[i] >= collector_period_s(s->cfg.periods, i))) {
			flags |= c->request_bit;
		}
	}
	if (pmc_sudo) {
		flags |= PROBE_FLAG_SUDO_PMC;
	}
	char reported[PROBE_IFACE_LIST_LEN] = "";
	if (!iface[0]) {
		/* every interface ptp4l reports that the probe can pass */
		const char *names[NIC_MAX];
		int count = node_update_probe_ifaces(sn->model, names);
		for (int i = 0; i < count; i++) {
			if (probe_iface_valid(names[i])) {
				size_t used = strlen(reported);
				snprintf(reported + used, sizeof reported - used, "%s%s", used ? "," : "", names[i]);
			}
		}
		iface = reported;
	}
	probe_nonce_generate(sn->nonce);
	if (probe_request_format(line, sizeof line, sn->nonce, flags, iface) < 0 &&
	    probe_request_format(line, sizeof line, sn->nonce, flags, "") < 0) {
		set_node_error(sn, "cannot format the probe request");
		return;
	}
	bytebuf_clear(&sn->answer);
	set_state(sn, SN_WAITING, "poll sent");
	sn->asked = flags;
	sn->sent_at = ev_now(s->loop);
	/* no timer behind it: sent on connecting or by poll-now */
	sn->due_at = sn->pending_due > 0 ? sn->pending_due : sn->sent_at;
	sn->pending_due = 0;
	sn->poll_due = false;
	ev_timer_set(&sn->deadline, s->cfg.poll_timeout_s, 0);
	ev_timer_start(s->loop, &sn->deadline);
	if (transport_send(sn->t, line, strlen(line)) != 0) {
		ev_timer_stop(s->loop, &sn->deadline);
		set_state(sn, SN_CONNECTING, "send failed");
	}
}

static void on_poll_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
	sched_node *sn = w->data;
	if (sn->s->paused) {
		return;
	}
	switch (sn->state) {
	case SN_READY:
		sn->pending_due = ev_now(loop);
		send_poll(sn);
		break;
	case SN_WAITING:
	case SN_CLOCK:
		if (sn->poll_due) {
			/* one due poll is already waiting for the answer in flight */
			log_printf("%s: poll skipped due=%.6f (the previous one is still in flight)",
				   sn->model->host, ev_now(loop));
		} else {
			sn->poll_due = true; /* sent when the answer is in */
			sn->pending_due = ev_now(loop);
		}
		break;
	default:
		break; /* not connected: the connection polls as soon as it is up */
	}
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	sched_node *sn = w->data;
	char msg[160];
	snprintf(msg, sizeof msg, "no answer to the probe within %.1f s; restarting the remote shell",
		 sn->s->cfg.poll_timeout_s);
	sn->model->polls_failed++;
	event(sn, msg);
	set_node_error(sn, msg);
	notify(sn);
	abandon_poll(sn);
}

static void on_backoff(struct ev_loop *loop, ev_timer *w, int revents)
{
	sched_node *sn = w->data;
	set_state(sn, SN_CONNECTING, "backoff over");
	connecting_event(sn, "reconnecting");
	transport_start(sn->t);
}

/* ------------------------------------------------------------------ API */

scheduler *scheduler_new(struct ev_loop *loop, const scheduler_config *cfg)
{
	scheduler *s = xcalloc(1, sizeof *s);
	s->loop = loop;
	s->cfg = *cfg;
	return s;
}

sched_node *scheduler_add(scheduler *s, node *model, const node_settings *settings)
{
	sched_node *sn = xcalloc(1, sizeof *sn);
	sn->s = s;
	sn->model = model;
	if (settings) {
		sn->has_settings = true;
		sn->settings = *settings;
	}
	sn->state = SN_IDLE; /* the first state: no transition to log */
	sn->last_run = xcalloc(collector_registry_count, sizeof *sn->last_run);
	ev_init(&sn->poll_timer, on_poll_timer);
	sn->poll_timer.data = sn;
	ev_init(&sn->deadline, on_deadline);
	sn->deadline.data = sn;
	ev_init(&sn->backoff, on_backoff);
	sn->backoff.data = sn;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		/* an array of pointers sized by its element, as meant:
		 * NOLINTNEXTLINE(bugprone-sizeof-expression) */
		s->nodes = xrealloc(s->nodes, s->cap * sizeof *s->nodes);
	}
	s->nodes[s->n++] = sn;
	return sn;
}

void scheduler_attach(sched_node *sn, transport *t)
{
	sn->t = t;
}

void scheduler_mark_unpollable(sched_node *sn, const char *why)
{
	set_state(sn, SN_UNPOLLABLE, "unpollable");
	set_node_error(sn, why);
}

static bool pollable(const sched_node *sn)
{
	return sn->state != SN_UNPOLLABLE && sn->t;
}

void scheduler_start(scheduler *s)
{
	s->started = true;
	s->pending = 0;
	/* Count first: a transport may fail (and finish its node) synchronously
	 * inside transport_start, and must not find pending at 0 early. */
	for (size_t i = 0; i < s->n; i++) {
		if (s->cfg.once && pollable(s->nodes[i])) {
			s->pending++;
		}
	}
	if (s->cfg.once && s->pending == 0) {
		if (s->cfg.on_all_done) {
			s->cfg.on_all_done(s->cfg.ctx);
		}
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		sched_node *sn = s->nodes[i];
		if (!pollable(sn)) {
			continue;
		}
		if (!s->cfg.once) {
			/* Spread the first polls over one interval; later polls keep
			 * their phase with a little jitter against lock-step. */
			ev_timer_set(&sn->poll_timer, jitter(s->cfg.interval_s, 0.05), s->cfg.interval_s);
			ev_timer_start(s->loop, &sn->poll_timer);
		}
		set_state(sn, SN_CONNECTING, "started");
		connecting_event(sn, "connecting");
		transport_start(sn->t);
	}
}

void scheduler_poll_now(scheduler *s)
{
	for (size_t i = 0; i < s->n; i++) {
		send_poll(s->nodes[i]);
	}
}

void scheduler_set_paused(scheduler *s, bool paused)
{
	s->paused = paused;
}

bool scheduler_paused(const scheduler *s)
{
	return s->paused;
}

void scheduler_set_interval(scheduler *s, double interval_s)
{
	s->cfg.interval_s = interval_s;
	for (size_t i = 0; i < s->n; i++) {
		sched_node *sn = s->nodes[i];
		if (ev_is_active(&sn->poll_timer)) {
			sn->poll_timer.repeat = interval_s;
			ev_timer_again(s->loop, &sn->poll_timer);
		}
	}
}

double scheduler_interval(const scheduler *s)
{
	return s->cfg.interval_s;
}

void scheduler_give_up(scheduler *s, const char *why)
{
	for (size_t i = 0; i < s->n; i++) {
		sched_node *sn = s->nodes[i];
		if (sn->state == SN_DONE || sn->state == SN_UNPOLLABLE || !sn->t) {
			continue;
		}
		if (!sn->model->error[0] || sn->state == SN_WAITING) {
			set_node_error(sn, why);
		}
		finish_once(sn);
	}
}

size_t scheduler_pending(const scheduler *s)
{
	return s->pending;
}

void scheduler_free(scheduler *s)
{
	if (!s) {
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		sched_node *sn = s->nodes[i];
		ev_timer_stop(s->loop, &sn->poll_timer);
		ev_timer_stop(s->loop, &sn->deadline);
		ev_timer_stop(s->loop, &sn->backoff);
		if (sn->t) {
			transport_destroy(sn->t);
		}
		bytebuf_free(&sn->answer);
		free(sn->last_run);
		free(sn);
	}
	free(s->nodes);
	free(s);
}

/* Read-only, for the --once / --check progress line (src/progress.h): a node
 * that answered its poll may still be in its clock check. */
bool scheduler_node_finished(const scheduler *s, size_t i)
{
	if (i >= s->n) {
		return true;
	}
	const sched_node *sn = s->nodes[i];
	return sn->state == SN_DONE || !pollable(sn);
}
