/* event_log.c - staging, grouping and the ring (event_log.h). */
#include <config.h>

#include "event_log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_cluster.h"
#include "xalloc.h"

struct event_log {
	event *ring;
	/* per slot: events outside groups logged up to and including this one
	 * (a group counts once), so a count over a time window is two binary
	 * searches, not a scan */
	uint64_t *top_upto;
	uint64_t top_total;
	size_t capacity;
	size_t head;      /* next slot to write */
	size_t count;
	uint64_t last_id;
	unsigned long overwritten;

	event_cluster_state cluster; /* the settled nodes' cluster findings at the last refresh */

	event *staged;    /* this refresh's, before grouping */
	size_t n_staged, staged_cap;
	unsigned long dropped;
};

event_log *event_log_new(size_t capacity)
{
	event_log *l = xcalloc(1, sizeof *l);
	l->capacity = capacity ? capacity : 1;
	/* calloc: a large block is mapped on demand, so the pages of events
	 * not logged yet cost nothing */
	l->ring = xcalloc(l->capacity, sizeof *l->ring);
	l->top_upto = xcalloc(l->capacity, sizeof *l->top_upto);
	return l;
}

void event_log_free(event_log *l)
{
	if (!l) {
		return;
	}
	free(l->ring);
	free(l->top_upto);
	free(l->staged);
	free(l);
}

void event_log_stage(event_log *l, const event *e)
{
	if (l->n_staged == EVENT_LOG_STAGE_MAX) {
		l->dropped++;
		return;
	}
	if (l->n_staged == l->staged_cap) {
		l->staged_cap = l->staged_cap ? 2 * l->staged_cap : 64;
		l->staged = xrealloc(l->staged, l->staged_cap * sizeof *l->staged);
	}
	l->staged[l->n_staged++] = *e;
}

void event_log_watch(event_watch *w, const node *n, double t)
{
	event_state now;
	event found[32];
	event_detect_capture(n, w->settled_at, &now);
	event_detect_keep_findings(&w->prev, &now);
	if (w->settled) {
		size_t count = event_detect_compare(&w->prev, &now, &w->limits, t, w->index, found,
						    sizeof found / sizeof found[0]);
		if (count > sizeof found / sizeof found[0]) {
			w->log->dropped += count - sizeof found / sizeof found[0];
			count = sizeof found / sizeof found[0];
		}
		for (size_t i = 0; i < count; i++) {
			event_log_stage(w->log, &found[i]);
		}
	}
	w->prev = now;
}

void event_log_watch_refresh(event_watch *w, const node *n, double t)
{
	if (!w->settled) {
		bool checked = !w->await_clock_check || n->obs.clock.state != OBS_NOT_COLLECTED;
		if (n->has_observation && checked) {
			w->settled = true;
			w->settled_at = t;
			event_detect_capture(n, INFINITY, &w->prev);
		}
		return;
	}
	event_log_watch(w, n, t);
}

void event_log_refresh(event_log *l, const node *nodes, size_t n, double t)
{
	event_cluster_state now, before = l->cluster;
	now.count = 0;
	for (size_t i = 0; i < n; i++) {
		event_watch *w = nodes[i].watch;
		if (!w) {
			continue;
		}
		bool was_settled = w->settled;
		event_log_watch_refresh(w, &nodes[i], t);
		if (!w->settled) {
			continue;
		}
		event_cluster_add(&now, &nodes[i], w->settled_at);
		if (!was_settled) {
			event_cluster_add(&before, &nodes[i], INFINITY); /* start-up: already so */
		}
	}
	event found[2 * EVENT_CLUSTER_CODES];
	size_t count = event_cluster_compare(&before, &now, t, found, sizeof found / sizeof found[0]);
	for (size_t i = 0; i < count && i < sizeof found / sizeof found[0]; i++) {
		event_log_stage(l, &found[i]);
	}
	l->cluster = now;
}

static void append(event_log *l, event *e)
{
	e->id = ++l->last_id;
	if (l->count == l->capacity) {
		l->overwritten++;
	} else {
		l->count++;
	}
	l->ring[l->head] = *e;
	if (e->group == 0) {
		l->top_total++;
	}
	l->top_upto[l->head] = l->top_total;
	l->head = (l->head + 1) % l->capacity;
}

/* qsort's context: the staged events */
static const event *sort_base;

static int by_change(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	const event *a = &sort_base[i], *b = &sort_base[j];
	if (a->kind != b->kind) {
		return a->kind < b->kind ? -1 : 1;
	}
	int c = strcmp(a->subject, b->subject);
	if (c == 0 && !event_same_change(a, b)) {
		c = strcmp(a->from, b->from);
		if (c == 0) {
			c = strcmp(a->to, b->to);
		}
	}
	if (c != 0) {
		return c;
	}
	return i < j ? -1 : (i > j ? 1 : 0); /* stable: staging order */
}

size_t event_log_commit(event_log *l, unsigned group_over)
{
	size_t n = l->n_staged;
	if (n == 0) {
		return 0;
	}
	uint64_t first_id = l->last_id + 1;
	size_t *order = xmalloc(n * sizeof *order);
	size_t *run_start = xmalloc(n * sizeof *run_start); /* per staged event: its run in order[] */
	size_t *run_len = xmalloc(n * sizeof *run_len);
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
	}
	sort_base = l->staged;
	qsort(order, n, sizeof *order, by_change);
	sort_base = NULL;
	for (size_t s = 0; s < n;) {
		size_t e = s + 1;
		while (e < n && event_same_change(&l->staged[order[s]], &l->staged[order[e]])) {
			e++;
		}
		for (size_t k = s; k < e; k++) {
			run_start[order[k]] = s;
			run_len[order[k]] = e - s;
		}
		s = e;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = run_len[i];
		if (len <= group_over) {
			append(l, &l->staged[i]);
			continue;
		}
		size_t s = run_start[i];
		if (order[s] != i) {
			continue; /* a member already logged with its group */
		}
		const event *m = &l->staged[i];
		event g;
		char change[EVENT_MESSAGE_LEN], message[EVENT_MESSAGE_LEN + 32];
		event_describe_change(m, change, sizeof change);
		snprintf(message, sizeof message, "%zu nodes: %s", len, change);
		bool per_node = m->kind == EVENT_DAEMON_RESTARTED || m->kind == EVENT_CLOCK_STEP;
		event_set(&g, EVENT_GROUP, EVENT_NODE_GROUP, m->t, m->subject, per_node ? "" : m->from,
			  per_node ? "" : m->to, message);
		g.group_kind = m->kind;
		g.group_size = (uint32_t)len;
		append(l, &g);
		uint64_t gid = l->last_id;
		for (size_t k = s; k < s + len; k++) {
			event member = l->staged[order[k]];
			member.group = gid;
			append(l, &member);
		}
	}
	free(order);
	free(run_start);
	free(run_len);
	l->n_staged = 0;
	return (size_t)(l->last_id - first_id + 1);
}

uint64_t event_log_restore(event_log *l, const event *e)
{
	event copy = *e;
	append(l, &copy);
	return l->last_id;
}

size_t event_log_count(const event_log *l)
{
	return l->count;
}

const event *event_log_at(const event_log *l, size_t i)
{
	if (i >= l->count) {
		return NULL;
	}
	size_t oldest = (l->head + l->capacity - l->count) % l->capacity;
	return &l->ring[(oldest + i) % l->capacity];
}

const event *event_log_find(const event_log *l, uint64_t id)
{
	uint64_t oldest_id = l->last_id - l->count + 1;
	if (l->count == 0 || id < oldest_id || id > l->last_id) {
		return NULL;
	}
	return event_log_at(l, (size_t)(id - oldest_id));
}

uint64_t event_log_last_id(const event_log *l)
{
	return l->last_id;
}

static uint64_t top_upto_at(const event_log *l, size_t i)
{
	size_t oldest = (l->head + l->capacity - l->count) % l->capacity;
	return l->top_upto[(oldest + i) % l->capacity];
}

size_t event_log_count_since(const event_log *l, double since)
{
	if (l->count == 0) {
		return 0;
	}
	/* the first event at or after since: times grow from refresh to
	 * refresh (within one they are its nodes' poll times) */
	size_t lo = 0, hi = l->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (event_log_at(l, mid)->t < since) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo == l->count) {
		return 0;
	}
	uint64_t before = lo > 0 ? top_upto_at(l, lo - 1) : top_upto_at(l, 0) - (event_log_at(l, 0)->group == 0);
	return (size_t)(l->top_total - before);
}

unsigned long event_log_dropped(const event_log *l)
{
	return l->dropped;
}

unsigned long event_log_overwritten(const event_log *l)
{
	return l->overwritten;
}
