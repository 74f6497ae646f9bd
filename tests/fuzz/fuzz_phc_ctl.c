/* fuzz_phc_ctl.c - phc_ctl_parse on fuzzed output of the phc_ctl
 * collector's function (`phc_ctl -q IFACE get cmp` and its own
 * `synctop: phc_ctl ...` lines).
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_phc (a value only with
 * OBS_OK, bounded), exit 127 is always "tool missing", parsing is
 * deterministic, and the system clock's offset on the UTC timescale
 * (phc_sys_offset_ns) stays the printed value plus any 16-bit
 * currentUtcOffset, without overflow. */
#include <config.h>

#include <string.h>

#include "fuzz.h"
#include "fuzz_obs.h"
#include "phc_ctl_parse.h"
#include "system_clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static observation obs;
	static phc_obs b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	observation_init(&obs);
	phc_ctl_parse(&out, &obs.phc);
	fuzz_check_phc(&obs.phc);
	if (out.rc == TOOL_RC_NOT_FOUND) {
		FUZZ_CHECK(obs.phc.state == OBS_TOOL_MISSING);
	}

	memset(&b, 0xa5, sizeof b);
	phc_ctl_parse(&out, &b);
	FUZZ_CHECK(memcmp(&obs.phc, &b, sizeof b) == 0);

	/* ptp4l's time properties from the input's size: any 16-bit offset */
	obs.ptp.state = OBS_OK;
	obs.ptp.ptp_timescale = (int)(size & 1);
	obs.ptp.current_utc_offset = (int)(int16_t)(size * 2654435761u);
	int64_t v = phc_sys_offset_ns(&obs);
	if (obs.phc.state != OBS_OK) {
		FUZZ_CHECK(v == PTP_NS_UNKNOWN);
	} else if (obs.ptp.ptp_timescale == 0) {
		FUZZ_CHECK(v == obs.phc.realtime_minus_phc_ns);
	} else {
		FUZZ_CHECK(v - obs.phc.realtime_minus_phc_ns == (int64_t)obs.ptp.current_utc_offset * 1000000000LL);
	}

	fuzz_parts_free(&parts);
	return 0;
}
