/* fuzz_chrony_ntpdata.c - chrony_ntpdata_parse on fuzzed `chronyc -c
 * ntpdata` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: a failed part holds no record and says why; every
 * record kept has printable addresses, known timestamping words, finite
 * numbers and counters that are either unknown or in 0..2^32-1; the result
 * depends on the input alone. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "chrony_ntpdata.h"
#include "fuzz.h"

static bool count_ok(int64_t v)
{
	return v == CHRONY_COUNT_UNKNOWN || (v >= 0 && v <= 4294967295LL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static chrony_ntpdata a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0x5a, sizeof a);
	chrony_ntpdata_parse(&out, &a);
	FUZZ_CHECK(fuzz_printable(a.error, sizeof a.error));
	FUZZ_CHECK(a.n_sources >= 0 && a.n_sources <= CHRONY_MAX_SOURCES);
	FUZZ_CHECK(a.n_sources_total >= a.n_sources);
	if (a.state != OBS_OK) {
		FUZZ_CHECK(a.n_sources == 0 && a.n_sources_total == 0 && a.error[0] != '\0');
	} else {
		FUZZ_CHECK(a.error[0] == '\0');
		FUZZ_CHECK(out.rc == 0 || out.rc == -1);
	}
	for (int i = 0; i < a.n_sources; i++) {
		const chrony_ntp_source *s = &a.sources[i];
		FUZZ_CHECK(s->remote[0] != '\0' && fuzz_printable(s->remote, sizeof s->remote));
		FUZZ_CHECK(s->local[0] != '\0' && fuzz_printable(s->local, sizeof s->local));
		FUZZ_CHECK(s->mode[0] != '\0' && fuzz_printable(s->mode, sizeof s->mode));
		FUZZ_CHECK(s->tx_ts >= CHRONY_TS_INVALID && s->tx_ts <= CHRONY_TS_HARDWARE);
		FUZZ_CHECK(s->rx_ts >= CHRONY_TS_INVALID && s->rx_ts <= CHRONY_TS_HARDWARE);
		FUZZ_CHECK(isfinite(s->offset_s) && isfinite(s->peer_delay_s) && isfinite(s->root_delay_s));
		FUZZ_CHECK(s->total_tx >= 0 && s->total_rx >= 0 && s->total_valid_rx >= 0);
		FUZZ_CHECK(count_ok(s->total_good_rx) && count_ok(s->kernel_tx) && count_ok(s->kernel_rx) &&
			   count_ok(s->hw_tx) && count_ok(s->hw_rx));
		FUZZ_CHECK((int)s->leap >= CHRONY_LEAP_UNKNOWN && (int)s->leap <= CHRONY_LEAP_UNSYNC);
	}

	memset(&b, 0xa5, sizeof b);
	chrony_ntpdata_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
