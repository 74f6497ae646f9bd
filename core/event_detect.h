/* event_detect.h - what changed on a node between two judged states.
 *
 * event_detect_capture() takes from a node (after its health rules ran) the
 * few values events are about; event_detect_compare() is a pure function of
 * two such snapshots and the limits, returning the events between them.
 * node_update.c captures after each poll, failure and clock check of a node
 * and compares with the previous capture; the refresh (event_log_refresh) does it
 * again after the cluster-wide rules, which change only cluster findings
 * and the status they make.
 *
 * Rules (README "Events" documents them):
 *   - The first snapshot of a node that has answered is the baseline: no
 *     events until a second one (nothing "changed" at start-up).
 *   - Findings are compared only while the node answers: losing the
 *     connection is connection_lost (and the status), not every finding
 *     cleared; coming back compares with the findings last judged.
 *   - A value is compared only when both snapshots have it (the part
 *     answered: chrony, ntpd, pmc OK): a daemon that stops answering is told
 *     by its finding and the status, and its values are compared again with
 *     the last ones it gave once it answers.
 *   - No debounce: a value that flips and flips back one poll later gives
 *     two events.  Each poll's answer is a real state the node was in, and a
 *     one-poll grandmaster change is what an operator needs to see.
 *   - Findings follow what the live view shows (finding_wait.h): one still
 *     waiting its `for` (pending) is not captured, so it is raised when it
 *     has lasted, and one that goes before that was never raised and costs
 *     no event; the status is the one its lasting findings make (pending
 *     alone is ok here).  Outside the live view nothing waits.  A finding
 *     already there when the node settled (start-up) is part of the
 *     baseline even while it waits: how long it had lasted before synctop
 *     started is unknown.
 *   - The cluster's findings on a node (consistency.c) are not its events:
 *     event_cluster.h makes one cluster event per code of them; they still
 *     make the node's status, whose event names the worst code.
 *   - A daemon restart is the daemons collector's verdict (process age, ps
 *     etimes, never a wall-clock start time): once per restart.
 *   - A clock step: the chrony offset, the PTP offsetFromMaster or the clock
 *     check moving by more than step_s between two consecutive measurements. */
#ifndef SYNCTOP_EVENT_DETECT_H
#define SYNCTOP_EVENT_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "finding.h"
#include "node.h"

#define EVENT_STATE_VALUE_LEN 64

typedef struct {
	const char *code; /* static, as finding.code */
	severity sev;
	double since;     /* finding.since: the first poll of its run */
	char message[FINDING_MESSAGE_LEN];
} event_finding;

typedef struct {
	char name[EVENT_STATE_VALUE_LEN];  /* interface, else port identity */
	char state[16];                    /* ptp_port_state_name */
} event_port;

typedef struct {
	bool answered_ever; /* the node has an observation */
	bool reachable;
	node_status status;  /* what the counted findings make (pending ones count as ok) */
	const char *why;    /* the worst finding's code (its own or the cluster's), NULL if none */
	int n_findings;     /* its own findings: the cluster's are event_cluster.h's */
	event_finding findings[MAX_FINDINGS];

	bool chrony_ok;
	char chrony_reference[EVENT_STATE_VALUE_LEN]; /* "" when unsynchronised */
	char chrony_leap[32];
	bool ntp_ok;
	char ntp_peer[EVENT_STATE_VALUE_LEN];         /* "" when none */
	bool ptp_ok;
	int n_ports;
	event_port ports[PTP_MAX_PORTS];
	char grandmaster[PTP_ID_LEN];                 /* "" when it follows none */
	int clock_class;                              /* INT_UNKNOWN */

	struct {
		bool restarted_now;
		double restarted_at;  /* NAN: never seen restarting */
		int pid, previous_pid;
		int64_t age_s;
	} daemons[DAEMON_KINDS];

	/* the measurements a clock step is looked for in, with the time each
	 * was taken (a measurement seen again is not compared with itself) */
	double chrony_offset_s;  /* NAN unless cluster_chrony_offset() accepts it */
	double chrony_at;
	int64_t ptp_offset_ns;   /* PTP_NS_UNKNOWN unless cluster_ptp_offset() */
	double ptp_at;
	double clock_offset_s;   /* the clock check, NAN unless OBS_OK */
	double clock_at;
} event_state;

typedef struct {
	double step_s;  /* thresholds.event_step_s */
} event_limits;

/* Whether finding f counts for events: it has lasted its `for` (not
 * pending), or it was already there at start-up (since <= baseline_t: its
 * age before synctop started is unknown, so it is part of the baseline,
 * as if it had lasted). */
bool event_detect_counts(const finding *f, double baseline_t);

/* Reads n's judged state into *s, with the findings that count
 * (event_detect_counts) and the status they make; baseline_t: when the
 * node settled (INFINITY while it settles: everything counts). */
void event_detect_capture(const node *n, double baseline_t, event_state *s);

/* An unreachable node's findings are not judged (health.c gives it none):
 * keeps the last judged ones in now, so that losing the connection clears
 * nothing and coming back compares with what was last seen. */
void event_detect_keep_findings(const event_state *before, event_state *now);

/* The events from before to after, at time t about node index node_index:
 * at most max written to out, returns how many there were (more than max:
 * the rest were not written).  Pure. */
size_t event_detect_compare(const event_state *before, const event_state *after, const event_limits *lim,
			    double t, uint32_t node_index, event *out, size_t max);

#endif
