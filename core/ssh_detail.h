/* ssh_detail.h - a node read from Prometheus, polled once over SSH for its
 * full detail (chrony's sources, the PTP data sets, NIC timestamping): the
 * poll's own model, kept beside the node's Prometheus observation and never
 * in place of it, so every value keeps the source it came from.
 *
 * Part of the model: the run that polls writes it (its scheduler writes
 * `node` as it writes any SSH node), the drill-down and the JSON only read
 * it.  One poll per request: a new request replaces a finished one. */
#ifndef SYNCTOP_SSH_DETAIL_H
#define SYNCTOP_SSH_DETAIL_H

#include <stdbool.h>

#include "node.h"

typedef enum {
	SSH_DETAIL_POLLING = 0, /* asked, the poll not finished */
	SSH_DETAIL_DONE,        /* answered, or failed: node.error says why */
} ssh_detail_state;

typedef struct ssh_detail {
	ssh_detail_state state;
	double asked_at;        /* client unix time of the request */
	double done_at;         /* ... and of its end; 0 while polling */
	/* The SSH poll's node, named as the Prometheus node: its observation,
	 * findings (the same rules), error, connection log and raw answer. */
	node node;
} ssh_detail;

/* A new request for host, POLLING.  Free with ssh_detail_free. */
ssh_detail *ssh_detail_new(const char *host, double asked_at);
void ssh_detail_free(ssh_detail *d);

/* The poll is over (answered or not). */
void ssh_detail_finish(ssh_detail *d, double now);

/* Finished with an answer: its values say something. */
bool ssh_detail_answered(const ssh_detail *d);

/* A new request may start: none yet, or the last one finished. */
bool ssh_detail_can_ask(const ssh_detail *d);

#endif
