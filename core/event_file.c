/* event_file.c - the --events writer thread and its bounded queue
 * (event_file.h).
 *
 * Hand-over: the loop formats a line and appends it to `queue` under
 * `lock`, signalling `wake`; the thread takes the whole queue, writes it
 * with the lock released, and tells the loop through an ev_async when a
 * write failed or worked again. */
#include <config.h>

#include "event_file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json_value.h"
#include "sanitize.h"
#include "walltime.h"
#include "xalloc.h"

#define FILE_ERR_LEN 512

typedef struct line {
	struct line *next;
	size_t len;
	char text[];
} line;

struct event_file {
	struct ev_loop *loop;
	char *path;
	event_file_done_fn done;
	void *ctx;
	ev_async told;

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;  /* lines or stop, for the thread */
	pthread_cond_t idle;  /* the queue drained, for event_file_free */

	/* under lock */
	line *head, *tail;
	size_t queued;
	bool writing;
	bool stop;
	bool abandoned;       /* free gave up waiting: the thread frees it */
	bool report;          /* a new result for the loop */
	bool failing;
	char err[FILE_ERR_LEN];

	/* loop only */
	size_t queue_max;
	unsigned long dropped;
	bool told_failing;

	/* thread only */
	int fd;
};

char *event_file_format(const event *e, const char *host, size_t *len)
{
	bool ok = true;
	json_t *o = json_object();
	const char *scope = e->node == EVENT_NODE_GROUP ? "group" : (e->node == EVENT_NODE_CLUSTER ? "cluster" : "node");
	json_value_put(o, "id", json_integer((json_int_t)e->id), &ok);
	json_value_put(o, "time", json_value_time(e->t), &ok);
	json_value_put(o, "unix", json_value_number(e->t), &ok);
	json_value_put(o, "scope", json_string(scope), &ok);
	json_value_put(o, "node", host ? json_value_text(host, strlen(host)) : json_null(), &ok);
	json_value_put(o, "kind", json_string(event_kind_name(e->kind)), &ok);
	json_value_put(o, "subject", json_value_text(e->subject, sizeof e->subject), &ok);
	json_value_put(o, "from", json_value_text(e->from, sizeof e->from), &ok);
	json_value_put(o, "to", json_value_text(e->to, sizeof e->to), &ok);
	json_value_put(o, "message", json_value_text(e->message, sizeof e->message), &ok);
	json_value_put(o, "group", e->group ? json_integer((json_int_t)e->group) : json_null(), &ok);
	if (e->kind == EVENT_GROUP) {
		json_value_put(o, "group_kind", json_string(event_kind_name(e->group_kind)), &ok);
		json_value_put(o, "nodes", json_integer(e->group_size), &ok);
	} else if (e->node == EVENT_NODE_CLUSTER) {
		json_value_put(o, "nodes", json_integer(e->group_size), &ok);
	}
	char *text = ok ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (!text) {
		return NULL;
	}
	size_t n = strlen(text);
	char *out = xmalloc(n + 2);
	memcpy(out, text, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(text);
	*len = n + 1;
	return out;
}

static void file_destroy(event_file *f)
{
	while (f->head) {
		line *next = f->head->next;
		free(f->head);
		f->head = next;
	}
	if (f->fd >= 0) {
		close(f->fd);
	}
	pthread_cond_destroy(&f->wake);
	pthread_cond_destroy(&f->idle);
	pthread_mutex_destroy(&f->lock);
	free(f->path);
	free(f);
}

/* Writes the batch; 0 or -1 with err.  Thread only. */
static int write_batch(event_file *f, line *batch, char *err, size_t err_len)
{
	if (f->fd < 0) {
		f->fd = open(f->path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (f->fd < 0) {
			snprintf(err, err_len, "%s: %s", f->path, strerror(errno));
			return -1;
		}
	}
	for (line *l = batch; l; l = l->next) {
		size_t done = 0;
		while (done < l->len) {
			ssize_t w = write(f->fd, l->text + done, l->len - done);
			if (w < 0 && errno == EINTR) {
				continue;
			}
			if (w <= 0) {
				snprintf(err, err_len, "%s: %s (the lines of this batch are lost)", f->path,
					 w < 0 ? strerror(errno) : "short write");
				close(f->fd);
				f->fd = -1; /* opened again for the next batch */
				return -1;
			}
			done += (size_t)w;
		}
	}
	return 0;
}

static void *writer_thread(void *arg)
{
	event_file *f = arg;
	/* open (create) at once: the file exists, or the trouble is told,
	 * before the first event */
	char first_err[FILE_ERR_LEN] = "";
	int first_rc = write_batch(f, NULL, first_err, sizeof first_err);
	pthread_mutex_lock(&f->lock);
	if (first_rc != 0) {
		f->failing = true;
		snprintf(f->err, sizeof f->err, "%s", first_err);
		f->report = true;
		ev_async_send(f->loop, &f->told);
	}
	for (;;) {
		while (!f->head && !f->stop) {
			pthread_cond_wait(&f->wake, &f->lock);
		}
		if (!f->head) {
			break; /* stop, nothing left */
		}
		line *batch = f->head;
		f->head = f->tail = NULL;
		f->queued = 0;
		f->writing = true;
		pthread_mutex_unlock(&f->lock);

		char err[FILE_ERR_LEN] = "";
		int rc = write_batch(f, batch, err, sizeof err);
		while (batch) {
			line *next = batch->next;
			free(batch);
			batch = next;
		}

		pthread_mutex_lock(&f->lock);
		f->writing = false;
		if (f->abandoned) {
			pthread_mutex_unlock(&f->lock);
			file_destroy(f);
			return NULL;
		}
		bool failing = rc != 0;
		if (failing || f->failing) {
			f->failing = failing;
			snprintf(f->err, sizeof f->err, "%s", err);
			f->report = true;
			ev_async_send(f->loop, &f->told);
		}
		pthread_cond_broadcast(&f->idle);
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

static void on_told(struct ev_loop *loop, ev_async *w, int revents)
{
	(void)loop;
	(void)revents;
	event_file *f = w->data;
	char err[FILE_ERR_LEN];
	pthread_mutex_lock(&f->lock);
	bool report = f->report, failing = f->failing;
	memcpy(err, f->err, sizeof err);
	f->report = false;
	pthread_mutex_unlock(&f->lock);
	if (!report || !f->done) {
		return;
	}
	if (failing) {
		f->told_failing = true;
		f->done(f->ctx, err);
	} else if (f->told_failing) {
		f->told_failing = false;
		f->done(f->ctx, NULL);
	}
}

event_file *event_file_new(struct ev_loop *loop, const char *path, size_t queue_max, event_file_done_fn done,
			   void *ctx)
{
	event_file *f = xcalloc(1, sizeof *f);
	f->queue_max = queue_max ? queue_max : EVENT_FILE_QUEUE_MAX;
	f->loop = loop;
	f->path = xstrdup(path);
	f->done = done;
	f->ctx = ctx;
	f->fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->wake, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&f->idle, &attr);
	pthread_condattr_destroy(&attr);
	ev_async_init(&f->told, on_told);
	f->told.data = f;
	ev_async_start(loop, &f->told); /* before the thread may send */
	int rc = pthread_create(&f->thread, NULL, writer_thread, f);
	if (rc != 0) {
		ev_async_stop(loop, &f->told);
		file_destroy(f);
		errno = rc;
		return NULL;
	}
	return f;
}

bool event_file_submit(event_file *f, const event *e, const char *host)
{
	size_t len;
	char *text = event_file_format(e, host, &len);
	if (!text) {
		f->dropped++;
		return false;
	}
	pthread_mutex_lock(&f->lock);
	bool full = f->queued >= f->queue_max;
	if (!full) {
		line *l = xmalloc(sizeof *l + len + 1);
		l->next = NULL;
		l->len = len;
		memcpy(l->text, text, len + 1);
		if (f->tail) {
			f->tail->next = l;
		} else {
			f->head = l;
		}
		f->tail = l;
		f->queued++;
		pthread_cond_signal(&f->wake);
	}
	pthread_mutex_unlock(&f->lock);
	free(text);
	if (full) {
		f->dropped++;
	}
	return !full;
}

unsigned long event_file_dropped(const event_file *f)
{
	return f->dropped;
}

size_t event_file_queued(const event_file *f)
{
	event_file *m = (event_file *)f; /* the lock only */
	pthread_mutex_lock(&m->lock);
	size_t n = m->queued;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void event_file_free(event_file *f, double grace)
{
	if (!f) {
		return;
	}
	struct timespec until;
	monotonic_after(grace, &until);
	pthread_mutex_lock(&f->lock);
	f->stop = true;
	pthread_cond_signal(&f->wake);
	int rc = 0;
	while ((f->head || f->writing) && rc != ETIMEDOUT) {
		rc = pthread_cond_timedwait(&f->idle, &f->lock, &until);
	}
	bool hung = f->head || f->writing;
	if (hung) {
		f->abandoned = true;
	}
	pthread_mutex_unlock(&f->lock);
	ev_async_stop(f->loop, &f->told);
	if (hung) {
		pthread_detach(f->thread);
		return; /* the thread frees it when its write returns */
	}
	pthread_join(f->thread, NULL);
	file_destroy(f);
}
