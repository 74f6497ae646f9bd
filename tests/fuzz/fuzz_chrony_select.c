/* fuzz_chrony_select.c - chrony_select_parse on fuzzed `chronyc -c -n
 * selectdata` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: a failed part holds no record and says why; every
 * record kept is within its fields' ranges with a printable name; the
 * result depends on the input alone. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "chrony_select.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static chrony_selection a, b;
	tool_output out;
	fuzz_parts parts;

	fuzz_tool_output(data, size, &out, &parts);
	memset(&a, 0x5a, sizeof a);
	chrony_select_parse(&out, &a);
	FUZZ_CHECK(fuzz_printable(a.error, sizeof a.error));
	FUZZ_CHECK(a.n_sources >= 0 && a.n_sources <= CHRONY_MAX_SOURCES);
	FUZZ_CHECK(a.n_sources_total >= a.n_sources);
	if (a.state != OBS_OK) {
		FUZZ_CHECK(a.n_sources == 0 && a.n_sources_total == 0 && a.error[0] != '\0');
	} else {
		FUZZ_CHECK(a.error[0] == '\0');
		FUZZ_CHECK(out.rc == 0 || out.rc == -1);
	}
	for (int i = 0; i < a.n_sources; i++) {
		const chrony_select_source *s = &a.sources[i];
		FUZZ_CHECK(s->state == '*' || s->state == '+' || chrony_select_state_reason(s->state) != NULL);
		FUZZ_CHECK(s->name[0] != '\0' && fuzz_printable(s->name, sizeof s->name));
		FUZZ_CHECK((s->conf_options & ~0xfu) == 0 && (s->eff_options & ~0xfu) == 0);
		FUZZ_CHECK(s->last_sample_ago_s >= 0);
		FUZZ_CHECK(isfinite(s->score) && isfinite(s->interval_lo_s) && isfinite(s->interval_hi_s));
		FUZZ_CHECK((int)s->leap >= CHRONY_LEAP_UNKNOWN && (int)s->leap <= CHRONY_LEAP_UNSYNC);
	}

	memset(&b, 0xa5, sizeof b);
	chrony_select_parse(&out, &b);
	FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
