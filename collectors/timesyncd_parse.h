/* timesyncd_parse.h - systemd-timesyncd as timedatectl reports it.
 *
 * The collector runs, in one section, `timedatectl show` (Key=Value lines
 * from timedated), `timedatectl show-timesync --all` (Key=Value lines from
 * timesyncd, the last NTP message as one NTPMessage={ ... } value) and
 * `timedatectl timesync-status` (a vertical "Field: value" table).  The
 * formats are systemd's own (src/timedate/timedatectl.c:
 * print_timesync_property, print_ntp_status_info; spans from
 * src/basic/time-util.c format_timespan), checked against systemd 252. */
#ifndef SYNCTOP_TIMESYNCD_PARSE_H
#define SYNCTOP_TIMESYNCD_PARSE_H

#include <stdbool.h>

#include "observation.h"
#include "text_span.h"
#include "tool_output.h"

/* A systemd time span as format_timespan prints it: "0", "infinity", or
 * blank-separated components "<n>[.<digits>]<unit>" with the units y,
 * month, w, d, h, min, s, ms, us ("34min 8s", "6.011ms", "1min 4.500000s").
 * Seconds into *out (INFINITY for "infinity"); false on anything else. */
bool timesyncd_parse_span(text_span s, double *out);

/* The whole section into dst (timesyncd_obs_init'ed here), with the
 * validity rule (timesyncd_settle) applied.  An empty answer with exit 0
 * means systemd-timesyncd does not run: OBS_NOT_COLLECTED. */
void timesyncd_parse(const tool_output *out, timesyncd_obs *dst);

#endif
