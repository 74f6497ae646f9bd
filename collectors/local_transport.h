/* local_transport.h - the probe shell as a child process on this machine.
 *
 * For the node `localhost` (or --local): the same probe, fork/exec'd with
 * pipes on the same loop, no SSH. */
#ifndef SYNCTOP_LOCAL_TRANSPORT_H
#define SYNCTOP_LOCAL_TRANSPORT_H

#include <ev.h>

#include "transport.h"

/* argv is copied; argv[0] is looked up in PATH. */
transport *local_transport_new(struct ev_loop *loop, const char *const argv[], const transport_events *events,
			       void *owner);

#endif
