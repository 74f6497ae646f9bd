/* fuzz_ethtool.c - ethtool_parse on fuzzed `ethtool -T IFACE` output, and
 * ethtool_parse_list on the same bytes as a framed section (several
 * interfaces, ethtool_parse.h).
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_nic (printable error and
 * interface, well-formed mode lists, known capability bits), dst is filled
 * completely, and the parse is deterministic; the list has 1 to max
 * entries, and without a frame line it is the single parse. */
#include <config.h>

#include <stdbool.h>
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

	static nic_obs list[NIC_MAX], again[NIC_MAX];
	int max = out.out_len > 0 ? 1 + (unsigned char)out.out[0] % NIC_MAX : NIC_MAX;
	memset(list, 0, sizeof list);
	int n = ethtool_parse_list(&out, list, max);
	FUZZ_CHECK(n >= 1 && n <= max);
	for (int i = 0; i < n; i++) {
		fuzz_check_nic(&list[i]);
		FUZZ_CHECK(list[i].state != OBS_NOT_COLLECTED);
	}
	bool framed = false;
	for (size_t i = 0; i + 10 <= out.out_len && !framed; i++) {
		framed = (i == 0 || out.out[i - 1] == '\n') && memcmp(out.out + i, "@@ethtool ", 10) == 0;
	}
	if (!framed) {
		FUZZ_CHECK(n == 1 && memcmp(&list[0], &a, sizeof a) == 0);
	}
	memset(again, 0x5a, sizeof again);
	FUZZ_CHECK(ethtool_parse_list(&out, again, max) == n);
	FUZZ_CHECK(memcmp(list, again, (size_t)n * sizeof list[0]) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
