/* transport.h - how the poller talks to a node's long-lived probe shell.
 *
 * A transport connects (SSH or local fork/exec), starts the probe shell once,
 * and then carries request lines in and response bytes out.  It reports back
 * through transport_events; after `failed` it is idle until started again.
 * Implementations: ssh_transport.c, local_transport.c. */
#ifndef SYNCTOP_TRANSPORT_H
#define SYNCTOP_TRANSPORT_H

#include <stddef.h>

typedef enum {
	TRANSPORT_ERR_RESOLVE,    /* name did not resolve */
	TRANSPORT_ERR_CONNECT,    /* TCP connect failed / refused / timed out */
	TRANSPORT_ERR_HANDSHAKE,  /* SSH protocol failure */
	TRANSPORT_ERR_HOSTKEY,    /* host key refused: never retried automatically */
	TRANSPORT_ERR_AUTH,       /* no identity accepted */
	TRANSPORT_ERR_CHANNEL,    /* could not start the shell */
	TRANSPORT_ERR_LOST,       /* connection dropped after it was up */
} transport_error;

typedef struct {
	void (*ready)(void *owner);                               /* shell started */
	void (*data)(void *owner, const char *buf, size_t len);   /* shell stdout */
	void (*failed)(void *owner, transport_error kind, const char *message);
} transport_events;

typedef struct transport transport;

typedef struct {
	/* Connect (if needed) and start the probe shell; async. */
	void (*start)(transport *t);
	/* Queue bytes for the shell's stdin.  Returns 0, or -1 if not ready. */
	int (*send)(transport *t, const char *buf, size_t len);
	/* Drop the current shell (e.g. a poll hung) and start a new one, keeping
	 * the connection when the transport has one. */
	void (*restart_shell)(transport *t);
	/* Close everything; no events after this returns. */
	void (*stop)(transport *t);
	void (*destroy)(transport *t);
	/* Optional: how the transport reaches the node, for the connection log
	 * the drill-down shows ("to HOST port P through jump host J"); NULL
	 * when there is nothing to say beyond the node's name. */
	void (*describe)(const transport *t, char *buf, size_t len);
} transport_ops;

struct transport {
	const transport_ops *ops;
	const transport_events *events;
	void *owner;
};

static inline void transport_start(transport *t) { t->ops->start(t); }
static inline int transport_send(transport *t, const char *b, size_t n) { return t->ops->send(t, b, n); }
static inline void transport_restart_shell(transport *t) { t->ops->restart_shell(t); }
static inline void transport_stop(transport *t) { t->ops->stop(t); }
static inline void transport_destroy(transport *t) { t->ops->destroy(t); }
/* "" when the transport has no describe */
static inline void transport_describe(const transport *t, char *buf, size_t len)
{
	if (len) {
		buf[0] = '\0';
	}
	if (t->ops->describe) {
		t->ops->describe(t, buf, len);
	}
}

#endif
