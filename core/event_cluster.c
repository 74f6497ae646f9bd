/* event_cluster.c - cluster findings folded per code, compared into cluster
 * events (event_cluster.h). */
#include <config.h>

#include "event_cluster.h"

#include <stdio.h>
#include <string.h>

#include "event_detect.h"

/* The index of code's entry in s, -1 if none. */
static int find(const event_cluster_state *s, const char *code)
{
	for (int i = 0; i < s->count; i++) {
		if (strcmp(s->items[i].code, code) == 0) {
			return i;
		}
	}
	return -1;
}

void event_cluster_add_finding(event_cluster_state *s, const char *code, severity sev, const char *host,
			       const char *message)
{
	if (!code) {
		return;
	}
	int at = find(s, code);
	if (at < 0) {
		if (s->count >= EVENT_CLUSTER_CODES) {
			return;
		}
		at = s->count++;
		event_cluster_finding *c = &s->items[at];
		memset(c, 0, sizeof *c);
		c->code = code;
		c->sev = sev;
		snprintf(c->first, sizeof c->first, "%s", host ? host : "");
		snprintf(c->message, sizeof c->message, "%s", message ? message : "");
	} else if (sev > s->items[at].sev) {
		s->items[at].sev = sev;
	}
	s->items[at].nodes++;
}

void event_cluster_add(event_cluster_state *s, const node *n, double baseline_t)
{
	int own = n->n_own_findings < 0 ? 0 : n->n_own_findings;
	char host[EVENT_CLUSTER_HOST_LEN];
	snprintf(host, sizeof host, "%.*s", (int)strnlen(n->host, sizeof n->host), n->host);
	for (int i = own; i < n->findings.count && i < MAX_FINDINGS; i++) {
		const finding *f = &n->findings.items[i];
		if (!event_detect_counts(f, baseline_t)) {
			continue; /* not an event until it has lasted its `for` */
		}
		char message[FINDING_MESSAGE_LEN];
		snprintf(message, sizeof message, "%.*s", (int)strnlen(f->message, sizeof f->message), f->message);
		event_cluster_add_finding(s, f->code, f->sev, host, message);
	}
}

static size_t put(event *out, size_t max, size_t count, event_kind kind, double t, const event_cluster_finding *c,
		  const char *from, const char *to, const char *message)
{
	if (count < max) {
		event_set(&out[count], kind, EVENT_NODE_CLUSTER, t, c->code, from, to, message);
		out[count].group_size = c->nodes;
	}
	return count + 1;
}

/* "3 nodes (gpu001 and 2 more)" */
static void nodes_phrase(const event_cluster_finding *c, char *out, size_t out_len)
{
	if (c->nodes == 1) {
		snprintf(out, out_len, "1 node (%s)", c->first);
	} else {
		snprintf(out, out_len, "%u nodes (%s and %u more)", c->nodes, c->first, c->nodes - 1);
	}
}

size_t event_cluster_compare(const event_cluster_state *before, const event_cluster_state *after, double t,
			     event *out, size_t max)
{
	size_t count = 0;
	char on[EVENT_CLUSTER_HOST_LEN + 48], message[EVENT_MESSAGE_LEN];
	for (int i = 0; i < after->count; i++) {
		const event_cluster_finding *now = &after->items[i];
		int at = find(before, now->code);
		if (at >= 0 && before->items[at].sev == now->sev) {
			continue;
		}
		nodes_phrase(now, on, sizeof on);
		if (at < 0) {
			snprintf(message, sizeof message, "%s %s on %s: %s", severity_name(now->sev), now->code, on,
				 now->message);
			count = put(out, max, count, EVENT_CLUSTER_FINDING_RAISED, t, now, "",
				    severity_name(now->sev), message);
		} else {
			const event_cluster_finding *was = &before->items[at];
			snprintf(message, sizeof message, "%s %s -> %s on %s: %s", now->code, severity_name(was->sev),
				 severity_name(now->sev), on, now->message);
			count = put(out, max, count, EVENT_CLUSTER_FINDING_RAISED, t, now, severity_name(was->sev),
				    severity_name(now->sev), message);
		}
	}
	for (int i = 0; i < before->count; i++) {
		const event_cluster_finding *was = &before->items[i];
		if (find(after, was->code) >= 0) {
			continue;
		}
		snprintf(message, sizeof message, "%s cleared (was %s on %u node%s)", was->code, severity_name(was->sev),
			 was->nodes, was->nodes == 1 ? "" : "s");
		event_cluster_finding gone = *was;
		gone.nodes = 0;
		count = put(out, max, count, EVENT_CLUSTER_FINDING_CLEARED, t, &gone, severity_name(was->sev), "",
			    message);
	}
	return count;
}
