/* system_clock.h - who steers a PTP node's system clock (CLOCK_REALTIME,
 * the clock NCCL, PyTorch and every log line read), and how far it is from
 * the PHC it is meant to follow.
 *
 * Every output (JSON, Prometheus, history, drill-down, the rules) goes
 * through these functions, so they cannot disagree. */
#ifndef SYSTEM_CLOCK_H_SYNCTOP
#define SYSTEM_CLOCK_H_SYNCTOP

#include <stdbool.h>
#include <stdint.h>

#include "finding.h"
#include "health_rule.h"
#include "observation.h"

typedef enum {
	SYSCLK_UNKNOWN = 0,     /* the process list was not read */
	SYSCLK_NOBODY,          /* no daemon that steers it runs */
	SYSCLK_PTP4L,           /* ptp4l on software timestamping: its clock is CLOCK_REALTIME */
	SYSCLK_PHC2SYS,         /* phc2sys steers CLOCK_REALTIME from a PHC (-s PHC, or -a -r) */
	SYSCLK_CHRONY_PHC,      /* chronyd's selected source is a PHC refclock, or SHM fed by phc2sys -E ntpshm */
	SYSCLK_CHRONY_REFCLOCK, /* chronyd follows another reference clock (GPS, PPS, someone else's SHM) */
	SYSCLK_NTP,             /* chronyd on NTP servers (or unsynchronised), ntpd or systemd-timesyncd */
} sysclk_steerer;

/* "phc2sys", "chronyd (PHC refclock)", ..., "nobody", "unknown". */
const char *sysclk_steerer_name(sysclk_steerer s);

/* Who steers it, from ptp4l's port timestamping, the process list with
 * phc2sys's options, and chronyd's selected source. */
sysclk_steerer sysclk_steering(const observation *o);

/* The system clock is meant to follow a PHC: phc2sys, or chronyd with a PHC
 * (or phc2sys's SHM) refclock selected. */
bool sysclk_follows_phc(const observation *o);

/* System clock - PHC on the system clock's timescale (UTC), in ns, or
 * PTP_NS_UNKNOWN.  phc_ctl prints CLOCK_REALTIME - PHC; a PHC on the PTP
 * timescale runs ahead of UTC by currentUtcOffset, which phc2sys removes
 * whenever ptp4l reports ptpTimescale (phc2sys.c run_pmc_get_utc_offset:
 * sync_offset = currentUtcOffset if PTP_TIMESCALE, whatever
 * currentUtcOffsetValid says; the flag only makes it traceable).  So: the
 * printed value + currentUtcOffset with ptpTimescale 1, the printed value
 * with ptpTimescale 0 (ARB), unknown while ptp4l's time properties are. */
int64_t phc_sys_offset_ns(const observation *o);

/* The offset is judged (ptp.phc_sys_offset): it is known, the system clock
 * is meant to follow a PHC, and phc2sys does not name another interface's
 * PHC than the one phc_ctl read.  Elsewhere it is shown only. */
bool phc_sys_offset_judged(const observation *o);

/* Several ptp4l on the node (one per NIC): the one whose PHC the system
 * clock is steered from, as an index into o->ptp_instances, or -1 (one
 * ptp4l, or nobody can tell).  phc2sys says it: `-s IFACE` names the
 * interface (the instance with a port there), `-a` follows the ptp4l on its
 * `-z` socket (default /var/run/ptp4l, phc2sys.c).  Otherwise the instance
 * whose interface phc_ctl read.  chronyd's `refclock PHC /dev/ptpN` names a
 * device, not an interface, and chronyc does not show it: such a node gets
 * -1 unless phc_ctl's interface says it. */
int sysclk_instance(const observation *o);

/* The PTP data sets that go with the PHC phc_ctl read (its currentUtcOffset
 * and timescale): the instance with a port on phc_ctl's interface, else
 * the primary's (o->ptp). */
const ptp_obs *sysclk_phc_ptp(const observation *o);

/* ptp.system_clock_unsteered: a PTP slave with a PHC whose system clock
 * nobody steers (crit), with the fix. */
void sysclk_rule_unsteered(const health_context *ctx, finding_list *out);

#endif
