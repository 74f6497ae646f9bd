/* fuzz_timesyncd.c - timesyncd_parse on fuzzed timedatectl output (show,
 * show-timesync --all and timesync-status in one section).
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: a failed part says why and holds no values; names
 * are printable; the validity rule holds (no reference: no offset); the
 * result depends on the input alone. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "timesyncd_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static timesyncd_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0x5a, sizeof a);
	timesyncd_parse(&out, &a);
	FUZZ_CHECK(fuzz_printable(a.error, sizeof a.error));
	FUZZ_CHECK(fuzz_printable(a.server_name, sizeof a.server_name));
	FUZZ_CHECK(fuzz_printable(a.server_address, sizeof a.server_address));
	FUZZ_CHECK(fuzz_printable(a.reference, sizeof a.reference));
	if (a.state == OBS_OK) {
		FUZZ_CHECK(a.error[0] == '\0');
		FUZZ_CHECK(out.rc == 0);
		FUZZ_CHECK(a.leap == INT_UNKNOWN || (a.leap >= 0 && a.leap <= 3));
		FUZZ_CHECK(a.packet_count >= -1);
		if (!timesyncd_has_reference(&a)) {
			FUZZ_CHECK(isnan(a.offset_s) && isnan(a.delay_s) && a.stratum == INT_UNKNOWN);
		}
		FUZZ_CHECK(isnan(a.offset_s) || fabs(a.offset_s) <= 1e10);
	} else {
		FUZZ_CHECK(a.error[0] != '\0');
		FUZZ_CHECK(isnan(a.offset_s) && a.packet_count == -1 && a.server_name[0] == '\0');
	}

	memset(&b, 0xa5, sizeof b);
	timesyncd_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
