/* demo_transport.c - a simulated node's probe shell on the event loop.
 *
 * States: idle -> connecting (link timer) -> ready ("running" in --log, as
 * for SSH), changed only by set_state(); a request line received
 * while ready is queued and answered, oldest first, when the answer timer
 * fires after the node's RTT.  Every callback into the owner may stop or
 * restart us, so each one is followed by a generation check. */
#include <config.h>

#include "demo_transport.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "probe.h"
#include "xalloc.h"

#define LINE_MAX_LEN 256     /* a request line is under 40 bytes */
#define QUEUE_LEN 4          /* the scheduler has one request in flight */
#define CHUNK_GAP_S 0.001    /* between the pieces of one answer */

typedef enum {
	DT_IDLE,
	DT_CONNECTING,
	DT_READY,
	DT_STATE_COUNT, /* not a state: how many there are */
} dt_state;

static const char *const state_names[] = {
	[DT_IDLE] = "idle",
	[DT_CONNECTING] = "connecting",
	[DT_READY] = "running",
};
_Static_assert(sizeof state_names / sizeof state_names[0] == DT_STATE_COUNT, "every dt_state needs a name");

typedef struct {
	char nonce[PROBE_NONCE_LEN + 1];
	unsigned flags;
	char iface[PROBE_IFACE_MAX + 1]; /* "-" = unknown */
} demo_request;

typedef struct {
	transport base;
	struct ev_loop *loop;
	const demo_cluster *cluster;
	size_t index;
	double connect_timeout_s;
	dt_state state;
	bool connected;          /* the simulated SSH connection is up */
	bool banner;             /* the next answer starts with the ready line */
	unsigned generation;     /* bumped by stop and restart */
	uint64_t attempts, polls;
	ev_timer link_timer;     /* connect / shell start */
	ev_timer answer_timer;   /* answer due, or its next piece */

	char line[LINE_MAX_LEN];
	size_t line_len;
	bool line_too_long;

	demo_request queue[QUEUE_LEN];
	size_t q_head, q_count;
	bool answering;          /* queue[q_head] is being answered */
	double answer_rtt_s;

	char out[DEMO_RESPONSE_MAX];
	size_t out_len, delivered;
	size_t ends[DEMO_MAX_CHUNKS];
	int n_chunks, next_chunk; /* n_chunks 0 = not rendered yet */
} demo_conn;

static double wall_now(const demo_conn *c)
{
	return ev_now(c->loop); /* libev's clock is CLOCK_REALTIME */
}

/* The only way to change c->state; --log gets each transition with its
 * cause (a static phrase), worded as the SSH transport words its own. */
static void set_state(demo_conn *c, dt_state to, const char *reason)
{
	if (c->state == to) {
		return;
	}
	log_printf("demo %s: %s -> %s (%s)", demo_cluster_name(c->cluster, c->index), state_names[c->state],
		   state_names[to], reason);
	c->state = to;
}

/* Forget the shell: queued requests, partial input, the answer in flight. */
static void drop_shell(demo_conn *c)
{
	ev_timer_stop(c->loop, &c->link_timer);
	ev_timer_stop(c->loop, &c->answer_timer);
	c->generation++;
	c->line_len = 0;
	c->line_too_long = false;
	c->q_head = c->q_count = 0;
	c->answering = false;
	c->n_chunks = 0;
	c->out_len = c->delivered = 0;
}

static void schedule_answer(demo_conn *c)
{
	c->answering = true;
	c->n_chunks = 0;
	const demo_request *r = &c->queue[c->q_head];
	c->answer_rtt_s = (r->flags & PROBE_FLAG_TIME_ONLY) ? demo_cluster_exchange_rtt_s(c->cluster, c->index, c->polls)
							   : demo_cluster_rtt_s(c->cluster, c->index, c->polls);
	ev_timer_set(&c->answer_timer, c->answer_rtt_s, 0);
	ev_timer_start(c->loop, &c->answer_timer);
}

static void on_link(struct ev_loop *loop, ev_timer *w, int revents)
{
	demo_conn *c = w->data;
	(void)loop;
	(void)revents;
	if (!demo_cluster_reachable(c->cluster, c->index)) {
		char msg[160];
		/* OpenSSH's wording, so the demo reads like the real thing */
		snprintf(msg, sizeof msg, "connect to %s port %d: Connection timed out",
			 demo_cluster_name(c->cluster, c->index), DEMO_SSH_PORT);
		drop_shell(c);
		set_state(c, DT_IDLE, "deadline");
		c->connected = false;
		c->base.events->failed(c->base.owner, TRANSPORT_ERR_CONNECT, msg);
		return;
	}
	set_state(c, DT_READY, "shell started");
	c->connected = true;
	c->banner = true;
	c->base.events->ready(c->base.owner);
}

/* The shell's `read -r nonce flags iface`: whitespace-separated, the last
 * variable takes the rest of the line. */
static void take_word(const char **p, const char *end, const char **w, size_t *n)
{
	while (*p < end && (**p == ' ' || **p == '\t')) {
		(*p)++;
	}
	*w = *p;
	while (*p < end && **p != ' ' && **p != '\t') {
		(*p)++;
	}
	*n = (size_t)(*p - *w);
}

static void handle_line(demo_conn *c, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	const char *nonce, *flags, *iface;
	size_t nonce_n, flags_n, iface_n;
	take_word(&p, end, &nonce, &nonce_n);
	take_word(&p, end, &flags, &flags_n);
	while (p < end && (*p == ' ' || *p == '\t')) {
		p++;
	}
	iface = p;
	iface_n = (size_t)(end - p);
	while (iface_n > 0 && (iface[iface_n - 1] == ' ' || iface[iface_n - 1] == '\t')) {
		iface_n--;
	}

	demo_request r;
	if (nonce_n != PROBE_NONCE_LEN) {
		return; /* the shell ignores other lines */
	}
	memcpy(r.nonce, nonce, nonce_n);
	r.nonce[nonce_n] = '\0';
	if (!probe_nonce_valid(r.nonce)) {
		return;
	}
	r.flags = probe_request_flags(flags, flags_n);
	snprintf(r.iface, sizeof r.iface, "-");
	if (iface_n > 0 && iface_n <= PROBE_IFACE_MAX) {
		char name[PROBE_IFACE_MAX + 1];
		memcpy(name, iface, iface_n);
		name[iface_n] = '\0';
		if (probe_iface_valid(name)) {
			memcpy(r.iface, name, iface_n + 1);
		}
	}
	if (c->q_count == QUEUE_LEN) {
		return; /* more than the scheduler ever sends at once: dropped */
	}
	c->queue[(c->q_head + c->q_count) % QUEUE_LEN] = r;
	c->q_count++;
	if (!c->answering) {
		schedule_answer(c);
	}
}

static void on_answer(struct ev_loop *loop, ev_timer *w, int revents)
{
	demo_conn *c = w->data;
	(void)revents;

	if (c->n_chunks == 0) {
		const demo_request *r = &c->queue[c->q_head];
		/* the tools ran halfway through the round trip */
		int n = demo_cluster_render_response(c->cluster, c->index, wall_now(c) - c->answer_rtt_s / 2,
						     r->nonce, r->flags, r->iface, c->banner, c->out, sizeof c->out);
		if (n < 0) {
			drop_shell(c);
			set_state(c, DT_IDLE, "answer too large");
			c->connected = false;
			c->base.events->failed(c->base.owner, TRANSPORT_ERR_LOST,
					       "the simulated node's answer does not fit its buffer");
			return;
		}
		c->banner = false;
		c->out_len = (size_t)n;
		c->delivered = 0;
		c->n_chunks = demo_cluster_chunks(c->cluster, c->index, c->polls, c->out_len, c->ends);
		c->next_chunk = 0;
		c->polls++;
	}

	size_t start = c->delivered;
	size_t stop = c->ends[c->next_chunk++];
	bool last = c->next_chunk == c->n_chunks;
	c->delivered = stop;
	if (last) {
		/* Finished before the owner hears of it: it may send the next
		 * request from inside the data callback. */
		c->answering = false;
		c->n_chunks = 0;
		c->q_head = (c->q_head + 1) % QUEUE_LEN;
		c->q_count--;
	}
	unsigned generation = c->generation;
	if (stop > start) {
		c->base.events->data(c->base.owner, c->out + start, stop - start);
	}
	if (generation != c->generation) {
		return; /* stopped or restarted by the owner */
	}
	if (!last) {
		ev_timer_set(&c->answer_timer, CHUNK_GAP_S, 0);
		ev_timer_start(loop, &c->answer_timer);
	} else if (c->q_count > 0 && !c->answering) {
		schedule_answer(c);
	}
}

static void op_start(transport *t)
{
	demo_conn *c = (demo_conn *)t;
	if (c->state != DT_IDLE) {
		return;
	}
	drop_shell(c);
	set_state(c, DT_CONNECTING, "start");
	c->attempts++;
	double delay = demo_cluster_reachable(c->cluster, c->index)
			       ? demo_cluster_connect_s(c->cluster, c->index, c->attempts)
			       : c->connect_timeout_s;
	ev_timer_set(&c->link_timer, delay, 0);
	ev_timer_start(c->loop, &c->link_timer);
}

static int op_send(transport *t, const char *buf, size_t len)
{
	demo_conn *c = (demo_conn *)t;
	if (c->state != DT_READY) {
		return -1;
	}
	unsigned generation = c->generation;
	for (size_t k = 0; k < len && generation == c->generation; k++) {
		if (buf[k] == '\n') {
			if (!c->line_too_long) {
				handle_line(c, c->line, c->line_len);
			}
			c->line_len = 0;
			c->line_too_long = false;
		} else if (c->line_len < sizeof c->line) {
			c->line[c->line_len++] = buf[k];
		} else {
			c->line_too_long = true; /* cannot be a valid request */
		}
	}
	return 0;
}

static void op_restart_shell(transport *t)
{
	demo_conn *c = (demo_conn *)t;
	if (!c->connected) {
		drop_shell(c);
		set_state(c, DT_IDLE, "shell restart");
		op_start(t);
		return;
	}
	drop_shell(c);
	set_state(c, DT_CONNECTING, "shell restart");
	c->attempts++;
	ev_timer_set(&c->link_timer, demo_cluster_shell_start_s(c->cluster, c->index, c->attempts), 0);
	ev_timer_start(c->loop, &c->link_timer);
}

static void op_stop(transport *t)
{
	demo_conn *c = (demo_conn *)t;
	drop_shell(c);
	set_state(c, DT_IDLE, "stopped");
	c->connected = false;
}

static void op_destroy(transport *t)
{
	op_stop(t);
	free(t);
}

static const transport_ops demo_ops = {
	.start = op_start,
	.send = op_send,
	.restart_shell = op_restart_shell,
	.stop = op_stop,
	.destroy = op_destroy,
};

transport *demo_transport_new(struct ev_loop *loop, const demo_cluster *cluster, size_t index,
			      double connect_timeout_s, const transport_events *events, void *owner)
{
	demo_conn *c = xcalloc(1, sizeof *c);
	c->base.ops = &demo_ops;
	c->base.events = events;
	c->base.owner = owner;
	c->loop = loop;
	c->cluster = cluster;
	c->index = index;
	c->connect_timeout_s = connect_timeout_s;
	/* state: DT_IDLE, from xcalloc */
	ev_init(&c->link_timer, on_link);
	c->link_timer.data = c;
	ev_init(&c->answer_timer, on_answer);
	c->answer_timer.data = c;
	return &c->base;
}
