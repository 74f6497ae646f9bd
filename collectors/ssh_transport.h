/* ssh_transport.h - the probe shell over one persistent, non-blocking libssh2
 * session on the libev loop.
 *
 * One explicit state machine per connection (resolve, connect, handshake,
 * host key, auth, channel, exec, running), stepped until libssh2 says EAGAIN;
 * libssh2_session_block_directions() decides the ev_io interest.  At most
 * `max_handshakes` connections are between TCP connect and a running shell at
 * any time (key exchange is the expensive part); established sessions are not
 * limited.
 *
 * A host with a jump host (ssh_options.via) is reached through a
 * direct-tcpip channel on a connection to the jump host, shared by every
 * node behind it (ssh_jump.h); that connection is itself one of these
 * state machines, stopping after authentication to forward channels. */
#ifndef SYNCTOP_SSH_TRANSPORT_H
#define SYNCTOP_SSH_TRANSPORT_H

#include <ev.h>
#include <limits.h>
#include <stdbool.h>

#include "private_agent.h"
#include "transport.h"

#define SSH_MAX_IDENTITIES 8
#define SSH_AGENT_SOCKET_LEN 108 /* sun_path */

typedef struct ssh_options {
	char host[256];          /* address or name to connect to (HostName) */
	int port;
	char user[64];
	int n_identity_files;
	char identity_files[SSH_MAX_IDENTITIES][PATH_MAX];
	bool identities_explicit;  /* from -i / IdentityFile: a missing file is an error */
	bool identities_only;      /* do not use the agent */
	/* Set at start-up by private_agent_load(): encrypted files are never
	 * read by libssh2 (it would re-derive the key on every connection); an
	 * agent signs with them, or they are skipped. */
	identity_state identity_states[SSH_MAX_IDENTITIES];
	/* synctop's private ssh-agent, tried after the user's agent and before
	 * key files; "" = none. */
	char private_agent_socket[SSH_AGENT_SOCKET_LEN];
	double connect_timeout_s;  /* resolve .. running shell */
	double keepalive_interval_s; /* 0 = off */
	/* Host key types known_hosts holds for this host, in preference order
	 * ("ssh-ed25519,ecdsa-sha2-nistp256"); "" = libssh2's default order. */
	char hostkey_methods[256];
	/* ssh_config keys about authentication libssh2 cannot honour, named in
	 * an authentication failure: "CertificateFile (file:line), ..." and
	 * GSSAPIAuthentication (named only when the server offers Kerberos:
	 * Debian sets it for every host); "" = none. */
	char auth_unsupported[512];
	char auth_gssapi[512];
	/* Decides whether to trust the offered host key (known_hosts and the
	 * StrictHostKeyChecking policy live with the caller).  Returns 0 to
	 * accept; otherwise fills msg with the reason.  Required. */
	int (*verify_host_key)(void *ctx, const char *host, int port, const unsigned char *key,
			       size_t key_len, char *msg, size_t msg_len);
	void *verify_ctx;
	/* The jump host this host is reached through (ProxyJump): its own
	 * options (which may name a jump host of their own), owned by the
	 * caller and alive as long as any transport; NULL = directly.  Every
	 * transport naming the same `via` shares its connections. */
	const struct ssh_options *via;
	/* For a jump host: its name in messages (as ProxyJump wrote it), and
	 * how many nodes one connection to it carries before another opens. */
	char jump_label[128];
	int jump_channels;
} ssh_options;

void ssh_options_init(ssh_options *opt);

/* Global, once: libssh2_init, the handshake limit. */
int ssh_transport_global_init(struct ev_loop *loop, int max_handshakes);
void ssh_transport_global_free(void);

/* `command` is the remote command that starts the probe shell (copied). */
transport *ssh_transport_new(struct ev_loop *loop, const ssh_options *opt, const char *command,
			     const transport_events *events, void *owner);

/* Handshakes in flight now (for tests and the status bar). */
int ssh_transport_handshakes_in_flight(void);

/* Blocks libssh2 holds for t's session now (for tests: nothing may pile up
 * over a session's life). */
size_t ssh_transport_session_blocks(const transport *t);

#endif
