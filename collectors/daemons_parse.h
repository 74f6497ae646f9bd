/* daemons_parse.h - which time daemons run, from `ps -e -o comm=`. */
#ifndef SYNCTOP_DAEMONS_PARSE_H
#define SYNCTOP_DAEMONS_PARSE_H

#include "observation.h"
#include "text_span.h"
#include "tool_output.h"

/* Sets DAEMON_* bits for chronyd, ntpd, systemd-timesyncd, ptp4l and phc2sys
 * (exact command names; ps truncates comm to 15 characters, which is why
 * systemd-timesyncd appears as "systemd-timesyn"), and keeps the command
 * lines of phc2sys from its `phc2sys ARGS` lines.  Always fills dst. */
void daemons_parse(const tool_output *out, daemons_obs *dst);

/* A phc2sys command line (argv joined by blanks, argv[0] first) into its
 * options, the way phc2sys's getopt reads them.  Always fills dst. */
void daemons_parse_phc2sys_args(text_span args, phc2sys_args *dst);

#endif
