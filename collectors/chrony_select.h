/* chrony_select.h - the pure parser of `chronyc -c -n selectdata`, for the
 * collector in chrony_select.c and its tests. */
#ifndef SYNCTOP_CHRONY_SELECT_H
#define SYNCTOP_CHRONY_SELECT_H

#include "detail_sink.h"
#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely.  A failed chronyc call (missing, chronyd not
 * answering, "501 Not authorised") leaves no records and says why; a
 * malformed record fails the part whole (OBS_GARBAGE, or OBS_TRUNCATED for
 * a last line cut short). */
void chrony_select_parse(const tool_output *out, chrony_selection *dst);

/* The drill-down of a chronyc command that needs chronyd's authorisation
 * (selectdata, ntpdata) when it did not answer: the error, and for a
 * refusal how_to_allow.  false (nothing written) when state is OBS_OK. */
bool chrony_select_unanswered_detail(const detail_sink *out, obs_state state, const char *error,
				     const char *how_to_allow);

#endif
