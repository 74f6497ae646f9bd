/* resolver.c - getaddrinfo on a worker thread, results delivered on the loop. */
#include <config.h>

#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

struct resolver_request {
	char host[256];
	char port[8];
	resolver_cb cb;
	void *ctx;
	bool cancelled;
	bool numeric;           /* resolved inline; delivered by the next loop iteration */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char err[384];
	resolver_request *next;
};

static struct {
	struct ev_loop *loop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running;
	bool busy;             /* the thread is inside getaddrinfo */
	resolver_request *queue_head, *queue_tail; /* waiting for the thread */
	resolver_request *done_head;               /* answered, not yet delivered */
	int pipe_fds[2];
	ev_io pipe_watcher;
	/* A 0 s timer, not an idle watcher: libev runs idle watchers only when
	 * nothing else is pending, which a busy loop (hundreds of nodes) may
	 * never be, and literal addresses then sat "resolving" until the
	 * connect deadline. */
	ev_timer deliver_soon;
} R;

static void finish_lookup(resolver_request *req, int flags)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = flags};
	struct addrinfo *res = NULL;
	int rc = getaddrinfo(req->host, req->port, &hints, &res);

	if (rc != 0) {
		snprintf(req->err, sizeof req->err, "cannot resolve %s: %s", req->host, gai_strerror(rc));
	} else if (res->ai_addrlen > sizeof req->addr) {
		snprintf(req->err, sizeof req->err, "cannot resolve %s: address too long", req->host);
	} else {
		memcpy(&req->addr, res->ai_addr, res->ai_addrlen);
		req->addrlen = res->ai_addrlen;
	}
	if (res) {
		freeaddrinfo(res);
	}
}

static void push_done_locked(resolver_request *req)
{
	req->next = R.done_head;
	R.done_head = req;
}

static void *worker(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&R.lock);
	while (R.running) {
		resolver_request *req = R.queue_head;
		if (!req) {
			pthread_cond_wait(&R.wake, &R.lock);
			continue;
		}
		R.queue_head = req->next;
		if (!R.queue_head) {
			R.queue_tail = NULL;
		}
		R.busy = true;
		pthread_mutex_unlock(&R.lock);
		finish_lookup(req, AI_ADDRCONFIG);
		pthread_mutex_lock(&R.lock);
		R.busy = false;
		push_done_locked(req);
		ssize_t w = write(R.pipe_fds[1], "x", 1);
		(void)w; /* a full pipe already means "wake up" */
	}
	pthread_mutex_unlock(&R.lock);
	return NULL;
}

static void deliver_done(void)
{
	pthread_mutex_lock(&R.lock);
	resolver_request *list = R.done_head;
	R.done_head = NULL;
	pthread_mutex_unlock(&R.lock);

	while (list) {
		resolver_request *req = list;
		list = list->next;
		if (!req->cancelled) {
			req->cancelled = true; /* the handle is dead from here on */
			req->cb(req->ctx, req->err[0] ? NULL : (struct sockaddr *)&req->addr,
				req->addrlen, req->err[0] ? req->err : NULL);
		}
		free(req);
	}
}

static void on_pipe(struct ev_loop *loop, ev_io *w, int revents)
{
	char drain[64];
	while (read(w->fd, drain, sizeof drain) > 0) {
	}
	deliver_done();
}

static void on_deliver_soon(struct ev_loop *loop, ev_timer *w, int revents)
{
	deliver_done();
}

int resolver_init(struct ev_loop *loop)
{
	memset(&R, 0, sizeof R);
	R.loop = loop;
	if (pipe(R.pipe_fds) != 0) {
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(R.pipe_fds[i], F_SETFL, O_NONBLOCK);
		fcntl(R.pipe_fds[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&R.lock, NULL);
	pthread_cond_init(&R.wake, NULL);
	R.running = true;
	if (pthread_create(&R.thread, NULL, worker, NULL) != 0) {
		close(R.pipe_fds[0]);
		close(R.pipe_fds[1]);
		return -1;
	}
	ev_io_init(&R.pipe_watcher, on_pipe, R.pipe_fds[0], EV_READ);
	ev_io_start(loop, &R.pipe_watcher);
	ev_timer_init(&R.deliver_soon, on_deliver_soon, 0, 0);
	return 0;
}

void resolver_free(void)
{
	if (!R.loop) {
		return;
	}
	pthread_mutex_lock(&R.lock);
	R.running = false;
	bool busy = R.busy;
	pthread_cond_signal(&R.wake);
	pthread_mutex_unlock(&R.lock);
	/* A lookup stuck in getaddrinfo would hold us here: then detach, so
	 * quitting is never delayed by DNS.  Otherwise join, which lets the
	 * thread free libc's per-thread resolver state. */
	if (busy) {
		pthread_detach(R.thread);
	} else {
		pthread_join(R.thread, NULL);
	}
	ev_io_stop(R.loop, &R.pipe_watcher);
	ev_timer_stop(R.loop, &R.deliver_soon);
	pthread_mutex_lock(&R.lock);
	for (resolver_request *req = R.queue_head, *next; req; req = next) {
		next = req->next;
		free(req);
	}
	for (resolver_request *req = R.done_head, *next; req; req = next) {
		next = req->next;
		free(req);
	}
	R.queue_head = R.queue_tail = R.done_head = NULL;
	pthread_mutex_unlock(&R.lock);
	if (!busy) {
		/* joined: nothing writes to the pipe any more (a detached
		 * thread may, so its pipe stays open until exit) */
		close(R.pipe_fds[0]);
		close(R.pipe_fds[1]);
	}
	R.loop = NULL;
}

resolver_request *resolver_lookup(const char *host, int port, resolver_cb cb, void *ctx)
{
	resolver_request *req = xcalloc(1, sizeof *req);
	snprintf(req->host, sizeof req->host, "%s", host);
	snprintf(req->port, sizeof req->port, "%d", port);
	req->cb = cb;
	req->ctx = ctx;

	/* Literal addresses never touch DNS: answer on the next loop iteration. */
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST};
	struct addrinfo *res = NULL;
	if (getaddrinfo(req->host, req->port, &hints, &res) == 0) {
		freeaddrinfo(res);
		req->numeric = true;
		finish_lookup(req, AI_NUMERICHOST);
		pthread_mutex_lock(&R.lock);
		push_done_locked(req);
		pthread_mutex_unlock(&R.lock);
		if (!ev_is_active(&R.deliver_soon)) {
			ev_timer_set(&R.deliver_soon, 0, 0);
			ev_timer_start(R.loop, &R.deliver_soon);
		}
		return req;
	}

	pthread_mutex_lock(&R.lock);
	if (R.queue_tail) {
		R.queue_tail->next = req;
	} else {
		R.queue_head = req;
	}
	R.queue_tail = req;
	pthread_cond_signal(&R.wake);
	pthread_mutex_unlock(&R.lock);
	return req;
}

void resolver_cancel(resolver_request *req)
{
	if (!req) {
		return;
	}
	/* The request is freed by whoever delivers it; we only silence it. */
	pthread_mutex_lock(&R.lock);
	req->cancelled = true;
	pthread_mutex_unlock(&R.lock);
}
