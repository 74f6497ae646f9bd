/* fuzz_probe_split.c - the probe response splitter (probe_split,
 * probe_find_end) and the request line builder on fuzzed bytes.
 *
 * Input, used three ways:
 *   1. the whole input is a response for nonce N: the result must be
 *      consistent (bodies inside the buffer, names valid, rc -1 exactly
 *      when incomplete, probe_find_end agreeing on the end, bytes after the
 *      end ignored, a cut of a complete response reading as incomplete);
 *   2. its FUZZ_SEP parts are section bodies (stdout, stderr, stdout, ...):
 *      framed the way the probe script frames them, they must split back
 *      into exactly those bytes, whatever fake markers they hold;
 *   3. its first line is an interface name or a comma list of them:
 *      probe_request_format must accept it exactly when
 *      probe_iface_list_valid does, and write one line. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "probe.h"

#define N "0123456789abcdef"
#define PREFIX "@@synctop " N " "
#define PREFIX_LEN (sizeof PREFIX - 1)

static bool inside(const char *buf, size_t len, const char *p, size_t n)
{
	if (n == 0 && p == NULL) {
		return true;
	}
	return p != NULL && p >= buf && n <= len && (size_t)(p - buf) <= len - n;
}

static bool section_name_ok(const char *p, size_t n)
{
	if (n == 0 || n > PROBE_SECTION_NAME_MAX) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
			return false;
		}
	}
	return true;
}

static void check_response(const char *buf, size_t len, int rc, const probe_response *r)
{
	FUZZ_CHECK(rc == PROBE_COMPLETE || rc == PROBE_INCOMPLETE || rc == PROBE_MALFORMED);
	FUZZ_CHECK(r->n_sections >= 0 && r->n_sections <= PROBE_MAX_SECTIONS);
	FUZZ_CHECK(r->n_ignored >= 0);
	FUZZ_CHECK(r->n_ignored == 0 || r->n_sections == PROBE_MAX_SECTIONS);
	FUZZ_CHECK(r->begun || r->n_sections == 0);
	for (int i = 0; i < r->n_sections; i++) {
		const probe_section *s = &r->sections[i];
		FUZZ_CHECK(inside(buf, len, s->name, s->name_len));
		FUZZ_CHECK(section_name_ok(s->name, s->name_len));
		FUZZ_CHECK(inside(buf, len, s->out, s->out_len));
		FUZZ_CHECK(inside(buf, len, s->err, s->err_len));
		FUZZ_CHECK(s->complete ? (s->rc >= 0 && s->rc <= 99999) : s->rc == -1);
		/* only the section being read when the input ran out may be open */
		FUZZ_CHECK(s->complete || (rc != PROBE_COMPLETE && i == r->n_sections - 1));
		tool_output t;
		probe_section_tool_output(s, &t);
		FUZZ_CHECK(t.rc == (s->complete ? s->rc : -1));
		/* a name no section can have (spaces): a valid name could be in
		 * the input (the fuzzer found "x-no-such-section" itself) */
		FUZZ_CHECK(probe_section_find(r, "no such section") == NULL);
		const probe_section *found = NULL;
		char name[PROBE_SECTION_NAME_MAX + 1];
		memcpy(name, s->name, s->name_len);
		name[s->name_len] = '\0';
		found = probe_section_find(r, name);
		FUZZ_CHECK(found != NULL && found <= s);
	}
	size_t end = probe_find_end(buf, len, N);
	if (rc == PROBE_COMPLETE) {
		FUZZ_CHECK(r->begun);
		FUZZ_CHECK(r->end > 0 && r->end <= len && buf[r->end - 1] == '\n');
		FUZZ_CHECK(end == r->end);
	} else if (rc == PROBE_INCOMPLETE) {
		FUZZ_CHECK(end == 0);
	} else {
		FUZZ_CHECK(r->reason != NULL && fuzz_printable(r->reason, 200));
	}
}

static bool same_section(const probe_section *a, const probe_section *b)
{
	return a->name == b->name && a->name_len == b->name_len && a->out == b->out &&
	       a->out_len == b->out_len && a->err == b->err && a->err_len == b->err_len &&
	       a->rc == b->rc && a->complete == b->complete;
}

/* Way 1. */
static void split_raw(const char *buf, size_t len, size_t cut_seed)
{
	probe_response r, p;
	int rc = probe_split(buf, len, N, &r);
	check_response(buf, len, rc, &r);
	if (rc != PROBE_COMPLETE) {
		return;
	}
	/* what follows the end marker is not part of the response */
	int rc2 = probe_split(buf, r.end, N, &p);
	FUZZ_CHECK(rc2 == PROBE_COMPLETE && p.n_sections == r.n_sections && p.end == r.end &&
		   p.n_ignored == r.n_ignored);
	for (int i = 0; i < r.n_sections; i++) {
		FUZZ_CHECK(same_section(&r.sections[i], &p.sections[i]));
	}
	/* a complete response cut short needs more bytes; it is not broken */
	size_t cuts[3] = {r.end - 1, r.end / 2, cut_seed % r.end};
	for (int c = 0; c < 3; c++) {
		rc2 = probe_split(buf, cuts[c], N, &p);
		check_response(buf, cuts[c], rc2, &p);
		FUZZ_CHECK(rc2 == PROBE_INCOMPLETE);
		FUZZ_CHECK(p.n_sections <= r.n_sections);
		for (int i = 0; i < p.n_sections; i++) {
			if (p.sections[i].complete) {
				FUZZ_CHECK(same_section(&r.sections[i], &p.sections[i]));
			}
		}
	}
}

/* A body whose line starts with this poll's marker prefix cannot be framed:
 * the script's own output would end the section there too. */
static bool framable(const char *p, size_t n)
{
	size_t start = 0;
	while (start <= n) {
		if (n - start >= PREFIX_LEN && memcmp(p + start, PREFIX, PREFIX_LEN) == 0) {
			return false;
		}
		const char *nl = memchr(p + start, '\n', n - start);
		if (nl == NULL) {
			break;
		}
		start = (size_t)(nl - p) + 1;
	}
	return true;
}

static size_t put(char *dst, size_t at, const char *src, size_t n)
{
	memcpy(dst + at, src, n);
	return at + n;
}

/* Way 2. */
static void round_trip(const fuzz_parts *parts)
{
	int nsec = (parts->n + 1) / 2;
	size_t cap = 64 + 4 * PREFIX_LEN + 64;
	for (int i = 0; i < parts->n; i++) {
		if (!framable(parts->part[i].p, parts->part[i].len)) {
			return;
		}
		cap += parts->part[i].len;
	}
	cap += (size_t)nsec * (4 * PREFIX_LEN + 64);
	char *buf = malloc(cap);
	FUZZ_CHECK(buf != NULL);
	size_t at = 0;
	at = put(buf, at, "@@synctop ready\n", 16);
	at = put(buf, at, PREFIX "begin\n", PREFIX_LEN + 6);
	for (int s = 0; s < nsec; s++) {
		const fuzz_part *o = fuzz_part_at(parts, 2 * s);
		const fuzz_part *e = fuzz_part_at(parts, 2 * s + 1);
		char line[64];
		int n = snprintf(line, sizeof line, PREFIX "section s%d\n", s);
		at = put(buf, at, line, (size_t)n);
		at = put(buf, at, o->p, o->len);
		at = put(buf, at, "\n" PREFIX "stderr\n", PREFIX_LEN + 8);
		at = put(buf, at, e->p, e->len);
		n = snprintf(line, sizeof line, "\n" PREFIX "rc %d\n", s * 37);
		at = put(buf, at, line, (size_t)n);
	}
	at = put(buf, at, PREFIX "end\n", PREFIX_LEN + 4);
	size_t end = at;
	at = put(buf, at, "trailing noise\n", 15);

	probe_response r;
	int rc = probe_split(buf, at, N, &r);
	check_response(buf, at, rc, &r);
	FUZZ_CHECK(rc == PROBE_COMPLETE);
	FUZZ_CHECK(r.end == end);
	FUZZ_CHECK(r.n_sections == (nsec < PROBE_MAX_SECTIONS ? nsec : PROBE_MAX_SECTIONS));
	for (int s = 0; s < r.n_sections; s++) {
		const probe_section *sec = &r.sections[s];
		const fuzz_part *o = fuzz_part_at(parts, 2 * s);
		const fuzz_part *e = fuzz_part_at(parts, 2 * s + 1);
		FUZZ_CHECK(sec->complete && sec->rc == s * 37);
		FUZZ_CHECK(sec->out_len == o->len && memcmp(sec->out, o->p, o->len) == 0);
		FUZZ_CHECK(sec->err_len == e->len && memcmp(sec->err, e->p, e->len) == 0);
	}
	free(buf);
}

static bool iface_expected(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > PROBE_IFACE_MAX || s[0] == '-') {
		return false;
	}
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == n;
}

/* 1 to PROBE_IFACE_LIST_MAX names as above, separated by single commas */
static bool list_expected(const char *s)
{
	char name[80];
	int count = 0;
	for (;;) {
		size_t n = strcspn(s, ",");
		if (n >= sizeof name || ++count > PROBE_IFACE_LIST_MAX) {
			return false;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		if (!iface_expected(name)) {
			return false;
		}
		if (s[n] == '\0') {
			return true;
		}
		s += n + 1;
	}
}

/* Way 3. */
static void request_line(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t n = nl ? (size_t)(nl - data) : size;
	char *iface = fuzz_strndup((const char *)data, n < 64 ? n : 64);
	unsigned flags = size > 0 ? data[size - 1] & 3u : 0;
	char buf[128];
	FUZZ_CHECK(probe_iface_valid(iface) == iface_expected(iface));
	bool valid = list_expected(iface);
	bool unknown = iface[0] == '\0' || strcmp(iface, "-") == 0;
	FUZZ_CHECK(probe_iface_list_valid(iface) == valid);
	int len = probe_request_format(buf, sizeof buf, N, flags, iface);
	if (!valid && !unknown) {
		FUZZ_CHECK(len == -1);
	} else {
		/* "NONCE FLAGS IFACE\n": three words, one line */
		char want[128];
		snprintf(want, sizeof want, "%s %s%s%s %s\n", N, flags & PROBE_FLAG_ETHTOOL ? "E" : "",
			 flags & PROBE_FLAG_SUDO_PMC ? "S" : "", flags == 0 ? "-" : "",
			 unknown ? "-" : iface);
		FUZZ_CHECK(len > 0 && strcmp(buf, want) == 0 && (size_t)len == strlen(want));
		FUZZ_CHECK(probe_request_format(buf, (size_t)len, N, flags, iface) == -1);
	}
	if (valid || unknown) {
		/* a clock exchange: "T" alone, whatever else was asked */
		char want[128];
		snprintf(want, sizeof want, "%s T %s\n", N, unknown ? "-" : iface);
		len = probe_request_format(buf, sizeof buf, N, flags | PROBE_FLAG_TIME_ONLY, iface);
		FUZZ_CHECK(len > 0 && strcmp(buf, want) == 0);
	}
	FUZZ_CHECK(probe_request_format(buf, sizeof buf, N, 1u << 20, iface) == -1); /* no collector asks with it */
	free(iface);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t seed = 0;
	for (size_t i = 0; i < size && i < 8; i++) {
		seed = seed * 131 + data[i];
	}
	fuzz_parts whole, parts;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	split_raw(whole.part[0].p, whole.part[0].len, seed);
	fuzz_parts_free(&whole);

	fuzz_split(data, size, FUZZ_MAX_PARTS, &parts);
	round_trip(&parts);
	fuzz_parts_free(&parts);

	request_line(data, size);
	return 0;
}
