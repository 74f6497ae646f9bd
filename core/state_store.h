/* state_store.h - `--state-dir`: the history and events of earlier runs, in
 * one SQLite database (DIR/synctop.db), so a restart brings them back.
 *
 * Plain synchronous calls, no threads and no libev: the writer thread
 * (state_writer.h) owns a store for writing, and the loop may open a second,
 * read-only one for the drill-down's day view (state_store_open_reader).
 *
 * The directory holds synctop.db (with its -wal and -shm files) and
 * synctop.lock: an flock(2) held by the one synctop that writes, with its
 * PID inside, so a second synctop on the same directory is told which
 * process holds it (the kernel drops the lock when that process dies, even
 * by SIGKILL).
 *
 * The database: WAL (a crash loses no committed transaction; the writer
 * commits at least once a second), synchronous=NORMAL, journal_size_limit
 * STATE_WAL_LIMIT_BYTES, auto_vacuum=INCREMENTAL set before the first table
 * (so deleting shrinks the file), schema version in PRAGMA user_version
 * (STATE_SCHEMA_VERSION; older versions are migrated in place, a newer one
 * is refused).  Schema 3:
 *   nodes(id INTEGER PRIMARY KEY, host TEXT UNIQUE)
 *   recent(t, node, offset_s, frequency_ppm, skew_ppm, ptp_offset_ns,
 *          path_delay_ns, phc_sys_offset_ns, clock_check_s)
 *          PRIMARY KEY (t, node), WITHOUT ROWID; NULL = unknown: the raw
 *          samples of the last raw_s, keyed by time so that a commit of
 *          every node's second writes a few pages at the B-tree's end
 *   samples(node, t, the same values) PRIMARY KEY (node, t), WITHOUT ROWID:
 *          one mean a minute (t its middle) for the whole retention, the
 *          last hour too, so the day view and the drift trend read a key
 *          range per node
 *   events(id INTEGER PRIMARY KEY, t, host (NULL: group or cluster), scope,
 *          kind, group_kind, subject, from_value, to_value, message,
 *          grp (a member: its group's events.id), group_size)
 *   meta(key TEXT PRIMARY KEY, value)  -- "folded_until": recent's minutes
 *          before it are in samples
 *
 * Bounds (state_store_maintain, once a minute): each minute of recent is
 * folded into samples once it ended STATE_FOLD_LAG_S ago, and recent keeps
 * raw_s (an hour); samples and events older than retention_s (7 days) go;
 * past max_bytes the oldest go first.  Free pages are given back to the
 * file system only past STATE_FREE_PAGES_MAX or an eighth of the file
 * (recent reuses the pages it frees). */
#ifndef SYNCTOP_STATE_STORE_H
#define SYNCTOP_STATE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "history.h"

#define STATE_SCHEMA_VERSION 3
#define STATE_DB_NAME "synctop.db"
#define STATE_LOCK_NAME "synctop.lock"
#define STATE_RETENTION_DEFAULT_S (7 * 86400.0)
#define STATE_RAW_DEFAULT_S 3600.0
#define STATE_MAX_BYTES_DEFAULT (1024ULL * 1024 * 1024)
#define STATE_WAL_LIMIT_BYTES (16LL * 1024 * 1024)
#define STATE_ERROR_LEN 1024
#define STATE_FOLD_LAG_S 60.0
#define STATE_FREE_PAGES_MAX 4096

typedef struct state_store state_store;

typedef struct {
	double retention_s;   /* 0: STATE_RETENTION_DEFAULT_S */
	double raw_s;         /* full rate this long, then a point a minute; 0: STATE_RAW_DEFAULT_S */
	uint64_t max_bytes;   /* 0: STATE_MAX_BYTES_DEFAULT */
	int busy_timeout_ms;  /* waiting for another process's SQLite lock; 0: 2000 */
} state_limits;

/* One row of samples: a poll's history sample, or a clock check (t its
 * measurement, only clock_check_s known).  NAN = unknown (stored NULL). */
typedef struct {
	double t;
	float value[HISTORY_SERIES_COUNT];
	float clock_check_s;
} state_sample;

/* The directory's path from --state-dir DIR or --state: DIR, else
 * $XDG_STATE_HOME/synctop, else $HOME/.local/state/synctop.  -1 when there
 * is no home to put it in or it does not fit. */
int state_store_default_dir(char *out, size_t out_len);

/* Creates DIR (mode 0700, parents too) if missing, takes its lock, opens
 * or creates the database and brings its schema to STATE_SCHEMA_VERSION.
 * NULL with a sentence in err (what, where and what to do) when any of it
 * fails: held by another synctop (its PID), not a database, a newer schema,
 * read-only, full. */
state_store *state_store_open(const char *dir, const state_limits *limits, char *err, size_t err_len);

/* A second connection to an open store's database, read-only, for the
 * loop's queries (the writer thread keeps the first).  NULL with err. */
state_store *state_store_open_reader(const char *dir, char *err, size_t err_len);

void state_store_close(state_store *s);

/* The last failure's sentence ("" if none). */
const char *state_store_error(const state_store *s);

/* The node's id, added if new.  0 or -1 (state_store_error). */
int state_store_node_id(state_store *s, const char *host, int64_t *id);

/* Transactions around many puts: the writer's batch. */
int state_store_begin(state_store *s);
int state_store_commit(state_store *s);
void state_store_rollback(state_store *s);

/* One sample row; the same (node, t) twice keeps the first. */
int state_store_put_sample(state_store *s, int64_t node_id, const state_sample *x);

/* One event; host NULL for a group or the cluster; group_row: a member's
 * group's row (0 if none).  *row: the new row's id. */
int state_store_put_event(state_store *s, const event *e, const char *host, int64_t group_row, int64_t *row);

/* Folding, retention and the size bound, as of `now`. */
int state_store_maintain(state_store *s, double now);

/* The same, and each minute mean it folded to fn once committed (the
 * writer's running drift sums, drift_trend.h). */
typedef void (*state_fold_fn)(void *ctx, int64_t node_id, double t, double frequency_ppm);
int state_store_maintain_folding(state_store *s, double now, state_fold_fn fn, void *ctx);

/* Bytes the database holds (pages in use, WAL not counted). */
uint64_t state_store_bytes(state_store *s);

/* The node's samples with t >= since, oldest first, to fn (clock-check
 * rows included: value[] all NAN): the minute means before recent's
 * window, then the raw samples.  0 or -1. */
typedef void (*state_sample_fn)(void *ctx, const state_sample *x);
int state_store_load_samples(state_store *s, int64_t node_id, double since, state_sample_fn fn, void *ctx);

/* The same for many nodes at once (a restart's restore): each node's
 * samples oldest first, to fn with the node's index in ids; recent is read
 * once, not once a node.  0 or -1. */
typedef void (*state_history_fn)(void *ctx, size_t index, const state_sample *x);
int state_store_load_history(state_store *s, const int64_t *ids, size_t n_ids, double since, state_history_fn fn,
			     void *ctx);

/* The newest `max` events with t >= since, oldest first, to fn: row its
 * row id, group_row its group's row (0 if none), host NULL for a group or
 * the cluster.  e->id, e->group and e->node are 0 (the caller numbers and
 * places them). */
typedef void (*state_event_fn)(void *ctx, int64_t row, const event *e, const char *host, int64_t group_row);
int state_store_load_events(state_store *s, double since, size_t max, state_event_fn fn, void *ctx);

/* The day view: one host's offset and frequency from `since` to `until`,
 * averaged into n_buckets equal slices; NAN where a slice has no sample.
 * Returns the number of slices with a value, -1 on error. */
int state_store_series(state_store *s, const char *host, double since, double until, size_t n_buckets,
		       double *offset_s, double *frequency_ppm);

/* The node's frequency since `since` as one mean a minute (the minute
 * means in samples: the minutes not yet folded are left out), oldest
 * first, at most max: the drift rule's input (drift_trend.h).  Returns the
 * count, -1 on error. */
int state_store_frequency(state_store *s, int64_t node_id, double since, double *t, double *ppm, size_t max);

/* The id of a node already stored, without adding it (a reader): 1 found,
 * 0 not, -1 on error. */
int state_store_find_node(state_store *s, const char *host, int64_t *id);

#endif
