/* ssh_jump.h - one forwarded TCP connection through a jump host: a
 * direct-tcpip channel on the jump host's libssh2 session, fed to the inner
 * SSH session through libssh2's send/recv callbacks.
 *
 * The inner session reads and writes through LIBSSH2_CALLBACK_RECV/SEND,
 * which call ssh_jump_pipe_recv()/ssh_jump_pipe_send(): they only move bytes
 * between the inner session and the pipe's two buffers.  The carrier (the
 * jump host's connection, in ssh_transport.c) pumps the buffers to and from
 * the channel on the jump session.  Neither side has a descriptor to poll
 * for the other, so each tells the other through a wake callback, and only
 * when that side waits for it: the carrier when the inner session wrote
 * into an empty buffer or drained a buffer the pump had filled, the inner
 * session when the pump brought it bytes (or EOF) or made room after a send
 * it refused.  Wakes must be deferred (ssh_transport.c runs them in a pass
 * of the loop): the callbacks run inside libssh2 calls.  (Before, a
 * socketpair stood between the two: two more system calls per message each
 * way, epoll interest changes, and two descriptors per node.) */
#ifndef SYNCTOP_SSH_JUMP_H
#define SYNCTOP_SSH_JUMP_H

#include <libssh2.h>
#include <stdbool.h>
#include <sys/types.h>

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

/* Takes an open channel on `session`.  `wake_carrier(carrier_ctx)` asks
 * for a pump of the session's pipes soon (not from inside the call). */
ssh_jump_pipe *ssh_jump_pipe_new(LIBSSH2_SESSION *session, LIBSSH2_CHANNEL *channel,
				 void (*wake_carrier)(void *ctx), void *carrier_ctx);

/* The inner session that uses the pipe: `wake_inner(inner_ctx)` asks it to
 * run soon (not from inside the call). */
void ssh_jump_pipe_attach(ssh_jump_pipe *p, void (*wake_inner)(void *ctx), void *inner_ctx);

/* The inner session lets go: the pipe never wakes it again, and the next
 * pump closes the channel (the carrier is woken for that). */
void ssh_jump_pipe_detach(ssh_jump_pipe *p);

/* The inner session's transport, as libssh2's send/recv callbacks want it:
 * like send(2)/recv(2) on a non-blocking socket, -errno on failure:
 * -EAGAIN when the buffer is full (send) or empty (recv), 0 from recv at
 * end of stream (the channel's far end closed), -EPIPE from send once the
 * channel takes nothing more. */
ssize_t ssh_jump_pipe_send(ssh_jump_pipe *p, const void *buf, size_t len);
ssize_t ssh_jump_pipe_recv(ssh_jump_pipe *p, void *buf, size_t len);

/* Bytes or end of stream wait for the inner session's recv. */
bool ssh_jump_pipe_readable(const ssh_jump_pipe *p);

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
 * with it); otherwise the channel is closed if that does not block.
 * Never wakes anyone. */
void ssh_jump_pipe_free(ssh_jump_pipe *p, bool session_gone);

#endif
