/* test_chrony_parse.c - chronyc CSV and tracking-text parsers against the
 * captured lab outputs, every error state, the sign conventions (checked
 * against the text form of the same state) and hostile input. */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chrony_parse.h"
#include "fixture.h"

typedef void (*parser_fn)(const tool_output *, chrony_obs *);

/* ---------------------------------------------------------------- helpers */

#define assert_near(a, b, tol) assert_near_at((a), (b), (tol), #a, __FILE__, __LINE__)

static void assert_near_at(double a, double b, double tol, const char *what, const char *file,
			   int line)
{
	if (!(fabs(a - b) <= tol)) {
		fail_msg("%s:%d: %s = %.12g, expected %.12g (tolerance %g)", file, line, what, a, b,
			 tol);
	}
}

#define assert_error_has(obs, text) assert_error_has_at((obs), (text), __FILE__, __LINE__)

static void assert_error_has_at(const chrony_obs *obs, const char *text, const char *file,
				int line)
{
	if (!strstr(obs->error, text)) {
		fail_msg("%s:%d: error \"%s\" lacks \"%s\"", file, line, obs->error, text);
	}
}

#define assert_state(obs, st) assert_state_at((obs), (st), __FILE__, __LINE__)

static void assert_state_at(const chrony_obs *obs, obs_state st, const char *file, int line)
{
	if (obs->state != st) {
		fail_msg("%s:%d: state \"%s\", expected \"%s\" (error: %s)", file, line,
			 obs_state_name(obs->state), obs_state_name(st), obs->error);
	}
}

static void assert_tracking_unknown(const chrony_tracking *t)
{
	assert_false(t->has_reference_id);
	assert_string_equal(t->reference_name, "");
	assert_int_equal(t->stratum, INT_UNKNOWN);
	assert_true(isnan(t->ref_time));
	assert_true(isnan(t->system_time_offset_s));
	assert_true(isnan(t->last_offset_s));
	assert_true(isnan(t->rms_offset_s));
	assert_true(isnan(t->frequency_ppm));
	assert_true(isnan(t->residual_frequency_ppm));
	assert_true(isnan(t->skew_ppm));
	assert_true(isnan(t->root_delay_s));
	assert_true(isnan(t->root_dispersion_s));
	assert_true(isnan(t->update_interval_s));
	assert_int_equal(t->leap, CHRONY_LEAP_UNKNOWN);
}

static bool terminated_within(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

/* What must hold after any parse, whatever the input was. */
static void check_invariants(const chrony_obs *obs)
{
	assert_true(obs->state != OBS_NOT_COLLECTED);
	assert_true(terminated_within(obs->error, sizeof obs->error));
	for (const char *c = obs->error; *c; c++) {
		assert_true(*c >= 0x20 && *c <= 0x7e);
	}
	if (obs->state != OBS_OK) {
		/* a failure never carries data */
		assert_true(obs->error[0] != '\0');
		assert_int_equal(obs->n_sources, 0);
		assert_int_equal(obs->n_sources_total, 0);
		assert_int_equal(obs->n_sourcestats, 0);
		assert_tracking_unknown(&obs->tracking);
		return;
	}
	assert_string_equal(obs->error, "");
	assert_in_range(obs->n_sources, 0, CHRONY_MAX_SOURCES);
	assert_in_range(obs->n_sourcestats, 0, CHRONY_MAX_SOURCES);
	assert_int_equal(obs->n_sources,
			 obs->n_sources_total < CHRONY_MAX_SOURCES ? obs->n_sources_total
								   : CHRONY_MAX_SOURCES);
	assert_true(terminated_within(obs->tracking.reference_name,
				      sizeof obs->tracking.reference_name));
	for (int i = 0; i < obs->n_sources; i++) {
		const chrony_source *s = &obs->sources[i];
		assert_true(terminated_within(s->name, sizeof s->name));
		assert_true(s->name[0] != '\0');
		assert_true(s->mode != CHRONY_MODE_UNKNOWN);
		assert_true(s->state != CHRONY_STATE_UNKNOWN);
		assert_in_range(s->reach, 0, 0377);
		assert_true(s->last_rx_s >= -1);
		assert_true(isfinite(s->adjusted_offset_s) && isfinite(s->measured_offset_s));
		assert_true(s->error_s >= 0);
	}
	for (int i = 0; i < obs->n_sourcestats; i++) {
		const chrony_sourcestat *s = &obs->sourcestats[i];
		assert_true(terminated_within(s->name, sizeof s->name));
		assert_true(isfinite(s->offset_s) && s->std_dev_s >= 0);
	}
}

/* Exact-size heap copies with no NUL after them, so that ASan catches any
 * read past the lengths the parser was given. */
static void parse_bytes(parser_fn parse, const char *out, size_t out_len, const char *err,
			size_t err_len, int rc, chrony_obs *obs)
{
	char *o = out_len ? malloc(out_len) : NULL;
	char *e = err_len ? malloc(err_len) : NULL;
	if (out_len) {
		assert_non_null(o);
		memcpy(o, out, out_len);
	}
	if (err_len) {
		assert_non_null(e);
		memcpy(e, err, err_len);
	}
	tool_output t = {.out = o, .out_len = out_len, .err = e, .err_len = err_len, .rc = rc};
	memset(obs, 0x5a, sizeof *obs); /* stale contents must not survive */
	parse(&t, obs);
	free(o);
	free(e);
	check_invariants(obs);
}

static void parse_str(parser_fn parse, const char *out, const char *err, int rc, chrony_obs *obs)
{
	parse_bytes(parse, out, strlen(out), err, strlen(err), rc, obs);
}

static void csv(const char *out, int rc, chrony_obs *obs)
{
	parse_str(chrony_parse_csv, out, "", rc, obs);
}

static void text(const char *out, int rc, chrony_obs *obs)
{
	parse_str(chrony_parse_tracking_text, out, "", rc, obs);
}

/* tests/fixtures/BASE.txt as stdout, BASE.stderr.txt (if any) as stderr. */
static void parse_fixture(parser_fn parse, const char *base, int rc, chrony_obs *obs)
{
	char name[256];
	size_t out_len, err_len;
	snprintf(name, sizeof name, "%s.txt", base);
	char *out = fixture_read(name, &out_len);
	snprintf(name, sizeof name, "%s.stderr.txt", base);
	char *err = fixture_read_optional(name, &err_len);
	parse_bytes(parse, out, out_len, err, err_len, rc, obs);
	free(out);
	free(err);
}

static char *read_fixture(const char *name, size_t *len)
{
	return fixture_read(name, len);
}

/* ------------------------------------------------------ CSV: lab fixtures */

static void test_csv_combined_synced(void **state)
{
	(void)state;
	chrony_obs o;
	parse_fixture(chrony_parse_csv, "chronyc-c-m-tracking-sources-sourcestats-synced", 0, &o);
	assert_state(&o, OBS_OK);

	const chrony_tracking *t = &o.tracking;
	assert_true(t->has_reference_id);
	assert_int_equal(t->reference_id, 0x0A4D0001u);
	assert_string_equal(t->reference_name, "10.77.0.1");
	assert_int_equal(t->stratum, 9);
	assert_near(t->ref_time, 1796208353.783676628, 1e-6);
	assert_near(t->system_time_offset_s, -0.000003403, 1e-12); /* CSV 0.000003403 = slow */
	assert_near(t->last_offset_s, 0.000000538, 1e-12);
	assert_near(t->rms_offset_s, 0.000000853, 1e-12);
	assert_near(t->frequency_ppm, -0.380, 1e-9);
	assert_near(t->residual_frequency_ppm, 0.021, 1e-9);
	assert_near(t->skew_ppm, 0.256, 1e-9);
	assert_near(t->root_delay_s, 0.000020039, 1e-12);
	assert_near(t->root_dispersion_s, 0.000002305, 1e-12);
	assert_near(t->update_interval_s, 1.0, 1e-12);
	assert_int_equal(t->leap, CHRONY_LEAP_NORMAL);
	assert_string_equal(chrony_leap_name(t->leap), "Normal");

	assert_int_equal(o.n_sources, 2);
	assert_int_equal(o.n_sources_total, 2);
	const chrony_source *s = &o.sources[0];
	assert_int_equal(s->mode, CHRONY_MODE_SERVER);
	assert_int_equal(s->state, CHRONY_STATE_SELECTED);
	assert_string_equal(s->name, "10.77.0.1");
	assert_int_equal(s->stratum, 8);
	assert_int_equal(s->poll, 0);
	assert_int_equal(s->reach, 0377);
	assert_int_equal(s->last_rx_s, 0);
	assert_near(s->adjusted_offset_s, 0.000000426, 1e-12);
	assert_near(s->measured_offset_s, 0.000000964, 1e-12);
	assert_near(s->error_s, 0.000010073, 1e-12);
	s = &o.sources[1];
	assert_int_equal(s->mode, CHRONY_MODE_SERVER);
	assert_int_equal(s->state, CHRONY_STATE_COMBINED);
	assert_string_equal(s->name, "10.77.0.2");
	assert_int_equal(s->stratum, 9);
	assert_int_equal(s->poll, -1);
	assert_int_equal(s->reach, 255);
	assert_int_equal(s->last_rx_s, 0);
	assert_near(s->adjusted_offset_s, -0.000004703, 1e-12);
	assert_near(s->measured_offset_s, -0.000004172, 1e-12);
	assert_near(s->error_s, 0.000040651, 1e-12);

	assert_int_equal(o.n_sourcestats, 2);
	const chrony_sourcestat *x = &o.sourcestats[0];
	assert_string_equal(x->name, "10.77.0.1");
	assert_int_equal(x->samples, 19);
	assert_int_equal(x->runs, 10);
	assert_int_equal(x->span_s, 18);
	assert_near(x->frequency_ppm, 0.287, 1e-9);
	assert_near(x->skew_ppm, 0.364, 1e-9);
	assert_near(x->offset_s, -0.000000129, 1e-12);
	assert_near(x->std_dev_s, 0.000002151, 1e-12);
	x = &o.sourcestats[1];
	assert_string_equal(x->name, "10.77.0.2");
	assert_int_equal(x->samples, 16);
	assert_int_equal(x->runs, 9);
	assert_int_equal(x->span_s, 7);
	assert_near(x->frequency_ppm, -0.090, 1e-9);
	assert_near(x->skew_ppm, 0.246, 1e-9);
	assert_near(x->offset_s, 0.000000657, 1e-12);
	assert_near(x->std_dev_s, 0.000000580, 1e-12);
}

static void test_csv_combined_unsync(void **state)
{
	(void)state;
	chrony_obs o;
	parse_fixture(chrony_parse_csv, "chronyc-c-m-tracking-sources-unsync", 0, &o);
	assert_state(&o, OBS_OK);
	const chrony_tracking *t = &o.tracking;
	assert_true(t->has_reference_id);
	assert_int_equal(t->reference_id, 0);
	assert_string_equal(t->reference_name, "");
	assert_int_equal(t->stratum, 0);
	assert_near(t->ref_time, 0, 0);
	assert_near(t->system_time_offset_s, 0, 0);
	assert_false(signbit(t->system_time_offset_s)); /* negating 0 must not give -0 */
	assert_near(t->root_delay_s, 1.0, 1e-12);
	assert_near(t->root_dispersion_s, 1.0, 1e-12);
	assert_near(t->update_interval_s, 0.0, 0);
	assert_int_equal(t->leap, CHRONY_LEAP_UNSYNC);
	assert_string_equal(chrony_leap_name(t->leap), "Not synchronised");

	assert_int_equal(o.n_sources, 1);
	assert_int_equal(o.n_sources_total, 1);
	const chrony_source *s = &o.sources[0];
	assert_int_equal(s->mode, CHRONY_MODE_SERVER);
	assert_int_equal(s->state, CHRONY_STATE_UNUSABLE);
	assert_string_equal(s->name, "10.77.0.99");
	assert_int_equal(s->stratum, 0);
	assert_int_equal(s->poll, 2);
	assert_int_equal(s->reach, 0);
	assert_int_equal(s->last_rx_s, -1); /* 4294967295 = never */
	assert_near(s->adjusted_offset_s, 0, 0);
	assert_int_equal(o.n_sourcestats, 0);
}

static void test_csv_tracking_fixtures(void **state)
{
	(void)state;
	chrony_obs o;

	parse_fixture(chrony_parse_csv, "chronyc-c-tracking-synced", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0x0A4D0001u);
	assert_int_equal(o.tracking.stratum, 9);
	assert_near(o.tracking.ref_time, 1796207897.075098346, 1e-6);
	assert_near(o.tracking.system_time_offset_s, -0.000004930, 1e-12);
	assert_near(o.tracking.last_offset_s, -0.000001901, 1e-12);
	assert_near(o.tracking.rms_offset_s, 0.000001169, 1e-12);
	assert_near(o.tracking.frequency_ppm, -0.204, 1e-9);
	assert_near(o.tracking.residual_frequency_ppm, -0.270, 1e-9);
	assert_near(o.tracking.skew_ppm, 1.018, 1e-9);
	assert_near(o.tracking.root_delay_s, 0.000014929, 1e-12);
	assert_near(o.tracking.root_dispersion_s, 0.000004118, 1e-12);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_NORMAL);
	assert_int_equal(o.n_sources, 0);
	assert_int_equal(o.n_sources_total, 0);
	assert_int_equal(o.n_sourcestats, 0);

	parse_fixture(chrony_parse_csv, "chronyc-c-tracking-node3-two-sources", 0, &o);
	assert_state(&o, OBS_OK);
	assert_near(o.tracking.system_time_offset_s, -0.000002076, 1e-12);
	assert_near(o.tracking.last_offset_s, 0.000000590, 1e-12);
	assert_near(o.tracking.frequency_ppm, 0.037, 1e-9);
	assert_near(o.tracking.residual_frequency_ppm, 0.008, 1e-9);
	assert_near(o.tracking.root_dispersion_s, 0.000002471, 1e-12);

	/* `local stratum 8`: refid 7F7F0101 with an empty name */
	parse_fixture(chrony_parse_csv, "chronyc-c-tracking-server-local-stratum8", 0, &o);
	assert_state(&o, OBS_OK);
	assert_true(o.tracking.has_reference_id);
	assert_int_equal(o.tracking.reference_id, 0x7F7F0101u);
	assert_string_equal(o.tracking.reference_name, "");
	assert_int_equal(o.tracking.stratum, 8);
	assert_near(o.tracking.ref_time, 1796207834.753710770, 1e-6);
	assert_near(o.tracking.root_delay_s, 0, 0);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_NORMAL);

	parse_fixture(chrony_parse_csv, "chronyc-c-tracking-unsync", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_UNSYNC);
	assert_int_equal(o.n_sources_total, 0);
}

static void test_csv_sources_fixtures(void **state)
{
	(void)state;
	chrony_obs o;

	parse_fixture(chrony_parse_csv, "chronyc-c-sources-synced", 0, &o);
	assert_state(&o, OBS_OK);
	assert_tracking_unknown(&o.tracking); /* no tracking record was given */
	assert_int_equal(o.n_sources, 1);
	assert_int_equal(o.sources[0].state, CHRONY_STATE_SELECTED);
	assert_near(o.sources[0].adjusted_offset_s, 0.000002890, 1e-12);
	assert_near(o.sources[0].measured_offset_s, 0.000000989, 1e-12);
	assert_near(o.sources[0].error_s, 0.000007519, 1e-12);

	const char *node3[] = {"chronyc-c-sources-node3-two-sources", "chronyc-c-n-sources-node3"};
	for (size_t i = 0; i < 2; i++) {
		parse_fixture(chrony_parse_csv, node3[i], 0, &o);
		assert_state(&o, OBS_OK);
		assert_tracking_unknown(&o.tracking);
		assert_int_equal(o.n_sources, 2);
		assert_int_equal(o.n_sources_total, 2);
		assert_int_equal(o.sources[0].state, CHRONY_STATE_SELECTED);
		assert_int_equal(o.sources[0].last_rx_s, 1);
		assert_near(o.sources[0].adjusted_offset_s, 0.000000963, 1e-12);
		assert_near(o.sources[0].measured_offset_s, 0.000001553, 1e-12);
		assert_near(o.sources[0].error_s, 0.000006160, 1e-12);
		assert_string_equal(o.sources[1].name, "10.77.0.2");
		assert_int_equal(o.sources[1].state, CHRONY_STATE_NOT_COMBINED);
		assert_int_equal(o.sources[1].stratum, 9);
		assert_near(o.sources[1].adjusted_offset_s, -0.000002167, 1e-12);
		assert_near(o.sources[1].error_s, 0.000032068, 1e-12);
		assert_int_equal(o.n_sourcestats, 0);
	}

	parse_fixture(chrony_parse_csv, "chronyc-c-sources-unsync-unreachable", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sources, 1);
	assert_int_equal(o.sources[0].state, CHRONY_STATE_UNUSABLE);
	assert_int_equal(o.sources[0].reach, 0);
	assert_int_equal(o.sources[0].last_rx_s, -1);
}

static void test_csv_sourcestats_fixtures(void **state)
{
	(void)state;
	chrony_obs o;
	parse_fixture(chrony_parse_csv, "chronyc-c-sourcestats-synced", 0, &o);
	assert_state(&o, OBS_OK);
	assert_tracking_unknown(&o.tracking);
	assert_int_equal(o.n_sources, 0);
	assert_int_equal(o.n_sourcestats, 2);
	assert_string_equal(o.sourcestats[0].name, "10.77.0.1");
	assert_int_equal(o.sourcestats[0].samples, 19);
	assert_int_equal(o.sourcestats[0].runs, 8);
	assert_int_equal(o.sourcestats[0].span_s, 18);
	assert_near(o.sourcestats[0].frequency_ppm, 0.008, 1e-9);
	assert_near(o.sourcestats[0].offset_s, 0.000000006, 1e-12);
	assert_near(o.sourcestats[1].frequency_ppm, 0.050, 1e-9);
	assert_near(o.sourcestats[1].skew_ppm, 0.598, 1e-9);
	assert_near(o.sourcestats[1].offset_s, -0.000003254, 1e-12);
	assert_near(o.sourcestats[1].std_dev_s, 0.000000446, 1e-12);

	/* a source never heard from: chrony's worst-case 2000 ppm skew, 4 s sd */
	parse_fixture(chrony_parse_csv, "chronyc-c-sourcestats-unsync", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sourcestats, 1);
	assert_string_equal(o.sourcestats[0].name, "10.77.0.99");
	assert_int_equal(o.sourcestats[0].samples, 0);
	assert_near(o.sourcestats[0].skew_ppm, 2000.0, 1e-9);
	assert_near(o.sourcestats[0].std_dev_s, 4.0, 1e-12);
}

/* The NTP server has no sources: its empty list is fine after tracking, but
 * an empty list alone is an empty output. */
static void test_csv_server_without_sources(void **state)
{
	(void)state;
	size_t tl, sl;
	char *tr = read_fixture("chronyc-c-tracking-server-local-stratum8.txt", &tl);
	char *src = read_fixture("chronyc-c-sources-server-local.txt", &sl);
	assert_int_equal(sl, 0);
	char both[512];
	assert_true(tl + sl < sizeof both);
	memcpy(both, tr, tl);
	memcpy(both + tl, src, sl);
	chrony_obs o;
	parse_bytes(chrony_parse_csv, both, tl + sl, "", 0, 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.stratum, 8);
	assert_int_equal(o.n_sources, 0);
	assert_int_equal(o.n_sources_total, 0);

	parse_fixture(chrony_parse_csv, "chronyc-c-sources-server-local", 0, &o);
	assert_state(&o, OBS_EMPTY);
	free(tr);
	free(src);
}

/* ssh's known_hosts warning on stderr (with its "\r") must not matter. */
static void test_csv_stderr_noise_ignored(void **state)
{
	(void)state;
	chrony_obs o;
	parse_str(chrony_parse_csv,
		  "7F7F0101,,8,1796207834.753710770,0.000000000,0.000000000,0.000000000,0.000,0.000,"
		  "0.000,0.000000000,0.000000000,0.0,Normal\n",
		  "Warning: Permanently added '[10.77.0.1]:2201' (ED25519) to the list of known hosts.\r\n",
		  0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0x7F7F0101u);
}

static void test_csv_crlf_lines(void **state)
{
	(void)state;
	size_t len;
	char *lf = read_fixture("chronyc-c-m-tracking-sources-sourcestats-synced.txt", &len);
	char crlf[2048];
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (lf[i] == '\n') {
			crlf[n++] = '\r';
		}
		crlf[n++] = lf[i];
		assert_true(n + 2 < sizeof crlf);
	}
	chrony_obs a, b;
	parse_bytes(chrony_parse_csv, lf, len, "", 0, 0, &a);
	parse_bytes(chrony_parse_csv, crlf, n, "", 0, 0, &b);
	assert_state(&b, OBS_OK);
	assert_int_equal(b.n_sources, a.n_sources);
	assert_int_equal(b.n_sourcestats, a.n_sourcestats);
	assert_int_equal(b.tracking.leap, CHRONY_LEAP_NORMAL);
	assert_near(b.sourcestats[1].std_dev_s, a.sourcestats[1].std_dev_s, 0);
	free(lf);
}

/* Every field type at its limits, and every mode and state character. */
static void test_csv_accepts_limits(void **state)
{
	(void)state;
	chrony_obs o;
	char name63[64], name100[101], line[1024];
	memset(name100, 'n', 100);
	name100[100] = '\0';
	memcpy(name63, name100, 63);
	name63[63] = '\0';
	snprintf(line, sizeof line,
		 "FFFFFFFF,%s,255,0.0,-10000000000.0,+0.5,0,-1000000000.0,1000000000.0,0,0,0,0,Insert second\n"
		 "=,+,a,255,-32,0,4294967294,-10000000000.0,10000000000.0,0\n"
		 "#,-,PPS,0,32,1,0,0,0,0\n"
		 "^,x,b,1,0,7,1,0,0,0\n"
		 "^,~,c,1,0,77,1,0,0,0\n"
		 "^,?,d,1,0,377,4294967295,0,0,0\n"
		 "^,*,%s,1,0,377,0,0,0,0\n"
		 "x,65535,65535,2147483647,-1000000000.0,1000000000.0,-10000000000.0,10000000000.0\n",
		 name100, name100);
	csv(line, 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0xFFFFFFFFu);
	assert_string_equal(o.tracking.reference_name, name63); /* cut safely */
	assert_int_equal(o.tracking.stratum, 255);
	assert_near(o.tracking.system_time_offset_s, 1e10, 0);
	assert_near(o.tracking.last_offset_s, 0.5, 0);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_INSERT);
	assert_int_equal(o.n_sources, 6);
	static const chrony_source_mode modes[] = {CHRONY_MODE_PEER, CHRONY_MODE_REFCLOCK,
						   CHRONY_MODE_SERVER, CHRONY_MODE_SERVER,
						   CHRONY_MODE_SERVER, CHRONY_MODE_SERVER};
	static const chrony_source_state states[] = {
		CHRONY_STATE_COMBINED, CHRONY_STATE_NOT_COMBINED, CHRONY_STATE_FALSETICKER,
		CHRONY_STATE_JITTERY, CHRONY_STATE_UNUSABLE, CHRONY_STATE_SELECTED};
	static const unsigned reach[] = {0, 1, 7, 077, 0377, 0377};
	for (int i = 0; i < 6; i++) {
		assert_int_equal(o.sources[i].mode, modes[i]);
		assert_int_equal(o.sources[i].state, states[i]);
		assert_int_equal(o.sources[i].reach, reach[i]);
	}
	assert_int_equal(o.sources[0].poll, -32);
	assert_int_equal(o.sources[0].last_rx_s, 4294967294LL);
	assert_near(o.sources[0].adjusted_offset_s, -1e10, 0);
	assert_int_equal(o.sources[1].poll, 32);
	assert_string_equal(o.sources[1].name, "PPS");
	assert_int_equal(o.sources[4].last_rx_s, -1);
	assert_string_equal(o.sources[5].name, name63);
	assert_int_equal(o.n_sourcestats, 1);
	assert_int_equal(o.sourcestats[0].span_s, 2147483647);
	assert_near(o.sourcestats[0].frequency_ppm, -1e9, 0);

	csv("00000000,,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Delete second\n", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_DELETE);
	/* chronyc's own word for a leap value it does not know */
	csv("00000000,,0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,Invalid\n", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_UNKNOWN);
	/* "200 OK"-style informational lines and blank lines are skipped */
	csv("200 OK\n\n^,*,a,1,0,377,0,0,0,0\n", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sources, 1);
}

static void test_csv_caps_sources(void **state)
{
	(void)state;
	char buf[8192];
	size_t n = 0;
	n += (size_t)snprintf(buf + n, sizeof buf - n,
			      "0A4D0001,10.0.0.1,3,1796208353.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1.0,Normal\n");
	for (int i = 1; i <= 20; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n, "^,%c,10.0.0.%d,2,6,377,%d,0.%03d,0,0.001\n",
				      i == 1 ? '*' : '+', i, i, i);
	}
	for (int i = 1; i <= 20; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n, "10.0.0.%d,%d,3,100,0.0,0.1,0.0,0.0\n",
				      i, i);
	}
	assert_true(n < sizeof buf);
	chrony_obs o;
	csv(buf, 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sources, CHRONY_MAX_SOURCES);
	assert_int_equal(o.n_sources_total, 20);
	assert_string_equal(o.sources[0].name, "10.0.0.1");
	assert_string_equal(o.sources[15].name, "10.0.0.16");
	assert_int_equal(o.sources[15].last_rx_s, 16);
	assert_near(o.sources[15].adjusted_offset_s, 0.016, 1e-12);
	assert_int_equal(o.n_sourcestats, CHRONY_MAX_SOURCES);
	assert_string_equal(o.sourcestats[15].name, "10.0.0.16");
	assert_int_equal(o.sourcestats[15].samples, 16);

	/* exactly at the cap nothing is dropped */
	n = 0;
	for (int i = 1; i <= CHRONY_MAX_SOURCES; i++) {
		n += (size_t)snprintf(buf + n, sizeof buf - n, "^,+,s%d,2,6,377,1,0,0,0\n", i);
	}
	csv(buf, 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sources, CHRONY_MAX_SOURCES);
	assert_int_equal(o.n_sources_total, CHRONY_MAX_SOURCES);
	assert_string_equal(o.sources[CHRONY_MAX_SOURCES - 1].name, "s16");
}

/* ----------------------------------------------------------- error states */

static void test_unreachable_fixtures(void **state)
{
	(void)state;
	static const struct {
		const char *base;
		const char *quote;
	} cases[] = {
		{"chronyc-c-m-no-daemon", "Could not open connection to daemon"},
		{"chronyc-c-tracking-no-daemon-default", "506 Cannot talk to daemon"},
		{"chronyc-tracking-no-daemon-default", "506 Cannot talk to daemon"},
		{"chronyc-tracking-no-daemon-sock", "Could not open connection to daemon"},
		{"chronyc-sources-no-daemon-sock", "Could not open connection to daemon"},
		{"chronyc-error-relative-socket-path", "Could not open connection to daemon"},
		{"chronyc-socket-disabled-by-wrong-permissions", "Could not open connection to daemon"},
		{"chronyc-udp-remote-host-absent", "506 Cannot talk to daemon"},
		{"chronyc-udp-remote-no-cmdport-bound", "506 Cannot talk to daemon"},
	};
	parser_fn parsers[] = {chrony_parse_csv, chrony_parse_tracking_text};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (size_t p = 0; p < 2; p++) {
			/* all were captured with exit status 1; -1 = status unknown */
			int rcs[] = {1, -1};
			for (size_t r = 0; r < 2; r++) {
				chrony_obs o;
				parse_fixture(parsers[p], cases[i].base, rcs[r], &o);
				assert_state(&o, OBS_DAEMON_UNREACHABLE);
				assert_error_has(&o, cases[i].quote);
				assert_error_has(&o, "chronyd");
			}
		}
	}
}

static void test_unreachable_discards_partial_data(void **state)
{
	(void)state;
	chrony_obs o;
	csv("0A4D0001,10.77.0.1,9,1796208353.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,1.0,Normal\n"
	    "506 Cannot talk to daemon\n",
	    1, &o);
	assert_state(&o, OBS_DAEMON_UNREACHABLE); /* invariants: no tracking left */
	csv("506 Cannot talk to daemon\n", 0, &o);
	assert_state(&o, OBS_DAEMON_UNREACHABLE);
}

static void test_tool_missing(void **state)
{
	(void)state;
	chrony_obs o;
	parse_str(chrony_parse_csv, "", "sh: 1: chronyc: not found\n", 127, &o);
	assert_state(&o, OBS_TOOL_MISSING);
	assert_error_has(&o, "\"sh: 1: chronyc: not found\"");
	assert_error_has(&o, "PATH");

	/* the text, without an exit status */
	parse_str(chrony_parse_tracking_text, "", "bash: line 1: chronyc: command not found\n", -1,
		  &o);
	assert_state(&o, OBS_TOOL_MISSING);
	assert_error_has(&o, "chronyc: command not found");

	/* the exit status alone */
	parse_str(chrony_parse_csv, "", "", 127, &o);
	assert_state(&o, OBS_TOOL_MISSING);
	assert_error_has(&o, "127");

	/* login-shell noise first: quote the line that explains */
	parse_str(chrony_parse_csv, "",
		  "pyenv: cannot rehash: couldn't acquire lock\n"
		  "sh: 1: chronyc: not found\n",
		  127, &o);
	assert_state(&o, OBS_TOOL_MISSING);
	assert_error_has(&o, "sh: 1: chronyc: not found");

	/* missing wins over everything else */
	parse_str(chrony_parse_csv, "506 Cannot talk to daemon\n", "sh: 1: chronyc: not found\n", 1,
		  &o);
	assert_state(&o, OBS_TOOL_MISSING);
}

static void test_permission_denied(void **state)
{
	(void)state;
	chrony_obs o;
	/* `chronyc ntpdata` over UDP, as captured in the lab (exit 1) */
	csv("501 Not authorised\n", 1, &o);
	assert_state(&o, OBS_PERMISSION_DENIED);
	assert_error_has(&o, "\"501 Not authorised\"");
	text("501 Not authorised\n", 1, &o);
	assert_state(&o, OBS_PERMISSION_DENIED);
	csv("510 No command access from this host\n", 1, &o);
	assert_state(&o, OBS_PERMISSION_DENIED);
	assert_error_has(&o, "510 No command access");
}

static void test_command_failed(void **state)
{
	(void)state;
	chrony_obs o;
	csv("508 Bad reply from daemon\n", 1, &o);
	assert_state(&o, OBS_COMMAND_FAILED);
	assert_error_has(&o, "\"508 Bad reply from daemon\"");

	parse_str(chrony_parse_csv, "", "Segmentation fault\n", 139, &o);
	assert_state(&o, OBS_COMMAND_FAILED);
	assert_error_has(&o, "exit status 139");
	assert_error_has(&o, "\"Segmentation fault\"");

	parse_str(chrony_parse_tracking_text, "", "", 2, &o);
	assert_state(&o, OBS_COMMAND_FAILED);
	assert_error_has(&o, "exit status 2 and printed no error");

	/* a failing exit status outweighs data that looks fine */
	csv("^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,0.000010073\n", 1, &o);
	assert_state(&o, OBS_COMMAND_FAILED);
}

static void test_empty(void **state)
{
	(void)state;
	chrony_obs o;
	csv("", 0, &o);
	assert_state(&o, OBS_EMPTY);
	csv("", -1, &o);
	assert_state(&o, OBS_EMPTY);
	csv("\n\n  \n", 0, &o);
	assert_state(&o, OBS_EMPTY);
	csv("200 OK\n", 0, &o);
	assert_state(&o, OBS_EMPTY);
	text("", 0, &o);
	assert_state(&o, OBS_EMPTY);
	parse_str(chrony_parse_csv, "", "\nsomething odd\n", 0, &o);
	assert_state(&o, OBS_EMPTY);
	assert_error_has(&o, "\"something odd\"");

	/* NULL buffers with zero lengths are a valid "nothing" */
	tool_output t = {.out = NULL, .out_len = 0, .err = NULL, .err_len = 0, .rc = 0};
	chrony_parse_csv(&t, &o);
	check_invariants(&o);
	assert_state(&o, OBS_EMPTY);
	chrony_parse_tracking_text(&t, &o);
	assert_state(&o, OBS_EMPTY);
}

/* Whatever stderr holds, the message stays one printable, bounded line. */
static void test_error_quote_sanitised(void **state)
{
	(void)state;
	chrony_obs o;
	const char err[] = "\x1b[31mCould not open connection to daemon\x07\0\xff\r\nsecond line\n";
	parse_bytes(chrony_parse_csv, "", 0, err, sizeof err - 1, 1, &o);
	assert_state(&o, OBS_DAEMON_UNREACHABLE);
	assert_error_has(&o, "?[31mCould not open connection to daemon???");
	assert_null(strstr(o.error, "second line"));

	char big[4000];
	memset(big, 'e', sizeof big);
	parse_bytes(chrony_parse_csv, "", 0, big, sizeof big, 3, &o);
	assert_state(&o, OBS_COMMAND_FAILED);
	assert_true(strlen(o.error) < OBS_ERROR_LEN);
	assert_error_has(&o, "exit status 3");
	assert_error_has(&o, "...");
}

/* -------------------------------------------------------------- truncated */

static void test_csv_truncated(void **state)
{
	(void)state;
	chrony_obs o;
	csv("0A4D0001,10.77.0.1,9,1796208353.78", 0, &o);
	assert_state(&o, OBS_TRUNCATED);
	assert_error_has(&o, "line 1");
	csv("0A4D0001,10.77.0.1,9,1796208353.783676628,0.000003403,0.000000538,0.000000853,-0.380,"
	    "0.021,0.256,0.000020039,0.000002305,1.0,Norm",
	    0, &o);
	assert_state(&o, OBS_TRUNCATED);
	csv("^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,0.000010073\n^,+,10.77.0.2,9,-", 0, &o);
	assert_state(&o, OBS_TRUNCATED);
	assert_error_has(&o, "line 2");
	/* cut right after a comma: the last field is empty */
	csv("^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,", 0, &o);
	assert_state(&o, OBS_TRUNCATED);
	csv("^", 0, &o);
	assert_state(&o, OBS_TRUNCATED);
	/* a complete record that merely lacks its newline is kept */
	csv("^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,0.000010073", 0, &o);
	assert_state(&o, OBS_OK);
	/* an unterminated line that could never become a record is garbage */
	csv("^,*,10.77.0.1,8,zz", 0, &o);
	assert_state(&o, OBS_GARBAGE);
	csv("hello world", 0, &o);
	assert_state(&o, OBS_GARBAGE);
	/* the same shapes with their newline are not cut, just wrong */
	csv("^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,\n", 0, &o);
	assert_state(&o, OBS_GARBAGE);
	csv("^,*,10.77.0.1,8\n", 0, &o);
	assert_state(&o, OBS_GARBAGE);
}

static size_t count_char(const char *p, size_t n, char c)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		k += p[i] == c;
	}
	return k;
}

/* Cut the combined lab output at every byte: never garbage, never data that
 * was not there. */
static void test_csv_cut_everywhere(void **state)
{
	(void)state;
	size_t len;
	char *full = read_fixture("chronyc-c-m-tracking-sources-sourcestats-synced.txt", &len);
	for (size_t cut = 1; cut < len; cut++) {
		chrony_obs o;
		parse_bytes(chrony_parse_csv, full, cut, "", 0, 0, &o);
		size_t line_start = cut;
		while (line_start > 0 && full[line_start - 1] != '\n') {
			line_start--;
		}
		size_t whole_lines = count_char(full, line_start, '\n');
		if (line_start == cut) {
			assert_state(&o, OBS_OK);
		} else {
			const char *nl = memchr(full + line_start, '\n', len - line_start);
			size_t line_len = (size_t)(nl - (full + line_start));
			size_t commas_full = count_char(full + line_start, line_len, ',');
			size_t commas_cut = count_char(full + line_start, cut - line_start, ',');
			bool field_empty = full[cut - 1] == ',';
			if (commas_cut < commas_full || field_empty ||
			    (whole_lines == 0 && cut - line_start < line_len)) {
				/* fields missing, or the tracking line's leap status cut */
				assert_state(&o, OBS_TRUNCATED);
				continue;
			}
			/* inside a final number: indistinguishable from a record */
			assert_state(&o, OBS_OK);
			whole_lines++;
		}
		assert_int_equal(o.tracking.has_reference_id, whole_lines >= 1);
		size_t srcs = whole_lines > 3 ? 2 : (whole_lines > 1 ? whole_lines - 1 : 0);
		assert_int_equal(o.n_sources, srcs);
		assert_int_equal(o.n_sourcestats, whole_lines > 3 ? whole_lines - 3 : 0);
	}
	free(full);
}

/* ---------------------------------------------------------------- garbage */

/* line (no newline) with field `index` replaced by value, plus "\n" */
static void replace_field(const char *line, int index, const char *value, char *buf, size_t cap)
{
	size_t o = 0;
	int f = 0;
	const char *p = line;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const char *src = f == index ? value : p;
		size_t sn = f == index ? strlen(value) : n;
		assert_true(o + sn + 3 < cap);
		memcpy(buf + o, src, sn);
		o += sn;
		if (!comma) {
			break;
		}
		buf[o++] = ',';
		p = comma + 1;
		f++;
	}
	buf[o++] = '\n';
	buf[o] = '\0';
}

#define T_LINE                                                                      \
	"0A4D0001,10.77.0.1,9,1796208353.783676628,0.000003403,0.000000538,0.000000853," \
	"-0.380,0.021,0.256,0.000020039,0.000002305,1.0,Normal"
#define S_LINE "^,*,10.77.0.1,8,0,377,0,0.000000426,0.000000964,0.000010073"
#define X_LINE "10.77.0.1,19,10,18,0.287,0.364,-0.000000129,0.000002151"

static void test_csv_bad_fields(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		int field;
		const char *bad;
		const char *what;
	} cases[] = {
		{T_LINE, 0, "0A4D00", "reference ID"},
		{T_LINE, 0, "0A4D000G", "reference ID"},
		{T_LINE, 0, "0A4D00011", "reference ID"},
		{T_LINE, 0, "", "reference ID"},
		{T_LINE, 2, "256", "stratum"},
		{T_LINE, 2, "-1", "stratum"},
		{T_LINE, 2, "9.0", "stratum"},
		{T_LINE, 2, "0x9", "stratum"},
		{T_LINE, 2, "", "stratum"},
		{T_LINE, 3, "-1.0", "reference time"},
		{T_LINE, 3, "1.8e9", "reference time"},
		{T_LINE, 3, "1796208353.78.3", "reference time"},
		{T_LINE, 3, "100000000000.5", "reference time"},
		{T_LINE, 4, "nan", "system time"},
		{T_LINE, 4, "NaN", "system time"},
		{T_LINE, 4, "inf", "system time"},
		{T_LINE, 4, "-inf", "system time"},
		{T_LINE, 4, "infinity", "system time"},
		{T_LINE, 4, "1e-5", "system time"},
		{T_LINE, 4, "0x1p-3", "system time"},
		{T_LINE, 4, " 0.5", "system time"},
		{T_LINE, 4, "0.5 ", "system time"},
		{T_LINE, 4, "0.5abc", "system time"},
		{T_LINE, 4, "abc", "system time"},
		{T_LINE, 4, "", "system time"},
		{T_LINE, 4, "--1", "system time"},
		{T_LINE, 4, "+-1", "system time"},
		{T_LINE, 4, ".5", "system time"},
		{T_LINE, 4, "-", "system time"},
		{T_LINE, 4, "10000000001.0", "system time"},
		{T_LINE, 4, "0.00000000000000000000000000000000000000001", "system time"},
		{T_LINE, 5, "1.0.0", "last offset"},
		{T_LINE, 6, "-0.1", "RMS offset"},
		{T_LINE, 7, "1000000001.0", "frequency"},
		{T_LINE, 9, "-0.001", "skew"},
		{T_LINE, 10, "-1.0", "root delay"},
		{T_LINE, 12, "-1.0", "update interval"},
		{T_LINE, 13, "Maybe", "leap status"},
		{T_LINE, 13, "normal", "leap status"},
		{T_LINE, 13, "Normal ", "leap status"},
		{T_LINE, 13, "Not synchronized", "leap status"},
		{T_LINE, 13, "", "leap status"},
		{S_LINE, 0, "!", "mode"},
		{S_LINE, 0, "^^", "mode"},
		{S_LINE, 0, "", "mode"},
		{S_LINE, 1, "!", "state"},
		{S_LINE, 1, "**", "state"},
		{S_LINE, 1, "", "state"},
		{S_LINE, 2, "", "name"},
		{S_LINE, 3, "256", "stratum"},
		{S_LINE, 4, "33", "poll"},
		{S_LINE, 4, "-33", "poll"},
		{S_LINE, 4, "1.5", "poll"},
		{S_LINE, 5, "400", "reach"},
		{S_LINE, 5, "8", "reach"},
		{S_LINE, 5, "-1", "reach"},
		{S_LINE, 5, "", "reach"},
		{S_LINE, 5, "3777777", "reach"},
		{S_LINE, 6, "4294967296", "last rx"},
		{S_LINE, 6, "-1", "last rx"},
		{S_LINE, 6, "1.0", "last rx"},
		{S_LINE, 7, "nan", "adjusted offset"},
		{S_LINE, 7, "1e3", "adjusted offset"},
		{S_LINE, 8, "inf", "measured offset"},
		{S_LINE, 9, "-0.000001", "error"},
		{X_LINE, 0, "", "name"},
		{X_LINE, 1, "-1", "samples"},
		{X_LINE, 1, "65536", "samples"},
		{X_LINE, 2, "x", "runs"},
		{X_LINE, 3, "2147483648", "span"},
		{X_LINE, 4, "nan", "frequency"},
		{X_LINE, 5, "-1.0", "frequency skew"},
		{X_LINE, 6, "inf", "offset"},
		{X_LINE, 7, "-0.5", "std dev"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char line[512], want[64];
		replace_field(cases[i].line, cases[i].field, cases[i].bad, line, sizeof line);
		chrony_obs o;
		csv(line, 0, &o);
		if (o.state != OBS_GARBAGE) {
			fail_msg("case %zu (%s) gave \"%s\"", i, line, obs_state_name(o.state));
		}
		snprintf(want, sizeof want, "field %d (%s)", cases[i].field + 1, cases[i].what);
		assert_error_has(&o, want);
		assert_error_has(&o, "line 1");
	}
}

static void test_csv_garbage_shapes(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"hello world\n",
		"0A4D0001,10.77.0.1,9,1796208353.78\n",              /* 4 fields */
		"^,*,10.77.0.1,8,0,377,0,0.1,0.1\n",                 /* 9 */
		"^,*,10.77.0.1,8,0,377,0,0.1,0.1,0.1,0.1\n",         /* 11 */
		T_LINE ",extra\n",                                    /* 15 */
		",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n",      /* 42 */
		",,,,,,,\n",                                          /* 8 empty */
		"300 Multiple Choices\n",
		/* the reports must come in the order asked for */
		S_LINE "\n" T_LINE "\n",
		T_LINE "\n" T_LINE "\n",
		X_LINE "\n" S_LINE "\n",
		/* good records, then rubbish: nothing may survive */
		T_LINE "\n" S_LINE "\n" X_LINE "\nbogus\n",
		/* the human format fed to the CSV parser */
		"Reference ID    : 0A4D0001 (10.77.0.1)\nStratum         : 9\n",
		/* a tab, and a UTF-8 name */
		"^,*,10.77.0.1\t,8,0,377,0,0.1,0.1,0.1\n",
		"^,*,h\xc3\xa9te,8,0,377,0,0.1,0.1,0.1\n",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		chrony_obs o;
		csv(cases[i], 0, &o);
		if (o.state != OBS_GARBAGE) {
			fail_msg("case %zu gave \"%s\"", i, obs_state_name(o.state));
		}
	}
	chrony_obs o;
	csv(S_LINE "\n" T_LINE "\n", 0, &o);
	assert_error_has(&o, "tracking record after sources records");
	csv("hello world\n", 0, &o);
	assert_error_has(&o, "\"hello world\"");
}

/* Other chronyc reports are valid CSV but not ours: they must not be taken
 * for tracking or sources records. */
static void test_csv_other_reports_rejected(void **state)
{
	(void)state;
	const char *bases[] = {"chronyc-c-clients-server", "chronyc-c-activity-synced",
			       "chronyc-c-ntpdata-synced"};
	for (size_t i = 0; i < 3; i++) {
		chrony_obs o;
		parse_fixture(chrony_parse_csv, bases[i], 0, &o);
		assert_state(&o, OBS_GARBAGE);
	}
	chrony_obs o;
	parse_fixture(chrony_parse_csv, "chronyc-tracking-synced", 0, &o);
	assert_state(&o, OBS_GARBAGE);
}

static void test_nul_and_huge_lines(void **state)
{
	(void)state;
	chrony_obs o;
	const char nul[] = "^,*,10.77\0.0.1,8,0,377,0,0.1,0.1,0.1\n";
	parse_bytes(chrony_parse_csv, nul, sizeof nul - 1, "", 0, 0, &o);
	assert_state(&o, OBS_GARBAGE);
	assert_error_has(&o, "0x00");
	parse_bytes(chrony_parse_tracking_text, nul, sizeof nul - 1, "", 0, 0, &o);
	assert_state(&o, OBS_GARBAGE);
	const char nul_text[] = "Stratum         : 9\0\n";
	parse_bytes(chrony_parse_tracking_text, nul_text, sizeof nul_text - 1, "", 0, 0, &o);
	assert_state(&o, OBS_GARBAGE);

	size_t big = 200000;
	char *huge = malloc(big);
	assert_non_null(huge);
	parser_fn parsers[] = {chrony_parse_csv, chrony_parse_tracking_text};
	for (size_t p = 0; p < 2; p++) {
		memset(huge, 'A', big);
		huge[big - 1] = '\n';
		parse_bytes(parsers[p], huge, big, "", 0, 0, &o);
		assert_state(&o, OBS_GARBAGE);
		assert_error_has(&o, "longer than");
		/* unterminated: still garbage, not "cut short" */
		parse_bytes(parsers[p], huge, big - 1, "", 0, 0, &o);
		assert_state(&o, OBS_GARBAGE);
		memset(huge, ',', big);
		parse_bytes(parsers[p], huge, big, "", 0, 0, &o);
		assert_state(&o, OBS_GARBAGE);
		/* a huge stderr with a failure is quoted, bounded */
		memset(huge, 'x', big);
		parse_bytes(parsers[p], "", 0, huge, big, 1, &o);
		assert_state(&o, OBS_COMMAND_FAILED);
		/* many short lines are fine: only the first 16 sources are kept */
	}
	size_t n = 0, lines = 5000;
	const char row[] = "^,+,10.1.2.3,2,6,377,1,0.000001,0.000002,0.001\n";
	char *many = malloc(lines * (sizeof row - 1));
	assert_non_null(many);
	for (size_t i = 0; i < lines; i++) {
		memcpy(many + n, row, sizeof row - 1);
		n += sizeof row - 1;
	}
	parse_bytes(chrony_parse_csv, many, n, "", 0, 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.n_sources, CHRONY_MAX_SOURCES);
	assert_int_equal(o.n_sources_total, (int)lines);
	free(many);
	free(huge);
}

/* ------------------------------------------------------------------ signs */

/* CSV and text of the same state: text says "slow", CSV a positive number,
 * and synctop a negative offset (node behind). */
static void test_sign_tracking_csv_vs_text(void **state)
{
	(void)state;
	static const struct {
		const char *csv, *text;
		double system_time, frequency;
	} pairs[] = {
		/* "0.000004926 seconds slow", "0.204 ppm slow"; CSV 0.000004930, -0.204 */
		{"chronyc-c-tracking-synced", "chronyc-tracking-synced", -0.000004926, -0.204},
		/* "0.000002077 seconds slow", "0.037 ppm fast"; CSV 0.000002076, 0.037 */
		{"chronyc-c-tracking-node3-two-sources", "chronyc-tracking-node3-two-sources",
		 -0.000002077, 0.037},
	};
	for (size_t i = 0; i < 2; i++) {
		chrony_obs c, t;
		parse_fixture(chrony_parse_csv, pairs[i].csv, 0, &c);
		parse_fixture(chrony_parse_tracking_text, pairs[i].text, 0, &t);
		assert_state(&c, OBS_OK);
		assert_state(&t, OBS_OK);
		assert_near(t.tracking.system_time_offset_s, pairs[i].system_time, 1e-12);
		assert_true(c.tracking.system_time_offset_s < 0);
		/* taken a moment apart: a few ns may differ, the sign may not */
		assert_near(c.tracking.system_time_offset_s, t.tracking.system_time_offset_s, 1e-8);
		assert_near(t.tracking.frequency_ppm, pairs[i].frequency, 1e-9);
		assert_near(c.tracking.frequency_ppm, t.tracking.frequency_ppm, 1e-9);
		assert_near(c.tracking.last_offset_s, t.tracking.last_offset_s, 1e-12);
		assert_near(c.tracking.residual_frequency_ppm, t.tracking.residual_frequency_ppm, 1e-9);
		assert_int_equal(c.tracking.reference_id, t.tracking.reference_id);
		assert_string_equal(c.tracking.reference_name, t.tracking.reference_name);
		assert_int_equal(c.tracking.stratum, t.tracking.stratum);
		assert_near(floor(c.tracking.ref_time), t.tracking.ref_time, 0);
	}

	/* "fast" on both lines: node ahead, uncorrected clock gaining */
	chrony_obs t;
	parse_fixture(chrony_parse_tracking_text, "chronyc-tracking-node2-startup", 0, &t);
	assert_near(t.tracking.system_time_offset_s, 0.000000003, 1e-15);
	assert_near(t.tracking.frequency_ppm, 0.089, 1e-9);

	/* CSV negative system time = chrony "fast" = node ahead */
	chrony_obs c;
	csv("0A4D0001,a,3,1.0,-0.25,-0.5,0.0,-1.5,0.0,0.0,0.0,0.0,1.0,Normal\n", 0, &c);
	assert_near(c.tracking.system_time_offset_s, 0.25, 0);
	assert_near(c.tracking.last_offset_s, -0.5, 0);
	assert_near(c.tracking.frequency_ppm, -1.5, 0);
}

/* The line after `line` in a NUL-terminated text, NULL at the end. */
static char *next_text_line(char *line)
{
	char *nl = strchr(line, '\n');
	return nl && nl[1] ? nl + 1 : NULL;
}

/* "+963ns" -> 9.63e-7; the text form's units are ns, us, ms or s. */
static double text_seconds(const char *p, size_t n, double *unit)
{
	char buf[32];
	assert_true(n > 0 && n < sizeof buf);
	memcpy(buf, p, n);
	buf[n] = '\0';
	char *end;
	double v = strtod(buf, &end);
	if (strcmp(end, "ns") == 0) {
		*unit = 1e-9;
	} else if (strcmp(end, "us") == 0) {
		*unit = 1e-6;
	} else if (strcmp(end, "ms") == 0) {
		*unit = 1e-3;
	} else {
		assert_string_equal(end, "s");
		*unit = 1;
	}
	return v * *unit;
}

static size_t skip_spaces_back(const char *s, size_t i)
{
	while (i > 0 && s[i - 1] == ' ') {
		i--;
	}
	return i;
}

/* chronyc docs: "Positive offsets indicate that the local clock is ahead of
 * the source" - and the CSV carries the same sign as the text. */
static void test_sign_sources_csv_vs_text(void **state)
{
	(void)state;
	static const struct {
		const char *text, *csv;
	} pairs[] = {
		{"chronyc-sources-synced.txt", "chronyc-c-sources-synced"},
		{"chronyc-n-sources-node3.txt", "chronyc-c-n-sources-node3"},
	};
	for (size_t i = 0; i < 2; i++) {
		chrony_obs c;
		parse_fixture(chrony_parse_csv, pairs[i].csv, 0, &c);
		assert_state(&c, OBS_OK);
		size_t len;
		char *txt = read_fixture(pairs[i].text, &len);
		int row = 0;
		for (char *line = txt; line; line = next_text_line(line)) {
			/* rows start "^* ", not the "====" rule under the header */
			if (!strchr("^=#", line[0]) || line[1] == '\0' ||
			    !strchr("*+-x~?", line[1]) || line[2] != ' ') {
				continue;
			}
			/* "^* 10.77.0.1   8   0   377     1   +963ns[+1553ns] +/- 6160ns" */
			char *open = strchr(line, '[');
			char *close = strchr(line, ']');
			assert_non_null(open);
			assert_non_null(close);
			size_t end = skip_spaces_back(line, (size_t)(open - line));
			size_t start = end;
			while (start > 0 && line[start - 1] != ' ') {
				start--;
			}
			double unit;
			double adjusted = text_seconds(line + start, end - start, &unit);
			const char *m = open + 1;
			while (*m == ' ') {
				m++;
			}
			double unit_m;
			double measured = text_seconds(m, (size_t)(close - m), &unit_m);
			assert_true(row < c.n_sources);
			const chrony_source *s = &c.sources[row];
			assert_true((adjusted > 0) == (s->adjusted_offset_s > 0));
			assert_true((measured > 0) == (s->measured_offset_s > 0));
			assert_near(s->adjusted_offset_s, adjusted, unit / 2);
			assert_near(s->measured_offset_s, measured, unit_m / 2);
			row++;
		}
		assert_int_equal(row, c.n_sources);
		free(txt);
	}
	/* a negative sample (local clock behind the source) stays negative */
	chrony_obs c;
	csv("^,*,10.77.0.1,8,0,377,0,-0.25,0.5,0.001\n", 0, &c);
	assert_near(c.sources[0].adjusted_offset_s, -0.25, 0);
	assert_near(c.sources[0].measured_offset_s, 0.5, 0);
}

/* sourcestats "Offset": chrony's estimated offset, local clock fast = +, as
 * printed in both forms.  Text and CSV were taken moments apart. */
static void test_sign_sourcestats_csv_vs_text(void **state)
{
	(void)state;
	static const struct {
		const char *text, *csv;
	} pairs[] = {
		{"chronyc-sourcestats-v-synced.txt", "chronyc-c-sourcestats-synced"},
		{"chronyc-sourcestats-unsync.txt", "chronyc-c-sourcestats-unsync"},
	};
	for (size_t i = 0; i < 2; i++) {
		chrony_obs c;
		parse_fixture(chrony_parse_csv, pairs[i].csv, 0, &c);
		assert_state(&c, OBS_OK);
		size_t len;
		char *txt = read_fixture(pairs[i].text, &len);
		int matched = 0;
		for (int k = 0; k < c.n_sourcestats; k++) {
			const char *name = c.sourcestats[k].name;
			size_t nl = strlen(name);
			for (char *line = txt; line; line = next_text_line(line)) {
				if (strncmp(line, name, nl) != 0 || line[nl] != ' ') {
					continue;
				}
				/* Name NP NR Span Frequency FreqSkew Offset StdDev */
				char copy[128];
				size_t ll = strcspn(line, "\n");
				assert_true(ll < sizeof copy);
				memcpy(copy, line, ll);
				copy[ll] = '\0';
				char *tok = strtok(copy, " ");
				for (int f = 0; f < 6; f++) {
					tok = strtok(NULL, " ");
					assert_non_null(tok);
				}
				double unit;
				double offset = text_seconds(tok, strlen(tok), &unit);
				assert_true((offset > 0) == (c.sourcestats[k].offset_s > 0));
				assert_true((offset < 0) == (c.sourcestats[k].offset_s < 0));
				assert_near(c.sourcestats[k].offset_s, offset, 2 * unit);
				matched++;
			}
		}
		assert_int_equal(matched, c.n_sourcestats);
		free(txt);
	}
}

/* ----------------------------------------------------------- tracking text */

static void test_text_synced(void **state)
{
	(void)state;
	chrony_obs o;
	parse_fixture(chrony_parse_tracking_text, "chronyc-tracking-synced", 0, &o);
	assert_state(&o, OBS_OK);
	const chrony_tracking *t = &o.tracking;
	assert_true(t->has_reference_id);
	assert_int_equal(t->reference_id, 0x0A4D0001u);
	assert_string_equal(t->reference_name, "10.77.0.1");
	assert_int_equal(t->stratum, 9);
	/* Wed Dec 02 10:38:17 2026 UTC; the CSV of the moment says 1796207897.075 */
	assert_near(t->ref_time, 1796207897.0, 0);
	assert_near(t->system_time_offset_s, -0.000004926, 1e-15);
	assert_near(t->last_offset_s, -0.000001901, 1e-15);
	assert_near(t->rms_offset_s, 0.000001169, 1e-15);
	assert_near(t->frequency_ppm, -0.204, 1e-12);
	assert_near(t->residual_frequency_ppm, -0.270, 1e-12);
	assert_near(t->skew_ppm, 1.018, 1e-12);
	assert_near(t->root_delay_s, 0.000014929, 1e-15);
	assert_near(t->root_dispersion_s, 0.000004068, 1e-15);
	assert_near(t->update_interval_s, 1.0, 0);
	assert_int_equal(t->leap, CHRONY_LEAP_NORMAL);
	assert_int_equal(o.n_sources, 0);
	assert_int_equal(o.n_sources_total, 0);
}

static void test_text_other_fixtures(void **state)
{
	(void)state;
	chrony_obs o;

	parse_fixture(chrony_parse_tracking_text, "chronyc-tracking-node2-startup", 0, &o);
	assert_state(&o, OBS_OK);
	assert_true(o.tracking.has_reference_id);
	assert_int_equal(o.tracking.reference_id, 0);
	assert_string_equal(o.tracking.reference_name, "");
	assert_int_equal(o.tracking.stratum, 0);
	assert_near(o.tracking.ref_time, 0, 0); /* Thu Jan 01 00:00:00 1970 */
	assert_near(o.tracking.root_delay_s, 1.0, 0);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_UNSYNC);

	const char *unsync[] = {"chronyc-tracking-unsync", "chronyc-tracking-node4-unsync-startup"};
	for (size_t i = 0; i < 2; i++) {
		parse_fixture(chrony_parse_tracking_text, unsync[i], 0, &o);
		assert_state(&o, OBS_OK);
		assert_int_equal(o.tracking.leap, CHRONY_LEAP_UNSYNC);
		/* "0.000 ppm slow" is zero, not minus zero */
		assert_near(o.tracking.frequency_ppm, 0, 0);
		assert_false(signbit(o.tracking.frequency_ppm));
		assert_false(signbit(o.tracking.system_time_offset_s));
		assert_near(o.tracking.root_dispersion_s, 1.0, 0);
	}

	parse_fixture(chrony_parse_tracking_text, "chronyc-tracking-server-local-stratum8", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0x7F7F0101u);
	assert_string_equal(o.tracking.reference_name, "");
	assert_int_equal(o.tracking.stratum, 8);
	assert_near(o.tracking.ref_time, 1796207834.0, 0); /* CSV: 1796207834.753710770 */
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_NORMAL);

	parse_fixture(chrony_parse_tracking_text, "chronyc-tracking-node3-two-sources", 0, &o);
	assert_state(&o, OBS_OK);
	assert_near(o.tracking.ref_time, 1796207926.0, 0); /* CSV: 1796207926.101989142 */
	assert_near(o.tracking.last_offset_s, 0.000000590, 1e-15);
	assert_near(o.tracking.root_dispersion_s, 0.000002461, 1e-15);
}

static void test_text_missing_lines_stay_unknown(void **state)
{
	(void)state;
	chrony_obs o;
	text("Stratum         : 3\nLeap status     : Insert second\n", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.stratum, 3);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_INSERT);
	assert_false(o.tracking.has_reference_id);
	assert_true(isnan(o.tracking.ref_time));
	assert_true(isnan(o.tracking.system_time_offset_s));
	assert_true(isnan(o.tracking.frequency_ppm));
	assert_true(isnan(o.tracking.root_delay_s));

	/* chrony before 3.0 printed the reference ID dotted; a line a newer
	 * chrony might add is ignored; blank lines too */
	text("\nReference ID    : 10.77.0.1 (ntp.example.net)\nShiny new field : 42\n"
	     "Ref time (UTC)  : Thu Feb 29 12:00:00 2024\n",
	     0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.reference_id, 0x0A4D0001u);
	assert_string_equal(o.tracking.reference_name, "ntp.example.net");
	assert_near(o.tracking.ref_time, 1709208000.0, 0);
	assert_int_equal(o.tracking.stratum, INT_UNKNOWN);

	/* a complete last line without its newline is kept */
	text("Leap status     : Delete second", 0, &o);
	assert_state(&o, OBS_OK);
	assert_int_equal(o.tracking.leap, CHRONY_LEAP_DELETE);
}

static void test_text_garbage(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"hello\n",
		"Shiny new field : 42\n", /* nothing we know */
		"Stratum         : abc\n",
		"Stratum         : 256\n",
		"Stratum         : 9\nStratum         : 9\n",
		"System time     : 0.1 seconds sideways of NTP time\n",
		"System time     : -0.1 seconds slow of NTP time\n",
		"System time     : 0.1 seconds slow\n",
		"System time     : nan seconds slow of NTP time\n",
		"Last offset     : +0.1\n",
		"Last offset     : +0.1 seconds extra\n",
		"RMS offset      : 0.1 minutes\n",
		"Frequency       : 0.204 ppm\n",
		"Frequency       : inf ppm slow\n",
		"Skew            : -1.0 ppm\n",
		"Ref time (UTC)  : Wed Feb 30 00:00:00 2026\n",
		"Ref time (UTC)  : Mon Dec 02 10:38:17 2026\n", /* it was a Wednesday */
		"Ref time (UTC)  : Wed Foo 02 10:38:17 2026\n",
		"Ref time (UTC)  : Wed Dec 02 24:38:17 2026\n",
		"Ref time (UTC)  : Wed Dec 2 10:38:17 2026\n",
		"Ref time (UTC)  : Wed Dec 02 10:38:17 2026 extra\n",
		"Leap status     : Maybe\n",
		"Reference ID    : 0A4D0001 10.77.0.1\n",
		"Reference ID    : 10.77.0.256 (x)\n",
		"Reference ID    : 10.77.0 (x)\n",
		"Reference ID    : 0A4D001 (x)\n",
		"Stratum         : 9\n0A4D0001,10.77.0.1,9\n",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		chrony_obs o;
		text(cases[i], 0, &o);
		if (o.state != OBS_GARBAGE) {
			fail_msg("case %zu (%s) gave \"%s\"", i, cases[i], obs_state_name(o.state));
		}
	}
	chrony_obs o;
	text("Stratum         : 9\nStratum         : 9\n", 0, &o);
	assert_error_has(&o, "appears twice");
	text("Skew            : -1.0 ppm\n", 0, &o);
	assert_error_has(&o, "bad Skew");
	assert_error_has(&o, "line 1");
	/* the CSV form fed to the text parser */
	parse_fixture(chrony_parse_tracking_text, "chronyc-c-tracking-synced", 0, &o);
	assert_state(&o, OBS_GARBAGE);
}

/* Cut the human report at every byte: a cut line is "truncated", a whole
 * line (even without its newline) is data. */
static void test_text_cut_everywhere(void **state)
{
	(void)state;
	size_t len;
	char *full = read_fixture("chronyc-tracking-synced.txt", &len);
	for (size_t cut = 1; cut < len; cut++) {
		chrony_obs o;
		parse_bytes(chrony_parse_tracking_text, full, cut, "", 0, 0, &o);
		size_t line_start = cut;
		while (line_start > 0 && full[line_start - 1] != '\n') {
			line_start--;
		}
		bool whole = line_start == cut || full[cut] == '\n';
		if (whole) {
			assert_state(&o, OBS_OK);
		} else {
			assert_state(&o, OBS_TRUNCATED);
		}
	}
	free(full);
}

/* ------------------------------------------------------------------- fuzz */

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Random bytes and random edits of real output: any state is acceptable,
 * crashing, overreading or breaking the invariants is not. */
static void test_fuzz(void **state)
{
	(void)state;
	static const char alphabet[] = "0123456789,,,,..--+^=#*?x~ ANormalNot synchronised:()\n\n\0\r\xff";
	size_t len;
	char *base = read_fixture("chronyc-c-m-tracking-sources-sourcestats-synced.txt", &len);
	size_t tlen;
	char *tbase = read_fixture("chronyc-tracking-synced.txt", &tlen);
	uint32_t seed = 12345;
	char buf[1200];
	int ok = 0;
	for (int iter = 0; iter < 6000; iter++) {
		size_t n;
		int kind = iter % 3;
		if (kind == 0) {
			n = lcg(&seed) % 300;
			for (size_t i = 0; i < n; i++) {
				buf[i] = alphabet[lcg(&seed) % (sizeof alphabet - 1)];
			}
		} else {
			const char *src = kind == 1 ? base : tbase;
			n = kind == 1 ? len : tlen;
			assert_true(n <= sizeof buf);
			memcpy(buf, src, n);
			int edits = 1 + (int)(lcg(&seed) % 4);
			for (int e = 0; e < edits; e++) {
				buf[lcg(&seed) % n] = (char)(lcg(&seed) & 0xff);
			}
			n -= lcg(&seed) % 3 == 0 ? lcg(&seed) % n : 0;
		}
		chrony_obs o;
		int rc = (int)(lcg(&seed) % 4) - 1;
		parse_bytes(chrony_parse_csv, buf, n, buf, n / 2, rc == 2 ? 0 : rc, &o);
		ok += o.state == OBS_OK;
		parse_bytes(chrony_parse_tracking_text, buf, n, "", 0, 0, &o);
	}
	assert_true(ok > 0); /* the edits sometimes leave valid output */
	free(base);
	free(tbase);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csv_combined_synced),
		cmocka_unit_test(test_csv_combined_unsync),
		cmocka_unit_test(test_csv_tracking_fixtures),
		cmocka_unit_test(test_csv_sources_fixtures),
		cmocka_unit_test(test_csv_sourcestats_fixtures),
		cmocka_unit_test(test_csv_server_without_sources),
		cmocka_unit_test(test_csv_stderr_noise_ignored),
		cmocka_unit_test(test_csv_crlf_lines),
		cmocka_unit_test(test_csv_accepts_limits),
		cmocka_unit_test(test_csv_caps_sources),
		cmocka_unit_test(test_unreachable_fixtures),
		cmocka_unit_test(test_unreachable_discards_partial_data),
		cmocka_unit_test(test_tool_missing),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_command_failed),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_error_quote_sanitised),
		cmocka_unit_test(test_csv_truncated),
		cmocka_unit_test(test_csv_cut_everywhere),
		cmocka_unit_test(test_csv_bad_fields),
		cmocka_unit_test(test_csv_garbage_shapes),
		cmocka_unit_test(test_csv_other_reports_rejected),
		cmocka_unit_test(test_nul_and_huge_lines),
		cmocka_unit_test(test_sign_tracking_csv_vs_text),
		cmocka_unit_test(test_sign_sources_csv_vs_text),
		cmocka_unit_test(test_sign_sourcestats_csv_vs_text),
		cmocka_unit_test(test_text_synced),
		cmocka_unit_test(test_text_other_fixtures),
		cmocka_unit_test(test_text_missing_lines_stay_unknown),
		cmocka_unit_test(test_text_garbage),
		cmocka_unit_test(test_text_cut_everywhere),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
