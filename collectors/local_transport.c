/* local_transport.c - run the probe shell in a child process: the local
 * probe itself, or a command that gives a shell on a node (ssh, kubectl,
 * docker ...) with the probe program written to its stdin. */
#include <config.h>

#include "local_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bytebuf.h"
#include "exec_argv.h"
#include "xalloc.h"

#define READY_BANNER "@@synctop ready\n"
#define STDERR_KEEP 2048 /* the tail of the child's stderr kept for its error */

typedef struct local_conn {
	transport base;
	struct ev_loop *loop;
	char **argv;
	char *preamble;
	bool remote, is_ssh;
	double start_timeout_s;
	pid_t pid;
	int in_fd;   /* child's stdin */
	int out_fd;  /* child's stdout */
	int err_fd;  /* child's stderr (remote only) */
	bool ready;  /* the probe's banner arrived (remote), or the child runs */
	bool timed_out;
	ev_io out_watcher;
	ev_io in_watcher;
	ev_io err_watcher;
	ev_child child_watcher;
	ev_timer start_timer;
	bytebuf out;     /* bytes for the child's stdin not yet written */
	bytebuf banner;  /* stdout before the banner (remote) */
	bytebuf err;     /* the tail of its stderr */
	/* The start limit (remote only): starting = between fork and banner;
	 * queued = waiting for a free start, linked in start order. */
	bool starting, queued;
	struct local_conn *prev, *next;
} local_conn;

/* Remote children between fork and their probe's banner, at most
 * start_limit of them (0 = no limit): the key exchanges a cold start of a
 * thousand ssh clients would otherwise run at once, on this machine and on a
 * bastion (its MaxStartups).  The rest wait in order. */
static int start_limit;
static int starting_now;
static local_conn *queue_head, *queue_tail;

static void spawn(local_conn *c);

static void unqueue(local_conn *c)
{
	if (!c->queued) {
		return;
	}
	if (c->prev) {
		c->prev->next = c->next;
	} else {
		queue_head = c->next;
	}
	if (c->next) {
		c->next->prev = c->prev;
	} else {
		queue_tail = c->prev;
	}
	c->prev = c->next = NULL;
	c->queued = false;
}

/* Start waiting children while there is room.  A start that fails at once
 * reports through the owner, which may start or stop others: not re-entered. */
static void pump(void)
{
	static bool pumping;
	if (pumping) {
		return;
	}
	pumping = true;
	while (queue_head && (start_limit == 0 || starting_now < start_limit)) {
		local_conn *c = queue_head;
		unqueue(c);
		spawn(c);
	}
	pumping = false;
}

static void started(local_conn *c)
{
	if (c->starting) {
		c->starting = false;
		starting_now--;
		pump();
	}
}

void local_transport_set_start_limit(int n)
{
	start_limit = n > 0 ? n : 0;
}

int local_transport_starting(void)
{
	return starting_now;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void teardown(local_conn *c)
{
	unqueue(c);
	ev_io_stop(c->loop, &c->out_watcher);
	ev_io_stop(c->loop, &c->in_watcher);
	ev_io_stop(c->loop, &c->err_watcher);
	ev_timer_stop(c->loop, &c->start_timer);
	close_fd(&c->in_fd);
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
	if (c->pid > 0) {
		/* The child runs in its own process group: end it and whatever it
		 * started (tools, a ProxyCommand), and reap it now (SIGKILL cannot
		 * be ignored, so this does not block). */
		kill(-c->pid, SIGKILL);
		ev_child_stop(c->loop, &c->child_watcher);
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
	}
	c->ready = false;
	c->timed_out = false;
	bytebuf_clear(&c->out);
	bytebuf_clear(&c->banner);
	bytebuf_clear(&c->err);
	started(c); /* its start slot, if it held one, goes to the next */
}

static void fail(local_conn *c, transport_error kind, const char *msg)
{
	teardown(c);
	c->base.events->failed(c->base.owner, kind, msg);
}

/* Keep the last STDERR_KEEP bytes of the child's stderr. */
static void drain_stderr(local_conn *c)
{
	char buf[4096];
	while (c->err_fd >= 0) {
		ssize_t n = read(c->err_fd, buf, sizeof buf);
		if (n > 0) {
			bytebuf_append(&c->err, buf, (size_t)n);
			if (c->err.len > STDERR_KEEP) {
				bytebuf_consume(&c->err, c->err.len - STDERR_KEEP);
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			return;
		}
		ev_io_stop(c->loop, &c->err_watcher);
		close_fd(&c->err_fd);
		return;
	}
}

static void on_stderr(struct ev_loop *loop, ev_io *w, int revents)
{
	drain_stderr(w->data);
}

/* A remote child ended (or was ended): its status and last words say why. */
static void fail_remote(local_conn *c, bool signalled, int code)
{
	char msg[768];
	drain_stderr(c);
	exec_outcome o = {
		.is_ssh = c->is_ssh,
		.was_ready = c->ready,
		.timed_out = c->timed_out,
		.signalled = signalled,
		.code = code,
		.stderr_tail = c->err.data,
		.stderr_len = c->err.len,
		.program = c->argv[0],
	};
	transport_error kind = exec_argv_classify(&o, msg, sizeof msg);
	fail(c, kind, msg);
}

static void deliver(local_conn *c, const char *buf, size_t n);

static void on_output(struct ev_loop *loop, ev_io *w, int revents)
{
	local_conn *c = w->data;
	char buf[16384];
	for (;;) {
		ssize_t n = read(c->out_fd, buf, sizeof buf);
		if (n > 0) {
			deliver(c, buf, (size_t)n);
			if (c->out_fd < 0) {
				return; /* owner restarted or stopped us */
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			return;
		}
		if (c->remote && n == 0 && c->pid > 0) {
			/* the child is ending: its exit status says why (on_child) */
			ev_io_stop(c->loop, &c->out_watcher);
			close_fd(&c->out_fd);
			return;
		}
		if (c->remote) {
			fail_remote(c, false, -1);
			return;
		}
		fail(c, TRANSPORT_ERR_LOST, n == 0 ? "the local probe shell closed its output"
						   : "reading from the local probe shell failed");
		return;
	}
}

static void on_child(struct ev_loop *loop, ev_child *w, int revents)
{
	local_conn *c = w->data;
	ev_child_stop(loop, w);
	if (w->rpid != c->pid) {
		return;
	}
	c->pid = -1;
	if (c->remote) {
		/* what it started (a ProxyCommand, kubectl's helpers) goes with it */
		kill(-w->rpid, SIGKILL);
		/* what it printed last is part of the story */
		while (c->out_fd >= 0) {
			char buf[16384];
			ssize_t n = read(c->out_fd, buf, sizeof buf);
			if (n <= 0) {
				break;
			}
			deliver(c, buf, (size_t)n);
		}
		bool sig = WIFSIGNALED(w->rstatus);
		fail_remote(c, sig, sig ? WTERMSIG(w->rstatus) : WEXITSTATUS(w->rstatus));
		return;
	}
	if (c->out_fd >= 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "the local probe shell exited (status %d)", w->rstatus);
		fail(c, TRANSPORT_ERR_LOST, msg);
	}
}

/* Stdout bytes: before a remote shell's banner they are dropped (a login
 * message, the echo of nothing); after it they are the probe's. */
static void deliver(local_conn *c, const char *buf, size_t n)
{
	if (c->ready) {
		c->base.events->data(c->base.owner, buf, n);
		return;
	}
	bytebuf_append(&c->banner, buf, n);
	const size_t blen = strlen(READY_BANNER);
	for (size_t i = 0; i + blen <= c->banner.len; i++) {
		if ((i == 0 || c->banner.data[i - 1] == '\n') && memcmp(c->banner.data + i, READY_BANNER, blen) == 0) {
			size_t rest_at = i + blen;
			bytebuf rest = {0};
			if (rest_at < c->banner.len) {
				bytebuf_append(&rest, c->banner.data + rest_at, c->banner.len - rest_at);
			}
			bytebuf_clear(&c->banner);
			c->ready = true;
			ev_timer_stop(c->loop, &c->start_timer);
			started(c);
			c->base.events->ready(c->base.owner);
			if (rest.len && c->out_fd >= 0 && c->ready) {
				c->base.events->data(c->base.owner, rest.data, rest.len);
			}
			bytebuf_free(&rest);
			return;
		}
	}
	/* a shell that chatters without ever starting the probe: keep the end */
	if (c->banner.len > 65536) {
		bytebuf_consume(&c->banner, c->banner.len - blen);
	}
}

static void on_start_timeout(struct ev_loop *loop, ev_timer *w, int revents)
{
	local_conn *c = w->data;
	c->timed_out = true;
	fail_remote(c, false, -1);
}

static void flush_input(local_conn *c)
{
	while (c->out.len > 0) {
		ssize_t n = write(c->in_fd, c->out.data, c->out.len);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				ev_io_start(c->loop, &c->in_watcher);
				return;
			}
			if (c->remote) {
				/* the child is going: on_child tells why */
				ev_io_stop(c->loop, &c->in_watcher);
				bytebuf_clear(&c->out);
				return;
			}
			fail(c, TRANSPORT_ERR_LOST, "writing to the local probe shell failed");
			return;
		}
		bytebuf_consume(&c->out, (size_t)n);
	}
	ev_io_stop(c->loop, &c->in_watcher);
}

static void on_input_writable(struct ev_loop *loop, ev_io *w, int revents)
{
	flush_input(w->data);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0) {
		close(p[0]);
	}
	if (p[1] >= 0) {
		close(p[1]);
	}
}

static void op_start(transport *t)
{
	local_conn *c = (local_conn *)t;
	if (c->out_fd >= 0 || c->pid > 0 || c->queued) {
		return;
	}
	if (c->remote && start_limit > 0 && starting_now >= start_limit) {
		c->queued = true;
		c->prev = queue_tail;
		if (queue_tail) {
			queue_tail->next = c;
		} else {
			queue_head = c;
		}
		queue_tail = c;
		return;
	}
	spawn(c);
}

static void spawn(local_conn *c)
{
	int to_child[2] = {-1, -1}, from_child[2] = {-1, -1}, err_pipe[2] = {-1, -1};
	if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0 ||
	    (c->remote && pipe2(err_pipe, O_CLOEXEC) != 0)) {
		char msg[128];
		snprintf(msg, sizeof msg, "pipe failed: %s", strerror(errno));
		close_pair(to_child);
		close_pair(from_child);
		close_pair(err_pipe);
		fail(c, TRANSPORT_ERR_CHANNEL, msg);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "fork failed: %s", strerror(errno));
		close_pair(to_child);
		close_pair(from_child);
		close_pair(err_pipe);
		fail(c, TRANSPORT_ERR_CHANNEL, msg);
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		dup2(to_child[0], STDIN_FILENO);
		dup2(from_child[1], STDOUT_FILENO);
		if (err_pipe[1] >= 0) {
			dup2(err_pipe[1], STDERR_FILENO);
		} else {
			int devnull = open("/dev/null", O_WRONLY);
			if (devnull >= 0) {
				dup2(devnull, STDERR_FILENO);
			}
		}
		execvp(c->argv[0], c->argv);
		/* the parent reads this as the node's error */
		dprintf(STDERR_FILENO, "synctop: cannot run %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also from the parent: no race with kill(-pid) */
	close(to_child[0]);
	close(from_child[1]);
	c->pid = pid;
	c->in_fd = to_child[1];
	c->out_fd = from_child[0];
	fcntl(c->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	ev_io_set(&c->out_watcher, c->out_fd, EV_READ);
	ev_io_start(c->loop, &c->out_watcher);
	ev_io_set(&c->in_watcher, c->in_fd, EV_WRITE);
	ev_child_set(&c->child_watcher, pid, 0);
	ev_child_start(c->loop, &c->child_watcher);
	if (!c->remote) {
		c->ready = true;
		c->base.events->ready(c->base.owner);
		return;
	}
	c->starting = true;
	starting_now++;
	close(err_pipe[1]);
	c->err_fd = err_pipe[0];
	fcntl(c->err_fd, F_SETFL, O_NONBLOCK);
	ev_io_set(&c->err_watcher, c->err_fd, EV_READ);
	ev_io_start(c->loop, &c->err_watcher);
	if (c->start_timeout_s > 0) {
		ev_timer_set(&c->start_timer, c->start_timeout_s, 0);
		ev_timer_start(c->loop, &c->start_timer);
	}
	/* The probe program, for the remote `sh` to read and exec.  Nothing
	 * else is written until its banner is back: the shell may read ahead
	 * of the command it runs. */
	if (c->preamble) {
		bytebuf_append(&c->out, c->preamble, strlen(c->preamble));
		flush_input(c);
	}
}

static int op_send(transport *t, const char *buf, size_t len)
{
	local_conn *c = (local_conn *)t;
	if (c->in_fd < 0 || !c->ready) {
		return -1;
	}
	bytebuf_append(&c->out, buf, len);
	flush_input(c);
	return 0;
}

static void op_stop(transport *t)
{
	teardown((local_conn *)t);
}

static void op_restart_shell(transport *t)
{
	local_conn *c = (local_conn *)t;
	teardown(c);
	op_start(t);
}

static void op_destroy(transport *t)
{
	local_conn *c = (local_conn *)t;
	teardown(c);
	for (int i = 0; c->argv[i]; i++) {
		free(c->argv[i]);
	}
	free(c->argv);
	free(c->preamble);
	bytebuf_free(&c->out);
	bytebuf_free(&c->banner);
	bytebuf_free(&c->err);
	free(c);
}

static const transport_ops local_ops = {
	.start = op_start,
	.send = op_send,
	.restart_shell = op_restart_shell,
	.stop = op_stop,
	.destroy = op_destroy,
};

transport *local_transport_spawn(struct ev_loop *loop, const local_spawn *spawn, const transport_events *events,
				 void *owner)
{
	local_conn *c = xcalloc(1, sizeof *c);
	size_t n = 0;
	c->base.ops = &local_ops;
	c->base.events = events;
	c->base.owner = owner;
	c->loop = loop;
	while (spawn->argv[n]) {
		n++;
	}
	c->argv = xcalloc(n + 1, sizeof *c->argv);
	for (size_t i = 0; i < n; i++) {
		c->argv[i] = xstrdup(spawn->argv[i]);
	}
	c->preamble = spawn->preamble ? xstrdup(spawn->preamble) : NULL;
	c->remote = spawn->remote;
	c->is_ssh = spawn->is_ssh;
	c->start_timeout_s = spawn->start_timeout_s;
	c->pid = -1;
	c->in_fd = c->out_fd = c->err_fd = -1;
	ev_init(&c->out_watcher, on_output);
	c->out_watcher.data = c;
	ev_init(&c->in_watcher, on_input_writable);
	c->in_watcher.data = c;
	ev_init(&c->err_watcher, on_stderr);
	c->err_watcher.data = c;
	ev_init(&c->child_watcher, on_child);
	c->child_watcher.data = c;
	ev_init(&c->start_timer, on_start_timeout);
	c->start_timer.data = c;
	return &c->base;
}

transport *local_transport_new(struct ev_loop *loop, const char *const argv[], const transport_events *events,
			       void *owner)
{
	local_spawn spawn = {.argv = argv};
	return local_transport_spawn(loop, &spawn, events, owner);
}
