/* demo_transport.h - the probe shell of one simulated demo node.
 *
 * Seen from the scheduler it behaves like the SSH transport: connecting takes
 * the node's handshake time (an unreachable node fails with a connect
 * timeout, on every attempt), each request line is answered after the node's
 * round-trip time, in a few pieces, and the answer is real tool output framed
 * by the probe protocol (demo_cluster_render_response), so it goes through
 * the same splitter, parsers and health rules as a real node's.
 *
 * Memory per node is fixed: one answer buffer and a short request queue,
 * allocated once. */
#ifndef SYNCTOP_DEMO_TRANSPORT_H
#define SYNCTOP_DEMO_TRANSPORT_H

#include <ev.h>
#include <stddef.h>

#include "demo_cluster.h"
#include "transport.h"

/* The simulated ConnectTimeout when --connect-timeout is not given: shorter
 * than ssh's 10 s so `--demo --once` finishes in a few seconds. */
#define DEMO_CONNECT_TIMEOUT_S 3.0

/* Node `index` of `cluster`, which must outlive the transport.  An
 * unreachable node reports TRANSPORT_ERR_CONNECT after connect_timeout_s. */
transport *demo_transport_new(struct ev_loop *loop, const demo_cluster *cluster, size_t index,
			      double connect_timeout_s, const transport_events *events, void *owner);

#endif
