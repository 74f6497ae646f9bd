/* probe_decode.c - route each probe section to its parser. */
#include <config.h>

#include "probe_decode.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "chrony_parse.h"
#include "daemons_parse.h"
#include "ethtool_parse.h"
#include "pmc_parse.h"
#include "probe.h"

double probe_decode_node_time(const char *text, size_t len)
{
	double seconds = 0, scale = 1;
	size_t i = 0, digits = 0;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) {
		len--;
	}
	/* Parse by hand: strtod would need a NUL and honours the locale. */
	for (; i < len && text[i] >= '0' && text[i] <= '9' && digits < 12; i++, digits++) {
		seconds = seconds * 10 + (text[i] - '0');
	}
	if (digits == 0) {
		return NAN;
	}
	if (i < len && text[i] == '.') {
		size_t frac = 0;
		for (i++; i < len && text[i] >= '0' && text[i] <= '9' && frac < 9; i++, frac++) {
			scale /= 10;
			seconds += (text[i] - '0') * scale;
		}
		if (frac == 0) {
			return NAN; /* e.g. "1796208285.N" from a date without %N */
		}
	}
	return i == len ? seconds : NAN;
}

static void decode_ethtool(const probe_section *sec, nic_obs *nic)
{
	tool_output out;
	probe_section_tool_output(sec, &out);
	if (out.rc == PROBE_RC_NO_IFACE) {
		nic_obs_init(nic);
		nic->state = OBS_NO_DEVICE;
		snprintf(nic->error, sizeof nic->error,
			 "no interface to check: ptp4l reported none and there is no default route; use --iface");
		return;
	}
	ethtool_parse(&out, nic);
}

int probe_decode(const char *buf, size_t len, const char *nonce, observation *obs, char *err,
		 size_t err_len)
{
	probe_response resp;
	int rc = probe_split(buf, len, nonce, &resp);
	if (rc != PROBE_COMPLETE) {
		snprintf(err, err_len, "malformed probe response: %s",
			 rc == PROBE_MALFORMED && resp.reason ? resp.reason : "incomplete");
		return -1;
	}

	const probe_section *sec;
	tool_output out;
	if ((sec = probe_section_find(&resp, "time")) != NULL && sec->rc == 0) {
		obs->node_time = probe_decode_node_time(sec->out, sec->out_len);
	}
	if ((sec = probe_section_find(&resp, "chrony")) != NULL) {
		probe_section_tool_output(sec, &out);
		chrony_parse_csv(&out, &obs->chrony);
	}
	if ((sec = probe_section_find(&resp, "pmc")) != NULL) {
		probe_section_tool_output(sec, &out);
		pmc_parse(&out, &obs->ptp);
	}
	if ((sec = probe_section_find(&resp, "daemons")) != NULL) {
		probe_section_tool_output(sec, &out);
		daemons_parse(&out, &obs->daemons);
	}
	if ((sec = probe_section_find(&resp, "ethtool")) != NULL) {
		decode_ethtool(sec, &obs->nic);
	}
	return 0;
}
