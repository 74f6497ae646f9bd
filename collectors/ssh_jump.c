/* ssh_jump.c - the byte pump between a direct-tcpip channel on a jump
 * host's session and the inner session's socketpair (ssh_jump.h).
 *
 * One buffer each way: what the channel gave that the socketpair did not
 * take yet, and what the inner session wrote that the channel did not take
 * yet.  A full buffer stops reading from its source, so a slow side slows
 * the other down instead of growing memory (the SSH window does the same
 * for the jump host). */
#include <config.h>

#include "ssh_jump.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xalloc.h"

#define JUMP_BUF 16384

struct ssh_jump_pipe {
	struct ev_loop *loop;
	LIBSSH2_SESSION *session; /* the jump host's, which the channel is on */
	LIBSSH2_CHANNEL *channel;
	int fd; /* our end of the socketpair */
	ev_io io;
	int io_events;
	void (*wake)(void *ctx);
	void *ctx;
	char to_fd[JUMP_BUF]; /* from the channel */
	size_t to_fd_off, to_fd_len;
	char to_ch[JUMP_BUF]; /* from the inner session */
	size_t to_ch_off, to_ch_len;
	bool ch_eof;     /* the far end closed */
	bool fd_eof;     /* the inner session closed its end */
	bool shut;       /* our end told the inner session about ch_eof */
	bool closing;    /* libssh2_channel_free() said EAGAIN */
	bool holds_send; /* our last call left a packet half sent (below) */
};

/* libssh2 sends one packet at a time per session: a send that would block
 * keeps its packet half sent, and only the very same call may finish it;
 * any other send on the session (another channel's data, a window adjust,
 * a channel open or close) fails with LIBSSH2_ERROR_BAD_USE
 * (transport.c:_libssh2_transport_send, "make the caller really notice").
 * With many channels on one jump session that happens as soon as the
 * socket fills (a cold sweep of 256 nodes through one bastion): so after
 * an EAGAIN while sending, this pipe holds the session's send side and the
 * caller pumps it alone until its call completes. */
static bool send_blocked(const ssh_jump_pipe *p)
{
	return (libssh2_session_block_directions(p->session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0;
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	(void)loop;
	(void)revents;
	ssh_jump_pipe *p = w->data;
	p->wake(p->ctx);
}

static void set_interest(ssh_jump_pipe *p, int events)
{
	if (events == p->io_events) {
		return;
	}
	if (p->io_events) {
		ev_io_stop(p->loop, &p->io);
	}
	p->io_events = events;
	if (events) {
		ev_io_set(&p->io, p->fd, events);
		ev_io_start(p->loop, &p->io);
	}
}

ssh_jump_pipe *ssh_jump_pipe_new(struct ev_loop *loop, LIBSSH2_SESSION *session, LIBSSH2_CHANNEL *channel,
				 int *inner_fd, void (*wake)(void *ctx), void *ctx)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
		return NULL;
	}
	ssh_jump_pipe *p = xcalloc(1, sizeof *p);
	p->loop = loop;
	p->session = session;
	p->channel = channel;
	p->fd = sv[0];
	p->wake = wake;
	p->ctx = ctx;
	ev_init(&p->io, on_io);
	p->io.data = p;
	set_interest(p, EV_READ);
	*inner_fd = sv[1];
	return p;
}

/* libssh2 errors that mean the jump session itself is gone. */
static bool session_broken(ssize_t rc)
{
	return rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV ||
	       rc == LIBSSH2_ERROR_SOCKET_DISCONNECT || rc == LIBSSH2_ERROR_SOCKET_NONE ||
	       rc == LIBSSH2_ERROR_TIMEOUT || rc == LIBSSH2_ERROR_SOCKET_TIMEOUT ||
	       rc == LIBSSH2_ERROR_DECRYPT || rc == LIBSSH2_ERROR_PROTO;
}

bool ssh_jump_pipe_can_read(const ssh_jump_pipe *p)
{
	return !p->closing && !p->ch_eof && p->to_fd_off >= p->to_fd_len;
}

bool ssh_jump_pipe_holds_send(const ssh_jump_pipe *p)
{
	return p->holds_send;
}

jump_pipe_status ssh_jump_pipe_pump(ssh_jump_pipe *p, bool read_socket)
{
	p->holds_send = false;
	if (p->closing) {
		if (libssh2_channel_free(p->channel) == LIBSSH2_ERROR_EAGAIN) {
			p->holds_send = send_blocked(p);
			return JUMP_PIPE_OPEN;
		}
		p->channel = NULL;
		return JUMP_PIPE_DONE;
	}
	/* channel -> inner session */
	for (;;) {
		if (p->to_fd_off < p->to_fd_len) {
			ssize_t n = write(p->fd, p->to_fd + p->to_fd_off, p->to_fd_len - p->to_fd_off);
			if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
				break;
			}
			if (n < 0) {
				p->fd_eof = true; /* the inner session is gone */
				break;
			}
			p->to_fd_off += (size_t)n;
			continue;
		}
		if (p->ch_eof) {
			break;
		}
		/* Most pipes have nothing queued: skip the read (it would cost a
		 * recv() on the jump session's socket each); one pipe reads the
		 * socket for all of them. */
		if (!read_socket && !libssh2_poll_channel_read(p->channel, 0) &&
		    !libssh2_channel_eof(p->channel)) {
			break;
		}
		read_socket = false;
		ssize_t n = libssh2_channel_read(p->channel, p->to_fd, sizeof p->to_fd);
		if (n > 0) {
			p->to_fd_off = 0;
			p->to_fd_len = (size_t)n;
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if (send_blocked(p)) {
				/* a window adjust half sent: nothing else may send */
				p->holds_send = true;
				set_interest(p, 0);
				return JUMP_PIPE_OPEN;
			}
			break;
		}
		if (n < 0 && session_broken(n)) {
			return JUMP_PIPE_BROKEN;
		}
		if (n < 0 || libssh2_channel_eof(p->channel)) {
			p->ch_eof = true;
		}
		break;
	}
	if (p->ch_eof && p->to_fd_off >= p->to_fd_len && !p->shut) {
		shutdown(p->fd, SHUT_WR); /* the inner session reads EOF */
		p->shut = true;
	}
	/* inner session -> channel */
	for (;;) {
		if (p->to_ch_off < p->to_ch_len) {
			ssize_t n = libssh2_channel_write(p->channel, p->to_ch + p->to_ch_off,
							  p->to_ch_len - p->to_ch_off);
			if (n == LIBSSH2_ERROR_EAGAIN) {
				p->holds_send = send_blocked(p);
				break;
			}
			if (n < 0 && session_broken(n)) {
				return JUMP_PIPE_BROKEN;
			}
			if (n < 0) {
				p->fd_eof = true; /* the channel takes nothing more */
				break;
			}
			p->to_ch_off += (size_t)n;
			continue;
		}
		if (p->fd_eof) {
			break;
		}
		ssize_t n = read(p->fd, p->to_ch, sizeof p->to_ch);
		if (n > 0) {
			p->to_ch_off = 0;
			p->to_ch_len = (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			break;
		}
		p->fd_eof = true; /* 0: the inner session closed its end */
		break;
	}
	if (p->fd_eof) {
		/* Nothing more can reach the node: close the channel. */
		set_interest(p, 0);
		p->closing = true;
		return ssh_jump_pipe_pump(p, false);
	}
	int events = 0;
	if (p->to_ch_off >= p->to_ch_len) {
		events |= EV_READ;
	}
	if (p->to_fd_off < p->to_fd_len) {
		events |= EV_WRITE;
	}
	set_interest(p, events);
	return JUMP_PIPE_OPEN;
}

bool ssh_jump_pipe_wants_write(const ssh_jump_pipe *p)
{
	return p->to_ch_off < p->to_ch_len || p->closing;
}

void ssh_jump_pipe_free(ssh_jump_pipe *p, bool session_gone)
{
	if (!p) {
		return;
	}
	set_interest(p, 0);
	if (p->channel && !session_gone) {
		/* best effort: a close that would block is left to the session */
		libssh2_channel_free(p->channel);
	}
	if (p->fd >= 0) {
		close(p->fd);
	}
	free(p);
}
