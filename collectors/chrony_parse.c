/* chrony_parse.c - chronyc output (the -c CSV records, or the human tracking
 * report) into a chrony_obs.
 *
 * Pure: no I/O, no allocation, no globals.  The text is untrusted and not
 * NUL-terminated, so every read is bounded by the lengths in tool_output, and
 * nothing from it is ever used as a format string.  Error states are decided
 * before any data is parsed: a failed chronyc may still print half a report.
 *
 * Names (addresses, host names, refclock IDs) never contain spaces or
 * commas in chronyc's output, so a field that does is garbage.
 *
 * Truncation: chronyc ends every record with "\n", so a last line without one
 * is where the stream was cut.  If that line is a proper start of a record
 * (or a complete count of fields whose last one is still incomplete, e.g.
 * "Norm"), the state is OBS_TRUNCATED; a cut that happens to leave a complete,
 * valid record (e.g. inside a final number) cannot be told apart and is kept.
 */
#include <config.h>

#include "chrony_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_span.h"

/* A genuine line is under 450 bytes even with a 255-byte host name. */
#define MAX_LINE 1024
/* chronyc prints at most 14 fields; one more tells "too many" apart. */
#define MAX_FIELDS 15
/* Longest number we accept; chronyc's longest is about 22 characters. */
#define NUM_LEN TEXT_SPAN_NUM_LEN
/* How much remote text an error message quotes. */
#define QUOTE_LEN 80

/* Sanity limits: beyond these a value is not a measurement but garbage. */
#define SECONDS_MAX 1e10  /* ~317 years: more than any real clock error */
#define PPM_MAX 1e9       /* chrony's own skew bound is 1e8 ppm (MAX_SKEW) */
#define UNIX_TIME_MAX 1e11
#define LAST_RX_NEVER 4294967295.0 /* (uint32_t)-1: no sample yet */

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* ------------------------------------------------------------ text helpers */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

static bool is_printable(char c)
{
	return c >= 0x20 && c <= 0x7e;
}

/* Bounded copy into dst, printable ASCII only (anything else becomes '?');
 * a cut is marked with "..." so a person sees the text goes on. */
static void sanitize(text_span s, char *dst, size_t cap)
{
	s = text_span_trim(s);
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	for (size_t i = 0; i < n; i++) {
		dst[i] = is_printable(s.p[i]) ? s.p[i] : '?';
	}
	dst[n] = '\0';
	if (s.n > n && cap > 4) {
		memcpy(dst + cap - 4, "...", 4);
	}
}

/* Bounded copy of text already known to be printable; cuts silently. */
static void copy_name(text_span s, char *dst, size_t cap)
{
	size_t n = s.n < cap - 1 ? s.n : cap - 1;
	if (n > 0) { /* an empty text_span may have no pointer at all */
		memcpy(dst, s.p, n);
	}
	dst[n] = '\0';
}

/* ----------------------------------------------------------------- lines */

typedef struct {
	const char *buf;
	size_t len;
	size_t pos;
	int number; /* 1-based number of the line last returned */
} line_reader;

static line_reader reader_of(const char *buf, size_t len)
{
	line_reader r = {.buf = buf, .len = buf ? len : 0, .pos = 0, .number = 0};
	return r;
}

/* Next line without its "\n" (nor a "\r" before it, in case a pty was in the
 * way); *terminated says whether the newline was there. */
static bool next_line(line_reader *r, text_span *line, bool *terminated)
{
	text_span rest = {r->buf + r->pos, r->len - r->pos};
	if (!text_span_next_line(&rest, line, terminated)) {
		return false;
	}
	r->pos = r->len - rest.n;
	r->number++;
	return true;
}

static bool is_blank(text_span line)
{
	return text_span_trim(line).n == 0;
}

/* First byte that is not printable ASCII, or -1. */
static int first_unprintable(text_span line)
{
	for (size_t i = 0; i < line.n; i++) {
		if (!is_printable(line.p[i])) {
			return (unsigned char)line.p[i];
		}
	}
	return -1;
}

/* chronyc's reply status lines: "506 Cannot talk to daemon". */
static int status_code(text_span line)
{
	if (line.n < 4 || !is_digit(line.p[0]) || !is_digit(line.p[1]) ||
	    !is_digit(line.p[2]) || line.p[3] != ' ') {
		return -1;
	}
	return (line.p[0] - '0') * 100 + (line.p[1] - '0') * 10 + (line.p[2] - '0');
}

/* -------------------------------------------------------------- failures */

static void fail(chrony_obs *dst, obs_state state, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* Discards anything parsed so far: a failed part carries no data. */
static void fail(chrony_obs *dst, obs_state state, const char *fmt, ...)
{
	chrony_obs_init(dst);
	dst->state = state;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst->error, sizeof dst->error, fmt, ap);
	va_end(ap);
}

enum {
	HINT_MISSING,     /* the shell could not run chronyc */
	HINT_UNREACHABLE, /* chronyc could not reach chronyd */
	HINT_DENIED,      /* chronyd refused the command */
	HINT_FAILED,      /* chronyd answered with another error */
	HINT_COUNT
};

typedef struct {
	bool found[HINT_COUNT];
	text_span line[HINT_COUNT]; /* the first line that showed it */
} hints;

static void note_hint(hints *h, int which, text_span line)
{
	if (!h->found[which]) {
		h->found[which] = true;
		h->line[which] = line;
	}
}

/* Both streams are scanned: a transport may have merged them. */
static void scan_hints(const char *buf, size_t len, hints *h)
{
	line_reader r = reader_of(buf, len);
	text_span line;
	bool term;
	while (next_line(&r, &line, &term)) {
		if (text_span_contains(line, "chronyc") &&
		    (text_span_contains(line, "not found") ||
		     text_span_contains(line, "No such file or directory"))) {
			note_hint(h, HINT_MISSING, line);
		}
		if (text_span_contains(line, "Could not open connection to daemon")) {
			note_hint(h, HINT_UNREACHABLE, line);
		}
		int code = status_code(line);
		if (code == 506) {
			note_hint(h, HINT_UNREACHABLE, line);
		} else if (code == 501 || code == 510) {
			/* 501 Not authorised, 510 No command access from this host */
			note_hint(h, HINT_DENIED, line);
		} else if (code >= 500 && code <= 599) {
			note_hint(h, HINT_FAILED, line);
		}
	}
}

static bool first_text_line(const char *buf, size_t len, text_span *out)
{
	line_reader r = reader_of(buf, len);
	text_span line;
	bool term;
	while (next_line(&r, &line, &term)) {
		if (!is_blank(line)) {
			*out = line;
			return true;
		}
	}
	return false;
}

/* The error states every chronyc call shares.  True when dst now holds one. */
static void say(obs_state *state, char *error, size_t error_len, obs_state st, const char *fmt, ...)
	PRINTF_LIKE(5, 6);

static void say(obs_state *state, char *error, size_t error_len, obs_state st, const char *fmt, ...)
{
	*state = st;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(error, error_len, fmt, ap);
	va_end(ap);
}

void chrony_csv_begin(chrony_csv *c, const tool_output *out)
{
	memset(c, 0, sizeof *c);
	c->rest = (text_span){out->out, out->out ? out->out_len : 0};
}

bool chrony_csv_next(chrony_csv *c, text_span *f, int max, int *n)
{
	while (text_span_next_line(&c->rest, &c->text, &c->terminated)) {
		c->line++;
		if (text_span_trim(c->text).n > 0) {
			*n = text_span_split(c->text, ',', f, max);
			return true;
		}
	}
	return false;
}

obs_state chrony_csv_fail(const chrony_csv *c, const char *command, const char *why, text_span quote, char *error,
			  size_t error_len)
{
	char q[48];
	text_span_copy_printable(q, sizeof q, quote);
	snprintf(error, error_len, "chronyc %.16s line %d: %.48s \"%s\"", command, c->line, why, q);
	return c->terminated ? OBS_GARBAGE : OBS_TRUNCATED;
}

bool chrony_parse_failure(const tool_output *out, obs_state *state, char *error, size_t error_len)
{
	hints h;
	memset(&h, 0, sizeof h);
	scan_hints(out->err, out->err_len, &h);
	scan_hints(out->out, out->out_len, &h);

	char quote[QUOTE_LEN] = "";
	text_span err_line;
	bool have_err = first_text_line(out->err, out->err_len, &err_line);

	if (out->rc == TOOL_RC_NOT_FOUND || h.found[HINT_MISSING]) {
		if (h.found[HINT_MISSING]) {
			sanitize(h.line[HINT_MISSING], quote, sizeof quote);
		} else if (have_err) {
			sanitize(err_line, quote, sizeof quote);
		}
		say(state, error, error_len, OBS_TOOL_MISSING,
		     "chronyc not found (exit %d); install chrony or add its directory to PATH: \"%s\"",
		     out->rc, quote);
		return true;
	}
	if (h.found[HINT_UNREACHABLE]) {
		sanitize(h.line[HINT_UNREACHABLE], quote, sizeof quote);
		say(state, error, error_len, OBS_DAEMON_UNREACHABLE,
		     "chronyd not answering; is it running and its command socket reachable? \"%s\"",
		     quote);
		return true;
	}
	if (h.found[HINT_DENIED]) {
		sanitize(h.line[HINT_DENIED], quote, sizeof quote);
		say(state, error, error_len, OBS_PERMISSION_DENIED,
		     "chronyd refused the command; run chronyc as root or chrony (Unix socket), or check cmdallow: \"%s\"",
		     quote);
		return true;
	}
	if (h.found[HINT_FAILED]) {
		sanitize(h.line[HINT_FAILED], quote, sizeof quote);
		say(state, error, error_len, OBS_COMMAND_FAILED, "chronyd returned an error: \"%s\"", quote);
		return true;
	}
	if (out->rc != 0 && out->rc != -1) {
		if (have_err) {
			sanitize(err_line, quote, sizeof quote);
			say(state, error, error_len, OBS_COMMAND_FAILED, "chronyc failed with exit status %d: \"%s\"",
			     out->rc, quote);
		} else {
			say(state, error, error_len, OBS_COMMAND_FAILED,
			     "chronyc failed with exit status %d and printed no error", out->rc);
		}
		return true;
	}
	return false;
}

/* A failed part carries no data. */
static bool report_failure(const tool_output *out, chrony_obs *dst)
{
	obs_state state;
	char error[OBS_ERROR_LEN] = ""; /* zeroed past the text, as chrony_obs_init leaves it */
	if (!chrony_parse_failure(out, &state, error, sizeof error)) {
		return false;
	}
	chrony_obs_init(dst);
	dst->state = state;
	memcpy(dst->error, error, sizeof dst->error);
	return true;
}

static void report_empty(const tool_output *out, chrony_obs *dst)
{
	text_span err_line;
	if (first_text_line(out->err, out->err_len, &err_line)) {
		char quote[QUOTE_LEN];
		sanitize(err_line, quote, sizeof quote);
		fail(dst, OBS_EMPTY, "chronyc printed no report; its stderr says: \"%s\"", quote);
	} else {
		fail(dst, OBS_EMPTY, "chronyc printed nothing although it did not report an error");
	}
}

static void report_truncated(chrony_obs *dst, int line_no, text_span line)
{
	char quote[QUOTE_LEN];
	sanitize(line, quote, sizeof quote);
	fail(dst, OBS_TRUNCATED,
	     "chronyc output ends mid-record at line %d (command or connection cut short): \"%s\"",
	     line_no, quote);
}

/* A line that cannot be data at all: too long or not printable text. */
static bool reject_raw_line(chrony_obs *dst, int line_no, text_span line)
{
	if (line.n > MAX_LINE) {
		fail(dst, OBS_GARBAGE, "unexpected chronyc output: line %d is longer than %d bytes",
		     line_no, MAX_LINE);
		return true;
	}
	int bad = first_unprintable(line);
	if (bad >= 0) {
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc output: line %d holds a non-text byte 0x%02x", line_no, bad);
		return true;
	}
	return false;
}

/* --------------------------------------------------------------- numbers */

/* Could s grow into a number parse_decimal accepts? */
static bool decimal_prefix(text_span s, bool fraction)
{
	if (s.n >= NUM_LEN) {
		return false;
	}
	size_t i = 0;
	if (i < s.n && (s.p[0] == '-' || s.p[0] == '+')) {
		i++;
	}
	size_t digits = 0;
	while (i < s.n && is_digit(s.p[i])) {
		i++;
		digits++;
	}
	if (fraction && digits > 0 && i < s.n && s.p[i] == '.') {
		i++;
		while (i < s.n && is_digit(s.p[i])) {
			i++;
		}
	}
	return i == s.n;
}

/* The record's value without chrony's sign convention for "slow"; avoids
 * handing out -0. */
static double negate(double v)
{
	return v == 0.0 ? 0.0 : -v;
}

/* ---------------------------------------------------------- leap / modes */

static const struct {
	const char *text;
	chrony_leap leap;
} leap_names[] = {
	{"Normal", CHRONY_LEAP_NORMAL},
	{"Insert second", CHRONY_LEAP_INSERT},
	{"Delete second", CHRONY_LEAP_DELETE},
	{"Not synchronised", CHRONY_LEAP_UNSYNC},
	{"Invalid", CHRONY_LEAP_UNKNOWN}, /* chronyc's word for a value it does not know */
};

bool chrony_parse_leap(text_span s, chrony_leap *out)
{
	for (size_t i = 0; i < sizeof leap_names / sizeof leap_names[0]; i++) {
		if (text_span_eq(s, leap_names[i].text)) {
			*out = leap_names[i].leap;
			return true;
		}
	}
	return false;
}

static bool leap_prefix(text_span s)
{
	for (size_t i = 0; i < sizeof leap_names / sizeof leap_names[0]; i++) {
		if (text_span_prefix_of(s, leap_names[i].text)) {
			return true;
		}
	}
	return false;
}

static int mode_of(char c)
{
	switch (c) {
	case '^': return CHRONY_MODE_SERVER;
	case '=': return CHRONY_MODE_PEER;
	case '#': return CHRONY_MODE_REFCLOCK;
	}
	return CHRONY_MODE_UNKNOWN;
}

static int state_of(char c)
{
	switch (c) {
	case '*': return CHRONY_STATE_SELECTED;
	case '+': return CHRONY_STATE_COMBINED;
	case '-': return CHRONY_STATE_NOT_COMBINED;
	case 'x': return CHRONY_STATE_FALSETICKER;
	case '~': return CHRONY_STATE_JITTERY;
	case '?': return CHRONY_STATE_UNUSABLE;
	}
	return CHRONY_STATE_UNKNOWN;
}

/* ------------------------------------------------------------ CSV fields */

typedef enum {
	FT_REFID, /* 8 hex digits */
	FT_NAME,  /* a name without spaces, may be empty (tracking's reference) */
	FT_HOST,  /* a name without spaces, never empty */
	FT_MODE,  /* one of ^ = # */
	FT_STATE, /* one of * + - x ~ ? */
	FT_INT,   /* decimal integer within [min, max] */
	FT_OCTAL, /* octal integer within [min, max] (the reach register) */
	FT_REAL,  /* decimal fraction within [min, max] */
	FT_LEAP,  /* a leap status exactly as chrony prints it */
} field_type;

typedef struct {
	const char *what;
	field_type type;
	double min, max;
} field_spec;

typedef struct {
	const char *what;
	const field_spec *fields;
	int n_fields;
} record_spec;

typedef struct {
	text_span text;
	double num;  /* FT_INT, FT_OCTAL, FT_REAL, FT_REFID */
	int code;    /* FT_MODE, FT_STATE, FT_LEAP */
} field_value;

/* chronyc -c tracking: "%R,%s,%u,%V,%O,%f,%f,%F,%f,%f,%f,%f,%f,%L" */
static const field_spec tracking_fields[] = {
	{"reference ID", FT_REFID, 0, 0},
	{"reference name", FT_NAME, 0, 0},
	{"stratum", FT_INT, 0, 255},
	{"reference time", FT_REAL, 0, UNIX_TIME_MAX},
	{"system time", FT_REAL, -SECONDS_MAX, SECONDS_MAX},
	{"last offset", FT_REAL, -SECONDS_MAX, SECONDS_MAX},
	{"RMS offset", FT_REAL, 0, SECONDS_MAX},
	{"frequency", FT_REAL, -PPM_MAX, PPM_MAX},
	{"residual frequency", FT_REAL, -PPM_MAX, PPM_MAX},
	{"skew", FT_REAL, 0, PPM_MAX},
	{"root delay", FT_REAL, 0, SECONDS_MAX},
	{"root dispersion", FT_REAL, 0, SECONDS_MAX},
	{"update interval", FT_REAL, 0, SECONDS_MAX},
	{"leap status", FT_LEAP, 0, 0},
};

/* chronyc -c sources: "%c,%c,%s,%d,%d,%o,%U,%f,%f,%f" */
static const field_spec source_fields[] = {
	{"mode", FT_MODE, 0, 0},
	{"state", FT_STATE, 0, 0},
	{"name", FT_HOST, 0, 0},
	{"stratum", FT_INT, 0, 255},
	{"poll", FT_INT, -32, 32},
	{"reach", FT_OCTAL, 0, 0377},
	{"last rx", FT_INT, 0, LAST_RX_NEVER},
	{"adjusted offset", FT_REAL, -SECONDS_MAX, SECONDS_MAX},
	{"measured offset", FT_REAL, -SECONDS_MAX, SECONDS_MAX},
	{"error", FT_REAL, 0, SECONDS_MAX},
};

/* chronyc -c sourcestats: "%s,%U,%U,%U,%f,%f,%f,%f" */
static const field_spec sourcestat_fields[] = {
	{"name", FT_HOST, 0, 0},
	{"samples", FT_INT, 0, 65535},
	{"runs", FT_INT, 0, 65535},
	{"span", FT_INT, 0, 2147483647.0},
	{"frequency", FT_REAL, -PPM_MAX, PPM_MAX},
	{"frequency skew", FT_REAL, 0, PPM_MAX},
	{"offset", FT_REAL, -SECONDS_MAX, SECONDS_MAX},
	{"std dev", FT_REAL, 0, SECONDS_MAX},
};

enum { REC_TRACKING, REC_SOURCE, REC_SOURCESTAT, REC_COUNT };

static const record_spec records[REC_COUNT] = {
	[REC_TRACKING] = {"tracking", tracking_fields,
			  (int)(sizeof tracking_fields / sizeof tracking_fields[0])},
	[REC_SOURCE] = {"sources", source_fields,
			(int)(sizeof source_fields / sizeof source_fields[0])},
	[REC_SOURCESTAT] = {"sourcestats", sourcestat_fields,
			    (int)(sizeof sourcestat_fields / sizeof sourcestat_fields[0])},
};

static bool parse_field(const field_spec *spec, text_span s, field_value *v)
{
	v->text = s;
	v->num = NAN;
	v->code = 0;
	switch (spec->type) {
	case FT_REFID: {
		if (s.n != 8) {
			return false;
		}
		uint32_t id = 0;
		for (size_t i = 0; i < 8; i++) {
			int d = hex_value(s.p[i]);
			if (d < 0) {
				return false;
			}
			id = id << 4 | (uint32_t)d;
		}
		v->num = id;
		return true;
	}
	case FT_NAME:
		return !text_span_contains(s, " ");
	case FT_HOST:
		return s.n > 0 && !text_span_contains(s, " ");
	case FT_MODE:
		v->code = s.n == 1 ? mode_of(s.p[0]) : CHRONY_MODE_UNKNOWN;
		return v->code != CHRONY_MODE_UNKNOWN;
	case FT_STATE:
		v->code = s.n == 1 ? state_of(s.p[0]) : CHRONY_STATE_UNKNOWN;
		return v->code != CHRONY_STATE_UNKNOWN;
	case FT_INT:
		return text_span_decimal(s, false, spec->min, spec->max, &v->num);
	case FT_OCTAL: {
		if (s.n == 0 || s.n > 6) {
			return false;
		}
		unsigned value = 0;
		for (size_t i = 0; i < s.n; i++) {
			if (s.p[i] < '0' || s.p[i] > '7') {
				return false;
			}
			value = value * 8 + (unsigned)(s.p[i] - '0');
		}
		v->num = value;
		return v->num >= spec->min && v->num <= spec->max;
	}
	case FT_REAL:
		return text_span_decimal(s, true, spec->min, spec->max, &v->num);
	case FT_LEAP: {
		chrony_leap leap;
		if (!chrony_parse_leap(s, &leap)) {
			return false;
		}
		v->code = (int)leap;
		return true;
	}
	}
	return false;
}

/* Could s, cut short, have been a valid field of this type? */
static bool field_prefix_ok(const field_spec *spec, text_span s)
{
	switch (spec->type) {
	case FT_REFID:
		if (s.n > 8) {
			return false;
		}
		for (size_t i = 0; i < s.n; i++) {
			if (hex_value(s.p[i]) < 0) {
				return false;
			}
		}
		return true;
	case FT_NAME:
	case FT_HOST:
		return !text_span_contains(s, " ");
	case FT_MODE:
		return s.n == 0 || (s.n == 1 && mode_of(s.p[0]) != CHRONY_MODE_UNKNOWN);
	case FT_STATE:
		return s.n == 0 || (s.n == 1 && state_of(s.p[0]) != CHRONY_STATE_UNKNOWN);
	case FT_INT:
		return decimal_prefix(s, false);
	case FT_OCTAL:
		if (s.n > 6) {
			return false;
		}
		for (size_t i = 0; i < s.n; i++) {
			if (s.p[i] < '0' || s.p[i] > '7') {
				return false;
			}
		}
		return true;
	case FT_REAL:
		return decimal_prefix(s, true);
	case FT_LEAP:
		return leap_prefix(s);
	}
	return false;
}

/* Splits on ','; returns the field count, or MAX_FIELDS + 1 when there are
 * more fields than any record has. */
static int split_fields(text_span line, text_span *fields)
{
	return text_span_split(line, ',', fields, MAX_FIELDS);
}

/* Is this line a record of kind rec that was cut short: every field but the
 * last complete and valid, the last one a valid beginning? */
static bool is_cut_record(const record_spec *rec, const text_span *fields, int n)
{
	if (n < 1 || n > rec->n_fields) {
		return false;
	}
	field_value v;
	for (int i = 0; i < n - 1; i++) {
		if (!parse_field(&rec->fields[i], fields[i], &v)) {
			return false;
		}
	}
	return field_prefix_ok(&rec->fields[n - 1], fields[n - 1]);
}

static int record_kind(int n_fields)
{
	for (int k = 0; k < REC_COUNT; k++) {
		if (records[k].n_fields == n_fields) {
			return k;
		}
	}
	return -1;
}

static void store_tracking(chrony_tracking *t, const field_value *v)
{
	t->reference_id = (uint32_t)v[0].num;
	t->has_reference_id = true;
	copy_name(v[1].text, t->reference_name, sizeof t->reference_name);
	t->stratum = (int)v[2].num;
	t->ref_time = v[3].num;
	/* "System time" is chrony's pending correction: positive = slow. */
	t->system_time_offset_s = negate(v[4].num);
	t->last_offset_s = v[5].num;
	t->rms_offset_s = v[6].num;
	t->frequency_ppm = v[7].num;
	t->residual_frequency_ppm = v[8].num;
	t->skew_ppm = v[9].num;
	t->root_delay_s = v[10].num;
	t->root_dispersion_s = v[11].num;
	t->update_interval_s = v[12].num;
	t->leap = (chrony_leap)v[13].code;
}

static void store_source(chrony_obs *dst, const field_value *v)
{
	int idx = dst->n_sources_total;
	if (dst->n_sources_total < INT32_MAX) {
		dst->n_sources_total++;
	}
	if (idx >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_source *s = &dst->sources[idx];
	s->mode = (chrony_source_mode)v[0].code;
	s->state = (chrony_source_state)v[1].code;
	copy_name(v[2].text, s->name, sizeof s->name);
	s->stratum = (int)v[3].num;
	s->poll = (int)v[4].num;
	s->reach = (unsigned)v[5].num;
	s->last_rx_s = v[6].num == LAST_RX_NEVER ? -1 : (int64_t)v[6].num;
	/* Already node - source: positive = the local clock is ahead. */
	s->adjusted_offset_s = v[7].num;
	s->measured_offset_s = v[8].num;
	s->error_s = v[9].num;
	dst->n_sources = idx + 1;
}

static void store_sourcestat(chrony_obs *dst, const field_value *v)
{
	if (dst->n_sourcestats >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_sourcestat *s = &dst->sourcestats[dst->n_sourcestats++];
	copy_name(v[0].text, s->name, sizeof s->name);
	s->samples = (int)v[1].num;
	s->runs = (int)v[2].num;
	s->span_s = (int)v[3].num;
	s->frequency_ppm = v[4].num;
	s->skew_ppm = v[5].num;
	/* Already node - source, like the sources offsets. */
	s->offset_s = v[6].num;
	s->std_dev_s = v[7].num;
}

/* Where we are in "tracking, then sources, then sourcestats". */
typedef struct {
	int last_kind; /* -1 before the first record */
	int records;
} csv_progress;

/* One non-blank line; false when dst now holds a failure. */
static bool csv_line(chrony_obs *dst, csv_progress *pg, text_span line, bool terminated, int line_no)
{
	if (reject_raw_line(dst, line_no, line)) {
		return false;
	}
	text_span fields[MAX_FIELDS];
	int n = split_fields(line, fields);
	int kind = n <= MAX_FIELDS ? record_kind(n) : -1;
	/* zeroed so no path can store a field that was never parsed */
	field_value v[MAX_FIELDS] = {0};
	int bad = -1;
	if (kind >= 0) {
		const record_spec *rec = &records[kind];
		for (int i = 0; i < rec->n_fields && bad < 0; i++) {
			if (!parse_field(&rec->fields[i], fields[i], &v[i])) {
				bad = i;
			}
		}
	}
	if (kind < 0 || bad >= 0) {
		if (!terminated && n <= MAX_FIELDS) {
			for (int k = 0; k < REC_COUNT; k++) {
				if (is_cut_record(&records[k], fields, n)) {
					report_truncated(dst, line_no, line);
					return false;
				}
			}
		}
		char quote[QUOTE_LEN];
		if (kind < 0) {
			sanitize(line, quote, sizeof quote);
			if (n > MAX_FIELDS) {
				fail(dst, OBS_GARBAGE,
				     "unexpected chronyc output at line %d: more than %d fields: \"%s\"",
				     line_no, MAX_FIELDS, quote);
			} else {
				fail(dst, OBS_GARBAGE,
				     "unexpected chronyc output at line %d: %d field(s), records have 14, 10 or 8: \"%s\"",
				     line_no, n, quote);
			}
		} else {
			sanitize(fields[bad], quote, sizeof quote);
			fail(dst, OBS_GARBAGE,
			     "unexpected chronyc output at line %d: %s field %d (%s) is invalid: \"%s\"",
			     line_no, records[kind].what, bad + 1, records[kind].fields[bad].what, quote);
		}
		return false;
	}
	/* chronyc prints the reports in the order asked; anything else means
	 * two outputs got mixed. */
	if (kind < pg->last_kind || (kind == REC_TRACKING && pg->last_kind == REC_TRACKING)) {
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc output at line %d: %s record after %s records", line_no,
		     records[kind].what, records[pg->last_kind].what);
		return false;
	}
	pg->last_kind = kind;
	pg->records++;
	switch (kind) {
	case REC_TRACKING:
		store_tracking(&dst->tracking, v);
		break;
	case REC_SOURCE:
		store_source(dst, v);
		break;
	case REC_SOURCESTAT:
		store_sourcestat(dst, v);
		break;
	}
	return true;
}

void chrony_parse_csv(const tool_output *out, chrony_obs *dst)
{
	chrony_obs_init(dst);
	if (report_failure(out, dst)) {
		return;
	}
	csv_progress pg = {.last_kind = -1, .records = 0};
	line_reader r = reader_of(out->out, out->out_len);
	text_span line;
	bool term;
	while (next_line(&r, &line, &term)) {
		if (is_blank(line)) {
			continue;
		}
		int code = status_code(line);
		if (code >= 200 && code <= 299) {
			continue; /* informational, e.g. "200 OK"; 5xx were handled above */
		}
		if (!csv_line(dst, &pg, line, term, r.number)) {
			return;
		}
	}
	if (pg.records == 0) {
		report_empty(out, dst);
		return;
	}
	dst->state = OBS_OK;
}

/* ------------------------------------------------------- tracking as text */

typedef enum {
	TK_REFID,
	TK_STRATUM,
	TK_REFTIME,
	TK_SYSTIME,
	TK_LASTOFF,
	TK_RMS,
	TK_FREQ,
	TK_RESID,
	TK_SKEW,
	TK_RDELAY,
	TK_RDISP,
	TK_UPDATE,
	TK_LEAP,
	TK_COUNT
} text_key;

static const char *const text_keys[TK_COUNT] = {
	[TK_REFID] = "Reference ID",
	[TK_STRATUM] = "Stratum",
	[TK_REFTIME] = "Ref time (UTC)",
	[TK_SYSTIME] = "System time",
	[TK_LASTOFF] = "Last offset",
	[TK_RMS] = "RMS offset",
	[TK_FREQ] = "Frequency",
	[TK_RESID] = "Residual freq",
	[TK_SKEW] = "Skew",
	[TK_RDELAY] = "Root delay",
	[TK_RDISP] = "Root dispersion",
	[TK_UPDATE] = "Update interval",
	[TK_LEAP] = "Leap status",
};

/* "<number> <unit>" and nothing else. */
static bool parse_quantity(text_span value, const char *unit, double min, double max, double *out)
{
	text_span num, u, extra;
	return text_span_word(&value, &num) && text_span_word(&value, &u) && text_span_eq(u, unit) &&
	       !text_span_word(&value, &extra) && text_span_decimal(num, true, min, max, out);
}

/* "0A4D0001 (10.77.0.1)"; chrony before 3.0 printed the ID dotted. */
static bool parse_text_refid(text_span value, chrony_tracking *t)
{
	text_span id;
	if (!text_span_word(&value, &id)) {
		return false;
	}
	text_span name = text_span_trim(value);
	if (name.n < 2 || name.p[0] != '(' || name.p[name.n - 1] != ')') {
		return false;
	}
	name.p++;
	name.n -= 2;

	field_value v;
	static const field_spec hex = {"reference ID", FT_REFID, 0, 0};
	if (parse_field(&hex, id, &v)) {
		t->reference_id = (uint32_t)v.num;
	} else {
		uint32_t ip = 0;
		size_t i = 0;
		for (int part = 0; part < 4; part++) {
			if (part > 0) {
				if (i >= id.n || id.p[i] != '.') {
					return false;
				}
				i++;
			}
			size_t start = i;
			unsigned octet = 0;
			while (i < id.n && is_digit(id.p[i]) && i - start < 3) {
				octet = octet * 10 + (unsigned)(id.p[i] - '0');
				i++;
			}
			if (i == start || octet > 255) {
				return false;
			}
			ip = ip << 8 | octet;
		}
		if (i != id.n) {
			return false;
		}
		t->reference_id = ip;
	}
	t->has_reference_id = true;
	copy_name(name, t->reference_name, sizeof t->reference_name);
	return true;
}

static long long days_from_civil(long long y, int m, int d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool two_digits(text_span s, size_t at, int max, int *out)
{
	if (at + 2 > s.n || !is_digit(s.p[at]) || !is_digit(s.p[at + 1])) {
		return false;
	}
	*out = (s.p[at] - '0') * 10 + (s.p[at + 1] - '0');
	return *out <= max;
}

/* "Wed Dec 02 10:38:17 2026" (strftime "%a %b %d %T %Y" of UTC). */
static bool parse_text_reftime(text_span value, double *out)
{
	static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
					     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	text_span wd, mon, day, hms, year, extra;
	if (!text_span_word(&value, &wd) || !text_span_word(&value, &mon) || !text_span_word(&value, &day) ||
	    !text_span_word(&value, &hms) || !text_span_word(&value, &year) ||
	    text_span_word(&value, &extra)) {
		return false;
	}
	int weekday = -1, month = -1;
	for (int i = 0; i < 7; i++) {
		if (text_span_eq(wd, days[i])) {
			weekday = i;
		}
	}
	for (int i = 0; i < 12; i++) {
		if (text_span_eq(mon, months[i])) {
			month = i + 1;
		}
	}
	int d, hh, mm, ss;
	double y;
	if (weekday < 0 || month < 0 || day.n != 2 || !two_digits(day, 0, 31, &d) || d < 1 ||
	    hms.n != 8 || hms.p[2] != ':' || hms.p[5] != ':' || !two_digits(hms, 0, 23, &hh) ||
	    !two_digits(hms, 3, 59, &mm) || !two_digits(hms, 6, 60, &ss) || year.n != 4 ||
	    !text_span_decimal(year, false, 1970, 9999, &y)) {
		return false;
	}
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int yi = (int)y;
	bool leap_year = (yi % 4 == 0 && yi % 100 != 0) || yi % 400 == 0;
	if (d > mdays[month - 1] + (month == 2 && leap_year)) {
		return false;
	}
	long long days_since = days_from_civil(yi, month, d);
	/* 1970-01-01 was a Thursday; a wrong weekday means a mangled date. */
	if ((days_since + 4) % 7 != weekday) {
		return false;
	}
	*out = (double)(days_since * 86400 + hh * 3600LL + mm * 60LL + ss);
	return true;
}

/* "<number> <unit> slow|fast<tail>": text prints magnitudes and the word
 * says the sign; "slow" is behind (or losing time), so negative. */
static bool parse_slow_fast(text_span value, const char *unit, const char *tail, double max,
			    double *out)
{
	text_span num, u, word;
	double mag;
	if (!text_span_word(&value, &num) || !text_span_word(&value, &u) || !text_span_eq(u, unit) ||
	    !text_span_word(&value, &word) || !text_span_eq(text_span_trim(value), tail) ||
	    !text_span_decimal(num, true, 0, max, &mag)) {
		return false;
	}
	bool slow;
	if (text_span_eq(word, "slow")) {
		slow = true;
	} else if (text_span_eq(word, "fast")) {
		slow = false;
	} else {
		return false;
	}
	*out = slow ? negate(mag) : mag;
	return true;
}

static bool parse_text_value(text_key key, text_span value, chrony_tracking *t)
{
	double v;
	switch (key) {
	case TK_REFID:
		return parse_text_refid(value, t);
	case TK_STRATUM:
		if (!text_span_decimal(text_span_trim(value), false, 0, 255, &v)) {
			return false;
		}
		t->stratum = (int)v;
		return true;
	case TK_REFTIME:
		return parse_text_reftime(value, &t->ref_time);
	case TK_SYSTIME:
		/* "X seconds slow of NTP time": the node is behind, so -X. */
		return parse_slow_fast(value, "seconds", "of NTP time", SECONDS_MAX,
				       &t->system_time_offset_s);
	case TK_LASTOFF:
		return parse_quantity(value, "seconds", -SECONDS_MAX, SECONDS_MAX,
				      &t->last_offset_s);
	case TK_RMS:
		return parse_quantity(value, "seconds", 0, SECONDS_MAX, &t->rms_offset_s);
	case TK_FREQ:
		/* "X ppm slow": the uncorrected clock loses time, so -X. */
		return parse_slow_fast(value, "ppm", "", PPM_MAX, &t->frequency_ppm);
	case TK_RESID:
		return parse_quantity(value, "ppm", -PPM_MAX, PPM_MAX, &t->residual_frequency_ppm);
	case TK_SKEW:
		return parse_quantity(value, "ppm", 0, PPM_MAX, &t->skew_ppm);
	case TK_RDELAY:
		return parse_quantity(value, "seconds", 0, SECONDS_MAX, &t->root_delay_s);
	case TK_RDISP:
		return parse_quantity(value, "seconds", 0, SECONDS_MAX, &t->root_dispersion_s);
	case TK_UPDATE:
		return parse_quantity(value, "seconds", 0, SECONDS_MAX, &t->update_interval_s);
	case TK_LEAP:
		return chrony_parse_leap(text_span_trim(value), &t->leap);
	case TK_COUNT:
		break;
	}
	return false;
}

/* One non-blank line of `chronyc tracking`; false when dst holds a failure. */
static bool text_line(chrony_obs *dst, bool seen[TK_COUNT], int *known, text_span line,
		      bool terminated, int line_no)
{
	if (reject_raw_line(dst, line_no, line)) {
		return false;
	}
	char quote[QUOTE_LEN];
	const char *colon = memchr(line.p, ':', line.n);
	text_span key = {line.p, colon ? (size_t)(colon - line.p) : line.n};
	key = text_span_trim(key);
	int k = -1;
	for (int i = 0; i < TK_COUNT; i++) {
		if (text_span_eq(key, text_keys[i])) {
			k = i;
		}
	}
	if (!colon) {
		/* A line cut inside its key still starts like one. */
		for (int i = 0; i < TK_COUNT && !terminated; i++) {
			if (key.n > 0 && text_span_prefix_of(key, text_keys[i])) {
				report_truncated(dst, line_no, line);
				return false;
			}
		}
		sanitize(line, quote, sizeof quote);
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc tracking output at line %d: not a \"name : value\" line: \"%s\"",
		     line_no, quote);
		return false;
	}
	if (k < 0) {
		return true; /* a line a newer chrony added: not ours to judge */
	}
	if (seen[k]) {
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc tracking output at line %d: \"%s\" appears twice", line_no,
		     text_keys[k]);
		return false;
	}
	text_span value = {colon + 1, line.n - (size_t)(colon + 1 - line.p)};
	if (!parse_text_value((text_key)k, value, &dst->tracking)) {
		if (!terminated) {
			report_truncated(dst, line_no, line);
			return false;
		}
		sanitize(value, quote, sizeof quote);
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc tracking output at line %d: bad %s: \"%s\"", line_no,
		     text_keys[k], quote);
		return false;
	}
	seen[k] = true;
	(*known)++;
	return true;
}

void chrony_parse_tracking_text(const tool_output *out, chrony_obs *dst)
{
	chrony_obs_init(dst);
	if (report_failure(out, dst)) {
		return;
	}
	bool seen[TK_COUNT] = {false};
	int known = 0, lines = 0;
	line_reader r = reader_of(out->out, out->out_len);
	text_span line;
	bool term;
	while (next_line(&r, &line, &term)) {
		if (is_blank(line)) {
			continue;
		}
		int code = status_code(line);
		if (code >= 200 && code <= 299) {
			continue;
		}
		lines++;
		if (!text_line(dst, seen, &known, line, term, r.number)) {
			return;
		}
	}
	if (lines == 0) {
		report_empty(out, dst);
		return;
	}
	if (known == 0) {
		fail(dst, OBS_GARBAGE,
		     "unexpected chronyc tracking output: none of its %d lines is a tracking field",
		     lines);
		return;
	}
	dst->state = OBS_OK;
}

int chrony_render_failure(obs_state state, const char *error, text_sink *out, text_sink *err)
{
	switch (state) {
	case OBS_DAEMON_UNREACHABLE:
		/* chronyc -c prints its reply status on stdout (fixture
		 * chronyc-c-tracking-no-daemon-default.txt) */
		text_sink_puts(out, "506 Cannot talk to daemon\n");
		return 1;
	case OBS_PERMISSION_DENIED:
		text_sink_puts(out, "501 Not authorised\n");
		return 1;
	case OBS_TOOL_MISSING:
		text_sink_puts(err, "sh: 1: chronyc: not found\n");
		return TOOL_RC_NOT_FOUND;
	default:
		text_sink_printf(err, "%s\n", error);
		return 1;
	}
}
