/* fuzz_probe_decode.c - probe_decode: one fuzzed probe response in, one
 * observation out, plus probe_decode_node_time on the raw bytes.
 *
 * Input: a whole probe response for nonce N (see probe.h), e.g. a rendered
 * response with a chrony, pmc, daemons and ethtool section.
 * Beyond not crashing:
 *   - a response that is not complete is refused with a printable message
 *     and the observation untouched;
 *   - otherwise every part obeys fuzz_obs.h, a part is collected exactly
 *     when its section is present, and each equals what its parser makes of
 *     that section alone (probe_decode only routes);
 *   - probe_decode_node_time agrees with a strict reading of `date +%s.%N`. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chrony_parse.h"
#include "daemons_parse.h"
#include "ethtool_parse.h"
#include "fuzz.h"
#include "fuzz_obs.h"
#include "pmc_parse.h"
#include "probe.h"
#include "probe_decode.h"

#define N "0123456789abcdef"

/* "DIGITS[.DIGITS]" then any mix of '\n' and '\r': at most 12 integer and
 * 9 fraction digits, the fraction not empty when the dot is there. */
static double node_time_expected(const char *p, size_t len)
{
	while (len > 0 && (p[len - 1] == '\n' || p[len - 1] == '\r')) {
		len--;
	}
	size_t i = 0, digits = 0, frac = 0;
	while (i < len && p[i] >= '0' && p[i] <= '9') {
		i++;
		digits++;
	}
	if (i < len && p[i] == '.') {
		i++;
		while (i < len && p[i] >= '0' && p[i] <= '9') {
			i++;
			frac++;
		}
		if (frac == 0) {
			return NAN;
		}
	}
	if (i != len || digits == 0 || digits > 12 || frac > 9) {
		return NAN;
	}
	char tmp[32];
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	return strtod(tmp, NULL);
}

static void check_node_time(const char *p, size_t len)
{
	double got = probe_decode_node_time(p, len);
	double want = node_time_expected(p, len);
	if (isnan(want)) {
		FUZZ_CHECK(isnan(got));
	} else {
		FUZZ_CHECK(isfinite(got) && fabs(got - want) <= 1e-12 * want + 1e-9);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	const char *buf = whole.part[0].p;
	size_t len = whole.part[0].len;

	observation *obs = calloc(2, sizeof *obs);
	FUZZ_CHECK(obs != NULL);
	observation *fresh = &obs[1];
	observation_init(obs);
	observation_init(fresh);
	char err[256];
	memset(err, 'x', sizeof err);

	int rc = probe_decode(buf, len, N, obs, err, sizeof err);
	probe_response r;
	int split = probe_split(buf, len, N, &r);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && split != PROBE_COMPLETE);
		FUZZ_CHECK(fuzz_printable(err, sizeof err));
		FUZZ_CHECK(strncmp(err, "malformed probe response: ", 26) == 0);
		FUZZ_CHECK(memcmp(obs, fresh, sizeof *obs) == 0);
		goto out;
	}
	FUZZ_CHECK(split == PROBE_COMPLETE);
	fuzz_check_observation(obs);

	const probe_section *sec;
	tool_output t;
	sec = probe_section_find(&r, "time");
	if (sec != NULL && sec->rc == 0) {
		double want = probe_decode_node_time(sec->out, sec->out_len);
		FUZZ_CHECK(isnan(want) ? isnan(obs->node_time) : obs->node_time == want);
		check_node_time(sec->out, sec->out_len);
	} else {
		FUZZ_CHECK(isnan(obs->node_time));
	}

	sec = probe_section_find(&r, "chrony");
	FUZZ_CHECK((sec == NULL) == (obs->chrony.state == OBS_NOT_COLLECTED));
	if (sec != NULL) {
		probe_section_tool_output(sec, &t);
		chrony_parse_csv(&t, &fresh->chrony);
		chrony_tracking_settle(&fresh->chrony.tracking); /* the collector's validity rule */
		FUZZ_CHECK(memcmp(&fresh->chrony, &obs->chrony, sizeof obs->chrony) == 0);
	}
	sec = probe_section_find(&r, "pmc");
	FUZZ_CHECK((sec == NULL) == (obs->ptp.state == OBS_NOT_COLLECTED));
	if (sec != NULL) {
		probe_section_tool_output(sec, &t);
		pmc_parse(&t, &fresh->ptp);
		FUZZ_CHECK(memcmp(&fresh->ptp, &obs->ptp, sizeof obs->ptp) == 0);
	}
	sec = probe_section_find(&r, "daemons");
	FUZZ_CHECK((sec == NULL) == (obs->daemons.state == OBS_NOT_COLLECTED));
	if (sec != NULL) {
		probe_section_tool_output(sec, &t);
		daemons_parse(&t, &fresh->daemons);
		FUZZ_CHECK(memcmp(&fresh->daemons, &obs->daemons, sizeof obs->daemons) == 0);
	}
	sec = probe_section_find(&r, "ethtool");
	FUZZ_CHECK((sec == NULL) == (obs->nic.state == OBS_NOT_COLLECTED));
	if (sec != NULL) {
		probe_section_tool_output(sec, &t);
		if (t.rc == PROBE_RC_NO_IFACE) {
			FUZZ_CHECK(obs->nic.state == OBS_NO_DEVICE);
		} else {
			/* every interface as parsed, nic one of them */
			int n = ethtool_parse_list(&t, fresh->nics, NIC_MAX);
			FUZZ_CHECK(n == obs->n_nics);
			bool primary = false;
			for (int i = 0; i < n; i++) {
				FUZZ_CHECK(memcmp(&fresh->nics[i], &obs->nics[i], sizeof obs->nics[i]) == 0);
				primary = primary || memcmp(&obs->nic, &obs->nics[i], sizeof obs->nic) == 0;
			}
			FUZZ_CHECK(primary);
		}
	}
out:
	check_node_time(buf, len);
	free(obs);
	fuzz_parts_free(&whole);
	return 0;
}
