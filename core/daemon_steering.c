/* daemon_steering.c - which clock a time daemon's process steers and
 * whether it may (daemon_steering.h). */
#include <config.h>

#include "daemon_steering.h"

#include <string.h>

static bool phc2sys_steers_realtime(const phc2sys_args *a)
{
	if (a->ntpshm) {
		return false;
	}
	if (a->automatic) {
		return a->realtime > 0;
	}
	return a->sink[0] == '\0' || strcmp(a->sink, "CLOCK_REALTIME") == 0;
}

steered_clock daemon_steers(const observation *o, unsigned bit)
{
	if (bit == DAEMON_PTP4L) {
		const ptp_port *port = ptp_primary_port(&o->ptp);
		bool software = o->ptp.state == OBS_OK && port &&
				strncmp(port->timestamping, "SOFTWARE", sizeof port->timestamping) == 0;
		return software ? STEERS_REALTIME : STEERS_PHC;
	}
	if (bit == DAEMON_PHC2SYS && o->daemons.n_phc2sys > 0) {
		for (int i = 0; i < o->daemons.n_phc2sys && i < DAEMONS_MAX_PHC2SYS; i++) {
			if (phc2sys_steers_realtime(&o->daemons.phc2sys[i])) {
				return STEERS_REALTIME;
			}
		}
		return STEERS_PHC;
	}
	return STEERS_REALTIME;
}

bool daemon_same_clock(const observation *o, const daemon_place *a, const daemon_place *b)
{
	return a->pid != b->pid && daemon_steers(o, a->bit) == STEERS_REALTIME &&
	       daemon_steers(o, b->bit) == STEERS_REALTIME;
}

bool daemon_may_set(const daemon_place *p)
{
	return p->can_set != CAN_SET_TIME_NO;
}

bool daemon_host_may_steer(const observation *o, unsigned bit)
{
	const daemons_obs *d = &o->daemons;
	bool placed = false;
	for (int i = 0; i < d->n_places && i < DAEMONS_MAX_PLACES; i++) {
		const daemon_place *p = &d->places[i];
		if (p->bit != bit) {
			continue;
		}
		placed = true;
		if (p->container == CONTAINER_NONE && daemon_may_set(p)) {
			return true;
		}
	}
	/* processes beyond those kept were not placed: they may be the host's */
	return !placed || d->n_places_total > d->n_places;
}
