/* fuzz_obs.h - invariants of a parsed observation, as observation.h and the
 * parser headers promise them, checked after every fuzzed parse.  Each check
 * aborts through FUZZ_CHECK on the first broken promise. */
#ifndef SYNCTOP_FUZZ_OBS_H
#define SYNCTOP_FUZZ_OBS_H

#include <stdbool.h>

#include "observation.h"

/* Any chrony_obs a parser filled.  csv: it came from chrony_parse_csv, whose
 * tracking record is all-or-nothing; the text report may leave any field
 * unknown and never lists sources. */
void fuzz_check_chrony(const chrony_obs *c, bool csv);
void fuzz_check_ptp(const ptp_obs *p);
void fuzz_check_nic(const nic_obs *n);
void fuzz_check_daemons(const daemons_obs *d);
void fuzz_check_phc(const phc_obs *p);

/* The parts probe_decode fills; a part it did not touch must still be the
 * fresh "not collected" value. */
void fuzz_check_observation(const observation *obs);

#endif
