/* probe.c - the remote probe script, its request line and the splitter for
 * its responses.  The protocol is described in probe.h. */
#include <config.h>

#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "xalloc.h"

/* POSIX sh only, no single quote anywhere (it travels inside '...').
 * Every tool runs with stdin from /dev/null so it cannot eat the requests
 * that follow, and with stderr in a private file that is replayed with
 * shell builtins (no fork per section).  The replay loop prints the last,
 * unterminated line without adding a newline, so stderr stays exact.
 * The collectors' functions and commands go between the prologue and the
 * loop's end (probe_script()). */
static const char script_prologue[] =
	"PATH=\"$PATH:/usr/sbin:/sbin\"; export PATH\n"
	"LC_ALL=C; export LC_ALL\n"
	"e=$(mktemp 2>/dev/null) || e=\n"
	"if [ -z \"$e\" ]; then\n"
	"	for s in 1 2 3; do\n"
	"		f=\"${TMPDIR:-/tmp}/synctop.$$.$s\"\n"
	/* noclobber: never reuse (or follow a symlink to) an existing file */
	"		if (umask 077; set -C; : >\"$f\") 2>/dev/null; then e=$f; break; fi\n"
	"	done\n"
	"fi\n"
	"synctop_cleanup() { if [ -n \"$e\" ]; then rm -f \"$e\"; fi; }\n"
	"trap synctop_cleanup EXIT\n"
	"trap \"exit 129\" HUP; trap \"exit 130\" INT; trap \"exit 141\" PIPE; trap \"exit 143\" TERM\n"
	"synctop_run() {\n"
	"	n=$1; shift\n"
	"	printf \"@@synctop %s section %s\\n\" \"$nonce\" \"$n\"\n"
	"	if [ -n \"$e\" ]; then \"$@\" </dev/null 2>\"$e\"; else \"$@\" </dev/null 2>/dev/null; fi\n"
	"	r=$?\n"
	"	printf \"\\n@@synctop %s stderr\\n\" \"$nonce\"\n"
	"	if [ -n \"$e\" ] && [ -r \"$e\" ]; then\n"
	"		l=\n"
	"		while IFS= read -r l; do printf \"%s\\n\" \"$l\"; done <\"$e\"\n"
	"		printf \"%s\" \"$l\"\n"
	"	elif [ -z \"$e\" ]; then\n"
	"		printf \"%s\" \"synctop: stderr not captured (no private temp file)\"\n"
	"	fi\n"
	"	printf \"\\n@@synctop %s rc %s\\n\" \"$nonce\" \"$r\"\n"
	"}\n"
	"synctop_iface_ok() {\n"
	"	case $1 in \"\"|-*|*[!A-Za-z0-9_.:-]*) return 1 ;; esac\n"
	"	[ ${#1} -le 15 ]\n"
	"}\n"
	/* 1 to 4 names (PROBE_IFACE_LIST_MAX) separated by single commas */
	"synctop_ifaces_ok() {\n"
	"	s=$1; k=0\n"
	"	while :; do\n"
	"		synctop_iface_ok \"${s%%,*}\" || return 1\n"
	"		k=$((k + 1)); [ $k -le 4 ] || return 1\n"
	"		case $s in *,*) s=${s#*,} ;; *) return 0 ;; esac\n"
	"	done\n"
	"}\n";

/* After the collectors' functions: the request loop up to the first
 * collector's command. */
static const char script_loop_head[] =
	"printf \"@@synctop ready\\n\"\n"
	"while read -r nonce flags iface; do\n"
	"	case $nonce in *[!0-9a-f]*) continue ;; esac\n"
	"	[ ${#nonce} -eq 16 ] || continue\n"
	"	synctop_ifaces_ok \"$iface\" || iface=-\n"
	"	case $flags in *S*) sudo=\"sudo -n\" ;; *) sudo= ;; esac\n"
	"	printf \"@@synctop %s begin\\n\" \"$nonce\"\n"
	"	synctop_run time date +%s.%N\n"
	/* a clock exchange: as little as possible between request and answer */
	"	case $flags in *T*) printf \"@@synctop %s end\\n\" \"$nonce\"; continue ;; esac\n";

static const char script_loop_tail[] =
	"	printf \"@@synctop %s end\\n\" \"$nonce\"\n"
	"done\n";

static void append(char *buf, size_t cap, size_t *len, const char *text)
{
	size_t n = strlen(text);
	if (*len + n < cap) {
		memcpy(buf + *len, text, n + 1);
	}
	*len += n;
}

/* Writes the script into buf (when it fits) and returns its length. */
static size_t build_script(char *buf, size_t cap)
{
	size_t len = 0;
	if (cap > 0) {
		buf[0] = '\0';
	}
	append(buf, cap, &len, script_prologue);
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (collector_registry[i]->shell_functions) {
			append(buf, cap, &len, collector_registry[i]->shell_functions);
		}
	}
	append(buf, cap, &len, script_loop_head);
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		char flag[32] = "";
		if (!c->command) {
			continue; /* filled by another source (collector.h) */
		}
		if (c->cadence == COLLECT_PERIODIC) {
			snprintf(flag, sizeof flag, "	case $flags in *%c*)", c->request_flag);
			append(buf, cap, &len, flag);
		}
		append(buf, cap, &len, "	synctop_run ");
		append(buf, cap, &len, c->name);
		append(buf, cap, &len, " ");
		append(buf, cap, &len, c->command);
		append(buf, cap, &len, c->cadence == COLLECT_PERIODIC ? " ;; esac\n" : "\n");
	}
	append(buf, cap, &len, script_loop_tail);
	return len;
}

const char *probe_script(void)
{
	static char *script;
	if (script == NULL) {
		size_t len = build_script(NULL, 0);
		char *s = xmalloc(len + 1);
		build_script(s, len + 1);
		script = s;
	}
	return script;
}

#define MARKER_TAG "@@synctop "
#define MARKER_TAG_LEN (sizeof MARKER_TAG - 1)
#define PREFIX_LEN (MARKER_TAG_LEN + PROBE_NONCE_LEN + 1)

int probe_command(char *buf, size_t len)
{
	int n = snprintf(buf, len, "exec sh -c '%s'", probe_script());
	if (n < 0 || (size_t)n >= len) {
		return -1;
	}
	return n;
}

static bool is_hex_lower(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

bool probe_nonce_valid(const char *nonce)
{
	if (nonce == NULL) {
		return false;
	}
	for (size_t i = 0; i < PROBE_NONCE_LEN; i++) {
		if (!is_hex_lower(nonce[i])) {
			return false;
		}
	}
	return nonce[PROBE_NONCE_LEN] == '\0';
}

bool probe_iface_valid(const char *iface)
{
	if (iface == NULL || iface[0] == '\0' || iface[0] == '-') {
		return false; /* a leading '-' would reach ethtool as an option */
	}
	size_t i = 0;
	for (; iface[i] != '\0'; i++) {
		char c = iface[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' || c == '-';
		if (!ok || i >= PROBE_IFACE_MAX) {
			return false;
		}
	}
	return true;
}

bool probe_iface_list_valid(const char *list)
{
	if (list == NULL) {
		return false;
	}
	char name[PROBE_IFACE_MAX + 2];
	int count = 0;
	const char *p = list;
	for (;;) {
		size_t n = strcspn(p, ",");
		if (n > PROBE_IFACE_MAX || ++count > PROBE_IFACE_LIST_MAX) {
			return false;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!probe_iface_valid(name)) {
			return false;
		}
		if (p[n] == '\0') {
			return true;
		}
		p += n + 1;
	}
}

int probe_request_format(char *buf, size_t len, const char *nonce, unsigned flags,
			 const char *iface)
{
	unsigned known = PROBE_FLAG_SUDO_PMC | PROBE_FLAG_TIME_ONLY;
	for (size_t i = 0; i < collector_registry_count; i++) {
		if (collector_registry[i]->cadence == COLLECT_PERIODIC) {
			known |= collector_registry[i]->request_bit;
		}
	}
	if (!probe_nonce_valid(nonce) || (flags & ~known) != 0) {
		return -1;
	}
	if (iface == NULL || iface[0] == '\0' || strcmp(iface, "-") == 0) {
		iface = "-";
	} else if (!probe_iface_list_valid(iface)) {
		return -1;
	}
	char letters[PROBE_MAX_SECTIONS + 4];
	size_t k = 0;
	if (flags & PROBE_FLAG_TIME_ONLY) {
		letters[k++] = 'T';
		flags = 0; /* the shell ignores the rest: do not pretend otherwise */
	}
	for (size_t i = 0; i < collector_registry_count && k < PROBE_MAX_SECTIONS; i++) {
		const collector *c = collector_registry[i];
		if (c->cadence == COLLECT_PERIODIC && (flags & c->request_bit)) {
			letters[k++] = c->request_flag;
		}
	}
	if (flags & PROBE_FLAG_SUDO_PMC) {
		letters[k++] = 'S';
	}
	if (k == 0) {
		letters[k++] = '-';
	}
	letters[k] = '\0';
	int n = snprintf(buf, len, "%s %s %s\n", nonce, letters, iface);
	if (n < 0 || (size_t)n >= len) {
		return -1;
	}
	return n;
}

unsigned probe_request_flags(const char *letters, size_t n)
{
	unsigned flags = 0;
	for (size_t k = 0; k < n; k++) {
		if (letters[k] == 'S') {
			flags |= PROBE_FLAG_SUDO_PMC;
		} else if (letters[k] == 'T') {
			flags |= PROBE_FLAG_TIME_ONLY;
		}
		for (size_t i = 0; i < collector_registry_count; i++) {
			const collector *c = collector_registry[i];
			if (c->cadence == COLLECT_PERIODIC && letters[k] == c->request_flag) {
				flags |= c->request_bit;
			}
		}
	}
	return flags;
}

int probe_nonce_generate(char out[PROBE_NONCE_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[PROBE_NONCE_LEN / 2];
	size_t got = 0;

	out[0] = '\0';
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return -1;
	}
	while (got < sizeof raw) {
		ssize_t n = read(fd, raw + got, sizeof raw - got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			int saved = n < 0 ? errno : EIO;
			close(fd);
			errno = saved;
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	for (size_t i = 0; i < sizeof raw; i++) {
		out[2 * i] = hex[raw[i] >> 4];
		out[2 * i + 1] = hex[raw[i] & 0x0f];
	}
	out[PROBE_NONCE_LEN] = '\0';
	return 0;
}

/* ------------------------------------------------------------ splitting */

typedef enum {
	MARK_NONE,    /* no marker line starts at or after the position */
	MARK_PARTIAL, /* a marker line starts but its newline has not arrived */
	MARK_FOUND,
} mark_result;

typedef struct {
	size_t start;    /* offset of the '@' */
	const char *kw;  /* the text after "@@synctop NONCE " */
	size_t kw_len;
	size_t next;     /* offset just past the marker's '\n' */
} marker;

/* Find the next line starting at or after pos (which must be a line start)
 * that begins with prefix. */
static mark_result next_marker(const char *buf, size_t len, size_t pos, const char *prefix,
			       marker *m)
{
	while (pos < len) {
		size_t avail = len - pos;
		size_t cmp = avail < PREFIX_LEN ? avail : PREFIX_LEN;
		if (memcmp(buf + pos, prefix, cmp) == 0) {
			if (avail < PREFIX_LEN) {
				return MARK_PARTIAL; /* may still become a marker */
			}
			const char *nl = memchr(buf + pos + PREFIX_LEN, '\n', len - pos - PREFIX_LEN);
			if (nl == NULL) {
				return MARK_PARTIAL;
			}
			m->start = pos;
			m->kw = buf + pos + PREFIX_LEN;
			m->kw_len = (size_t)(nl - m->kw);
			m->next = (size_t)(nl - buf) + 1;
			return MARK_FOUND;
		}
		const char *nl = memchr(buf + pos, '\n', avail);
		if (nl == NULL) {
			return MARK_NONE;
		}
		pos = (size_t)(nl - buf) + 1;
	}
	return MARK_NONE;
}

static void make_prefix(char prefix[PREFIX_LEN + 1], const char *nonce)
{
	memcpy(prefix, MARKER_TAG, MARKER_TAG_LEN);
	memcpy(prefix + MARKER_TAG_LEN, nonce, PROBE_NONCE_LEN);
	prefix[PREFIX_LEN - 1] = ' ';
	prefix[PREFIX_LEN] = '\0';
}

static bool kw_is(const marker *m, const char *word)
{
	size_t n = strlen(word);
	return m->kw_len == n && memcmp(m->kw, word, n) == 0;
}

/* "WORD ARG": returns ARG in *arg. */
static bool kw_with_arg(const marker *m, const char *word, const char **arg, size_t *arg_len)
{
	size_t n = strlen(word);
	if (m->kw_len <= n + 1 || memcmp(m->kw, word, n) != 0 || m->kw[n] != ' ') {
		return false;
	}
	*arg = m->kw + n + 1;
	*arg_len = m->kw_len - n - 1;
	return true;
}

static bool valid_section_name(const char *p, size_t len)
{
	if (len == 0 || len > PROBE_SECTION_NAME_MAX) {
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
			return false;
		}
	}
	return true;
}

/* An exit status as the shell prints $?: digits, no sign, small. */
static bool parse_rc(const char *p, size_t len, int *rc)
{
	if (len == 0 || len > 5) {
		return false;
	}
	int v = 0;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9') {
			return false;
		}
		v = v * 10 + (p[i] - '0');
	}
	*rc = v;
	return true;
}

/* The body runs from start to the marker, minus the one '\n' the script
 * printed in front of the marker. */
static bool body_before(const char *buf, size_t start, const marker *m, const char **p, size_t *len)
{
	if (m->start <= start || buf[m->start - 1] != '\n') {
		return false;
	}
	*p = buf + start;
	*len = m->start - 1 - start;
	return true;
}

static int malformed(probe_response *out, const char *why)
{
	out->reason = why;
	return PROBE_MALFORMED;
}

size_t probe_find_end(const char *buf, size_t len, const char *nonce)
{
	char prefix[PREFIX_LEN + 1];
	marker m;
	size_t pos = 0;

	if (buf == NULL || !probe_nonce_valid(nonce)) {
		return 0;
	}
	make_prefix(prefix, nonce);
	while (next_marker(buf, len, pos, prefix, &m) == MARK_FOUND) {
		if (kw_is(&m, "end")) {
			return m.next;
		}
		pos = m.next;
	}
	return 0;
}

int probe_split(const char *buf, size_t len, const char *nonce, probe_response *out)
{
	enum { WANT_BEGIN, WANT_SECTION, IN_STDOUT, IN_STDERR } state = WANT_BEGIN;
	char prefix[PREFIX_LEN + 1];
	probe_section overflow; /* sections past the array are checked, then dropped */
	probe_section *cur = NULL;
	size_t pos = 0, body = 0;
	marker m;

	memset(out, 0, sizeof *out);
	if (!probe_nonce_valid(nonce)) {
		return malformed(out, "invalid nonce");
	}
	if (buf == NULL) {
		len = 0;
		buf = "";
	}
	make_prefix(prefix, nonce);

	for (;;) {
		if (next_marker(buf, len, pos, prefix, &m) != MARK_FOUND) {
			/* keep what has arrived so far, raw, for a transport that
			 * has to report a shell that died mid-section */
			if (state == IN_STDOUT) {
				cur->out = buf + body;
				cur->out_len = len - body;
			} else if (state == IN_STDERR) {
				cur->err = buf + body;
				cur->err_len = len - body;
			}
			return PROBE_INCOMPLETE;
		}
		const char *arg;
		size_t arg_len;

		switch (state) {
		case WANT_BEGIN:
			if (!kw_is(&m, "begin")) {
				return malformed(out, "marker before the begin marker");
			}
			out->begun = true;
			state = WANT_SECTION;
			break;
		case WANT_SECTION:
			if (kw_is(&m, "end")) {
				out->end = m.next;
				return PROBE_COMPLETE;
			}
			if (!kw_with_arg(&m, "section", &arg, &arg_len)) {
				return malformed(out, "expected a section or the end marker");
			}
			if (!valid_section_name(arg, arg_len)) {
				return malformed(out, "invalid section name");
			}
			if (out->n_sections < PROBE_MAX_SECTIONS) {
				cur = &out->sections[out->n_sections++];
			} else {
				cur = &overflow;
				out->n_ignored++;
			}
			memset(cur, 0, sizeof *cur);
			cur->name = arg;
			cur->name_len = arg_len;
			cur->rc = -1;
			body = m.next;
			state = IN_STDOUT;
			break;
		case IN_STDOUT:
			if (!kw_is(&m, "stderr")) {
				return malformed(out, "expected the stderr marker");
			}
			if (!body_before(buf, body, &m, &cur->out, &cur->out_len)) {
				return malformed(out, "stderr marker not preceded by a newline");
			}
			body = m.next;
			state = IN_STDERR;
			break;
		case IN_STDERR:
			if (!kw_with_arg(&m, "rc", &arg, &arg_len)) {
				return malformed(out, "expected the rc marker");
			}
			if (!body_before(buf, body, &m, &cur->err, &cur->err_len)) {
				return malformed(out, "rc marker not preceded by a newline");
			}
			if (!parse_rc(arg, arg_len, &cur->rc)) {
				return malformed(out, "invalid exit status");
			}
			cur->complete = true;
			state = WANT_SECTION;
			break;
		}
		pos = m.next;
	}
}

const probe_section *probe_section_find(const probe_response *resp, const char *name)
{
	size_t n = strlen(name);
	for (int i = 0; i < resp->n_sections; i++) {
		const probe_section *s = &resp->sections[i];
		if (s->name_len == n && memcmp(s->name, name, n) == 0) {
			return s;
		}
	}
	return NULL;
}

void probe_section_tool_output(const probe_section *sec, tool_output *dst)
{
	dst->out = sec->out;
	dst->out_len = sec->out_len;
	dst->err = sec->err;
	dst->err_len = sec->err_len;
	dst->rc = sec->complete ? sec->rc : -1;
}
