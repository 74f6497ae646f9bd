/* probe.h - the remote probe: one long-lived POSIX sh per node, one request
 * line per poll, one delimited response per request.
 *
 * Starting it.  probe_script() is the whole program; it contains no single
 * quote, so it can be passed as `sh -c '<probe_script>'`:
 *   - SSH exec channel: send probe_command() (that string with `exec ` in
 *     front).  The login shell must understand POSIX single quotes spanning
 *     lines (sh, dash, bash, ksh, zsh, busybox ash); csh and fish do not.
 *   - local transport: execl("/bin/sh", "sh", "-c", probe_script(), (char *)0).
 * Once set up the shell prints "@@synctop ready\n".  It exits when its stdin
 * reaches EOF, removing its private stderr temp file (EXIT trap).
 *
 * Request (probe_request_format):  "NONCE FLAGS IFACES\n"
 *   NONCE  16 lowercase hex digits, new for every poll; other lines are ignored
 *   FLAGS  letters: one per periodic collector to run this poll (its
 *          request_flag, collector.h: E = ethtool, L = chronyc selectdata),
 *          S = run the tools that honour $sudo through `sudo -n`,
 *          T = a clock exchange: answer the time section alone (the other
 *          letters are then ignored); "-" for none
 *   IFACES 1 to PROBE_IFACE_LIST_MAX interface names separated by ','
 *          (E runs ethtool on each), each [A-Za-z0-9_.:-]{1,15} not
 *          starting with '-'; or "-" = unknown: with E the shell then uses
 *          the default-route interface of /proc/net/route, and if there is
 *          none it answers the ethtool section with rc PROBE_RC_NO_IFACE and
 *          a message on stderr.  A list the shell does not accept whole is
 *          "-".
 *
 * Response, every marker alone on its own line:
 *   @@synctop NONCE begin
 *   @@synctop NONCE section NAME        (time, then each collector's name)
 *   <stdout verbatim>\n                 <- the script adds this "\n"
 *   @@synctop NONCE stderr
 *   <stderr>\n                          <- and this one
 *   @@synctop NONCE rc N
 *   ... more sections ...
 *   @@synctop NONCE end
 * The splitter removes exactly the one added "\n", so bodies are exact with
 * or without their own final newline.  Only lines that start with
 * "@@synctop NONCE " for this poll's nonce are markers: anything a tool
 * prints, fake markers with other nonces included, stays body text.
 * stderr is replayed with `read`, so a NUL byte in it is lost; stdout is not
 * touched at all.  A missing tool gives rc 127 ("not found" on stderr) and
 * the poll goes on.
 */
#ifndef SYNCTOP_PROBE_H
#define SYNCTOP_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "tool_output.h"

#define PROBE_NONCE_LEN 16
#define PROBE_IFACE_MAX 15
/* Interfaces one request names: one per ptp4l port kept (NIC_MAX). */
#define PROBE_IFACE_LIST_MAX 4
#define PROBE_IFACE_LIST_LEN (PROBE_IFACE_LIST_MAX * (PROBE_IFACE_MAX + 1))
/* Sections a response may hold: the time and one per collector, with room
 * for more (test_probe checks the registry against it). */
#define PROBE_MAX_SECTIONS 16
#define PROBE_SECTION_NAME_MAX 31

#define PROBE_FLAG_ETHTOOL (1u << 0) /* "E" */
#define PROBE_FLAG_SUDO_PMC (1u << 1) /* "S" */
#define PROBE_FLAG_TIME_ONLY (1u << 2) /* "T" */
#define PROBE_FLAG_SELECTDATA (1u << 3) /* "L": chronyc selectdata */
#define PROBE_FLAG_NTPQ (1u << 4) /* "N": ntpq (ntpd) */
#define PROBE_FLAG_NTPDATA (1u << 5) /* "D": chronyc ntpdata */

/* rc of the ethtool section when no interface could be determined. */
#define PROBE_RC_NO_IFACE 125

/* probe_split results */
#define PROBE_COMPLETE 0
#define PROBE_INCOMPLETE 1
#define PROBE_MALFORMED 2

/* The whole program: a fixed prologue and request loop around each
 * registered collector's functions and command (collector.h).  Built once,
 * kept for the process's life. */
const char *probe_script(void);

typedef struct {
	const char *name; /* points into the buffer, not NUL-terminated */
	size_t name_len;
	const char *out;  /* stdout body */
	size_t out_len;
	const char *err;  /* stderr body */
	size_t err_len;
	int rc;           /* -1 until the rc marker has been read */
	bool complete;    /* the rc marker has been read */
} probe_section;

typedef struct {
	int n_sections;
	probe_section sections[PROBE_MAX_SECTIONS];
	int n_ignored;      /* well-formed sections past PROBE_MAX_SECTIONS */
	bool begun;         /* the begin marker has been seen */
	size_t end;         /* PROBE_COMPLETE: offset just past the end marker line */
	const char *reason; /* PROBE_MALFORMED: static text for a person */
} probe_response;

/* Writes "exec sh -c '<probe_script>'" and a NUL.  Returns its length, or -1
 * when len is too small. */
int probe_command(char *buf, size_t len);

/* Room for probe_command() with every collector (about 9.5 KB now); a
 * caller's buffer of this size always fits it (test_probe checks). */
#define PROBE_COMMAND_MAX 16384

/* True for exactly 16 lowercase hex digits followed by NUL. */
bool probe_nonce_valid(const char *nonce);

/* True for an interface name the probe accepts (see IFACE above; "-" is not
 * a name). */
bool probe_iface_valid(const char *iface);

/* True for 1 to PROBE_IFACE_LIST_MAX names that probe_iface_valid accepts,
 * separated by single commas. */
bool probe_iface_list_valid(const char *list);

/* Writes the request line (with its "\n" and a NUL).  iface is one name or a
 * list (probe_iface_list_valid); NULL, "" or "-" means unknown.  Returns
 * the length, or -1 for an invalid nonce, flag or interface list, or a
 * buffer that is too small. */
int probe_request_format(char *buf, size_t len, const char *nonce, unsigned flags,
			 const char *iface);

/* The PROBE_FLAG_* bits that request letters stand for (unknown letters are
 * ignored, as the shell ignores them). */
unsigned probe_request_flags(const char *letters, size_t n);

/* Fills out with 16 random lowercase hex digits and a NUL, from
 * /dev/urandom.  Returns 0, or -1 (errno set) when no randomness could be
 * read; out is then "". */
int probe_nonce_generate(char out[PROBE_NONCE_LEN + 1]);

/* Cheap completion test for a transport reading as data arrives: returns
 * the offset just past the "@@synctop NONCE end" line, or 0 when it has not
 * arrived yet.  probe_split remains the authority on the structure. */
size_t probe_find_end(const char *buf, size_t len, const char *nonce);

/* Splits a response.  Pure, no allocation: everything points into buf, so
 * buf must outlive out.  Bytes before the begin marker (the ready line,
 * noise from a login script) and after the end marker are ignored.
 * Returns PROBE_COMPLETE, PROBE_INCOMPLETE (more bytes needed; the sections
 * read so far are filled in, the last one possibly with complete == false
 * and raw partial bodies) or PROBE_MALFORMED (out->reason says why). */
int probe_split(const char *buf, size_t len, const char *nonce, probe_response *out);

/* The first section called name, or NULL. */
const probe_section *probe_section_find(const probe_response *resp, const char *name);

/* The section as parsers take it; rc -1 when the section is not complete. */
void probe_section_tool_output(const probe_section *sec, tool_output *dst);

#endif
