/* remote_history.c - a node's history from a remote store (remote_history.h). */
#include <config.h>

#include "remote_history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

remote_history *remote_history_new(double asked_at, double start, double end, double step)
{
	remote_history *h = xcalloc(1, sizeof *h);
	h->state = REMOTE_HISTORY_LOADING;
	h->asked_at = asked_at;
	h->start = start;
	h->end = end;
	h->step = step;
	return h;
}

void remote_history_set(remote_history *h, remote_series_id id, const double *t, const double *v, size_t n,
			const char *what)
{
	remote_series *s = &h->series[id];
	free(s->t);
	s->t = xmalloc((n ? n : 1) * 2 * sizeof *s->t);
	s->v = s->t + n;
	if (n) {
		memcpy(s->t, t, n * sizeof *t);
		memcpy(s->v, v, n * sizeof *v);
	}
	s->n = n;
	snprintf(s->what, sizeof s->what, "%s", what ? what : "");
}

void remote_history_free(remote_history *h)
{
	if (!h) {
		return;
	}
	for (int i = 0; i < REMOTE_SERIES_COUNT; i++) {
		free(h->series[i].t);
	}
	free(h);
}
