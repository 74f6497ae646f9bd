/* fuzz_pmc.c - pmc_parse on fuzzed `pmc -u -b 0 'GET ...'` output.
 *
 * Input: byte 0 = exit status (fuzz_rc_of), then stdout FUZZ_SEP stderr.
 * Beyond not crashing: the result obeys fuzz_check_ptp (no data unless
 * OBS_OK, identities and ranges as pmc_parse.c documents, ports never
 * duplicated), dst is filled completely, and the parse is deterministic.
 * The same input also goes through pmc_instances_parse (the section framed
 * per ptp4l, pmc_instances.h): at most the instances kept, each obeying
 * fuzz_check_ptp, its paths NUL-terminated, a config error only with no
 * data, the primary one of them, and deterministic too. */
#include <config.h>

#include <string.h>

#include "fuzz.h"
#include "fuzz_obs.h"
#include "pmc_instances.h"
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

	static ptp_instance ia[PTP_MAX_INSTANCES], ib[PTP_MAX_INSTANCES];
	int more_a = -1, more_b = -1;
	memset(ia, 0, sizeof ia);
	int n = pmc_instances_parse(&out, ia, PTP_MAX_INSTANCES, &more_a);
	FUZZ_CHECK(n >= 0 && n <= PTP_MAX_INSTANCES && more_a >= 0);
	FUZZ_CHECK(more_a == 0 || n == PTP_MAX_INSTANCES);
	for (int i = 0; i < n; i++) {
		fuzz_check_ptp(&ia[i].ptp);
		FUZZ_CHECK(memchr(ia[i].socket, '\0', sizeof ia[i].socket) != NULL);
		FUZZ_CHECK(memchr(ia[i].config, '\0', sizeof ia[i].config) != NULL);
		FUZZ_CHECK(memchr(ia[i].config_error, '\0', sizeof ia[i].config_error) != NULL);
		FUZZ_CHECK(!ia[i].config_error[0] || ia[i].ptp.state == OBS_NOT_COLLECTED);
	}
	int primary = pmc_instances_primary(ia, n);
	FUZZ_CHECK(primary >= 0 && (n == 0 ? primary == 0 : primary < n));
	memset(ib, 0xa5, sizeof ib);
	FUZZ_CHECK(pmc_instances_parse(&out, ib, PTP_MAX_INSTANCES, &more_b) == n && more_b == more_a);
	FUZZ_CHECK(n == 0 || memcmp(ia, ib, (size_t)n * sizeof ia[0]) == 0);

	fuzz_parts_free(&parts);
	return 0;
}
