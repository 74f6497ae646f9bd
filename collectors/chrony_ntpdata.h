/* chrony_ntpdata.h - the pure parser of `chronyc -c ntpdata`, for the
 * collector in chrony_ntpdata.c, its tests and its fuzz target. */
#ifndef SYNCTOP_CHRONY_NTPDATA_H
#define SYNCTOP_CHRONY_NTPDATA_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely.  A failed chronyc call (missing, chronyd not
 * answering, "501 Not authorised") leaves no records and says why; a
 * malformed record fails the part whole (OBS_GARBAGE, or OBS_TRUNCATED for
 * a last line cut short).  Records of 33 (chrony 3.x), 34 (4.0-4.5) and 38
 * fields (4.6 and later: the kernel and hardware timestamp counters). */
void chrony_ntpdata_parse(const tool_output *out, chrony_ntpdata *dst);

#endif
