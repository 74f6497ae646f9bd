/* state_writer.c - the --state-dir writer thread (state_writer.h).
 *
 * Hand-over as in event_file.c: the loop appends copies to `q` under
 * `lock` and signals `wake`; the thread swaps the queue for its own empty
 * one, writes it with the lock released, and tells the loop through an
 * ev_async when a write failed. */
#include <config.h>

#include "state_writer.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drift_trend.h"
#include "node.h"
#include "walltime.h"
#include "xalloc.h"

typedef struct {
	event e;
	bool has_host;
	char host[NODE_NAME_LEN];
} event_item;

typedef struct {
	state_writer_row *samples;
	size_t n_samples, cap_samples;
	event_item *events;
	size_t n_events, cap_events;
} batch;

/* An hour's sums of a node's minute means, x from the hour's start. */
typedef struct {
	int64_t hour; /* unix time / 3600 */
	drift_sums sums;
} drift_hour;

typedef struct {
	int64_t id;
	size_t index;
} tracked_node;

#define DRIFT_HOURS ((size_t)(STATE_WRITER_DRIFT_SINCE_S / 3600.0) + 2)

struct state_writer {
	struct ev_loop *loop;
	state_writer_done_fn done;
	void *ctx;
	ev_async told;

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;  /* items or stop, for the thread */
	pthread_cond_t idle;  /* the queue written, for state_writer_free */

	/* under lock */
	batch q;
	bool writing;
	bool stop;
	bool abandoned;       /* free gave up waiting: the thread frees it */
	bool failing;         /* the last write failed: retried after a delay */
	bool report;          /* failing changed: for the loop */
	char err[STATE_ERROR_LEN];
	size_t held;          /* samples the thread holds for a retry */
	int64_t *drift_ids;   /* the tracked nodes ... */
	double *drift;        /* ... and their trends, published */
	size_t n_drift;
	unsigned drift_gen;
	bool drift_changed;   /* new drift_ids: the thread reads them afresh */

	/* loop only */
	size_t queue_max;
	unsigned long dropped;

	/* thread only */
	state_store *store;
	batch mine;
	uint64_t group_id;    /* the last group's event id in this run ... */
	int64_t group_row;    /* ... and its row */
	double last_maintain; /* monotonic */
	/* the drift trends' running sums: per tracked node, an hour a slot */
	size_t n_tracked;
	tracked_node *tracked; /* by id: each id's index in drift_ids */
	drift_hour *hours;    /* n_tracked * DRIFT_HOURS, by drift_ids' index */
	bool drift_ready;     /* the sums hold what the database holds */
	double retry_at;      /* monotonic: the next attempt while failing */
	double backoff;       /* the delay after the next failure */
};

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void batch_free(batch *b)
{
	free(b->samples);
	free(b->events);
	memset(b, 0, sizeof *b);
}

static void writer_destroy(state_writer *w)
{
	free(w->drift_ids);
	free(w->drift);
	free(w->tracked);
	free(w->hours);
	batch_free(&w->q);
	batch_free(&w->mine);
	state_store_close(w->store);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->idle);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Writes the thread's batch in one transaction; 0 or -1. */
static int write_batch(state_writer *w)
{
	batch *b = &w->mine;
	if (b->n_samples == 0 && b->n_events == 0) {
		return 0;
	}
	if (state_store_begin(w->store) != 0) {
		return -1;
	}
	for (size_t i = 0; i < b->n_samples; i++) {
		if (state_store_put_sample(w->store, b->samples[i].node_id, &b->samples[i].x) != 0) {
			goto fail;
		}
	}
	for (size_t i = 0; i < b->n_events; i++) {
		const event_item *it = &b->events[i];
		int64_t row;
		int64_t group_row = it->e.group && it->e.group == w->group_id ? w->group_row : 0;
		if (state_store_put_event(w->store, &it->e, it->has_host ? it->host : NULL, group_row, &row) != 0) {
			goto fail;
		}
		if (it->e.kind == EVENT_GROUP) {
			w->group_id = it->e.id;
			w->group_row = row;
		}
	}
	return state_store_commit(w->store);
fail:
	state_store_rollback(w->store);
	return -1;
}

/* A write or maintenance failed (failed) or the first one after a
 * failure worked: told to the loop when it changes.  Thread only. */
static void set_failing(state_writer *w, bool failed)
{
	double now = mono_now();
	if (failed) {
		w->retry_at = now + w->backoff;
		w->backoff = fmin(w->backoff * 2, STATE_WRITER_RETRY_MAX_S);
	} else {
		w->backoff = STATE_WRITER_RETRY_FIRST_S;
	}
	pthread_mutex_lock(&w->lock);
	if (w->failing != failed) {
		w->failing = failed;
		w->report = true;
		snprintf(w->err, sizeof w->err, "%s", failed ? state_store_error(w->store) : "");
		ev_async_send(w->loop, &w->told);
	}
	pthread_mutex_unlock(&w->lock);
}

/* Appends src's items to dst (the thread's batch: what a failed write
 * left, then the queue); src emptied. */
static void batch_take(batch *dst, batch *src)
{
	if (dst->n_samples == 0 && dst->n_events == 0) {
		batch t = *dst;
		*dst = *src;
		*src = t;
		return;
	}
	if (dst->n_samples + src->n_samples > dst->cap_samples) {
		dst->cap_samples = dst->n_samples + src->n_samples;
		dst->samples = xrealloc(dst->samples, dst->cap_samples * sizeof *dst->samples);
	}
	if (src->n_samples) {
		memcpy(dst->samples + dst->n_samples, src->samples, src->n_samples * sizeof *src->samples);
	}
	dst->n_samples += src->n_samples;
	if (dst->n_events + src->n_events > dst->cap_events) {
		dst->cap_events = dst->n_events + src->n_events;
		dst->events = xrealloc(dst->events, dst->cap_events * sizeof *dst->events);
	}
	if (src->n_events) {
		memcpy(dst->events + dst->n_events, src->events, src->n_events * sizeof *src->events);
	}
	dst->n_events += src->n_events;
	src->n_samples = src->n_events = 0;
}

/* One minute mean into its node's hour.  Thread only. */
static void drift_add(state_writer *w, size_t index, double t, double ppm)
{
	int64_t hour = (int64_t)floor(t / 3600.0);
	drift_hour *h = &w->hours[index * DRIFT_HOURS + (size_t)(hour % (int64_t)DRIFT_HOURS)];
	if (h->hour > hour) {
		return; /* older than the slot's hour: out of the window */
	}
	if (h->hour != hour) {
		h->hour = hour;
		drift_sums_init(&h->sums);
	}
	drift_sums_add(&h->sums, t - (double)hour * 3600.0, ppm);
}

/* state_fold_fn: each minute the maintenance folded. */
static void on_folded(void *ctx, int64_t node_id, double t, double ppm)
{
	state_writer *w = ctx;
	if (!w->drift_ready || w->n_tracked == 0) {
		return;
	}
	size_t lo = 0, hi = w->n_tracked;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (w->tracked[mid].id < node_id) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < w->n_tracked && w->tracked[lo].id == node_id) {
		drift_add(w, w->tracked[lo].index, t, ppm);
	}
}

static int by_tracked_id(const void *a, const void *b)
{
	int64_t x = ((const tracked_node *)a)->id, y = ((const tracked_node *)b)->id;
	return (x > y) - (x < y);
}

/* The sums from the database, once (and when the tracked nodes change):
 * 7 days of minute means read here, not at each update.  Thread only. */
static int drift_load(state_writer *w, const int64_t *ids, size_t n, double since)
{
	free(w->tracked);
	free(w->hours);
	w->n_tracked = n;
	w->tracked = xmalloc((n ? n : 1) * sizeof *w->tracked);
	w->hours = xcalloc((n ? n : 1) * DRIFT_HOURS, sizeof *w->hours);
	for (size_t i = 0; i < n; i++) {
		w->tracked[i] = (tracked_node){ids[i], i};
	}
	qsort(w->tracked, n, sizeof *w->tracked, by_tracked_id);
	for (size_t i = 0; i < n * DRIFT_HOURS; i++) {
		w->hours[i].hour = INT64_MIN;
	}
	size_t max = (size_t)(STATE_WRITER_DRIFT_SINCE_S / 60) + 120;
	double *t = xmalloc(max * sizeof *t), *ppm = xmalloc(max * sizeof *ppm);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		int got = state_store_frequency(w->store, ids[i], since, t, ppm, max);
		rc = got < 0 ? -1 : 0;
		for (int k = 0; k < got; k++) {
			drift_add(w, i, t[k], ppm[k]);
		}
	}
	free(t);
	free(ppm);
	w->drift_ready = rc == 0;
	return rc;
}

/* Every tracked node's frequency trend from its hours' sums, published
 * under the lock; 0 or -1.  Thread only. */
static int compute_drift(state_writer *w)
{
	double since = walltime_now() - STATE_WRITER_DRIFT_SINCE_S;
	pthread_mutex_lock(&w->lock);
	size_t n = w->n_drift;
	bool reload = w->drift_changed || !w->drift_ready;
	int64_t *ids = NULL;
	if (reload) {
		ids = xmalloc((n ? n : 1) * sizeof *ids);
		if (n) {
			memcpy(ids, w->drift_ids, n * sizeof *ids);
		}
		w->drift_changed = false;
	}
	pthread_mutex_unlock(&w->lock);
	int rc = reload ? drift_load(w, ids, n, since) : 0;
	free(ids);
	if (rc != 0 || w->n_tracked == 0) {
		return rc;
	}
	n = w->n_tracked;
	int64_t first = (int64_t)floor(since / 3600.0);
	double *out = xmalloc(n * sizeof *out);
	for (size_t i = 0; i < n; i++) {
		drift_sums all;
		drift_sums_init(&all);
		for (size_t k = 0; k < DRIFT_HOURS; k++) {
			const drift_hour *h = &w->hours[i * DRIFT_HOURS + k];
			if (h->hour >= first) {
				drift_sums_merge(&all, &h->sums, (double)(h->hour - first) * 3600.0);
			}
		}
		out[i] = drift_sums_ppm_per_day(&all, DRIFT_TREND_MIN_SPAN_S);
	}
	pthread_mutex_lock(&w->lock);
	if (w->n_drift == n && !w->drift_changed) {
		memcpy(w->drift, out, n * sizeof *out);
		w->drift_gen++;
	}
	pthread_mutex_unlock(&w->lock);
	free(out);
	return 0;
}

/* Waits (lock held) until `until` (monotonic) or stop, whatever arrives. */
static void wait_until(state_writer *w, double until)
{
	struct timespec ts;
	while (!w->stop) {
		double left = until - mono_now();
		if (left <= 0) {
			return;
		}
		monotonic_after(left, &ts);
		if (pthread_cond_timedwait(&w->wake, &w->lock, &ts) == ETIMEDOUT) {
			return;
		}
	}
}

/* The maintenance, its folded minutes into the drift sums, and the drift
 * trends from them; 0 or -1.  Thread only. */
static int maintain(state_writer *w, double now)
{
	if (state_store_maintain_folding(w->store, walltime_now(), on_folded, w) != 0 || compute_drift(w) != 0) {
		return -1;
	}
	w->last_maintain = now;
	return 0;
}

static void *writer_thread(void *arg)
{
	state_writer *w = arg;
	double last_commit = 0;
	bool failing = false;
	w->backoff = STATE_WRITER_RETRY_FIRST_S;
	w->last_maintain = mono_now() - STATE_WRITER_MAINTAIN_S + 5.0; /* the first soon after start */
	pthread_mutex_lock(&w->lock);
	for (;;) {
		for (;;) {
			/* woken by the loop's batch, or maintenance or a retry is due */
			double due = failing ? w->retry_at : w->last_maintain + STATE_WRITER_MAINTAIN_S;
			if (w->stop || (!failing && (w->q.n_samples || w->q.n_events)) || mono_now() >= due) {
				break;
			}
			struct timespec ts;
			monotonic_after(due - mono_now(), &ts);
			pthread_cond_timedwait(&w->wake, &w->lock, &ts);
		}
		/* batches, not a transaction per poll: at most every COMMIT_S */
		if (!failing) {
			wait_until(w, last_commit + STATE_WRITER_COMMIT_S);
		}
		bool stopping = w->stop;
		/* after a failure mine still holds what was not written */
		batch_take(&w->mine, &w->q);
		w->writing = true;
		pthread_mutex_unlock(&w->lock);

		bool ok = write_batch(w) == 0;
		last_commit = mono_now();
		if (ok) {
			w->mine.n_samples = w->mine.n_events = 0;
		}
		if (ok && !stopping && last_commit - w->last_maintain >= STATE_WRITER_MAINTAIN_S) {
			ok = maintain(w, last_commit) == 0;
		}
		if (ok != !failing) {
			failing = !ok;
			set_failing(w, failing);
		} else if (failing) {
			set_failing(w, true); /* the next retry later */
		}

		pthread_mutex_lock(&w->lock);
		w->writing = false;
		w->held = w->mine.n_samples;
		if (w->abandoned) {
			pthread_mutex_unlock(&w->lock);
			writer_destroy(w);
			return NULL;
		}
		pthread_cond_broadcast(&w->idle);
		/* stopping: what is queued is written first, a failing store
		 * is tried once more, then given up */
		if (w->stop && ((w->q.n_samples == 0 && w->q.n_events == 0) || (failing && stopping))) {
			break;
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void on_told(struct ev_loop *loop, ev_async *a, int revents)
{
	(void)loop;
	(void)revents;
	state_writer *w = a->data;
	char err[STATE_ERROR_LEN];
	pthread_mutex_lock(&w->lock);
	bool report = w->report, failing = w->failing;
	memcpy(err, w->err, sizeof err);
	w->report = false;
	pthread_mutex_unlock(&w->lock);
	if (report && w->done) {
		w->done(w->ctx, failing ? err : NULL);
	}
}

state_writer *state_writer_new(struct ev_loop *loop, state_store *store, size_t queue_max, state_writer_done_fn done,
			       void *ctx)
{
	state_writer *w = xcalloc(1, sizeof *w);
	w->loop = loop;
	w->store = store;
	w->queue_max = queue_max ? queue_max : STATE_WRITER_QUEUE_MAX;
	w->done = done;
	w->ctx = ctx;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->wake, &attr);
	pthread_cond_init(&w->idle, &attr);
	pthread_condattr_destroy(&attr);
	ev_async_init(&w->told, on_told);
	w->told.data = w;
	ev_async_start(loop, &w->told);
	int rc = pthread_create(&w->thread, NULL, writer_thread, w);
	if (rc != 0) {
		ev_async_stop(loop, &w->told);
		writer_destroy(w);
		errno = rc;
		return NULL;
	}
	return w;
}

size_t state_writer_samples(state_writer *w, const state_writer_row *rows, size_t n)
{
	pthread_mutex_lock(&w->lock);
	batch *b = &w->q;
	/* what a failed write holds counts against the bound too */
	size_t room = w->queue_max > b->n_samples + w->held ? w->queue_max - b->n_samples - w->held : 0;
	size_t take = n < room ? n : room;
	if (take) {
		if (b->n_samples + take > b->cap_samples) {
			size_t cap = b->cap_samples ? b->cap_samples : 1024;
			while (cap < b->n_samples + take) {
				cap *= 2;
			}
			b->cap_samples = cap;
			b->samples = xrealloc(b->samples, cap * sizeof *b->samples);
		}
		memcpy(b->samples + b->n_samples, rows, take * sizeof *rows);
		b->n_samples += take;
		/* one wake-up a batch: the thread sleeps between the loop's rounds */
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	w->dropped += n - take;
	return take;
}

bool state_writer_sample(state_writer *w, int64_t node_id, const state_sample *x)
{
	state_writer_row row = {.node_id = node_id, .x = *x};
	return state_writer_samples(w, &row, 1) == 1;
}

bool state_writer_event(state_writer *w, const event *e, const char *host)
{
	pthread_mutex_lock(&w->lock);
	batch *b = &w->q;
	/* events are few; their bound is the samples' */
	bool take = b->n_events < w->queue_max;
	if (take) {
		if (b->n_events == b->cap_events) {
			b->cap_events = b->cap_events ? 2 * b->cap_events : 64;
			b->events = xrealloc(b->events, b->cap_events * sizeof *b->events);
		}
		event_item *it = &b->events[b->n_events++];
		it->e = *e;
		it->has_host = host != NULL;
		snprintf(it->host, sizeof it->host, "%s", host ? host : "");
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	if (!take) {
		w->dropped++;
	}
	return take;
}

void state_writer_track_drift(state_writer *w, const int64_t *ids, size_t n)
{
	pthread_mutex_lock(&w->lock);
	free(w->drift_ids);
	free(w->drift);
	w->drift_ids = n ? xmalloc(n * sizeof *ids) : NULL;
	w->drift = n ? xmalloc(n * sizeof *w->drift) : NULL;
	for (size_t i = 0; i < n; i++) {
		w->drift_ids[i] = ids[i];
		w->drift[i] = NAN;
	}
	w->n_drift = n;
	w->drift_changed = true;
	pthread_mutex_unlock(&w->lock);
}

unsigned state_writer_drift(state_writer *w, unsigned seen, double *out, size_t n)
{
	pthread_mutex_lock(&w->lock);
	unsigned gen = w->drift_gen;
	if (gen != seen && n == w->n_drift && n) {
		memcpy(out, w->drift, n * sizeof *out);
	}
	pthread_mutex_unlock(&w->lock);
	return gen;
}

unsigned long state_writer_dropped(const state_writer *w)
{
	return w->dropped;
}

void state_writer_free(state_writer *w, double grace)
{
	if (!w) {
		return;
	}
	struct timespec until;
	monotonic_after(grace, &until);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	int rc = 0;
	while ((w->q.n_samples || w->q.n_events || w->writing) && rc != ETIMEDOUT) {
		rc = pthread_cond_timedwait(&w->idle, &w->lock, &until);
	}
	bool hung = w->q.n_samples || w->q.n_events || w->writing;
	if (hung) {
		w->abandoned = true;
	}
	pthread_mutex_unlock(&w->lock);
	ev_async_stop(w->loop, &w->told);
	if (hung) {
		pthread_detach(w->thread);
		return; /* the thread frees it when its write returns */
	}
	pthread_join(w->thread, NULL);
	writer_destroy(w);
}
