/* event_detect.c - two judged states of a node in, events out
 * (event_detect.h). */
#include <config.h>

#include "event_detect.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "health.h"
#include "units.h"

static void copy(char *out, size_t out_len, const char *s)
{
	snprintf(out, out_len, "%s", s ? s : "");
}

bool event_detect_counts(const finding *f, double baseline_t)
{
	return f->code && (!f->pending || !(f->since > baseline_t));
}

/* The status the live view draws the node in, less "pending": what its
 * counted findings make it (finding_wait.h).  A node whose only findings
 * still wait is ok here, as none of them is an event yet. */
static node_status lasting_status(const node *n, double baseline_t)
{
	node_status st = cluster_node_status(n);
	if (st == NODE_STATUS_UNKNOWN) {
		return st;
	}
	severity worst = SEVERITY_OK;
	for (int i = 0; i < n->findings.count && i < MAX_FINDINGS; i++) {
		const finding *f = &n->findings.items[i];
		if (event_detect_counts(f, baseline_t) && f->sev > worst) {
			worst = f->sev;
		}
	}
	return worst == SEVERITY_CRIT ? NODE_STATUS_CRIT : (worst == SEVERITY_WARN ? NODE_STATUS_WARN : NODE_STATUS_OK);
}

void event_detect_capture(const node *n, double baseline_t, event_state *s)
{
	const observation *o = &n->obs;
	memset(s, 0, sizeof *s);
	s->answered_ever = n->has_observation;
	s->reachable = n->reachable;
	s->status = lasting_status(n, baseline_t);
	int count = n->findings.count < MAX_FINDINGS ? n->findings.count : MAX_FINDINGS;
	/* the cluster's findings are cluster events (event_cluster.h), not the
	 * node's; they still make its status, whose event names the worst */
	int own = n->n_own_findings < count ? n->n_own_findings : count;
	severity worst = SEVERITY_OK;
	for (int i = 0; i < count; i++) {
		const finding *f = &n->findings.items[i];
		if (event_detect_counts(f, baseline_t) && (!s->why || f->sev > worst)) {
			s->why = f->code;
			worst = f->sev;
		}
	}
	for (int i = 0; i < own; i++) {
		const finding *f = &n->findings.items[i];
		if (!event_detect_counts(f, baseline_t)) {
			continue; /* not an event until it has lasted its `for` */
		}
		event_finding *ef = &s->findings[s->n_findings++];
		ef->code = f->code;
		ef->sev = f->sev;
		ef->since = f->since;
		snprintf(ef->message, sizeof ef->message, "%.*s", (int)strnlen(f->message, sizeof f->message),
			 f->message);
	}

	const chrony_tracking *tr = &o->chrony.tracking;
	s->chrony_ok = n->has_observation && o->chrony.state == OBS_OK;
	if (s->chrony_ok) {
		if (chrony_tracking_has_reference(tr)) {
			if (tr->reference_name[0]) {
				snprintf(s->chrony_reference, sizeof s->chrony_reference, "%.*s",
					 (int)strnlen(tr->reference_name, sizeof tr->reference_name), tr->reference_name);
			} else if (tr->has_reference_id) {
				snprintf(s->chrony_reference, sizeof s->chrony_reference, "%08X",
					 (unsigned)tr->reference_id);
			}
		}
		copy(s->chrony_leap, sizeof s->chrony_leap, chrony_leap_name(tr->leap));
	}
	s->ntp_ok = n->has_observation && o->ntp.state == OBS_OK;
	if (s->ntp_ok) {
		const ntp_peer *peer = ntp_system_peer(&o->ntp);
		if (peer) {
			snprintf(s->ntp_peer, sizeof s->ntp_peer, "%.*s", (int)strnlen(peer->remote, sizeof peer->remote),
				 peer->remote);
		}
	}
	s->clock_class = INT_UNKNOWN;
	s->ptp_ok = n->has_observation && o->ptp.state == OBS_OK;
	if (s->ptp_ok) {
		s->n_ports = ptp_port_count(&o->ptp);
		for (int i = 0; i < s->n_ports; i++) {
			const ptp_port *p = &o->ptp.ports[i];
			event_port *ep = &s->ports[i];
			if (p->interface[0]) {
				snprintf(ep->name, sizeof ep->name, "%.*s", (int)strnlen(p->interface, sizeof p->interface),
					 p->interface);
			} else {
				snprintf(ep->name, sizeof ep->name, "%.*s",
					 (int)strnlen(p->port_identity, sizeof p->port_identity), p->port_identity);
			}
			copy(ep->state, sizeof ep->state, ptp_port_state_name(p->state));
		}
		const char *gm = cluster_node_grandmaster(&o->ptp);
		if (gm) {
			snprintf(s->grandmaster, sizeof s->grandmaster, "%.*s", (int)strnlen(gm, PTP_ID_LEN), gm);
		}
		s->clock_class = o->ptp.gm_clock_class;
	}
	for (int k = 0; k < DAEMON_KINDS; k++) {
		const daemon_proc *p = &o->daemons.procs[k];
		s->daemons[k].restarted_now = n->has_observation && p->restarted_now;
		s->daemons[k].restarted_at = n->has_observation ? p->restarted_at : NAN;
		s->daemons[k].pid = p->pid;
		s->daemons[k].previous_pid = p->previous_pid;
		s->daemons[k].age_s = p->age_s;
	}

	double offset;
	int64_t ns;
	s->chrony_offset_s = NAN;
	s->ptp_offset_ns = PTP_NS_UNKNOWN;
	s->clock_offset_s = NAN;
	s->chrony_at = s->ptp_at = s->clock_at = NAN;
	if (cluster_chrony_offset(n, &offset)) {
		s->chrony_offset_s = offset;
		s->chrony_at = o->taken_at;
	}
	if (cluster_ptp_offset(n, &ns)) {
		s->ptp_offset_ns = ns;
		s->ptp_at = o->taken_at;
	}
	if (o->clock.state == OBS_OK && isfinite(o->clock.offset_s)) {
		s->clock_offset_s = o->clock.offset_s;
		s->clock_at = o->clock.measured_at;
	}
}

void event_detect_keep_findings(const event_state *before, event_state *now)
{
	if (!now->reachable) {
		now->n_findings = before->n_findings;
		memcpy(now->findings, before->findings, sizeof now->findings);
	}
}

/* ------------------------------------------------------------ comparing */

typedef struct {
	event *out;
	size_t max, count;
	double t;
	uint32_t node;
} emitter;

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void emit(emitter *em, event_kind kind, const char *subject, const char *from, const char *to,
		 const char *fmt, ...)
{
	if (em->count < em->max) {
		char message[EVENT_MESSAGE_LEN];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(message, sizeof message, fmt, ap);
		va_end(ap);
		event_set(&em->out[em->count], kind, em->node, em->t, subject, from, to, message);
	}
	em->count++;
}

static const event_finding *find_code(const event_state *s, const char *code)
{
	for (int i = 0; i < s->n_findings; i++) {
		if (strcmp(s->findings[i].code, code) == 0) {
			return &s->findings[i];
		}
	}
	return NULL;
}

static void compare_findings(emitter *em, const event_state *a, const event_state *b)
{
	/* raised and changed, in b's order (most severe first) */
	for (int i = 0; i < b->n_findings; i++) {
		const event_finding *now = &b->findings[i];
		const event_finding *was = find_code(a, now->code);
		if (!was) {
			/* one that waited its `for` says how long it has lasted */
			char lasted[32] = "";
			if (isfinite(now->since) && now->since > 0 && em->t - now->since >= 1) {
				snprintf(lasted, sizeof lasted, " for %.0f s", em->t - now->since);
			}
			emit(em, EVENT_FINDING_RAISED, now->code, "", severity_name(now->sev), "%s %s%s: %s",
			     severity_name(now->sev), now->code, lasted, now->message);
		} else if (was->sev != now->sev) {
			emit(em, EVENT_FINDING_CHANGED, now->code, severity_name(was->sev), severity_name(now->sev),
			     "%s %s -> %s: %s", now->code, severity_name(was->sev), severity_name(now->sev),
			     now->message);
		}
	}
	for (int i = 0; i < a->n_findings; i++) {
		const event_finding *was = &a->findings[i];
		if (!find_code(b, was->code)) {
			emit(em, EVENT_FINDING_CLEARED, was->code, severity_name(was->sev), "", "%s cleared (was %s: %s)",
			     was->code, severity_name(was->sev), was->message);
		}
	}
}

static void compare_value(emitter *em, event_kind kind, const char *subject, const char *a, const char *b,
			  const char *what)
{
	if (strcmp(a, b) != 0) {
		emit(em, kind, subject, a, b, "%s %s -> %s", what, a[0] ? a : "none", b[0] ? b : "none");
	}
}

static const event_port *find_port(const event_state *s, const char *name)
{
	for (int i = 0; i < s->n_ports; i++) {
		if (strcmp(s->ports[i].name, name) == 0) {
			return &s->ports[i];
		}
	}
	return NULL;
}

static void compare_ptp(emitter *em, const event_state *a, const event_state *b)
{
	for (int i = 0; i < b->n_ports; i++) {
		const event_port *now = &b->ports[i];
		const event_port *was = find_port(a, now->name);
		const char *from = was ? was->state : "";
		if (strcmp(from, now->state) != 0) {
			emit(em, EVENT_PTP_PORT_STATE, now->name, from, now->state, "PTP port %s %s -> %s", now->name,
			     from[0] ? from : "absent", now->state);
		}
	}
	for (int i = 0; i < a->n_ports; i++) {
		if (!find_port(b, a->ports[i].name)) {
			emit(em, EVENT_PTP_PORT_STATE, a->ports[i].name, a->ports[i].state, "",
			     "PTP port %s %s -> absent", a->ports[i].name, a->ports[i].state);
		}
	}
	compare_value(em, EVENT_PTP_GRANDMASTER, "", a->grandmaster, b->grandmaster, "grandmaster");
	if (a->clock_class != INT_UNKNOWN && b->clock_class != INT_UNKNOWN && a->clock_class != b->clock_class) {
		char from[16], to[16];
		snprintf(from, sizeof from, "%d", a->clock_class);
		snprintf(to, sizeof to, "%d", b->clock_class);
		emit(em, EVENT_PTP_CLOCK_CLASS, "", from, to, "grandmaster clockClass %s -> %s (%s)", from, to,
		     ptp_clock_class_meaning(b->clock_class));
	}
}

static void compare_daemons(emitter *em, const event_state *a, const event_state *b)
{
	for (int k = 0; k < DAEMON_KINDS; k++) {
		const char *name = daemon_name(1u << k);
		/* restarted_now stays set until the next poll: once per restart */
		bool again = isnan(a->daemons[k].restarted_at) ||
			     a->daemons[k].restarted_at != b->daemons[k].restarted_at;
		if (!b->daemons[k].restarted_now || !again) {
			continue;
		}
		char from[16], to[16];
		snprintf(from, sizeof from, "%d", b->daemons[k].previous_pid);
		snprintf(to, sizeof to, "%d", b->daemons[k].pid);
		emit(em, EVENT_DAEMON_RESTARTED, name, from, to, "%s restarted: PID %s (was %s), %lld s old", name, to,
		     from, (long long)b->daemons[k].age_s);
	}
}

static void step(emitter *em, const char *what, double a, double a_at, double b, double b_at, double limit)
{
	if (!isfinite(a) || !isfinite(b) || !isfinite(b_at) || a_at == b_at || !(fabs(b - a) > limit)) {
		return;
	}
	char from[EVENT_VALUE_LEN], to[EVENT_VALUE_LEN], by[EVENT_VALUE_LEN];
	snprintf(from, sizeof from, "%.9f", a);
	snprintf(to, sizeof to, "%.9f", b);
	units_format_seconds(b - a, by, sizeof by);
	emit(em, EVENT_CLOCK_STEP, what, from, to, "%s stepped by %s between two polls", what, by);
}

size_t event_detect_compare(const event_state *before, const event_state *after, const event_limits *lim,
			    double t, uint32_t node_index, event *out, size_t max)
{
	emitter em = {.out = out, .max = max, .count = 0, .t = t, .node = node_index};
	const event_state *a = before, *b = after;
	if (!a->answered_ever || !b->answered_ever) {
		return 0; /* the baseline: nothing has changed yet */
	}
	if (a->reachable && !b->reachable) {
		emit(&em, EVENT_CONNECTION_LOST, "", "up", "down", "connection lost");
	} else if (!a->reachable && b->reachable) {
		emit(&em, EVENT_CONNECTION_RESTORED, "", "down", "up", "connection restored");
	}
	if (a->status != b->status) {
		const char *why = b->why ? b->why : "";
		emit(&em, EVENT_STATUS, "", node_status_name(a->status), node_status_name(b->status), "status %s -> %s%s%s",
		     node_status_name(a->status), node_status_name(b->status), why[0] ? ": " : "", why);
	}
	if (b->reachable) {
		/* an unreachable node is not judged: its findings did not clear */
		compare_findings(&em, a, b);
	}
	if (a->chrony_ok && b->chrony_ok) {
		compare_value(&em, EVENT_CHRONY_REFERENCE, "", a->chrony_reference, b->chrony_reference,
			      "chrony reference");
		compare_value(&em, EVENT_CHRONY_LEAP, "", a->chrony_leap, b->chrony_leap, "chrony leap status");
	}
	if (a->ntp_ok && b->ntp_ok) {
		compare_value(&em, EVENT_NTP_PEER, "", a->ntp_peer, b->ntp_peer, "ntpd system peer");
	}
	if (a->ptp_ok && b->ptp_ok) {
		compare_ptp(&em, a, b);
	}
	compare_daemons(&em, a, b);
	double limit = lim->step_s;
	step(&em, "chrony offset", a->chrony_offset_s, a->chrony_at, b->chrony_offset_s, b->chrony_at, limit);
	step(&em, "PTP offset", a->ptp_offset_ns == PTP_NS_UNKNOWN ? NAN : (double)a->ptp_offset_ns * 1e-9, a->ptp_at,
	     b->ptp_offset_ns == PTP_NS_UNKNOWN ? NAN : (double)b->ptp_offset_ns * 1e-9, b->ptp_at, limit);
	step(&em, "clock check", a->clock_offset_s, a->clock_at, b->clock_offset_s, b->clock_at, limit);
	return em.count;
}
