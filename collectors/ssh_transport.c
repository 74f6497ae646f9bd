/* ssh_transport.c - one node's persistent SSH session and probe shell.
 *
 * Each connection is an explicit state; step_<state>() does the work for it
 * and returns STEP_AGAIN when libssh2 would block (wait for the socket),
 * STEP_NEXT when it moved on (step again), STEP_IDLE when there is nothing to
 * do until new data arrives, or STEP_FAILED after reporting the failure.
 * After stepping, the ev_io interest follows libssh2's block directions and
 * is re-armed only when it changes.  The state changes only in set_state(),
 * which applies the new state's deadline rule and logs the transition. */
#include <config.h>

#include "ssh_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bytebuf.h"
#include "log.h"
#include "resolver.h"
#include "ssh_jump.h"
#include "ssh_session_memory.h"
#include "ssh_unsupported.h"
#include "xalloc.h"

typedef enum {
	SSH_IDLE,
	SSH_RESOLVING,
	SSH_WAIT_SLOT,     /* waiting for a handshake slot */
	SSH_CONNECTING,    /* TCP connect in progress */
	SSH_HANDSHAKE,
	SSH_HOSTKEY,
	SSH_AUTH_LIST,
	SSH_AUTH_AGENT,
	SSH_AUTH_PRIVATE_AGENT, /* synctop's own agent: encrypted identity files */
	SSH_AUTH_KEYFILE,
	SSH_CHANNEL_OPEN,
	SSH_CHANNEL_EXEC,
	SSH_RUNNING,
	SSH_CHANNEL_CLOSING, /* dropping a hung shell before opening a new one */
	SSH_JUMP_WAIT,       /* waiting for a channel through the jump host */
	SSH_FORWARDING,      /* a jump host's connection: authenticated, forwarding channels */
	SSH_STATE_COUNT,     /* not a state: how many there are */
} ssh_state;

/* What entering a state does to the connect deadline. */
typedef enum {
	DEADLINE_OFF,   /* stopped: nothing to time (idle, queued, running) */
	DEADLINE_START, /* a fresh connect_timeout_s starts */
	DEADLINE_KEEP,  /* the one already running goes on */
} deadline_rule;

/* Per state: its name in messages and --log, the deadline that applies, and
 * how running out of time in it is reported (slow is not refused: a timeout
 * during authentication is a retried handshake error, not an auth one). */
static const struct {
	const char *name;
	deadline_rule deadline;
	transport_error timeout_kind;
} states[] = {
	[SSH_IDLE] = {"idle", DEADLINE_OFF, TRANSPORT_ERR_CONNECT},
	[SSH_RESOLVING] = {"resolving", DEADLINE_START, TRANSPORT_ERR_CONNECT},
	[SSH_WAIT_SLOT] = {"waiting for a handshake slot", DEADLINE_OFF, TRANSPORT_ERR_CONNECT},
	[SSH_CONNECTING] = {"connecting", DEADLINE_START, TRANSPORT_ERR_CONNECT},
	[SSH_HANDSHAKE] = {"key exchange", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_HOSTKEY] = {"host key check", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_AUTH_LIST] = {"authentication", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_AUTH_AGENT] = {"agent authentication", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_AUTH_PRIVATE_AGENT] = {"private agent authentication", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_AUTH_KEYFILE] = {"key file authentication", DEADLINE_KEEP, TRANSPORT_ERR_HANDSHAKE},
	[SSH_CHANNEL_OPEN] = {"opening channel", DEADLINE_KEEP, TRANSPORT_ERR_CHANNEL},
	[SSH_CHANNEL_EXEC] = {"starting remote shell", DEADLINE_KEEP, TRANSPORT_ERR_CHANNEL},
	[SSH_RUNNING] = {"running", DEADLINE_OFF, TRANSPORT_ERR_CHANNEL},
	[SSH_CHANNEL_CLOSING] = {"closing channel", DEADLINE_START, TRANSPORT_ERR_CHANNEL},
	[SSH_JUMP_WAIT] = {"waiting for the jump host", DEADLINE_START, TRANSPORT_ERR_CONNECT},
	[SSH_FORWARDING] = {"forwarding", DEADLINE_OFF, TRANSPORT_ERR_LOST},
};
_Static_assert(sizeof states / sizeof states[0] == SSH_STATE_COUNT, "every ssh_state needs a row in states[]");

typedef enum { STEP_AGAIN, STEP_NEXT, STEP_IDLE, STEP_FAILED } step_result;

/* Authentication through one ssh-agent: its own handle (each agent has its
 * own socket) and the key to offer next. */
typedef struct {
	LIBSSH2_AGENT *handle;
	struct libssh2_agent_publickey *identity; /* NULL: none left */
} agent_auth;

struct jump_pool;

/* One node's channel on a jump host's connection. */
typedef struct {
	ssh_jump_pipe *pipe;
	struct ssh_conn *node; /* NULL once the node let go (its fd closed) */
} jump_chan;

typedef struct ssh_conn {
	transport base;
	struct ev_loop *loop;
	ssh_options opt;
	char *command;
	ssh_state state;

	resolver_request *lookup;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int fd;                    /* -1 behind a jump host: the session runs on jpipe */
	ev_io io;
	int io_events;             /* interest currently armed, 0 = stopped */
	ev_timer deadline;         /* connect .. running, and channel restarts */
	ev_timer keepalive;

	LIBSSH2_SESSION *session;
	ssh_session_memory session_memory; /* everything libssh2 allocates for it */
	LIBSSH2_CHANNEL *channel;
	agent_auth user_agent;     /* $SSH_AUTH_SOCK */
	agent_auth private_agent;  /* synctop's own, for encrypted identity files */
	int identity_index;
	bool holds_slot;
	bool in_drive;             /* re-entrancy guard for callbacks */

	char auth_notes[384];      /* what each auth attempt said, for the error */
	bool server_offers_gssapi; /* "gssapi-with-mic" was in the server's list */
	bytebuf out;               /* request bytes not yet written */

	struct ssh_conn *wait_next; /* handshake slot queue */

	/* Reached through a jump host (opt.via): the pool asked for a channel,
	 * its queue, and the jump connection carrying the channel now. */
	struct jump_pool *pool;
	struct ssh_conn *queue_next;
	bool queued;
	struct ssh_conn *carrier;
	ssh_jump_pipe *jpipe;     /* the channel's pipe (owned by the carrier); NULL: none, or it closed */
	/* Woken (wake_conn): due in the pass after pass woken_in. */
	bool woken;
	unsigned woken_in;
	struct ssh_conn *wake_next;
	/* A jump host's own connection: the pool it serves, the channels it
	 * carries, and the one being opened (libssh2 opens one at a time). */
	struct jump_pool *serves;
	struct ssh_conn *link_next;
	jump_chan *chans;
	size_t n_chans, cap_chans;
	bool open_busy;
	struct ssh_conn *opening; /* NULL if that node let go meanwhile */
	char open_host[256];
	int open_port;
	bool read_wanted;         /* some pipe has room: watch the socket */
	bool write_wanted;        /* some pipe waits to write to the session */
	struct ssh_conn **orphans; /* nodes it carried when it failed, told by link_failed() */
	size_t n_orphans;
} ssh_conn;

/* The connections to one jump host (one ssh_options.via), shared by every
 * node behind it.  A new connection opens only when the others carry
 * jump_channels nodes each; after a failure the next one waits a backoff. */
typedef struct jump_pool {
	const ssh_options *opt;
	struct ev_loop *loop;
	ssh_conn *links;
	ssh_conn *queue_head, *queue_tail; /* nodes waiting for a channel */
	ev_timer kick;                     /* deferred work, and the backoff */
	double backoff_s;
	double not_before;                 /* ev_now() before which no connection opens */
	/* Host key or authentication refused: every node behind it gets this
	 * error, and nothing is retried (as for a node). */
	transport_error refused_kind;
	char refused[768];
	char last_error[512];              /* the last connection failure, for timeouts */
	struct jump_pool *next;
} jump_pool;

static struct {
	int max_handshakes;
	int in_flight;
	int null_fd; /* the "socket" of every session behind a jump host (step_handshake) */
	struct ev_loop *loop;
	ev_idle wake_idle;             /* runs a pass while any conn is woken */
	ssh_conn *wake_head, *wake_tail; /* the woken, in the order woken */
	unsigned wake_pass;
	ssh_conn *wait_head, *wait_tail;
	jump_pool *pools;
	bool initialised;
} G;

static void drive(ssh_conn *c);
static void wake_conn(void *ctx);
static void teardown(ssh_conn *c, const char *reason);
static void set_state(ssh_conn *c, ssh_state to, const char *reason);
static step_result fail(ssh_conn *c, transport_error kind, const char *fmt, ...);
static void pool_request(ssh_conn *c);
static void pool_schedule(jump_pool *p, double delay);
static void jump_detach(ssh_conn *c);
static void link_teardown(ssh_conn *link);

/* ---------------------------------------------------------------- helpers */

void ssh_options_init(ssh_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->port = 22;
	opt->connect_timeout_s = 10;
	opt->keepalive_interval_s = 30;
}

static void note(ssh_conn *c, const char *fmt, ...)
{
	size_t used = strlen(c->auth_notes);
	if (used + 3 >= sizeof c->auth_notes) {
		return;
	}
	if (used) {
		c->auth_notes[used++] = ';';
		c->auth_notes[used++] = ' ';
		c->auth_notes[used] = '\0';
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->auth_notes + used, sizeof c->auth_notes - used, fmt, ap);
	va_end(ap);
}

static const char *last_error(ssh_conn *c)
{
	char *msg = NULL;
	if (!c->session) {
		return "no session";
	}
	libssh2_session_last_error(c->session, &msg, NULL, 0);
	return msg && *msg ? msg : "unknown libssh2 error";
}

static void release_slot(ssh_conn *c)
{
	if (!c->holds_slot) {
		return;
	}
	c->holds_slot = false;
	G.in_flight--;
	/* Hand the slot to the next waiting connection. */
	while (G.wait_head && G.in_flight < G.max_handshakes) {
		ssh_conn *next = G.wait_head;
		G.wait_head = next->wait_next;
		if (!G.wait_head) {
			G.wait_tail = NULL;
		}
		next->wait_next = NULL;
		next->holds_slot = true;
		G.in_flight++;
		next->fd = -1;
		set_state(next, SSH_CONNECTING, "handshake slot free");
		drive(next);
	}
}

static void leave_wait_queue(ssh_conn *c)
{
	ssh_conn **pp = &G.wait_head, *prev = NULL;
	while (*pp) {
		if (*pp == c) {
			*pp = c->wait_next;
			if (G.wait_tail == c) {
				G.wait_tail = prev;
			}
			c->wait_next = NULL;
			return;
		}
		prev = *pp;
		pp = &(*pp)->wait_next;
	}
}

/* The only way to change c->state.  Entering a state applies its deadline
 * rule (the connect deadline covers connect .. running shell; time queued for
 * a handshake slot does not count), and --log gets one line per transition,
 * with `reason` (a static phrase) saying what caused it.  Staying in a state
 * (EAGAIN) is not a transition: nothing is logged and the deadline runs on. */
static void set_state(ssh_conn *c, ssh_state to, const char *reason)
{
	ssh_state from = c->state;
	if (from == to) {
		return;
	}
	log_printf("ssh %s port %d: %s -> %s (%s)", c->opt.host, c->opt.port, states[from].name,
		   states[to].name, reason);
	c->state = to;
	switch (states[to].deadline) {
	case DEADLINE_OFF:
		ev_timer_stop(c->loop, &c->deadline);
		break;
	case DEADLINE_START:
		ev_timer_stop(c->loop, &c->deadline);
		ev_timer_set(&c->deadline, c->opt.connect_timeout_s, 0);
		ev_timer_start(c->loop, &c->deadline);
		break;
	case DEADLINE_KEEP:
		break;
	}
}

static void set_interest(ssh_conn *c, int events)
{
	if (c->fd < 0) {
		events = 0;
	}
	if (events == c->io_events) {
		return;
	}
	if (c->io_events) {
		ev_io_stop(c->loop, &c->io);
	}
	c->io_events = events;
	if (events) {
		ev_io_set(&c->io, c->fd, events);
		ev_io_start(c->loop, &c->io);
	}
}

/* libssh2 errors that say the connection broke, not that the server refused:
 * retried with backoff instead of being taken as a wrong key. */
static bool connection_error(int rc)
{
	switch (rc) {
	case LIBSSH2_ERROR_SOCKET_NONE:
	case LIBSSH2_ERROR_SOCKET_SEND:
	case LIBSSH2_ERROR_SOCKET_RECV:
	case LIBSSH2_ERROR_SOCKET_DISCONNECT:
	case LIBSSH2_ERROR_SOCKET_TIMEOUT:
	case LIBSSH2_ERROR_TIMEOUT:
	case LIBSSH2_ERROR_BANNER_RECV:
		return true;
	default:
		return false;
	}
}

/* The --log reason for a failure of this kind (the owner gets the details). */
static const char *failure_reason(transport_error kind)
{
	switch (kind) {
	case TRANSPORT_ERR_RESOLVE: return "name not resolved";
	case TRANSPORT_ERR_CONNECT: return "connect failed";
	case TRANSPORT_ERR_HANDSHAKE: return "handshake failed";
	case TRANSPORT_ERR_HOSTKEY: return "host key rejected";
	case TRANSPORT_ERR_AUTH: return "auth refused";
	case TRANSPORT_ERR_CHANNEL: return "channel failed";
	case TRANSPORT_ERR_LOST: return "connection lost";
	}
	return "failed";
}

/* Report a failure: everything is torn down first, so the owner may start
 * the transport again from inside the callback. */
/* An authentication failure names the ssh_config keys that would have
 * let OpenSSH in (GSSAPIAuthentication only if the server offers Kerberos). */
static bool has_auth_advice(const ssh_conn *c)
{
	return (c->server_offers_gssapi && c->opt.auth_gssapi[0]) || c->opt.auth_unsupported[0];
}

static void add_auth_advice(const ssh_conn *c, char *msg, size_t len)
{
	const char *gss = c->server_offers_gssapi ? c->opt.auth_gssapi : "";
	const char *other = c->opt.auth_unsupported;
	size_t used = strlen(msg);
	if (has_auth_advice(c) && used < len) {
		/* cut, not refused, if long: the keys come first */
		int n = snprintf(msg + used, len - used, " (ssh_config gives it %.300s%s%.300s, which only OpenSSH can use: %s)",
				 gss, gss[0] && other[0] ? ", " : "", other, SSH_UNSUPPORTED_AUTH_FIX);
		(void)n;
	}
}

static step_result vfail(ssh_conn *c, transport_error kind, const char *reason, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (kind == TRANSPORT_ERR_AUTH) {
		add_auth_advice(c, msg, sizeof msg);
	}
	teardown(c, reason);
	c->base.events->failed(c->base.owner, kind, msg);
	return STEP_FAILED;
}

static step_result fail(ssh_conn *c, transport_error kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	step_result r = vfail(c, kind, failure_reason(kind), fmt, ap);
	va_end(ap);
	return r;
}

/* The same, when the deadline ran out: --log says "deadline", whatever kind
 * of error the owner is told it is. */
static void deadline_fail(ssh_conn *c, transport_error kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(c, kind, "deadline", fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ the states */

static void take_slot(ssh_conn *c, const char *reason, const char *busy);

static void on_resolved(void *ctx, const struct sockaddr *addr, socklen_t addrlen, const char *err)
{
	ssh_conn *c = ctx;
	c->lookup = NULL;
	if (err) {
		fail(c, TRANSPORT_ERR_RESOLVE, "%s", err);
		return;
	}
	memcpy(&c->addr, addr, addrlen);
	c->addrlen = addrlen;
	take_slot(c, "resolved", "resolved, all handshake slots busy");
}

/* Into the handshake: now, or when a slot frees up. */
static void take_slot(ssh_conn *c, const char *reason, const char *busy)
{
	if (G.in_flight < G.max_handshakes) {
		c->holds_slot = true;
		G.in_flight++;
		set_state(c, SSH_CONNECTING, reason);
	} else {
		set_state(c, SSH_WAIT_SLOT, busy);
		if (G.wait_tail) {
			G.wait_tail->wait_next = c;
		} else {
			G.wait_head = c;
		}
		G.wait_tail = c;
		return;
	}
	drive(c);
}

/* A session behind a jump host reads and writes through its channel's pipe
 * (ssh_jump.h), by libssh2's send/recv callbacks.  They get the session's
 * `abstract`, which ssh_session_memory_open() made the conn's memory
 * account: the conn is around it. */
static ssh_conn *conn_of_abstract(void **abstract)
{
	return (ssh_conn *)(void *)((char *)*abstract - offsetof(ssh_conn, session_memory));
}

static LIBSSH2_SEND_FUNC(jump_send)
{
	(void)socket;
	(void)flags;
	ssh_conn *c = conn_of_abstract(abstract);
	/* no pipe: the node let go, or the channel closed under it */
	return c->jpipe ? ssh_jump_pipe_send(c->jpipe, buffer, length) : -EPIPE;
}

static LIBSSH2_RECV_FUNC(jump_recv)
{
	(void)socket;
	(void)flags;
	ssh_conn *c = conn_of_abstract(abstract);
	return c->jpipe ? ssh_jump_pipe_recv(c->jpipe, buffer, length) : 0;
}

static step_result step_connecting(ssh_conn *c)
{
	if (c->pool) {
		goto connected; /* the jump host's channel is the connection */
	}
	if (c->fd < 0) {
		c->fd = socket(c->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (c->fd < 0) {
			return fail(c, TRANSPORT_ERR_CONNECT, "socket: %s", strerror(errno));
		}
		int one = 1;
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (connect(c->fd, (struct sockaddr *)&c->addr, c->addrlen) == 0) {
			goto connected;
		}
		if (errno != EINPROGRESS) {
			return fail(c, TRANSPORT_ERR_CONNECT, "connect to %s port %d: %s", c->opt.host,
				    c->opt.port, strerror(errno));
		}
		return STEP_AGAIN;
	}
	int soerr = 0;
	socklen_t len = sizeof soerr;
	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0) {
		soerr = errno;
	}
	if (soerr == EINPROGRESS || soerr == EALREADY) {
		return STEP_AGAIN;
	}
	if (soerr != 0) {
		return fail(c, TRANSPORT_ERR_CONNECT, "connect to %s port %d: %s", c->opt.host, c->opt.port,
			    strerror(soerr));
	}
connected:
	c->session = ssh_session_memory_open(&c->session_memory);
	if (!c->session) {
		return fail(c, TRANSPORT_ERR_HANDSHAKE, "cannot create an SSH session");
	}
	libssh2_session_set_blocking(c->session, 0);
	if (c->pool) {
		/* (libssh2 takes them as void *) */
		libssh2_session_callback_set(c->session, LIBSSH2_CALLBACK_SEND, (void *)jump_send);
		libssh2_session_callback_set(c->session, LIBSSH2_CALLBACK_RECV, (void *)jump_recv);
	}
	/* Ask for the key types known_hosts holds, so the one offered can be
	 * verified (the list only names types this libssh2 supports). */
	if (c->opt.hostkey_methods[0]) {
		libssh2_session_method_pref(c->session, LIBSSH2_METHOD_HOSTKEY, c->opt.hostkey_methods);
	}
	set_state(c, SSH_HANDSHAKE, "TCP connected");
	return STEP_NEXT;
}

static step_result step_handshake(ssh_conn *c)
{
	/* Behind a jump host libssh2 still wants a descriptor: it only reads
	 * its flags (session_startup: already non-blocking, so it changes
	 * nothing, and session_free restores nothing); its own waits on it
	 * are for blocking sessions only.  Every I/O goes to the callbacks. */
	int rc = libssh2_session_handshake(c->session, c->pool ? G.null_fd : c->fd);
	if (rc == LIBSSH2_ERROR_EAGAIN) {
		return STEP_AGAIN;
	}
	/* libssh2 says only "Failed getting banner" for both of these */
	if (rc == LIBSSH2_ERROR_BANNER_RECV) {
		return fail(c, TRANSPORT_ERR_HANDSHAKE,
			    "SSH handshake with %s port %d failed: no SSH version line (not an SSH server?)",
			    c->opt.host, c->opt.port);
	}
	if ((rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_DISCONNECT) &&
	    strstr(last_error(c), "banner")) {
		return fail(c, TRANSPORT_ERR_HANDSHAKE,
			    "SSH handshake with %s port %d failed: the server hung up before its version "
			    "line (sshd at MaxStartups, a firewall or tarpit?)",
			    c->opt.host, c->opt.port);
	}
	if (rc != 0) {
		return fail(c, TRANSPORT_ERR_HANDSHAKE, "SSH handshake with %s port %d failed: %s",
			    c->opt.host, c->opt.port, last_error(c));
	}
	set_state(c, SSH_HOSTKEY, "key exchange done");
	return STEP_NEXT;
}

static step_result step_hostkey(ssh_conn *c)
{
	size_t len = 0;
	int type = 0;
	const char *key = libssh2_session_hostkey(c->session, &len, &type);
	char msg[512] = "";
	if (!key) {
		return fail(c, TRANSPORT_ERR_HOSTKEY, "the server sent no host key");
	}
	(void)type; /* the key blob names its own type */
	if (c->opt.verify_host_key(c->opt.verify_ctx, c->opt.host, c->opt.port, (const unsigned char *)key,
				   len, msg, sizeof msg) != 0) {
		return fail(c, TRANSPORT_ERR_HOSTKEY, "%s", msg);
	}
	set_state(c, SSH_AUTH_LIST, "host key accepted");
	return STEP_NEXT;
}

/* The user's agent, then synctop's private one (only when start-up loaded
 * encrypted identity files into it), then key files. */
static ssh_state after_user_agent(const ssh_conn *c)
{
	return c->opt.private_agent_socket[0] ? SSH_AUTH_PRIVATE_AGENT : SSH_AUTH_KEYFILE;
}

static step_result step_auth_list(ssh_conn *c)
{
	const char *methods = libssh2_userauth_list(c->session, c->opt.user, (unsigned)strlen(c->opt.user));
	if (!methods) {
		if (libssh2_userauth_authenticated(c->session)) {
			set_state(c, SSH_CHANNEL_OPEN, "no authentication needed");
			return STEP_NEXT;
		}
		int err = libssh2_session_last_errno(c->session);
		if (err == LIBSSH2_ERROR_EAGAIN) {
			return STEP_AGAIN;
		}
		if (connection_error(err)) {
			return fail(c, TRANSPORT_ERR_LOST, "connection lost during authentication: %s", last_error(c));
		}
		return fail(c, TRANSPORT_ERR_AUTH, "authentication as %s failed: %s", c->opt.user, last_error(c));
	}
	c->server_offers_gssapi = strstr(methods, "gssapi-with-mic") != NULL;
	if (!strstr(methods, "publickey")) {
		/* the fix is said once: after the config's keys when it has any */
		return fail(c, TRANSPORT_ERR_AUTH, "server does not accept public keys for %s (it offers: %s)%s%s",
			    c->opt.user, methods, has_auth_advice(c) ? "" : "; ",
			    has_auth_advice(c) ? "" : SSH_UNSUPPORTED_AUTH_FIX);
	}
	c->auth_notes[0] = '\0';
	c->identity_index = 0;
	if (!c->opt.identities_only && getenv("SSH_AUTH_SOCK")) {
		set_state(c, SSH_AUTH_AGENT, "server takes public keys");
	} else {
		set_state(c, after_user_agent(c), "server takes public keys");
	}
	return STEP_NEXT;
}

/* libssh2 < 1.11 can only sign with ssh-rsa (SHA-1), which OpenSSH >= 8.8
 * refuses: offering RSA agent keys only burns the server's MaxAuthTries. */
static bool rsa_signing_broken(void)
{
	return LIBSSH2_VERSION_NUM < 0x010b00;
}

static bool blob_is_rsa(const unsigned char *blob, size_t len)
{
	return len > 11 && memcmp(blob + 4, "ssh-rsa", 7) == 0 && blob[3] == 7;
}

/* Only the keys loaded from this node's own identity files are offered (each
 * refusal costs one of the server's MaxAuthTries), unless one of those files'
 * public half is unknown. */
static bool private_key_wanted(const ssh_conn *c, const struct libssh2_agent_publickey *id)
{
	for (int i = 0; i < c->opt.n_identity_files; i++) {
		if (c->opt.identity_states[i] == IDENTITY_IN_PRIVATE_AGENT &&
		    private_agent_key_matches(c->opt.identity_files[i], id->blob, id->blob_len) != 0) {
			return true;
		}
	}
	return false;
}

typedef enum { AGENT_WAIT, AGENT_ACCEPTED, AGENT_DONE } agent_outcome;

/* Offers an agent's keys one by one (socket NULL: the user's agent; name for
 * the notes; own_keys_only: skip keys not from this node's identity files).
 * AGENT_DONE when none was accepted, with *why a static phrase for --log. */
static agent_outcome agent_offer(ssh_conn *c, agent_auth *a, const char *socket, const char *name,
				 bool own_keys_only, const char **why)
{
	if (!a->handle) {
		a->handle = libssh2_agent_init(c->session);
		if (a->handle && socket) {
			libssh2_agent_set_identity_path(a->handle, socket);
		}
		/* Both calls talk to a local agent socket; they are quick and
		 * cannot be made non-blocking in libssh2. */
		if (!a->handle || libssh2_agent_connect(a->handle) != 0 ||
		    libssh2_agent_list_identities(a->handle) != 0) {
			note(c, "%s unavailable", name);
			*why = "agent unavailable";
			return AGENT_DONE;
		}
		a->identity = NULL;
		if (libssh2_agent_get_identity(a->handle, &a->identity, NULL) != 0) {
			note(c, "%s holds no keys", name);
			*why = "agent holds no keys";
			return AGENT_DONE;
		}
	}
	while (a->identity) {
		struct libssh2_agent_publickey *id = a->identity;
		const char *comment = id->comment ? id->comment : "";
		if (own_keys_only && !private_key_wanted(c, id)) {
			/* another node's key */
		} else if (rsa_signing_broken() && blob_is_rsa(id->blob, id->blob_len)) {
			note(c, "skipped RSA key %s in %s (libssh2 %s cannot sign rsa-sha2)", comment, name,
			     LIBSSH2_VERSION);
		} else {
			int rc = libssh2_agent_userauth(a->handle, c->opt.user, id);
			if (rc == LIBSSH2_ERROR_EAGAIN) {
				return AGENT_WAIT;
			}
			if (rc == 0) {
				return AGENT_ACCEPTED;
			}
			note(c, "key %s in %s refused", comment, name);
		}
		struct libssh2_agent_publickey *next = NULL;
		if (libssh2_agent_get_identity(a->handle, &next, id) != 0) {
			next = NULL;
		}
		a->identity = next;
	}
	*why = "no agent key accepted";
	return AGENT_DONE;
}

/* Moves on from an agent: to opening the channel once a key was accepted,
 * else to `next`. */
static step_result agent_step(ssh_conn *c, agent_outcome outcome, ssh_state next, const char *why)
{
	switch (outcome) {
	case AGENT_WAIT:
		return STEP_AGAIN;
	case AGENT_ACCEPTED:
		set_state(c, SSH_CHANNEL_OPEN, "agent key accepted");
		return STEP_NEXT;
	case AGENT_DONE:
		set_state(c, next, why);
		return STEP_NEXT;
	}
	return STEP_NEXT;
}

static step_result step_auth_agent(ssh_conn *c)
{
	const char *why = NULL;
	agent_outcome outcome = agent_offer(c, &c->user_agent, NULL, "ssh-agent", false, &why);
	return agent_step(c, outcome, after_user_agent(c), why);
}

/* synctop's private agent holds the encrypted identity files whose
 * passphrase was asked at start-up (private_agent.h): the agent signs, so the
 * key derivation ran once, in ssh-add, and never on this loop. */
static step_result step_auth_private_agent(ssh_conn *c)
{
	const char *why = NULL;
	agent_outcome outcome = agent_offer(c, &c->private_agent, c->opt.private_agent_socket,
					    "synctop's private agent", true, &why);
	return agent_step(c, outcome, SSH_AUTH_KEYFILE, why);
}

static bool key_file_is_rsa(const char *path)
{
	char pub[PATH_MAX + 8], word[16] = "";
	snprintf(pub, sizeof pub, "%s.pub", path);
	FILE *f = fopen(pub, "r");
	if (!f) {
		return strstr(path, "rsa") != NULL;
	}
	if (fscanf(f, "%15s", word) != 1) {
		word[0] = '\0';
	}
	fclose(f);
	return strcmp(word, "ssh-rsa") == 0;
}

static step_result step_auth_keyfile(ssh_conn *c)
{
	while (c->identity_index < c->opt.n_identity_files) {
		const char *path = c->opt.identity_files[c->identity_index];
		/* Encrypted: libssh2 would spend ~200 ms re-deriving the key only
		 * to fail without a passphrase; an agent is the only way in. */
		switch (c->opt.identity_states[c->identity_index]) {
		case IDENTITY_PLAIN:
			break;
		case IDENTITY_ENCRYPTED:
			note(c, "%s is encrypted: load it into ssh-agent (ssh-add %s)", path, path);
			c->identity_index++;
			continue;
		case IDENTITY_IN_USER_AGENT:
			note(c, "%s is encrypted (tried through ssh-agent, which holds it)", path);
			c->identity_index++;
			continue;
		case IDENTITY_IN_PRIVATE_AGENT:
			note(c, "%s is encrypted (tried through synctop's private agent, which holds it)", path);
			c->identity_index++;
			continue;
		case IDENTITY_STATE_COUNT: /* not a state */
			break;
		}
		if (access(path, R_OK) != 0) {
			if (c->opt.identities_explicit) {
				note(c, "%s: %s", path, strerror(errno));
			}
			c->identity_index++;
			continue;
		}
		int rc = libssh2_userauth_publickey_fromfile_ex(c->session, c->opt.user,
								(unsigned)strlen(c->opt.user), NULL, path, NULL);
		if (rc == LIBSSH2_ERROR_EAGAIN) {
			return STEP_AGAIN;
		}
		if (rc == 0) {
			set_state(c, SSH_CHANNEL_OPEN, "key file accepted");
			return STEP_NEXT;
		}
		if (connection_error(rc)) {
			/* not a refusal: the next identity would meet the same dead link */
			return fail(c, TRANSPORT_ERR_LOST, "connection lost during authentication: %s",
				    last_error(c));
		}
		if (rc == LIBSSH2_ERROR_FILE) {
			note(c, "%s could not be loaded (encrypted keys: load them into ssh-agent with ssh-add)", path);
		} else if (rsa_signing_broken() && key_file_is_rsa(path)) {
			note(c, "%s refused: libssh2 %s signs RSA keys with SHA-1 (ssh-rsa), which OpenSSH >= 8.8 "
				"rejects by default; use an ed25519 or ECDSA key", path, LIBSSH2_VERSION);
		} else {
			note(c, "%s refused", path);
		}
		c->identity_index++;
	}
	return fail(c, TRANSPORT_ERR_AUTH, "authentication as %s on %s failed: %s", c->opt.user, c->opt.host,
		    c->auth_notes[0] ? c->auth_notes : "no identity available (no agent, no key files)");
}

static void start_keepalive(ssh_conn *c)
{
	if (c->opt.keepalive_interval_s > 0 && !ev_is_active(&c->keepalive)) {
		/* want_reply 0: sshd answers keepalive@libssh2.org with a
		 * one-byte SSH_MSG_REQUEST_FAILURE, which libssh2 1.10 queues
		 * on the session and never frees (libssh2 issue #623): one more
		 * each interval for the session's life, walked by every channel
		 * read, and on a jump connection each makes every pipe's
		 * libssh2_poll_channel_read() true, so every pump of every
		 * channel cost a recv().  Nothing here reads the replies; a
		 * dead peer still shows as the keepalive's send failing. */
		libssh2_keepalive_config(c->session, 0, (unsigned)c->opt.keepalive_interval_s);
		ev_timer_set(&c->keepalive, c->opt.keepalive_interval_s, c->opt.keepalive_interval_s);
		ev_timer_start(c->loop, &c->keepalive);
	}
}

static step_result step_channel_open(ssh_conn *c)
{
	if (c->serves) {
		/* A jump host's connection runs no shell: it carries channels. */
		jump_pool *p = c->serves;
		set_state(c, SSH_FORWARDING, "authenticated");
		release_slot(c);
		start_keepalive(c);
		p->backoff_s = 0;
		p->not_before = 0;
		log_printf("jump host %s: connected, forwarding", c->opt.jump_label);
		pool_schedule(p, 0);
		return STEP_NEXT;
	}
	c->channel = libssh2_channel_open_session(c->session);
	if (!c->channel) {
		if (libssh2_session_last_errno(c->session) == LIBSSH2_ERROR_EAGAIN) {
			return STEP_AGAIN;
		}
		return fail(c, TRANSPORT_ERR_CHANNEL, "cannot open a session channel: %s", last_error(c));
	}
	set_state(c, SSH_CHANNEL_EXEC, "channel open");
	return STEP_NEXT;
}

static void on_keepalive(struct ev_loop *loop, ev_timer *w, int revents)
{
	ssh_conn *c = w->data;
	int next = 0;
	if (c->session && (c->state == SSH_RUNNING || c->state == SSH_FORWARDING)) {
		libssh2_keepalive_send(c->session, &next);
		drive(c);
	}
}

static step_result step_channel_exec(ssh_conn *c)
{
	int rc = libssh2_channel_exec(c->channel, c->command);
	if (rc == LIBSSH2_ERROR_EAGAIN) {
		return STEP_AGAIN;
	}
	if (rc != 0) {
		return fail(c, TRANSPORT_ERR_CHANNEL, "cannot start the remote shell: %s", last_error(c));
	}
	set_state(c, SSH_RUNNING, "shell started");
	release_slot(c);
	start_keepalive(c);
	c->base.events->ready(c->base.owner);
	return c->state == SSH_RUNNING ? STEP_NEXT : STEP_FAILED;
}

static step_result step_running(ssh_conn *c)
{
	char buf[16384];

	while (c->out.len > 0) {
		ssize_t n = libssh2_channel_write(c->channel, c->out.data, c->out.len);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			if (libssh2_session_block_directions(c->session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) {
				/* a packet half sent: only this write may send
				 * next (ssh_jump.h), and a read may send a window
				 * adjust (LIBSSH2_ERROR_BAD_USE, the session lost) */
				return STEP_AGAIN;
			}
			break;
		}
		if (n < 0) {
			return fail(c, TRANSPORT_ERR_LOST, "writing to %s failed: %s", c->opt.host, last_error(c));
		}
		bytebuf_consume(&c->out, (size_t)n);
	}
	/* The probe sends its own stderr inside the response; what reaches the
	 * channel's stderr is login-shell noise.  Drain it so the window stays open.
	 * Drained first: reading it can pull stdout packets off the socket into
	 * libssh2's queue, where no socket event would ever announce them. */
	for (;;) {
		ssize_t n = libssh2_channel_read_stderr(c->channel, buf, sizeof buf);
		if (n <= 0) {
			break;
		}
	}
	for (;;) {
		ssize_t n = libssh2_channel_read(c->channel, buf, sizeof buf);
		if (n > 0) {
			c->base.events->data(c->base.owner, buf, (size_t)n);
			if (c->state != SSH_RUNNING) {
				return STEP_FAILED; /* the owner restarted or stopped us */
			}
			continue;
		}
		if (n == LIBSSH2_ERROR_EAGAIN || n == 0) {
			break;
		}
		return fail(c, TRANSPORT_ERR_LOST, "connection to %s lost: %s", c->opt.host, last_error(c));
	}
	if (libssh2_channel_eof(c->channel)) {
		return fail(c, TRANSPORT_ERR_LOST, "the remote shell on %s exited", c->opt.host);
	}
	return STEP_IDLE;
}

static step_result step_channel_closing(ssh_conn *c)
{
	int rc = libssh2_channel_free(c->channel);
	if (rc == LIBSSH2_ERROR_EAGAIN) {
		return STEP_AGAIN;
	}
	c->channel = NULL;
	bytebuf_clear(&c->out);
	set_state(c, SSH_CHANNEL_OPEN, "old channel closed");
	return STEP_NEXT;
}

/* ------------------------------------------------------------ jump hosts */

static jump_pool *pool_for(struct ev_loop *loop, const ssh_options *via);

static void pool_on_kick(struct ev_loop *loop, ev_timer *w, int revents);

static jump_pool *pool_for(struct ev_loop *loop, const ssh_options *via)
{
	for (jump_pool *p = G.pools; p; p = p->next) {
		if (p->opt == via) {
			return p;
		}
	}
	jump_pool *p = xcalloc(1, sizeof *p);
	p->opt = via;
	p->loop = loop;
	ev_init(&p->kick, pool_on_kick);
	p->kick.data = p;
	p->next = G.pools;
	G.pools = p;
	return p;
}

/* Work on the pool from the loop, not from inside a caller's callback (a
 * node's failure must not reach its owner from transport_start()). */
static void pool_schedule(jump_pool *p, double delay)
{
	if (ev_is_active(&p->kick)) {
		if (delay > 0) {
			return; /* a sooner kick is already due, and it re-arms */
		}
		ev_timer_stop(p->loop, &p->kick);
	}
	ev_timer_set(&p->kick, delay > 0 ? delay : 0, 0);
	ev_timer_start(p->loop, &p->kick);
}

static void queue_push(jump_pool *p, ssh_conn *c, bool front)
{
	c->queued = true;
	c->queue_next = NULL;
	if (front) {
		c->queue_next = p->queue_head;
		p->queue_head = c;
		if (!p->queue_tail) {
			p->queue_tail = c;
		}
		return;
	}
	if (p->queue_tail) {
		p->queue_tail->queue_next = c;
	} else {
		p->queue_head = c;
	}
	p->queue_tail = c;
}

static ssh_conn *queue_pop(jump_pool *p)
{
	ssh_conn *c = p->queue_head;
	if (c) {
		p->queue_head = c->queue_next;
		if (!p->queue_head) {
			p->queue_tail = NULL;
		}
		c->queue_next = NULL;
		c->queued = false;
	}
	return c;
}

static void queue_remove(jump_pool *p, ssh_conn *c)
{
	ssh_conn *prev = NULL;
	for (ssh_conn *q = p->queue_head; q; prev = q, q = q->queue_next) {
		if (q == c) {
			if (prev) {
				prev->queue_next = c->queue_next;
			} else {
				p->queue_head = c->queue_next;
			}
			if (p->queue_tail == c) {
				p->queue_tail = prev;
			}
			break;
		}
	}
	c->queue_next = NULL;
	c->queued = false;
}

static size_t link_load(const ssh_conn *link)
{
	size_t n = link->open_busy ? 1 : 0;
	for (size_t i = 0; i < link->n_chans; i++) {
		n += link->chans[i].node != NULL;
	}
	return n;
}

static size_t link_cap(const jump_pool *p)
{
	return p->opt->jump_channels > 0 ? (size_t)p->opt->jump_channels : SSH_JUMP_CHANNELS_DEFAULT;
}

static const transport_events link_events;

/* Nodes wait in the queue; connections with room take them; a new
 * connection opens only when every open one is full, and not before the
 * backoff after a failure. */
static void pool_on_kick(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)revents;
	jump_pool *p = w->data;
	if (p->refused[0]) {
		ssh_conn *c;
		while ((c = queue_pop(p))) {
			fail(c, p->refused_kind, "%s", p->refused);
		}
		return;
	}
	/* busy: a connection on its way up, or one with room that is still
	 * opening channels (libssh2 opens one at a time): either takes the
	 * queue, so no new connection is needed yet */
	bool busy = false;
	ssh_conn *idle = NULL;
	for (ssh_conn *l = p->links; l && p->queue_head; l = l->link_next) {
		if (l->state == SSH_FORWARDING) {
			if (link_load(l) < link_cap(p)) {
				drive(l); /* takes queued nodes while it has room */
				busy |= l->state == SSH_FORWARDING && link_load(l) < link_cap(p);
			}
		} else if (l->state == SSH_IDLE) {
			idle = idle ? idle : l;
		} else {
			busy = true;
		}
	}
	if (!p->queue_head || busy) {
		return;
	}
	double now = ev_now(p->loop);
	if (now < p->not_before) {
		pool_schedule(p, p->not_before - now);
		return;
	}
	if (!idle) {
		idle = (ssh_conn *)ssh_transport_new(p->loop, p->opt, "", &link_events, NULL);
		idle->base.owner = idle;
		idle->serves = p;
		idle->link_next = p->links;
		p->links = idle;
	}
	log_printf("jump host %s: opening a connection (%s nodes waiting)", p->opt->jump_label,
		   p->queue_head->queue_next ? "several" : "one");
	transport_start(&idle->base);
}

/* A node asks for a channel (op_start). */
static void pool_request(ssh_conn *c)
{
	set_state(c, SSH_JUMP_WAIT, "start");
	queue_push(c->pool, c, false);
	pool_schedule(c->pool, 0);
}

/* The channel is open: the node's SSH session starts on its pipe, taking a
 * handshake slot like any other. */
static void jump_attached(ssh_conn *node, ssh_conn *link, ssh_jump_pipe *pipe)
{
	node->jpipe = pipe;
	ssh_jump_pipe_attach(pipe, wake_conn, node);
	node->carrier = link;
	take_slot(node, "jump channel open", "jump channel open, all handshake slots busy");
}

/* The node lets go of its channel (teardown): the pipe closes the channel
 * on its next pump; nothing may point at the node after this. */
static void jump_detach(ssh_conn *c)
{
	if (c->queued && c->pool) {
		queue_remove(c->pool, c);
	}
	ssh_conn *link = c->carrier;
	if (link) {
		for (size_t i = 0; i < link->n_chans; i++) {
			if (link->chans[i].node == c) {
				link->chans[i].node = NULL;
			}
		}
		c->carrier = NULL;
	}
	if (c->jpipe) {
		ssh_jump_pipe_detach(c->jpipe);
		c->jpipe = NULL; /* libssh2's frees now fail fast (jump_send) */
	}
	for (jump_pool *p = c->pool; p; p = NULL) {
		for (ssh_conn *l = p->links; l; l = l->link_next) {
			if (l->opening == c) {
				l->opening = NULL;
			}
		}
	}
}

/* Pumps channel i; a finished one is freed and the last takes its place. */
static jump_pipe_status pump_chan(ssh_conn *link, size_t i, bool read_socket)
{
	jump_pipe_status st = ssh_jump_pipe_pump(link->chans[i].pipe, read_socket);
	if (st == JUMP_PIPE_DONE) {
		ssh_jump_pipe_free(link->chans[i].pipe, false);
		ssh_conn *node = link->chans[i].node;
		if (node) {
			/* the channel closed: the node reads end of stream */
			node->carrier = NULL;
			node->jpipe = NULL;
			wake_conn(node);
		}
		link->chans[i] = link->chans[--link->n_chans];
	}
	return st;
}

/* Opens channels for queued nodes while there is room, then pumps every
 * channel.  Errors of one channel fail its node; errors of the session
 * fail the connection (and so every node on it). */
static step_result step_forwarding(ssh_conn *link)
{
	jump_pool *p = link->serves;
	/* A packet half sent on the session (ssh_jump.h): only the call that
	 * started it may go on, so that pipe is pumped first and alone. */
	for (size_t i = 0; i < link->n_chans; i++) {
		if (!ssh_jump_pipe_holds_send(link->chans[i].pipe)) {
			continue;
		}
		jump_pipe_status st = pump_chan(link, i, false);
		if (st == JUMP_PIPE_BROKEN) {
			return fail(link, TRANSPORT_ERR_LOST, "its connection dropped: %s", last_error(link));
		}
		if (st == JUMP_PIPE_OPEN && ssh_jump_pipe_holds_send(link->chans[i].pipe)) {
			link->write_wanted = true;
			return STEP_IDLE;
		}
		break; /* at most one pipe holds it */
	}
	for (;;) {
		if (!link->open_busy) {
			if (!p->queue_head) {
				break;
			}
			if (link_load(link) >= link_cap(p)) {
				pool_schedule(p, 0); /* full: the pool opens another */
				break;
			}
			ssh_conn *node = queue_pop(p);
			link->open_busy = true;
			link->opening = node;
			node->carrier = link;
			snprintf(link->open_host, sizeof link->open_host, "%s", node->opt.host);
			link->open_port = node->opt.port;
		}
		/* the originator is what ssh -W sends (channels.c: "127.0.0.1", 65535 -> 0) */
		LIBSSH2_CHANNEL *ch = libssh2_channel_direct_tcpip_ex(link->session, link->open_host,
								      link->open_port, "127.0.0.1", 0);
		if (!ch) {
			int rc = libssh2_session_last_errno(link->session);
			if (rc == LIBSSH2_ERROR_EAGAIN) {
				if (libssh2_session_block_directions(link->session) & LIBSSH2_SESSION_BLOCK_OUTBOUND) {
					/* the open request is half sent: only this
					 * same call may send next (ssh_jump.h) */
					link->write_wanted = true;
					return STEP_IDLE;
				}
				break;
			}
			ssh_conn *node = link->opening;
			link->open_busy = false;
			link->opening = NULL;
			if (connection_error(rc)) {
				if (node) {
					node->carrier = NULL;
					queue_push(p, node, true); /* the next connection takes it */
				}
				return fail(link, TRANSPORT_ERR_LOST, "its connection dropped: %s", last_error(link));
			}
			if (!node) {
				continue;
			}
			node->carrier = NULL;
			const char *why = last_error(link);
			if (strstr(why, "prohibited")) {
				fail(node, TRANSPORT_ERR_CONNECT,
				     "jump host %s refuses to forward to %s port %d (%s): its sshd needs "
				     "AllowTcpForwarding yes (or local) for user %s, and no PermitOpen or "
				     "DisableForwarding against it", link->opt.jump_label, link->open_host,
				     link->open_port, why, link->opt.user);
			} else {
				fail(node, TRANSPORT_ERR_CONNECT, "jump host %s cannot reach %s port %d: %s",
				     link->opt.jump_label, link->open_host, link->open_port, why);
			}
			continue;
		}
		ssh_conn *node = link->opening;
		link->open_busy = false;
		link->opening = NULL;
		ssh_jump_pipe *pipe = ssh_jump_pipe_new(link->session, ch, wake_conn, link);
		if (link->n_chans == link->cap_chans) {
			link->cap_chans = link->cap_chans ? 2 * link->cap_chans : 16;
			link->chans = xrealloc(link->chans, link->cap_chans * sizeof *link->chans);
		}
		link->chans[link->n_chans++] = (jump_chan){.pipe = pipe, .node = node};
		if (node) {
			jump_attached(node, link, pipe);
		} else {
			ssh_jump_pipe_detach(pipe); /* the node let go while it opened: the pump closes the channel */
		}
		if (link->state != SSH_FORWARDING) {
			return STEP_FAILED;
		}
	}

	/* One pipe with room reads the socket for all; then every pipe moves
	 * what libssh2 queued for it (pumping one twice is harmless). */
	link->read_wanted = false;
	link->write_wanted = false;
	for (size_t i = 0; i < link->n_chans; i++) {
		if (ssh_jump_pipe_can_read(link->chans[i].pipe)) {
			if (pump_chan(link, i, true) == JUMP_PIPE_BROKEN) {
				return fail(link, TRANSPORT_ERR_LOST, "its connection dropped: %s", last_error(link));
			}
			if (i < link->n_chans && ssh_jump_pipe_holds_send(link->chans[i].pipe)) {
				link->write_wanted = true;
				return STEP_IDLE;
			}
			break;
		}
	}
	for (size_t i = 0; i < link->n_chans;) {
		jump_pipe_status st = pump_chan(link, i, false);
		if (st == JUMP_PIPE_BROKEN) {
			return fail(link, TRANSPORT_ERR_LOST, "its connection dropped: %s", last_error(link));
		}
		if (st == JUMP_PIPE_DONE) {
			continue; /* i holds another pipe now */
		}
		if (ssh_jump_pipe_holds_send(link->chans[i].pipe)) {
			/* the others wait until its packet is out */
			link->read_wanted = true;
			link->write_wanted = true;
			return STEP_IDLE;
		}
		link->read_wanted |= ssh_jump_pipe_can_read(link->chans[i].pipe);
		link->write_wanted |= ssh_jump_pipe_wants_write(link->chans[i].pipe);
		i++;
	}
	if (!link->n_chans && !link->open_busy && !p->queue_head) {
		/* Nobody behind it: close it rather than watch an idle socket
		 * (nothing would read it); the next node opens a new one. */
		teardown(link, "no node left behind the jump host");
		return STEP_FAILED;
	}
	return STEP_IDLE;
}

/* A jump connection failed (teardown already ran): every node it carried or
 * that waited for it learns why, once; host key and authentication
 * refusals stick, anything else opens the next connection after a backoff. */
static void link_failed(void *owner, transport_error kind, const char *message)
{
	ssh_conn *link = owner;
	jump_pool *p = link->serves;
	char msg[900];
	snprintf(msg, sizeof msg, "jump host %s: %s", p->opt->jump_label, message);
	log_printf("%s", msg);
	if (kind == TRANSPORT_ERR_HOSTKEY || kind == TRANSPORT_ERR_AUTH) {
		p->refused_kind = kind;
		snprintf(p->refused, sizeof p->refused, "%.600s (not retried for any node behind it)", msg);
	} else {
		p->backoff_s = p->backoff_s > 0 ? p->backoff_s * 2 : 1;
		if (p->backoff_s > 30) {
			p->backoff_s = 30;
		}
		p->not_before = ev_now(p->loop) + p->backoff_s;
		snprintf(p->last_error, sizeof p->last_error, "%s", message);
	}
	/* The nodes it carried: their sessions ran through it. */
	size_t n = link->n_orphans;
	ssh_conn **orphans = link->orphans;
	link->orphans = NULL;
	link->n_orphans = 0;
	for (size_t i = 0; i < n; i++) {
		fail(orphans[i], kind == TRANSPORT_ERR_HOSTKEY || kind == TRANSPORT_ERR_AUTH ? kind
			: TRANSPORT_ERR_LOST, "%s", p->refused[0] ? p->refused : msg);
	}
	free(orphans);
	/* The nodes waiting: no other connection is up to take them now. */
	bool other_up = false;
	for (ssh_conn *l = p->links; l; l = l->link_next) {
		other_up |= l != link && l->state != SSH_IDLE;
	}
	if (!other_up) {
		ssh_conn *c;
		while ((c = queue_pop(p))) {
			fail(c, p->refused[0] ? p->refused_kind : kind == TRANSPORT_ERR_LOST ? TRANSPORT_ERR_CONNECT
			     : kind, "%s", p->refused[0] ? p->refused : msg);
		}
	}
	pool_schedule(p, 0);
}

static void link_ready(void *owner) { (void)owner; }
static void link_data(void *owner, const char *buf, size_t len) { (void)owner; (void)buf; (void)len; }

static const transport_events link_events = {
	.ready = link_ready,
	.data = link_data,
	.failed = link_failed,
};

/* Part of teardown() for a jump connection: its channels go with the
 * session; the nodes on them are kept for link_failed(), which tells them. */
static void link_teardown(ssh_conn *link)
{
	for (size_t i = 0; i < link->n_chans; i++) {
		ssh_conn *node = link->chans[i].node;
		ssh_jump_pipe_free(link->chans[i].pipe, true);
		if (node) {
			node->carrier = NULL;
			node->jpipe = NULL;
			link->orphans = xrealloc(link->orphans, (link->n_orphans + 1) * sizeof(ssh_conn *));
			link->orphans[link->n_orphans++] = node;
		}
	}
	link->n_chans = 0;
	if (link->open_busy && link->opening) {
		/* not opened: back in the queue, for the next connection */
		link->opening->carrier = NULL;
		queue_push(link->serves, link->opening, true);
	}
	link->open_busy = false;
	link->opening = NULL;
}

/* ------------------------------------------------------------ the engine */

static step_result step(ssh_conn *c)
{
	switch (c->state) {
	case SSH_CONNECTING: return step_connecting(c);
	case SSH_HANDSHAKE: return step_handshake(c);
	case SSH_HOSTKEY: return step_hostkey(c);
	case SSH_AUTH_LIST: return step_auth_list(c);
	case SSH_AUTH_AGENT: return step_auth_agent(c);
	case SSH_AUTH_PRIVATE_AGENT: return step_auth_private_agent(c);
	case SSH_AUTH_KEYFILE: return step_auth_keyfile(c);
	case SSH_CHANNEL_OPEN: return step_channel_open(c);
	case SSH_CHANNEL_EXEC: return step_channel_exec(c);
	case SSH_RUNNING: return step_running(c);
	case SSH_CHANNEL_CLOSING: return step_channel_closing(c);
	case SSH_FORWARDING: return step_forwarding(c);
	case SSH_JUMP_WAIT:
	case SSH_IDLE:
	case SSH_RESOLVING:
	case SSH_WAIT_SLOT:
	case SSH_STATE_COUNT: /* not a state */
		return STEP_IDLE;
	}
	return STEP_IDLE;
}

static void drive(ssh_conn *c)
{
	/* Callbacks (ready, data) may call op_send; the outer pass will write. */
	if (c->in_drive) {
		return;
	}
	c->in_drive = true;
	step_result r;
	do {
		r = step(c);
	} while (r == STEP_NEXT);
	c->in_drive = false;
	if (c->pool) {
		/* No descriptor: the pipe wakes us when it brings bytes or room
		 * (ssh_jump.h), and libssh2 reads it until EAGAIN whenever it
		 * waits for input.  Except when the owner restarted the shell
		 * from inside a callback, cutting a read short (the new state
		 * not stepped yet): where a readable socket would have woken us
		 * again, one more pass does. */
		if (r == STEP_FAILED && c->state != SSH_IDLE && c->session) {
			wake_conn(c);
		}
		return;
	}
	if (r == STEP_FAILED || c->fd < 0) {
		return;
	}

	int events = 0;
	if (c->state == SSH_CONNECTING) {
		events = EV_WRITE;
	} else if (c->session) {
		int dirs = libssh2_session_block_directions(c->session);
		if (dirs & LIBSSH2_SESSION_BLOCK_INBOUND) {
			events |= EV_READ;
		}
		if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND) {
			events |= EV_WRITE;
		}
		if (c->state == SSH_RUNNING && r == STEP_AGAIN) {
			events = EV_WRITE; /* a request half sent: nothing read until it is out */
		} else if (c->state == SSH_RUNNING) {
			events |= EV_READ; /* responses and EOF can come at any time */
			if (c->out.len) {
				events |= EV_WRITE;
			}
		}
		if (c->state == SSH_FORWARDING) {
			/* read while a channel open waits for its answer, or some
			 * pipe has room: a full pipe's own events wake us when it
			 * drains (reading then would spin on data nobody takes) */
			events &= ~EV_READ;
			events |= (c->read_wanted || c->open_busy) ? EV_READ : 0;
			events |= c->write_wanted ? EV_WRITE : 0;
		}
		if (!events) {
			events = EV_READ;
		}
	}
	set_interest(c, events);
}

static void on_io(struct ev_loop *loop, ev_io *w, int revents)
{
	drive(w->data);
}

/* Wakes: the pipes' callbacks run inside libssh2 calls, where neither side
 * may run the other, so a conn they wake is driven later, from the loop.
 * A pass (an ev_idle, at the top priority so that no amount of other
 * events keeps it from running, and a non-blocking poll while it is
 * active) drives the conns woken before it began, in the order woken;
 * those woken while it runs wait for the next pass.  So a jump connection
 * and its nodes handing bytes to each other go through the loop's poll at
 * each hop, as they did through a socketpair: they cannot keep the loop
 * from other descriptors and timers, and nodes woken together all write
 * before their jump connection's one pump takes it all. */
static void wake_conn(void *ctx)
{
	ssh_conn *c = ctx;
	if (c->woken) {
		return;
	}
	c->woken = true;
	c->woken_in = G.wake_pass;
	c->wake_next = NULL;
	if (G.wake_tail) {
		G.wake_tail->wake_next = c;
	} else {
		G.wake_head = c;
	}
	G.wake_tail = c;
	ev_idle_start(G.loop, &G.wake_idle);
}

static void unwake(ssh_conn *c)
{
	if (!c->woken) {
		return;
	}
	ssh_conn *prev = NULL;
	for (ssh_conn *q = G.wake_head; q; prev = q, q = q->wake_next) {
		if (q == c) {
			if (prev) {
				prev->wake_next = c->wake_next;
			} else {
				G.wake_head = c->wake_next;
			}
			if (G.wake_tail == c) {
				G.wake_tail = prev;
			}
			break;
		}
	}
	c->woken = false;
	c->wake_next = NULL;
}

static void on_wake_pass(struct ev_loop *loop, ev_idle *w, int revents)
{
	(void)revents;
	unsigned pass = ++G.wake_pass;
	while (G.wake_head && G.wake_head->woken_in != pass) {
		ssh_conn *c = G.wake_head;
		unwake(c);
		drive(c);
	}
	if (!G.wake_head) {
		ev_idle_stop(loop, w);
	}
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
	ssh_conn *c = w->data;
	if (c->state == SSH_JUMP_WAIT) {
		const char *last = c->pool->last_error;
		deadline_fail(c, TRANSPORT_ERR_CONNECT, "timed out after %.0f s waiting for jump host %s%s%s%s",
			      c->opt.connect_timeout_s, c->pool->opt->jump_label, last[0] ? " (last attempt: " : "",
			      last, last[0] ? ")" : "");
		return;
	}
	deadline_fail(c, states[c->state].timeout_kind, "timed out after %.0f s during %s (%s port %d)",
		      c->opt.connect_timeout_s, states[c->state].name, c->opt.host, c->opt.port);
}

static void agent_close(agent_auth *a)
{
	if (a->handle) {
		libssh2_agent_disconnect(a->handle);
		libssh2_agent_free(a->handle);
		a->handle = NULL;
	}
	a->identity = NULL;
}

/* Ends everything and goes idle; `reason` is what --log says caused it. */
static void teardown(ssh_conn *c, const char *reason)
{
	ev_timer_stop(c->loop, &c->deadline);
	ev_timer_stop(c->loop, &c->keepalive);
	set_interest(c, 0);
	unwake(c);
	if (c->lookup) {
		resolver_cancel(c->lookup);
		c->lookup = NULL;
	}
	if (c->state == SSH_WAIT_SLOT) {
		leave_wait_queue(c);
	}
	jump_detach(c);
	if (c->serves) {
		link_teardown(c);
	}
	/* Shut the socket down first: libssh2's frees then fail fast instead of
	 * returning EAGAIN on a non-blocking session that will never drain. */
	if (c->fd >= 0) {
		shutdown(c->fd, SHUT_RDWR);
	}
	agent_close(&c->user_agent);
	agent_close(&c->private_agent);
	if (c->channel) {
		libssh2_channel_free(c->channel);
		c->channel = NULL;
	}
	if (c->session) {
		libssh2_session_free(c->session);
		c->session = NULL;
		size_t bytes = 0;
		size_t blocks = ssh_session_memory_release(&c->session_memory, &bytes);
		if (blocks > 0) {
			log_printf("ssh %s port %d: freed %zu blocks (%zu bytes) libssh2 left behind",
				   c->opt.host, c->opt.port, blocks, bytes);
		}
	}
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	bytebuf_clear(&c->out);
	set_state(c, SSH_IDLE, reason);
	release_slot(c);
}

/* ------------------------------------------------------- transport ops */

static void op_start(transport *t)
{
	ssh_conn *c = (ssh_conn *)t;
	if (c->state != SSH_IDLE) {
		return;
	}
	c->fd = -1;
	if (c->pool) {
		pool_request(c);
		return;
	}
	set_state(c, SSH_RESOLVING, "start");
	c->lookup = resolver_lookup(c->opt.host, c->opt.port, on_resolved, c);
}

static int op_send(transport *t, const char *buf, size_t len)
{
	ssh_conn *c = (ssh_conn *)t;
	if (c->state != SSH_RUNNING) {
		return -1;
	}
	bytebuf_append(&c->out, buf, len);
	drive(c);
	return 0;
}

static void op_restart_shell(transport *t)
{
	ssh_conn *c = (ssh_conn *)t;
	if (c->state != SSH_RUNNING) {
		return;
	}
	set_state(c, SSH_CHANNEL_CLOSING, "shell restart");
	drive(c);
}

static void op_stop(transport *t)
{
	teardown((ssh_conn *)t, "stopped");
}

static void op_destroy(transport *t)
{
	ssh_conn *c = (ssh_conn *)t;
	teardown(c, "destroyed");
	bytebuf_free(&c->out);
	free(c->chans);
	free(c->orphans);
	free(c->command);
	free(c);
}

/* "to HOST port P", and behind jump hosts "through jump host(s) A, B",
 * first hop first: opt.via is the last hop, each hop's via the one before. */
static void op_describe(const transport *t, char *buf, size_t len)
{
	const ssh_conn *c = (const ssh_conn *)t;
	const ssh_options *hop[16] = {NULL};
	size_t n = 0, used;
	for (const ssh_options *v = c->opt.via; v && n < sizeof hop / sizeof hop[0]; v = v->via) {
		hop[n++] = v;
	}
	int w = snprintf(buf, len, "to %s port %d", c->opt.host, c->opt.port);
	used = w < 0 ? 0 : (size_t)w;
	for (size_t i = n; i-- > 0 && used < len;) {
		const char *sep = i + 1 < n ? ", " : n > 1 ? " through jump hosts " : " through jump host ";
		w = snprintf(buf + used, len - used, "%s%s", sep,
			     hop[i]->jump_label[0] ? hop[i]->jump_label : hop[i]->host);
		used += w < 0 ? 0 : (size_t)w;
	}
}

static const transport_ops ssh_ops = {
	.start = op_start,
	.send = op_send,
	.restart_shell = op_restart_shell,
	.stop = op_stop,
	.destroy = op_destroy,
	.describe = op_describe,
};

transport *ssh_transport_new(struct ev_loop *loop, const ssh_options *opt, const char *command,
			     const transport_events *events, void *owner)
{
	ssh_conn *c = xcalloc(1, sizeof *c);
	c->base.ops = &ssh_ops;
	c->base.events = events;
	c->base.owner = owner;
	c->loop = loop;
	c->opt = *opt;
	c->command = xstrdup(command);
	c->fd = -1;
	/* state: SSH_IDLE, from xcalloc */
	ev_init(&c->io, on_io);
	c->io.data = c;
	ev_init(&c->deadline, on_deadline);
	c->deadline.data = c;
	ev_init(&c->keepalive, on_keepalive);
	c->keepalive.data = c;
	if (opt->via) {
		c->pool = pool_for(loop, opt->via);
	}
	return &c->base;
}

int ssh_transport_global_init(struct ev_loop *loop, int max_handshakes)
{
	if (libssh2_init(0) != 0) {
		return -1;
	}
	/* never read, written or polled: step_handshake says why */
	G.null_fd = open("/dev/null", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (G.null_fd < 0) {
		libssh2_exit();
		return -1;
	}
	G.loop = loop;
	ev_idle_init(&G.wake_idle, on_wake_pass);
	ev_set_priority(&G.wake_idle, EV_MAXPRI); /* wake_conn */
	G.wake_head = G.wake_tail = NULL;
	G.max_handshakes = max_handshakes > 0 ? max_handshakes : 64;
	G.in_flight = 0;
	G.wait_head = G.wait_tail = NULL;
	G.initialised = true;
	return 0;
}

void ssh_transport_global_free(void)
{
	/* Jump connections belong to their pools; the nodes are gone by now. */
	while (G.pools) {
		jump_pool *p = G.pools;
		G.pools = p->next;
		ev_timer_stop(p->loop, &p->kick);
		while (p->links) {
			ssh_conn *l = p->links;
			p->links = l->link_next;
			transport_destroy(&l->base);
		}
		free(p);
	}
	if (G.initialised) {
		ev_idle_stop(G.loop, &G.wake_idle);
		close(G.null_fd);
		G.null_fd = -1;
		libssh2_exit();
		G.initialised = false;
	}
}

int ssh_transport_handshakes_in_flight(void)
{
	return G.in_flight;
}

size_t ssh_transport_session_blocks(const transport *t)
{
	const ssh_conn *c = (const ssh_conn *)t;
	return c->session_memory.live_blocks;
}
