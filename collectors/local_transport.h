/* local_transport.h - the probe shell in a child process of synctop.
 *
 * For the node `localhost` (or --local): the probe fork/exec'd with pipes on
 * the same loop, no SSH.  The exec transports (exec_transport.h: the system
 * ssh client, --transport-cmd) run through the same code: a child that gives
 * a shell on the node, the probe program written to its stdin, the shell
 * ready when the probe's banner arrives, and the child's stderr and exit
 * status made the node's error. */
#ifndef SYNCTOP_LOCAL_TRANSPORT_H
#define SYNCTOP_LOCAL_TRANSPORT_H

#include <ev.h>
#include <stdbool.h>

#include "transport.h"

/* argv is copied; argv[0] is looked up in PATH. */
transport *local_transport_new(struct ev_loop *loop, const char *const argv[], const transport_events *events,
			       void *owner);

typedef struct {
	const char *const *argv;   /* NULL-terminated, copied; argv[0] looked up in PATH */
	/* Written to the child's stdin first (the probe program for a remote
	 * `sh`); NULL = none.  Copied. */
	const char *preamble;
	/* The shell is ready when "@@synctop ready\n" arrives (bytes before it
	 * are dropped), not as soon as the child runs; the child's stderr is
	 * kept (its tail) and its end is explained by exec_argv_classify(). */
	bool remote;
	bool is_ssh;               /* the child is ssh: exit 255 is its own failure */
	double start_timeout_s;    /* remote: no banner in this long = a connect failure */
} local_spawn;

transport *local_transport_spawn(struct ev_loop *loop, const local_spawn *spawn, const transport_events *events,
				 void *owner);

/* At most n remote children between start and their probe's banner at any
 * time (--max-handshakes: each runs a key exchange); the others wait their
 * turn in order.  0 = no limit (the default). */
void local_transport_set_start_limit(int n);
/* Remote children starting now (for tests). */
int local_transport_starting(void);

#endif
