/* daemons_parse.h - which time daemons run, their PIDs and ages, from
 * `ps -C chronyd,ntpd,systemd-timesyn,ptp4l,phc2sys -o pid=,etimes=,comm=`
 * (or `ps -e -o comm=` where ps has no etimes). */
#ifndef SYNCTOP_DAEMONS_PARSE_H
#define SYNCTOP_DAEMONS_PARSE_H

#include "observation.h"
#include "text_span.h"
#include "tool_output.h"

/* Sets DAEMON_* bits for chronyd, ntpd, systemd-timesyncd, ptp4l and phc2sys
 * (exact command names; ps truncates comm to 15 characters, which is why
 * systemd-timesyncd appears as "systemd-timesyn") and, from lines of the
 * form "PID ETIMES COMM", each daemon's process count and its youngest
 * process's PID and age.  A line that does not start with two numbers is a
 * command name alone (the fallback listing); a line "phc2sys ARGS" is
 * phc2sys's command line (kept, not counted).  Each daemon's process with
 * a PID is a place; the lines after the list that start with "::" say
 * where it runs: "::proc PID", then its /proc/PID/cgroup lines as "::cg
 * LINE", the value of its CapEff as "::cap HEX" and its uid_map lines as
 * "::uid LINE" (container_parse.h reads them; a process without them
 * keeps can_set CAN_SET_TIME_UNKNOWN).  "::none" alone says ps selected
 * no daemon (-C found none: ps prints nothing); an answer with no line at
 * all is OBS_EMPTY.  Lines of other processes (an older probe's `ps -e`)
 * are read and left out.  Always fills dst. */
void daemons_parse(const tool_output *out, daemons_obs *dst);

/* The restart rule, from the previous poll's answer: a daemon that ran then
 * and runs now restarted when its youngest process is younger now than it
 * was then (a process's age only grows), or when it had one process then
 * and has one now under another PID.  Ages are ps etimes, counted on the
 * node's boot-time clock, and the time between the polls is not needed:
 * no clock step, on the node or here, can look like a restart.  Sets
 * restarted_now, previous_pid and restarted_at = at for a restart found
 * now; keeps before's restarted_at for a daemon still running; where now's
 * ps failed, keeps before's processes so the next answer is compared with
 * the last one known (before is then such a copy, its state not OK).  The
 * first poll has no before: never a restart.  Pure. */
void daemons_track(daemons_obs *now, const daemons_obs *before, double at);

/* A phc2sys command line (argv joined by blanks, argv[0] first) into its
 * options, the way phc2sys's getopt reads them.  Always fills dst. */
void daemons_parse_phc2sys_args(text_span args, phc2sys_args *dst);

#endif
