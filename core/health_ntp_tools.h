/* health_ntp_tools.h - collection findings for ntpd's tools (ntpq for ntpd,
 * ntpctl for openntpd): an ntpd that runs but whose tool is missing, is
 * refused or does not answer gets collector.tool_missing or
 * collector.tool_failed with the reason and the fix, instead of only the
 * "cannot inspect" time.other_daemon. */
#ifndef SYNCTOP_HEALTH_NTP_TOOLS_H
#define SYNCTOP_HEALTH_NTP_TOOLS_H

#include <stdbool.h>

#include "finding.h"
#include "observation.h"

/* Whether a process called ntpd runs and the tool that reads it failed
 * (then health_ntp_tools raises a finding, and time.other_daemon is not
 * needed for ntpd). */
bool health_ntp_tool_failed(const observation *o);

/* Adds the finding, if any. */
void health_ntp_tools(const observation *o, finding_list *out);

#endif
