/* prometheus_sink.c - one writer thread, at most one write in flight.
 *
 * Hand-over: the loop formats the text and, if the thread is idle, leaves it
 * in `job` and signals `wake`; the thread writes it, records the result and
 * wakes the loop through an ev_async.  Everything shared is under `lock`. */
#include <config.h>

#include "prometheus_sink.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "report_prometheus.h"
#include "walltime.h"
#include "xalloc.h"

#define SINK_ERR_LEN 512

struct prometheus_sink {
	struct ev_loop *loop;
	char *path;
	prometheus_write_fn write;
	prometheus_done_fn done;
	void *ctx;
	ev_async finished;

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a job or stop, for the thread */
	pthread_cond_t idle; /* a write ended, for prometheus_sink_free */

	/* under lock */
	char *job;
	size_t job_len;
	bool busy;      /* from hand-over until the thread has recorded the result */
	bool stop;
	bool abandoned; /* free gave up waiting: the thread frees the sink */
	bool result_ready;
	bool result_failed;
	char result_err[SINK_ERR_LEN];

	/* loop only */
	double started; /* ev_now() at hand-over */
	unsigned long dropped;
};

static void sink_destroy(prometheus_sink *s)
{
	free(s->job);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->idle);
	pthread_mutex_destroy(&s->lock);
	free(s->path);
	free(s);
}

static void *writer_thread(void *arg)
{
	prometheus_sink *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->job && !s->stop) {
			pthread_cond_wait(&s->wake, &s->lock);
		}
		if (!s->job) {
			break; /* stop, nothing left to write */
		}
		char *data = s->job;
		size_t len = s->job_len;
		s->job = NULL;
		pthread_mutex_unlock(&s->lock);

		char err[SINK_ERR_LEN] = "";
		int rc = s->write(s->path, data, len, err, sizeof err);
		free(data);

		pthread_mutex_lock(&s->lock);
		if (s->abandoned) {
			/* the loop may be gone: touch nothing of it */
			pthread_mutex_unlock(&s->lock);
			sink_destroy(s);
			return NULL;
		}
		s->busy = false;
		s->result_failed = rc != 0;
		snprintf(s->result_err, sizeof s->result_err, "%s", rc != 0 ? err : "");
		s->result_ready = true;
		pthread_cond_broadcast(&s->idle);
		/* under the lock: free() cannot stop the watcher in between */
		ev_async_send(s->loop, &s->finished);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void on_finished(struct ev_loop *loop, ev_async *w, int revents)
{
	(void)loop;
	(void)revents;
	prometheus_sink *s = w->data;
	char err[SINK_ERR_LEN];
	pthread_mutex_lock(&s->lock);
	bool ready = s->result_ready, failed = s->result_failed;
	memcpy(err, s->result_err, sizeof err);
	s->result_ready = false;
	pthread_mutex_unlock(&s->lock);
	if (ready && s->done) {
		s->done(s->ctx, failed ? err : NULL);
	}
}

prometheus_sink *prometheus_sink_new(struct ev_loop *loop, const char *path, prometheus_write_fn write,
				     prometheus_done_fn done, void *ctx)
{
	prometheus_sink *s = xcalloc(1, sizeof *s);
	s->loop = loop;
	s->path = xstrdup(path);
	s->write = write ? write : atomic_file_replace;
	s->done = done;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->idle, &attr);
	pthread_condattr_destroy(&attr);
	ev_async_init(&s->finished, on_finished);
	s->finished.data = s;
	int rc = pthread_create(&s->thread, NULL, writer_thread, s);
	if (rc != 0) {
		sink_destroy(s);
		errno = rc;
		return NULL;
	}
	ev_async_start(loop, &s->finished);
	return s;
}

bool prometheus_sink_submit(prometheus_sink *s, const node *nodes, size_t n, double now)
{
	pthread_mutex_lock(&s->lock);
	bool busy = s->busy;
	pthread_mutex_unlock(&s->lock);
	if (busy) {
		s->dropped++;
		return false;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc = f ? report_prometheus_format(f, nodes, n, NULL, now) : -1;
	int e = errno;
	if (!f || fclose(f) != 0 || rc != 0) {
		char err[SINK_ERR_LEN];
		snprintf(err, sizeof err, "%s: cannot format the metrics: %s", s->path, strerror(e));
		free(text);
		if (s->done) {
			s->done(s->ctx, err);
		}
		return false;
	}
	pthread_mutex_lock(&s->lock);
	s->job = text;
	s->job_len = len;
	s->busy = true;
	s->started = ev_now(s->loop);
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	return true;
}

double prometheus_sink_busy_for(const prometheus_sink *s)
{
	prometheus_sink *m = (prometheus_sink *)s; /* the lock only */
	pthread_mutex_lock(&m->lock);
	bool busy = m->busy;
	pthread_mutex_unlock(&m->lock);
	return busy ? ev_now(s->loop) - s->started : 0;
}

unsigned long prometheus_sink_dropped(const prometheus_sink *s)
{
	return s->dropped;
}

void prometheus_sink_free(prometheus_sink *s, double grace)
{
	if (!s) {
		return;
	}
	struct timespec until;
	monotonic_after(grace, &until);
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->wake);
	int rc = 0;
	while (s->busy && rc != ETIMEDOUT) {
		rc = pthread_cond_timedwait(&s->idle, &s->lock, &until);
	}
	bool hung = s->busy;
	if (hung) {
		s->abandoned = true;
	}
	pthread_mutex_unlock(&s->lock);
	ev_async_stop(s->loop, &s->finished);
	if (hung) {
		pthread_detach(s->thread);
		return; /* the thread frees the sink when its write returns */
	}
	pthread_join(s->thread, NULL);
	sink_destroy(s);
}
