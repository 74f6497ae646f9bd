/* fuzz_pmc.c - pmc_parse on fuzzed `pmc -u -b 0 'GET ...'` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_ptp (no data unless
 * OBS_OK, identities and ranges as pmc_parse.c documents, ports never
 * duplicated), dst is filled completely, and the parse is deterministic. */
#include <config.h>

#include <string.h>

#include "fuzz.h"
#include "fuzz_obs.h"
#include "pmc_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ptp_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0, sizeof a);
	pmc_parse(&out, &a);
	fuzz_check_ptp(&a);

	memset(&b, 0xa5, sizeof b);
	pmc_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
