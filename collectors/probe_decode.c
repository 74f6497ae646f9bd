/* probe_decode.c - route each probe section to its parser. */
#include <config.h>

#include "probe_decode.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
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

	const probe_section *sec = probe_section_find(&resp, "time");
	if (sec != NULL && sec->rc == 0) {
		obs->node_time = probe_decode_node_time(sec->out, sec->out_len);
	}
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		if ((sec = probe_section_find(&resp, c->name)) != NULL) {
			tool_output out;
			probe_section_tool_output(sec, &out);
			c->decode(&out, obs);
		}
	}
	return 0;
}
