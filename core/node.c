/* node.c - initialiser and names for the per-node model. */
#include <config.h>

#include "node.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *node_status_name(node_status status)
{
	switch (status) {
	case NODE_STATUS_OK: return "ok";
	case NODE_STATUS_WARN: return "warn";
	case NODE_STATUS_CRIT: return "crit";
	case NODE_STATUS_UNKNOWN: return "unknown";
	case NODE_STATUS_PENDING: return "pending";
	}
	return "?";
}

void node_init(node *n, const char *host)
{
	/* Field by field: history samples need no clearing (count = 0 marks them
	 * unused), and zeroing ~115 KiB per node is wasted work across a fleet. */
	size_t len = host ? strnlen(host, NODE_NAME_LEN - 1) : 0;
	if (len) {
		memcpy(n->host, host, len);
	}
	n->host[len] = '\0';
	n->reachable = false;
	n->has_observation = false;
	n->error[0] = '\0';
	observation_init(&n->obs);
	history_init(&n->history);
	n->findings.count = 0;
	n->n_own_findings = 0;
	n->status = NODE_STATUS_UNKNOWN;
	n->events.head = n->events.count = 0;
	n->polls_completed = n->polls_failed = 0;
	n->first_observed_at = 0;
	n->last_raw_len = 0;
	n->last_raw_truncated = false;
	n->watch = NULL; /* no change detection until someone sets it */
	n->remote = NULL;
	n->ssh_detail = NULL;
}

void node_log_event(node *n, double t, const char *fmt, ...)
{
	node_event *e = &n->events.items[n->events.head];
	va_list ap;
	e->t = t;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof e->text, fmt, ap);
	va_end(ap);
	n->events.head = (n->events.head + 1) % NODE_EVENTS;
	if (n->events.count < NODE_EVENTS) {
		n->events.count++;
	}
}

const node_event *node_event_at(const node *n, unsigned i)
{
	if (i >= n->events.count) {
		return NULL;
	}
	unsigned oldest = (n->events.head + NODE_EVENTS - n->events.count) % NODE_EVENTS;
	return &n->events.items[(oldest + i) % NODE_EVENTS];
}

bool node_answered(const node *n)
{
	return n->reachable && n->has_observation;
}

int node_status_rank(node_status status)
{
	switch (status) {
	case NODE_STATUS_CRIT: return 0;
	case NODE_STATUS_UNKNOWN: return 1;
	case NODE_STATUS_WARN: return 2;
	case NODE_STATUS_PENDING: return 3;
	case NODE_STATUS_OK: return 4;
	}
	return 1;
}
