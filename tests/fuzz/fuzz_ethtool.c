/* fuzz_ethtool.c - ethtool_parse on fuzzed `ethtool -T IFACE` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_nic (printable error and
 * interface, well-formed mode lists, known capability bits), dst is filled
 * completely, and the parse is deterministic. */
#include <config.h>

#include <string.h>

#include "ethtool_parse.h"
#include "fuzz.h"
#include "fuzz_obs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static nic_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0, sizeof a);
	ethtool_parse(&out, &a);
	fuzz_check_nic(&a);
	/* the three lines ethtool always prints decide OK; without a header or
	 * a known line it is not ethtool output at all */
	FUZZ_CHECK(a.state != OBS_OK || out.out_len > 0);

	memset(&b, 0xa5, sizeof b);
	ethtool_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
