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
} node_status;

/* "ok", "warn", "crit", "unknown" */
const char *node_status_name(node_status status);

#define NODE_NAME_LEN 256
#define NODE_ERROR_LEN 640

typedef struct {
	char host[NODE_NAME_LEN];   /* inventory name, without user@ */
	bool reachable;             /* last poll completed */
	bool has_observation;       /* obs holds at least one completed poll */
	char error[NODE_ERROR_LEN]; /* why unreachable / failing, "" if none */
	observation obs;            /* latest completed poll */
	history history;
	finding_list findings;
	node_status status;
} node;

void node_init(node *n, const char *host);

#endif
