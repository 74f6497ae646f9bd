/* ntpctl_parse.h - the pure parser of openntpd's `ntpctl -s all` (and of
 * `-s status` and `-s peers` alone), for the collector in ntpctl.c, its
 * tests and its fuzz target. */
#ifndef SYNCTOP_NTPCTL_PARSE_H
#define SYNCTOP_NTPCTL_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* The exit status of coreutils timeout(1) when the command ran out of
 * time: the collector's shell function bounds ntpctl with it. */
#define NTPCTL_TIMEOUT_RC 124

/* Always fills dst completely.  Nothing printed with status 0 (the
 * collector's function prints nothing where no ntpd runs or ntpctl is not
 * installed): OBS_NOT_COLLECTED.  ntpctl unable to reach ntpd's control
 * socket ("connect: ...", "pipe closed", or no answer before the timeout):
 * OBS_DAEMON_UNREACHABLE; the socket's permissions refuse the polling user:
 * OBS_PERMISSION_DENIED.  A malformed line fails the part whole
 * (OBS_GARBAGE, or OBS_TRUNCATED for output cut short).
 *
 * Formats: OpenBSD usr.sbin/ntpd/ntpd.c show_status_msg (the status line:
 * "V/N peers valid, ", "V/N sensors valid, ", "constraint offset Ns
 * (E errors), " or "constraints configured but none available, ", then
 * "clock synced, stratum S" or "clock unsynced[, clock offset is X.XXXms]";
 * "no peers and no sensors configured" on a line of its own),
 * show_peer_msg ("peer", the header, then per peer its description line and
 * " %1s %2u %2u %2s %4llds %4llds" followed by "  %12.3fms %9.3fms
 * %8.3fms" or "---- peer not valid ----") and show_sensor_msg (the same
 * shape with "sensor" and "- sensor not valid -"); openntpd 6.2p3 (Debian
 * 12) prints them so too (tests/fixtures/ntpctl.source.md).
 *
 * Units and signs: milliseconds.  A peer's offset is the server's offset
 * from this host (client.c: ((T2 - T1) + (T3 - T4)) / 2), which ntpd hands
 * to adjtime(2) to add; "clock offset is" is adjtime's remaining
 * correction.  synctop's offsets are node minus reference, so the parser
 * negates both. */
void ntpctl_parse(const tool_output *out, openntpd_obs *dst);

#endif
