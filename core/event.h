/* event.h - one change worth knowing: what changed on a node (or in the
 * cluster), when, from what to what.
 *
 * A plain fixed-size record (no pointers) so the in-memory log can keep a
 * ring of them, the --events writer can format one without the model, and
 * a state database can store one as a row: time, node index (or
 * EVENT_NODE_CLUSTER / EVENT_NODE_GROUP), kind, subject, from, to, message.
 * Every text field is NUL-terminated and sanitised (sanitize.h) by whoever
 * fills it, so the sinks may show it as it is. */
#ifndef SYNCTOP_EVENT_H
#define SYNCTOP_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kinds, a fixed list: their string names (event_kind_name) are what
 * the --events file, the filter and a state database carry; README
 * "Events" documents each.  Append only: the numbers may be stored. */
typedef enum {
	EVENT_STATUS = 0,         /* node status: ok / warn / crit / unknown */
	EVENT_FINDING_RAISED,     /* a finding code appeared (to: its severity) */
	EVENT_FINDING_CHANGED,    /* a finding kept its code, changed severity */
	EVENT_FINDING_CLEARED,    /* a finding code went away (from: its severity) */
	EVENT_CHRONY_REFERENCE,   /* chronyd's reference (selected source) */
	EVENT_CHRONY_LEAP,        /* chronyd's leap status */
	EVENT_NTP_PEER,           /* ntpd's system peer */
	EVENT_PTP_PORT_STATE,     /* a ptp4l port's state (subject: the port) */
	EVENT_PTP_GRANDMASTER,    /* the grandmaster identity */
	EVENT_PTP_CLOCK_CLASS,    /* the grandmaster's clockClass */
	EVENT_DAEMON_RESTARTED,   /* subject: chronyd / ptp4l / phc2sys / ...; from/to: PIDs */
	EVENT_CLOCK_STEP,         /* an offset jumped by more than event_step_s (subject: which) */
	EVENT_CONNECTION_LOST,
	EVENT_CONNECTION_RESTORED,
	EVENT_CLUSTER_FINDING_RAISED,  /* a cluster-wide finding (consistency.c): node
					  EVENT_NODE_CLUSTER, one per code (event_cluster.h) */
	EVENT_CLUSTER_FINDING_CLEARED,
	EVENT_GROUP,              /* the same change on many nodes in one refresh */
	EVENT_KIND_COUNT
} event_kind;

/* "status", "finding_raised", ... ; NULL outside the enum. */
const char *event_kind_name(event_kind kind);

/* The kind named s (event_kind_name), false if none. */
bool event_kind_parse(const char *s, event_kind *kind);

#define EVENT_NODE_CLUSTER UINT32_MAX       /* about the cluster, not one node */
#define EVENT_NODE_GROUP (UINT32_MAX - 1)   /* a group: see event.group_size */

#define EVENT_SUBJECT_LEN 48
#define EVENT_VALUE_LEN 64
#define EVENT_MESSAGE_LEN 160

typedef struct {
	uint64_t id;      /* 1, 2, ... in the order events were logged (event_log) */
	uint64_t group;   /* a member of a group: the group's id; else 0 */
	double t;         /* client unix time of the poll (or refresh) that saw it */
	uint32_t node;    /* index into the model's nodes, or EVENT_NODE_* */
	uint32_t group_size; /* EVENT_GROUP: its members; a cluster finding
				event: the nodes carrying it; else 0 */
	event_kind kind;  /* EVENT_GROUP: the members' kind is in group_kind */
	event_kind group_kind;
	char subject[EVENT_SUBJECT_LEN]; /* finding code, port, daemon, offset name; "" if none */
	char from[EVENT_VALUE_LEN];      /* "" when there was no value */
	char to[EVENT_VALUE_LEN];
	char message[EVENT_MESSAGE_LEN]; /* one line for a person */
} event;

/* Sets kind, node, t and the strings (sanitised, single line, cut to fit);
 * id and group stay 0.  NULL strings are "". */
void event_set(event *e, event_kind kind, uint32_t node, double t, const char *subject, const char *from,
	       const char *to, const char *message);

/* Whether two events are the same change (kind, subject, from, to; for
 * daemon_restarted and clock_step kind and subject, as their from/to are
 * per-node PIDs and offsets): what grouping across nodes compares. */
bool event_same_change(const event *a, const event *b);

/* The change without its node, for a group's message:
 * "grandmaster a0369f.fffe.12e391 -> 28fc96.fffe.000001". */
void event_describe_change(const event *e, char *out, size_t out_len);

#endif
