/* state_store.c - the --state-dir SQLite database (state_store.h).
 *
 * Every failure becomes one sentence in s->err naming the file, SQLite's
 * word for it and what a person can do; the caller shows it and goes on
 * without history. */
#include <config.h>

#include "state_store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

#define PATH_LEN 384 /* a longer --state-dir is refused */

struct folded {
	int64_t node;
	double t, frequency_ppm;
};

struct state_store {
	sqlite3 *db;
	int lock_fd;           /* -1 for a reader */
	char path[PATH_LEN];   /* the database file */
	state_limits lim;
	/* prepared once, reused: a statement per commit and per minute */
	sqlite3_stmt *put_sample, *put_event, *node_get, *node_add, *begin, *commit;
	sqlite3_stmt *fold, *fold_put, *recent_trim;
	struct folded *folded;  /* the last fold's minutes, for state_fold_fn */
	size_t n_folded, cap_folded;
	char err[STATE_ERROR_LEN];
};

/* The raw samples' table: keyed by time first, so a second's rows of
 * every node go to the B-tree's last pages (a commit writes a few pages,
 * not one per node as a (node, t) key did), and trimming the oldest minute
 * frees the first ones. */
#define RECENT_TABLE                                                                                             \
	"CREATE TABLE recent(t REAL NOT NULL, node INTEGER NOT NULL, offset_s REAL, frequency_ppm REAL,"         \
	" skew_ppm REAL, ptp_offset_ns REAL, path_delay_ns REAL, phc_sys_offset_ns REAL, clock_check_s REAL,"   \
	" PRIMARY KEY(t, node)) WITHOUT ROWID;"

/* The current schema; each older version's migration below brings a file
 * up to it step by step. */
static const char schema_v3[] =
	"CREATE TABLE nodes(id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE);"
	"CREATE TABLE samples(node INTEGER NOT NULL, t REAL NOT NULL, offset_s REAL, frequency_ppm REAL,"
	" skew_ppm REAL, ptp_offset_ns REAL, path_delay_ns REAL, phc_sys_offset_ns REAL, clock_check_s REAL,"
	" PRIMARY KEY(node, t)) WITHOUT ROWID;" RECENT_TABLE
	"CREATE TABLE events(id INTEGER PRIMARY KEY, t REAL NOT NULL, host TEXT, scope TEXT NOT NULL,"
	" kind TEXT NOT NULL, group_kind TEXT, subject TEXT, from_value TEXT, to_value TEXT, message TEXT,"
	" grp INTEGER, group_size INTEGER);"
	"CREATE INDEX events_t ON events(t);"
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value);";

/* Schema 1 had no clock check and no meta table (every sample was
 * downsampled again at each maintenance). */
static const char migrate_1_to_2[] = "ALTER TABLE samples ADD COLUMN clock_check_s REAL;"
				     "CREATE TABLE meta(key TEXT PRIMARY KEY, value);";

/* Schema 2 kept the raw samples in `samples` from downsampled_until on;
 * they move to `recent`, and the next maintenance folds them into minute
 * means from that time (folded_until) on. */
static const char migrate_2_to_3[] =
	RECENT_TABLE
	"INSERT OR IGNORE INTO meta(key, value) VALUES('downsampled_until', 0);"
	"INSERT INTO recent SELECT t, node, offset_s, frequency_ppm, skew_ppm, ptp_offset_ns, path_delay_ns,"
	" phc_sys_offset_ns, clock_check_s FROM samples"
	" WHERE t >= (SELECT value FROM meta WHERE key='downsampled_until');"
	"DELETE FROM samples WHERE t >= (SELECT value FROM meta WHERE key='downsampled_until');"
	"UPDATE meta SET key='folded_until' WHERE key='downsampled_until';";

/* The sample columns after node and t, in history_series order, then the
 * clock check. */
#define SAMPLE_COLUMNS "offset_s, frequency_ppm, skew_ppm, ptp_offset_ns, path_delay_ns, phc_sys_offset_ns, clock_check_s"
#define N_VALUES (HISTORY_SERIES_COUNT + 1)
_Static_assert(HISTORY_SERIES_COUNT == 6, "a new history series needs its column in samples (a schema version)");

static const char *hint_for(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return "the file is damaged or not synctop's: move it away and synctop starts a new one";
	case SQLITE_FULL:
		return "the disk is full: free some space, or lower state_max_mib";
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return "it cannot be written: check the directory's owner, permissions and mount";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "another process holds the database's lock (an sqlite3 shell?)";
	case SQLITE_IOERR:
		return "the disk reported an I/O error";
	default:
		return "";
	}
}

static void fail_rc(state_store *s, int rc, const char *what)
{
	const char *hint = hint_for(rc);
	snprintf(s->err, sizeof s->err, "%s: %s: %s%s%s", s->path, what,
		 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc), hint[0] ? " (" : "", hint);
	if (hint[0]) {
		size_t n = strlen(s->err);
		if (n + 1 < sizeof s->err) {
			s->err[n] = ')';
			s->err[n + 1] = '\0';
		}
	}
}

static int exec(state_store *s, const char *sql, const char *what)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		fail_rc(s, rc, what);
		return -1;
	}
	return 0;
}

static int prepare(state_store *s, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK) {
		fail_rc(s, rc, "preparing a statement");
		return -1;
	}
	return 0;
}

/* One integer from a query (a PRAGMA); -1 with err. */
static int query_int(state_store *s, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	if (prepare(s, &st, sql) != 0) {
		return -1;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	} else if (rc == SQLITE_DONE) {
		*out = 0;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK) {
		fail_rc(s, rc, "reading the database");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

int state_store_default_dir(char *out, size_t out_len)
{
	const char *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;
	/* the XDG spec: a relative $XDG_STATE_HOME is to be ignored */
	if (xdg && xdg[0] == '/') {
		n = snprintf(out, out_len, "%s/synctop", xdg);
	} else if (home && home[0]) {
		n = snprintf(out, out_len, "%s/.local/state/synctop", home);
	} else {
		return -1;
	}
	return n > 0 && (size_t)n < out_len ? 0 : -1;
}

/* mkdir -p, the last component 0700 (history says which clocks were bad). */
static int make_dirs(const char *dir, char *why, size_t why_len)
{
	char path[PATH_LEN];
	if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
		snprintf(why, why_len, "the path is too long");
		return -1;
	}
	for (char *p = path + 1; *p; p++) {
		if (*p != '/') {
			continue;
		}
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			snprintf(why, why_len, "%s: %s", path, strerror(errno));
			return -1;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) != 0 && errno != EEXIST) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s: not a directory", path);
		return -1;
	}
	return 0;
}

/* The lock: held for the process's life; -1 with err naming the holder. */
static int take_lock(state_store *s, const char *dir, char *err, size_t err_len)
{
	char path[PATH_LEN];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_LOCK_NAME);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, err_len, "%s: %s (%s)", path, strerror(errno),
			 errno == EROFS || errno == EACCES || errno == EPERM
				 ? "the state directory cannot be written: check its owner, permissions and mount"
				 : "cannot create the lock file");
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		char text[32] = "";
		ssize_t n = pread(fd, text, sizeof text - 1, 0);
		text[n > 0 ? n : 0] = '\0';
		long pid = strtol(text, NULL, 10);
		if (e == EWOULDBLOCK && pid > 0) {
			snprintf(err, err_len, "%s is in use by another synctop (PID %ld)", dir, pid);
		} else if (e == EWOULDBLOCK) {
			snprintf(err, err_len, "%s is in use by another synctop", dir);
		} else {
			snprintf(err, err_len, "%s: cannot lock: %s", path, strerror(e));
		}
		close(fd);
		return -1;
	}
	char pid[32];
	int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	s->lock_fd = fd;
	return 0;
}

static int table_count(state_store *s, int64_t *n)
{
	return query_int(s, "SELECT count(*) FROM sqlite_master", n);
}

/* Brings the schema to STATE_SCHEMA_VERSION; -1 with err. */
static int settle_schema(state_store *s)
{
	int64_t version, tables;
	if (query_int(s, "PRAGMA user_version", &version) != 0 || table_count(s, &tables) != 0) {
		return -1;
	}
	if (version > STATE_SCHEMA_VERSION) {
		snprintf(s->err, sizeof s->err,
			 "%s: written by a newer synctop (schema %lld, this one knows %d): use that version, "
			 "or move the file away",
			 s->path, (long long)version, STATE_SCHEMA_VERSION);
		return -1;
	}
	if (version == 0 && tables > 0) {
		snprintf(s->err, sizeof s->err, "%s: an SQLite database, but not synctop's (no schema version): "
			 "choose another --state-dir", s->path);
		return -1;
	}
	if (version == 0) {
		/* must precede the first table: it cannot be turned on later
		 * without a full VACUUM */
		if (exec(s, "PRAGMA auto_vacuum=INCREMENTAL", "setting auto_vacuum") != 0) {
			return -1;
		}
	}
	if (exec(s, "PRAGMA journal_mode=WAL", "switching to WAL") != 0) {
		return -1;
	}
	if (version == STATE_SCHEMA_VERSION) {
		return 0;
	}
	if (exec(s, "BEGIN IMMEDIATE", "starting the schema update") != 0) {
		return -1;
	}
	/* one transaction: a file is at its old version or the new one */
	int rc = 0;
	if (version == 0) {
		rc = exec(s, schema_v3, "creating the tables");
	}
	if (rc == 0 && version == 1) {
		rc = exec(s, migrate_1_to_2, "migrating the schema from version 1");
	}
	if (rc == 0 && version >= 1 && version <= 2) {
		rc = exec(s, migrate_2_to_3, "migrating the schema from version 2");
	}
	char set[64];
	snprintf(set, sizeof set, "PRAGMA user_version=%d", STATE_SCHEMA_VERSION);
	if (rc != 0 || exec(s, set, "setting the schema version") != 0 ||
	    exec(s, "COMMIT", "committing the schema") != 0) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static state_store *store_new(const char *dir)
{
	state_store *s = xcalloc(1, sizeof *s);
	s->lock_fd = -1;
	snprintf(s->path, sizeof s->path, "%s/%s", dir, STATE_DB_NAME);
	return s;
}

static int open_db(state_store *s, int flags)
{
	int rc = sqlite3_open_v2(s->path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		fail_rc(s, rc, "cannot open");
		return -1;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, s->lim.busy_timeout_ms);
	return 0;
}

state_store *state_store_open(const char *dir, const state_limits *limits, char *err, size_t err_len)
{
	char why[STATE_ERROR_LEN];
	if (strlen(dir) > PATH_LEN - 32) {
		snprintf(err, err_len, "the state directory's path is longer than %d bytes", PATH_LEN - 32);
		return NULL;
	}
	if (make_dirs(dir, why, sizeof why) != 0) {
		snprintf(err, err_len, "cannot create the state directory: %s", why);
		return NULL;
	}
	state_store *s = store_new(dir);
	if (limits) {
		s->lim = *limits;
	}
	s->lim.retention_s = s->lim.retention_s > 0 ? s->lim.retention_s : STATE_RETENTION_DEFAULT_S;
	s->lim.raw_s = s->lim.raw_s > 0 ? s->lim.raw_s : STATE_RAW_DEFAULT_S;
	s->lim.max_bytes = s->lim.max_bytes ? s->lim.max_bytes : STATE_MAX_BYTES_DEFAULT;
	s->lim.busy_timeout_ms = s->lim.busy_timeout_ms > 0 ? s->lim.busy_timeout_ms : 2000;
	if (take_lock(s, dir, err, err_len) != 0) {
		state_store_close(s);
		return NULL;
	}
	char limit[96];
	snprintf(limit, sizeof limit, "PRAGMA journal_size_limit=%lld", (long long)STATE_WAL_LIMIT_BYTES);
	if (open_db(s, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) != 0) {
		goto fail;
	}
	if (sqlite3_db_readonly(s->db, "main") == 1) {
		fail_rc(s, SQLITE_READONLY, "opened read-only");
		goto fail;
	}
	if (settle_schema(s) != 0 || exec(s, limit, "setting journal_size_limit") != 0 ||
	    exec(s, "PRAGMA synchronous=NORMAL", "setting synchronous") != 0) {
		goto fail;
	}
	if (prepare(s, &s->put_sample, "INSERT OR IGNORE INTO recent(node, t, " SAMPLE_COLUMNS
				       ") VALUES(?,?,?,?,?,?,?,?,?)") != 0 ||
	    prepare(s, &s->begin, "BEGIN IMMEDIATE") != 0 || prepare(s, &s->commit, "COMMIT") != 0 ||
	    prepare(s, &s->fold, "SELECT node, CAST(t / 60 AS INTEGER) AS m, avg(offset_s), avg(frequency_ppm),"
				 " avg(skew_ppm), avg(ptp_offset_ns), avg(path_delay_ns), avg(phc_sys_offset_ns),"
				 " avg(clock_check_s) FROM recent WHERE t>=?1 AND t<?2 GROUP BY node, m") != 0 ||
	    prepare(s, &s->fold_put, "INSERT OR REPLACE INTO samples(node, t, " SAMPLE_COLUMNS
				     ") VALUES(?,?,?,?,?,?,?,?,?)") != 0 ||
	    prepare(s, &s->recent_trim, "DELETE FROM recent WHERE t<?1") != 0 ||
	    prepare(s, &s->put_event, "INSERT INTO events(t, host, scope, kind, group_kind, subject, from_value,"
				      " to_value, message, grp, group_size) VALUES(?,?,?,?,?,?,?,?,?,?,?)") != 0 ||
	    prepare(s, &s->node_get, "SELECT id FROM nodes WHERE host=?") != 0 ||
	    prepare(s, &s->node_add, "INSERT INTO nodes(host) VALUES(?)") != 0) {
		goto fail;
	}
	return s;
fail:
	snprintf(err, err_len, "%s", s->err);
	state_store_close(s);
	return NULL;
}

state_store *state_store_open_reader(const char *dir, char *err, size_t err_len)
{
	if (strlen(dir) > PATH_LEN - 32) {
		snprintf(err, err_len, "the state directory's path is longer than %d bytes", PATH_LEN - 32);
		return NULL;
	}
	state_store *s = store_new(dir);
	s->lim.busy_timeout_ms = 200;
	int64_t version;
	if (open_db(s, SQLITE_OPEN_READONLY) != 0 || query_int(s, "PRAGMA user_version", &version) != 0) {
		snprintf(err, err_len, "%s", s->err);
		state_store_close(s);
		return NULL;
	}
	return s;
}

void state_store_close(state_store *s)
{
	if (!s) {
		return;
	}
	sqlite3_finalize(s->put_sample);
	sqlite3_finalize(s->put_event);
	sqlite3_finalize(s->node_get);
	sqlite3_finalize(s->node_add);
	sqlite3_finalize(s->begin);
	sqlite3_finalize(s->commit);
	sqlite3_finalize(s->fold);
	sqlite3_finalize(s->fold_put);
	sqlite3_finalize(s->recent_trim);
	free(s->folded);
	sqlite3_close(s->db);
	if (s->lock_fd >= 0) {
		close(s->lock_fd); /* drops the flock */
	}
	free(s);
}

const char *state_store_error(const state_store *s)
{
	return s->err;
}

/* Steps a write statement to its end and resets it. */
static int step_done(state_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, what);
		return -1;
	}
	return 0;
}

int state_store_node_id(state_store *s, const char *host, int64_t *id)
{
	sqlite3_bind_text(s->node_get, 1, host, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(s->node_get);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(s->node_get, 0);
	}
	sqlite3_reset(s->node_get);
	if (rc == SQLITE_ROW) {
		return 0;
	}
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading the nodes");
		return -1;
	}
	sqlite3_bind_text(s->node_add, 1, host, -1, SQLITE_TRANSIENT);
	if (step_done(s, s->node_add, "adding a node") != 0) {
		return -1;
	}
	*id = sqlite3_last_insert_rowid(s->db);
	return 0;
}

int state_store_begin(state_store *s)
{
	if (!s->begin) { /* a reader */
		return exec(s, "BEGIN IMMEDIATE", "starting a write");
	}
	return step_done(s, s->begin, "starting a write");
}

int state_store_commit(state_store *s)
{
	if (!s->commit) {
		return exec(s, "COMMIT", "committing");
	}
	return step_done(s, s->commit, "committing");
}

void state_store_rollback(state_store *s)
{
	if (!sqlite3_get_autocommit(s->db)) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
}

static void bind_value(sqlite3_stmt *st, int col, double v)
{
	if (isfinite(v)) {
		sqlite3_bind_double(st, col, v);
	} else {
		sqlite3_bind_null(st, col);
	}
}

int state_store_put_sample(state_store *s, int64_t node_id, const state_sample *x)
{
	sqlite3_stmt *st = s->put_sample;
	sqlite3_bind_int64(st, 1, node_id);
	sqlite3_bind_double(st, 2, x->t);
	for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
		bind_value(st, 3 + k, x->value[k]);
	}
	bind_value(st, 3 + HISTORY_SERIES_COUNT, x->clock_check_s);
	return step_done(s, st, "writing a sample");
}

static void bind_text(sqlite3_stmt *st, int col, const char *text)
{
	if (text && text[0]) {
		sqlite3_bind_text(st, col, text, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, col);
	}
}

int state_store_put_event(state_store *s, const event *e, const char *host, int64_t group_row, int64_t *row)
{
	sqlite3_stmt *st = s->put_event;
	const char *scope = e->node == EVENT_NODE_GROUP ? "group" : (e->node == EVENT_NODE_CLUSTER ? "cluster" : "node");
	sqlite3_bind_double(st, 1, e->t);
	bind_text(st, 2, host);
	bind_text(st, 3, scope);
	bind_text(st, 4, event_kind_name(e->kind));
	bind_text(st, 5, e->kind == EVENT_GROUP ? event_kind_name(e->group_kind) : NULL);
	bind_text(st, 6, e->subject);
	bind_text(st, 7, e->from);
	bind_text(st, 8, e->to);
	bind_text(st, 9, e->message);
	if (group_row) {
		sqlite3_bind_int64(st, 10, group_row);
	} else {
		sqlite3_bind_null(st, 10);
	}
	sqlite3_bind_int64(st, 11, e->group_size);
	if (step_done(s, st, "writing an event") != 0) {
		return -1;
	}
	*row = sqlite3_last_insert_rowid(s->db);
	return 0;
}

/* Every node id, malloc'ed; -1 with err. */
static int node_ids(state_store *s, int64_t **ids, size_t *n)
{
	sqlite3_stmt *st;
	size_t cap = 64;
	*n = 0;
	*ids = xmalloc(cap * sizeof **ids);
	if (prepare(s, &st, "SELECT id FROM nodes") != 0) {
		return -1;
	}
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap *= 2;
			*ids = xrealloc(*ids, cap * sizeof **ids);
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading the nodes");
		return -1;
	}
	return 0;
}

static int meta_get(state_store *s, const char *key, double *value)
{
	sqlite3_stmt *st;
	if (prepare(s, &st, "SELECT value FROM meta WHERE key=?") != 0) {
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	*value = rc == SQLITE_ROW ? sqlite3_column_double(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading meta");
		return -1;
	}
	return 0;
}

static int meta_set(state_store *s, const char *key, double value)
{
	sqlite3_stmt *st;
	if (prepare(s, &st, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)") != 0) {
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, value);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "writing meta");
		return -1;
	}
	return 0;
}

/* The minutes of recent in [from, to) become one mean a minute in samples,
 * at the minute's middle: a range of the (t, node) key, read once. */
static int fold_range(state_store *s, double from, double to)
{
	sqlite3_bind_double(s->fold, 1, from);
	sqlite3_bind_double(s->fold, 2, to);
	int rc;
	while ((rc = sqlite3_step(s->fold)) == SQLITE_ROW) {
		int64_t node = sqlite3_column_int64(s->fold, 0);
		double t = (double)sqlite3_column_int64(s->fold, 1) * 60.0 + 30.0;
		sqlite3_bind_int64(s->fold_put, 1, node);
		sqlite3_bind_double(s->fold_put, 2, t);
		if (sqlite3_column_type(s->fold, 3) != SQLITE_NULL) {
			if (s->n_folded == s->cap_folded) {
				s->cap_folded = s->cap_folded ? 2 * s->cap_folded : 1024;
				s->folded = xrealloc(s->folded, s->cap_folded * sizeof *s->folded);
			}
			s->folded[s->n_folded++] = (struct folded){node, t, sqlite3_column_double(s->fold, 3)};
		}
		for (int k = 0; k < N_VALUES; k++) {
			bind_value(s->fold_put, 3 + k,
				   sqlite3_column_type(s->fold, 2 + k) == SQLITE_NULL ? NAN
										: sqlite3_column_double(s->fold, 2 + k));
		}
		if (step_done(s, s->fold_put, "folding samples into minutes") != 0) {
			sqlite3_reset(s->fold);
			return -1;
		}
	}
	sqlite3_reset(s->fold);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "folding samples into minutes");
		return -1;
	}
	return 0;
}

/* Every minute that ended STATE_FOLD_LAG_S ago is folded once (a poll
 * answered late still lands in its minute), then the raw samples older
 * than raw_s go: both are ranges at the front of recent. */
static int fold(state_store *s, const int64_t *ids, size_t n_ids, double now)
{
	(void)ids;
	(void)n_ids;
	double from;
	double to = floor((now - STATE_FOLD_LAG_S) / 60.0) * 60.0;
	if (meta_get(s, "folded_until", &from) != 0) {
		return -1;
	}
	if (to > from) {
		if (fold_range(s, from, to) != 0 || meta_set(s, "folded_until", to) != 0) {
			return -1;
		}
	}
	double trim = fmin(fmax(from, to), floor((now - s->lim.raw_s) / 60.0) * 60.0);
	sqlite3_bind_double(s->recent_trim, 1, trim);
	return step_done(s, s->recent_trim, "trimming raw samples");
}

/* Samples and events older than `before` go. */
static int delete_before(state_store *s, const int64_t *ids, size_t n_ids, double before)
{
	sqlite3_stmt *del = NULL, *ev = NULL;
	int rc = -1;
	if (prepare(s, &del, "DELETE FROM samples WHERE node=?1 AND t<?2") != 0 ||
	    prepare(s, &ev, "DELETE FROM events WHERE t<?1") != 0) {
		goto out;
	}
	sqlite3_bind_double(s->recent_trim, 1, before);
	if (step_done(s, s->recent_trim, "deleting old samples") != 0) {
		goto out;
	}
	for (size_t i = 0; i < n_ids; i++) {
		sqlite3_bind_int64(del, 1, ids[i]);
		sqlite3_bind_double(del, 2, before);
		if (step_done(s, del, "deleting old samples") != 0) {
			goto out;
		}
	}
	sqlite3_bind_double(ev, 1, before);
	rc = step_done(s, ev, "deleting old events");
out:
	sqlite3_finalize(del);
	sqlite3_finalize(ev);
	return rc;
}

/* The oldest sample's or event's time; NAN if none. */
static int oldest(state_store *s, const int64_t *ids, size_t n_ids, double *t)
{
	sqlite3_stmt *st = NULL;
	*t = NAN;
	if (prepare(s, &st, "SELECT min(t) FROM samples WHERE node=?1") != 0) {
		return -1;
	}
	for (size_t i = 0; i < n_ids; i++) {
		sqlite3_bind_int64(st, 1, ids[i]);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			double v = sqlite3_column_double(st, 0);
			*t = isfinite(*t) && *t < v ? *t : v;
		} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			fail_rc(s, rc, "reading the oldest sample");
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	static const char *const others[] = {"SELECT min(t) FROM events", "SELECT min(t) FROM recent"};
	for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
		if (prepare(s, &st, others[k]) != 0) {
			return -1;
		}
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			double v = sqlite3_column_double(st, 0);
			*t = isfinite(*t) && *t < v ? *t : v;
		}
		sqlite3_finalize(st);
	}
	return 0;
}

uint64_t state_store_bytes(state_store *s)
{
	int64_t pages = 0, free_pages = 0, size = 0;
	if (query_int(s, "PRAGMA page_count", &pages) != 0 || query_int(s, "PRAGMA freelist_count", &free_pages) != 0 ||
	    query_int(s, "PRAGMA page_size", &size) != 0) {
		return 0;
	}
	return (uint64_t)((pages - free_pages) * size);
}

static int in_transaction(state_store *s, int (*fn)(state_store *, const int64_t *, size_t, double),
			  const int64_t *ids, size_t n_ids, double arg)
{
	if (state_store_begin(s) != 0) {
		return -1;
	}
	if (fn(s, ids, n_ids, arg) != 0) {
		state_store_rollback(s);
		return -1;
	}
	return state_store_commit(s);
}

/* Free pages go back to the file system only past a threshold: recent
 * frees its first pages every minute and fills as many at its end, so
 * they are reused, and moving pages at each maintenance costs writes. */
static int shrink(state_store *s, bool always)
{
	int64_t pages = 0, free_pages = 0;
	if (query_int(s, "PRAGMA page_count", &pages) != 0 || query_int(s, "PRAGMA freelist_count", &free_pages) != 0) {
		return -1;
	}
	if (free_pages == 0 || (!always && free_pages < pages / 8 && free_pages < STATE_FREE_PAGES_MAX)) {
		return 0;
	}
	return exec(s, "PRAGMA incremental_vacuum", "shrinking the file");
}

int state_store_maintain(state_store *s, double now)
{
	return state_store_maintain_folding(s, now, NULL, NULL);
}

int state_store_maintain_folding(state_store *s, double now, state_fold_fn fn, void *ctx)
{
	int64_t *ids = NULL;
	size_t n_ids = 0;
	int rc = -1;
	s->n_folded = 0;
	if (node_ids(s, &ids, &n_ids) != 0 || in_transaction(s, fold, ids, n_ids, now) != 0) {
		goto out;
	}
	/* told once committed: a fold rolled back is done again next time */
	for (size_t i = 0; fn && i < s->n_folded; i++) {
		fn(ctx, s->folded[i].node, s->folded[i].t, s->folded[i].frequency_ppm);
	}
	if (
in_transaction(s, delete_before, ids, n_ids, now - s->lim.retention_s) != 0 || shrink(s, false) != 0) {
		goto out;
	}
	/* the size bound: the oldest tenth of what is kept at a time */
	for (int round = 0; round < 64 && state_store_bytes(s) > s->lim.max_bytes; round++) {
		double first;
		if (oldest(s, ids, n_ids, &first) != 0) {
			goto out;
		}
		if (!isfinite(first) || first >= now) {
			break;
		}
		double cut = first + fmax(60.0, (now - first) * 0.1);
		if (in_transaction(s, delete_before, ids, n_ids, fmin(cut, now)) != 0 || shrink(s, true) != 0) {
			goto out;
		}
	}
	/* the WAL's pages back into the file, and the WAL cut to its limit */
	rc = exec(s, "PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing");
out:
	free(ids);
	return rc;
}

static float column_float(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : (float)sqlite3_column_double(st, col);
}

/* Where recent begins, minute-aligned: samples' minute means before it,
 * recent's raw rows from it on (INFINITY: recent is empty). */
static int recent_cut(state_store *s, double *cut)
{
	sqlite3_stmt *st;
	*cut = INFINITY;
	if (prepare(s, &st, "SELECT min(t) FROM recent") != 0) {
		return -1;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*cut = floor(sqlite3_column_double(st, 0) / 60.0) * 60.0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading samples");
		return -1;
	}
	return 0;
}

static void read_sample(sqlite3_stmt *st, int col, state_sample *x)
{
	x->t = sqlite3_column_double(st, col);
	for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
		x->value[k] = column_float(st, col + 1 + k);
	}
	x->clock_check_s = column_float(st, col + 1 + HISTORY_SERIES_COUNT);
}

/* Steps st to its end, each row to fn; 0 or -1. */
static int each_sample(state_store *s, sqlite3_stmt *st, state_sample_fn fn, void *ctx)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		state_sample x;
		read_sample(st, 0, &x);
		fn(ctx, &x);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading samples");
		return -1;
	}
	return 0;
}

int state_store_load_samples(state_store *s, int64_t node_id, double since, state_sample_fn fn, void *ctx)
{
	double cut;
	if (recent_cut(s, &cut) != 0) {
		return -1;
	}
	sqlite3_stmt *old = NULL, *raw = NULL;
	int rc = -1;
	if (prepare(s, &old, "SELECT t, " SAMPLE_COLUMNS " FROM samples WHERE node=?1 AND t>=?2 AND t<?3 ORDER BY t") !=
		    0 ||
	    prepare(s, &raw, "SELECT t, " SAMPLE_COLUMNS " FROM recent WHERE node=?1 AND t>=?2 ORDER BY t") != 0) {
		goto out;
	}
	sqlite3_bind_int64(old, 1, node_id);
	sqlite3_bind_double(old, 2, since);
	sqlite3_bind_double(old, 3, cut);
	sqlite3_bind_int64(raw, 1, node_id);
	sqlite3_bind_double(raw, 2, fmax(since, isfinite(cut) ? cut : since));
	rc = each_sample(s, old, fn, ctx) == 0 && (!isfinite(cut) || each_sample(s, raw, fn, ctx) == 0) ? 0 : -1;
out:
	sqlite3_finalize(old);
	sqlite3_finalize(raw);
	return rc;
}

typedef struct {
	int64_t id;
	size_t index;
} id_index;

static int by_id(const void *a, const void *b)
{
	int64_t x = ((const id_index *)a)->id, y = ((const id_index *)b)->id;
	return (x > y) - (x < y);
}

int state_store_load_history(state_store *s, const int64_t *ids, size_t n_ids, double since, state_history_fn fn,
			     void *ctx)
{
	double cut;
	if (recent_cut(s, &cut) != 0) {
		return -1;
	}
	sqlite3_stmt *old = NULL, *raw = NULL;
	id_index *map = xcalloc(n_ids ? n_ids : 1, sizeof *map);
	int rc = -1;
	if (prepare(s, &old, "SELECT t, " SAMPLE_COLUMNS " FROM samples WHERE node=?1 AND t>=?2 AND t<?3 ORDER BY t") !=
		    0 ||
	    prepare(s, &raw, "SELECT t, " SAMPLE_COLUMNS ", node FROM recent WHERE t>=?1") != 0) {
		goto out;
	}
	for (size_t i = 0; i < n_ids; i++) {
		map[i].id = ids[i];
		map[i].index = i;
	}
	qsort(map, n_ids, sizeof *map, by_id);
	/* the minute means before recent, node by node (a key range each) */
	for (size_t i = 0; i < n_ids && since < cut; i++) {
		sqlite3_bind_int64(old, 1, ids[i]);
		sqlite3_bind_double(old, 2, since);
		sqlite3_bind_double(old, 3, cut);
		int step;
		while ((step = sqlite3_step(old)) == SQLITE_ROW) {
			state_sample x;
			read_sample(old, 0, &x);
			fn(ctx, i, &x);
		}
		sqlite3_reset(old);
		if (step != SQLITE_DONE) {
			fail_rc(s, step, "reading samples");
			goto out;
		}
	}
	/* then the raw samples in one pass, in time order */
	if (isfinite(cut)) {
		sqlite3_bind_double(raw, 1, fmax(since, cut));
		int step;
		while ((step = sqlite3_step(raw)) == SQLITE_ROW) {
			id_index key = {.id = sqlite3_column_int64(raw, 1 + N_VALUES)};
			const id_index *hit = bsearch(&key, map, n_ids, sizeof *map, by_id);
			if (hit) {
				state_sample x;
				read_sample(raw, 0, &x);
				fn(ctx, hit->index, &x);
			}
		}
		if (step != SQLITE_DONE) {
			fail_rc(s, step, "reading samples");
			goto out;
		}
	}
	rc = 0;
out:
	free(map);
	sqlite3_finalize(old);
	sqlite3_finalize(raw);
	return rc;
}

static const char *column_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? (const char *)t : "";
}

int state_store_load_events(state_store *s, double since, size_t max, state_event_fn fn, void *ctx)
{
	sqlite3_stmt *st;
	if (prepare(s, &st, "SELECT * FROM (SELECT id, t, host, kind, group_kind, subject, from_value, to_value,"
			    " message, grp, group_size, scope FROM events WHERE t>=?1 ORDER BY id DESC LIMIT ?2)"
			    " ORDER BY id") != 0) {
		return -1;
	}
	sqlite3_bind_double(st, 1, since);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		event e;
		event_kind kind, group_kind = EVENT_STATUS;
		if (!event_kind_parse(column_text(st, 3), &kind) ||
		    (kind == EVENT_GROUP && !event_kind_parse(column_text(st, 4), &group_kind))) {
			continue; /* a kind this version does not know */
		}
		const char *scope = column_text(st, 11);
		uint32_t where = strcmp(scope, "group") == 0 ? EVENT_NODE_GROUP
				 : strcmp(scope, "cluster") == 0 ? EVENT_NODE_CLUSTER
								 : 0;
		event_set(&e, kind, where, sqlite3_column_double(st, 1), column_text(st, 5), column_text(st, 6),
			  column_text(st, 7), column_text(st, 8));
		e.group_kind = group_kind;
		e.group_size = (uint32_t)sqlite3_column_int64(st, 10);
		const char *host = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL : column_text(st, 2);
		fn(ctx, sqlite3_column_int64(st, 0), &e, host, sqlite3_column_int64(st, 9));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading events");
		return -1;
	}
	return 0;
}

int state_store_series(state_store *s, const char *host, double since, double until, size_t n_buckets,
		       double *offset_s, double *frequency_ppm)
{
	for (size_t i = 0; i < n_buckets; i++) {
		offset_s[i] = frequency_ppm[i] = NAN;
	}
	if (n_buckets == 0 || !(until > since)) {
		return 0;
	}
	int64_t node;
	int found_node = state_store_find_node(s, host, &node);
	if (found_node <= 0) {
		return found_node;
	}
	/* slices of a minute or more: the minute means, and only the raw
	 * samples not yet folded (a short range of recent's time key);
	 * finer slices: the raw samples, all of recent's window */
	double width = (until - since) / (double)n_buckets, split;
	if (width >= 60.0) {
		if (meta_get(s, "folded_until", &split) != 0) {
			return -1;
		}
	} else if (recent_cut(s, &split) != 0) {
		return -1;
	}
	sqlite3_stmt *st;
	if (prepare(s, &st, "SELECT CAST((t - ?2) / ?4 AS INTEGER) AS b, avg(o), avg(f) FROM ("
			    " SELECT t, offset_s AS o, frequency_ppm AS f FROM samples WHERE node=?1 AND t>=?2 AND t<?5"
			    " UNION ALL"
			    " SELECT t, offset_s, frequency_ppm FROM recent WHERE node=?1 AND t>=?6 AND t<?3)"
			    " GROUP BY b") != 0) {
		return -1;
	}
	sqlite3_bind_int64(st, 1, node);
	sqlite3_bind_double(st, 2, since);
	sqlite3_bind_double(st, 3, until);
	sqlite3_bind_double(st, 4, width);
	sqlite3_bind_double(st, 5, fmin(until, split));
	sqlite3_bind_double(st, 6, fmax(since, split));
	int rc, found = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);
		if (b < 0 || (uint64_t)b >= n_buckets) {
			continue;
		}
		offset_s[b] = sqlite3_column_type(st, 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 1);
		frequency_ppm[b] = sqlite3_column_type(st, 2) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 2);
		found += isfinite(offset_s[b]) || isfinite(frequency_ppm[b]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading the day view");
		return -1;
	}
	return found;
}

int state_store_find_node(state_store *s, const char *host, int64_t *id)
{
	sqlite3_stmt *st;
	if (prepare(s, &st, "SELECT id FROM nodes WHERE host=?1") != 0) {
		return -1;
	}
	sqlite3_bind_text(st, 1, host, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading the nodes");
		return -1;
	}
	return rc == SQLITE_ROW;
}

int state_store_frequency(state_store *s, int64_t node_id, double since, double *t, double *ppm, size_t max)
{
	sqlite3_stmt *st;
	/* samples holds one mean a minute, raw and coarse alike */
	if (prepare(s, &st, "SELECT t, frequency_ppm FROM samples WHERE node=?1 AND t>=?2"
			    " AND frequency_ppm IS NOT NULL ORDER BY t LIMIT ?3") != 0) {
		return -1;
	}
	sqlite3_bind_int64(st, 1, node_id);
	sqlite3_bind_double(st, 2, since);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)max);
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		t[n] = sqlite3_column_double(st, 0);
		ppm[n] = sqlite3_column_double(st, 1);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail_rc(s, rc, "reading frequencies");
		return -1;
	}
	return n;
}
