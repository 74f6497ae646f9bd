/* daemons_parse.h - which time daemons run, from `ps -e -o comm=`. */
#ifndef SYNCTOP_DAEMONS_PARSE_H
#define SYNCTOP_DAEMONS_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* Sets DAEMON_* bits for chronyd, ntpd, systemd-timesyncd, ptp4l and phc2sys
 * (exact command names; ps truncates comm to 15 characters, which is why
 * systemd-timesyncd appears as "systemd-timesyn").  Always fills dst. */
void daemons_parse(const tool_output *out, daemons_obs *dst);

#endif
