/* conffile.c - parse and validate the JSON configuration file.
 *
 * jansson checks the syntax (and rejects duplicate keys) and gives the
 * values, but not where each key or value stands in the text.  So a second,
 * tiny pass over the text jansson has accepted records the line and column of
 * every value (and of its key) in document order, as a pre-order tree.
 * jansson iterates objects in insertion order, which is document order, so
 * the validator walks both trees in step and every error points at the very
 * key or value that is wrong. */
#include <config.h>

#include "conffile.h"
#include "finding_wait.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "collector.h"
#include "command_template.h"
#include "hostlist.h"
#include "sanitize.h"
#include "ssh_jump_spec.h"
#include "xalloc.h"

/* ------------------------------------------------------------ the keys */

/* The threshold keys come from the collectors that own them (collector.h)
 * and from core (the clock check, the cluster rules), in registry order. */
typedef struct {
	const threshold_key **keys;
	size_t n;
} key_list;

/* Each key names its own field of thresholds and no field is smaller than
 * an int, so this many can never run out (test_config checks the keys are
 * distinct fields). */
#define CONF_MAX_THRESHOLD_KEYS (sizeof(thresholds) / sizeof(int))

static const key_list *threshold_key_list(void)
{
	static key_list list;
	static const threshold_key *keys[CONF_MAX_THRESHOLD_KEYS];
	if (list.keys == NULL) {
		size_t n = 0;
		for (size_t i = 0; i < collector_registry_count; i++) {
			const collector *c = collector_registry[i];
			for (size_t k = 0; k < c->n_threshold_keys && n < CONF_MAX_THRESHOLD_KEYS; k++) {
				keys[n++] = &c->threshold_keys[k];
			}
		}
		for (size_t k = 0; k < thresholds_core_key_count && n < CONF_MAX_THRESHOLD_KEYS; k++) {
			keys[n++] = &thresholds_core_keys[k];
		}
		list.n = n;
		list.keys = keys;
	}
	return &list;
}

static size_t threshold_key_index(const char *name)
{
	const key_list *kl = threshold_key_list();
	size_t k = 0;
	while (k < kl->n && strcmp(kl->keys[k]->name, name) != 0) {
		k++;
	}
	return k;
}

/* The other settable keys; threshold key k is setting SET_THRESHOLD + k. */
enum {
	SET_EXPECT_CHRONY,
	SET_EXPECT_PTP,
	SET_PMC_SUDO,
	SET_IFACE,
	SET_NTP_UPSTREAM,
	SET_GRANDMASTER,
	SET_GM_TRACEABLE,
	SET_TRANSPORT,     /* "transport" or "transport_cmd" */
	SET_JUMP,
	SET_STATE_DIR,
	SET_THRESHOLD,
	N_SETTINGS = SET_THRESHOLD + CONF_MAX_THRESHOLD_KEYS
};

/* A `for` longer than a day is a typo, not a policy. */
#define CONF_MAX_WAIT_S 86400

/* What one level of the file sets: values plus which of them are set, and
 * where each was written (for errors found after merging). */
typedef struct {
	node_settings v;
	bool set[N_SETTINGS];
	int line[N_SETTINGS], col[N_SETTINGS];
} layer;

typedef struct {
	char *name;
	char **hosts;
	size_t n_hosts;
	layer l;
	bool has_prometheus;
	conffile_prometheus prometheus;
} group;

struct conffile {
	layer defaults;
	group *groups;
	size_t n_groups;
};

/* ------------------------------------------------------ position scanner */

typedef struct {
	int line, col;         /* where the value starts */
	int key_line, key_col; /* where its key starts (object members) */
	size_t size;           /* entries in this subtree, itself included */
} spos;

typedef struct {
	const char *p, *end;
	int line, col;
	spos *v;
	size_t n, cap;
} scanner;

static void sc_advance(scanner *sc)
{
	unsigned char c = (unsigned char)*sc->p++;
	if (c == '\n') {
		sc->line++;
		sc->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		sc->col++; /* characters, not bytes, as jansson counts them */
	}
}

static void sc_skip_ws(scanner *sc)
{
	while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\n' || *sc->p == '\r')) {
		sc_advance(sc);
	}
}

static void sc_skip_string(scanner *sc)
{
	sc_advance(sc); /* opening quote */
	while (sc->p < sc->end && *sc->p != '"') {
		if (*sc->p == '\\' && sc->p + 1 < sc->end) {
			sc_advance(sc);
		}
		sc_advance(sc);
	}
	if (sc->p < sc->end) {
		sc_advance(sc);
	}
}

static size_t sc_value(scanner *sc, int key_line, int key_col);

/* The members of an object or the elements of an array. */
static void sc_children(scanner *sc, char close, bool object)
{
	sc_advance(sc);
	for (;;) {
		int kl = 0, kc = 0;
		sc_skip_ws(sc);
		if (sc->p >= sc->end || *sc->p == close) {
			break;
		}
		if (object) {
			kl = sc->line;
			kc = sc->col;
			sc_skip_string(sc);
			sc_skip_ws(sc);
			if (sc->p < sc->end && *sc->p == ':') {
				sc_advance(sc);
			}
			sc_skip_ws(sc);
		}
		sc_value(sc, kl, kc);
		sc_skip_ws(sc);
		if (sc->p < sc->end && *sc->p == ',') {
			sc_advance(sc);
		} else {
			break;
		}
	}
	if (sc->p < sc->end) {
		sc_advance(sc);
	}
}

/* Only ever run on text jansson accepted; still bounded by sc->end so that
 * no text can make it read past the buffer. */
static size_t sc_value(scanner *sc, int key_line, int key_col)
{
	size_t self = sc->n;
	if (sc->n == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 64;
		sc->v = xrealloc(sc->v, sc->cap * sizeof *sc->v);
	}
	sc->v[self] = (spos){sc->line, sc->col, key_line, key_col, 1};
	sc->n++;
	if (sc->p >= sc->end) {
		return self;
	}
	if (*sc->p == '{') {
		sc_children(sc, '}', true);
	} else if (*sc->p == '[') {
		sc_children(sc, ']', false);
	} else if (*sc->p == '"') {
		sc_skip_string(sc);
	} else {
		while (sc->p < sc->end && (isalnum((unsigned char)*sc->p) || strchr("+-.", *sc->p))) {
			sc_advance(sc);
		}
	}
	sc->v[self].size = sc->n - self;
	return self;
}

/* ------------------------------------------------------------ validation */

typedef struct {
	const char *name;   /* file name for messages */
	const char *text;
	size_t len;
	const spos *pos;
	char *err;
	size_t err_len;
} vctx;

static int fail_at(vctx *c, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail_at(vctx *c, int line, int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(c->err, c->err_len, "%s:%d:%d: %s", c->name, line, col, msg);
	return -1;
}

/* A key or string from the file, made safe to print in one line. */
static const char *printable(const char *s, char *buf, size_t len)
{
	sanitize_text(s, strlen(s), buf, len, SANITIZE_SINGLE_LINE | SANITIZE_ASCII);
	return buf;
}

static int unknown_key(vctx *c, size_t p, const char *key, const char *where)
{
	char k[80];
	return fail_at(c, c->pos[p].key_line, c->pos[p].key_col, "unknown key \"%s\" in %s",
		       printable(key, k, sizeof k), where);
}

static void mark(layer *l, int bit, const spos *ps)
{
	l->set[bit] = true;
	l->line[bit] = ps->key_line;
	l->col[bit] = ps->key_col;
}

/* One member of an object: 0 taken, -1 failed (reported), 1 not a key of
 * this object. */
typedef int (*member_fn)(vctx *c, const char *key, json_t *val, size_t cp, void *ctx);

/* Every member of the object at p through fn; what names the object in
 * messages ("\"probe\"", "a group"). */
static int walk_object(vctx *c, json_t *obj, size_t p, const char *what, member_fn fn, void *ctx)
{
	const char *key;
	json_t *val;
	size_t cp = p + 1;

	if (!json_is_object(obj)) {
		return fail_at(c, c->pos[p].line, c->pos[p].col, "%s must be an object", what);
	}
	json_object_foreach(obj, key, val) {
		int r = fn(c, key, val, cp, ctx);
		if (r < 0) {
			return -1;
		}
		if (r > 0) {
			return unknown_key(c, cp, key, what);
		}
		cp += c->pos[cp].size;
	}
	return 0;
}

static int threshold_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	layer *l = ctx;
	const spos *ps = &c->pos[cp];
	size_t k = threshold_key_index(key);
	if (k == threshold_key_list()->n) {
		return 1;
	}
	const threshold_key *tk = threshold_key_list()->keys[k];
	char *field = (char *)&l->v.th + tk->offset;
	if (!json_is_number(val)) {
		return fail_at(c, ps->line, ps->col, "\"%s\" must be a number", tk->name);
	}
	double d = json_number_value(val);
	if (!isfinite(d) || d < 0) {
		return fail_at(c, ps->line, ps->col, "\"%s\" must be a finite number >= 0", tk->name);
	}
	if (tk->kind == THRESHOLD_DOUBLE) {
		memcpy(field, &d, sizeof d);
	} else if (!json_is_integer(val)) {
		return fail_at(c, ps->line, ps->col, "\"%s\" must be a whole number", tk->name);
	} else if (tk->kind == THRESHOLD_INT64) {
		int64_t i = (int64_t)json_integer_value(val);
		memcpy(field, &i, sizeof i);
	} else {
		json_int_t i = json_integer_value(val);
		if (i > INT_MAX) {
			return fail_at(c, ps->line, ps->col, "\"%s\" must be at most %d", tk->name, INT_MAX);
		}
		int v = (int)i;
		memcpy(field, &v, sizeof v);
	}
	mark(l, SET_THRESHOLD + (int)k, ps);
	return 0;
}

static int parse_expectation(vctx *c, json_t *val, const spos *ps, const char *key, expectation *out)
{
	const char *s = json_is_string(val) ? json_string_value(val) : "";
	if (strcmp(s, "auto") == 0) {
		*out = EXPECT_AUTO;
	} else if (strcmp(s, "yes") == 0) {
		*out = EXPECT_YES;
	} else if (strcmp(s, "no") == 0) {
		*out = EXPECT_NO;
	} else {
		return fail_at(c, ps->line, ps->col, "\"%s\" must be \"auto\", \"yes\" or \"no\"", key);
	}
	return 0;
}

static int expect_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	layer *l = ctx;
	const spos *ps = &c->pos[cp];
	expectation *field;
	int bit;
	if (strcmp(key, "chrony") == 0) {
		field = &l->v.th.expect_chrony;
		bit = SET_EXPECT_CHRONY;
	} else if (strcmp(key, "ptp") == 0) {
		field = &l->v.th.expect_ptp;
		bit = SET_EXPECT_PTP;
	} else {
		return 1;
	}
	if (parse_expectation(c, val, ps, key, field) != 0) {
		return -1;
	}
	mark(l, bit, ps);
	return 0;
}

/* As --iface accepts: what ip(8) allows, bounded by IFNAMSIZ. */
static bool valid_iface(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= NODE_SETTINGS_IFACE_LEN) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i])) {
			return false;
		}
	}
	return true;
}

static int probe_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	layer *l = ctx;
	const spos *ps = &c->pos[cp];
	/* "pmc_sudo" is the old name of "sudo" (it now runs phc_ctl too) */
	if (strcmp(key, "sudo") == 0 || strcmp(key, "pmc_sudo") == 0) {
		if (!json_is_boolean(val)) {
			return fail_at(c, ps->line, ps->col, "\"%s\" must be true or false", key);
		}
		if (l->set[SET_PMC_SUDO]) {
			return fail_at(c, ps->key_line, ps->key_col, "\"sudo\" and \"pmc_sudo\" (its old name) both set");
		}
		l->v.pmc_sudo = json_is_true(val);
		mark(l, SET_PMC_SUDO, ps);
	} else if (strcmp(key, "iface") == 0) {
		if (!json_is_string(val) || !valid_iface(json_string_value(val))) {
			return fail_at(c, ps->line, ps->col,
				       "\"iface\" must be an interface name (1-15 of A-Z a-z 0-9 _ . : -)");
		}
		snprintf(l->v.iface, sizeof l->v.iface, "%s", json_string_value(val));
		mark(l, SET_IFACE, ps);
	} else {
		return 1;
	}
	return 0;
}

/* An IPv4 or IPv6 address, or a DNS host name (RFC 1123 labels; the last
 * label not all digits, so a mistyped address is not taken for a name). */
static bool valid_host(const char *s)
{
	unsigned char addr[16];
	char name[254];
	size_t n = strlen(s);
	if (n == 0 || n > 253) {
		return false;
	}
	if (inet_pton(AF_INET, s, addr) == 1 || inet_pton(AF_INET6, s, addr) == 1) {
		return true;
	}
	memcpy(name, s, n + 1);
	if (name[n - 1] == '.') {
		name[--n] = '\0'; /* fully qualified */
	}
	bool all_digits = true;
	size_t label_len = 0;
	for (size_t i = 0; i <= n; i++) {
		char ch = name[i];
		if (ch == '.' || ch == '\0') {
			if (label_len == 0 || label_len > 63 || name[i - label_len] == '-' || name[i - 1] == '-') {
				return false;
			}
			if (ch == '\0') {
				break;
			}
			label_len = 0;
			all_digits = true;
			continue;
		}
		if (!isalnum((unsigned char)ch) && ch != '-') {
			return false;
		}
		if (!isdigit((unsigned char)ch)) {
			all_digits = false;
		}
		label_len++;
	}
	return !all_digits;
}

/* A PTP clock identity as pmc prints it: xxxxxx.xxxx.xxxxxx, hex. */
static bool valid_clock_id(const char *s)
{
	if (strlen(s) != 18) {
		return false;
	}
	for (size_t i = 0; i < 18; i++) {
		if (i == 6 || i == 11 ? s[i] != '.' : !isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

static int parse_upstream(vctx *c, json_t *val, const spos *ps, layer *l)
{
	if (!json_is_string(val) || !valid_host(json_string_value(val))) {
		return fail_at(c, ps->line, ps->col, "\"ntp_upstream\" must be a host name or an IP address");
	}
	snprintf(l->v.ntp_upstream, sizeof l->v.ntp_upstream, "%s", json_string_value(val));
	mark(l, SET_NTP_UPSTREAM, ps);
	return 0;
}

static int parse_grandmaster(vctx *c, json_t *val, const spos *ps, layer *l)
{
	if (!json_is_string(val) || !valid_clock_id(json_string_value(val))) {
		return fail_at(c, ps->line, ps->col,
			       "\"grandmaster\" must be a PTP clock identity like \"aabbcc.fffe.ddeeff\" (hex)");
	}
	const char *s = json_string_value(val);
	for (size_t i = 0; i < 18; i++) {
		l->v.grandmaster[i] = (char)tolower((unsigned char)s[i]);
	}
	l->v.grandmaster[18] = '\0';
	mark(l, SET_GRANDMASTER, ps);
	return 0;
}

static int parse_gm_traceable(vctx *c, json_t *val, const spos *ps, layer *l)
{
	if (!json_is_boolean(val)) {
		return fail_at(c, ps->line, ps->col, "\"gm_traceable\" must be true or false");
	}
	l->v.th.gm_traceable = json_is_true(val);
	mark(l, SET_GM_TRACEABLE, ps);
	return 0;
}

/* "for": {"chrony.offset": 60, ...}: how long each finding code must last
 * before the live view raises a node for it (finding_wait.h).  A name that
 * is no finding code is an unknown key. */
static int for_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	layer *l = ctx;
	const spos *ps = &c->pos[cp];
	const char *code = finding_code_lookup(key);
	if (!code) {
		return 1;
	}
	if (!json_is_number(val)) {
		return fail_at(c, ps->line, ps->col, "\"for\": \"%s\" must be a number of seconds", code);
	}
	double d = json_number_value(val);
	if (!isfinite(d) || d < 0 || d > CONF_MAX_WAIT_S) {
		return fail_at(c, ps->line, ps->col, "\"for\": \"%s\" must be between 0 and %d seconds", code,
			       CONF_MAX_WAIT_S);
	}
	if (finding_wait_set(&l->v.th, code, d) != 0) {
		return fail_at(c, ps->line, ps->col, "\"for\": at most %d codes per level", THRESHOLDS_MAX_WAITS);
	}
	return 0;
}

/* "transport": "libssh2" | "ssh"; "transport_cmd": a command template
 * (command_template.h), checked here so a bad one points at its line. */
static int parse_transport(vctx *c, const char *key, json_t *val, const spos *ps, layer *l)
{
	if (l->set[SET_TRANSPORT]) {
		return fail_at(c, ps->key_line, ps->key_col, "\"transport\" and \"transport_cmd\" both set: "
			       "\"transport_cmd\" alone says how to reach the nodes");
	}
	if (strcmp(key, "transport") == 0) {
		const char *v = json_is_string(val) ? json_string_value(val) : "";
		if (strcmp(v, "libssh2") == 0) {
			l->v.transport = NODE_TRANSPORT_LIBSSH2;
		} else if (strcmp(v, "ssh") == 0) {
			l->v.transport = NODE_TRANSPORT_SSH;
		} else {
			return fail_at(c, ps->line, ps->col, "\"transport\" must be \"libssh2\" or \"ssh\" "
				       "(a command goes in \"transport_cmd\")");
		}
		l->v.transport_cmd[0] = '\0';
	} else {
		command_template t;
		char why[160];
		if (!json_is_string(val) || strlen(json_string_value(val)) != json_string_length(val)) {
			return fail_at(c, ps->line, ps->col, "\"transport_cmd\" must be a string");
		}
		const char *v = json_string_value(val);
		if (json_string_length(val) >= sizeof l->v.transport_cmd) {
			return fail_at(c, ps->line, ps->col, "\"transport_cmd\" is longer than %zu bytes",
				       sizeof l->v.transport_cmd - 1);
		}
		if (command_template_split(v, &t, why, sizeof why) != 0) {
			return fail_at(c, ps->line, ps->col, "\"transport_cmd\": %s", why);
		}
		size_t hosts = command_template_host_count(&t);
		command_template_free(&t);
		if (hosts == 0) {
			return fail_at(c, ps->line, ps->col, "\"transport_cmd\" has no {host}: every node would "
				       "run the same command");
		}
		l->v.transport = NODE_TRANSPORT_CMD;
		snprintf(l->v.transport_cmd, sizeof l->v.transport_cmd, "%s", v);
	}
	mark(l, SET_TRANSPORT, ps);
	return 0;
}

/* "jump": what -J takes ("gw", "ops@gw1:2201,gw2", "none"), checked here
 * so a bad hop points at its line. */
static int parse_jump(vctx *c, json_t *val, const spos *ps, layer *l)
{
	ssh_jump_spec js;
	char why[384];
	if (!json_is_string(val) || json_string_length(val) == 0 ||
	    strlen(json_string_value(val)) != json_string_length(val)) {
		return fail_at(c, ps->line, ps->col, "\"jump\" must be a string: [user@]host[:port][,...] or \"none\"");
	}
	const char *v = json_string_value(val);
	if (json_string_length(val) >= sizeof l->v.jump) {
		return fail_at(c, ps->line, ps->col, "\"jump\" is longer than %zu bytes", sizeof l->v.jump - 1);
	}
	if (ssh_jump_spec_parse(v, &js, why, sizeof why) != 0) {
		return fail_at(c, ps->line, ps->col, "\"jump\": %s", why);
	}
	snprintf(l->v.jump, sizeof l->v.jump, "%s", v);
	mark(l, SET_JUMP, ps);
	return 0;
}

/* The keys a defaults object and a group share.  Returns 1 if key is not
 * one of them. */
static int parse_common(vctx *c, const char *key, json_t *val, size_t cp, layer *l)
{
	if (strcmp(key, "thresholds") == 0) {
		return walk_object(c, val, cp, "\"thresholds\"", threshold_member, l);
	} else if (strcmp(key, "probe") == 0) {
		return walk_object(c, val, cp, "\"probe\"", probe_member, l);
	} else if (strcmp(key, "expect") == 0) {
		return walk_object(c, val, cp, "\"expect\"", expect_member, l);
	} else if (strcmp(key, "ntp_upstream") == 0) {
		return parse_upstream(c, val, &c->pos[cp], l);
	} else if (strcmp(key, "grandmaster") == 0) {
		return parse_grandmaster(c, val, &c->pos[cp], l);
	} else if (strcmp(key, "gm_traceable") == 0) {
		return parse_gm_traceable(c, val, &c->pos[cp], l);
	} else if (strcmp(key, "for") == 0) {
		return walk_object(c, val, cp, "\"for\"", for_member, l);
	} else if (strcmp(key, "transport") == 0 || strcmp(key, "transport_cmd") == 0) {
		return parse_transport(c, key, val, &c->pos[cp], l);
	} else if (strcmp(key, "jump") == 0) {
		return parse_jump(c, val, &c->pos[cp], l);
	}
	return 1;
}

/* "state_dir": a run's, so in "defaults" only (state_store.h). */
static int parse_state_dir(vctx *c, json_t *val, const spos *ps, layer *l)
{
	const char *v = json_is_string(val) ? json_string_value(val) : NULL;
	if (!v || !v[0] || strlen(v) >= sizeof l->v.state_dir) {
		return fail_at(c, ps->line, ps->col, "\"state_dir\" must be a directory's path, at most %zu bytes",
			       sizeof l->v.state_dir - 1);
	}
	snprintf(l->v.state_dir, sizeof l->v.state_dir, "%s", v);
	mark(l, SET_STATE_DIR, ps);
	return 0;
}

static int defaults_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	if (strcmp(key, "state_dir") == 0) {
		return parse_state_dir(c, val, &c->pos[cp], ctx);
	}
	return parse_common(c, key, val, cp, ctx);
}

/* Does the raw text of the string at ps hold a backslash escape?  Then its
 * characters are not where their index says, and errors point at the
 * string's start instead. */
static bool raw_has_escape(vctx *c, const spos *ps, size_t len)
{
	/* the text up to the string's end: line/col -> offset */
	const char *q = c->text, *end = c->text + c->len;
	for (int line = 1; line < ps->line && q < end; q++) {
		if (*q == '\n') {
			line++;
		}
	}
	for (int col = 1; col < ps->col && q < end; q++) {
		if (((unsigned char)*q & 0xC0) != 0x80) {
			col++;
		}
	}
	return memchr(q, '\\', (size_t)(end - q) < len + 2 ? (size_t)(end - q) : len + 2) != NULL;
}

static int parse_hostlist(vctx *c, json_t *val, const spos *ps, group *g)
{
	char why[256];
	size_t column = 0;
	if (!json_is_string(val)) {
		return fail_at(c, ps->line, ps->col, "\"hosts\" must be a host list string or an array of them");
	}
	const char *s = json_string_value(val);
	size_t len = json_string_length(val);
	if (len == 0 || strlen(s) != len) {
		return fail_at(c, ps->line, ps->col, "\"hosts\": empty host list");
	}
	if (hostlist_expand_n(s, len, NULL, NULL, &column, why, sizeof why) != 0) {
		int col = raw_has_escape(c, ps, len) ? ps->col : ps->col + (int)column;
		return fail_at(c, ps->line, col, "\"hosts\": %s", why);
	}
	g->hosts = xrealloc(g->hosts, (g->n_hosts + 1) * sizeof *g->hosts);
	g->hosts[g->n_hosts++] = xstrdup(s);
	return 0;
}

/* ------------------------------------------------- a group's "prometheus" */

/* http(s)://host... without user:password@ (it would show in ps and logs). */
static bool valid_prometheus_url(const char *url)
{
	const char *host;
	if (strncmp(url, "http://", 7) == 0) {
		host = url + 7;
	} else if (strncmp(url, "https://", 8) == 0) {
		host = url + 8;
	} else {
		return false;
	}
	size_t n = strcspn(host, "/?#");
	return n > 0 && memchr(host, '@', n) == NULL;
}

static int prometheus_url(vctx *c, json_t *val, const spos *ps, conffile_prometheus *p)
{
	if (!json_is_string(val) || strlen(json_string_value(val)) != json_string_length(val) ||
	    !valid_prometheus_url(json_string_value(val))) {
		return fail_at(c, ps->line, ps->col, "a Prometheus URL must be an http:// or https:// URL without "
			       "user:password@ (credentials go in \"token_file\" or \"basic_auth_file\")");
	}
	p->urls = xrealloc(p->urls, (p->n_urls + 1) * sizeof *p->urls);
	p->urls[p->n_urls++] = xstrdup(json_string_value(val));
	return 0;
}

/* A non-empty string without NUL into *out. */
static int prometheus_string(vctx *c, const char *key, json_t *val, const spos *ps, char **out)
{
	if (!json_is_string(val) || json_string_length(val) == 0 ||
	    strlen(json_string_value(val)) != json_string_length(val)) {
		return fail_at(c, ps->line, ps->col, "\"%s\" must be a non-empty string", key);
	}
	*out = xstrdup(json_string_value(val));
	return 0;
}

static int prometheus_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	conffile_prometheus *p = ctx;
	const spos *ps = &c->pos[cp];
	if (strcmp(key, "url") == 0) {
		return prometheus_url(c, val, ps, p);
	} else if (strcmp(key, "urls") == 0) {
		size_t ep = cp + 1, i;
		json_t *e;
		if (!json_is_array(val) || json_array_size(val) == 0) {
			return fail_at(c, ps->line, ps->col, "\"urls\" must be a non-empty array of URLs");
		}
		json_array_foreach(val, i, e) {
			if (prometheus_url(c, e, &c->pos[ep], p) != 0) {
				return -1;
			}
			ep += c->pos[ep].size;
		}
		return 0;
	} else if (strcmp(key, "selector") == 0) {
		if (prometheus_string(c, key, val, ps, &p->selector) != 0) {
			return -1;
		}
		size_t n = strlen(p->selector);
		if (p->selector[0] != '{' || p->selector[n - 1] != '}') {
			return fail_at(c, ps->line, ps->col, "\"selector\" must be label matchers in braces, "
				       "e.g. {job=\"node\"}");
		}
		return 0;
	} else if (strcmp(key, "node_label") == 0) {
		if (prometheus_string(c, key, val, ps, &p->node_label) != 0) {
			return -1;
		}
		for (const char *q = p->node_label; *q; q++) {
			if (!isalnum((unsigned char)*q) && *q != '_') {
				return fail_at(c, ps->line, ps->col, "\"node_label\" must be a label name "
					       "(A-Z a-z 0-9 _)");
			}
		}
		return 0;
	} else if (strcmp(key, "ca") == 0) {
		return prometheus_string(c, key, val, ps, &p->ca);
	} else if (strcmp(key, "token_file") == 0) {
		return prometheus_string(c, key, val, ps, &p->token_file);
	} else if (strcmp(key, "basic_auth_file") == 0) {
		return prometheus_string(c, key, val, ps, &p->basic_auth_file);
	}
	return 1;
}

static int parse_prometheus(vctx *c, json_t *val, size_t cp, group *g)
{
	const spos *ps = &c->pos[cp];
	g->has_prometheus = true;
	if (walk_object(c, val, cp, "\"prometheus\"", prometheus_member, &g->prometheus) != 0) {
		return -1;
	}
	if (g->prometheus.n_urls == 0) {
		return fail_at(c, ps->line, ps->col, "\"prometheus\" needs \"url\" or \"urls\"");
	}
	if (g->prometheus.token_file && g->prometheus.basic_auth_file) {
		return fail_at(c, ps->line, ps->col, "\"prometheus\": \"token_file\" and \"basic_auth_file\": "
			       "one or the other");
	}
	return 0;
}

static void free_prometheus(conffile_prometheus *p)
{
	for (size_t i = 0; i < p->n_urls; i++) {
		free(p->urls[i]);
	}
	free(p->urls);
	free(p->selector);
	free(p->node_label);
	free(p->ca);
	free(p->token_file);
	free(p->basic_auth_file);
	memset(p, 0, sizeof *p);
}

static int group_member(vctx *c, const char *key, json_t *val, size_t cp, void *ctx)
{
	group *g = ctx;
	const spos *ps = &c->pos[cp];
	int r = parse_common(c, key, val, cp, &g->l);
	if (r <= 0) {
		return r;
	}
	if (strcmp(key, "name") == 0) {
		if (!json_is_string(val) || json_string_length(val) == 0 ||
		    strlen(json_string_value(val)) != json_string_length(val)) {
			return fail_at(c, ps->line, ps->col, "\"name\" must be a non-empty string");
		}
		free(g->name); /* jansson rejects a repeated key; keep free safe anyway */
		g->name = xstrdup(json_string_value(val));
	} else if (strcmp(key, "prometheus") == 0) {
		return parse_prometheus(c, val, cp, g);
	} else if (strcmp(key, "hosts") == 0) {
		if (json_is_array(val)) {
			size_t ep = cp + 1, i;
			json_t *e;
			if (json_array_size(val) == 0) {
				return fail_at(c, ps->line, ps->col, "\"hosts\": empty array");
			}
			json_array_foreach(val, i, e) {
				if (parse_hostlist(c, e, &c->pos[ep], g) != 0) {
					return -1;
				}
				ep += c->pos[ep].size;
			}
		} else if (parse_hostlist(c, val, ps, g) != 0) {
			return -1;
		}
	} else {
		return 1;
	}
	return 0;
}

static int parse_group(vctx *c, json_t *obj, size_t p, group *g)
{
	if (walk_object(c, obj, p, "a group", group_member, g) != 0) {
		return -1;
	}
	if (!g->name) {
		return fail_at(c, c->pos[p].line, c->pos[p].col, "this group has no \"name\"");
	}
	if (!g->n_hosts) {
		return fail_at(c, c->pos[p].line, c->pos[p].col, "group \"%s\" has no \"hosts\"",
			       printable(g->name, (char[80]){0}, 80));
	}
	return 0;
}

static void apply(const layer *l, node_settings *out)
{
	const key_list *kl = threshold_key_list();
	for (size_t k = 0; k < kl->n; k++) {
		if (l->set[SET_THRESHOLD + k]) {
			size_t off = kl->keys[k]->offset;
			size_t size = kl->keys[k]->kind == THRESHOLD_INT ? sizeof(int) : 8;
			memcpy((char *)&out->th + off, (const char *)&l->v.th + off, size);
		}
	}
	if (l->set[SET_EXPECT_CHRONY]) {
		out->th.expect_chrony = l->v.th.expect_chrony;
	}
	if (l->set[SET_EXPECT_PTP]) {
		out->th.expect_ptp = l->v.th.expect_ptp;
	}
	if (l->set[SET_PMC_SUDO]) {
		out->pmc_sudo = l->v.pmc_sudo;
	}
	if (l->set[SET_IFACE]) {
		memcpy(out->iface, l->v.iface, sizeof out->iface);
	}
	if (l->set[SET_NTP_UPSTREAM]) {
		memcpy(out->ntp_upstream, l->v.ntp_upstream, sizeof out->ntp_upstream);
	}
	if (l->set[SET_GRANDMASTER]) {
		memcpy(out->grandmaster, l->v.grandmaster, sizeof out->grandmaster);
	}
	if (l->set[SET_GM_TRACEABLE]) {
		out->th.gm_traceable = l->v.th.gm_traceable;
	}
	for (int i = 0; i < l->v.th.n_waits; i++) {
		/* room for every code (finding_wait.c): never fails */
		(void)finding_wait_set(&out->th, l->v.th.waits[i].code, l->v.th.waits[i].seconds);
	}
	if (l->set[SET_STATE_DIR]) {
		memcpy(out->state_dir, l->v.state_dir, sizeof out->state_dir);
	}
	if (l->set[SET_TRANSPORT]) {
		out->transport = l->v.transport;
		memcpy(out->transport_cmd, l->v.transport_cmd, sizeof out->transport_cmd);
	}
	if (l->set[SET_JUMP]) {
		memcpy(out->jump, l->v.jump, sizeof out->jump);
	}
}

static double th_value(const thresholds *th, const threshold_key *k)
{
	const char *field = (const char *)th + k->offset;
	switch (k->kind) {
	case THRESHOLD_DOUBLE: {
		double d;
		memcpy(&d, field, sizeof d);
		return d;
	}
	case THRESHOLD_INT64: {
		int64_t i;
		memcpy(&i, field, sizeof i);
		return (double)i;
	}
	case THRESHOLD_INT: {
		int i;
		memcpy(&i, field, sizeof i);
		return i;
	}
	}
	return 0;
}

static int64_t th_int64(const thresholds *th, const threshold_key *k)
{
	int64_t i;
	memcpy(&i, (const char *)th + k->offset, sizeof i);
	return i;
}

/* Is warn w above crit k?  int64 limits are compared as int64: above 2^53
 * two different ones can round to the same double, and a warn above its
 * crit would pass (and both print alike with %g). */
static bool th_above(const thresholds *th, const threshold_key *w, const threshold_key *k)
{
	if (w->kind == THRESHOLD_INT64 && k->kind == THRESHOLD_INT64) {
		return th_int64(th, w) > th_int64(th, k);
	}
	return th_value(th, w) > th_value(th, k);
}

static const char *th_text(const thresholds *th, const threshold_key *k, char *buf, size_t len)
{
	if (k->kind == THRESHOLD_INT64) {
		snprintf(buf, len, "%" PRId64, th_int64(th, k));
	} else {
		snprintf(buf, len, "%g", th_value(th, k));
	}
	return buf;
}

/* After merging l over base: every warn <= its crit (threshold_key.crit).
 * The error points at the key of l that broke it (l set at least one of the
 * pair, or base would already have failed). */
static int check_pairs(vctx *c, const node_settings *base, const layer *l, const char *where)
{
	const key_list *kl = threshold_key_list();
	node_settings merged = *base;
	apply(l, &merged);
	for (size_t w = 0; w < kl->n; w++) {
		if (kl->keys[w]->crit == NULL) {
			continue;
		}
		size_t k = threshold_key_index(kl->keys[w]->crit);
		if (k == kl->n || !(l->set[SET_THRESHOLD + w] || l->set[SET_THRESHOLD + k])) {
			continue;
		}
		const threshold_key *wk = kl->keys[w], *kk = kl->keys[k];
		if (th_above(&merged.th, wk, kk)) {
			size_t at = SET_THRESHOLD + (l->set[SET_THRESHOLD + w] ? w : k);
			char wt[32], kt[32];
			return fail_at(c, l->line[at], l->col[at], "\"%s\" (%s) is above \"%s\" (%s)%s",
				       wk->name, th_text(&merged.th, wk, wt, sizeof wt),
				       kk->name, th_text(&merged.th, kk, kt, sizeof kt), where);
		}
	}
	return 0;
}

static void free_groups(group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t h = 0; h < groups[i].n_hosts; h++) {
			free(groups[i].hosts[h]);
		}
		free(groups[i].hosts);
		free(groups[i].name);
		free_prometheus(&groups[i].prometheus);
	}
	free(groups);
}

static int parse_root(vctx *c, json_t *root, conffile *cf)
{
	const char *key;
	json_t *val;
	size_t cp = 1;
	node_settings base;

	if (!json_is_object(root)) {
		return fail_at(c, c->pos[0].line, c->pos[0].col, "the configuration must be a JSON object");
	}
	json_object_foreach(root, key, val) {
		const spos *ps = &c->pos[cp];
		if (strcmp(key, "defaults") == 0) {
			if (walk_object(c, val, cp, "\"defaults\"", defaults_member, &cf->defaults) != 0) {
				return -1;
			}
		} else if (strcmp(key, "groups") == 0) {
			size_t ep = cp + 1, i;
			json_t *e;
			if (!json_is_array(val)) {
				return fail_at(c, ps->line, ps->col, "\"groups\" must be an array");
			}
			cf->groups = xcalloc(json_array_size(val) ? json_array_size(val) : 1, sizeof *cf->groups);
			json_array_foreach(val, i, e) {
				group *g = &cf->groups[cf->n_groups++];
				if (parse_group(c, e, ep, g) != 0) {
					return -1;
				}
				ep += c->pos[ep].size;
			}
		} else {
			return unknown_key(c, cp, key, "the top level");
		}
		cp += ps->size;
	}
	/* Every node ends up with defaults alone or defaults + one group. */
	node_settings_init(&base);
	if (check_pairs(c, &base, &cf->defaults, "") != 0) {
		return -1;
	}
	apply(&cf->defaults, &base);
	for (size_t i = 0; i < cf->n_groups; i++) {
		if (check_pairs(c, &base, &cf->groups[i].l, " once merged with \"defaults\"") != 0) {
			return -1;
		}
	}
	return 0;
}

int conffile_parse(const char *text, size_t len, const char *name, conffile **out, char *err, size_t err_len)
{
	json_error_t jerr;
	scanner sc = {.p = text, .end = text + len, .line = 1, .col = 1};
	vctx c = {.name = name, .text = text, .len = len, .err = err, .err_len = err_len};
	conffile *cf;
	int rc;

	if (len > CONFFILE_MAX_BYTES) {
		snprintf(err, err_len, "%s: larger than %d bytes", name, CONFFILE_MAX_BYTES);
		return -1;
	}
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		/* jansson quotes the offending bytes of the file, raw: show
		 * them rather than drop them (with what follows) */
		char why[4 * sizeof jerr.text];
		sanitize_show(jerr.text, strlen(jerr.text), why, sizeof why);
		snprintf(err, err_len, "%s:%d:%d: %s", name, jerr.line > 0 ? jerr.line : 1,
			 jerr.column > 0 ? jerr.column : 1, why);
		return -1;
	}
	sc_skip_ws(&sc);
	sc_value(&sc, 0, 0);
	c.pos = sc.v;
	cf = xcalloc(1, sizeof *cf);
	rc = parse_root(&c, root, cf);
	json_decref(root);
	free(sc.v);
	if (rc != 0) {
		conffile_free(cf);
		return -1;
	}
	*out = cf;
	return 0;
}

int conffile_load(const char *path, conffile **out, char *err, size_t err_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;
	int rc;

	if (!f) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	/* One byte more than allowed tells "too large" from "exactly full". */
	buf = xmalloc(CONFFILE_MAX_BYTES + 1);
	n = fread(buf, 1, CONFFILE_MAX_BYTES + 1, f);
	if (ferror(f)) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	rc = conffile_parse(buf, n, path, out, err, err_len);
	free(buf);
	return rc;
}

void conffile_free(conffile *cf)
{
	if (!cf) {
		return;
	}
	free_groups(cf->groups, cf->n_groups);
	free(cf);
}

typedef struct {
	const char *host;
	bool found;
} match_ctx;

static int match_cb(const char *host, void *ctx)
{
	match_ctx *m = ctx;
	if (strcasecmp(host, m->host) == 0) {
		m->found = true;
		return 1; /* stop: found */
	}
	return 0;
}

int conffile_resolve(const conffile *cf, const char *host, node_settings *out)
{
	node_settings_init(out);
	if (!cf) {
		return -1;
	}
	apply(&cf->defaults, out);
	for (size_t i = 0; i < cf->n_groups; i++) {
		const group *g = &cf->groups[i];
		for (size_t h = 0; h < g->n_hosts; h++) {
			char why[256];
			match_ctx m = {host, false};
			/* validated at parse time: -1 here means the callback found it */
			hostlist_expand(g->hosts[h], match_cb, &m, why, sizeof why);
			if (m.found) {
				apply(&g->l, out);
				out->group = (int)i + 1;
				snprintf(out->group_name, sizeof out->group_name, "%s", g->name);
				return (int)i;
			}
		}
	}
	return -1;
}

size_t conffile_group_count(const conffile *cf)
{
	return cf ? cf->n_groups : 0;
}

const char *conffile_group_name(const conffile *cf, size_t i)
{
	return cf && i < cf->n_groups ? cf->groups[i].name : NULL;
}

const conffile_prometheus *conffile_group_prometheus(const conffile *cf, size_t i)
{
	return cf && i < cf->n_groups && cf->groups[i].has_prometheus ? &cf->groups[i].prometheus : NULL;
}
