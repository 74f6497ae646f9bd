/* fuzz_ntpctl.c - ntpctl_parse on fuzzed `ntpctl -s all` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: a failed part says why and holds no values; names
 * are printable; counts stay in range and only valid peers carry numbers;
 * the result depends on the input alone. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "ntpctl_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static openntpd_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0x5a, sizeof a);
	ntpctl_parse(&out, &a);
	FUZZ_CHECK(fuzz_printable(a.error, sizeof a.error));
	FUZZ_CHECK(a.n_peers >= 0 && a.n_peers <= OPENNTPD_MAX_PEERS && a.n_peers <= a.n_peers_total);
	for (int i = 0; i < OPENNTPD_MAX_PEERS; i++) {
		const openntpd_peer *p = &a.peers[i];
		FUZZ_CHECK(fuzz_printable(p->address, sizeof p->address));
		FUZZ_CHECK(fuzz_printable(p->description, sizeof p->description));
		if (!p->valid) {
			FUZZ_CHECK(isnan(p->offset_s) && isnan(p->delay_s) && isnan(p->jitter_s));
		} else {
			FUZZ_CHECK(fabs(p->offset_s) <= 1e6 && p->delay_s >= 0 && p->jitter_s >= 0);
		}
	}
	if (a.state == OBS_OK) {
		FUZZ_CHECK(a.error[0] == '\0');
		FUZZ_CHECK(out.rc == 0);
		FUZZ_CHECK(a.synced == INT_UNKNOWN || a.synced == 0 || a.synced == 1);
		FUZZ_CHECK(a.stratum == INT_UNKNOWN || a.synced == 1);
		FUZZ_CHECK(a.peers_valid <= a.peers_configured && a.sensors_valid <= a.sensors_configured);
	} else {
		FUZZ_CHECK(a.error[0] != '\0');
		FUZZ_CHECK(a.n_peers == 0 && a.synced == INT_UNKNOWN && a.peers[0].address[0] == '\0');
	}

	memset(&b, 0xa5, sizeof b);
	ntpctl_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
