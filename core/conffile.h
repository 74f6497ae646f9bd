/* conffile.h - synctop's JSON configuration file (--config FILE): default
 * per-node settings, and groups of nodes that override them.
 *
 *   { "defaults": { "thresholds": {...}, "probe": {...}, "expect": {...},
 *                   "ntp_upstream": "...", "grandmaster": "..." },
 *     "groups": [ { "name": "gpu", "hosts": "gpu[001-128]", ...same keys... } ] }
 *
 * doc/config.md describes every key.  A node gets the built-in defaults, then
 * "defaults", then the FIRST group whose "hosts" (a host list expression or an
 * array of them) names it, key by key.
 *
 * The whole file is checked before anything is returned: a syntax error, an
 * unknown key or a bad value fails the parse with "NAME:LINE:COLUMN: what",
 * and nothing is half-applied.  (Named conffile, not config: <config.h> is
 * autoconf's.) */
#ifndef SYNCTOP_CONFFILE_H
#define SYNCTOP_CONFFILE_H

#include <stddef.h>

#include "node_settings.h"

#define CONFFILE_MAX_BYTES (1 << 20) /* far above any real file */

typedef struct conffile conffile;

/* Parse len bytes of text (need not be NUL-terminated); name is what error
 * messages call it.  Returns 0 with *out set (conffile_free() it), or -1 with
 * err holding "name:line:column: message" and *out untouched. */
int conffile_parse(const char *text, size_t len, const char *name, conffile **out, char *err, size_t err_len);

/* Read and parse the file at path.  Same contract; a file that cannot be read
 * gives "path: reason". */
int conffile_load(const char *path, conffile **out, char *err, size_t err_len);

void conffile_free(conffile *cf);

/* The settings of the node called host (its inventory name without user@ and
 * :port; matched case-insensitively, as DNS names are).  cf may be NULL: the
 * built-in defaults.  Returns the index of the group that applied, or -1. */
int conffile_resolve(const conffile *cf, const char *host, node_settings *out);

size_t conffile_group_count(const conffile *cf);
const char *conffile_group_name(const conffile *cf, size_t i);

/* A group's "prometheus" object: the servers its nodes are read from
 * (--from-prometheus), each group with its own selector and credentials:
 *   "prometheus": { "url": "https://prom-a:9090" (or "urls": [...]),
 *                   "selector": "{cluster=\"a\"}", "node_label": "nodename",
 *                   "ca": FILE, "token_file": FILE | "basic_auth_file": FILE }
 * Checked here for its shape (URLs http(s):// without user:password@, a
 * selector in braces, one kind of secret); the source checks the rest when
 * it starts.  Strings NULL when not set.  Secrets stay in their files: only
 * the file names are kept. */
typedef struct {
	char **urls;
	size_t n_urls;
	char *selector;
	char *node_label;
	char *ca;
	char *token_file;
	char *basic_auth_file;
} conffile_prometheus;

/* Group i's "prometheus", or NULL when it has none (or i is out of range). */
const conffile_prometheus *conffile_group_prometheus(const conffile *cf, size_t i);

#endif
