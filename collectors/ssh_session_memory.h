/* ssh_session_memory.h - every allocation libssh2 makes for one session,
 * so that none outlives it.
 *
 * libssh2 1.10 forgets some of its own allocations when a key exchange is
 * abandoned half-way (the ephemeral curve25519 keys, 64 bytes per abort:
 * libssh2 issues #282 and #660).  A dashboard left running for a week against
 * flapping nodes aborts many handshakes, so the session is created with
 * allocation callbacks that keep its blocks on a list, and whatever is still
 * on the list once libssh2_session_free() has returned is freed here. */
#ifndef SYNCTOP_SSH_SESSION_MEMORY_H
#define SYNCTOP_SSH_SESSION_MEMORY_H

#include <libssh2.h>
#include <stddef.h>

typedef union ssh_block ssh_block;

typedef struct {
	ssh_block *blocks;    /* live allocations, most recent first */
	size_t live_blocks;
	size_t live_bytes;
} ssh_session_memory;

/* libssh2_session_init_ex() with this memory's callbacks; NULL on failure.
 * `m` must stay at the same address until ssh_session_memory_release(). */
LIBSSH2_SESSION *ssh_session_memory_open(ssh_session_memory *m);

/* After libssh2_session_free() (and the free of everything made from the
 * session: agents, channels): frees what libssh2 left behind.  Returns the
 * number of blocks it had to free (0 when libssh2 freed everything) and
 * their total size in *bytes when bytes is not NULL. */
size_t ssh_session_memory_release(ssh_session_memory *m, size_t *bytes);

#endif
