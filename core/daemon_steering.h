/* daemon_steering.h - which clock each time daemon's process steers, and
 * which of them may steer it: the part of time.conflicting_daemons
 * (health.c) and time.daemon_in_container (collectors/daemons.c) that
 * both need.  Pure functions of the observation. */
#ifndef SYNCTOP_DAEMON_STEERING_H
#define SYNCTOP_DAEMON_STEERING_H

#include <stdbool.h>

#include "observation.h"

typedef enum {
	STEERS_REALTIME, /* CLOCK_REALTIME, the system clock */
	STEERS_PHC,      /* a PTP hardware clock (which one is not known) */
} steered_clock;

/* The clock a daemon's process steers when it may set clocks at all:
 * chronyd, ntpd and systemd-timesyncd steer CLOCK_REALTIME; phc2sys does
 * too unless every command line read says otherwise (-E ntpshm feeds a
 * daemon, -c names another sink, -a without -r leaves the system clock
 * alone); ptp4l steers its PHC, or CLOCK_REALTIME with software
 * timestamping (-S: its primary port reports SOFTWARE). */
steered_clock daemon_steers(const observation *o, unsigned bit);

/* Two processes fight over one clock: both steer CLOCK_REALTIME.  Two
 * ptp4l steering PHCs are not counted: a node with two NICs runs one per
 * PHC and ps does not say which. */
bool daemon_same_clock(const observation *o, const daemon_place *a, const daemon_place *b);

/* The process may set the clock: CAP_SYS_TIME in the initial user
 * namespace, or not known (no /proc answer: counted, as before synctop
 * read it). */
bool daemon_may_set(const daemon_place *p);

/* The daemon (a DAEMON_* bit) counts for time.conflicting_daemons: one of
 * its processes outside any container may set the clock, or none of its
 * processes was placed (a ps without PIDs).  Containerized ones are
 * time.daemon_in_container's. */
bool daemon_host_may_steer(const observation *o, unsigned bit);

#endif
