/* node.h - everything synctop knows about one node: where it is, its latest
 * observation, its history and its evaluated health.
 *
 * The collectors write `obs`, `history` and the connection fields; the health
 * pass writes `findings` and `status`; the sinks (TUI, JSON, check) only read. */
#ifndef SYNCTOP_NODE_H
#define SYNCTOP_NODE_H

#include <stdbool.h>

#include "finding.h"
#include "history.h"
#include "observation.h"

typedef enum {
	NODE_STATUS_OK = 0,
	NODE_STATUS_WARN,
	NODE_STATUS_CRIT,
	NODE_STATUS_UNKNOWN, /* never polled successfully / unreachable */
	/* Only as the live view shows a node (health_live_status): findings
	 * that have not lasted their `for` yet.  Never in node.status, JSON,
	 * --check or Prometheus. */
	NODE_STATUS_PENDING,
} node_status;

/* "ok", "warn", "crit", "unknown" */
const char *node_status_name(node_status status);

#define NODE_NAME_LEN 256
#define NODE_ERROR_LEN 640

/* The connection log the drill-down shows: connects, errors, reconnects. */
/* The raw probe answer of the last poll, for the drill-down: the first
 * NODE_RAW_LEN bytes (the probe prints a few KiB on a typical node). */
#define NODE_RAW_LEN 16384

#define NODE_EVENTS 16
#define NODE_EVENT_LEN 200

typedef struct {
	double t;                   /* client unix time */
	char text[NODE_EVENT_LEN];
} node_event;

typedef struct {
	unsigned head;              /* next slot to write */
	unsigned count;             /* <= NODE_EVENTS */
	node_event items[NODE_EVENTS];
} node_event_log;

typedef struct {
	/* Layout: what every node writes first and together (it shares pages),
	 * the large buffers a node may never fill last.  A fleet of 10,000 then
	 * touches ~36 KiB per node, not ~48 (the kernel maps only pages written;
	 * history and last_raw fill over time, if at all). */
	char host[NODE_NAME_LEN];   /* inventory name, without user@ */
	bool reachable;             /* last poll completed */
	bool has_observation;       /* obs holds at least one completed poll */
	char error[NODE_ERROR_LEN]; /* why unreachable / failing, "" if none */
	int n_own_findings;            /* findings.items[0..n_own_findings) are its own */
	node_status status;
	size_t last_raw_len;           /* bytes in last_raw */
	bool last_raw_truncated;       /* the answer was longer */
	double first_observed_at;      /* taken_at of the first completed poll, 0 = none */
	unsigned long polls_completed; /* answers decoded */
	unsigned long polls_failed;    /* deadlines, floods, lost connections */
	/* Change detection (event_log.h): the state this node's events were
	 * last detected against; NULL when nothing records events (--once,
	 * --check, the client's own node).  Owned by whoever set it. */
	struct event_watch *watch;
	/* A Prometheus node's last 24 h, fetched when its drill-down opens;
	 * NULL until then and for SSH nodes.  Owned by the node's owner (free
	 * with remote_history_free).  Up here with the fields every node
	 * writes: at the end it cost each node a page of its own. */
	struct remote_history *remote;
	/* A Prometheus node's one SSH poll (ssh_detail.h), beside obs and never
	 * in place of it; NULL until asked for and for SSH nodes.  Owned by the
	 * node's owner (free with ssh_detail_free). */
	struct ssh_detail *ssh_detail;
	observation obs;            /* latest completed poll */
	/* Right after obs: its head and count share obs's last page. */
	node_event_log events;
	/* The node's own findings (health.c) first, then the cluster-wide ones
	 * (consistency.c) about how it compares with the others, most severe
	 * first within each part; status is the worst of all.  Its count is
	 * last, on the page of the history's head. */
	finding_list findings;
	/* Before last_raw: a node whose ring is short (history_set_capacity, a
	 * Prometheus node) then touches no page past it. */
	history history;
	char last_raw[NODE_RAW_LEN];   /* untrusted: sanitise before showing */
} node;

void node_init(node *n, const char *host);

/* The node answered its last poll: only then does it say something about
 * now (a node that stopped answering keeps its last observation). */
bool node_answered(const node *n);

/* Worst first, for every sorted output: crit 0, unknown 1, warn 2,
 * pending 3 (live view only), ok 4. */
int node_status_rank(node_status status);
#define NODE_STATUS_RANK_MAX 4 /* ok's */

/* Append to the node's connection log (oldest entries are dropped). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void node_log_event(node *n, double t, const char *fmt, ...);
/* i = 0 is the oldest kept event; NULL past the end. */
const node_event *node_event_at(const node *n, unsigned i);

#endif
