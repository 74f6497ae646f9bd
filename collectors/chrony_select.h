/* chrony_select.h - the pure parser of `chronyc -c -n selectdata`, for the
 * collector in chrony_select.c and its tests. */
#ifndef SYNCTOP_CHRONY_SELECT_H
#define SYNCTOP_CHRONY_SELECT_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely.  A failed chronyc call (missing, chronyd not
 * answering, "501 Not authorised") leaves no records and says why; a
 * malformed record fails the part whole (OBS_GARBAGE, or OBS_TRUNCATED for
 * a last line cut short). */
void chrony_select_parse(const tool_output *out, chrony_selection *dst);

#endif
