/* node_update.h - where what the transports learn enters the model.
 *
 * The scheduler schedules and moves bytes; it hands each finished result to
 * one of these and never reads a tool's fields.  Here a fresh observation
 * takes over what periodic collectors carry from the last poll, each
 * collector records its history series, and the health rules run. */
#ifndef SYNCTOP_NODE_UPDATE_H
#define SYNCTOP_NODE_UPDATE_H

#include "node.h"
#include "observation.h"
#include "thresholds.h"

/* A poll answered and was decoded into fresh (whose taken_at and rtt_s the
 * caller set).  fresh is consumed: it may be modified. */
void node_update_observation(node *n, observation *fresh, const thresholds *th);

/* The node could not be polled: error says why (one printable line). */
void node_update_unreachable(node *n, const char *error, const thresholds *th);

/* The independent clock check finished. */
void node_update_clock_check(node *n, const clock_check_obs *check, const thresholds *th);

/* The interfaces to ask ethtool about when no --iface or config iface is
 * set: each interface ptp4l reports (PORT_PROPERTIES_NP, every port), once,
 * in port order, the primary ptp4l's first and then every other instance's
 * (observation.ptp_instances), at most NIC_MAX.  Returns how many were put in names
 * (pointing into n); 0: the probe uses the default route's. */
int node_update_probe_ifaces(const node *n, const char *names[NIC_MAX]);

/* An interface ptp4l reports has not been checked by ethtool (the first
 * poll asks before ptp4l's interfaces are known, so ethtool looked at the
 * default route's; a port appeared): the periodic collectors should run
 * again now, on ptp4l's interfaces, rather than in minutes (or, in --once,
 * never). */
bool node_update_nic_elsewhere(const node *n);

#endif
