/* event.c - the event record, its kinds and their names (event.h). */
#include <config.h>

#include "event.h"

#include <stdio.h>
#include <string.h>

#include "sanitize.h"

static const char *const kind_names[EVENT_KIND_COUNT] = {
	[EVENT_STATUS] = "status",
	[EVENT_FINDING_RAISED] = "finding_raised",
	[EVENT_FINDING_CHANGED] = "finding_changed",
	[EVENT_FINDING_CLEARED] = "finding_cleared",
	[EVENT_CHRONY_REFERENCE] = "chrony_reference",
	[EVENT_CHRONY_LEAP] = "chrony_leap",
	[EVENT_NTP_PEER] = "ntp_peer",
	[EVENT_PTP_PORT_STATE] = "ptp_port_state",
	[EVENT_PTP_GRANDMASTER] = "ptp_grandmaster",
	[EVENT_PTP_CLOCK_CLASS] = "ptp_clock_class",
	[EVENT_DAEMON_RESTARTED] = "daemon_restarted",
	[EVENT_CLOCK_STEP] = "clock_step",
	[EVENT_CONNECTION_LOST] = "connection_lost",
	[EVENT_CONNECTION_RESTORED] = "connection_restored",
	[EVENT_CLUSTER_FINDING_RAISED] = "cluster_finding_raised",
	[EVENT_CLUSTER_FINDING_CLEARED] = "cluster_finding_cleared",
	[EVENT_GROUP] = "group",
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == EVENT_KIND_COUNT, "a name per event kind");

const char *event_kind_name(event_kind kind)
{
	if ((unsigned)kind >= EVENT_KIND_COUNT) {
		return NULL;
	}
	return kind_names[kind];
}

bool event_kind_parse(const char *s, event_kind *kind)
{
	for (int k = 0; k < EVENT_KIND_COUNT; k++) {
		if (strcmp(s, kind_names[k]) == 0) {
			*kind = (event_kind)k;
			return true;
		}
	}
	return false;
}

static void put(char *out, size_t out_len, const char *s)
{
	if (!s) {
		s = "";
	}
	sanitize_text(s, strlen(s), out, out_len, SANITIZE_SINGLE_LINE);
}

void event_set(event *e, event_kind kind, uint32_t node, double t, const char *subject, const char *from,
	       const char *to, const char *message)
{
	memset(e, 0, sizeof *e);
	e->kind = kind;
	e->group_kind = kind;
	e->node = node;
	e->t = t;
	put(e->subject, sizeof e->subject, subject);
	put(e->from, sizeof e->from, from);
	put(e->to, sizeof e->to, to);
	put(e->message, sizeof e->message, message);
}

bool event_same_change(const event *a, const event *b)
{
	if (a->kind != b->kind || strcmp(a->subject, b->subject) != 0) {
		return false;
	}
	/* PIDs and offsets differ from node to node: phc2sys restarting on 41
	 * nodes at once is still one change */
	if (a->kind == EVENT_DAEMON_RESTARTED || a->kind == EVENT_CLOCK_STEP) {
		return true;
	}
	return strcmp(a->from, b->from) == 0 && strcmp(a->to, b->to) == 0;
}

/* How each kind names what changed, before "from -> to". */
static const char *change_noun(const event *e)
{
	switch (e->kind) {
	case EVENT_STATUS:
		return "status";
	case EVENT_CHRONY_REFERENCE:
		return "chrony reference";
	case EVENT_CHRONY_LEAP:
		return "chrony leap status";
	case EVENT_NTP_PEER:
		return "ntpd system peer";
	case EVENT_PTP_GRANDMASTER:
		return "grandmaster";
	case EVENT_PTP_CLOCK_CLASS:
		return "grandmaster clockClass";
	default:
		return NULL;
	}
}

void event_describe_change(const event *e, char *out, size_t out_len)
{
	const char *from = e->from[0] ? e->from : "none";
	const char *to = e->to[0] ? e->to : "none";
	const char *noun = change_noun(e);
	switch (e->kind) {
	case EVENT_FINDING_RAISED:
	case EVENT_CLUSTER_FINDING_RAISED:
		snprintf(out, out_len, "%s raised (%s)", e->subject, to);
		break;
	case EVENT_FINDING_CLEARED:
	case EVENT_CLUSTER_FINDING_CLEARED:
		snprintf(out, out_len, "%s cleared (was %s)", e->subject, from);
		break;
	case EVENT_FINDING_CHANGED:
		snprintf(out, out_len, "%s %s -> %s", e->subject, from, to);
		break;
	case EVENT_PTP_PORT_STATE:
		snprintf(out, out_len, "PTP port %s %s -> %s", e->subject, from, to);
		break;
	case EVENT_DAEMON_RESTARTED:
		snprintf(out, out_len, "%s restarted", e->subject);
		break;
	case EVENT_CLOCK_STEP:
		snprintf(out, out_len, "%s stepped", e->subject);
		break;
	case EVENT_CONNECTION_LOST:
		snprintf(out, out_len, "connection lost");
		break;
	case EVENT_CONNECTION_RESTORED:
		snprintf(out, out_len, "connection restored");
		break;
	default:
		snprintf(out, out_len, "%s %s -> %s", noun ? noun : e->subject, from, to);
		break;
	}
}
