/* ssh_jump.h - one forwarded TCP connection through a jump host: a
 * direct-tcpip channel on the jump host's libssh2 session, fed to the inner
 * SSH session through a socketpair.
 *
 * libssh2 1.10 (Debian 12) reads and writes its session through a socket
 * only, so the inner session gets one end of a socketpair as its socket and
 * the pump moves bytes between the other end and the channel, non-blocking,
 * on the same libev loop.  The jump host's connection, and the pool of
 * them that nodes share, live in ssh_transport.c (a jump connection is an
 * ssh_conn that forwards channels instead of running a shell). */
#ifndef SYNCTOP_SSH_JUMP_H
#define SYNCTOP_SSH_JUMP_H

#include <ev.h>
#include <libssh2.h>
#include <stdbool.h>

/* Default for --jump-channels: nodes one jump connection carries before
 * another is opened.  sshd's MaxSessions does not count direct-tcpip
 * channels (session.c:session_new() is reached only for "session"
 * channels; serverloop.c:server_request_direct_tcpip() checks only
 * AllowTcpForwarding), so the cap is about one TCP stream's share of the
 * traffic and the jump sshd's descriptors, not a server limit. */
#define SSH_JUMP_CHANNELS_DEFAULT 128

typedef struct ssh_jump_pipe ssh_jump_pipe;

typedef enum {
	JUMP_PIPE_OPEN,     /* both directions alive */
	JUMP_PIPE_DONE,     /* one side closed and the channel is freed: free the pipe */
	JUMP_PIPE_BROKEN,   /* the jump host's session failed (socket error) */
} jump_pipe_status;

/* Takes an open channel; *inner_fd is the socket for the inner session
 * (non-blocking; the inner side owns and closes it).  `wake(ctx)` is
 * called from the loop when the pipe's end of the socketpair is ready;
 * it should pump every pipe of the session.  NULL if no socketpair. */
ssh_jump_pipe *ssh_jump_pipe_new(struct ev_loop *loop, LIBSSH2_SESSION *session, LIBSSH2_CHANNEL *channel,
				 int *inner_fd, void (*wake)(void *ctx), void *ctx);

/* Moves what can move, both ways, without blocking.  Call after any
 * activity on the jump session (its socket, another channel): libssh2 may
 * have queued data for this channel that no socket event will announce.
 * read_socket: read the jump session's socket even when nothing is queued
 * for this channel (one pipe per pass does, for all: see can_read). */
jump_pipe_status ssh_jump_pipe_pump(ssh_jump_pipe *p, bool read_socket);

/* The pipe's last pump left a packet half sent on the session: until a
 * pump of this pipe clears it, nothing else may send on the session (no
 * other pipe's pump, no channel open), or libssh2 fails that send with
 * LIBSSH2_ERROR_BAD_USE. */
bool ssh_jump_pipe_holds_send(const ssh_jump_pipe *p);

/* The pipe has room for what the channel sends next. */
bool ssh_jump_pipe_can_read(const ssh_jump_pipe *p);

/* Bytes from the inner session wait for the jump session to take them
 * (the session's socket should be watched for writing). */
bool ssh_jump_pipe_wants_write(const ssh_jump_pipe *p);

/* session_gone: the session is freed or about to be (its channels go
 * with it); otherwise the channel is closed if that does not block. */
void ssh_jump_pipe_free(ssh_jump_pipe *p, bool session_gone);

#endif
