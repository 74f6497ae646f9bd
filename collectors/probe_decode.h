/* probe_decode.h - one complete probe response in, one observation out.
 *
 * Splits the response into its sections and hands each to its pure parser.
 * A section that is absent leaves its part OBS_NOT_COLLECTED (ethtool runs
 * only every few minutes). */
#ifndef SYNCTOP_PROBE_DECODE_H
#define SYNCTOP_PROBE_DECODE_H

#include <stddef.h>

#include "observation.h"

/* obs must be observation_init'ed.  Returns 0, or -1 with err filled when the
 * response as a whole is unusable (malformed framing). */
int probe_decode(const char *buf, size_t len, const char *nonce, observation *obs, char *err,
		 size_t err_len);

/* Parses `date +%s.%N` output ("1796208285.806246273\n") into unix seconds.
 * Returns NAN when it is anything else. */
double probe_decode_node_time(const char *text, size_t len);

#endif
