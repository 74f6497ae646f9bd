/* local_transport.c - run the probe shell as a local child process. */
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
#include "xalloc.h"

#define LOCAL_MAX_ARGS 8

typedef struct {
	transport base;
	struct ev_loop *loop;
	char *argv[LOCAL_MAX_ARGS + 1];
	pid_t pid;
	int in_fd;   /* child's stdin */
	int out_fd;  /* child's stdout */
	ev_io out_watcher;
	ev_io in_watcher;
	ev_child child_watcher;
	bytebuf out;  /* bytes for the child's stdin not yet written */
} local_conn;

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void teardown(local_conn *c)
{
	ev_io_stop(c->loop, &c->out_watcher);
	ev_io_stop(c->loop, &c->in_watcher);
	close_fd(&c->in_fd);
	close_fd(&c->out_fd);
	if (c->pid > 0) {
		/* The probe runs in its own process group: end it and its tools, and
		 * reap it now (SIGKILL cannot be ignored, so this does not block). */
		kill(-c->pid, SIGKILL);
		ev_child_stop(c->loop, &c->child_watcher);
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
	}
	bytebuf_clear(&c->out);
}

static void fail(local_conn *c, transport_error kind, const char *msg)
{
	teardown(c);
	c->base.events->failed(c->base.owner, kind, msg);
}

static void on_child(struct ev_loop *loop, ev_child *w, int revents)
{
	local_conn *c = w->data;
	ev_child_stop(loop, w);
	if (w->rpid != c->pid) {
		return;
	}
	c->pid = -1;
	if (c->out_fd >= 0) {
		char msg[128];
		snprintf(msg, sizeof msg, "the local probe shell exited (status %d)", w->rstatus);
		fail(c, TRANSPORT_ERR_LOST, msg);
	}
}

static void on_output(struct ev_loop *loop, ev_io *w, int revents)
{
	local_conn *c = w->data;
	char buf[16384];
	for (;;) {
		ssize_t n = read(c->out_fd, buf, sizeof buf);
		if (n > 0) {
			c->base.events->data(c->base.owner, buf, (size_t)n);
			if (c->out_fd < 0) {
				return; /* owner restarted or stopped us */
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			return;
		}
		fail(c, TRANSPORT_ERR_LOST, n == 0 ? "the local probe shell closed its output"
						   : "reading from the local probe shell failed");
		return;
	}
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

static void op_start(transport *t)
{
	local_conn *c = (local_conn *)t;
	int to_child[2], from_child[2];
	if (c->out_fd >= 0) {
		return;
	}
	if (pipe2(to_child, O_CLOEXEC) != 0) {
		fail(c, TRANSPORT_ERR_CHANNEL, "pipe failed");
		return;
	}
	if (pipe2(from_child, O_CLOEXEC) != 0) {
		close(to_child[0]);
		close(to_child[1]);
		fail(c, TRANSPORT_ERR_CHANNEL, "pipe failed");
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(to_child[0]);
		close(to_child[1]);
		close(from_child[0]);
		close(from_child[1]);
		fail(c, TRANSPORT_ERR_CHANNEL, "fork failed");
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		dup2(to_child[0], STDIN_FILENO);
		dup2(from_child[1], STDOUT_FILENO);
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, STDERR_FILENO);
		}
		execvp(c->argv[0], c->argv);
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
	c->base.events->ready(c->base.owner);
}

static int op_send(transport *t, const char *buf, size_t len)
{
	local_conn *c = (local_conn *)t;
	if (c->in_fd < 0) {
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
	bytebuf_free(&c->out);
	free(c);
}

static const transport_ops local_ops = {
	.start = op_start,
	.send = op_send,
	.restart_shell = op_restart_shell,
	.stop = op_stop,
	.destroy = op_destroy,
};

transport *local_transport_new(struct ev_loop *loop, const char *const argv[], const transport_events *events,
			       void *owner)
{
	local_conn *c = xcalloc(1, sizeof *c);
	c->base.ops = &local_ops;
	c->base.events = events;
	c->base.owner = owner;
	c->loop = loop;
	for (int i = 0; i < LOCAL_MAX_ARGS && argv[i]; i++) {
		c->argv[i] = xstrdup(argv[i]);
	}
	c->pid = -1;
	c->in_fd = c->out_fd = -1;
	ev_init(&c->out_watcher, on_output);
	c->out_watcher.data = c;
	ev_init(&c->in_watcher, on_input_writable);
	c->in_watcher.data = c;
	ev_init(&c->child_watcher, on_child);
	c->child_watcher.data = c;
	return &c->base;
}
