/* system_clock.c - who steers a PTP node's system clock and how far it is
 * from its PHC (system_clock.h). */
#include <config.h>

#include "system_clock.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define NS_PER_S 1000000000LL

const char *sysclk_steerer_name(sysclk_steerer s)
{
	switch (s) {
	case SYSCLK_NOBODY: return "nobody";
	case SYSCLK_PTP4L: return "ptp4l";
	case SYSCLK_PHC2SYS: return "phc2sys";
	case SYSCLK_CHRONY_PHC: return "chronyd (PHC refclock)";
	case SYSCLK_CHRONY_REFCLOCK: return "chronyd (other refclock)";
	case SYSCLK_NTP: return "NTP";
	case SYSCLK_UNKNOWN: break;
	}
	return "unknown";
}

static bool is_realtime(const char *name)
{
	return strcasecmp(name, "CLOCK_REALTIME") == 0; /* posix_clock_open compares it so */
}

/* One phc2sys command line steers CLOCK_REALTIME (phc2sys(8)): -a with -r;
 * -s SOURCE with -c CLOCK_REALTIME or no -c; not with -E ntpshm (it then
 * writes an SHM segment for chronyd/ntpd), nor with -s CLOCK_REALTIME (a
 * grandmaster copying the system clock into the PHC). */
static bool phc2sys_steers(const phc2sys_args *a)
{
	if (a->ntpshm) {
		return false;
	}
	if (a->automatic) {
		return a->realtime > 0;
	}
	if (a->source[0]) {
		return !is_realtime(a->source) && (!a->sink[0] || is_realtime(a->sink));
	}
	return true; /* phc2sys refuses to run without -a or -s: the line was cut */
}

static bool phc2sys_feeds_shm(const daemons_obs *d)
{
	for (int i = 0; i < d->n_phc2sys && i < DAEMONS_MAX_PHC2SYS; i++) {
		if (d->phc2sys[i].ntpshm) {
			return true;
		}
	}
	return false;
}

/* The phc2sys instance that steers CLOCK_REALTIME, NULL if none does; a
 * running phc2sys whose command line was not read counts as steering. */
static bool phc2sys_steering(const daemons_obs *d, const phc2sys_args **which)
{
	*which = NULL;
	if (d->state != OBS_OK || !(d->running & DAEMON_PHC2SYS)) {
		return false;
	}
	if (d->n_phc2sys <= 0) {
		return true;
	}
	for (int i = 0; i < d->n_phc2sys && i < DAEMONS_MAX_PHC2SYS; i++) {
		if (phc2sys_steers(&d->phc2sys[i])) {
			*which = &d->phc2sys[i];
			return true;
		}
	}
	return false;
}

static bool chronyd_runs(const observation *o)
{
	return o->chrony.state == OBS_OK ||
	       (o->daemons.state == OBS_OK && (o->daemons.running & DAEMON_CHRONYD));
}

sysclk_steerer sysclk_steering(const observation *o)
{
	const ptp_port *follow = ptp_following_port(&o->ptp);
	if (follow && strncmp(follow->timestamping, "SOFTWARE", sizeof follow->timestamping) == 0) {
		return SYSCLK_PTP4L;
	}
	const phc2sys_args *which;
	if (phc2sys_steering(&o->daemons, &which)) {
		return SYSCLK_PHC2SYS;
	}
	if (o->daemons.state != OBS_OK && o->phc.state == OBS_OK && o->phc.reported_by_phc2sys &&
	    o->phc.reported_sys_minus_phc_ns != PTP_NS_UNKNOWN) {
		return SYSCLK_PHC2SYS; /* no process list, but phc2sys said it steers */
	}
	const chrony_source *sel = o->chrony.state == OBS_OK ? chrony_selected_source(&o->chrony) : NULL;
	if (sel && sel->mode == CHRONY_MODE_REFCLOCK) {
		/* chrony.conf(5) refclock: a PHC source is named PHC0..., an SHM one
		 * SHM0... unless `refid` renames it */
		if (strncmp(sel->name, "PHC", 3) == 0) {
			return SYSCLK_CHRONY_PHC;
		}
		if (strncmp(sel->name, "SHM", 3) == 0 && o->daemons.state == OBS_OK &&
		    phc2sys_feeds_shm(&o->daemons)) {
			return SYSCLK_CHRONY_PHC;
		}
		return SYSCLK_CHRONY_REFCLOCK;
	}
	if (chronyd_runs(o)) {
		return SYSCLK_NTP;
	}
	if (o->daemons.state != OBS_OK) {
		return SYSCLK_UNKNOWN;
	}
	if (o->daemons.running & (DAEMON_NTPD | DAEMON_TIMESYNCD)) {
		return SYSCLK_NTP;
	}
	return SYSCLK_NOBODY;
}

bool sysclk_follows_phc(const observation *o)
{
	sysclk_steerer s = sysclk_steering(o);
	return s == SYSCLK_PHC2SYS || s == SYSCLK_CHRONY_PHC;
}

static bool has_port_on(const ptp_obs *p, const char *iface)
{
	if (p->state != OBS_OK || !iface[0]) {
		return false;
	}
	for (int i = 0; i < ptp_port_count(p); i++) {
		if (strncmp(p->ports[i].interface, iface, sizeof p->ports[i].interface) == 0) {
			return true;
		}
	}
	return false;
}

/* ptp4l's and phc2sys's default socket (linuxptp config.c "uds_address"
 * default "/var/run/ptp4l"; /var/run is /run on current systems); "" is
 * what pmc asked without -s. */
static bool default_socket(const char *path)
{
	return !path[0] || strcmp(path, "/var/run/ptp4l") == 0 || strcmp(path, "/run/ptp4l") == 0;
}

static int instance_with_port(const observation *o, const char *iface)
{
	for (int i = 0; i < o->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		if (has_port_on(&o->ptp_instances[i].ptp, iface)) {
			return i;
		}
	}
	return -1;
}

int sysclk_instance(const observation *o)
{
	if (o->n_ptp_instances <= 1) {
		return -1;
	}
	const phc2sys_args *which;
	if (phc2sys_steering(&o->daemons, &which) && which) {
		if (which->automatic) {
			for (int i = 0; i < o->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
				const char *sock = o->ptp_instances[i].socket;
				if (default_socket(which->uds) ? default_socket(sock)
							       : strncmp(sock, which->uds, PTP_PATH_LEN) == 0) {
					return i;
				}
			}
		} else if (which->source[0] && strncmp(which->source, "/dev/", 5) != 0 && !is_realtime(which->source)) {
			int i = instance_with_port(o, which->source);
			if (i >= 0) {
				return i;
			}
		}
	}
	return o->phc.state == OBS_OK ? instance_with_port(o, o->phc.interface) : -1;
}

const ptp_obs *sysclk_phc_ptp(const observation *o)
{
	int i = o->n_ptp_instances > 1 && o->phc.interface[0] ? instance_with_port(o, o->phc.interface) : -1;
	return i >= 0 ? &o->ptp_instances[i].ptp : &o->ptp;
}

int64_t phc_sys_offset_ns(const observation *o)
{
	const phc_obs *phc = &o->phc;
	const ptp_obs *p = sysclk_phc_ptp(o);
	if (phc->state == OBS_OK && phc->realtime_minus_phc_ns == PTP_NS_UNKNOWN &&
	    phc->reported_sys_minus_phc_ns != PTP_NS_UNKNOWN) {
		return phc->reported_sys_minus_phc_ns; /* already on the UTC timescale */
	}
	if (phc->state != OBS_OK || phc->realtime_minus_phc_ns == PTP_NS_UNKNOWN || p->state != OBS_OK) {
		return PTP_NS_UNKNOWN;
	}
	if (p->ptp_timescale == 0) {
		return phc->realtime_minus_phc_ns;
	}
	if (p->ptp_timescale != 1 || p->current_utc_offset == INT_UNKNOWN) {
		return PTP_NS_UNKNOWN;
	}
	return phc->realtime_minus_phc_ns + (int64_t)p->current_utc_offset * NS_PER_S;
}

bool phc_sys_offset_judged(const observation *o)
{
	if (phc_sys_offset_ns(o) == PTP_NS_UNKNOWN || !sysclk_follows_phc(o)) {
		return false;
	}
	const phc2sys_args *which;
	if (sysclk_steering(o) == SYSCLK_PHC2SYS && phc2sys_steering(&o->daemons, &which) && which &&
	    which->source[0] && strncmp(which->source, "/dev/", 5) != 0 && o->phc.interface[0] &&
	    strncmp(which->source, o->phc.interface, sizeof which->source) != 0) {
		return false; /* phc2sys -s eth1 while phc_ctl read eth0's PHC */
	}
	return true;
}

/* The following port has a PHC: ptp4l timestamps in hardware there (any
 * mode but SOFTWARE), or phc_ctl read one. */
static bool port_has_phc(const observation *o, const ptp_port *port)
{
	if (port->timestamping[0]) {
		return strncmp(port->timestamping, "SOFTWARE", sizeof port->timestamping) != 0;
	}
	return o->phc.state == OBS_OK;
}

void sysclk_rule_unsteered(const health_context *ctx, finding_list *out)
{
	const observation *o = ctx->obs;
	if (ctx->th->expect_ptp == EXPECT_NO) {
		return;
	}
	const ptp_port *follow = ptp_following_port(&o->ptp);
	if (!follow || !port_has_phc(o, follow) || sysclk_steering(o) != SYSCLK_NOBODY) {
		return;
	}
	char iface[HEALTH_NAME_LEN];
	health_port_iface(follow, &o->nic, iface, sizeof iface);
	finding f;
	finding_start(&f, SEVERITY_CRIT, "ptp.system_clock_unsteered");
	finding_message(&f, "ptp4l disciplines the PHC of %s, but nothing steers the system clock from it "
			"(no phc2sys, no chronyd, ntpd or timesyncd): CLOCK_REALTIME runs free", iface);
	finding_hint(&f, "Start phc2sys (`phc2sys -a -r`, or `phc2sys -s %s -c CLOCK_REALTIME -w`; "
		     "Debian: `systemctl enable --now phc2sys@%s`), or let chronyd follow the PHC "
		     "(`refclock PHC /dev/ptpN poll 0 dpoll -2 offset 37` in chrony.conf); then "
		     "`phc_ctl %s -q cmp` prints about -37 s (the UTC offset).", iface, iface, iface);
	health_add_finding(out, &f);
}
