/* fuzz_ntpq.c - ntpq_parse on fuzzed `ntpq -n -c rv -c peers` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: a failed part holds no peer and says why; every peer
 * kept is within its fields' ranges with printable text; the validity rule
 * leaves no reference value without a reference; the result depends on the
 * input alone. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "ntpq_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static ntp_obs a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0x5a, sizeof a);
	ntpq_parse(&out, &a);
	ntp_obs_settle(&a);
	FUZZ_CHECK(a.ran);
	FUZZ_CHECK(fuzz_printable(a.error, sizeof a.error));
	FUZZ_CHECK(fuzz_printable(a.refid, sizeof a.refid) && fuzz_printable(a.version, sizeof a.version));
	FUZZ_CHECK(a.n_peers >= 0 && a.n_peers <= NTP_MAX_PEERS && a.n_peers_total >= a.n_peers);
	if (a.state != OBS_OK) {
		FUZZ_CHECK(a.n_peers == 0 && a.n_peers_total == 0 && a.error[0] != '\0');
		FUZZ_CHECK(a.leap == INT_UNKNOWN && isnan(a.offset_s));
	} else {
		FUZZ_CHECK(a.error[0] == '\0');
		FUZZ_CHECK(a.leap >= 0 && a.leap <= NTP_LEAP_UNSYNC);
	}
	if (a.leap == NTP_LEAP_UNSYNC) {
		FUZZ_CHECK(isnan(a.offset_s) && a.stratum == INT_UNKNOWN && a.refid[0] == '\0');
	}
	FUZZ_CHECK(isnan(a.offset_s) || fabs(a.offset_s) <= 1e6);
	FUZZ_CHECK(a.status == INT_UNKNOWN || (a.status >= 0 && a.status <= 0xffff));
	for (int i = 0; i < a.n_peers; i++) {
		const ntp_peer *p = &a.peers[i];
		FUZZ_CHECK(p->tally != '\0' && strchr(" x.-+#*o", p->tally) != NULL);
		FUZZ_CHECK(p->remote[0] != '\0' && fuzz_printable(p->remote, sizeof p->remote));
		FUZZ_CHECK(fuzz_printable(p->refid, sizeof p->refid));
		FUZZ_CHECK(p->stratum >= 0 && p->stratum <= 255 && p->reach <= 0377);
		FUZZ_CHECK(p->poll_s >= 0 && (p->when_s == INT_UNKNOWN || p->when_s >= 0));
		FUZZ_CHECK(isfinite(p->delay_s) && isfinite(p->offset_s) && isfinite(p->jitter_s));
		FUZZ_CHECK(p->delay_s >= 0 && p->jitter_s >= 0);
	}
	memset(&b, 0xa5, sizeof b);
	ntpq_parse(&out, &b);
	ntp_obs_settle(&b);
	FUZZ_CHECK(a.state == b.state && a.n_peers == b.n_peers && strcmp(a.error, b.error) == 0);
	fuzz_parts_free(&parts);
	return 0;
}
