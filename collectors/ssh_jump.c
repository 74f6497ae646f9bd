/* ssh_jump.c - the byte pump between a direct-tcpip channel on a jump
 * host's session and the inner session's send/recv callbacks (ssh_jump.h).
 *
 * One buffer each way: what the channel gave that the inner session did
 * not take yet, and what the inner session wrote that the channel did not
 * take yet.  A full buffer stops its source (the pump stops reading the
 * channel; the inner session's send gets -EAGAIN), so a slow side slows the
 * other down instead of growing memory (the SSH window does the same for
 * the jump host). */
#include <config.h>

#include "ssh_jump.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define JUMP_BUF 16384

/* Which libssh2 call left a packet half sent on the session. */
typedef enum { HOLD_NONE, HOLD_READ, HOLD_WRITE, HOLD_CLOSE } hold_kind;

struct ssh_jump_pipe {
	LIBSSH2_SESSION *session; /* the jump host's, which the channel is on */
	LIBSSH2_CHANNEL *channel;
	void (*wake_carrier)(void *ctx);
	void *carrier_ctx;
	void (*wake_inner)(void *ctx); /* NULL: no inner session (yet, or any more) */
	void *inner_ctx;
	char to_in[JUMP_BUF]; /* from the channel, for the inner session's recv */
	size_t to_in_off, to_in_len;
	char to_ch[JUMP_BUF]; /* from the inner session's send, for the channel */
	size_t to_ch_off, to_ch_len;
	bool ch_eof;      /* the far end closed */
	bool inner_gone;  /* the inner session let go */
	bool closing;     /* closing the channel (libssh2_channel_free() said EAGAIN) */
	hold_kind hold;   /* our last call left a packet half sent (below): which call */
	bool in_stalled;  /* the pump stopped reading the channel for room: draining to_in wakes the carrier */
	bool out_refused; /* a send got less than it asked: room in to_ch wakes the inner session */
};

/* libssh2 sends one packet at a time per session: a send that would block
 * keeps its packet half sent, and only the very same call may finish it;
 * any other send on the session (another channel's data, a window adjust,
 * a channel open or close) fails with LIBSSH2_ERROR_BAD_USE
 * (transport.c:_libssh2_transport_send, "make the caller really notice").
 * With many channels on one jump session that happens as soon as the
 * socket fills (a cold sweep of 256 nodes through one bastion): so after
 * an EAGAIN while sending, this pipe holds the session's send side and the
 * caller pumps it alone until its call completes: the pipe remembers
 * which call (a channel read sends window adjusts too) and makes it first.
 * The inner sessions' sends only fill to_ch, so they never touch the jump
 * session. */
static bool send_blocked(const ssh_jump_pipe *p)
{
	return (libssh2_session_block_directions(p->session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0;
}

ssh_jump_pipe *ssh_jump_pipe_new(LIBSSH2_SESSION *session, LIBSSH2_CHANNEL *channel,
				 void (*wake_carrier)(void *ctx), void *carrier_ctx)
{
	ssh_jump_pipe *p = xcalloc(1, sizeof *p);
	p->session = session;
	p->channel = channel;
	p->wake_carrier = wake_carrier;
	p->carrier_ctx = carrier_ctx;
	return p;
}

void ssh_jump_pipe_attach(ssh_jump_pipe *p, void (*wake_inner)(void *ctx), void *inner_ctx)
{
	p->wake_inner = wake_inner;
	p->inner_ctx = inner_ctx;
}

void ssh_jump_pipe_detach(ssh_jump_pipe *p)
{
	p->wake_inner = NULL;
	p->inner_ctx = NULL;
	if (!p->inner_gone) {
		p->inner_gone = true;
		p->wake_carrier(p->carrier_ctx); /* to close the channel */
	}
}

static void wake_inner(ssh_jump_pipe *p)
{
	if (p->wake_inner) {
		p->wake_inner(p->inner_ctx);
	}
}

/* Free space in a buffer, after moving what is left of it to the front. */
static size_t make_room(char *buf, size_t *off, size_t *len)
{
	if (*off > 0) {
		memmove(buf, buf + *off, *len - *off);
		*len -= *off;
		*off = 0;
	}
	return JUMP_BUF - *len;
}

ssize_t ssh_jump_pipe_send(ssh_jump_pipe *p, const void *buf, size_t len)
{
	if (p->closing || p->inner_gone) {
		return -EPIPE;
	}
	bool was_empty = p->to_ch_off >= p->to_ch_len;
	size_t room = make_room(p->to_ch, &p->to_ch_off, &p->to_ch_len);
	size_t n = len < room ? len : room;
	if (n < len) {
		p->out_refused = true;
	}
	if (n == 0) {
		return -EAGAIN;
	}
	memcpy(p->to_ch + p->to_ch_len, buf, n);
	p->to_ch_len += n;
	/* a buffer that held bytes already has a pump on its way, or one
	 * waiting for the session's socket */
	if (was_empty) {
		p->wake_carrier(p->carrier_ctx);
	}
	return (ssize_t)n;
}

ssize_t ssh_jump_pipe_recv(ssh_jump_pipe *p, void *buf, size_t len)
{
	size_t have = p->to_in_len - p->to_in_off;
	if (have == 0) {
		return p->ch_eof || p->closing ? 0 : -EAGAIN;
	}
	size_t n = len < have ? len : have;
	memcpy(buf, p->to_in + p->to_in_off, n);
	p->to_in_off += n;
	if (p->to_in_off >= p->to_in_len) {
		p->to_in_off = p->to_in_len = 0;
		if (p->in_stalled) {
			/* the channel may hold more: the carrier reads it now */
			p->in_stalled = false;
			p->wake_carrier(p->carrier_ctx);
		}
	}
	return (ssize_t)n;
}

bool ssh_jump_pipe_readable(const ssh_jump_pipe *p)
{
	return p->to_in_off < p->to_in_len || p->ch_eof || p->closing;
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
	return !p->closing && !p->ch_eof && !p->inner_gone && p->to_in_len - p->to_in_off < JUMP_BUF;
}

bool ssh_jump_pipe_holds_send(const ssh_jump_pipe *p)
{
	return p->hold != HOLD_NONE;
}

/* After an EAGAIN from `call`: if it left a packet half sent, only `call`
 * may send next.  Returns whether it did. */
static bool held_by(ssh_jump_pipe *p, hold_kind call)
{
	p->hold = send_blocked(p) ? call : HOLD_NONE;
	return p->hold != HOLD_NONE;
}

static jump_pipe_status close_channel(ssh_jump_pipe *p)
{
	p->closing = true;
	if (libssh2_channel_free(p->channel) == LIBSSH2_ERROR_EAGAIN) {
		held_by(p, HOLD_CLOSE);
		return JUMP_PIPE_OPEN;
	}
	p->channel = NULL;
	return JUMP_PIPE_DONE;
}

/* Channel -> to_in, while there is room and libssh2 has something. */
static jump_pipe_status pump_in(ssh_jump_pipe *p, bool read_socket)
{
	bool got = false;
	jump_pipe_status st = JUMP_PIPE_OPEN;
	while (!p->ch_eof) {
		size_t room = make_room(p->to_in, &p->to_in_off, &p->to_in_len);
		if (room == 0) {
			p->in_stalled = true;
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
		ssize_t n = libssh2_channel_read(p->channel, p->to_in + p->to_in_len, room);
		if (n > 0) {
			p->to_in_len += (size_t)n;
			got = true;
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN) {
			held_by(p, HOLD_READ); /* a window adjust half sent */
			break;
		}
		if (n < 0 && session_broken(n)) {
			st = JUMP_PIPE_BROKEN;
			break;
		}
		if (n < 0 || libssh2_channel_eof(p->channel)) {
			p->ch_eof = true; /* the inner session reads end of stream */
			got = true;
		}
		break;
	}
	if (got) {
		wake_inner(p); /* one wake per pump, whatever it brought */
	}
	return st;
}

/* to_ch -> channel. */
static jump_pipe_status pump_out(ssh_jump_pipe *p)
{
	bool made_room = false;
	while (p->to_ch_off < p->to_ch_len) {
		ssize_t n = libssh2_channel_write(p->channel, p->to_ch + p->to_ch_off, p->to_ch_len - p->to_ch_off);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			held_by(p, HOLD_WRITE);
			break;
		}
		if (n < 0 && session_broken(n)) {
			return JUMP_PIPE_BROKEN;
		}
		if (n < 0) {
			/* the channel takes nothing more: the inner session
			 * reads end of stream, its sends fail */
			p->closing = true;
			wake_inner(p);
			return close_channel(p);
		}
		p->to_ch_off += (size_t)n;
		made_room = true;
	}
	if (made_room && p->out_refused) {
		p->out_refused = false;
		wake_inner(p);
	}
	return JUMP_PIPE_OPEN;
}

/* The inner session let go: the call that left a packet half sent goes on
 * until the packet is out (closing the channel first would strand it, and
 * with it every later send on the session), then the channel closes. */
static jump_pipe_status finish_and_close(ssh_jump_pipe *p, hold_kind held)
{
	p->to_in_off = p->to_in_len = 0; /* nobody will read it */
	ssize_t n = 0;
	if (held == HOLD_READ) {
		n = libssh2_channel_read(p->channel, p->to_in, JUMP_BUF);
	} else if (held == HOLD_WRITE) {
		n = libssh2_channel_write(p->channel, p->to_ch + p->to_ch_off, p->to_ch_len - p->to_ch_off);
	}
	if (n == LIBSSH2_ERROR_EAGAIN && held_by(p, held)) {
		return JUMP_PIPE_OPEN;
	}
	if (n < 0 && session_broken(n)) {
		return JUMP_PIPE_BROKEN;
	}
	p->to_ch_off = p->to_ch_len = 0;
	return close_channel(p);
}

jump_pipe_status ssh_jump_pipe_pump(ssh_jump_pipe *p, bool read_socket)
{
	hold_kind held = p->hold;
	p->hold = HOLD_NONE;
	if (p->closing) {
		return close_channel(p);
	}
	if (p->inner_gone) {
		return finish_and_close(p, held);
	}
	/* the call that holds the session's send side goes first */
	jump_pipe_status st;
	if (held == HOLD_WRITE) {
		st = pump_out(p);
		if (st != JUMP_PIPE_OPEN || p->hold || p->closing) {
			return st;
		}
	}
	st = pump_in(p, read_socket || held == HOLD_READ);
	if (st != JUMP_PIPE_OPEN || p->hold) {
		return st;
	}
	return pump_out(p);
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
	if (p->channel && !session_gone) {
		/* best effort: a close that would block is left to the session */
		libssh2_channel_free(p->channel);
	}
	free(p);
}
