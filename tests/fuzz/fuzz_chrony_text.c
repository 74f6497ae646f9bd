/* fuzz_chrony_text.c - chrony_parse_tracking_text on fuzzed `chronyc tracking`.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_chrony, and the parser
 * fills dst completely (a dst full of garbage gives the same bytes as a
 * clean one) and is deterministic. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "chrony_parse.h"
#include "fuzz.h"
#include "fuzz_obs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static chrony_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0, sizeof a);
	chrony_parse_tracking_text(&out, &a);
	fuzz_check_chrony(&a, false);

	memset(&b, 0xa5, sizeof b);
	chrony_parse_tracking_text(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
